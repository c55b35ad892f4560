//! Parameter and RDP-curve validation shared by the stopping laws and their
//! privacy costs.

use super::{Result, StoppingError};

pub(super) fn param(name: &'static str, value: f64, ok: bool, range: &'static str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(StoppingError::InvalidParameter { name, value, range })
    }
}

pub(super) fn check_eps(eps: f64) -> Result<()> {
    param("eps", eps, eps.is_finite() && eps >= 0.0, "[0, inf)")
}

pub(super) fn check_gamma_open(gamma: f64) -> Result<()> {
    param("gamma", gamma, gamma > 0.0 && gamma < 1.0, "(0, 1)")
}

pub(super) fn check_order(name: &'static str, order: f64, min_inclusive: bool) -> Result<()> {
    let ok = order.is_finite()
        && if min_inclusive {
            order >= 1.0
        } else {
            order > 1.0
        };
    param(
        name,
        order,
        ok,
        if min_inclusive {
            "[1, inf)"
        } else {
            "(1, inf)"
        },
    )
}

pub(super) fn check_curve(orders: &[f64], rdp: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return Err(StoppingError::InvalidRdpCurve("no orders"));
    }
    if orders.len() != rdp.len() {
        return Err(StoppingError::InvalidRdpCurve(
            "orders and divergences differ in length",
        ));
    }
    if orders
        .iter()
        .any(|&a| a.is_nan() || a < 1.0 || a.is_infinite())
    {
        return Err(StoppingError::InvalidRdpCurve(
            "orders must be finite and >= 1",
        ));
    }
    if rdp.iter().any(|&e| e.is_nan() || e < 0.0) {
        return Err(StoppingError::InvalidRdpCurve(
            "divergences must be >= 0 (inf allowed, NaN not)",
        ));
    }
    Ok(())
}
