//! Parameters of the logistic GLM ([`super::LogisticGlm`], digest §6 E2-Logit).

use crate::bassily::glm::{check_dim, check_signal_and_radius};
use crate::bassily::invalid;
use dpcore::RunFailure;

pub(crate) const FAMILY: &str = "LogisticGlm";

/// Parameters of one logistic GLM instance (digest §6 E2-Logit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogisticGlmParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 4`.
    pub d: usize,
    /// Signal `a = ||theta*||` (digest: 1 or 2), `0 <= a <= M`.
    pub signal: f64,
    /// Radius `M > 0` of `W` (default 2).
    pub radius: f64,
}

impl LogisticGlmParams {
    /// Radius `M = 2` (digest default), signal `a` as given.
    pub fn new(n: usize, d: usize, signal: f64) -> Self {
        Self {
            n,
            d,
            signal,
            radius: 2.0,
        }
    }

    /// Checks `n >= 1`, `d >= 4`, finite `M > 0` and `0 <= a <= M`.
    pub fn validate(&self) -> Result<(), RunFailure> {
        check_dim(FAMILY, self.d)?;
        if self.n == 0 {
            return Err(invalid(FAMILY, "n must be >= 1".into()));
        }
        check_signal_and_radius(FAMILY, self.signal, self.radius)
    }
}
