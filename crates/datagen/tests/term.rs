//! Tests of the tilted-ERM family (digest §5.1, §8 E6, P16): Newton ground
//! truth, tau -> 0 limit, gradients, stable value and excess, constants.

mod common;

use common::{
    assert_gradient_matches_finite_differences, excess_and_direct_difference,
    excess_and_second_order_model, grad, rng,
};
use datagen::newton::norm2;
use datagen::term::{Term, TermLoss, TermParams};
use dpcore::Objective;

const TAUS: [f64; 4] = [1e-8, 0.01, 3.0, 50.0];
const LOSSES: [TermLoss; 2] = [TermLoss::Quadratic, TermLoss::NonSmooth];

fn instance(n: usize, d: usize, tau: f64, loss: TermLoss, seed: u64) -> Term {
    Term::generate(TermParams::new(n, d, tau, loss), &mut rng(seed)).expect("generate")
}

/// Reference value by plain log-sum-exp, valid where `exp(tau f)` neither
/// overflows nor loses the `tau` scale (moderate tau).
fn naive_value(f: &Term, w: &[f64]) -> f64 {
    let tau = f.params().tau;
    let n = f.num_records();
    let s: f64 = (0..n).map(|i| (tau * f.loss(w, f.record(i))).exp()).sum();
    (s / n as f64).ln() / tau
}

#[test]
fn newton_minimizer_has_tiny_gradient() {
    for loss in LOSSES {
        for tau in TAUS {
            let f = instance(400, 3, tau, loss, 1);
            let g = norm2(&grad(&f, f.minimizer()));
            assert!(g <= 1e-10, "{loss:?} tau={tau}: |g| = {g}");
            assert_eq!(g, f.certified_gradient_norm());
            assert!(norm2(f.minimizer()) <= 1.0, "R = 1");
            assert!(f.excess_risk(f.minimizer()).abs() < 1e-15);
            assert!(f.finite_sum().is_none());
        }
    }
}

#[test]
fn tiny_tau_recovers_erm() {
    let f = instance(1_000, 4, 1e-8, TermLoss::Quadratic, 2);
    let mut mean = [0.0; 4];
    (0..1_000).for_each(|i| {
        mean.iter_mut()
            .zip(f.record(i))
            .for_each(|(m, x)| *m += x / 1e3)
    });
    let dist: f64 = mean
        .iter()
        .zip(f.minimizer())
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>();
    assert!(dist.sqrt() < 1e-7, "{}", dist.sqrt());
    // F_tau(w) = f_bar + tau/2 Var(f) + O(tau^2): checks the log1p/expm1 path.
    let w = [0.3, 0.1, -0.2, 0.0];
    let fs: Vec<f64> = (0..1_000).map(|i| f.loss(&w, f.record(i))).collect();
    let fbar = fs.iter().sum::<f64>() / 1e3;
    let var = fs.iter().map(|v| (v - fbar).powi(2)).sum::<f64>() / 1e3;
    let expect = fbar + 0.5e-8 * var;
    assert!(
        (f.value(&w) - expect).abs() < 1e-14,
        "{} vs {expect}",
        f.value(&w)
    );
}

#[test]
fn gradient_matches_finite_differences() {
    for loss in LOSSES {
        for tau in TAUS {
            let f = instance(200, 3, tau, loss, 3);
            let w = [0.2, -0.4, 0.1];
            let context = format!("{loss:?} tau={tau}");
            assert_gradient_matches_finite_differences(&f, &w, &grad(&f, &w), 1e-6, 1e-7, &context);
        }
    }
}

#[test]
fn value_is_stable_for_all_tilts() {
    for loss in LOSSES {
        for tau in [0.01, 3.0, 50.0] {
            let f = instance(300, 3, tau, loss, 4);
            let w = [0.5, 0.5, -0.1];
            let (v, r) = (f.value(&w), naive_value(&f, &w));
            assert!(
                (v - r).abs() < 1e-12 * r.abs(),
                "{loss:?} tau={tau}: {v} vs {r}"
            );
        }
        // exp(tau f) overflows naively at tau = 2000; the stable value stays
        // between the max loss minus log(n)/tau and the max loss.
        let f = instance(300, 3, 2000.0, loss, 4);
        let w = [0.5, 0.5, -0.1];
        let fmax = (0..300)
            .map(|i| f.loss(&w, f.record(i)))
            .fold(f64::MIN, f64::max);
        let v = f.value(&w);
        assert!(
            v <= fmax + 1e-15 && v >= fmax - (300f64).ln() / 2000.0 - 1e-15,
            "{v} {fmax}"
        );
    }
}

/// Far from `w*` the excess equals the direct difference; near `w*` it
/// matches `1/2 dw^T H dw` with the Hessian-vector product taken by central
/// differences of the gradient (third-order remainder and FD error < 1e-4).
#[test]
fn excess_is_exact_and_cancellation_free() {
    for loss in LOSSES {
        for tau in TAUS {
            let f = instance(300, 3, tau, loss, 5);
            let (ex, direct) = excess_and_direct_difference(&f, &[0.3, -0.2, 0.25]);
            assert!(
                (ex - direct).abs() < 1e-11 * direct,
                "{loss:?} tau={tau}: {ex} vs {direct}"
            );
            let (ex, model) = excess_and_second_order_model(&f, &[0.6, -0.64, 0.48], 1e-5, 1e-7);
            assert!(
                (ex - model).abs() < 1e-4 * model,
                "{loss:?} tau={tau}: {ex} vs {model}"
            );
        }
    }
}

#[test]
fn constants_follow_the_digest() {
    let f = instance(100, 2, 3.0, TermLoss::Quadratic, 6);
    let c = f.constants();
    assert_eq!(
        (c.lipschitz, c.smoothness, c.strong_convexity, c.radius),
        (2.0, 13.0, 1.0, 1.0)
    );
    assert_eq!(f.log_c_tau(), 6.0);
    assert_eq!(f.kappa_tau(), 13.0);
    // C_tau = e^6 = 403 > n = 100: the sensitivity saturates at 2L/mu.
    assert_eq!(f.minimizer_sensitivity().tight, 4.0);
    let f = instance(10_000, 2, 3.0, TermLoss::Quadratic, 6);
    let s = f.minimizer_sensitivity();
    assert!((s.tight - 4.0 * 6f64.exp() / 1e4).abs() < 1e-15 && s.paper == s.tight);
    let g = instance(100, 2, 0.5, TermLoss::NonSmooth, 6);
    let c = g.constants();
    assert_eq!((c.lipschitz, c.strong_convexity, c.radius), (2.0, 1.0, 1.0));
    assert!(c.smoothness.is_infinite() && g.kappa_tau().is_infinite());
    assert_eq!(g.log_c_tau(), 0.5 * 2.5);
    assert!(TermParams::new(10, 2, 0.0, TermLoss::Quadratic)
        .validate()
        .is_err());
    assert!(TermParams::new(10, 0, 1.0, TermLoss::Quadratic)
        .validate()
        .is_err());
}

fn sharp(n: usize, d: usize, tau: f64, atoms: f64, seed: u64) -> Term {
    let params = TermParams {
        atom_fraction: atoms,
        ..TermParams::new(n, d, tau, TermLoss::NonSmooth)
    };
    Term::generate(params, &mut rng(seed)).expect("generate")
}

/// The sharp variant: `w* = 0` is the minimum, `F_tau` grows at least `c ||w||`
/// from it along random directions at every scale (so the excess is linear in
/// small perturbations, not quadratic), the exact excess matches the direct
/// difference of values (to its cancellation error), and `c` is the atoms' tilted weight
/// `k/(k + (n - k) e^tau)`.
#[test]
fn sharp_instance_has_its_minimum_at_zero_and_grows_linearly() {
    for (n, atoms, tau) in [(400usize, 0.5, 0.5), (401, 0.2, 3.0), (100, 0.9, 1e-3)] {
        let f = sharp(n, 5, tau, atoms, 2);
        assert!(f.minimizer().iter().all(|v| *v == 0.0));
        let k = (0..n)
            .filter(|&i| f.record(i).iter().all(|v| *v == 0.0))
            .count();
        assert!(k as f64 >= atoms * n as f64 && (n - k) % 2 == 0, "k = {k}");
        let c = f.sharpness().unwrap();
        let want = k as f64 / (k as f64 + (n - k) as f64 * tau.exp());
        assert!((c - want).abs() <= 1e-12 * want, "c = {c}, want {want}");
        let mut r = rng(3);
        for _ in 0..50 {
            let u = datagen::geometry::sample_unit_sphere(5, &mut r);
            for scale in [1e-6, 1e-3, 0.1, 0.9] {
                let w: Vec<f64> = u.iter().map(|v| v * scale).collect();
                let excess = f.excess_risk(&w);
                assert!(
                    excess >= c * scale * (1.0 - 1e-9),
                    "{excess} < c ||w|| = {}",
                    c * scale
                );
                // The direct difference of two values cancels below ~1e-8.
                let direct = f.value(&w) - f.value(f.minimizer());
                assert!(
                    (excess - direct).abs() <= 1e-13 + 1e-9 * direct.abs(),
                    "{excess} vs {direct}"
                );
            }
            // Linear, not quadratic: halving a small step halves the excess.
            let small: Vec<f64> = u.iter().map(|v| v * 1e-7).collect();
            let half: Vec<f64> = u.iter().map(|v| v * 5e-8).collect();
            let ratio = f.excess_risk(&small) / f.excess_risk(&half);
            assert!((ratio - 2.0).abs() < 1e-3, "ratio {ratio}");
        }
    }
    // Without atoms the sharpness is undefined; with the smooth loss refused.
    assert!(instance(50, 3, 0.5, TermLoss::NonSmooth, 1)
        .sharpness()
        .is_none());
    let bad = TermParams {
        atom_fraction: 0.5,
        ..TermParams::new(50, 3, 0.5, TermLoss::Quadratic)
    };
    assert!(bad.validate().is_err());
}
