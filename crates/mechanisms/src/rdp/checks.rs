//! Validation of the inputs of the RDP computations.

use super::{RdpError, Result, MAX_ORDER};

pub(super) fn check_sampling_rate(q: f64) -> Result<()> {
    if (0.0..=1.0).contains(&q) {
        Ok(())
    } else {
        Err(RdpError::InvalidSamplingRate(q))
    }
}

pub(super) fn check_sigma(sigma: f64) -> Result<()> {
    if sigma.is_finite() && sigma > 0.0 {
        Ok(())
    } else {
        Err(RdpError::InvalidNoiseMultiplier(sigma))
    }
}

pub(super) fn check_order(alpha: f64) -> Result<()> {
    if alpha > 1.0 && alpha <= MAX_ORDER {
        Ok(())
    } else {
        Err(RdpError::InvalidOrder(alpha))
    }
}

pub(super) fn check_orders(orders: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return Err(RdpError::NoOrders);
    }
    orders.iter().try_for_each(|&a| check_order(a))
}

pub(super) fn check_curve(orders: &[f64], rdp: &[f64]) -> Result<()> {
    check_orders(orders)?;
    if orders.len() != rdp.len() {
        return Err(RdpError::LengthMismatch {
            orders: orders.len(),
            values: rdp.len(),
        });
    }
    match rdp.iter().find(|r| r.is_nan() || **r < 0.0) {
        Some(&r) => Err(RdpError::InvalidRdpValue(r)),
        None => Ok(()),
    }
}

pub(super) fn check_delta(delta: f64) -> Result<()> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(RdpError::InvalidDelta(delta))
    }
}

pub(super) fn check_steps(steps: u64) -> Result<()> {
    if steps == 0 {
        Err(RdpError::ZeroSteps)
    } else {
        Ok(())
    }
}
