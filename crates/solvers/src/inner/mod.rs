//! Non-private inner solvers that the black-box output-perturbation algorithms
//! call (Lowy–Razaviyayn Algorithms 2–4), with iteration counts derived from
//! each solver's own guarantee (digest P9) and an explicit statement of what
//! that guarantee is (digest P1).
//!
//! Every solver minimizes the regularized objective
//! `F_lambda(w) = F(w) + lambda/2 ||w||^2` (`lambda = 0` gives `F`) to a target
//! accuracy `alpha` and counts the gradient evaluations it spent, one per
//! per-record gradient and `n` per full gradient.

use dpcore::{Objective, RunFailure};
use rand::Rng;

pub mod agd;
pub mod katyusha;
pub mod regularized;
pub mod sgd;

pub use agd::gradient_descent;
pub use regularized::{project_ball, Regularized, RegularizedFiniteSum};

/// What an inner solver guarantees about `F_lambda(w) - min F_lambda`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Certificate {
    /// A worst-case bound that holds for every data set (full-batch
    /// subgradient method, AGD): enough for the privacy proof of
    /// Prop 3.1 as written.
    Deterministic(f64),
    /// Certified at the output: `||grad F_lambda(w)|| = norm`, so by strong
    /// convexity `F_lambda(w) - min <= norm^2 / (2 m) = bound` (digest P1 (b)).
    GradientNorm {
        /// The gradient norm at the output.
        norm: f64,
        /// The implied accuracy bound.
        bound: f64,
    },
    /// Only `E[F_lambda(w)] - min <= bound` (stochastic subgradient method):
    /// the paper's reading of Algorithm 1; privacy rests on an in-expectation
    /// accuracy (digest P1), so runs with this certificate are flagged.
    InExpectation(f64),
}

impl Certificate {
    /// The accuracy bound, whatever its kind.
    pub fn bound(&self) -> f64 {
        match *self {
            Certificate::Deterministic(b) | Certificate::InExpectation(b) => b,
            Certificate::GradientNorm { bound, .. } => bound,
        }
    }

    /// True unless the guarantee holds only in expectation.
    pub fn holds_for_every_data_set(&self) -> bool {
        !matches!(self, Certificate::InExpectation(_))
    }
}

/// The output of an inner solver.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverOutput {
    /// The approximate minimizer.
    pub w: Vec<f64>,
    /// Gradient evaluations spent (per-record gradients; a full gradient counts `n`).
    pub gradient_evaluations: u64,
    /// Iterations (inner steps) run.
    pub iterations: u64,
    /// What is guaranteed about the output's accuracy.
    pub certificate: Certificate,
}

/// The inner solvers named by Lowy–Razaviyayn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerSolver {
    /// Algorithm 2: projected stochastic subgradient method, `eta_t = 2/(m(t+1))`,
    /// weighted average, `T = ceil(2 L^2/(m alpha))` (in expectation).
    Sgd,
    /// Algorithm 2 with the full subgradient: the same `T`, deterministic (P1 (a)).
    Subgradient,
    /// Algorithm 3: Katyusha with the gradient-norm stopping certificate (P1 (b))
    /// and epoch weights normalized in log space (P14).
    Katyusha,
    /// Algorithm 4: Nesterov's projected accelerated gradient method (full gradients).
    Agd,
    /// Algorithm 4 stopped at the first iterate whose gradient norm
    /// certifies the accuracy (P1 (b)), checked after every step: the work
    /// to reach the accuracy, not the prescribed count.
    AgdCertified,
}

/// Minimizes `F_lambda = F + lambda/2 ||.||^2` to accuracy `alpha` with `solver`.
///
/// Errors: `RunFailure::NonConvergence` when a certified solver cannot reach
/// `alpha` within its iteration cap, `RunFailure::InvalidParameters` when the
/// problem lacks what the solver needs (e.g. a per-record oracle for SGD or
/// Katyusha, finite smoothness for Katyusha and AGD (either form), strong convexity
/// `mu + lambda > 0`, finite `alpha > 0` and `lambda >= 0`), `RunFailure::NonFinite`
/// when an iterate is not finite. Only `Sgd` and `Katyusha` draw from `rng`.
pub fn solve<R: Rng + ?Sized>(
    solver: InnerSolver,
    problem: &dyn Objective,
    lambda: f64,
    alpha: f64,
    rng: &mut R,
) -> Result<SolverOutput, RunFailure> {
    let reg = Regularized::new(problem, lambda);
    reg.check_target(alpha)?;
    match solver {
        InnerSolver::Sgd => sgd::sgd(&reg, alpha, rng),
        InnerSolver::Subgradient => sgd::subgradient(&reg, alpha),
        InnerSolver::Katyusha => katyusha::katyusha(&reg, alpha, rng),
        InnerSolver::Agd => agd::agd(&reg, alpha),
        InnerSolver::AgdCertified => agd::agd_certified(&reg, alpha),
    }
}
