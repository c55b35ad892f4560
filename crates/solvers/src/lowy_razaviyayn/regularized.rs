//! Output perturbation with regularization for the merely convex classes
//! `G_{L,R}` and `J_{beta,L,R}` of Lowy & Razaviyayn (digest §3.0 Eq. 6/7,
//! Algorithm 7; Props 2.7, 2.8, C.1; Thms C.1, C.2; errata P2, P5).
//!
//! `F_lambda(w) = F(w) + lambda/2 ||w||^2` is `lambda`-strongly convex, so its
//! minimizer over `B(0, R)` has sensitivity
//! `Delta_lambda <= 2 (L + lambda R) / (lambda n)` (Eq. 6; general objectives
//! drop `n`). The non-smooth class releases `Pi_{B(0,R)}(w*_lambda + z)`
//! (`A'_lambda`, Eq. 6), the smooth class `w*_lambda + z` (`A_lambda`, Eq. 7).

use crate::inner::{self, Certificate, InnerSolver, SolverOutput};
use crate::lowy_razaviyayn::prescriptions::{validate_privacy, Form, Setting, Theorem};
use crate::lowy_razaviyayn::release::{
    check_alpha, check_certificate, check_modulus, inflated_sensitivity, release,
    BlackBoxCalibration, BlackBoxRelease, Projection,
};
use crate::output_perturbation::{ConceptualOutputPerturbation, SensitivityChoice};
use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};
use rand::Rng;

/// Gaussian calibration of Algorithm 7 for `delta > 0` (pure DP is unaffected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Calibration {
    /// `sigma = (c_delta + sqrt(c_delta^2 + eps)) Delta_T / (sqrt 2 eps)`
    /// (Eq. 5, ZWB+19 Thm 5): (eps, delta)-DP. The default.
    #[default]
    Corrected,
    /// The printed Algorithm 7 density with `2 eps^2` in the exponent, i.e.
    /// the corrected `sigma` divided by `sqrt 2`. **Not private** (erratum
    /// P2: at `eps = 1`, `delta = 1e-5` its true `delta` is about `7.4e-5`);
    /// kept only to reproduce the paper.
    Paper,
}

impl Calibration {
    /// Noise scale for sensitivity `Delta_T`: [`ConceptualOutputPerturbation::noise_scale`],
    /// divided by `sqrt 2` for `Paper` when `delta > 0`.
    pub fn noise_scale(self, inflated: f64, privacy: PrivacyParams) -> Result<f64, RunFailure> {
        let scale = ConceptualOutputPerturbation::noise_scale(inflated, privacy)?;
        Ok(match self {
            Calibration::Paper if !privacy.is_pure() => scale / std::f64::consts::SQRT_2,
            _ => scale,
        })
    }
}

/// One release of `A'_lambda`, `A_lambda` or Algorithm 7.
#[derive(Debug, Clone, PartialEq)]
pub struct RegularizedRelease {
    /// The regularization `lambda`.
    pub lambda: f64,
    /// The release; its `sensitivity` is `Delta_lambda`, its
    /// `inflated_sensitivity` is `Delta_lambda + 2 sqrt(2 alpha/lambda)`
    /// (`= Delta_lambda` for the conceptual mechanisms, with `alpha = 0`).
    pub release: BlackBoxRelease,
}

impl RegularizedRelease {
    /// The Thm C.1 skeleton `(L + lambda R) [sqrt(2 alpha/lambda) + E||z||] +
    /// lambda R^2/2` (digest §4.2) evaluated with the noise scale this release
    /// actually used: `E||z|| = d scale` for the l2-Laplace noise (Gamma(d)
    /// radius) and `E||z|| <= sqrt(d) sigma` for the Gaussian (Jensen). With
    /// the corrected Gaussian sigma only this form is a valid bound: the
    /// printed `25 LR rho_delta^{1/2}` was derived with the printed sigma,
    /// sqrt 2 too small (P2). `None` for smooth problems (Thm C.2 applies).
    pub fn thm_c_1_skeleton(
        &self,
        constants: &ProblemConstants,
        d: usize,
        pure: bool,
    ) -> Option<f64> {
        let (r, lambda) = (&self.release, self.lambda);
        if constants.smoothness.is_finite() || lambda.is_nan() || lambda <= 0.0 {
            return None;
        }
        let df = d as f64;
        let expected_noise_norm = if pure { df } else { df.sqrt() } * r.noise_scale;
        let distance = (2.0 * r.alpha / lambda).sqrt();
        let radius = constants.radius;
        Some(
            (constants.lipschitz + lambda * radius) * (distance + expected_noise_norm)
                + 0.5 * lambda * radius * radius,
        )
    }
}

/// The regularized output-perturbation mechanisms for `G` and `J`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegularizedOutputPerturbation {
    /// The regularization `lambda > 0`.
    pub lambda: f64,
    /// `Paper`: `Delta_lambda = 2(L + lambda R)/(lambda n)` (Eq. 6);
    /// `Tight`: `2L/(lambda n)`, only the data-dependent part counts
    /// (digest §1.4, P5). General objectives drop `n`.
    pub sensitivity: SensitivityChoice,
    /// Gaussian calibration (erratum P2).
    pub calibration: Calibration,
    /// Projection (`Auto`: `A'_lambda` for non-smooth, `A_lambda` for smooth).
    pub projection: Projection,
}

/// The prescribed `alpha` of Algorithm 7: Thm C.1 for non-smooth problems,
/// Thm C.2 for smooth ones (digest §3.8).
pub fn prescribed_alpha(
    problem: &dyn Objective,
    privacy: PrivacyParams,
) -> Result<f64, RunFailure> {
    let c = problem.constants();
    Theorem::regularized_for(&c).alpha(&c, &Setting::of(problem, privacy))
}

impl RegularizedOutputPerturbation {
    /// The mechanism with the prescribed `lambda` (Prop 2.7 when `beta = inf`,
    /// Prop 2.8 otherwise; ERM or general form from [`Form::of`]) and
    /// `Projection::Auto`.
    pub fn prescribed(
        problem: &dyn Objective,
        privacy: PrivacyParams,
        sensitivity: SensitivityChoice,
        calibration: Calibration,
    ) -> Result<Self, RunFailure> {
        let c = problem.constants();
        let at = Setting::of(problem, privacy);
        let lambda = Theorem::regularized_for(&c)
            .lambda(&c, &at, Form::of(problem))?
            .ok_or_else(|| RunFailure::InvalidParameters("no lambda prescribed".into()))?;
        Ok(Self {
            lambda,
            sensitivity,
            calibration,
            projection: Projection::Auto,
        })
    }

    /// `Delta_lambda`: `2(L + lambda R)/(lambda n)` (Paper, Eq. 6) or
    /// `2L/(lambda n)` (Tight), without `n` for general objectives.
    pub fn regularized_sensitivity(&self, problem: &dyn Objective) -> Result<f64, RunFailure> {
        let lambda = check_modulus("lambda", self.lambda)?;
        let c = problem.constants();
        let (l, r) = (c.lipschitz, c.radius);
        if !(l.is_finite() && l >= 0.0 && r.is_finite() && r > 0.0) {
            return Err(RunFailure::InvalidParameters(format!(
                "need finite L >= 0 and R > 0, got L = {l}, R = {r}"
            )));
        }
        let n = Form::of(problem).effective_records(problem.num_records());
        if n < 1.0 {
            return Err(RunFailure::InvalidParameters("n must be >= 1".into()));
        }
        let lipschitz = match self.sensitivity {
            SensitivityChoice::Paper => l + lambda * r,
            SensitivityChoice::Tight => l,
        };
        Ok(2.0 * lipschitz / (lambda * n))
    }

    /// `Delta_lambda`, `Delta_T = Delta_lambda + 2 sqrt(2 alpha/lambda)` (Prop C.1;
    /// `alpha = 0` for the exact minimizer) and the noise scale.
    pub fn calibrate(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        alpha: f64,
    ) -> Result<BlackBoxCalibration, RunFailure> {
        validate_privacy(privacy)?;
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(RunFailure::InvalidParameters(format!(
                "alpha must be finite and >= 0, got {alpha}"
            )));
        }
        let sensitivity = self.regularized_sensitivity(problem)?;
        let inflated = inflated_sensitivity(sensitivity, alpha, self.lambda);
        let noise_scale = self.calibration.noise_scale(inflated, privacy)?;
        Ok(BlackBoxCalibration {
            sensitivity,
            inflated_sensitivity: inflated,
            noise_scale,
        })
    }

    /// The conceptual `A'_lambda` (Eq. 6) / `A_lambda` (Eq. 7) with the exact
    /// `w*_lambda` from [`Objective::regularized_minimizer`].
    ///
    /// Errors: `RunFailure::InvalidParameters` when the problem has no
    /// regularized minimizer or the parameters are invalid.
    pub fn run_conceptual<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<RegularizedRelease, RunFailure> {
        let cal = self.calibrate(problem, privacy, 0.0)?;
        let center = problem.regularized_minimizer(self.lambda).ok_or_else(|| {
            RunFailure::InvalidParameters(
                "the problem does not provide its regularized minimizer".into(),
            )
        })?;
        let exact = SolverOutput {
            w: center,
            gradient_evaluations: 0,
            iterations: 0,
            certificate: Certificate::Deterministic(0.0),
        };
        self.release(problem, privacy, exact, cal, 0.0, rng)
    }

    /// Algorithm 7: `solver` on `F_lambda` to accuracy `alpha` (SGD or
    /// Subgradient for `G`, Cor C.1; Katyusha for `J`, Cor C.2), then noise
    /// for `Delta_T = Delta_lambda + 2 sqrt(2 alpha/lambda)`.
    ///
    /// Errors: invalid parameters, the solver's failures, and
    /// `RunFailure::NonConvergence` when its certificate exceeds `alpha`.
    pub fn run_black_box<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        solver: InnerSolver,
        alpha: f64,
        rng: &mut R,
    ) -> Result<RegularizedRelease, RunFailure> {
        check_alpha(alpha)?;
        let cal = self.calibrate(problem, privacy, alpha)?;
        let out = inner::solve(solver, problem, self.lambda, alpha, rng)?;
        check_certificate(&out.certificate, alpha)?;
        self.release(problem, privacy, out, cal, alpha, rng)
    }

    /// Perturbs the solver output (or the exact minimizer) and records it.
    fn release<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        out: SolverOutput,
        cal: BlackBoxCalibration,
        alpha: f64,
        rng: &mut R,
    ) -> Result<RegularizedRelease, RunFailure> {
        let c = problem.constants();
        let radius = self.projection.applies(&c).then_some(c.radius);
        Ok(RegularizedRelease {
            lambda: self.lambda,
            release: release(out, &cal, alpha, privacy, radius, rng)?,
        })
    }
}
