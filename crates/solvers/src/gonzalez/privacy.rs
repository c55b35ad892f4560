//! Privacy accounting of the vertex releases (digest §3.0, §3.6).
//!
//! Each released vertex is a sample from `softmax(theta)` whose log-weights
//! have sensitivity `Delta` (e.g. `2 L0 tau / B` for one-pass MW), i.e. the
//! exponential mechanism, `2 Delta`-DP conditionally on the past (Thm A.3,
//! `mechanisms::selection::log_weight_sampling_epsilon`). `k` releases are
//! composed adaptively:
//!
//! - **calibration** ([`per_release_budget`]): for `eps < 1` the paper's
//!   Thm A.1 (`eps_0 = eps / (2 sqrt(2 k ln(1/delta)))`,
//!   `mechanisms::composition::theorem_a1_per_step_eps`); for `eps >= 1`,
//!   where Thm A.1 is not proven (pitfall 4), the exact inverse of the
//!   Dwork–Rothblum–Vadhan bound (`per_step_eps`);
//! - **spending** ([`account`]): the realised per-release `eps_0` composed
//!   by the smaller of basic composition and the DRV advanced composition
//!   with `delta' = delta` (both valid); Thm A.1's total is never below DRV,
//!   so a calibrated run spends at most its target.

use dpcore::{PrivacyParams, RunFailure};
use mechanisms::calibration::{analytic_gaussian_sigma, classical_gaussian_sigma};
use mechanisms::composition::{advanced_composition_eps, per_step_eps, theorem_a1_per_step_eps};
use mechanisms::gdp::{gaussian_mu, gdp_epsilon};

/// The privacy a run actually spent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexAccount {
    /// Number of released vertices (query indices for Alg. 5).
    pub releases: usize,
    /// Pure-DP cost of one release, from the realised step size.
    pub eps_per_release: f64,
    /// Composed `eps` (min of basic and DRV advanced composition).
    pub eps_spent: f64,
    /// Composed `delta` (`delta'` of advanced composition; 0 if basic wins).
    pub delta_spent: f64,
}

fn invalid(e: impl std::fmt::Display) -> RunFailure {
    RunFailure::InvalidParameters(e.to_string())
}

/// Largest per-release pure `eps_0` such that `releases` adaptive releases
/// are `(eps, delta)`-DP (module docs). Needs `delta > 0`.
pub fn per_release_budget(privacy: PrivacyParams, releases: usize) -> Result<f64, RunFailure> {
    if privacy.eps < 1.0 {
        theorem_a1_per_step_eps(privacy.eps, releases, privacy.delta).map_err(invalid)
    } else {
        per_step_eps(privacy.eps, releases, privacy.delta).map_err(invalid)
    }
}

/// The composed guarantee of `releases` releases that are each
/// `eps_per_release`-DP (module docs).
pub fn account(
    eps_per_release: f64,
    releases: usize,
    delta: f64,
) -> Result<VertexAccount, RunFailure> {
    let basic = eps_per_release * releases as f64;
    let drv = advanced_composition_eps(eps_per_release, releases.max(1), delta).map_err(invalid)?;
    let (eps_spent, delta_spent) = if basic <= drv {
        (basic, 0.0)
    } else {
        (drv, delta)
    };
    Ok(VertexAccount {
        releases,
        eps_per_release,
        eps_spent,
        delta_spent,
    })
}

/// The privacy spent by a one-pass Gaussian-noise baseline: every record
/// enters one batch, so the run is as private as one Gaussian release of
/// L2-sensitivity `sensitivity` with noise `sigma` (parallel composition).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianAccount {
    /// Noise standard deviation per coordinate.
    pub sigma: f64,
    /// L2 sensitivity of one noisy batch gradient.
    pub sensitivity: f64,
    /// Exact `eps` at `delta_spent` (Balle–Wang via GDP `mu = Delta/sigma`).
    pub eps_spent: f64,
    /// The `delta` of the guarantee.
    pub delta_spent: f64,
}

/// What a run spent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpentPrivacy {
    /// Exponential-mechanism vertex releases.
    Vertices(VertexAccount),
    /// Gaussian gradient noise.
    Gaussian(GaussianAccount),
}

impl SpentPrivacy {
    /// The composed `eps`.
    pub fn eps(&self) -> f64 {
        match self {
            SpentPrivacy::Vertices(a) => a.eps_spent,
            SpentPrivacy::Gaussian(a) => a.eps_spent,
        }
    }
    /// The composed `delta`.
    pub fn delta(&self) -> f64 {
        match self {
            SpentPrivacy::Vertices(a) => a.delta_spent,
            SpentPrivacy::Gaussian(a) => a.delta_spent,
        }
    }
}

/// Gaussian noise scale for L2 sensitivity `sensitivity` at `(eps, delta)`:
/// the classical `sqrt(2 ln(1.25/delta)) Delta / eps` of digest §7.4 for
/// `eps <= 1`, the analytic Gaussian mechanism (valid for every `eps`)
/// otherwise; with the exact spend of that `sigma`.
pub fn gaussian_calibration(
    privacy: PrivacyParams,
    sensitivity: f64,
) -> Result<GaussianAccount, RunFailure> {
    let sigma = if privacy.eps <= 1.0 {
        classical_gaussian_sigma(privacy.eps, privacy.delta, sensitivity)
    } else {
        analytic_gaussian_sigma(privacy.eps, privacy.delta, sensitivity)
    }
    .map_err(invalid)?;
    let spent = |sigma: f64| -> Result<f64, RunFailure> {
        gdp_epsilon(
            gaussian_mu(sigma, sensitivity).map_err(invalid)?,
            privacy.delta,
        )
        .map_err(invalid)
    };
    // The analytic calibration is exact, so the inverse can exceed the target
    // by rounding: widen sigma by relative 1e-12 steps until it does not.
    let mut sigma = sigma;
    let mut eps_spent = spent(sigma)?;
    while eps_spent > privacy.eps {
        sigma *= 1.0 + 1e-12;
        eps_spent = spent(sigma)?;
    }
    Ok(GaussianAccount {
        sigma,
        sensitivity,
        eps_spent,
        delta_spent: privacy.delta,
    })
}
