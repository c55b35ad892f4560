//! Tests of the logistic GLM (Bassily et al. digest §6 E2-Logit): constants,
//! certified constrained minimizer, stable excess, the feature quadrature
//! against closed forms and the population loss against Monte Carlo, the
//! softplus Bregman helper.

mod common;

use common::{assert_record_gradients_average_to, excess_and_second_order_model, grad, norm, rng};
use datagen::bassily::bregman::softplus_bregman;
use datagen::bassily::glm::{covariance_quadratic_form, feature_expectation};
use datagen::bassily::{LogisticGlm, LogisticGlmParams};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use datagen::numerics::{sigmoid, softplus};
use dpcore::{Objective, RunFailure};

fn instance(n: usize, d: usize, signal: f64, radius: f64, seed: u64) -> LogisticGlm {
    let p = LogisticGlmParams {
        radius,
        ..LogisticGlmParams::new(n, d, signal)
    };
    LogisticGlm::generate(p, &mut rng(seed)).unwrap()
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
        LogisticGlmParams::new(100, 3, 1.0),
        LogisticGlmParams::new(0, 5, 1.0),
        LogisticGlmParams::new(100, 5, 2.5),
        LogisticGlmParams::new(100, 5, -1.0),
    ] {
        let err = LogisticGlm::generate(bad, &mut rng(1)).unwrap_err();
        assert!(matches!(err, RunFailure::InvalidParameters(_)), "{err}");
    }
}

#[test]
fn same_seed_same_data_and_no_objective_perturbation() {
    let (a, b) = (instance(500, 5, 1.0, 2.0, 4), instance(500, 5, 1.0, 2.0, 4));
    assert_eq!(a.data().features(3), b.data().features(3));
    assert_eq!(a.minimizer(), b.minimizer());
    assert!(instance(500, 5, 1.0, 2.0, 5).data().features(3) != a.data().features(3));
    assert!(a.perturbed_minimizer(&[0.0; 5], 1.0).is_none());
}

#[test]
fn record_gradients_respect_the_constants() {
    let f = instance(1_000, 6, 2.0, 2.0, 2);
    let c = f.constants();
    assert_eq!((c.lipschitz, c.smoothness, c.radius), (1.0, 0.25, 2.0));
    let fs = f.finite_sum().unwrap();
    let mut g = vec![0.0; 6];
    for seed in 0..10 {
        let w = random_in_ball(6, 2.0, 100 + seed);
        for i in 0..1_000 {
            fs.record_gradient(i, &w, &mut g);
            assert!(norm(&g) <= 1.0 + 1e-15);
        }
        assert_record_gradients_average_to(fs, 1_000, &w, &grad(&f, &w), 1e-14);
    }
}

#[test]
fn interior_minimizer_is_certified_and_excess_is_stable() {
    let f = instance(4_000, 5, 1.0, 2.0, 3);
    assert_eq!(f.multiplier(), 0.0);
    assert!(norm(f.minimizer()) < 2.0);
    assert!(norm(&grad(&f, f.minimizer())) <= 1e-12);
    let ws = f.minimizer().to_vec();
    for seed in 0..20 {
        let w = random_in_ball(5, 2.0, 200 + seed);
        let direct = f.value(&w) - f.value(&ws);
        assert!((f.excess_risk(&w) - direct).abs() < 1e-13, "{direct}");
    }
    let u = sample_unit_sphere(5, &mut rng(8));
    let (ex, model) = excess_and_second_order_model(&f, &u, 1e-4, 1e-6);
    assert!((ex - model).abs() < 1e-5 * model, "{ex} vs {model}");
}

#[test]
fn active_minimizer_satisfies_kkt() {
    // n = 12 points in d = 8 are linearly separable: no unconstrained
    // minimizer exists, so the constraint is active.
    for (n, d, radius, seed) in [(12, 8, 2.0, 6), (3_000, 5, 0.3, 7)] {
        let f = instance(n, d, 0.3_f64.min(radius), radius, seed);
        let (ws, mu) = (f.minimizer().to_vec(), f.multiplier());
        assert!(mu > 0.0);
        assert!((norm(&ws) - radius).abs() < 1e-12 * radius);
        let res: Vec<f64> = grad(&f, &ws)
            .iter()
            .zip(&ws)
            .map(|(g, w)| g + mu * w)
            .collect();
        assert!(
            norm(&res) <= 1e-12 && f.stationarity() <= 1e-12,
            "{}",
            norm(&res)
        );
        for s in 0..30 {
            let w = random_in_ball(d, radius, 300 + s);
            let ex = f.excess_risk(&w);
            assert!(ex >= -1e-15 && (ex - (f.value(&w) - f.value(&ws))).abs() < 1e-13);
        }
    }
}

#[test]
fn feature_quadrature_matches_closed_moments() {
    // E<w, x>^2 = w^T Sigma w; E<w, x>^4 = (w1^4 + 6 w1^2 rho^2 E t^2 + rho^4 E t^4)/4
    // with E t^2 = 1/k, E t^4 = 3/(k (k + 2)), k = d - 1.
    for (d, seed) in [(4, 1), (7, 2), (40, 3)] {
        let w: Vec<f64> = sample_unit_ball(d, &mut rng(seed))
            .iter()
            .map(|v| 1.7 * v)
            .collect();
        let k = (d - 1) as f64;
        let (w1, rho2) = (w[0], w[1..].iter().map(|v| v * v).sum::<f64>());
        let m2 = feature_expectation(&w, |_, u| u * u);
        assert!((m2 - covariance_quadratic_form(&w)).abs() < 1e-14, "{m2}");
        let m4 = feature_expectation(&w, |_, u| u.powi(4));
        let exact =
            (w1.powi(4) + 6.0 * w1 * w1 * rho2 / k + rho2 * rho2 * 3.0 / (k * (k + 2.0))) / 4.0;
        assert!((m4 - exact).abs() < 1e-13 * exact, "{m4} vs {exact}");
        let odd = feature_expectation(&w, |s, u| s * u);
        assert!((odd - w1 / 2f64.sqrt()).abs() < 1e-14, "E[s u] = w1/sqrt2");
    }
}

#[test]
fn population_loss_matches_monte_carlo() {
    let (d, a) = (6, 2.0);
    let f = instance(200, d, a, 2.0, 10);
    let fresh = instance(300_000, d, a, 2.0, 11);
    let theta = f.population_minimizer();
    assert_eq!(f.population_excess(&theta), Some(0.0));
    let p = sigmoid(a / 2f64.sqrt());
    let entropy = -(p * p.ln() + (1.0 - p) * (1.0 - p).ln());
    assert!((f.population_loss(&theta).unwrap() - entropy).abs() < 1e-15);
    for seed in 0..3 {
        let w = random_in_ball(d, 2.0, 700 + seed);
        // Labels integrated out analytically (Rao-Blackwell), x sampled.
        let losses: Vec<f64> = fresh
            .data()
            .iter()
            .map(|(x, _)| {
                let u: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
                let q = sigmoid(a * x[0]);
                q * softplus(-u) + (1.0 - q) * softplus(u)
            })
            .collect();
        let n = losses.len() as f64;
        let m = losses.iter().sum::<f64>() / n;
        let se = (losses.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
        let exact = f.population_loss(&w).unwrap();
        // z-test at 5.3 standard errors: false-alarm rate ~1e-7 per check.
        assert!((m - exact).abs() < 5.3 * se, "{m} vs {exact} (se {se})");
    }
    // Near theta*: excess ~ 1/2 e^T I(theta*) e with the Fisher information, positive.
    let mut w = theta.clone();
    w[1] += 1e-7;
    let pe = f.population_excess(&w).unwrap();
    assert!(pe > 0.0 && pe < 1e-14, "{pe}");
}

#[test]
fn softplus_bregman_is_accurate() {
    for &v in &[-30.0_f64, -3.0, -0.2, 0.0, 0.7, 5.0] {
        let p = sigmoid(v);
        for &e in &[1e-9_f64, -3e-6, 1e-4, -2e-4] {
            // Taylor: p(1-p) [e^2/2 + (1-2p) e^3/6 + (1 - 6p + 6p^2) e^4/24] + O(e^5).
            let q = p * (1.0 - p);
            let taylor = q
                * (e * e / 2.0
                    + (1.0 - 2.0 * p) * e.powi(3) / 6.0
                    + (1.0 - 6.0 * p + 6.0 * p * p) * e.powi(4) / 24.0);
            let got = softplus_bregman(v, e);
            assert!(
                (got - taylor).abs() <= 1e-12 * taylor + 1e-300,
                "v {v} e {e}: {got} vs {taylor}"
            );
            let mirrored = softplus_bregman(-v, -e);
            assert!((got - mirrored).abs() <= 1e-15 * got, "D(v, e) = D(-v, -e)");
        }
        for &e in &[0.5, -2.0, 7.0] {
            let direct = softplus(v + e) - softplus(v) - p * e;
            assert!((softplus_bregman(v, e) - direct).abs() < 1e-14 * (1.0 + direct.abs()));
        }
    }
}
