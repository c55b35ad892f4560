//! Fixtures shared by the datagen integration tests: seeded generators, small
//! vector helpers, and the gradient and excess-risk checks every family runs.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use dpcore::{FiniteSum, Objective};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// The seeded generator of every test.
pub fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// Euclidean norm.
pub fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// `r x`.
pub fn scaled(x: &[f64], r: f64) -> Vec<f64> {
    x.iter().map(|v| v * r).collect()
}

/// `grad F(w)`.
pub fn grad(f: &dyn Objective, w: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; f.dim()];
    f.gradient(w, &mut g);
    g
}

/// Asserts that each coordinate of `g = grad F(w)` is within `tol` of the
/// central difference `(F(w + h e_j) - F(w - h e_j)) / (2h)`.
pub fn assert_gradient_matches_finite_differences(
    f: &dyn Objective,
    w: &[f64],
    g: &[f64],
    h: f64,
    tol: f64,
    context: &str,
) {
    for j in 0..w.len() {
        let (mut wp, mut wm) = (w.to_vec(), w.to_vec());
        wp[j] += h;
        wm[j] -= h;
        let fd = (f.value(&wp) - f.value(&wm)) / (2.0 * h);
        assert!(
            (fd - g[j]).abs() < tol,
            "{context} coord {j}: fd {fd} vs {}",
            g[j]
        );
    }
}

/// `(1/n) sum_i grad f(w, x_i)` over the first `n` records, accumulated in
/// record order.
pub fn record_gradient_mean(fs: &dyn FiniteSum, n: usize, w: &[f64]) -> Vec<f64> {
    let mut mean = vec![0.0; w.len()];
    let mut gi = vec![0.0; w.len()];
    for i in 0..n {
        fs.record_gradient(i, w, &mut gi);
        mean.iter_mut()
            .zip(&gi)
            .for_each(|(m, v)| *m += v / n as f64);
    }
    mean
}

/// Asserts that the per-record gradients of all `n` records average to
/// `g = grad F(w)` coordinatewise within `tol`.
pub fn assert_record_gradients_average_to(
    fs: &dyn FiniteSum,
    n: usize,
    w: &[f64],
    g: &[f64],
    tol: f64,
) {
    let mean = record_gradient_mean(fs, n, w);
    assert!(
        mean.iter().zip(g).all(|(a, b)| (a - b).abs() < tol),
        "record mean {mean:?} vs gradient {g:?}"
    );
}

/// `(excess_risk(w* + offset), F(w* + offset) - F(w*))`: far from `w*` the
/// stable excess must equal the direct difference.
pub fn excess_and_direct_difference(f: &dyn Objective, offset: &[f64]) -> (f64, f64) {
    let ws = f.minimizer().to_vec();
    let far: Vec<f64> = ws.iter().zip(offset).map(|(a, b)| a + b).collect();
    (f.excess_risk(&far), f.value(&far) - f.value(&ws))
}

/// `(excess_risk(w* + t u), 1/2 t^2 u^T H u)`, the Hessian-vector product `H u`
/// taken by central differences of the gradient with step `h`: very close to
/// `w*`, where the direct difference is pure rounding, the stable excess must
/// match this second-order model.
pub fn excess_and_second_order_model(f: &dyn Objective, u: &[f64], h: f64, t: f64) -> (f64, f64) {
    let ws = f.minimizer().to_vec();
    let shifted = |s: f64| -> Vec<f64> { ws.iter().zip(u).map(|(a, b)| a + s * b).collect() };
    let (gp, gm) = (grad(f, &shifted(h)), grad(f, &shifted(-h)));
    let uhu: f64 = (0..u.len())
        .map(|j| u[j] * (gp[j] - gm[j]) / (2.0 * h))
        .sum();
    (f.excess_risk(&shifted(t)), 0.5 * t * t * uhu)
}
