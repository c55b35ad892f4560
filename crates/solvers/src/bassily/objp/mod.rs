//! Objective perturbation of Bassily et al. (2019), §5: the exact `A_ObjP`
//! (Algorithm 2, Theorems 5.2/5.3) and the approximate `A_ObjP-App`
//! (Algorithm 3, Theorems 5.6/5.7) with certified SVRG (Theorem 5.8) as its
//! optimizer (digest §2.3, §2.4, §5, §7 P11–P13, P16).
//!
//! - [`bounds`]: `lambda` of Theorem 5.3 and every theory curve (Theorem 5.3
//!   corrected and printed, Lemma 5.4, the derived empirical and stability
//!   terms, the derived `B_ObjP-App`).
//! - [`exact`]: Algorithm 2, which needs the family's exact perturbed
//!   minimizer ([`dpcore::Objective::perturbed_minimizer`]).
//! - [`approx`]: Algorithm 3; [`variant`]: its `safe` (default) and `paper`
//!   noise constants, with the privacy proof of the safe ones.
//! - [`certificate`]: the perturbed objective `J(w) = F(w) + <b, w> +
//!   lambda ||w||^2` and a deterministic certificate of `J(w) - min J`.
//! - [`svrg`]: SVRG on `J`, stopped by that certificate.
//! - [`contraction`]: Theorem 5.8 measured: SVRG's gap to the exact `J*`
//!   after a fixed number of epochs.
//!
//! # Common preconditions (checked by [`check_preconditions`])
//! - **Assumption 5.1** (every `l(., z)` twice differentiable with Hessian of
//!   rank `<= 1` on `W`) cannot be checked from the oracle, so the caller
//!   asserts it with [`HessianRank::AtMostOne`]. Generalized linear models
//!   `l(w, (x, y)) = phi(<w, x>, y)` qualify: their Hessian `phi'' x x^T` has
//!   rank `<= 1` (logistic, smooth hinge, pseudo-Huber, least squares); linear
//!   losses have Hessian `0`. Softmax or any loss coupling several linear
//!   forms does not (digest §5.1).
//! - `eps <= 1` and `delta <= 1/n^2`: the input domain of Algorithms 2 and 3.
//!   Theorem 5.2 is a restatement of \[KST12, Thm 2\] with their
//!   regularization parameter replaced by `n lambda`; the noise constant
//!   `10 L^2 ln(1/delta)/eps^2` is that theorem's and is **not** re-derived
//!   by the paper or here (it is not the Gaussian mechanism's: the density
//!   ratio of `G` must also absorb the change of the Jacobian of the map
//!   `w -> G` between neighbours, which is where `beta <= eps n lambda` and
//!   the rank-1 assumption enter).
//!   Outside `eps <= 1, delta <= 1/n^2` the paper asserts nothing, so these
//!   algorithms refuse to run there rather than claim an unproven guarantee.
//! - `0 < delta < 1`, `n >= 1`, `d >= 1`, finite `L > 0`, `M > 0` and finite
//!   `beta >= 0` (the gradient-Lipschitz constant, digest P3).
//!
//! Domain: `W = B(0, M)` with `M` the family's `radius` (digest P2).
//! Floating-point Gaussian sampling is not exactly DP (digest P20).

use super::rate::check_privacy;
use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};

pub mod approx;
pub mod bounds;
pub mod certificate;
pub mod contraction;
pub mod exact;
pub mod svrg;
pub mod variant;

pub use approx::{ObjPApp, ObjPAppPlan};
pub use bounds::ObjPSetting;
pub use certificate::{strong_convexity_certificate, PerturbedObjective};
pub use contraction::SvrgContraction;
pub use exact::{run_objp, ObjPPlan};
pub use svrg::{certified_svrg, svrg_snapshots, Svrg, SvrgOutcome, SvrgSchedule};
pub use variant::ObjPAppVariant;

/// The caller's statement about Assumption 5.1 (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HessianRank {
    /// `rank Hessian l(w, z) <= 1` for every `w` in `W` and every `z`
    /// (GLMs, linear losses): objective perturbation is private.
    AtMostOne,
    /// Higher or unknown rank: objective perturbation is refused.
    Unknown,
}

/// What one run of `A_ObjP` or `A_ObjP-App` reports (brief item 3).
#[derive(Debug, Clone, PartialEq)]
pub struct ObjPRelease {
    /// The released parameter `w_hat` (in `B(0, M)`).
    pub w: Vec<f64>,
    /// Regularization `lambda` of Theorem 5.3.
    pub lambda: f64,
    /// Standard deviation of each coordinate of the linear-term noise `G`.
    pub sigma_g: f64,
    /// Standard deviation of each coordinate of the output noise `H`
    /// (`0` for the exact `A_ObjP`).
    pub sigma_h: f64,
    /// Optimization accuracy `alpha` (`0` for the exact `A_ObjP`).
    pub alpha: f64,
    /// The SVRG run of `A_ObjP-App`; `None` for the exact `A_ObjP`.
    pub svrg: Option<SvrgReport>,
}

/// Work and accuracy of one certified SVRG run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvrgReport {
    /// The certificate value reached: a proven upper bound on `J(w2) - J*`,
    /// at most `alpha`.
    pub certificate: f64,
    /// Epochs run.
    pub epochs: u64,
    /// Gradient evaluations spent (`n` per full gradient, `2` per inner step).
    pub gradient_evaluations: u64,
    /// The schedule used (inner steps `k`, theory count `tau`, cap).
    pub schedule: SvrgSchedule,
    /// The theory count `tau (n + 2k)` of digest E6.
    pub theory_gradient_evaluations: f64,
}

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

/// Checks the preconditions shared by Algorithms 2 and 3 (module doc) and
/// returns the problem's constants.
///
/// Errors: `InvalidParameters` naming the violated condition.
pub fn check_preconditions(
    problem: &dyn Objective,
    privacy: PrivacyParams,
    hessian: HessianRank,
) -> Result<ProblemConstants, RunFailure> {
    if hessian != HessianRank::AtMostOne {
        return Err(invalid(
            "objective perturbation needs Assumption 5.1 (Hessians of rank <= 1, e.g. GLMs); \
             the caller did not assert it"
                .into(),
        ));
    }
    let (eps, delta) = (privacy.eps, privacy.delta);
    check_privacy(eps, delta)?;
    if eps > 1.0 {
        return Err(invalid(format!(
            "objective perturbation (Thm 5.2 / [KST12]) is proven only for eps <= 1, got {eps}"
        )));
    }
    let (n, d) = (problem.num_records(), problem.dim());
    if n == 0 || d == 0 {
        return Err(invalid(format!(
            "need n >= 1 and d >= 1, got n = {n}, d = {d}"
        )));
    }
    let n_f = n as f64;
    if delta > 1.0 / (n_f * n_f) {
        return Err(invalid(format!(
            "objective perturbation takes delta <= 1/n^2 = {:e} (Algorithms 2-3 input), got {delta:e}",
            1.0 / (n_f * n_f)
        )));
    }
    let c = problem.constants();
    let pos = |v: f64| v.is_finite() && v > 0.0;
    if !(pos(c.lipschitz) && pos(c.radius) && c.smoothness.is_finite() && c.smoothness >= 0.0) {
        return Err(invalid(format!(
            "objective perturbation needs finite L > 0, M > 0 and finite beta >= 0, got {c:?}"
        )));
    }
    Ok(c)
}

/// Checks `beta <= limit` (the smoothness condition of Theorem 5.2 or of the
/// chosen Algorithm 3 variant).
fn check_smoothness(beta: f64, limit: f64, rule: &str) -> Result<(), RunFailure> {
    if beta <= limit {
        Ok(())
    } else {
        Err(invalid(format!(
            "smoothness beta = {beta} exceeds {rule} = {limit} (needed for privacy)"
        )))
    }
}
