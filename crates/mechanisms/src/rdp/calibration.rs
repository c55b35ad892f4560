//! Calibration of the noise multiplier of the Poisson-subsampled Gaussian
//! mechanism for a target (eps, delta), by bisection on the accountant.

use super::checks::{check_delta, check_sampling_rate, check_steps};
use super::{RdpAccountant, RdpError, Result};
use crate::relation::Neighbouring;

// Named only in doc links.
#[cfg(doc)]
use super::Conversion;

/// Relative tolerance of the bisection in [`calibrate_noise_multiplier`]:
/// the returned `sigma` is within this relative distance of the smallest
/// noise multiplier meeting the target.
pub const CALIBRATION_RELATIVE_TOLERANCE: f64 = 1e-10;

/// The calibration's bisection also continues until eps at the returned
/// `sigma` is within this relative distance below the target (or the bracket
/// cannot be split further in `f64`): at large orders eps can be steep in
/// `sigma`, so a `sigma` tolerance alone does not pin eps down.
pub const CALIBRATION_EPSILON_TOLERANCE: f64 = 1e-12;

/// Range `(min, max) = (2^-30, 2^40)` of noise multipliers searched by the
/// calibration.
pub const CALIBRATION_SIGMA_RANGE: (f64, f64) = (9.313_225_746_154_785e-10, 1_099_511_627_776.0);

impl RdpAccountant {
    /// Smallest noise multiplier `sigma` such that composing `steps` more
    /// Poisson-subsampled Gaussian steps (rate `q`, multiplier `sigma`) onto
    /// this accountant's current state gives eps `<= target_eps` at `delta`
    /// ([`Conversion::Tight`]). With an empty accountant this is
    /// [`calibrate_noise_multiplier`]; with a non-empty one it spends what is
    /// left of a budget.
    ///
    /// Bisection: the bracket is found by doubling/halving from `sigma = 1`
    /// within [`CALIBRATION_SIGMA_RANGE`], then halved until its relative width
    /// is below [`CALIBRATION_RELATIVE_TOLERANCE`] and eps at its upper end is
    /// within [`CALIBRATION_EPSILON_TOLERANCE`] (relative) below the target, or
    /// it cannot be split further; the upper end is returned, so eps at the
    /// returned `sigma` is always `<= target_eps`. The exact RDP
    /// is non-increasing in `sigma` at every order, so eps is too, and where eps
    /// is continuous at the solution the returned `sigma` meets the target to
    /// about the same relative accuracy. Two discontinuities of the computed
    /// eps can stop the bisection at a jump instead (still on the safe side):
    /// the switch to eps = 0 by the total-variation bound, and a fractional
    /// order dropping to `+inf` when its series stops converging.
    ///
    /// Errors: the validation errors, [`RdpError::UnsupportedRelation`] as for
    /// [`RdpAccountant::compose_poisson_gaussian`],
    /// [`RdpError::TargetUnreachable`] if even the largest `sigma` searched
    /// does not reach the target (e.g. the budget is already spent), and
    /// [`RdpError::NoiseNotNeeded`] if even the smallest one meets it (e.g.
    /// `q = 0`).
    pub fn calibrate_noise_multiplier(
        &self,
        target_eps: f64,
        delta: f64,
        q: f64,
        steps: u64,
    ) -> Result<f64> {
        if !(target_eps.is_finite() && target_eps > 0.0) {
            return Err(RdpError::InvalidTargetEpsilon(target_eps));
        }
        check_delta(delta)?;
        check_sampling_rate(q)?;
        check_steps(steps)?;
        if self.relation() != Neighbouring::AddRemove && q > 0.0 && q < 1.0 {
            return Err(RdpError::UnsupportedRelation {
                relation: self.relation(),
                q,
            });
        }
        let eps_at = |sigma: f64| -> Result<f64> {
            let mut trial = self.clone();
            trial.compose_poisson_gaussian(q, sigma, steps)?;
            trial.epsilon(delta)
        };
        let (min_sigma, max_sigma) = CALIBRATION_SIGMA_RANGE;
        let eps_at_max_sigma = eps_at(max_sigma)?;
        if eps_at_max_sigma > target_eps {
            return Err(RdpError::TargetUnreachable {
                target_eps,
                max_sigma,
                eps_at_max_sigma,
            });
        }
        // Invariant once bracketed: eps(lo) > target >= eps(hi) = eps_hi.
        let (mut lo, mut hi, mut eps_hi);
        let eps_at_one = eps_at(1.0)?;
        if eps_at_one > target_eps {
            lo = 1.0;
            hi = 2.0;
            loop {
                eps_hi = if hi >= max_sigma {
                    hi = max_sigma;
                    eps_at_max_sigma
                } else {
                    eps_at(hi)?
                };
                if eps_hi <= target_eps {
                    break;
                }
                lo = hi;
                hi *= 2.0;
            }
        } else {
            hi = 1.0;
            eps_hi = eps_at_one;
            lo = 0.5;
            loop {
                let eps_lo = eps_at(lo)?;
                if eps_lo > target_eps {
                    break;
                }
                if lo <= min_sigma {
                    return Err(RdpError::NoiseNotNeeded {
                        target_eps,
                        min_sigma,
                    });
                }
                hi = lo;
                eps_hi = eps_lo;
                lo *= 0.5;
            }
        }
        loop {
            let narrow = hi - lo <= CALIBRATION_RELATIVE_TOLERANCE * hi;
            let on_target = target_eps - eps_hi <= CALIBRATION_EPSILON_TOLERANCE * target_eps;
            let mid = 0.5 * (lo + hi);
            if (narrow && on_target) || mid <= lo || mid >= hi {
                return Ok(hi);
            }
            let eps_mid = eps_at(mid)?;
            if eps_mid <= target_eps {
                hi = mid;
                eps_hi = eps_mid;
            } else {
                lo = mid;
            }
        }
    }
}

/// Smallest noise multiplier for which `steps` steps of the Poisson-subsampled
/// Gaussian mechanism with sampling rate `q` are (target_eps, delta)-DP under
/// `relation`, by bisection to relative tolerance
/// [`CALIBRATION_RELATIVE_TOLERANCE`] on a fresh [`RdpAccountant::new`]; see
/// [`RdpAccountant::calibrate_noise_multiplier`] for the method, guarantees
/// and errors.
///
/// **Neighbouring relation**: add/remove (`sigma` relative to the add/remove
/// sensitivity, `C` for clipped sums); under replace-one only `q = 1` is
/// supported (`sigma` relative to `2C`), other `q` return
/// [`RdpError::UnsupportedRelation`].
pub fn calibrate_noise_multiplier(
    target_eps: f64,
    delta: f64,
    q: f64,
    steps: u64,
    relation: Neighbouring,
) -> Result<f64> {
    RdpAccountant::new(relation).calibrate_noise_multiplier(target_eps, delta, q, steps)
}
