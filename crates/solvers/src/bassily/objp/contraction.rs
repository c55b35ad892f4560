//! Theorem 5.8 (SVRG, digest §2.4 "cleaned") measured epoch by epoch on
//! `A_ObjP-App`'s own perturbed objective
//! `J(w) = F(w) + <G, w>/n + lambda ||w||^2` over `W = B(0, M)`:
//! `E J(y(t+1)) - J* <= 0.9^t (J(y(1)) - J*)` for `k = ceil(20 beta_f/mu_f)`
//! inner steps of size `1/(10 beta_f)` (`beta_f = beta + 2 lambda`,
//! `mu_f = 2 lambda`). `G` is drawn as Algorithm 3 draws it, the epochs are
//! [`super::svrg::svrg_snapshots`] (the certified solver's steps without its
//! stopping rule), and `J*` is the family's exact perturbed minimizer
//! (`Objective::perturbed_minimizer`: closed form or a root-finding
//! certificate to machine precision), so the gap needs no solver of its own.
//!
//! Not a private release: the gaps use the exact minimizer.

use super::approx::ObjPAppPlan;
use super::svrg::{svrg_snapshots, SvrgSchedule};
use dpcore::{Objective, RunFailure};
use mechanisms::noise::gaussian;
use rand::Rng;

/// The gap of one run after `t` epochs.
#[derive(Debug, Clone, PartialEq)]
pub struct SvrgContraction {
    /// `(J(y(t+1)) - J*)/(J(y(1)) - J*)`: what Theorem 5.8 bounds by `0.9^t`
    /// in expectation.
    pub ratio: f64,
    /// `J(y(1)) - J*` with `y(1) = 0`.
    pub initial_gap: f64,
    /// `J(y(t+1)) - J*`.
    pub final_gap: f64,
    /// The schedule run (`k`, step, `beta_f`, `mu_f`).
    pub schedule: SvrgSchedule,
}

impl ObjPAppPlan {
    /// Draws `G` as Algorithm 3 does, runs exactly `epochs` SVRG epochs on
    /// `J` from `y(1) = 0` and measures the gap against the exact `J*`.
    ///
    /// Errors: `InvalidParameters` for `epochs = 0`, a family without an exact
    /// perturbed minimizer, a `J(y(1)) - J*` that is not positive, or a
    /// refused schedule; `NonFinite` from the epochs.
    pub fn svrg_contraction<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        epochs: u64,
        rng: &mut R,
    ) -> Result<SvrgContraction, RunFailure> {
        let invalid = |m: String| Err(RunFailure::InvalidParameters(m));
        if epochs == 0 {
            return invalid("Theorem 5.8's check needs at least one epoch".into());
        }
        let g = gaussian(problem.dim(), self.sigma_g, rng);
        let (objective, schedule) = self.perturbed_objective(problem, &g)?;
        let Some(star) = problem.perturbed_minimizer(objective.linear_term(), self.lambda) else {
            return invalid(
                "Theorem 5.8's check needs J* exactly: the family has no exact perturbed minimizer"
                    .into(),
            );
        };
        let j_star = objective.value(&star);
        let snapshots = svrg_snapshots(&objective, &schedule, epochs, rng)?;
        let initial_gap = objective.value(&snapshots[0]) - j_star;
        if !(initial_gap > 0.0 && initial_gap.is_finite()) {
            return invalid(format!(
                "J(y(1)) - J* = {initial_gap:e}: y(1) = 0 is already optimal, nothing to contract"
            ));
        }
        let final_gap = objective.value(snapshots.last().expect("epochs + 1 snapshots")) - j_star;
        Ok(SvrgContraction {
            ratio: final_gap / initial_gap,
            initial_gap,
            final_gap,
            schedule,
        })
    }
}
