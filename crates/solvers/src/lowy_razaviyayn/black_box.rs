//! Algorithm 1 of Lowy & Razaviyayn (black-box output perturbation for the
//! strongly convex classes `F` and `H` and for non-ERM objectives such as
//! TERM; digest §3, Prop 3.1) and the conceptual projected mechanism `A'`
//! of Eq. (3) (digest §3.0). The noise, projection and release helpers
//! shared with the regularized and adversarial algorithms are re-exported
//! here.

use crate::inner::{self, InnerSolver};
use crate::lowy_razaviyayn::prescriptions::validate_privacy;
use crate::lowy_razaviyayn::release::{calibrate_strongly_convex, check_certificate, release};
use crate::output_perturbation::{ConceptualOutputPerturbation, Release, SensitivityChoice};
use dpcore::{Objective, PrivacyParams, RunFailure};
use rand::Rng;

pub use crate::lowy_razaviyayn::release::{
    inflated_sensitivity, perturb, project_onto_ball, BlackBoxCalibration, BlackBoxRelease,
    Projection,
};

/// The conceptual projected mechanism `A'` of Eq. (3):
/// `Pi_{B(0,R)}(w*(X) + z)` with the exact minimizer, analysed for the
/// non-smooth class `F` (Prop 2.3, Cor 2.1; digest §3.0, P13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConceptualProjectedOutputPerturbation {
    /// Which sensitivity bound calibrates the noise.
    pub sensitivity: SensitivityChoice,
}

impl ConceptualProjectedOutputPerturbation {
    /// Releases `Pi_{B(0,R)}(w* + z)`; `Release::w` is the projected point and
    /// `noise_norm_sq` the realised `||z||^2` before projection.
    ///
    /// Errors as [`ConceptualOutputPerturbation::run`].
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<Release, RunFailure> {
        validate_privacy(privacy)?;
        let mech = ConceptualOutputPerturbation {
            sensitivity: self.sensitivity,
        };
        let mut release = mech.run(problem, privacy, rng)?;
        project_onto_ball(&mut release.w, problem.constants().radius);
        Ok(release)
    }
}

/// Algorithm 1 (digest §3.1): run a non-private solver to accuracy `alpha`,
/// then add noise calibrated to `Delta_T = Delta_F + 2 sqrt(2 alpha/mu)`
/// (Prop 3.1), optionally projecting onto `B(0, R)` (`A'`, Thm 3.1, P13).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlackBoxOutputPerturbation {
    /// Which field of `minimizer_sensitivity()` is `Delta_F` (digest P5).
    pub sensitivity: SensitivityChoice,
    /// The inner solver (Sgd for Thm 3.1, Katyusha for Thm 3.2, Subgradient
    /// or Agd for TERM, Thms 5.1/5.2).
    pub solver: InnerSolver,
    /// Target accuracy, e.g. from [`crate::lowy_razaviyayn::prescriptions`].
    pub alpha: f64,
    /// Projection of the output.
    pub projection: Projection,
}

impl BlackBoxOutputPerturbation {
    /// `Delta_F`, `Delta_T = Delta_F + 2 sqrt(2 alpha/mu)` and the noise scale
    /// (`Delta_T/eps` or the ZWB `sigma`, digest §2).
    ///
    /// Errors: `RunFailure::InvalidParameters` for invalid privacy
    /// parameters, `alpha`, or `mu` not finite and positive.
    pub fn calibrate(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
    ) -> Result<BlackBoxCalibration, RunFailure> {
        calibrate_strongly_convex(problem, privacy, self.sensitivity, self.alpha, |d, mu| {
            inflated_sensitivity(d, self.alpha, mu)
        })
    }

    /// Runs Algorithm 1 once.
    ///
    /// Errors: as [`Self::calibrate`]; the inner solver's failures; and
    /// `RunFailure::NonConvergence` when its certificate exceeds `alpha`.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<BlackBoxRelease, RunFailure> {
        let cal = self.calibrate(problem, privacy)?;
        let out = inner::solve(self.solver, problem, 0.0, self.alpha, rng)?;
        check_certificate(&out.certificate, self.alpha)?;
        let c = problem.constants();
        let radius = self.projection.applies(&c).then_some(c.radius);
        release(out, &cal, self.alpha, privacy, radius, rng)
    }
}
