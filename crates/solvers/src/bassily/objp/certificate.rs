//! The perturbed objective of objective perturbation and its deterministic
//! optimality certificate (Bassily et al. §5.1; digest §2.4, P12, P16).
//!
//! # Objective
//! `J(w) = F(w) + <b, w> + lambda ||w||^2` on `W = B(0, M)` with
//! `b = G/n`, the average of `f_i = l_i + <b, .> + lambda ||.||^2`, which
//! are `beta_f = beta + 2 lambda` smooth and `mu_f = 2 lambda` strongly
//! convex (P16).
//!
//! # Certificate (replaces SVRG's in-expectation guarantee, P12)
//! Theorem 5.8 bounds `E J(y(t+1)) - J*` only; the privacy of the output
//! noise `H` of Algorithm 3 needs `J(w2) - J* <= alpha` **with certainty**.
//! At any `y` in `W` with `g = grad J(y)`, strong convexity gives for every
//! `v` in `W`:
//! `J(v) >= J(y) + <g, v - y> + lambda ||v - y||^2
//!       = J(y) + lambda ||v - c||^2 - ||g||^2/(4 lambda)`, `c = y - g/(2 lambda)`.
//! The right side is minimized over the ball at `v_hat = Proj_W(c)` (the
//! model is isotropic), so with `u = y - v_hat`
//! `J(y) - J* <= <g, u> - lambda ||u||^2 =: C(y)`
//! ([`strong_convexity_certificate`]). `C(y) >= 0` (take `v = y`), it is at
//! most the Frank–Wolfe gap `<g, y> + M ||g||` (drop the quadratic) and at
//! most `||g||^2/(4 lambda)` (the unconstrained bound of P12). Computing it
//! from `u` avoids the cancellation of `||g||^2/(4 lambda) - lambda
//! dist(c, W)^2` at boundary optima. It is exact arithmetic on the computed
//! gradient; its rounding error (about `1e-16` times `||g|| M`) is
//! negligible against the accuracies used.

use crate::inner::regularized::{dot, project_ball};
use dpcore::{FiniteSum, Objective, RunFailure};

/// The perturbed objective `J(w) = F(w) + <b, w> + lambda ||w||^2` on
/// `B(0, M)` (module doc).
pub struct PerturbedObjective<'a> {
    pub(super) problem: &'a dyn Objective,
    pub(super) records: &'a dyn FiniteSum,
    pub(super) b: Vec<f64>,
    pub(super) lambda: f64,
    pub(super) radius: f64,
}

impl<'a> PerturbedObjective<'a> {
    /// `J` for `problem` (its `radius` is `M`), linear term `b` and
    /// regularization `lambda > 0`.
    ///
    /// Errors: `InvalidParameters` without a finite-sum oracle, for
    /// `b.len() != d`, a non-finite `b` or `lambda <= 0`.
    pub fn new(problem: &'a dyn Objective, b: Vec<f64>, lambda: f64) -> Result<Self, RunFailure> {
        let records = problem.finite_sum().ok_or_else(|| {
            RunFailure::InvalidParameters("SVRG needs a finite-sum (ERM) objective".into())
        })?;
        if b.len() != problem.dim() || b.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::InvalidParameters(format!(
                "linear term must be finite of length d = {}",
                problem.dim()
            )));
        }
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(RunFailure::InvalidParameters(format!(
                "lambda must be finite and > 0, got {lambda}"
            )));
        }
        let radius = problem.constants().radius;
        Ok(Self {
            problem,
            records,
            b,
            lambda,
            radius,
        })
    }

    /// `J(w)`.
    pub fn value(&self, w: &[f64]) -> f64 {
        self.problem.value(w) + dot(&self.b, w) + self.lambda * dot(w, w)
    }

    /// `grad J(w) = grad F(w) + b + 2 lambda w`, written into `out`.
    pub fn gradient(&self, w: &[f64], out: &mut [f64]) {
        self.problem.gradient(w, out);
        for ((o, bj), wj) in out.iter_mut().zip(&self.b).zip(w) {
            *o += bj + 2.0 * self.lambda * wj;
        }
    }

    /// The certificate `C(w) >= J(w) - J*` for `w` in `W` with `grad =
    /// grad J(w)` ([`strong_convexity_certificate`]).
    pub fn certificate(&self, w: &[f64], grad: &[f64]) -> f64 {
        strong_convexity_certificate(w, grad, self.lambda, self.radius)
    }

    /// The linear term `b`.
    pub fn linear_term(&self) -> &[f64] {
        &self.b
    }

    /// The regularization `lambda`.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
}

/// `C(y) = <g, u> - lambda ||u||^2` with `u = y - Proj_{B(0, radius)}(y -
/// g/(2 lambda))`: for a `2 lambda`-strongly convex `J` on the ball with
/// `g = grad J(y)` and `y` in the ball, `J(y) - min J <= C(y)` (module doc).
/// Clamped at `0` against rounding.
pub fn strong_convexity_certificate(y: &[f64], grad: &[f64], lambda: f64, radius: f64) -> f64 {
    let mut v: Vec<f64> = y
        .iter()
        .zip(grad)
        .map(|(yj, gj)| yj - gj / (2.0 * lambda))
        .collect();
    project_ball(&mut v, radius);
    let u: Vec<f64> = y.iter().zip(&v).map(|(yj, vj)| yj - vj).collect();
    (dot(grad, &u) - lambda * dot(&u, &u)).max(0.0)
}
