//! Well-specified logistic regression on the GLM design, digest §6 E2-Logit
//! (Theorems 3.2, 5.3, 5.7; Lemmas 3.3, 3.4).
//!
//! `P(y = +1 | x) = sigmoid(<theta*, x>)`, `theta* = a e_1`, features of
//! [`super::glm`]. Loss `softplus(-y <w, x>)` (stable form, digest P19) on
//! `W = B(0, M)`, `M >= a`: `L = ||x|| = 1`, `beta_std = ||x||^2/4 = 1/4`,
//! rank-one Hessian.
//!
//! **Population** (well specified, so the minimizer over `W` is `theta*`):
//! with `u = <w, x>` and `u* = <theta*, x> = a s/sqrt2`, the conditional risk
//! `h(u) = sigmoid(u*) softplus(-u) + (1 - sigmoid(u*)) softplus(u)` satisfies
//! `h(u) - h(u*) = softplus(u) - softplus(u*) - sigmoid(u*)(u - u*)`, the
//! softplus Bregman divergence [`softplus_bregman`]`(u*, <w - theta*, x>)`.
//! Its expectation over `x` is a deterministic quadrature
//! ([`super::glm::feature_expectation`], ~1e-13 relative) and the minimum is
//! the binary entropy `h(u*) = softplus(a/sqrt2) - sigmoid(a/sqrt2) a/sqrt2`
//! (the same for both signs of `s`), in closed form.
//!
//! **Empirical minimizer** over `W`: [`ball_newton::minimize_on_ball`], a
//! Newton method certified by the KKT residual `||grad F(w*) + mu w*|| <= 1e-12`.
//!
//! **Excess risk**: with `v_i = -y_i <w*, x_i>` and `e_i = -y_i <w - w*, x_i>`,
//! `F(w) - F(w*) = (1/n) sum_i softplus_bregman(v_i, e_i) + g*.(w - w*)`,
//! `g* = grad F(w*)` (computed once, compensated). This is an exact identity
//! (not relying on `w*` being exact); the Bregman terms are non-negative and
//! second order, and `g*.(w - w*) = -mu w*.(w - w*) + O(1e-12 ||w - w*||)` is
//! non-negative on `W` up to that residual, so no first-order cancellation
//! occurs.
//!
//! Objective perturbation is not offered (`perturbed_minimizer` is `None`):
//! Algorithm 2 is private only for the exact argmin (digest P11).
//! Minimizer sensitivity: no bound in the digest; the diameter `2M` is reported.

pub mod ball_newton;
mod params;

pub use params::LogisticGlmParams;

use super::bregman::softplus_bregman;
use super::glm::{feature_expectation, GlmDesign};
use crate::linalg::{add_outer_lower, average_lower_and_shift};
use crate::numerics::{compensated_glm_sum, dot, sigmoid, softplus, CompensatedSum};
use ball_newton::{minimize_on_ball, SmoothConvex};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants, RunFailure};
use params::FAMILY;
use rand::{Rng, RngExt};
use std::f64::consts::FRAC_1_SQRT_2;

/// A sampled logistic GLM with its certified constrained minimizer.
#[derive(Debug, Clone)]
pub struct LogisticGlm {
    params: LogisticGlmParams,
    data: GlmDesign,
    w_star: Vec<f64>,
    grad_star: Vec<f64>,
    multiplier: f64,
    stationarity: f64,
}

impl LogisticGlm {
    /// Samples `y = +1` with probability `sigmoid(a s/sqrt2)` and certifies `w*`.
    ///
    /// # Errors
    /// `InvalidParameters` from [`LogisticGlmParams::validate`];
    /// `NonConvergence` when the KKT certificate is not reached.
    pub fn generate<R: Rng + ?Sized>(
        params: LogisticGlmParams,
        rng: &mut R,
    ) -> Result<Self, RunFailure> {
        params.validate()?;
        let a = params.signal;
        let data = GlmDesign::sample(params.n, params.d, rng, |s, r| {
            if r.random::<f64>() < sigmoid(a * s * FRAC_1_SQRT_2) {
                1.0
            } else {
                -1.0
            }
        });
        let mut me = Self {
            params,
            data,
            w_star: vec![0.0; params.d],
            grad_star: vec![0.0; params.d],
            multiplier: 0.0,
            stationarity: f64::INFINITY,
        };
        let sol = minimize_on_ball(&Empirical(&me), params.radius)
            .map_err(|e| RunFailure::NonConvergence(format!("{FAMILY}: {e}")))?;
        let mut g = vec![0.0; params.d];
        me.gradient(&sol.point, &mut g);
        me.grad_star = g;
        me.w_star = sol.point;
        me.multiplier = sol.multiplier;
        me.stationarity = sol.stationarity;
        Ok(me)
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &LogisticGlmParams {
        &self.params
    }

    /// The records (responses `±1`).
    pub fn data(&self) -> &GlmDesign {
        &self.data
    }

    /// The ball-constraint multiplier `mu >= 0`.
    pub fn multiplier(&self) -> f64 {
        self.multiplier
    }

    /// The certified KKT residual `||grad F(w*) + mu w*||`.
    pub fn stationarity(&self) -> f64 {
        self.stationarity
    }

    /// Population minimizer `theta* = a e_1`.
    pub fn population_minimizer(&self) -> Vec<f64> {
        let mut t = vec![0.0; self.params.d];
        t[0] = self.params.signal;
        t
    }

    /// Population minimum, the binary entropy (nats) of `sigmoid(a/sqrt2)`.
    pub fn population_minimum(&self) -> f64 {
        let u = self.params.signal * FRAC_1_SQRT_2;
        softplus(u) - sigmoid(u) * u
    }
}

/// The empirical objective as seen by the certified Newton solver.
struct Empirical<'a>(&'a LogisticGlm);

impl SmoothConvex for Empirical<'_> {
    fn dim(&self) -> usize {
        self.0.params.d
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.0.value(w)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        self.0.gradient(w, out)
    }
    /// `(1/m) sum s_i (1 - s_i) x_i x_i^T` over a strided subsample of about
    /// `max(8d, 1e8/d^2)` records, `O(1e8)` flops (it only shapes Newton
    /// steps; the certificate is the exact gradient).
    fn hessian(&self, w: &[f64], out: &mut [f64]) {
        let d = self.0.params.d;
        let cap = (8 * d).max(100_000_000 / (d * d));
        let stride = self.0.data.len().div_ceil(cap).max(1);
        out.fill(0.0);
        let mut m = 0usize;
        for (x, _) in self.0.data.iter().step_by(stride) {
            let s = sigmoid(dot(w, x));
            add_outer_lower(out, s * (1.0 - s), x);
            m += 1;
        }
        average_lower_and_shift(out, d, m as f64, 0.0);
    }
}

impl Objective for LogisticGlm {
    // GLM: the Hessian of a record is phi''(y<w,x>) x x^T, rank one (Assumption 5.1).
    fn rank_one_hessians(&self) -> bool {
        true
    }

    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `(1/n) sum_i softplus(-y_i <w, x_i>)` (compensated), O(nd).
    fn value(&self, w: &[f64]) -> f64 {
        let mut s = CompensatedSum::default();
        self.data
            .iter()
            .for_each(|(x, y)| s.add(softplus(-y * dot(w, x))));
        s.total() / self.params.n as f64
    }

    /// `(1/n) sum_i -y_i sigmoid(-y_i <w, x_i>) x_i` (compensated), O(nd).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let acc = compensated_glm_sum(self.data.iter(), w, |u, y| -y * sigmoid(-y * u));
        let n = self.params.n as f64;
        out.iter_mut()
            .zip(acc.total())
            .for_each(|(o, s)| *o = s / n);
    }

    /// `L = 1`, `beta_std = 1/4`, radius `M`.
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 1.0,
            smoothness: 0.25,
            strong_convexity: 0.0,
            radius: self.params.radius,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `(1/n) sum_i softplus_bregman(v_i, e_i) + g*.(w - w*)` (module docs).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let delta: Vec<f64> = w.iter().zip(&self.w_star).map(|(a, b)| a - b).collect();
        let mut s = CompensatedSum::default();
        for (x, y) in self.data.iter() {
            s.add(softplus_bregman(
                -y * dot(&self.w_star, x),
                -y * dot(&delta, x),
            ));
        }
        s.total() / self.params.n as f64 + dot(&self.grad_star, &delta)
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

    /// `E_x softplus_bregman(a s/sqrt2, <w - theta*, x>)` by quadrature.
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        let a = self.params.signal;
        let mut delta = w.to_vec();
        delta[0] -= a;
        Some(feature_expectation(&delta, |s, e| {
            softplus_bregman(a * s * FRAC_1_SQRT_2, e)
        }))
    }

    /// [`LogisticGlm::population_minimum`] plus the population excess.
    fn population_loss(&self, w: &[f64]) -> Option<f64> {
        Some(self.population_minimum() + self.population_excess(w)?)
    }
}

impl FiniteSum for LogisticGlm {
    /// `-y_i sigmoid(-y_i <w, x_i>) x_i`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let (x, y) = (self.data.features(i), self.data.response(i));
        let c = -y * sigmoid(-y * dot(w, x));
        out.iter_mut().zip(x).for_each(|(o, xj)| *o = c * xj);
    }

    fn prefetch_record(&self, i: usize) {
        self.data.prefetch(i);
    }
}
