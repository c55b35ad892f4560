//! Noise calibrations (sensitivity and privacy parameters to noise scale) and
//! the exact privacy profile of the Gaussian mechanism used to audit them.

use crate::normal::log_normal_cdf;
use crate::numeric::bisect;

/// Why a calibration could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum CalibrationError {
    /// `eps` must be finite and strictly positive.
    #[error("eps must be finite and > 0, got {0}")]
    InvalidEpsilon(f64),
    /// `eps` is valid DP-wise but outside the range where the chosen
    /// calibration theorem holds.
    #[error("eps = {eps} exceeds {max}, the largest value for which this calibration is proven")]
    EpsilonOutOfRange {
        /// The offending `eps`.
        eps: f64,
        /// The largest admissible `eps`.
        max: f64,
    },
    /// `delta` outside the open interval required by the calibration.
    #[error("delta must lie in the open interval ({lo}, {hi}), got {delta}")]
    InvalidDelta {
        /// The offending `delta`.
        delta: f64,
        /// Exclusive lower end of the admissible interval.
        lo: f64,
        /// Exclusive upper end of the admissible interval.
        hi: f64,
    },
    /// The sensitivity must be finite and non-negative.
    #[error("sensitivity must be finite and >= 0, got {0}")]
    InvalidSensitivity(f64),
}

/// Convenience alias for calibration results.
pub type Result<T> = std::result::Result<T, CalibrationError>;

fn check_eps(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(CalibrationError::InvalidEpsilon(eps))
    }
}

fn check_delta(delta: f64, lo: f64, hi: f64) -> Result<()> {
    if delta > lo && delta < hi {
        Ok(())
    } else {
        Err(CalibrationError::InvalidDelta { delta, lo, hi })
    }
}

fn check_sensitivity(sensitivity: f64) -> Result<()> {
    if sensitivity.is_finite() && sensitivity >= 0.0 {
        Ok(())
    } else {
        Err(CalibrationError::InvalidSensitivity(sensitivity))
    }
}

/// Scale `Delta / eps` of the pure eps-DP l2-norm "Laplace" noise
/// (density proportional to `exp(-eps ||z|| / Delta)`), Lowy–Razaviyayn
/// Eq. (4), Prop 2.1 (digest §2.1). Feed it to [`crate::noise::l2_laplace`].
pub fn l2_laplace_scale(eps: f64, sensitivity: f64) -> Result<f64> {
    check_eps(eps)?;
    check_sensitivity(sensitivity)?;
    Ok(sensitivity / eps)
}

/// The constant `c_delta = sqrt(ln(2 / (sqrt(16 delta + 1) - 1)))` of
/// Zhao et al. (2019), Thm 5, as used in Lowy–Razaviyayn Eq. (5)
/// (digest §2.2), for `delta` in `(0, 1/2)`.
///
/// The printed form cancels catastrophically (`sqrt(1 + 16 delta) - 1` is 0 in
/// `f64` for `delta < ~1e-17`). Multiplying numerator and denominator by
/// `sqrt(1 + 16 delta) + 1` gives `c^2 = ln(2 (s + 1) / (16 delta))` with
/// `s = sqrt(1 + 16 delta)`; writing `s + 1 = 2 + 16 delta/(s + 1)` yields the
/// form evaluated here (digest §9, "Gaussian constant"):
///
/// `c^2 = ln(1 / (4 delta)) + ln_1p(8 delta / (1 + s))`,
///
/// which is accurate for every `delta` down to the smallest subnormal and
/// shows the asymptote `c ~ sqrt(ln(1/(4 delta)))`. `c -> 0` as `delta -> 1/2`.
pub fn lowy_c_delta(delta: f64) -> Result<f64> {
    check_delta(delta, 0.0, 0.5)?;
    let s = (1.0 + 16.0 * delta).sqrt();
    let c_sq = -(4.0f64.ln() + delta.ln()) + (8.0 * delta / (1.0 + s)).ln_1p();
    Ok(c_sq.max(0.0).sqrt())
}

/// Gaussian noise scale
/// `sigma = (c_delta + sqrt(c_delta^2 + eps)) Delta / (sqrt(2) eps)`
/// of Zhao et al. (2019), Thm 5, as used by Lowy–Razaviyayn Eq. (5)
/// (digest §2.2), with `c_delta` from [`lowy_c_delta`].
///
/// Valid for **every** `eps > 0` and `delta` in `(0, 1/2)`; `N(0, sigma^2 I)`
/// added to a function of L2-sensitivity `Delta` is (eps, delta)-DP.
pub fn zwb_gaussian_sigma(eps: f64, delta: f64, sensitivity: f64) -> Result<f64> {
    check_eps(eps)?;
    check_sensitivity(sensitivity)?;
    let c = lowy_c_delta(delta)?;
    Ok((c + (c * c + eps).sqrt()) * sensitivity / (std::f64::consts::SQRT_2 * eps))
}

/// Classical Gaussian-mechanism scale `sigma = sqrt(2 ln(1.25/delta)) Delta / eps`
/// (Dwork & Roth 2014, Thm A.1), proven only for `eps <= 1` (the theorem
/// states `eps < 1`; `eps = 1` is its limit and is accepted) and
/// `delta` in `(0, 1)`. Returns [`CalibrationError::EpsilonOutOfRange`] for
/// `eps > 1`, where it is not a valid calibration (digest §2.2).
pub fn classical_gaussian_sigma(eps: f64, delta: f64, sensitivity: f64) -> Result<f64> {
    check_eps(eps)?;
    if eps > 1.0 {
        return Err(CalibrationError::EpsilonOutOfRange { eps, max: 1.0 });
    }
    check_delta(delta, 0.0, 1.0)?;
    check_sensitivity(sensitivity)?;
    Ok((2.0 * (1.25 / delta).ln()).sqrt() * sensitivity / eps)
}

/// Exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, Thm 8):
/// adding `N(0, sigma^2 I)` to a function of L2-sensitivity `Delta` is
/// (eps, delta)-DP iff `delta >= exact_gaussian_delta(eps, sigma, Delta)`, where
///
/// `delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)`.
///
/// Computed stably as `delta = exp(l1) * (-expm1(l2 - l1))` with
/// `l1 = ln Phi(a - b)` and `l2 = eps + ln Phi(-a - b)` from
/// [`log_normal_cdf`], so `e^eps` never overflows, the tails never underflow
/// to a `0 - 0`, and a near-cancellation of the two terms keeps its relative
/// accuracy. The result is clamped to `[0, 1]`.
///
/// Degenerate inputs: `Delta = 0` or `sigma = inf` or `eps = inf` give 0;
/// `sigma = 0` with `Delta > 0` gives 1 (a deterministic release). NaN or
/// negative inputs give NaN. `eps = 0` is allowed (total-variation distance).
pub fn exact_gaussian_delta(eps: f64, sigma: f64, sensitivity: f64) -> f64 {
    let any_nan = eps.is_nan() || sigma.is_nan() || sensitivity.is_nan();
    if any_nan || eps < 0.0 || sigma < 0.0 || sensitivity < 0.0 {
        return f64::NAN;
    }
    if sensitivity == 0.0 || sigma == f64::INFINITY || eps == f64::INFINITY {
        return 0.0;
    }
    if sigma == 0.0 {
        return 1.0;
    }
    let a = sensitivity / (2.0 * sigma);
    let b = eps * sigma / sensitivity;
    let l1 = log_normal_cdf(a - b);
    let l2 = eps + log_normal_cdf(-a - b);
    // Second term >= first (or an unordered NaN): no privacy loss beyond eps.
    if l2.partial_cmp(&l1) != Some(std::cmp::Ordering::Less) {
        return 0.0;
    }
    (l1.exp() * -(l2 - l1).exp_m1()).clamp(0.0, 1.0)
}

/// Noise scale of the analytic Gaussian mechanism (Balle & Wang 2018,
/// "Improving the Gaussian Mechanism for Differential Privacy", Thm 8 and
/// Alg 1): the smallest `sigma` for which `N(0, sigma^2 I)` added to a function
/// of L2-sensitivity `Delta` is (eps, delta)-DP, i.e. the root of
///
/// `exact_gaussian_delta(eps, sigma, Delta) = delta`
///
/// (the exact privacy profile, [`exact_gaussian_delta`]), which is strictly
/// decreasing in `sigma` from 1 (`sigma -> 0`) to 0 (`sigma -> inf`).
///
/// Valid for **every** `eps > 0` and `delta` in `(0, 1)`; no closed form
/// exists. Computed by bisection on `sigma`: the bracket is grown by doubling /
/// halving from `Delta`, then halved until its ends are adjacent `f64`s. The
/// upper end is returned, so `exact_gaussian_delta(eps, sigma, Delta) <= delta`
/// holds in the arithmetic used to check it, and the two agree to far better
/// than 1e-9 relative (the profile's own floating-point noise is ~1e-11
/// relative in its worst-conditioned corner, tiny `eps` with tiny `delta`).
///
/// Neighbouring relation: the guarantee holds for the relation under which
/// `Delta` bounds the L2 distance `||f(X) - f(X')||` (e.g. `2/n` for a mean of
/// unit-ball points under [`crate::Neighbouring::ReplaceOne`]).
///
/// `Delta = 0` returns 0 (a constant function needs no noise). Since it is
/// exact, the result is never larger than [`zwb_gaussian_sigma`] (which is
/// (eps, delta)-DP, hence above the smallest such `sigma`) nor than
/// [`classical_gaussian_sigma`] where the latter is valid.
pub fn analytic_gaussian_sigma(eps: f64, delta: f64, sensitivity: f64) -> Result<f64> {
    check_eps(eps)?;
    check_delta(delta, 0.0, 1.0)?;
    check_sensitivity(sensitivity)?;
    if sensitivity == 0.0 {
        return Ok(0.0);
    }
    // Private iff the profile is at most delta; the profile decreases in sigma.
    let private = |sigma: f64| exact_gaussian_delta(eps, sigma, sensitivity) <= delta;
    let (mut lo, mut hi) = (sensitivity, sensitivity);
    while !private(hi) {
        lo = hi;
        hi *= 2.0;
    }
    while private(lo) {
        hi = lo;
        lo *= 0.5;
    }
    // Invariant: private(hi) and !private(lo). The bracket is within a factor
    // 2, so ~60 halvings reach adjacent floating-point numbers.
    Ok(bisect(lo, hi, |sigma| !private(sigma)).1)
}
