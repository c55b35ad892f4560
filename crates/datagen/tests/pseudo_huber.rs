//! Tests of the pseudo-Huber family (digest §8 E5). Statistical checks use
//! fixed seeds and state their false-alarm rates.

mod common;

use common::{
    assert_gradient_matches_finite_differences, grad, norm, record_gradient_mean, rng, scaled,
};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use datagen::pseudo_huber::{PseudoHuber, PseudoHuberParams};
use dpcore::Objective;
use rand::RngExt;

/// Direct `f(w, x) = s (sqrt(1 + ||w - x||^2/s^2) - 1)`.
fn ph(s: f64, w: &[f64], x: &[f64]) -> f64 {
    let a2: f64 = w.iter().zip(x).map(|(a, b)| (a - b) * (a - b)).sum();
    s * ((1.0 + a2 / (s * s)).sqrt() - 1.0)
}

fn instance(n: usize, d: usize, s: f64, seed: u64) -> PseudoHuber {
    PseudoHuber::generate(
        PseudoHuberParams {
            s,
            ..PseudoHuberParams::new(n, d)
        },
        &mut rng(seed),
    )
}

#[test]
fn constants_and_validation() {
    let f = instance(20, 3, 0.5, 1);
    let c = f.constants();
    assert_eq!(
        (c.lipschitz, c.smoothness, c.strong_convexity, c.radius),
        (1.0, 2.0, 0.0, 1.0)
    );
    assert!(f.minimizer_sensitivity().tight.is_infinite());
    assert!(f.minimizer_sensitivity().paper.is_infinite());
    assert_eq!(f.regularized_minimizer(0.1), Some(vec![0.0; 3]));
    assert_eq!(f.expected_minimizer_population_excess(), Some(0.0));
    assert!(PseudoHuberParams {
        s: 0.0,
        ..PseudoHuberParams::new(5, 2)
    }
    .validate()
    .is_err());
}

#[test]
fn zero_is_a_stationary_minimizer() {
    let f = instance(301, 6, 1.0, 2);
    let fs = f.finite_sum().expect("ERM family");
    // Sum of the per-record gradients at 0 (no special case): zero to rounding.
    let sum = record_gradient_mean(fs, 301, &[0.0; 6]);
    assert!(norm(&sum) < 1e-15, "||grad F(0)|| = {}", norm(&sum));
    let mut g = rng(3);
    for _ in 0..200 {
        let w = sample_unit_ball(6, &mut g);
        assert!(f.excess_risk(&w) >= 0.0);
    }
}

#[test]
fn gradient_and_hessian_match_finite_differences() {
    let (d, s) = (4, 0.7);
    let f = instance(51, d, s, 4);
    let mut g = rng(5);
    let h = 1e-6;
    let w = scaled(&sample_unit_sphere(d, &mut g), 0.4);
    assert_gradient_matches_finite_differences(&f, &w, &grad(&f, &w), h, 1e-8, "");
    let hess = f.hessian_at_zero();
    let (mut gp, mut gm) = (vec![0.0; d], vec![0.0; d]);
    for j in 0..d {
        let mut e = vec![0.0; d];
        e[j] = h;
        f.gradient(&e, &mut gp);
        e[j] = -h;
        f.gradient(&e, &mut gm);
        for k in 0..d {
            let fd = (gp[k] - gm[k]) / (2.0 * h);
            assert!(
                (fd - hess[k * d + j]).abs() < 1e-8,
                "H[{k},{j}]: {fd} vs {}",
                hess[k * d + j]
            );
        }
    }
    let tr: f64 = (0..d).map(|j| hess[j * d + j]).sum();
    assert!((tr - f.hessian_trace_at_zero()).abs() < 1e-13);
    // Closed form with ||x|| = 1: (m d/s + (n - m)(d/(sB) - 1/(sB)^3))/n.
    let (m, b) = (f.data().atom_count() as f64, (1.0 + 1.0 / (s * s)).sqrt());
    let closed =
        (m * d as f64 / s + (51.0 - m) * (d as f64 / (s * b) - 1.0 / (s * b).powi(3))) / 51.0;
    assert!((tr - closed).abs() < 1e-12, "{tr} vs {closed}");
}

#[test]
fn excess_is_stable_and_locally_quadratic() {
    let f = instance(200, 5, 1.0, 6);
    let mut g = rng(7);
    for _ in 0..10 {
        let u = sample_unit_sphere(5, &mut g);
        let w = scaled(&u, 0.3);
        let direct = f.value(&w) - f.value(&[0.0; 5]);
        assert!((f.excess_risk(&w) - direct).abs() < 1e-14);
        let reg = f.regularized_excess(0.2, &w).expect("known");
        assert!((reg - direct - 0.1 * 0.09).abs() < 1e-14);
        // At r = 1e-7 the direct difference is pure rounding; the stable one is
        // 1/2 w^T H w to relative O(r^2) (F is even).
        let w = scaled(&u, 1e-7);
        let quad = 0.5 * f.hessian_quadratic_form_at_zero(&w);
        let ratio = f.excess_risk(&w) / quad;
        assert!((ratio - 1.0).abs() < 1e-10, "ratio {ratio}");
    }
}

#[test]
fn population_excess_closed_form_d3() {
    // d = 3, t ~ Unif[-1, 1]: E sqrt(1 + (1 + r^2 - 2rt)/s^2) = s^2 (S+^1.5 - S-^1.5)/(6r).
    for s in [1.0, 0.5] {
        let f = instance(10, 3, s, 8);
        let r: f64 = 0.5;
        let (sp, sm) = (
            1.0 + (1.0 + r).powi(2) / (s * s),
            1.0 + (1.0 - r).powi(2) / (s * s),
        );
        let mean_a = s * s * (sp.powf(1.5) - sm.powf(1.5)) / (6.0 * r);
        let sphere = s * (mean_a - (1.0 + 1.0 / (s * s)).sqrt());
        let atom = s * ((1.0 + r * r / (s * s)).sqrt() - 1.0);
        let exact = 0.75 * atom + 0.25 * sphere;
        let got = f.population_excess(&[0.0, 0.0, r]).expect("population");
        assert!(
            (got - exact).abs() < 1e-13 * exact,
            "s = {s}: {got} vs {exact}"
        );
        // Small r: 1/2 c r^2 with the population Hessian c I.
        let tiny = f.population_excess(&[1e-5, 0.0, 0.0]).expect("population");
        let c = f.population_hessian_scale_at_zero();
        assert!((tiny / (0.5 * c * 1e-10) - 1.0).abs() < 1e-8, "s = {s}");
    }
}

#[test]
fn population_excess_matches_monte_carlo() {
    // 1e5 fresh draws from D; 5 standard errors: false-alarm rate ~ 6e-7.
    let (d, r, s) = (50, 0.6, 1.0);
    let f = instance(10, d, s, 9);
    let mut g = rng(10);
    let w = scaled(&sample_unit_sphere(d, &mut g), r);
    let zero = vec![0.0; d];
    let (mut sum, mut sum2, n) = (0.0, 0.0, 100_000);
    for _ in 0..n {
        let x = if g.random::<f64>() < 0.75 {
            zero.clone()
        } else {
            sample_unit_sphere(d, &mut g)
        };
        let v = ph(s, &w, &x) - ph(s, &zero, &x);
        sum += v;
        sum2 += v * v;
    }
    let mean = sum / n as f64;
    let se = ((sum2 / n as f64 - mean * mean) / n as f64).sqrt();
    let q = f.population_excess(&w).expect("population");
    assert!(
        (q - mean).abs() < 5.0 * se,
        "quadrature {q} vs MC {mean} +- {se}"
    );
}
