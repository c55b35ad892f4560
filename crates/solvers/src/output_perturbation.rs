//! Conceptual output perturbation of Lowy & Razaviyayn, Eq. (2):
//! `w_A(X) = w*(X) + z` with the exact minimizer and **no projection**, the
//! variant analysed for the smooth classes (Prop 2.4, Cor 2.2; digest §3.0).
//!
//! Noise (digest §2): `delta = 0` draws `z` with density proportional to
//! `exp(-eps ||z|| / Delta)` (Eq. 4); `delta > 0` draws `z ~ N(0, sigma^2 I)`
//! with the Zhao et al. (2019) scale (Eq. 5).

use dpcore::{MinimizerSensitivity, Objective, PrivacyParams, ProblemConstants, RunFailure};
use mechanisms::calibration::{l2_laplace_scale, lowy_c_delta, zwb_gaussian_sigma};
use mechanisms::noise::{gaussian, l2_laplace};
use rand::Rng;

/// Which upper bound on the minimizer's L2-sensitivity calibrates the noise.
///
/// Both are valid upper bounds, hence both releases are private (digest §1.4,
/// P5); record which one a run used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SensitivityChoice {
    /// The instance-tight bound (`MinimizerSensitivity::tight`, e.g. `2/n`
    /// for a mean of points in the unit ball).
    Tight,
    /// The paper's generic `2L/(mu n)` (Prop 2.2), which reproduces the
    /// theorem constants.
    Paper,
}

impl SensitivityChoice {
    /// The field of `s` this choice selects.
    pub fn select(self, s: MinimizerSensitivity) -> f64 {
        match self {
            SensitivityChoice::Tight => s.tight,
            SensitivityChoice::Paper => s.paper,
        }
    }
}

/// One private release with the calibration that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Release {
    /// The released parameter `w = w* + z`.
    pub w: Vec<f64>,
    /// The sensitivity `Delta` used for calibration.
    pub sensitivity: f64,
    /// Noise scale: `Delta / eps` (pure DP, Gamma-radius scale) or `sigma`
    /// (Gaussian standard deviation per coordinate).
    pub noise_scale: f64,
    /// Realised `||z||^2`.
    pub noise_norm_sq: f64,
}

/// The conceptual (exact-minimizer) output-perturbation mechanism, Eq. (2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConceptualOutputPerturbation {
    /// Which sensitivity bound calibrates the noise.
    pub sensitivity: SensitivityChoice,
}

fn invalid<E: std::fmt::Display>(e: E) -> RunFailure {
    RunFailure::InvalidParameters(e.to_string())
}

/// Rejects `delta` that is negative, NaN, or not below 1/2 before any
/// calibration (`delta = 0` means pure DP).
pub(crate) fn check_delta(privacy: PrivacyParams) -> Result<(), RunFailure> {
    if privacy.delta == 0.0 || (privacy.delta > 0.0 && privacy.delta < 0.5) {
        Ok(())
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "delta must be 0 or in (0, 1/2), got {}",
            privacy.delta
        )))
    }
}

/// `centre + z` with `z` calibrated to `sensitivity` ([`ConceptualOutputPerturbation::noise_scale`]).
fn perturb<R: Rng + ?Sized>(
    centre: &[f64],
    sensitivity: f64,
    privacy: PrivacyParams,
    rng: &mut R,
) -> Result<Release, RunFailure> {
    let d = centre.len();
    let noise_scale = ConceptualOutputPerturbation::noise_scale(sensitivity, privacy)?;
    let z = if privacy.is_pure() {
        l2_laplace(d, noise_scale, rng)
    } else {
        gaussian(d, noise_scale, rng)
    };
    let noise_norm_sq: f64 = z.iter().map(|v| v * v).sum();
    let w: Vec<f64> = centre.iter().zip(&z).map(|(m, v)| m + v).collect();
    if !noise_norm_sq.is_finite() || w.iter().any(|v| !v.is_finite()) {
        return Err(RunFailure::NonFinite(format!(
            "output perturbation produced a non-finite release (Delta = {sensitivity}, scale = {noise_scale})"
        )));
    }
    Ok(Release {
        w,
        sensitivity,
        noise_scale,
        noise_norm_sq,
    })
}

/// Output perturbation of a *certified approximate* minimizer (the
/// implemented counterpart of [`ConceptualOutputPerturbation`], Algorithm 1's
/// release rule with the accuracy stated as a gradient norm): the centre
/// `w_hat` of every data set satisfies `||grad F(w_hat)|| <= gradient_target`,
/// hence `||w_hat - w*|| <= gradient_target / mu` (mu-strong convexity,
/// digest P1 (b)), and the released centre's sensitivity is at most
/// `Delta + 2 gradient_target / mu` (Prop 3.1 with
/// `alpha = gradient_target^2 / (2 mu)`: `2 sqrt(2 alpha / mu)` is the same
/// widening).
///
/// The widening uses the certified *target*, a public constant, never the
/// achieved gradient norm (which depends on the data); a centre whose
/// certificate misses the target is refused.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CertifiedOutputPerturbation {
    /// Which sensitivity bound of the exact minimizer is widened.
    pub sensitivity: SensitivityChoice,
    /// The gradient norm every centre is certified to, e.g. `1e-10`.
    pub gradient_target: f64,
}

impl CertifiedOutputPerturbation {
    /// `Delta + 2 gradient_target / mu`: the sensitivity of a centre certified
    /// to `gradient_target` on a `mu`-strongly convex objective.
    pub fn widened_sensitivity(&self, exact: MinimizerSensitivity, mu: f64) -> f64 {
        self.sensitivity.select(exact) + self.widening(mu)
    }

    /// `2 gradient_target / mu`, the widening alone.
    pub fn widening(&self, mu: f64) -> f64 {
        2.0 * self.gradient_target / mu
    }

    /// Releases `problem.minimizer() + z`, where `problem.minimizer()` is the
    /// certified centre and `certified_gradient_norm` its certificate
    /// `||grad F||`, with `z` calibrated to [`Self::widened_sensitivity`].
    ///
    /// Errors: `InvalidParameters` for a target that is not finite and
    /// positive or invalid privacy parameters; `NonConvergence` when the
    /// certificate exceeds the target (releasing it would not be private at
    /// the widened scale); `NonFinite` for a non-finite release.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        certified_gradient_norm: f64,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<Release, RunFailure> {
        if !(self.gradient_target.is_finite() && self.gradient_target > 0.0) {
            return Err(invalid(format!(
                "gradient target must be finite and > 0, got {}",
                self.gradient_target
            )));
        }
        if certified_gradient_norm.is_nan() || certified_gradient_norm > self.gradient_target {
            return Err(RunFailure::NonConvergence(format!(
                "certificate ||grad F|| = {certified_gradient_norm:.3e} above the target {:.3e}",
                self.gradient_target
            )));
        }
        let mu = problem.constants().strong_convexity;
        let sensitivity = self.widened_sensitivity(problem.minimizer_sensitivity(), mu);
        perturb(problem.minimizer(), sensitivity, privacy, rng)
    }
}

impl ConceptualOutputPerturbation {
    /// Noise scale for sensitivity `Delta`: `Delta/eps` when `delta = 0`
    /// (Eq. 4), else `sigma = (c_delta + sqrt(c_delta^2 + eps)) Delta / (sqrt 2 eps)`
    /// (Eq. 5). Calibration errors become `RunFailure::InvalidParameters`.
    pub fn noise_scale(sensitivity: f64, privacy: PrivacyParams) -> Result<f64, RunFailure> {
        check_delta(privacy)?;
        if privacy.is_pure() {
            l2_laplace_scale(privacy.eps, sensitivity).map_err(invalid)
        } else {
            zwb_gaussian_sigma(privacy.eps, privacy.delta, sensitivity).map_err(invalid)
        }
    }

    /// Releases `w*(X) + z` with `z` calibrated to the chosen sensitivity.
    ///
    /// Errors: invalid privacy parameters or sensitivity give
    /// `RunFailure::InvalidParameters`; a non-finite output gives
    /// `RunFailure::NonFinite`.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<Release, RunFailure> {
        let sensitivity = self.sensitivity.select(problem.minimizer_sensitivity());
        perturb(problem.minimizer(), sensitivity, privacy, rng)
    }

    /// `E||z||^2` of the noise: `d(d+1) Delta^2 / eps^2` for the l2-Laplace
    /// noise (Lemma B.3) and `d sigma^2` for the Gaussian (digest §2).
    pub fn expected_noise_sq_norm(
        d: usize,
        sensitivity: f64,
        privacy: PrivacyParams,
    ) -> Result<f64, RunFailure> {
        let scale = Self::noise_scale(sensitivity, privacy)?;
        let df = d as f64;
        Ok(if privacy.is_pure() {
            df * (df + 1.0) * scale * scale
        } else {
            df * scale * scale
        })
    }

    /// Exact expected excess risk `E[F(w* + z) - F*] = tr(H) E||z||^2 / (2d)`
    /// for quadratics with constant Hessian `H` and isotropic `z` (digest §8
    /// E1; equality case of Prop 2.4 for `H = beta I`). `None` when the problem
    /// is not such a quadratic or the parameters are invalid.
    pub fn exact_expected_excess(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
    ) -> Option<f64> {
        let trace = problem.hessian_trace()?;
        let d = problem.dim();
        let sensitivity = self.sensitivity.select(problem.minimizer_sensitivity());
        let e_sq = Self::expected_noise_sq_norm(d, sensitivity, privacy).ok()?;
        Some(trace * e_sq / (2.0 * d as f64))
    }

    /// Cor 2.2 (H^ERM class) with the digest's correction of Prop 2.4(b)
    /// (the factor d, erratum P8):
    ///
    /// * `delta = 0`: `4 kappa L^2/mu (d/(eps n))^2`;
    /// * `delta > 0`: `4 kappa L^2/mu d (c_delta + sqrt(c_delta^2 + eps))^2 / (eps n)^2`.
    ///
    /// The bound is proven for the paper's `Delta = 2L/(mu n)`; the noise
    /// scale is increasing in `Delta`, so it also holds for the (smaller)
    /// instance-tight `Delta`. It does not depend on `self.sensitivity`.
    /// `None` for invalid privacy parameters (`eps <= 0`, `delta` outside
    /// `{0} U (0, 1/2)`) and where the formula is undefined: `kappa L^2/mu`
    /// is 0/0 on a family without curvature or smoothness (`mu = beta = 0`,
    /// e.g. the linear `lin_ball`), where Cor 2.2 does not apply. An infinite
    /// value (`mu = 0 < beta`) is kept: the bound is vacuous, not undefined.
    pub fn theorem_bound(
        &self,
        constants: &ProblemConstants,
        n: usize,
        d: usize,
        privacy: PrivacyParams,
    ) -> Option<f64> {
        let eps = privacy.eps;
        if !(eps.is_finite() && eps > 0.0) || check_delta(privacy).is_err() {
            return None;
        }
        let (l, mu) = (constants.lipschitz, constants.strong_convexity);
        let kappa = constants.condition_number();
        let (df, en) = (d as f64, eps * n as f64);
        let prefactor = 4.0 * kappa * l * l / mu;
        let bound = if privacy.is_pure() {
            prefactor * (df / en).powi(2)
        } else {
            let c = lowy_c_delta(privacy.delta).ok()?;
            let k = c + (c * c + eps).sqrt();
            prefactor * df * k * k / (en * en)
        };
        (!bound.is_nan()).then_some(bound)
    }
}
