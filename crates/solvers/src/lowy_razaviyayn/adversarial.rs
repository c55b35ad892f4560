//! Differentially private adversarial training of Lowy & Razaviyayn
//! (digest §3 Algorithms 5 and 6, §4.5 Prop 5.1 and Thm 5.3, §5.2, erratum P3).
//!
//! The problem passed in is the robust objective
//! `G_D(w) = max_v F(w, X + v, y)` itself (e.g. digest §8 E7, where the inner
//! max has a closed form): by Lemma 5.4 it is `mu`-strongly convex and
//! `L`-Lipschitz, so its minimizer has sensitivity `Delta <= 2L/(mu n)`, and
//! output perturbation applies to it as to any `F`-class objective.

use crate::inner::{Certificate, SolverOutput};
use crate::lowy_razaviyayn::black_box::ConceptualProjectedOutputPerturbation;
use crate::lowy_razaviyayn::prescriptions::{alpha_thm_5_3, Setting};
use crate::lowy_razaviyayn::release::{
    calibrate_strongly_convex, check_alpha, check_certificate, check_modulus, inflated_sensitivity,
    release, BlackBoxCalibration, BlackBoxRelease,
};
use crate::output_perturbation::{Release, SensitivityChoice};
use dpcore::{Objective, PrivacyParams, RunFailure};
use rand::Rng;

/// Algorithm 5 (conceptual): `Pi_{B(0,R)}(w*(D) + z)` with the exact
/// minimizer of `G_D` and `Delta` = the problem's minimizer sensitivity
/// (Prop 5.1). This is `A'` (Eq. 3) applied to `G_D`.
pub fn algorithm5<R: Rng + ?Sized>(
    problem: &dyn Objective,
    privacy: PrivacyParams,
    sensitivity: SensitivityChoice,
    rng: &mut R,
) -> Result<Release, RunFailure> {
    ConceptualProjectedOutputPerturbation { sensitivity }.run(problem, privacy, rng)
}

/// The sensitivity inflation of Algorithm 6 for an `alpha`-accurate `w_T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Inflation {
    /// `Delta_T = Delta + 2 sqrt(2 alpha/mu)` (Prop 3.1; erratum P3). The default.
    #[default]
    Corrected,
    /// The printed `delta > 0` line of Algorithm 6, `Delta_T = Delta + 2 alpha/mu`
    /// (erratum P3): not a valid bound on `||w_T(D) - w_T(D')||` when
    /// `alpha < 2 mu`. For `delta = 0` the paper prints the corrected form,
    /// which this variant then uses.
    Paper,
}

impl Inflation {
    /// `Delta_T` for minimizer sensitivity `Delta`, accuracy `alpha` and
    /// strong convexity `mu`.
    pub fn inflate(self, sensitivity: f64, alpha: f64, mu: f64, privacy: PrivacyParams) -> f64 {
        match self {
            Inflation::Paper if !privacy.is_pure() => sensitivity + 2.0 * alpha / mu,
            _ => inflated_sensitivity(sensitivity, alpha, mu),
        }
    }
}

/// Default iteration cap of [`certified_gradient_descent`].
pub const DEFAULT_MAX_ITERATIONS: u64 = 100_000;

/// Armijo sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;
/// Halvings of the step before the line search gives up.
const MAX_BACKTRACKS: usize = 200;
/// Relative slack for comparing objective values at the level of rounding.
const ROUNDOFF: f64 = 64.0 * f64::EPSILON;

fn norm_sq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

/// Full-batch gradient descent with Armijo backtracking from `w_0 = 0`,
/// stopping when `||grad G(w)|| <= sqrt(2 mu alpha)`. By `mu`-strong convexity
/// (for any subgradient) this certifies `G(w) - min G <= ||grad||^2/(2 mu) <= alpha`
/// and hence `||w - w*|| <= sqrt(2 alpha/mu)` on every data set (digest P1 (b);
/// Algorithm 6 accepts any solver that certifies its accuracy, digest §3).
///
/// `G_D` of E7 is differentiable away from `w = 0` but has no finite global
/// smoothness, so Katyusha/AGD do not apply. The first trial step is `1/beta`
/// when `beta` is finite, else `1/mu`; each accepted step doubles the next
/// trial step. Near the optimum, where Armijo's value comparison is lost in
/// rounding, a step is also accepted if the value does not rise beyond
/// rounding and the gradient norm decreases (the certificate depends only on
/// the final gradient norm, so acceptance affects speed, never validity).
///
/// Counts `n` gradient evaluations per full gradient (value evaluations,
/// also `O(nd)` each, are not counted). Errors:
/// `RunFailure::NonConvergence` after `max_iterations` steps or a failed line
/// search, `RunFailure::NonFinite` on a non-finite value or gradient,
/// `RunFailure::InvalidParameters` for `alpha` or `mu` not finite and positive.
pub fn certified_gradient_descent(
    problem: &dyn Objective,
    alpha: f64,
    max_iterations: u64,
) -> Result<SolverOutput, RunFailure> {
    check_alpha(alpha)?;
    let c = problem.constants();
    let mu = check_modulus("mu", c.strong_convexity)?;
    let (d, n) = (problem.dim(), problem.num_records() as u64);
    let tol = (2.0 * mu * alpha).sqrt();
    let mut step = if c.smoothness.is_finite() && c.smoothness > 0.0 {
        1.0 / c.smoothness
    } else {
        1.0 / mu
    };
    let mut w = vec![0.0; d];
    let mut g = vec![0.0; d];
    let mut w_new = vec![0.0; d];
    let mut g_new = vec![0.0; d];
    problem.gradient(&w, &mut g);
    let mut evaluations = n;
    let mut f = problem.value(&w);
    for iteration in 0..=max_iterations {
        let gn2 = norm_sq(&g);
        if !(gn2.is_finite() && f.is_finite()) {
            return Err(RunFailure::NonFinite(format!(
                "certified gradient descent: G = {f}, ||grad||^2 = {gn2} at iteration {iteration}"
            )));
        }
        if gn2.sqrt() <= tol {
            return Ok(SolverOutput {
                w,
                gradient_evaluations: evaluations,
                iterations: iteration,
                certificate: Certificate::GradientNorm {
                    norm: gn2.sqrt(),
                    bound: gn2 / (2.0 * mu),
                },
            });
        }
        if iteration == max_iterations {
            break;
        }
        let mut accepted = None;
        for _ in 0..MAX_BACKTRACKS {
            for ((wn, wi), gi) in w_new.iter_mut().zip(&w).zip(&g) {
                *wn = wi - step * gi;
            }
            let f_new = problem.value(&w_new);
            let armijo = f_new <= f - ARMIJO * step * gn2;
            let level = f_new <= f + ROUNDOFF * f.abs().max(f_new.abs());
            if armijo || level {
                problem.gradient(&w_new, &mut g_new);
                evaluations += n;
                if armijo || norm_sq(&g_new) < gn2 {
                    accepted = Some(f_new);
                    break;
                }
            }
            step *= 0.5;
        }
        let Some(f_new) = accepted else {
            return Err(RunFailure::NonConvergence(format!(
                "certified gradient descent: line search failed at iteration {iteration} \
                 (||grad|| = {}, target {tol})",
                gn2.sqrt()
            )));
        };
        std::mem::swap(&mut w, &mut w_new);
        std::mem::swap(&mut g, &mut g_new);
        f = f_new;
        step *= 2.0;
    }
    Err(RunFailure::NonConvergence(format!(
        "certified gradient descent: ||grad|| > sqrt(2 mu alpha) = {tol} after {max_iterations} iterations"
    )))
}

/// Algorithm 6 (black box): an `alpha`-accurate minimizer of `G_D` from
/// [`certified_gradient_descent`], noise calibrated to the inflated
/// sensitivity, output projected onto `B(0, R)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdversarialOutputPerturbation {
    /// Which field of `minimizer_sensitivity()` is `Delta` (paper: `2L/(mu n)`).
    pub sensitivity: SensitivityChoice,
    /// Target accuracy `alpha` of `G_D(w_T) - min G_D`.
    pub alpha: f64,
    /// Sensitivity inflation (erratum P3).
    pub inflation: Inflation,
    /// Iteration cap of the solver.
    pub max_iterations: u64,
}

impl AdversarialOutputPerturbation {
    /// Algorithm 6 with Thm 5.3's `alpha = L^2/(mu n^2) min{kappa s^2, 1}`
    /// ([`alpha_thm_5_3`]), the corrected inflation and the default cap.
    pub fn prescribed(
        problem: &dyn Objective,
        privacy: PrivacyParams,
        sensitivity: SensitivityChoice,
    ) -> Result<Self, RunFailure> {
        let c = problem.constants();
        let alpha = alpha_thm_5_3(&c, &Setting::of(problem, privacy))?;
        Ok(Self {
            sensitivity,
            alpha,
            inflation: Inflation::Corrected,
            max_iterations: DEFAULT_MAX_ITERATIONS,
        })
    }

    /// `Delta`, `Delta_T` (per `inflation`) and the noise scale (digest §2).
    pub fn calibrate(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
    ) -> Result<BlackBoxCalibration, RunFailure> {
        calibrate_strongly_convex(problem, privacy, self.sensitivity, self.alpha, |d, mu| {
            self.inflation.inflate(d, self.alpha, mu, privacy)
        })
    }

    /// Runs Algorithm 6 once; the release is always projected.
    ///
    /// Errors: as [`Self::calibrate`] and [`certified_gradient_descent`].
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<BlackBoxRelease, RunFailure> {
        let cal = self.calibrate(problem, privacy)?;
        let out = certified_gradient_descent(problem, self.alpha, self.max_iterations)?;
        check_certificate(&out.certificate, self.alpha)?;
        let radius = problem.constants().radius;
        release(out, &cal, self.alpha, privacy, Some(radius), rng)
    }
}
