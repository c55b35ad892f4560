//! Tests of the least-squares GLM (Bassily et al. digest §6 E2-LS): constants,
//! exact constrained minimizer (interior and active), exact excess, closed
//! population loss against Monte Carlo, exact objective perturbation.

mod common;

use common::{assert_record_gradients_average_to, excess_and_second_order_model, grad, norm, rng};
use datagen::bassily::{LeastSquaresGlm, LeastSquaresGlmParams};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use dpcore::{Objective, RunFailure};

const D: usize = 6;

fn instance(radius: f64, signal: f64, seed: u64) -> LeastSquaresGlm {
    let p = LeastSquaresGlmParams {
        radius,
        signal,
        ..LeastSquaresGlmParams::new(1_500, D)
    };
    LeastSquaresGlm::generate(p, &mut rng(seed)).unwrap()
}

fn random_in_ball(radius: f64, seed: u64) -> Vec<f64> {
    sample_unit_ball(D, &mut rng(seed))
        .iter()
        .map(|v| v * radius)
        .collect()
}

/// Asserts `grad + mu w = 0` (to `tol`), `mu >= 0`, `||w|| <= M`, and
/// `mu > 0 => ||w|| = M`: the KKT conditions over the ball.
fn assert_ball_kkt(g: &[f64], w: &[f64], mu: f64, radius: f64, tol: f64) {
    assert!(mu >= 0.0);
    assert!(norm(w) <= radius * (1.0 + 1e-15));
    if mu > 0.0 {
        assert!((norm(w) - radius).abs() < 1e-12 * radius, "{}", norm(w));
    }
    let res: Vec<f64> = g.iter().zip(w).map(|(a, b)| a + mu * b).collect();
    assert!(norm(&res) < tol, "KKT residual {}", norm(&res));
}

#[test]
fn invalid_parameters_are_rejected() {
    let base = LeastSquaresGlmParams::new(100, 5);
    for bad in [
        LeastSquaresGlmParams { d: 3, ..base },
        LeastSquaresGlmParams { n: 4, ..base },
        LeastSquaresGlmParams {
            signal: 1.5,
            ..base
        },
        LeastSquaresGlmParams {
            noise: -0.1,
            ..base
        },
        LeastSquaresGlmParams {
            radius: 0.0,
            ..base
        },
    ] {
        let err = LeastSquaresGlm::generate(bad, &mut rng(1)).unwrap_err();
        assert!(matches!(err, RunFailure::InvalidParameters(_)), "{err}");
    }
}

#[test]
fn same_seed_same_data() {
    let (a, b, c) = (
        instance(1.0, 0.5, 4),
        instance(1.0, 0.5, 4),
        instance(1.0, 0.5, 5),
    );
    assert_eq!(a.data().features(9), b.data().features(9));
    assert_eq!(a.data().response(9), b.data().response(9));
    assert_eq!(a.minimizer(), b.minimizer());
    assert_ne!(a.data().features(9), c.data().features(9));
}

#[test]
fn record_gradients_respect_the_lipschitz_constant() {
    let f = instance(1.0, 0.5, 2);
    let c = f.constants();
    assert!((c.lipschitz - (1.0 + 0.5 / 2f64.sqrt() + 0.5)).abs() < 1e-15);
    assert_eq!(c.smoothness, 1.0);
    let fs = f.finite_sum().unwrap();
    let mut g = vec![0.0; D];
    let mut worst: f64 = 0.0;
    for seed in 0..20 {
        let w = random_in_ball(1.0, 100 + seed);
        for i in 0..1_500 {
            assert!(
                (norm(f.data().features(i)) - 1.0).abs() < 1e-15,
                "||x|| = 1"
            );
            fs.record_gradient(i, &w, &mut g);
            worst = worst.max(norm(&g));
        }
        assert_record_gradients_average_to(fs, 1_500, &w, &grad(&f, &w), 1e-13);
    }
    assert!(worst <= c.lipschitz, "{worst}");
}

#[test]
fn interior_minimizer_is_stationary_and_excess_is_exact() {
    let f = instance(1.0, 0.5, 3);
    assert_eq!(f.multiplier(), 0.0);
    assert_ball_kkt(&grad(&f, f.minimizer()), f.minimizer(), 0.0, 1.0, 1e-14);
    let ws = f.minimizer().to_vec();
    for seed in 0..20 {
        let w = random_in_ball(1.0, 200 + seed);
        let direct = f.value(&w) - f.value(&ws);
        assert!((f.excess_risk(&w) - direct).abs() < 1e-13, "{direct}");
    }
    let u = sample_unit_sphere(D, &mut rng(7));
    let (ex, model) = excess_and_second_order_model(&f, &u, 1e-3, 1e-7);
    assert!((ex - model).abs() < 1e-6 * model, "{ex} vs {model}");
}

#[test]
fn active_minimizer_satisfies_kkt() {
    // theta* on the sphere: the unconstrained estimate leaves the ball for
    // about half of the data sets.
    let f = (0..40)
        .map(|seed| instance(0.5, 0.5, 300 + seed))
        .find(|f| f.multiplier() > 0.0)
        .expect("an active instance among 40 seeds");
    let ws = f.minimizer().to_vec();
    assert_ball_kkt(&grad(&f, &ws), &ws, f.multiplier(), 0.5, 1e-14);
    for seed in 0..50 {
        let w = random_in_ball(0.5, 400 + seed);
        let ex = f.excess_risk(&w);
        assert!(ex >= 0.0 && (ex - (f.value(&w) - f.value(&ws))).abs() < 1e-13);
    }
}

#[test]
fn population_loss_matches_monte_carlo() {
    let f = instance(1.0, 0.5, 8);
    let fresh =
        LeastSquaresGlm::generate(LeastSquaresGlmParams::new(300_000, D), &mut rng(9)).unwrap();
    let theta = f.population_minimizer();
    assert_eq!(f.population_excess(&theta), Some(0.0));
    assert!((f.population_loss(&theta).unwrap() - 0.25 / 6.0).abs() < 1e-15);
    for seed in 0..3 {
        let w = random_in_ball(1.0, 500 + seed);
        let losses: Vec<f64> = fresh
            .data()
            .iter()
            .map(|(x, y)| 0.5 * (x.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() - y).powi(2))
            .collect();
        let n = losses.len() as f64;
        let m = losses.iter().sum::<f64>() / n;
        let se = (losses.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
        let exact = f.population_loss(&w).unwrap();
        // z-test at 5.3 standard errors: false-alarm rate ~1e-7 per check.
        assert!((m - exact).abs() < 5.3 * se, "{m} vs {exact} (se {se})");
    }
}

#[test]
fn perturbed_minimizer_is_exact() {
    let f = instance(1.0, 0.5, 10);
    for (k, (scale, lambda)) in [(0.05, 0.0), (0.1, 0.2), (5.0, 0.01), (3.0, 0.5)]
        .iter()
        .enumerate()
    {
        let b: Vec<f64> = sample_unit_sphere(D, &mut rng(600 + k as u64))
            .iter()
            .map(|v| scale * v)
            .collect();
        let w = f.perturbed_minimizer(&b, *lambda).unwrap();
        let mut g = grad(&f, &w);
        g.iter_mut()
            .zip(&b)
            .zip(&w)
            .for_each(|((gj, bj), wj)| *gj += bj + 2.0 * lambda * wj);
        // Recover mu from the radial component (0 when strictly inside).
        let mu = if norm(&w) < 1.0 - 1e-12 {
            0.0
        } else {
            -g.iter().zip(&w).map(|(a, c)| a * c).sum::<f64>() / norm(&w).powi(2)
        };
        assert_ball_kkt(&g, &w, mu, 1.0, 1e-13);
        if *scale >= 3.0 {
            assert!(mu > 0.0, "a large perturbation makes the constraint active");
        }
    }
    assert!(f.perturbed_minimizer(&[0.0; D], -0.5).is_none());
}
