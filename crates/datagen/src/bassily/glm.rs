//! The GLM feature design of digest §6 E2, shared by [`super::LeastSquaresGlm`]
//! and [`super::LogisticGlm`].
//!
//! `x = (s/sqrt2, v/sqrt2)` with `s ~ Unif{-1, +1}` and `v ~ Unif(S^(d-2))`,
//! so `||x|| = 1` and `Sigma = E x x^T = diag(1/2, I_{d-1} / (2(d-1)))`.
//! Expectations over `x` of a function of `(s, <w, x>)` are computed
//! deterministically ([`feature_expectation`]): conditionally on `s`,
//! `<w, x> = (s w_1 + rho t)/sqrt2` with `rho = ||w_{2:d}||` and
//! `t = <w_{2:d}, v>/rho`, whose density on `[-1, 1]` is proportional to
//! `(1 - t^2)^((d-4)/2)` (digest E2-Logit). This is exactly the law of one
//! coordinate of a uniform point of `S^(d-2)`, integrated by
//! [`crate::quadrature::sphere_expectation`] (adaptive Gauss–Legendre in the
//! angle variable, relative accuracy about `1e-13`). The design requires
//! `d >= 4` (the digest's condition for that density to be bounded).

use crate::geometry::push_unit_sphere;
use crate::quadrature::sphere_expectation;
use dpcore::RunFailure;
use rand::{Rng, RngExt};
use std::f64::consts::FRAC_1_SQRT_2;

/// Smallest dimension of the design.
pub const MIN_DIM: usize = 4;

/// Checks `d >= 4` for the family `family`.
pub(crate) fn check_dim(family: &str, d: usize) -> Result<(), RunFailure> {
    if d < MIN_DIM {
        return Err(super::invalid(
            family,
            format!("the GLM design needs d >= 4, got d = {d}"),
        ));
    }
    Ok(())
}

/// Checks the GLM families' shared parameters: finite radius `M > 0` and
/// signal `0 <= a <= M`.
pub(crate) fn check_signal_and_radius(
    family: &str,
    signal: f64,
    radius: f64,
) -> Result<(), RunFailure> {
    super::require_positive(family, "radius", radius)?;
    super::require_nonnegative(family, "signal", signal)?;
    if signal > radius {
        return Err(super::invalid(
            family,
            format!("signal a = {signal} must be <= radius M = {radius}"),
        ));
    }
    Ok(())
}

/// Samples one feature vector `x = (s/sqrt2, v/sqrt2)` of dimension `d >= 2`.
pub fn sample_feature<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Vec<f64> {
    let mut x = Vec::with_capacity(d);
    push_feature(&mut x, d, rng);
    x
}

/// Appends a [`sample_feature`] of dimension `d` to `out` and returns it:
/// the same draws and arithmetic, without a temporary vector per record.
pub fn push_feature<'a, R: Rng + ?Sized>(
    out: &'a mut Vec<f64>,
    d: usize,
    rng: &mut R,
) -> &'a [f64] {
    let s = if rng.random::<bool>() { 1.0 } else { -1.0 };
    let start = out.len();
    out.push(s * FRAC_1_SQRT_2);
    push_unit_sphere(out, d - 1, rng)
        .iter_mut()
        .for_each(|v| *v *= FRAC_1_SQRT_2);
    &out[start..]
}

/// `v^T Sigma v = v_1^2/2 + ||v_{2:d}||^2 / (2(d-1))`.
pub fn covariance_quadratic_form(v: &[f64]) -> f64 {
    let tail: f64 = v[1..].iter().map(|x| x * x).sum();
    0.5 * v[0] * v[0] + 0.5 * tail / (v.len() as f64 - 1.0)
}

/// `E_x[g(s, <w, x>)]` by deterministic quadrature (see the module docs):
/// the average over `s = ±1` of `E_t[g(s, (s w_1 + rho t)/sqrt2)]`.
pub fn feature_expectation<G: Fn(f64, f64) -> f64>(w: &[f64], g: G) -> f64 {
    let d = w.len();
    let rho = crate::numerics::norm2(&w[1..]);
    [1.0, -1.0]
        .iter()
        .map(|&s| {
            let base = s * w[0];
            if rho == 0.0 {
                g(s, base * FRAC_1_SQRT_2)
            } else {
                sphere_expectation(d - 1, |t| g(s, (base + rho * t) * FRAC_1_SQRT_2))
            }
        })
        .sum::<f64>()
        * 0.5
}

/// A sampled GLM data set: row-major features (`n x d`) and responses.
#[derive(Debug, Clone)]
pub struct GlmDesign {
    d: usize,
    x: Vec<f64>,
    y: Vec<f64>,
}

impl GlmDesign {
    /// Samples `n` features and, for each, a response `label(x_1 sqrt2 = s, rng)`.
    pub fn sample<R, F>(n: usize, d: usize, rng: &mut R, mut label: F) -> Self
    where
        R: Rng + ?Sized,
        F: FnMut(f64, &mut R) -> f64,
    {
        let mut x = dpcore::prefetch::huge_page_vec(n * d);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let s = push_feature(&mut x, d, rng)[0].signum();
            y.push(label(s, rng));
        }
        Self { d, x, y }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True when there are no records.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Features `x_i`.
    pub fn features(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// Response `y_i`.
    pub fn response(&self, i: usize) -> f64 {
        self.y[i]
    }

    /// Hints that record `i` (features and response) will be read soon.
    pub fn prefetch(&self, i: usize) {
        dpcore::prefetch::prefetch_slice(self.features(i));
        dpcore::prefetch::prefetch_slice(&self.y[i..=i]);
    }

    /// Iterator over `(x_i, y_i)`.
    pub fn iter(&self) -> impl Iterator<Item = (&[f64], f64)> + Clone + '_ {
        self.x.chunks_exact(self.d).zip(self.y.iter().copied())
    }
}
