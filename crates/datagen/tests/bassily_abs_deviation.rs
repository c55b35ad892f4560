//! Tests of the coordinate-atom absolute-deviation family (Bassily et al.
//! digest §6 E3): constants, exact minimizer, exact excess, population loss
//! against Monte Carlo, the Moreau envelope (Huber) oracle, determinism.

mod common;

use common::{assert_record_gradients_average_to, grad, norm, rng};
use datagen::bassily::abs_deviation::{sign_pattern, weighted_pair_excess};
use datagen::bassily::{AbsDeviation, AbsDeviationParams};
use datagen::geometry::sample_unit_ball;
use dpcore::{Objective, RunFailure};
use rand::RngExt;

const D: usize = 9;

fn params() -> AbsDeviationParams {
    AbsDeviationParams {
        lipschitz: 1.7,
        radius: 1.2,
        ..AbsDeviationParams::new(301, D, 0.4)
    }
}

fn random_in_ball(radius: f64, seed: u64) -> Vec<f64> {
    sample_unit_ball(D, &mut rng(seed))
        .iter()
        .map(|v| v * radius)
        .collect()
}

/// `F(w)` summed record by record from the definition.
fn brute_value(f: &AbsDeviation, w: &[f64]) -> f64 {
    let n = f.num_records();
    (0..n)
        .map(|i| {
            let a = f.atom(i);
            1.7 * (a.sign() * w[a.coord as usize] - f.tau()).abs()
        })
        .sum::<f64>()
        / n as f64
}

#[test]
fn invalid_parameters_are_rejected() {
    for bad in [
        AbsDeviationParams::new(10, 3, 0.0),
        AbsDeviationParams::new(10, 3, 0.96),
        AbsDeviationParams::new(0, 3, 0.5),
        AbsDeviationParams::new(10, 0, 0.5),
        AbsDeviationParams {
            lipschitz: 0.0,
            ..AbsDeviationParams::new(10, 3, 0.5)
        },
    ] {
        let err = AbsDeviation::generate(bad, &mut rng(1)).unwrap_err();
        assert!(matches!(err, RunFailure::InvalidParameters(_)), "{err}");
    }
    assert!(AbsDeviation::generate(AbsDeviationParams::new(10, 3, 0.95), &mut rng(1)).is_ok());
}

#[test]
fn sign_pattern_is_fixed_and_mixed() {
    let first: Vec<f64> = (0..64).map(sign_pattern).collect();
    let again: Vec<f64> = (0..64).map(sign_pattern).collect();
    assert_eq!(first, again);
    let plus = first.iter().filter(|&&s| s == 1.0).count();
    assert!(plus > 16 && plus < 48, "{plus} of 64 positive");
    assert!(first.iter().all(|s| s.abs() == 1.0));
}

#[test]
fn same_seed_same_data() {
    let a = AbsDeviation::generate(params(), &mut rng(5)).unwrap();
    let b = AbsDeviation::generate(params(), &mut rng(5)).unwrap();
    assert!((0..301).all(|i| a.atom(i) == b.atom(i)));
    assert_eq!(a.minimizer(), b.minimizer());
    let c = AbsDeviation::generate(params(), &mut rng(6)).unwrap();
    assert!((0..301).any(|i| a.atom(i) != c.atom(i)));
}

#[test]
fn value_gradients_and_constants() {
    let f = AbsDeviation::generate(params(), &mut rng(2)).unwrap();
    let c = f.constants();
    assert_eq!((c.lipschitz, c.radius), (1.7, 1.2));
    assert!(c.smoothness.is_infinite());
    let fs = f.finite_sum().unwrap();
    let mut g = vec![0.0; D];
    for seed in 0..10 {
        let w = random_in_ball(1.2, 100 + seed);
        assert!((f.value(&w) - brute_value(&f, &w)).abs() < 1e-14);
        for i in 0..301 {
            g.fill(7.0);
            fs.record_gradient(i, &w, &mut g);
            assert!(norm(&g) <= 1.7 + 1e-15);
            assert_eq!(g.iter().filter(|v| **v != 0.0).count(), 1);
        }
        assert_record_gradients_average_to(fs, 301, &w, &grad(&f, &w), 1e-14);
    }
}

#[test]
fn minimizer_is_exact_and_excess_is_exact() {
    let f = AbsDeviation::generate(params(), &mut rng(3)).unwrap();
    let ws = f.minimizer().to_vec();
    assert!(norm(&ws) <= 1.2 + 1e-15);
    let fstar = f.value(&ws);
    // F* = (L/n) sum_j 2 tau min(A_j, B_j).
    let expect: f64 = (0..D)
        .map(|j| {
            let (a, b) = f.counts(j);
            2.0 * f.tau() * a.min(b)
        })
        .sum::<f64>()
        * 1.7
        / 301.0;
    assert!((fstar - expect).abs() < 1e-14);
    assert_eq!(f.excess_risk(&ws), 0.0);
    // Optimality: no point of the ball (random, and coordinate moves) does better.
    for seed in 0..200 {
        let v = random_in_ball(1.2, 200 + seed);
        let ex = f.excess_risk(&v);
        assert!((ex - (f.value(&v) - fstar)).abs() < 1e-14);
        assert!(ex >= 0.0);
    }
    for j in 0..D {
        for t in [-1e-3, 1e-3] {
            let mut v = ws.clone();
            v[j] += t;
            assert!(f.value(&v) >= fstar - 1e-16);
        }
    }
    // Tiny moves: the exact piecewise form keeps full relative accuracy.
    let mut v = ws.clone();
    let j = (0..D).find(|&j| f.counts(j).0 != f.counts(j).1).unwrap();
    let (a, b) = f.counts(j);
    v[j] -= ws[j].signum() * 1e-12;
    let exact = 1.7 / 301.0 * (a - b).abs() * 1e-12;
    assert!((f.excess_risk(&v) - exact).abs() < 1e-3 * exact);
}

#[test]
fn pair_excess_matches_its_definition() {
    let mut r = rng(12);
    for _ in 0..2_000 {
        let (a, b): (f64, f64) = (r.random_range(0.0..3.0), r.random_range(0.0..3.0));
        let tau = 0.4;
        let x: f64 = r.random_range(-1.5..1.5);
        let direct = a * (x - tau).abs() + b * (x + tau).abs() - 2.0 * tau * a.min(b);
        let piecewise = weighted_pair_excess(a, b, tau, x);
        assert!((piecewise - direct).abs() < 1e-14 && piecewise >= 0.0);
    }
}

#[test]
fn population_loss_matches_monte_carlo() {
    let f = AbsDeviation::generate(params(), &mut rng(7)).unwrap();
    let fresh = AbsDeviation::generate(
        AbsDeviationParams {
            n: 400_000,
            ..params()
        },
        &mut rng(8),
    )
    .unwrap();
    let pop_star = f.population_minimizer();
    assert!((norm(&pop_star) - 1.2).abs() < 1e-14);
    let min = f.population_loss(&pop_star).unwrap();
    assert!((min - 1.7 * 0.6 * f.tau()).abs() < 1e-14, "L (1 - r) tau");
    for seed in 0..3 {
        let w = random_in_ball(1.2, 400 + seed);
        let losses: Vec<f64> = (0..400_000)
            .map(|i| {
                let a = fresh.atom(i);
                1.7 * (a.sign() * w[a.coord as usize] - f.tau()).abs()
            })
            .collect();
        let n = losses.len() as f64;
        let m = losses.iter().sum::<f64>() / n;
        let se = (losses.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
        let exact = f.population_loss(&w).unwrap();
        // z-test at 5.3 standard errors: false-alarm rate ~1e-7 per check.
        assert!((m - exact).abs() < 5.3 * se, "{m} vs {exact} (se {se})");
        let pe = f.population_excess(&w).unwrap();
        assert!((pe - (exact - min)).abs() < 1e-14 && pe >= 0.0);
    }
}

#[test]
fn envelope_gradient_matches_finite_differences() {
    let f = AbsDeviation::generate(params(), &mut rng(9)).unwrap();
    let env = f.envelope().unwrap();
    let mut gi = vec![0.0; D];
    for (k, &beta) in [0.5, 4.0, 60.0].iter().enumerate() {
        let w = random_in_ball(1.2, 700 + k as u64);
        let mut mean = [0.0; D];
        for i in 0..301 {
            env.record_envelope_gradient(i, beta, &w, &mut gi);
            assert!(norm(&gi) <= 1.7 + 1e-15);
            mean.iter_mut().zip(&gi).for_each(|(m, g)| *m += g / 301.0);
        }
        // The envelope is beta-smooth, so central differences err by at most
        // beta h / 2 (plus rounding ~1e-10).
        let h = 1e-6;
        for j in 0..D {
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[j] += h;
            wm[j] -= h;
            let fd = (env.envelope_value(beta, &wp) - env.envelope_value(beta, &wm)) / (2.0 * h);
            assert!(
                (fd - mean[j]).abs() < 1e-8 + beta * h,
                "beta {beta} coord {j}: {fd} vs {}",
                mean[j]
            );
        }
        // Sandwich of Lemma 4.3.2 (unconstrained envelope): f - L^2/(2 beta) <= f_beta <= f.
        let (fv, ev) = (f.value(&w), env.envelope_value(beta, &w));
        assert!(ev <= fv + 1e-15 && ev >= fv - 1.7 * 1.7 / (2.0 * beta) - 1e-15);
    }
}
