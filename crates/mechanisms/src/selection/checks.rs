//! Validation of privacy parameters, noise scales and log-weights.

use super::{Result, SelectionError};

pub(super) fn check_eps(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(SelectionError::InvalidEpsilon(eps))
    }
}

pub(super) fn check_sensitivity(sensitivity: f64) -> Result<()> {
    if sensitivity.is_finite() && sensitivity > 0.0 {
        Ok(())
    } else {
        Err(SelectionError::InvalidSensitivity(sensitivity))
    }
}

pub(super) fn check_noise_scale(scale: f64) -> Result<()> {
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(SelectionError::InvalidNoiseScale(scale))
    }
}

/// Validates a log-weight: finite or `-inf` (NaN and `+inf` are rejected).
pub(super) fn check_log_weight(index: usize, value: f64) -> Result<()> {
    if value.is_nan() || value == f64::INFINITY {
        Err(SelectionError::InvalidLogWeight { index, value })
    } else {
        Ok(())
    }
}
