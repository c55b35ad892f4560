//! "GD + output perturbation" \[ZZMW17\], the baseline of Lowy–Razaviyayn
//! Tables 3–6 for `H^ERM_{beta,mu,L,R}` (rate `L^2/mu kappa (d/(eps n))^2`,
//! runtime `O~(kappa n d)`).
//!
//! # Algorithm
//! Projected full-batch gradient descent from `w_0 = 0` with step
//! `eta = 1/beta`, `w_{t+1} = Pi_{B(0,R)}(w_t - eta grad F(w_t))`, for `T`
//! iterations, then `w_T + z` (no projection, as Thm 3.2) with `z` the
//! l2-Laplace (pure) or ZWB Gaussian (approximate) noise of
//! `ConceptualOutputPerturbation::noise_scale` calibrated to `Delta_T` below.
//! Since `||w*|| <= R`, the constrained minimizer over `B(0,R)` is `w*`.
//!
//! # Sensitivity of the T-th iterate (replace-one neighbours)
//! Assume every `f(., x)` is `L`-Lipschitz on `B(0,R)` (so `||grad f|| <= L`
//! there) and `F` is `mu`-strongly convex and `beta`-smooth on `B(0,R)`.
//! Let `X, X'` differ in record `i`, with iterates `w_t, w'_t` (both in
//! `B(0,R)` by the projection). For `eta <= 2/(beta + mu)` the gradient map
//! `G(w) = w - eta grad F(w)` is `(1 - eta mu)`-contractive on the convex set
//! `B(0,R)` (co-coercivity; for `eta = 1/beta`, `max{|1 - eta mu|,
//! |1 - eta beta|} = 1 - 1/kappa`), and `grad F(w) - grad F'(w) =
//! (grad f(w, x_i) - grad f(w, x'_i))/n` has norm `<= 2L/n` on `B(0,R)`.
//! Projection is 1-Lipschitz, so
//! `||w_{t+1} - w'_{t+1}|| <= ||G(w_t) - G(w'_t)|| + eta ||grad F(w'_t) -
//! grad F'(w'_t)|| <= (1 - eta mu) ||w_t - w'_t|| + 2 eta L/n`.
//! Unrolling from `w_0 = w'_0 = 0`:
//! `Delta_T = (2 eta L/n) sum_{t<T} (1 - eta mu)^t = 2L/(mu n) (1 - (1 -
//! 1/kappa)^T) <= 2L/(mu n)`, the value [`iterate_sensitivity`] returns.
//!
//! # Iterations
//! `||w_T - w*||^2 <= (1 - 1/kappa)^T R^2 <= e^{-T/kappa} R^2` and
//! `F(w_T) - F* <= beta/2 ||w_T - w*||^2`, so
//! `T = ceil(kappa ln(beta R^2/alpha))` gives `F(w_T) - F* <= alpha/2`, with
//! the target `alpha = L^2/(mu n^2) min{kappa s^2, 1}` of Thm 3.2 (digest
//! §3.8; `s = d/eps` or `s_delta`). Gradient evaluations: `T n`.

use crate::lowy_razaviyayn::bounds::s_factor;
use crate::output_perturbation::ConceptualOutputPerturbation;
use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};
use mechanisms::noise::{gaussian, l2_laplace};
use rand::Rng;

/// Configuration of the \[ZZMW17\] baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Zzmw17 {
    /// Number of GD iterations; `None` uses [`gd_iterations`] at the Thm 3.2
    /// target accuracy [`target_accuracy`].
    pub iterations: Option<usize>,
}

/// One release of the \[ZZMW17\] baseline with its calibration and cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Zzmw17Release {
    /// The released `w_T + z`.
    pub w: Vec<f64>,
    /// The non-private iterate `w_T`.
    pub iterate: Vec<f64>,
    /// GD iterations `T`.
    pub iterations: usize,
    /// Per-record gradient evaluations, `T n`.
    pub gradient_evaluations: u64,
    /// The sensitivity `Delta_T` calibrating the noise.
    pub sensitivity: f64,
    /// `Delta_T/eps` (pure) or the Gaussian `sigma`.
    pub noise_scale: f64,
    /// Realised `||z||^2`.
    pub noise_norm_sq: f64,
}

/// `Delta_T = 2L/(mu n) (1 - (1 - 1/kappa)^T)` (module doc), computed as
/// `-2L/(mu n) expm1(T ln_1p(-1/kappa))` to stay accurate for large `kappa`.
pub fn iterate_sensitivity(c: &ProblemConstants, n: usize, iterations: usize) -> f64 {
    let inv_kappa = 1.0 / c.condition_number();
    let shrink = (iterations as f64 * (-inv_kappa).ln_1p()).exp_m1();
    -2.0 * c.lipschitz / (c.strong_convexity * n as f64) * shrink
}

/// The Thm 3.2 target accuracy `alpha = L^2/(mu n^2) min{kappa s^2, 1}`
/// (digest §3.8); `NaN` for invalid privacy.
pub fn target_accuracy(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let s = s_factor(d, privacy);
    let nf = n as f64;
    c.lipschitz * c.lipschitz / (c.strong_convexity * nf * nf)
        * (c.condition_number() * s * s).min(1.0)
}

/// `T = ceil(kappa ln(beta R^2/alpha))`, at least 1 (module doc).
pub fn gd_iterations(c: &ProblemConstants, alpha: f64) -> f64 {
    let log = (c.smoothness * c.radius * c.radius / alpha).ln().max(0.0);
    (c.condition_number() * log).ceil().max(1.0)
}

/// Projects `w` onto `B(0, radius)` in place.
fn project(w: &mut [f64], radius: f64) {
    let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > radius {
        let s = radius / norm;
        w.iter_mut().for_each(|v| *v *= s);
    }
}

/// Projected GD `w_{t+1} = Pi_{B(0,R)}(w_t - grad F(w_t)/beta)` from `0` for
/// `iterations` steps (module doc), using `problem.gradient` and its
/// constants. Errors: `NonFinite` if an iterate is not finite.
pub fn projected_gd(problem: &dyn Objective, iterations: usize) -> Result<Vec<f64>, RunFailure> {
    let c = problem.constants();
    let d = problem.dim();
    let eta = 1.0 / c.smoothness;
    let mut w = vec![0.0; d];
    let mut g = vec![0.0; d];
    for t in 0..iterations {
        problem.gradient(&w, &mut g);
        w.iter_mut().zip(&g).for_each(|(wj, gj)| *wj -= eta * gj);
        project(&mut w, c.radius);
        if w.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite(format!(
                "GD iterate {t} is not finite"
            )));
        }
    }
    Ok(w)
}

impl Zzmw17 {
    /// Runs GD and releases `w_T + z` (module doc).
    ///
    /// Errors: `InvalidParameters` for invalid privacy parameters, for
    /// constants outside `0 < mu <= beta < inf`, `L > 0`, `R > 0`, or for an
    /// iteration count that does not fit in `usize`; `NonFinite` for a
    /// non-finite iterate or release.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<Zzmw17Release, RunFailure> {
        let c = problem.constants();
        let (n, d) = (problem.num_records(), problem.dim());
        let ok = c.strong_convexity > 0.0
            && c.strong_convexity <= c.smoothness
            && c.smoothness.is_finite()
            && c.lipschitz > 0.0
            && c.lipschitz.is_finite()
            && c.radius > 0.0
            && c.radius.is_finite();
        if !ok || n == 0 || d == 0 {
            return Err(RunFailure::InvalidParameters(format!(
                "ZZMW17 needs 0 < mu <= beta < inf, finite L, R > 0 and n, d >= 1; got {c:?}, n = {n}, d = {d}"
            )));
        }
        let iterations = match self.iterations {
            Some(t) => t,
            None => {
                let t = gd_iterations(&c, target_accuracy(&c, n, d, privacy));
                if !(t.is_finite() && t < 1e12) {
                    return Err(RunFailure::InvalidParameters(format!(
                        "ZZMW17 iteration count {t} is not usable (privacy {privacy:?})"
                    )));
                }
                t as usize
            }
        };
        let sensitivity = iterate_sensitivity(&c, n, iterations);
        let noise_scale = ConceptualOutputPerturbation::noise_scale(sensitivity, privacy)?;
        let iterate = projected_gd(problem, iterations)?;
        let z = if privacy.is_pure() {
            l2_laplace(d, noise_scale, rng)
        } else {
            gaussian(d, noise_scale, rng)
        };
        let noise_norm_sq: f64 = z.iter().map(|v| v * v).sum();
        let w: Vec<f64> = iterate.iter().zip(&z).map(|(a, b)| a + b).collect();
        if !noise_norm_sq.is_finite() || w.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite("ZZMW17 release is not finite".into()));
        }
        Ok(Zzmw17Release {
            w,
            iterate,
            iterations,
            gradient_evaluations: iterations as u64 * n as u64,
            sensitivity,
            noise_scale,
            noise_norm_sq,
        })
    }
}
