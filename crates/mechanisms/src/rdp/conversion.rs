//! From an RDP curve to (eps, delta)-DP: the tight conversion of Canonne,
//! Kamath & Steinke (2020) and the classical one of Mironov (2017).

use super::checks::{check_curve, check_delta};
use super::{RdpError, Result};

/// Which RDP-to-(eps, delta) conversion to use. Both hold for each order
/// `alpha > 1` separately and the best order is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Conversion {
    /// Canonne, Kamath & Steinke (2020), Prop. 12 (also Asoodeh et al. 2020,
    /// arXiv:2001.05990, Eq. (20)), the conversion `dp_accounting` uses:
    ///
    /// `eps = r + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha - 1)`,
    ///
    /// equivalently `delta = exp((alpha-1)(r - eps)) (1 - 1/alpha)^(alpha-1) / alpha`;
    /// combined with the KL bound: an (alpha, r)-RDP mechanism with `alpha >= 1`
    /// has KL divergence `<= r` (Rényi divergence is non-decreasing in the order,
    /// van Erven & Harremoës 2014, Thm. 3), hence total variation
    /// `<= sqrt(1 - e^{-r})` (Bretagnolle–Huber inequality), hence is
    /// `(0, sqrt(1 - e^{-r}))`-DP. The result is clamped at `eps >= 0` and
    /// `delta <= 1`. Never larger than [`Conversion::Classical`].
    #[default]
    Tight,
    /// Mironov (2017), Prop. 3: `eps = r + ln(1/delta)/(alpha - 1)`,
    /// equivalently `delta = exp((alpha - 1)(r - eps))` (clamped at 1).
    Classical,
}

/// Tight (eps) at one order; see [`Conversion::Tight`].
fn tight_epsilon(alpha: f64, r: f64, delta: f64, ln_delta: f64) -> f64 {
    if r == 0.0 || delta * delta + (-r).exp_m1() > 0.0 {
        // Total variation <= sqrt(1 - e^{-r}) < delta.
        return 0.0;
    }
    r + (-1.0 / alpha).ln_1p() - (ln_delta + alpha.ln()) / (alpha - 1.0)
}

/// Tight ln(delta) at one order; see [`Conversion::Tight`].
fn tight_log_delta(alpha: f64, r: f64, eps: f64) -> f64 {
    let total_variation = if r == 0.0 {
        f64::NEG_INFINITY
    } else {
        0.5 * (-(-r).exp_m1()).ln()
    };
    let rdp_bound = (alpha - 1.0) * (r - eps + (-1.0 / alpha).ln_1p()) - alpha.ln();
    total_variation.min(rdp_bound)
}

/// Smallest eps such that a mechanism that is `(orders[i], rdp[i])`-RDP for
/// every `i` is (eps, delta)-DP, by the chosen [`Conversion`], together with
/// the order attaining it (the first one on ties). `eps = +inf` if every RDP
/// value is `+inf`.
///
/// The guarantee holds for the neighbouring relation the RDP values hold for.
pub fn epsilon_from_rdp(
    orders: &[f64],
    rdp: &[f64],
    delta: f64,
    conversion: Conversion,
) -> Result<(f64, f64)> {
    check_curve(orders, rdp)?;
    check_delta(delta)?;
    let ln_delta = delta.ln();
    let mut best = (f64::INFINITY, orders[0]);
    for (&alpha, &r) in orders.iter().zip(rdp) {
        let eps = match conversion {
            Conversion::Tight => tight_epsilon(alpha, r, delta, ln_delta),
            Conversion::Classical => r - ln_delta / (alpha - 1.0),
        };
        if eps < best.0 {
            best = (eps, alpha);
        }
    }
    Ok((best.0.max(0.0), best.1))
}

/// Smallest delta such that a mechanism that is `(orders[i], rdp[i])`-RDP for
/// every `i` is (eps, delta)-DP, by the chosen [`Conversion`] (the inverse of
/// [`epsilon_from_rdp`]), together with the order attaining it. Clamped to
/// `[0, 1]`; may underflow to 0.
///
/// The guarantee holds for the neighbouring relation the RDP values hold for.
pub fn delta_from_rdp(
    orders: &[f64],
    rdp: &[f64],
    eps: f64,
    conversion: Conversion,
) -> Result<(f64, f64)> {
    check_curve(orders, rdp)?;
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(RdpError::InvalidEpsilon(eps));
    }
    let mut best = (f64::INFINITY, orders[0]);
    for (&alpha, &r) in orders.iter().zip(rdp) {
        let log_delta = match conversion {
            Conversion::Tight => tight_log_delta(alpha, r, eps),
            Conversion::Classical => (alpha - 1.0) * (r - eps),
        };
        if log_delta < best.0 {
            best = (log_delta, alpha);
        }
    }
    Ok((best.0.exp().min(1.0), best.1))
}
