//! The release step shared by the black-box algorithms of Lowy & Razaviyayn
//! (Algorithms 1, 6 and 7; digest §2, §3, Prop 3.1): projection onto
//! `B(0, R)`, the sensitivity inflation and noise of output perturbation, the
//! calibration and release records, and the checks every black-box run
//! performs. The public items are re-exported from
//! [`crate::lowy_razaviyayn::black_box`].

use crate::inner::{Certificate, SolverOutput};
use crate::lowy_razaviyayn::prescriptions::validate_privacy;
use crate::output_perturbation::{ConceptualOutputPerturbation, SensitivityChoice};
use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};
use mechanisms::noise::{gaussian, l2_laplace};
use rand::Rng;

/// Whether the released point is projected onto `B(0, R)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Projection {
    /// Project iff the problem is non-smooth (`beta = inf`): the projected
    /// `A'` is what the non-smooth analyses use (digest P13), the smooth ones
    /// analyse the unprojected output.
    #[default]
    Auto,
    /// Always project (post-processing, still private).
    Always,
    /// Never project.
    Never,
}

impl Projection {
    /// True when the output is projected for a problem with these constants.
    pub fn applies(self, c: &ProblemConstants) -> bool {
        match self {
            Projection::Auto => !c.smoothness.is_finite(),
            Projection::Always => true,
            Projection::Never => false,
        }
    }
}

/// `Pi_{B(0, R)}(w) = w / max{1, ||w||/R}` in place (digest §1.1).
pub fn project_onto_ball(w: &mut [f64], radius: f64) {
    let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > radius {
        let scale = radius / norm;
        w.iter_mut().for_each(|v| *v *= scale);
    }
}

/// The inflated sensitivity of an `alpha`-accurate solver output,
/// `Delta_T = Delta + 2 sqrt(2 alpha / m)` (Prop 3.1; Algorithms 1, 6, 7 with
/// `m = mu` or `m = lambda`): strong convexity gives
/// `||w_T - w*|| <= sqrt(2 alpha / m)` on every data set.
pub fn inflated_sensitivity(sensitivity: f64, alpha: f64, modulus: f64) -> f64 {
    sensitivity + 2.0 * (2.0 * alpha / modulus).sqrt()
}

/// Releases `center + z` (optionally projected onto `B(0, radius)`) with
/// `z` drawn as in digest §2: l2-norm Laplace noise of scale `noise_scale =
/// Delta/eps` for `delta = 0` (Eq. 4), `N(0, noise_scale^2 I)` otherwise
/// (Eq. 5). Returns the release and `||z||^2`.
///
/// Errors: `RunFailure::InvalidParameters` for a negative or non-finite
/// scale or a radius that is not `> 0`, `RunFailure::NonFinite` for a non-finite output.
pub fn perturb<R: Rng + ?Sized>(
    center: &[f64],
    noise_scale: f64,
    privacy: PrivacyParams,
    radius: Option<f64>,
    rng: &mut R,
) -> Result<(Vec<f64>, f64), RunFailure> {
    if !(noise_scale.is_finite() && noise_scale >= 0.0) {
        return Err(RunFailure::InvalidParameters(format!(
            "noise scale must be finite and >= 0, got {noise_scale}"
        )));
    }
    if let Some(r) = radius {
        if r.is_nan() || r <= 0.0 {
            return Err(RunFailure::InvalidParameters(format!(
                "projection radius must be > 0, got {r}"
            )));
        }
    }
    let d = center.len();
    let z = if privacy.is_pure() {
        l2_laplace(d, noise_scale, rng)
    } else {
        gaussian(d, noise_scale, rng)
    };
    let noise_norm_sq: f64 = z.iter().map(|v| v * v).sum();
    let mut w: Vec<f64> = center.iter().zip(&z).map(|(c, v)| c + v).collect();
    if let Some(r) = radius {
        project_onto_ball(&mut w, r);
    }
    if !noise_norm_sq.is_finite() || w.iter().any(|v| !v.is_finite()) {
        return Err(RunFailure::NonFinite(format!(
            "output perturbation produced a non-finite release (scale = {noise_scale})"
        )));
    }
    Ok((w, noise_norm_sq))
}

/// One release of a black-box algorithm (Algorithms 1, 6, 7) with the
/// calibration that produced it and the inner solver's cost and guarantee.
#[derive(Debug, Clone, PartialEq)]
pub struct BlackBoxRelease {
    /// The released parameter (projected when `projected`).
    pub w: Vec<f64>,
    /// Sensitivity of the exact minimizer (`Delta_F`, or `Delta_lambda` for
    /// Algorithm 7).
    pub sensitivity: f64,
    /// Inflated sensitivity `Delta_T` that calibrated the noise.
    pub inflated_sensitivity: f64,
    /// `Delta_T/eps` (pure DP) or the Gaussian `sigma`.
    pub noise_scale: f64,
    /// Realised `||z||^2`.
    pub noise_norm_sq: f64,
    /// The target accuracy `alpha` used in `Delta_T` (0 for exact minimizers).
    pub alpha: f64,
    /// Gradient evaluations of the inner solver (a full gradient counts `n`).
    pub gradient_evaluations: u64,
    /// Iterations of the inner solver.
    pub iterations: u64,
    /// The inner solver's accuracy guarantee.
    pub certificate: Certificate,
    /// False when the accuracy holds only in expectation, so the privacy
    /// proof of Prop 3.1 does not apply as written (digest P1): such runs
    /// must not be reported as private.
    pub accuracy_holds_for_every_data_set: bool,
    /// Whether the output was projected onto `B(0, R)`.
    pub projected: bool,
}

/// The calibration of a black-box run, computable before running the solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlackBoxCalibration {
    /// Sensitivity of the exact minimizer.
    pub sensitivity: f64,
    /// Inflated sensitivity `Delta_T`.
    pub inflated_sensitivity: f64,
    /// Noise scale for `Delta_T` (digest §2).
    pub noise_scale: f64,
}

/// Rejects a target accuracy that is not finite and `> 0`.
pub(crate) fn check_alpha(alpha: f64) -> Result<(), RunFailure> {
    if alpha.is_finite() && alpha > 0.0 {
        Ok(())
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "alpha must be finite and > 0, got {alpha}"
        )))
    }
}

/// The strong-convexity modulus a black-box bound needs, finite and `> 0`.
pub(crate) fn check_modulus(name: &str, m: f64) -> Result<f64, RunFailure> {
    if m.is_finite() && m > 0.0 {
        Ok(m)
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "{name} must be finite and > 0 for a black-box release, got {m}"
        )))
    }
}

/// Checks that the solver reached the target `alpha` the noise was
/// calibrated for; the noise must use the data-independent `alpha`, never
/// the data-dependent certificate (digest P1).
pub(crate) fn check_certificate(certificate: &Certificate, alpha: f64) -> Result<(), RunFailure> {
    let bound = certificate.bound();
    if bound <= alpha {
        Ok(())
    } else {
        Err(RunFailure::NonConvergence(format!(
            "solver certified accuracy {bound}, above the calibrated alpha = {alpha}"
        )))
    }
}

/// The calibration of a black-box release for a `mu`-strongly convex problem
/// (Algorithms 1 and 6): `Delta` is the `choice` field of the problem's
/// minimizer sensitivity, `Delta_T = inflate(Delta, mu)`, and the noise scale
/// is that of `Delta_T` (`Delta_T/eps` or the ZWB `sigma`, digest §2).
///
/// Errors: `RunFailure::InvalidParameters` for invalid privacy parameters,
/// `alpha`, or `mu` not finite and positive.
pub(crate) fn calibrate_strongly_convex(
    problem: &dyn Objective,
    privacy: PrivacyParams,
    choice: SensitivityChoice,
    alpha: f64,
    inflate: impl FnOnce(f64, f64) -> f64,
) -> Result<BlackBoxCalibration, RunFailure> {
    validate_privacy(privacy)?;
    check_alpha(alpha)?;
    let mu = check_modulus("mu", problem.constants().strong_convexity)?;
    let sensitivity = choice.select(problem.minimizer_sensitivity());
    let inflated = inflate(sensitivity, mu);
    let noise_scale = ConceptualOutputPerturbation::noise_scale(inflated, privacy)?;
    Ok(BlackBoxCalibration {
        sensitivity,
        inflated_sensitivity: inflated,
        noise_scale,
    })
}

/// Perturbs a certified solver output with the calibrated noise (projecting
/// onto `B(0, radius)` when given) and records the release; shared by
/// Algorithms 1, 6 and 7.
pub(crate) fn release<R: Rng + ?Sized>(
    out: SolverOutput,
    cal: &BlackBoxCalibration,
    alpha: f64,
    privacy: PrivacyParams,
    radius: Option<f64>,
    rng: &mut R,
) -> Result<BlackBoxRelease, RunFailure> {
    let (w, noise_norm_sq) = perturb(&out.w, cal.noise_scale, privacy, radius, rng)?;
    Ok(BlackBoxRelease {
        w,
        sensitivity: cal.sensitivity,
        inflated_sensitivity: cal.inflated_sensitivity,
        noise_scale: cal.noise_scale,
        noise_norm_sq,
        alpha,
        gradient_evaluations: out.gradient_evaluations,
        iterations: out.iterations,
        certificate: out.certificate,
        accuracy_holds_for_every_data_set: out.certificate.holds_for_every_data_set(),
        projected: radius.is_some(),
    })
}
