//! `A_ObjP`, exact objective perturbation (Bassily et al. Algorithm 2,
//! Theorems 5.2 and 5.3; digest §2.3, P11, P13, P16).
//!
//! # Algorithm
//! With `lambda = (2L/M) sqrt(2/n + 4 d Lambda/(eps^2 n^2))` (Theorem 5.3),
//! draw `G ~ N(0, sigma_G^2 I_d)` with `sigma_G^2 = 10 L^2 Lambda/eps^2` and
//! release the **exact** minimizer
//! `w_hat = argmin_{||w|| <= M} L_hat(w; S) + <G, w>/n + lambda ||w||^2`,
//! obtained from [`dpcore::Objective::perturbed_minimizer`] with
//! `b = G/n`. The objective is `2 lambda`-strongly convex (no 1/2, P16).
//!
//! # Privacy (Theorem 5.2, restating \[KST12, Thm 2\] with `n lambda`)
//! `(eps, delta)`-DP under replace-one adjacency when Assumption 5.1 holds,
//! `beta <= eps n lambda`, `eps <= 1`, `delta <= 1/n^2` and the output is the
//! exact argmin. The noise scale `sigma_G^2 = 10 L^2 Lambda/eps^2` is the one
//! of that theorem (module doc of [`super`]). Every condition is checked;
//! a family without an exact perturbed minimizer is refused (P11): a
//! floating-point solver's approximate argmin carries no privacy proof —
//! that is what [`super::approx`] (Algorithm 3) is for. For the linear loss
//! this is the Gaussian mechanism on `L sum_i z_i` (sensitivity `2L`) with
//! `sigma_G/Delta = sqrt(10 Lambda)/(2 eps)`, above the classical
//! `sqrt(2 ln(1.25/delta))/eps` (digest §5.2).
//!
//! # Utility
//! [`super::bounds::ObjPSetting::theorem_5_3`] (corrected `4 M L sqrt(s)`),
//! with the printed `2 M L sqrt(s)` and Lemma 5.4 alongside.

use super::bounds::ObjPSetting;
use super::{check_preconditions, check_smoothness, HessianRank, ObjPRelease};
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::noise::gaussian;
use rand::Rng;

/// The parameters of one `A_ObjP` configuration, computed and checked once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjPPlan {
    /// The setting (`n, d, eps, delta, L, M`).
    pub setting: ObjPSetting,
    /// `lambda` of Theorem 5.3.
    pub lambda: f64,
    /// `sigma_G = sqrt(10 L^2 Lambda)/eps`.
    pub sigma_g: f64,
    /// The privacy limit `eps n lambda` on `beta` (Theorem 5.2).
    pub smoothness_limit: f64,
}

impl ObjPPlan {
    /// Computes `lambda` and `sigma_G` for `problem` and checks every
    /// precondition except the availability of the exact minimizer (which
    /// [`Self::minimize_perturbed`] checks).
    ///
    /// Errors: `InvalidParameters` for a violated precondition
    /// ([`super::check_preconditions`]) or `beta > eps n lambda`.
    pub fn new(
        problem: &dyn Objective,
        privacy: PrivacyParams,
        hessian: HessianRank,
    ) -> Result<Self, RunFailure> {
        let c = check_preconditions(problem, privacy, hessian)?;
        let setting = ObjPSetting::from_problem(problem, privacy);
        let lambda = setting.lambda();
        let smoothness_limit = setting.eps * setting.n * lambda;
        check_smoothness(c.smoothness, smoothness_limit, "eps n lambda (Thm 5.2)")?;
        Ok(Self {
            setting,
            lambda,
            sigma_g: setting.sigma_g_objp(),
            smoothness_limit,
        })
    }

    /// Step 2 of Algorithm 2 for a given noise vector `g`: the exact
    /// `argmin_{||w|| <= M} F(w) + <g, w>/n + lambda ||w||^2`. Deterministic;
    /// private only when `g ~ N(0, sigma_G^2 I)` is freshly drawn (as in
    /// [`Self::run`]). Exposed for coupled experiments (same `G` for
    /// Algorithms 2 and 3).
    ///
    /// Errors: `InvalidParameters` when `problem` does not match the plan
    /// (`n`, `d`) or has no exact perturbed minimizer (P11); `NonFinite` for a
    /// non-finite minimizer.
    pub fn minimize_perturbed(
        &self,
        problem: &dyn Objective,
        g: &[f64],
    ) -> Result<Vec<f64>, RunFailure> {
        check_matches(problem, &self.setting, g)?;
        let b: Vec<f64> = g.iter().map(|gj| gj / self.setting.n).collect();
        let w = problem
            .perturbed_minimizer(&b, self.lambda)
            .ok_or_else(|| {
                RunFailure::InvalidParameters(
                "A_ObjP needs the exact perturbed minimizer, which this family does not provide \
                 (an approximate argmin is not private, digest P11; use A_ObjP-App)"
                    .into(),
            )
            })?;
        if w.len() != g.len() || w.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite(
                "perturbed minimizer is not a finite vector of dimension d".into(),
            ));
        }
        Ok(w)
    }

    /// The corrected Theorem 5.3 bound `4 M L sqrt(s)` (the default curve).
    pub fn bound(&self) -> f64 {
        self.setting.theorem_5_3()
    }

    /// Runs Algorithm 2: draws `G`, releases the exact perturbed minimizer.
    ///
    /// Errors: as [`Self::minimize_perturbed`].
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        rng: &mut R,
    ) -> Result<ObjPRelease, RunFailure> {
        let g = gaussian(problem.dim(), self.sigma_g, rng);
        let w = self.minimize_perturbed(problem, &g)?;
        Ok(ObjPRelease {
            w,
            lambda: self.lambda,
            sigma_g: self.sigma_g,
            sigma_h: 0.0,
            alpha: 0.0,
            svrg: None,
        })
    }
}

/// `A_ObjP` in one call: [`ObjPPlan::new`] then [`ObjPPlan::run`].
///
/// Errors: as those two.
pub fn run_objp<R: Rng + ?Sized>(
    problem: &dyn Objective,
    privacy: PrivacyParams,
    hessian: HessianRank,
    rng: &mut R,
) -> Result<ObjPRelease, RunFailure> {
    ObjPPlan::new(problem, privacy, hessian)?.run(problem, rng)
}

/// `InvalidParameters` unless `problem` has the plan's `n` and `d` and
/// `g.len() == d`.
pub(super) fn check_matches(
    problem: &dyn Objective,
    setting: &ObjPSetting,
    g: &[f64],
) -> Result<(), RunFailure> {
    let (n, d) = (problem.num_records(), problem.dim());
    if n as f64 != setting.n || d as f64 != setting.d || g.len() != d {
        return Err(RunFailure::InvalidParameters(format!(
            "problem (n = {n}, d = {d}) or noise (len {}) does not match the plan {setting:?}",
            g.len()
        )));
    }
    Ok(())
}
