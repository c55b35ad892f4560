//! Parameters of the least-squares GLM ([`super::LeastSquaresGlm`], digest §6 E2-LS).

use crate::bassily::glm::{check_dim, check_signal_and_radius};
use crate::bassily::{invalid, require_nonnegative};
use dpcore::RunFailure;

pub(crate) const FAMILY: &str = "LeastSquaresGlm";

/// Parameters of one least-squares GLM instance (digest §6 E2-LS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeastSquaresGlmParams {
    /// Number of records `n >= d` (so that `S` is positive definite a.s.).
    pub n: usize,
    /// Dimension `d >= 4`.
    pub d: usize,
    /// Signal `a = ||theta*||`, `0 <= a <= M` (default 0.5).
    pub signal: f64,
    /// Noise half-width `b >= 0` (default 0.5).
    pub noise: f64,
    /// Radius `M > 0` of `W` (default 1).
    pub radius: f64,
}

impl LeastSquaresGlmParams {
    /// Digest defaults `a = 0.5`, `b = 0.5`, `M = 1`.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            signal: 0.5,
            noise: 0.5,
            radius: 1.0,
        }
    }

    /// Checks `d >= 4`, `n >= d`, finite `M > 0`, `0 <= a <= M`, `b >= 0`.
    pub fn validate(&self) -> Result<(), RunFailure> {
        check_dim(FAMILY, self.d)?;
        if self.n < self.d {
            return Err(invalid(
                FAMILY,
                format!(
                    "need n >= d for a unique empirical minimizer, got n = {}, d = {}",
                    self.n, self.d
                ),
            ));
        }
        check_signal_and_radius(FAMILY, self.signal, self.radius)?;
        require_nonnegative(FAMILY, "noise", self.noise)
    }
}
