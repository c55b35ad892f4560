//! From RDP curves to `(eps, delta)`-DP statements for the tuning procedures.

use super::checks::{check_curve, param};
use super::papernot_steinke::{poisson_tuning_rdp_curve, tnb_tuning_rdp_curve};
use super::{Result, StoppingError};

/// An `(eps, delta)`-DP statement and the Renyi order it was obtained from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpCost {
    /// The `eps` of the statement.
    pub eps: f64,
    /// The `delta` of the statement.
    pub delta: f64,
    /// The Renyi order that minimised `eps`.
    pub order: f64,
}

/// `(lambda, eps)`-RDP implies `(eps + ln(1/delta)/(lambda - 1), delta)`-DP
/// (Mironov 2017, Prop. 3); returns the best `eps` over the grid. (Tighter
/// conversions, e.g. Canonne–Kamath–Steinke 2020, live in [`crate::rdp`].)
///
/// # Errors
/// [`StoppingError::InvalidRdpCurve`] if no order exceeds 1 with a finite
/// divergence; [`StoppingError::InvalidParameter`] unless `0 < delta < 1`.
pub fn rdp_curve_to_dp(orders: &[f64], rdp: &[f64], delta: f64) -> Result<DpCost> {
    check_curve(orders, rdp)?;
    param("delta", delta, delta > 0.0 && delta < 1.0, "(0, 1)")?;
    let ln_inv_delta = -delta.ln();
    orders
        .iter()
        .zip(rdp)
        .filter(|&(&a, &e)| a > 1.0 && e.is_finite())
        .map(|(&a, &e)| DpCost {
            eps: e + ln_inv_delta / (a - 1.0),
            delta,
            order: a,
        })
        .min_by(|x, y| x.eps.total_cmp(&y.eps))
        .ok_or(StoppingError::InvalidRdpCurve(
            "no order > 1 with a finite divergence",
        ))
}

/// Approximate-DP cost of `TNB(eta, gamma)` tuning: [`tnb_tuning_rdp_curve`]
/// (Papernot & Steinke Thm 2) followed by [`rdp_curve_to_dp`].
///
/// # Errors
/// As the two functions.
pub fn tnb_tuning_dp(
    orders: &[f64],
    base_rdp: &[f64],
    eta: f64,
    gamma: f64,
    delta: f64,
) -> Result<DpCost> {
    let curve = tnb_tuning_rdp_curve(orders, base_rdp, eta, gamma)?;
    rdp_curve_to_dp(orders, &curve, delta)
}

/// Approximate-DP cost of `Poisson(mu)` tuning: [`poisson_tuning_rdp_curve`]
/// (Papernot & Steinke Thm 6) followed by [`rdp_curve_to_dp`].
///
/// # Errors
/// As the two functions.
pub fn poisson_tuning_dp(
    orders: &[f64],
    base_rdp: &[f64],
    base_delta: impl Fn(f64) -> f64,
    mu: f64,
    delta: f64,
) -> Result<DpCost> {
    let curve = poisson_tuning_rdp_curve(orders, base_rdp, base_delta, mu)?;
    rdp_curve_to_dp(orders, &curve, delta)
}
