//! The noise constants of `A_ObjP-App` (Bassily et al. Algorithm 3,
//! Theorem 5.6; digest §2.4 errata, P12): a `safe` variant with a proof and
//! the `paper` variant as printed.
//!
//! # Privacy: the `safe` variant (default), with a proof
//! The proof of Theorem 5.6 releases `w1 = argmin_W J` and `w2 - w1`:
//! 1. `w1` is Algorithm 2 at `(eps/2, delta/2)`: Theorem 5.2 then needs
//!    `sigma_G^2 = 10 L^2 ln(2/delta)/(eps/2)^2 = 40 L^2 ln(2/delta)/eps^2`
//!    and `beta <= (eps/2) n lambda` (and `eps/2 <= 1`, `delta/2 <= 1/n^2`,
//!    implied by the common preconditions).
//! 2. `J` is `2 lambda`-strongly convex and `w1` minimizes it over `W`, so
//!    `lambda ||w2 - w1||^2 <= J(w2) - J(w1) <= alpha` for every data set and
//!    every SVRG coin; `w2 - w1` therefore has sensitivity `2 sqrt(alpha/
//!    lambda)`, and the classical Gaussian mechanism (Dwork–Roth Thm A.1,
//!    `eps/2 <= 1`) at `(eps/2, delta/2)` needs
//!    `sigma_H^2 >= 2 ln(1.25/(delta/2)) (2 sqrt(alpha/lambda))^2/(eps/2)^2
//!    = 32 alpha ln(2.5/delta)/(lambda eps^2)`. The safe variant takes the
//!    maximum of this and the printed `40 alpha Lambda/(lambda eps^2)`, so it
//!    is never less noisy than the paper.
//! 3. Basic composition gives `(eps, delta)`; `w2 + H = w1 + (w2 - w1 + H)`
//!    and the projection are post-processing.
//!
//! # The `paper` variant (as printed, not justified)
//! `sigma_G^2 = 20 L^2 Lambda/eps^2`, `beta <= eps n lambda`,
//! `sigma_H^2 = 40 alpha Lambda/(lambda eps^2)`. Step 1 at `(eps/2,
//! delta/2)` needs four times Algorithm 2's constant, not twice (digest
//! §2.4 erratum); kept for comparison only.

use super::bounds::ObjPSetting;
use dpcore::RunFailure;
use mechanisms::calibration::classical_gaussian_sigma;

/// The noise constants of Algorithm 3 (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ObjPAppVariant {
    /// Justified constants: `sigma_G^2 = 40 L^2 ln(2/delta)/eps^2`,
    /// `beta <= eps n lambda/2`, `sigma_H` from the Gaussian mechanism at
    /// `(eps/2, delta/2)`, at least the printed value.
    #[default]
    Safe,
    /// The printed constants: `sigma_G^2 = 20 L^2 Lambda/eps^2`,
    /// `beta <= eps n lambda`, `sigma_H^2 = 40 alpha Lambda/(lambda eps^2)`.
    /// Not private as the paper states it: on the linear loss in `d = 1`
    /// stage 1 is an exact Gaussian release that realises `delta = 2.06e-8`
    /// at `eps/2 = 0.5` against the claimed `delta/2 = 5e-9` (`eps = 1`,
    /// `delta = 1e-8`; errata row BFTT-P12a). Kept to audit the printed text.
    Paper,
}

impl ObjPAppVariant {
    /// Standard deviation of each coordinate of `G`.
    pub fn sigma_g(&self, s: &ObjPSetting) -> f64 {
        let log_term = match self {
            Self::Safe => 40.0 * (2.0 / s.delta).ln(),
            Self::Paper => 20.0 * s.log_inv_delta(),
        };
        log_term.sqrt() * s.lipschitz / s.eps
    }

    /// The privacy limit on `beta`: `eps n lambda/2` (safe) or `eps n lambda`.
    pub fn smoothness_limit(&self, s: &ObjPSetting, lambda: f64) -> f64 {
        let full = s.eps * s.n * lambda;
        match self {
            Self::Safe => 0.5 * full,
            Self::Paper => full,
        }
    }

    /// Standard deviation of each coordinate of `H` for accuracy `alpha`.
    ///
    /// Errors: `InvalidParameters` when the Gaussian calibration rejects
    /// its inputs (e.g. `alpha < 0`).
    pub fn sigma_h(&self, s: &ObjPSetting, lambda: f64, alpha: f64) -> Result<f64, RunFailure> {
        let printed = (40.0 * alpha * s.log_inv_delta() / lambda).sqrt() / s.eps;
        match self {
            Self::Paper => Ok(printed),
            Self::Safe => {
                let sensitivity = 2.0 * (alpha / lambda).sqrt();
                let classical =
                    classical_gaussian_sigma(0.5 * s.eps, 0.5 * s.delta, sensitivity)
                        .map_err(|e| RunFailure::InvalidParameters(format!("sigma_H: {e}")))?;
                Ok(classical.max(printed))
            }
        }
    }
}
