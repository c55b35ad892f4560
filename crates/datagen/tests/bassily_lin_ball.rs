//! Tests of the LinBall family (Bassily et al. digest §6 E1): constants,
//! exact constrained minimizer, stable excess, closed-form population loss
//! against Monte Carlo, exact objective perturbation, determinism.

mod common;

use common::{assert_record_gradients_average_to, grad, norm, rng};
use datagen::bassily::{LinBall, LinBallParams};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use dpcore::{Objective, RunFailure};

fn params() -> LinBallParams {
    LinBallParams {
        lipschitz: 2.5,
        radius: 1.5,
        ..LinBallParams::new(2_000, 6, 0.3)
    }
}

fn random_in_ball(d: usize, radius: f64, seed: u64) -> Vec<f64> {
    sample_unit_ball(d, &mut rng(seed))
        .iter()
        .map(|v| v * radius)
        .collect()
}

#[test]
fn invalid_parameters_are_rejected() {
    for bad in [
        LinBallParams::new(10, 3, 0.0),
        LinBallParams::new(10, 3, 1.0),
        LinBallParams::new(0, 3, 0.5),
        LinBallParams::new(10, 0, 0.5),
        LinBallParams {
            radius: -1.0,
            ..LinBallParams::new(10, 3, 0.5)
        },
        LinBallParams {
            lipschitz: f64::NAN,
            ..LinBallParams::new(10, 3, 0.5)
        },
    ] {
        let err = LinBall::generate(bad, &mut rng(1)).unwrap_err();
        assert!(matches!(err, RunFailure::InvalidParameters(_)), "{err}");
    }
}

#[test]
fn same_seed_same_data() {
    let a = LinBall::generate(params(), &mut rng(5)).unwrap();
    let b = LinBall::generate(params(), &mut rng(5)).unwrap();
    let c = LinBall::generate(params(), &mut rng(6)).unwrap();
    assert_eq!(a.record(17), b.record(17));
    assert_eq!(a.minimizer(), b.minimizer());
    assert_ne!(a.record(17), c.record(17));
}

#[test]
fn records_and_gradients_respect_the_constants() {
    let f = LinBall::generate(params(), &mut rng(2)).unwrap();
    let c = f.constants();
    assert_eq!((c.lipschitz, c.smoothness, c.radius), (2.5, 0.0, 1.5));
    let fs = f.finite_sum().unwrap();
    let mut g = vec![0.0; 6];
    for seed in 0..5 {
        let w = random_in_ball(6, 1.5, 100 + seed);
        for i in 0..2_000 {
            assert!(norm(f.record(i)) <= 1.0);
            fs.record_gradient(i, &w, &mut g);
            assert!(norm(&g) <= c.lipschitz);
        }
        assert_record_gradients_average_to(fs, 2_000, &w, &grad(&f, &w), 1e-13);
    }
}

#[test]
fn minimizer_satisfies_the_ball_kkt_conditions() {
    let f = LinBall::generate(params(), &mut rng(3)).unwrap();
    let w = f.minimizer().to_vec();
    assert!((norm(&w) - 1.5).abs() < 1e-14);
    // grad F(w*) = -mu w* with mu = ||grad F|| / M >= 0.
    let g = grad(&f, &w);
    let mu = norm(&g) / 1.5;
    let residual: Vec<f64> = g.iter().zip(&w).map(|(a, b)| a + mu * b).collect();
    assert!(norm(&residual) < 1e-14, "{residual:?}");
    for seed in 0..50 {
        let v = random_in_ball(6, 1.5, 200 + seed);
        assert!(f.value(&v) >= f.value(&w) - 1e-15);
    }
}

#[test]
fn excess_matches_the_direct_difference_and_stays_stable() {
    let f = LinBall::generate(params(), &mut rng(4)).unwrap();
    let ws = f.minimizer().to_vec();
    assert_eq!(f.excess_risk(&ws), 0.0);
    for seed in 0..20 {
        let w = random_in_ball(6, 1.5, 300 + seed);
        let direct = f.value(&w) - f.value(&ws);
        assert!((f.excess_risk(&w) - direct).abs() < 1e-14, "{direct}");
    }
    // On the sphere at angle theta from w*: excess = L ||z_bar|| M (1 - cos theta)
    // = 2 L ||z_bar|| M sin^2(theta/2). At theta = 1e-4 the rounding of w itself
    // (radial error ~ eps M) perturbs the true excess by ~1e-8 relative; the
    // naive F(w) - F(w*) would carry ~1e-7.
    let mut perp = sample_unit_sphere(6, &mut rng(9));
    let wn: Vec<f64> = ws.iter().map(|v| v / 1.5).collect();
    let along: f64 = perp.iter().zip(&wn).map(|(a, b)| a * b).sum();
    perp.iter_mut().zip(&wn).for_each(|(p, u)| *p -= along * u);
    let pn = norm(&perp);
    perp.iter_mut().for_each(|p| *p /= pn);
    let theta: f64 = 1e-4;
    let w: Vec<f64> = wn
        .iter()
        .zip(&perp)
        .map(|(u, p)| 1.5 * (theta.cos() * u + theta.sin() * p))
        .collect();
    let exact = 2.0 * 2.5 * norm(f.mean()) * 1.5 * (theta / 2.0).sin().powi(2);
    assert!(
        (f.excess_risk(&w) - exact).abs() < 1e-6 * exact,
        "{} vs {exact}",
        f.excess_risk(&w)
    );
}

#[test]
fn population_loss_matches_monte_carlo() {
    let f = LinBall::generate(params(), &mut rng(7)).unwrap();
    // Fresh records from the same law (a second instance with a new seed).
    let fresh = LinBall::generate(
        LinBallParams {
            n: 200_000,
            ..params()
        },
        &mut rng(8),
    )
    .unwrap();
    for seed in 0..3 {
        let w = random_in_ball(6, 1.5, 400 + seed);
        let losses: Vec<f64> = (0..200_000)
            .map(|i| {
                -2.5 * fresh
                    .record(i)
                    .iter()
                    .zip(&w)
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
            })
            .collect();
        let m = losses.iter().sum::<f64>() / 2e5;
        let var = losses.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (2e5 - 1.0);
        let se = (var / 2e5).sqrt();
        let exact = f.population_loss(&w).unwrap();
        // Two-sided z-test at 5.3 standard errors: false-alarm rate ~1e-7 per check.
        assert!((m - exact).abs() < 5.3 * se, "{m} vs {exact} (se {se})");
        let mut top = vec![0.0; 6];
        top[0] = 1.5;
        let pe = f.population_excess(&w).unwrap();
        assert!((pe - (exact - f.population_loss(&top).unwrap())).abs() < 1e-14);
        assert!(pe >= 0.0);
    }
    assert_eq!(f.population_minimizer()[0], 1.5);
}

#[test]
fn perturbed_minimizer_is_optimal() {
    let f = LinBall::generate(params(), &mut rng(10)).unwrap();
    let objective = |b: &[f64], lambda: f64, w: &[f64]| {
        f.value(w)
            + b.iter().zip(w).map(|(x, y)| x * y).sum::<f64>()
            + lambda * w.iter().map(|v| v * v).sum::<f64>()
    };
    for (k, &lambda) in [0.0, 0.05, 0.3, 10.0].iter().enumerate() {
        let b: Vec<f64> = sample_unit_sphere(6, &mut rng(500 + k as u64))
            .iter()
            .map(|v| 0.7 * v)
            .collect();
        let w = f.perturbed_minimizer(&b, lambda).unwrap();
        assert!(norm(&w) <= 1.5 * (1.0 + 1e-15));
        // KKT: grad G(w) = -L z_bar + b + 2 lambda w = -mu w, mu >= 0 (mu = 0 inside).
        let g: Vec<f64> = (0..6)
            .map(|j| -2.5 * f.mean()[j] + b[j] + 2.0 * lambda * w[j])
            .collect();
        let mu = if norm(&w) < 1.5 * (1.0 - 1e-12) {
            0.0
        } else {
            norm(&g) / 1.5
        };
        let gw: f64 = g.iter().zip(&w).map(|(a, c)| a * c).sum();
        assert!(gw <= 1e-12, "grad points outward: {gw}");
        let res: Vec<f64> = g.iter().zip(&w).map(|(a, c)| a + mu * c).collect();
        assert!(norm(&res) < 1e-12, "lambda {lambda}: {res:?}");
        for seed in 0..30 {
            let v = random_in_ball(6, 1.5, 600 + seed);
            assert!(objective(&b, lambda, &v) >= objective(&b, lambda, &w) - 1e-14);
        }
    }
    assert!(f.perturbed_minimizer(&[0.0; 6], -1.0).is_none());
    assert!(f.perturbed_minimizer(&[0.0; 5], 1.0).is_none());
}

#[test]
fn large_instance_fits_in_memory() {
    // n = 5e5, d = 64 (digest §6 E1 n-sweep maximum): 256 MB of records.
    let f = LinBall::generate(LinBallParams::new(500_000, 64, 0.05), &mut rng(11)).unwrap();
    assert_eq!(f.num_records(), 500_000);
    // z_bar concentrates at r e_1: |z_bar_1 - r| < 6 (1-r)/sqrt(n d) up to a 1e-9 false alarm.
    let tol = 6.0 * 0.95 / (500_000.0_f64 * 64.0).sqrt();
    assert!((f.mean()[0] - 0.05).abs() < tol, "{}", f.mean()[0]);
}

/// The envelope oracle against its definition `min_v f(v; z_i) + beta/2
/// ||w - v||^2`: the record envelope gradient is `beta (w - v*)` for the
/// minimizer `v* = w + L z_i/beta` (the objective is `beta`-strongly convex,
/// so 200 random `v` within 0.5 of `v*` must all score higher), the average
/// of the record gradients matches central differences of the value (the
/// envelope is affine here, so the difference is exact to rounding, 1e-9),
/// and the value lies in Lemma 4.3.2's sandwich `F - L^2/(2 beta) <=
/// F_beta <= F`. A wrong sign or a missing `1/beta` fails each of these.
#[test]
fn envelope_matches_its_definition() {
    let p = LinBallParams { n: 40, ..params() };
    let f = LinBall::generate(p, &mut rng(31)).unwrap();
    let env = f.envelope().expect("LinBall has an envelope");
    let l = p.lipschitz;
    for (k, beta) in [0.3, 2.0, 50.0].into_iter().enumerate() {
        let w = random_in_ball(p.d, 2.0, 900 + k as u64);
        let mut mean = vec![0.0; p.d];
        let mut g = vec![0.0; p.d];
        for i in 0..p.n {
            env.record_envelope_gradient(i, beta, &w, &mut g);
            assert!(norm(&g) <= l * (1.0 + 1e-12));
            let z = f.record(i);
            let v_star: Vec<f64> = w.iter().zip(z).map(|(wj, zj)| wj + l * zj / beta).collect();
            // beta (w - v*) is the returned gradient.
            for j in 0..p.d {
                assert!((beta * (w[j] - v_star[j]) - g[j]).abs() < 1e-12);
            }
            let objective = |v: &[f64]| {
                let fv = -l * v.iter().zip(z).map(|(a, b)| a * b).sum::<f64>();
                let gap: f64 = w.iter().zip(v).map(|(a, b)| (a - b) * (a - b)).sum();
                fv + beta / 2.0 * gap
            };
            let best = objective(&v_star);
            for s in 0..5 {
                let u = random_in_ball(p.d, 0.5, 10_000 * (k as u64 + 1) + 97 * i as u64 + s);
                let v: Vec<f64> = v_star.iter().zip(&u).map(|(a, b)| a + b).collect();
                assert!(objective(&v) >= best - 1e-12);
            }
            mean.iter_mut()
                .zip(&g)
                .for_each(|(m, gi)| *m += gi / p.n as f64);
        }
        let h = 1e-5;
        for j in 0..p.d {
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[j] += h;
            wm[j] -= h;
            let fd = (env.envelope_value(beta, &wp) - env.envelope_value(beta, &wm)) / (2.0 * h);
            assert!((fd - mean[j]).abs() < 1e-9, "beta {beta} coord {j}");
        }
        let (fv, ev) = (f.value(&w), env.envelope_value(beta, &w));
        assert!(ev <= fv + 1e-12 && ev >= fv - l * l / (2.0 * beta) - 1e-12);
    }
}
