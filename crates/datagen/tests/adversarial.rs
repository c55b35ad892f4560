//! Tests of the closed-form adversarial-training family (digest §5.2, §8 E7).

mod common;

use common::{
    assert_gradient_matches_finite_differences, assert_record_gradients_average_to,
    excess_and_direct_difference, excess_and_second_order_model, grad, rng,
};
use datagen::adversarial::{Adversarial, AdversarialParams};
use datagen::geometry::sample_unit_ball;
use datagen::logistic::{FeatureModel, Logistic, LogisticParams};
use datagen::newton::norm2;
use datagen::newton::softplus;
use dpcore::Objective;

fn instance(n: usize, d: usize, mu: f64, r: f64, seed: u64) -> Adversarial {
    Adversarial::generate(AdversarialParams::new(n, d, mu, r), &mut rng(seed)).expect("generate")
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// `x_i + v*` attains the closed form, and 2000 random `v` in `B(0, r)`
/// (deterministic property: none may exceed it) never beat it.
#[test]
fn inner_max_point_attains_the_closed_form() {
    let f = instance(50, 5, 0.1, 0.2, 1);
    let w = [0.7, -0.3, 0.2, 0.0, 1.1];
    let mut r = rng(2);
    for i in 0..10 {
        let (x, y) = (f.data().features(i), f.data().label(i));
        let closed = softplus(-(y * dot(&w, x) - 0.2 * norm2(&w)));
        let xa = f.inner_max_point(&w, i);
        let diff: Vec<f64> = xa.iter().zip(x).map(|(a, b)| a - b).collect();
        assert!((norm2(&diff) - 0.2).abs() < 1e-15);
        assert!((softplus(-y * dot(&w, &xa)) - closed).abs() < 1e-15);
        for _ in 0..200 {
            let v: Vec<f64> = sample_unit_ball(5, &mut r)
                .iter()
                .map(|c| 0.2 * c)
                .collect();
            let xv: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + b).collect();
            assert!(softplus(-y * dot(&w, &xv)) <= closed + 1e-15);
        }
    }
    assert_eq!(f.inner_max_point(&[0.0; 5], 3), f.data().features(3));
}

#[test]
fn newton_minimizer_is_certified_and_away_from_the_kink() {
    for d in [1usize, 2, 20, 200] {
        for r in [0.0, 0.05, 0.1, 0.2] {
            let f = instance(2_000, d, 0.1, r, 3);
            let g = norm2(&grad(&f, f.minimizer()));
            assert!(
                g <= 1e-10 && g == f.certified_gradient_norm(),
                "d={d} r={r}: {g}"
            );
            let nw = norm2(f.minimizer());
            assert!(
                nw >= 0.1 && nw <= f.constants().radius,
                "d={d} r={r}: |w*| = {nw}"
            );
            assert_eq!(f.excess_risk(f.minimizer()), 0.0);
        }
    }
}

/// With `r = 0` the objective is the logistic one on the same data.
#[test]
fn zero_radius_is_logistic_regression() {
    let a = instance(1_000, 4, 0.2, 0.0, 9);
    let p = LogisticParams {
        signal: a.params().signal,
        features: FeatureModel::SignalSlab,
        ..LogisticParams::new(1_000, 4, 0.2)
    };
    let l = Logistic::generate(p, &mut rng(9)).unwrap();
    let w = [0.3, 0.1, -0.2, 0.5];
    assert!((a.value(&w) - l.value(&w)).abs() < 1e-15);
    let dist: Vec<f64> = a
        .minimizer()
        .iter()
        .zip(l.minimizer())
        .map(|(x, y)| x - y)
        .collect();
    assert!(norm2(&dist) < 1e-10 / 0.2);
}

#[test]
fn gradients_match_finite_differences_and_records() {
    let f = instance(400, 3, 0.1, 0.15, 4);
    let w = [0.4, -0.2, 0.3];
    let g = grad(&f, &w);
    assert_gradient_matches_finite_differences(&f, &w, &g, 1e-6, 1e-8, "");
    let fs = f.finite_sum().unwrap();
    assert_record_gradients_average_to(fs, 400, &w, &g, 1e-14);
    // At w = 0 the r||w|| term contributes the subgradient 0: -1/2 y x.
    let mut gi = [0.0; 3];
    fs.record_gradient(7, &[0.0; 3], &mut gi);
    let (x, y) = (f.data().features(7), f.data().label(7));
    assert!(gi
        .iter()
        .zip(x)
        .all(|(a, b)| (a + 0.5 * y * b).abs() < 1e-16));
}

/// Far from `w*` the excess equals the direct difference; near `w*` it
/// matches `1/2 dw^T H dw` (Hessian-vector product by central differences).
#[test]
fn excess_is_exact_and_cancellation_free() {
    let f = instance(1_000, 3, 0.1, 0.1, 5);
    let (ex, direct) = excess_and_direct_difference(&f, &[0.5, -0.3, 0.2]);
    assert!((ex - direct).abs() < 1e-12 * direct);
    let (ex, model) = excess_and_second_order_model(&f, &[0.6, -0.64, 0.48], 1e-5, 1e-7);
    assert!((ex - model).abs() < 1e-4 * model, "{ex} vs {model}");
}

#[test]
fn kink_minimizer_is_refused_and_constants_are_analytic() {
    // Uniform-ball features in d = 50 carry ||E[y x]|| ~ 0.05 << r = 0.5: w* = 0.
    let p = AdversarialParams {
        features: FeatureModel::UniformBall,
        ..AdversarialParams::new(2_000, 50, 0.1, 0.5)
    };
    assert!(Adversarial::generate(p, &mut rng(1)).is_err());
    assert!(AdversarialParams::new(10, 2, 0.1, 1.0).validate().is_err());
    assert!(AdversarialParams::new(10, 2, -1.0, 0.1).validate().is_err());
    let f = instance(500, 2, 0.1, 0.2, 6);
    let c = f.constants();
    let big_r = (2.0 * std::f64::consts::LN_2 / 0.1f64).sqrt();
    assert!((c.radius - big_r).abs() < 1e-15);
    assert!((c.lipschitz - (1.2 + 0.1 * big_r)).abs() < 1e-15);
    assert!(c.smoothness.is_infinite() && c.strong_convexity == 0.1);
    let s = f.minimizer_sensitivity();
    assert!((s.tight - 2.0 * 1.2 / (0.1 * 500.0)).abs() < 1e-15);
    assert!((s.paper - 2.0 * c.lipschitz / (0.1 * 500.0)).abs() < 1e-15);
}
