//! Uniform sampling on the unit sphere and in the unit ball of `R^d`.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// A point uniform on the unit sphere `S^(d-1)`: `g / ||g||_2` with
/// `g ~ N(0, I_d)` (Muller 1959), redrawn on the probability-zero event
/// `||g|| = 0`.
///
/// # Panics
/// If `d == 0`.
pub fn sample_unit_sphere<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Vec<f64> {
    assert!(d >= 1, "sample_unit_sphere: d must be >= 1");
    loop {
        let g: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
        let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            return g.into_iter().map(|x| x / norm).collect();
        }
    }
}

/// A point uniform in the closed unit ball `B(0, 1)` of `R^d`: a uniform
/// direction times the radius `U^(1/d)`, `U ~ Uniform[0, 1)`, because the
/// uniform law on the ball has `P(||x|| <= r) = r^d` (digest §8 E1).
///
/// The computed norm is guaranteed `<= 1` in floating point (a point that
/// rounds to norm `1 + ulp` is rescaled onto the sphere), so the analytic
/// constants `R = 1`, `L = 2 beta` hold for the stored data exactly.
///
/// # Panics
/// If `d == 0`.
pub fn sample_unit_ball<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Vec<f64> {
    let mut x = sample_unit_sphere(d, rng);
    let u: f64 = rng.random();
    let r = u.powf(1.0 / d as f64);
    for v in &mut x {
        *v *= r;
    }
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 1.0 {
        for v in &mut x {
            *v /= norm;
        }
    }
    x
}
