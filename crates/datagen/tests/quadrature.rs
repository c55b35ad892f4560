//! Tests of the sphere quadrature (digest §8 E3 last bullet) against closed forms.

use datagen::quadrature::{
    gauss_legendre_rule, integrate_adaptive, sphere_expectation, sphere_expectation_estimate,
};

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

const DIMS: [usize; 5] = [2, 3, 5, 50, 500];

#[test]
fn gauss_legendre_is_exact_for_polynomials() {
    for n in [1usize, 2, 5, 16, 40] {
        let rule = gauss_legendre_rule(n);
        let wsum: f64 = rule.iter().map(|(_, w)| w).sum();
        assert!((wsum - 2.0).abs() < 1e-14, "n = {n}: weights sum {wsum}");
        // Degree 2n - 1 is integrated exactly: int_{-1}^1 x^k = 2/(k+1) for even k.
        for k in (0..2 * n).step_by(2) {
            let q: f64 = rule.iter().map(|(x, w)| w * x.powi(k as i32)).sum();
            assert!(
                (q - 2.0 / (k as f64 + 1.0)).abs() < 1e-14,
                "n = {n}, k = {k}: {q}"
            );
        }
        assert!(
            rule.windows(2).all(|p| p[0].0 < p[1].0),
            "nodes not ascending"
        );
    }
    // Two-point rule: nodes +-1/sqrt(3), weights 1.
    let r = gauss_legendre_rule(2);
    assert!((r[1].0 - 1.0 / 3f64.sqrt()).abs() < 1e-15 && (r[1].1 - 1.0).abs() < 1e-15);
}

#[test]
fn adaptive_handles_peaks_and_kinks() {
    // int_0^1 sqrt(x) = 2/3 (endpoint singularity of the derivative).
    let q = integrate_adaptive(|x: f64| x.sqrt(), 0.0, 1.0, 1e-13);
    assert!((q.value - 2.0 / 3.0).abs() < 1e-12, "{q:?}");
    // A narrow Gaussian peak: int_{-1}^{1} exp(-x^2/(2 * 1e-6)) = sqrt(2 pi 1e-6) (tails < 1e-300).
    let q = integrate_adaptive(|x: f64| (-x * x / 2e-6).exp(), -1.0, 1.0, 1e-15);
    let exact = (2.0 * std::f64::consts::PI * 1e-6).sqrt();
    assert!(rel_err(q.value, exact) < 1e-11, "{q:?} vs {exact}");
    // |x - 0.3| on [0, 1]: 0.3^2/2 + 0.7^2/2 = 0.29.
    let q = integrate_adaptive(|x: f64| (x - 0.3).abs(), 0.0, 1.0, 1e-14);
    assert!((q.value - 0.29).abs() < 1e-13, "{q:?}");
}

#[test]
fn sphere_moments_match_closed_forms() {
    for d in DIMS {
        let df = d as f64;
        let m2 = sphere_expectation(d, |t| t * t);
        let m4 = sphere_expectation(d, |t| t.powi(4));
        let m6 = sphere_expectation(d, |t| t.powi(6));
        let one = sphere_expectation(d, |_| 1.0);
        assert!(rel_err(one, 1.0) < 1e-13, "d = {d}: E1 = {one}");
        assert!(rel_err(m2, 1.0 / df) < 1e-12, "d = {d}: E t^2 = {m2}");
        assert!(
            rel_err(m4, 3.0 / (df * (df + 2.0))) < 1e-12,
            "d = {d}: E t^4 = {m4}"
        );
        let e6 = 15.0 / (df * (df + 2.0) * (df + 4.0));
        assert!(rel_err(m6, e6) < 1e-12, "d = {d}: E t^6 = {m6}");
        // Odd moments vanish by symmetry.
        assert!(sphere_expectation(d, |t| t.powi(3) + t).abs() < 1e-15);
    }
}

#[test]
fn sphere_exponential_moments() {
    // d = 3: t ~ Unif[-1, 1] (Archimedes), E e^t = sinh(1).
    let e3 = sphere_expectation(3, f64::exp);
    assert!(rel_err(e3, 1f64.sinh()) < 1e-13, "{e3}");
    // d = 2: t = cos(theta), theta uniform, E e^t = I_0(1).
    let e2 = sphere_expectation(2, f64::exp);
    assert!(rel_err(e2, 1.266_065_877_752_008_4) < 1e-13, "{e2}");
    // d = 1: S^0 = {-1, 1}, E e^t = cosh(1) exactly.
    assert_eq!(
        sphere_expectation(1, f64::exp),
        0.5 * (1f64.exp() + (-1f64).exp())
    );
    // Large d: the error estimate is honest and small.
    let est = sphere_expectation_estimate(5000, |t| t * t, 1e-13);
    assert!(rel_err(est.value, 1.0 / 5000.0) < 1e-12, "{est:?}");
    assert!(est.abs_error < 1e-15, "{est:?}");
}

#[test]
fn sphere_expectation_of_a_kink() {
    // d = 3: E|t| = 1/2; d = 2: E|cos theta| = 2/pi.
    assert!(rel_err(sphere_expectation(3, f64::abs), 0.5) < 1e-12);
    assert!(rel_err(sphere_expectation(2, f64::abs), 2.0 / std::f64::consts::PI) < 1e-12);
}
