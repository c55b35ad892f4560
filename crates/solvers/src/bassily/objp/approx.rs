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
//!
//! # Utility
//! [`ObjPAppPlan::bound`]: the derived `B_ObjP-App` of digest §2.4
//! evaluated at the plan's own `sigma_G`, `alpha`, `sigma_H`
//! ([`super::bounds`]).

use super::bounds::ObjPSetting;
use super::exact::check_matches;
use super::svrg::{certified_svrg, PerturbedObjective, Svrg, SvrgOutcome, SvrgSchedule};
use super::{check_preconditions, check_smoothness, HessianRank, ObjPRelease, SvrgReport};
use crate::inner::regularized::project_ball;
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::calibration::classical_gaussian_sigma;
use mechanisms::noise::gaussian;
use rand::Rng;

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
        check_matches(problem, &self.setting, g)?;
        let b: Vec<f64> = g.iter().map(|gj| gj / self.setting.n).collect();
        let objective = PerturbedObjective::new(problem, b, self.lambda)?;
        let schedule = self.svrg.schedule(
            &objective,
            self.smoothness,
            self.setting.lipschitz,
            self.alpha,
        )?;
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
