//! `A_ObjP-App`, approximate objective perturbation (Bassily et al.
//! Algorithm 3, Theorems 5.6 and 5.7; digest §2.4, P12, P16) with certified
//! SVRG ([`super::svrg`]) as the optimizer.
//!
//! # Algorithm
//! `lambda` as in Theorem 5.3, `alpha = M^2 lambda/n^2` (Theorem 5.7; any
//! `alpha > 0` may be given instead, privacy holds for every `alpha`).
//! Draw `G ~ N(0, sigma_G^2 I)`, let `J(w) = L_hat(w) + <G, w>/n +
//! lambda ||w||^2`, compute `w2` with `J(w2) - min_W J <= alpha` **certified**
//! (not in expectation, P12), draw `H ~ N(0, sigma_H^2 I)` and release
//! `Proj_W(w2 + H)`.
//!
//! # Privacy
//! See [`super::variant`]: the `safe` variant (default) is proven
//! `(eps, delta)`-DP there; the `paper` variant keeps the printed constants.
//!
//! # Utility
//! [`ObjPAppPlan::bound`]: the derived `B_ObjP-App` of digest §2.4
//! evaluated at the plan's own `sigma_G`, `alpha`, `sigma_H`
//! ([`super::bounds`]).

use super::bounds::ObjPSetting;
use super::certificate::PerturbedObjective;
use super::exact::check_matches;
use super::svrg::{certified_svrg, Svrg, SvrgOutcome, SvrgSchedule};
use super::variant::ObjPAppVariant;
use super::{check_preconditions, check_smoothness, HessianRank, ObjPRelease, SvrgReport};
use crate::inner::regularized::project_ball;
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::noise::gaussian;
use rand::Rng;

/// Configuration of `A_ObjP-App`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ObjPApp {
    /// Noise constants (default [`ObjPAppVariant::Safe`]).
    pub variant: ObjPAppVariant,
    /// Accuracy `alpha`; `None` means Theorem 5.7's `M^2 lambda/n^2`.
    pub alpha: Option<f64>,
    /// The SVRG optimizer's configuration.
    pub svrg: Svrg,
}

/// The parameters of one `A_ObjP-App` configuration, computed and checked once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjPAppPlan {
    /// The setting (`n, d, eps, delta, L, M`).
    pub setting: ObjPSetting,
    /// The noise variant.
    pub variant: ObjPAppVariant,
    /// `lambda` of Theorem 5.3.
    pub lambda: f64,
    /// Standard deviation of `G`.
    pub sigma_g: f64,
    /// Optimization accuracy `alpha`.
    pub alpha: f64,
    /// Standard deviation of `H`.
    pub sigma_h: f64,
    /// The privacy limit on `beta` of the variant.
    pub smoothness_limit: f64,
    /// The loss smoothness `beta` (for the SVRG schedule).
    pub smoothness: f64,
    /// The SVRG configuration.
    pub svrg: Svrg,
}

impl ObjPApp {
    /// Computes and checks the plan for `problem` at `privacy`.
    ///
    /// Errors: `InvalidParameters` for a violated precondition
    /// ([`super::check_preconditions`]), `beta` above the variant's limit,
    /// a missing finite-sum oracle or `alpha` not finite and `> 0`.
    pub fn plan(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        hessian: HessianRank,
    ) -> Result<ObjPAppPlan, RunFailure> {
        let c = check_preconditions(problem, privacy, hessian)?;
        if problem.finite_sum().is_none() {
            return Err(RunFailure::InvalidParameters(
                "A_ObjP-App runs SVRG and needs a finite-sum (ERM) objective".into(),
            ));
        }
        let setting = ObjPSetting::from_problem(problem, privacy);
        let lambda = setting.lambda();
        let smoothness_limit = self.variant.smoothness_limit(&setting, lambda);
        let rule = match self.variant {
            ObjPAppVariant::Safe => "eps n lambda/2 (safe Algorithm 3)",
            ObjPAppVariant::Paper => "eps n lambda (Thm 5.6 as printed)",
        };
        check_smoothness(c.smoothness, smoothness_limit, rule)?;
        let alpha = self
            .alpha
            .unwrap_or_else(|| setting.theorem_5_7_alpha(lambda));
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(RunFailure::InvalidParameters(format!(
                "A_ObjP-App needs a finite accuracy alpha > 0 (alpha = 0 is A_ObjP), got {alpha}"
            )));
        }
        Ok(ObjPAppPlan {
            setting,
            variant: self.variant,
            lambda,
            sigma_g: self.variant.sigma_g(&setting),
            alpha,
            sigma_h: self.variant.sigma_h(&setting, lambda, alpha)?,
            smoothness_limit,
            smoothness: c.smoothness,
            svrg: self.svrg,
        })
    }

    /// Runs Algorithm 3: [`Self::plan`] then [`ObjPAppPlan::run`].
    ///
    /// Errors: as those two.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        hessian: HessianRank,
        rng: &mut R,
    ) -> Result<ObjPRelease, RunFailure> {
        self.plan(problem, privacy, hessian)?.run(problem, rng)
    }
}

impl ObjPAppPlan {
    /// The perturbed objective `J(w) = F(w) + <g, w>/n + lambda ||w||^2` for
    /// a given `g` and its SVRG schedule (Theorem 5.8's `k`, step and epoch
    /// cap at this plan's `alpha`).
    ///
    /// Errors: `InvalidParameters` when `problem` does not match the plan or
    /// the schedule is refused.
    pub fn perturbed_objective<'a>(
        &self,
        problem: &'a dyn Objective,
        g: &[f64],
    ) -> Result<(PerturbedObjective<'a>, SvrgSchedule), RunFailure> {
        check_matches(problem, &self.setting, g)?;
        let b: Vec<f64> = g.iter().map(|gj| gj / self.setting.n).collect();
        let objective = PerturbedObjective::new(problem, b, self.lambda)?;
        let schedule = self.svrg.schedule(
            &objective,
            self.smoothness,
            self.setting.lipschitz,
            self.alpha,
        )?;
        Ok((objective, schedule))
    }

    /// Step 3's optimizer for a given `g`: certified SVRG on
    /// `J(w) = F(w) + <g, w>/n + lambda ||w||^2` to accuracy `alpha`.
    /// Deterministic in `g` except for SVRG's index draws; exposed for coupled
    /// experiments. Not private by itself (the output noise `H` is missing).
    ///
    /// Errors: `InvalidParameters` when `problem` does not match the plan or
    /// the SVRG schedule is refused; `NonConvergence` or `NonFinite` from
    /// [`certified_svrg`].
    pub fn optimize<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        g: &[f64],
        rng: &mut R,
    ) -> Result<(SvrgOutcome, SvrgSchedule), RunFailure> {
        let (objective, schedule) = self.perturbed_objective(problem, g)?;
        let outcome = certified_svrg(&objective, &schedule, self.alpha, rng)?;
        Ok((outcome, schedule))
    }

    /// The release `Proj_W(w2 + h)`.
    pub fn release(&self, w2: &[f64], h: &[f64]) -> Vec<f64> {
        let mut w: Vec<f64> = w2.iter().zip(h).map(|(a, b)| a + b).collect();
        project_ball(&mut w, self.setting.radius);
        w
    }

    /// Runs Algorithm 3 with fresh `G` and `H` from `rng`.
    ///
    /// Errors: as [`Self::optimize`].
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        rng: &mut R,
    ) -> Result<ObjPRelease, RunFailure> {
        let d = problem.dim();
        let g = gaussian(d, self.sigma_g, rng);
        let (outcome, schedule) = self.optimize(problem, &g, rng)?;
        let h = gaussian(d, self.sigma_h, rng);
        let epoch_cost = self.setting.n + 2.0 * schedule.inner_steps as f64;
        Ok(ObjPRelease {
            w: self.release(&outcome.w, &h),
            lambda: self.lambda,
            sigma_g: self.sigma_g,
            sigma_h: self.sigma_h,
            alpha: self.alpha,
            svrg: Some(SvrgReport {
                certificate: outcome.certificate,
                epochs: outcome.epochs,
                gradient_evaluations: outcome.gradient_evaluations,
                schedule,
                theory_gradient_evaluations: schedule.theory_epochs as f64 * epoch_cost,
            }),
        })
    }

    /// The derived `B_ObjP-App` at this plan's `sigma_G`, `alpha`, `sigma_H`.
    pub fn bound(&self) -> f64 {
        self.setting
            .objp_app_bound(self.lambda, self.sigma_g, self.alpha, self.sigma_h)
    }
}
