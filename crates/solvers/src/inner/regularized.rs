//! The regularized objective `F_lambda(w) = F(w) + lambda/2 ||w||^2` that every
//! inner solver minimizes (Lowy–Razaviyayn Eq. 6/7, Algorithm 7; digest §3.0),
//! with its analytic constants and the projection onto `B(0, R)` (digest §1.1).

use dpcore::{FiniteSum, Objective, RunFailure};

/// `F_lambda = F + lambda/2 ||.||^2` over a borrowed problem `F`.
///
/// Constants (digest §3.0): `F_lambda` is `m = mu + lambda` strongly convex,
/// `beta + lambda` smooth and `L + lambda R` Lipschitz on `B(0, R)`. Since
/// `F(w_lambda) >= F(w*)` and `F_lambda(w_lambda) <= F_lambda(w*)`, the
/// unconstrained minimizer satisfies `||w_lambda|| <= ||w*|| <= R`, so the
/// constrained (Eq. 6) and unconstrained (Eq. 7) minimizers coincide.
#[derive(Clone, Copy)]
pub struct Regularized<'a> {
    problem: &'a dyn Objective,
    lambda: f64,
}

impl std::fmt::Debug for Regularized<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Regularized")
            .field("dim", &self.problem.dim())
            .field("num_records", &self.problem.num_records())
            .field("lambda", &self.lambda)
            .finish()
    }
}

impl<'a> Regularized<'a> {
    /// Wraps `problem` with regularization `lambda` (not validated here; see
    /// [`Regularized::check_target`]).
    pub fn new(problem: &'a dyn Objective, lambda: f64) -> Self {
        Self { problem, lambda }
    }

    /// The unregularized problem `F`.
    pub fn problem(&self) -> &'a dyn Objective {
        self.problem
    }

    /// The regularization weight `lambda`.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.problem.dim()
    }

    /// Number of records `n` (the cost of one full gradient).
    pub fn num_records(&self) -> usize {
        self.problem.num_records()
    }

    /// Strong convexity `m = mu + lambda` of `F_lambda`.
    pub fn strong_convexity(&self) -> f64 {
        self.problem.constants().strong_convexity + self.lambda
    }

    /// Lipschitz constant `L + lambda R` of `F_lambda` on `B(0, R)` (digest §3.0).
    pub fn lipschitz(&self) -> f64 {
        let c = self.problem.constants();
        c.lipschitz + self.lambda * c.radius
    }

    /// Smoothness `beta + lambda` of `F_lambda` (`inf` if `F` is non-smooth).
    pub fn smoothness(&self) -> f64 {
        self.problem.constants().smoothness + self.lambda
    }

    /// Radius `R` of the ball containing the minimizer.
    pub fn radius(&self) -> f64 {
        self.problem.constants().radius
    }

    /// `F_lambda(w) = F(w) + lambda/2 ||w||^2`.
    pub fn value(&self, w: &[f64]) -> f64 {
        self.problem.value(w) + 0.5 * self.lambda * dot(w, w)
    }

    /// Full (sub)gradient `grad F(w) + lambda w` into `out` (costs `n` evaluations).
    pub fn gradient(&self, w: &[f64], out: &mut [f64]) {
        self.problem.gradient(w, out);
        for (o, wj) in out.iter_mut().zip(w) {
            *o += self.lambda * wj;
        }
    }

    /// The per-record oracle of `F_lambda`, when `F` has ERM form.
    pub fn finite_sum(&self) -> Option<RegularizedFiniteSum<'a>> {
        self.problem
            .finite_sum()
            .map(|records| RegularizedFiniteSum {
                records,
                lambda: self.lambda,
            })
    }

    /// Checks what every solver needs: `d, n >= 1`, finite `lambda >= 0`,
    /// finite `alpha > 0`, finite `mu >= 0`, `L >= 0` and `R > 0`, and
    /// `m = mu + lambda > 0` (the certificates divide by `m`).
    pub fn check_target(&self, alpha: f64) -> Result<(), RunFailure> {
        let c = self.problem.constants();
        let bad = |m: String| Err(RunFailure::InvalidParameters(m));
        if self.dim() == 0 || self.num_records() == 0 {
            return bad("the problem needs d >= 1 and n >= 1".into());
        }
        if !(self.lambda.is_finite() && self.lambda >= 0.0) {
            return bad(format!(
                "lambda must be finite and >= 0, got {}",
                self.lambda
            ));
        }
        if !(alpha.is_finite() && alpha > 0.0) {
            return bad(format!("alpha must be finite and > 0, got {alpha}"));
        }
        if !(c.strong_convexity.is_finite() && c.strong_convexity >= 0.0) {
            return bad(format!(
                "mu must be finite and >= 0, got {}",
                c.strong_convexity
            ));
        }
        if !(c.lipschitz.is_finite() && c.lipschitz >= 0.0) {
            return bad(format!("L must be finite and >= 0, got {}", c.lipschitz));
        }
        if !(c.radius.is_finite() && c.radius > 0.0) {
            return bad(format!("R must be finite and > 0, got {}", c.radius));
        }
        if self.strong_convexity() <= 0.0 {
            return bad(
                "F_lambda must be strongly convex: mu + lambda = 0 (use lambda > 0)".into(),
            );
        }
        Ok(())
    }
}

/// The per-record oracle of `F_lambda`: `f_i(w) + lambda/2 ||w||^2`.
#[derive(Clone, Copy)]
pub struct RegularizedFiniteSum<'a> {
    records: &'a dyn FiniteSum,
    lambda: f64,
}

impl std::fmt::Debug for RegularizedFiniteSum<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegularizedFiniteSum")
            .field("lambda", &self.lambda)
            .finish()
    }
}

impl RegularizedFiniteSum<'_> {
    /// `grad f(w, x_i) + lambda w` into `out` (one gradient evaluation).
    pub fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        self.records.record_gradient(i, w, out);
        for (o, wj) in out.iter_mut().zip(w) {
            *o += self.lambda * wj;
        }
    }
}

/// Euclidean inner product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Euclidean norm.
pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// In-place projection onto the closed ball `B(0, radius)`:
/// `Pi(z) = z / max{1, ||z|| / radius}` (digest §1.1).
pub fn project_ball(w: &mut [f64], radius: f64) {
    let nrm = norm(w);
    if nrm > radius {
        let scale = radius / nrm;
        for wj in w.iter_mut() {
            *wj *= scale;
        }
    }
}

/// `Err(NonFinite)` unless every coordinate of `w` is finite.
pub(crate) fn check_finite(w: &[f64], what: &str) -> Result<(), RunFailure> {
    if w.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(RunFailure::NonFinite(format!(
            "{what}: iterate is not finite"
        )))
    }
}
