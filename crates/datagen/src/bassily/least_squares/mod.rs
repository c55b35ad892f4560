//! Least squares on the GLM design, digest §6 E2-LS (Theorems 3.2, 5.3, 5.7;
//! Lemmas 3.3, 3.4), fully closed form.
//!
//! Model `y = <theta*, x> + xi`, `xi ~ Unif[-b, b]`, `theta* = a e_1`, features
//! of [`super::glm`]. Loss `l(w, (x, y)) = (<w, x> - y)^2 / 2` on
//! `W = B(0, M)`, with rank-one Hessian `x x^T` (Assumption 5.1) and
//! `beta_std = ||x||^2 = 1`. Lipschitz constant on `W`:
//! `||grad|| = |<w, x> - y| ||x|| <= M + a/sqrt2 + b`, because `||x|| = 1`,
//! `|<w, x>| <= M` and `|<theta*, x>| = a |x_1| = a/sqrt2` exactly; the value
//! is attained in the limit (`w = M x`, `s = -1`, `xi -> -b`), so it is the
//! tight constant (the digest's `M + a + b` is a valid, looser bound).
//!
//! Empirical objective `F(w) = 1/2 w^T S w - c^T w + const` with
//! `S = X^T X / n`, `c = X^T y / n`; the minimizer over `W` and the exact
//! objective-perturbation minimizer `argmin_W F + <b, w> + lambda ||w||^2`
//! (`S + 2 lambda I`, `c - b`) come from
//! [`super::ball_quadratic::minimize_quadratic_on_ball`]. The excess is the
//! exact quadratic identity `F(w) - F(w*) = 1/2 d^T S d + g*.d`, `d = w - w*`,
//! `g* = S w* - c` (`= -mu w*` at the KKT point), never `F(w) - F*`.
//!
//! Population: `L(w) = 1/2 (w - theta*)^T Sigma (w - theta*) + b^2/6`
//! (`E xi^2 = b^2/3`), minimized over `W` at `theta*` when `a <= M`.
//! Minimizer sensitivity: no bound in the digest; the diameter `2M` is reported.

mod params;

pub use params::LeastSquaresGlmParams;

use super::ball_quadratic::minimize_quadratic_on_ball;
use super::glm::{covariance_quadratic_form, GlmDesign};
use crate::linalg::{add_outer_lower, symmetrize_lower};
use crate::numerics::{dot, CompensatedSum, CompensatedVec};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants, RunFailure};
use params::FAMILY;
use rand::{Rng, RngExt};
use std::f64::consts::FRAC_1_SQRT_2;

/// A sampled least-squares GLM with its exact constrained minimizer.
#[derive(Debug, Clone)]
pub struct LeastSquaresGlm {
    params: LeastSquaresGlmParams,
    data: GlmDesign,
    /// `S = X^T X / n`, row-major, symmetric.
    second_moment: Vec<f64>,
    /// `c = X^T y / n`.
    cross_moment: Vec<f64>,
    w_star: Vec<f64>,
    /// `g* = S w* - c`.
    grad_star: Vec<f64>,
    multiplier: f64,
}

impl LeastSquaresGlm {
    /// Samples the data, forms `S` and `c`, and solves for `w*` exactly.
    ///
    /// # Errors
    /// `InvalidParameters` from [`LeastSquaresGlmParams::validate`];
    /// `NonConvergence` if the secular equation cannot be resolved.
    pub fn generate<R: Rng + ?Sized>(
        params: LeastSquaresGlmParams,
        rng: &mut R,
    ) -> Result<Self, RunFailure> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        let (a, b) = (params.signal, params.noise);
        let data = GlmDesign::sample(n, d, rng, |s, r| {
            let xi = if b > 0.0 { r.random_range(-b..=b) } else { 0.0 };
            a * s * FRAC_1_SQRT_2 + xi
        });
        let mut second_moment = vec![0.0; d * d];
        let mut cross = CompensatedVec::zeros(d);
        for (x, y) in data.iter() {
            add_outer_lower(&mut second_moment, 1.0, x);
            cross.add_scaled(y, x);
        }
        second_moment.iter_mut().for_each(|v| *v /= n as f64);
        symmetrize_lower(&mut second_moment, d);
        let cross_moment: Vec<f64> = cross.total().iter().map(|v| v / n as f64).collect();
        let sol = minimize_quadratic_on_ball(&second_moment, &cross_moment, params.radius)
            .map_err(|e| RunFailure::NonConvergence(format!("{FAMILY}: {e}")))?;
        let mut me = Self {
            params,
            data,
            second_moment,
            cross_moment,
            w_star: sol.point,
            grad_star: vec![0.0; d],
            multiplier: sol.multiplier,
        };
        me.grad_star = me.quadratic_gradient(&me.w_star, 0.0);
        Ok(me)
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &LeastSquaresGlmParams {
        &self.params
    }

    /// The records.
    pub fn data(&self) -> &GlmDesign {
        &self.data
    }

    /// The ball-constraint multiplier `mu >= 0`: `grad F(w*) = -mu w*`.
    pub fn multiplier(&self) -> f64 {
        self.multiplier
    }

    /// Population minimizer `theta* = a e_1`.
    pub fn population_minimizer(&self) -> Vec<f64> {
        let mut t = vec![0.0; self.params.d];
        t[0] = self.params.signal;
        t
    }

    /// `(S + shift I) w - c`.
    fn quadratic_gradient(&self, w: &[f64], shift: f64) -> Vec<f64> {
        let d = self.params.d;
        self.second_moment
            .chunks_exact(d)
            .zip(&self.cross_moment)
            .zip(w)
            .map(|((row, cj), wj)| dot(row, w) + shift * wj - cj)
            .collect()
    }
}

impl Objective for LeastSquaresGlm {
    // GLM: the Hessian of a record is x x^T, rank one (Assumption 5.1).
    fn rank_one_hessians(&self) -> bool {
        true
    }

    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `(1/(2n)) sum_i (<w, x_i> - y_i)^2` (compensated), O(nd).
    fn value(&self, w: &[f64]) -> f64 {
        let mut s = CompensatedSum::default();
        self.data.iter().for_each(|(x, y)| {
            let r = dot(w, x) - y;
            s.add(r * r);
        });
        0.5 * s.total() / self.params.n as f64
    }

    /// `S w - c`, O(d^2).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        out.copy_from_slice(&self.quadratic_gradient(w, 0.0));
    }

    /// `L = M + a/sqrt2 + b` (tight, module docs), `beta_std = 1`, radius `M`.
    fn constants(&self) -> ProblemConstants {
        let p = &self.params;
        ProblemConstants {
            lipschitz: p.radius + p.signal * FRAC_1_SQRT_2 + p.noise,
            smoothness: 1.0,
            strong_convexity: 0.0,
            radius: p.radius,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `1/2 d^T S d + g*.d`, `d = w - w*` (exact identity; both terms `>= 0`
    /// up to rounding on `W`, since `g* = -mu w*`).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let delta: Vec<f64> = w.iter().zip(&self.w_star).map(|(a, b)| a - b).collect();
        let d = self.params.d;
        let quad: f64 = self
            .second_moment
            .chunks_exact(d)
            .zip(&delta)
            .map(|(row, dj)| dj * dot(row, &delta))
            .sum();
        0.5 * quad + dot(&self.grad_star, &delta)
    }

    /// Diameter `2M` for both (no bound in the digest).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let diam = 2.0 * self.params.radius;
        MinimizerSensitivity {
            tight: diam,
            paper: diam,
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `1/2 (w - theta*)^T Sigma (w - theta*)`.
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        let mut diff = w.to_vec();
        diff[0] -= self.params.signal;
        Some(0.5 * covariance_quadratic_form(&diff))
    }

    /// `1/2 (w - theta*)^T Sigma (w - theta*) + b^2/6`.
    fn population_loss(&self, w: &[f64]) -> Option<f64> {
        let b = self.params.noise;
        Some(self.population_excess(w)? + b * b / 6.0)
    }

    /// `argmin_W F + <b, w> + lambda ||w||^2`: the ball quadratic with
    /// `S + 2 lambda I` and `c - b`, exact to machine precision. `None` for
    /// `lambda < 0`, a non-finite `lambda`, a `b` of the wrong length, or an
    /// unresolved secular equation.
    fn perturbed_minimizer(&self, b: &[f64], lambda: f64) -> Option<Vec<f64>> {
        let d = self.params.d;
        if b.len() != d || !(lambda.is_finite() && lambda >= 0.0) {
            return None;
        }
        let mut a = self.second_moment.clone();
        (0..d).for_each(|j| a[j * d + j] += 2.0 * lambda);
        let c: Vec<f64> = self
            .cross_moment
            .iter()
            .zip(b)
            .map(|(c, bj)| c - bj)
            .collect();
        minimize_quadratic_on_ball(&a, &c, self.params.radius)
            .ok()
            .map(|s| s.point)
    }
}

impl FiniteSum for LeastSquaresGlm {
    /// `(<w, x_i> - y_i) x_i`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let x = self.data.features(i);
        let r = dot(w, x) - self.data.response(i);
        out.iter_mut().zip(x).for_each(|(o, xj)| *o = r * xj);
    }

    fn prefetch_record(&self, i: usize) {
        self.data.prefetch(i);
    }
}
