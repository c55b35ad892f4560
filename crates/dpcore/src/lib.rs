//! Shared vocabulary of the DP rate harness.
//!
//! This crate is deliberately small: it holds only the types that both the
//! problem generators (`datagen`) and the algorithms (`solvers`) must agree on,
//! so that neither depends on the other. Nothing here knows about sweeps,
//! files or plots.

use std::fmt;

pub mod exp;
pub mod halfspace;
pub mod menart;
pub mod numerics;
pub mod prefetch;
pub mod rows;
pub mod saddle;
pub mod simd;

/// Privacy parameters of one run: `(eps, delta)`-DP, with `delta = 0` meaning pure `eps`-DP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivacyParams {
    /// Privacy loss bound `eps > 0`.
    pub eps: f64,
    /// Failure probability `delta` in `[0, 1)`; zero means pure DP.
    pub delta: f64,
}

impl PrivacyParams {
    /// Pure `eps`-DP.
    pub fn pure(eps: f64) -> Self {
        Self { eps, delta: 0.0 }
    }

    /// Approximate `(eps, delta)`-DP.
    pub fn approx(eps: f64, delta: f64) -> Self {
        Self { eps, delta }
    }

    /// True when `delta == 0`.
    pub fn is_pure(&self) -> bool {
        self.delta == 0.0
    }
}

pub use mechanisms::Neighbouring;

/// Analytic constants of a problem instance, derived from the family's
/// definition and never from the sampled data (Lowy–Razaviyayn digest P4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProblemConstants {
    /// Lipschitz constant `L` of each loss term on the ball `B(0, R)`.
    pub lipschitz: f64,
    /// Smoothness `beta` (Lipschitz constant of the gradient); `inf` if non-smooth.
    pub smoothness: f64,
    /// Strong-convexity modulus `mu`; zero if merely convex.
    pub strong_convexity: f64,
    /// Radius `R` bounding the minimizer norm for every data set in the universe.
    pub radius: f64,
}

impl ProblemConstants {
    /// Condition number `kappa = beta / mu`.
    pub fn condition_number(&self) -> f64 {
        self.smoothness / self.strong_convexity
    }
}

/// Upper bounds on the L2-sensitivity of the exact minimizer `w*(X)` under
/// replace-one neighbouring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinimizerSensitivity {
    /// The instance-tight bound (e.g. `2/n` for the mean of points in the unit ball).
    pub tight: f64,
    /// The paper's generic bound `2L/(mu n)` (Prop 2.2).
    pub paper: f64,
}

impl MinimizerSensitivity {
    /// `mu/2 ||w||^2` plus a data term whose per-record gradients differ by at
    /// most 2 in norm (1-Lipschitz records): the minimizer moves by at most
    /// `2/(mu n)` when one record is replaced (tight), against the paper's
    /// `2L/(mu n)` with the objective's full Lipschitz constant `L`.
    pub fn strongly_convex_unit_lipschitz(mu: f64, n: usize, lipschitz: f64) -> Self {
        let n = n as f64;
        Self {
            tight: 2.0 / (mu * n),
            paper: 2.0 * lipschitz / (mu * n),
        }
    }
}

/// A problem oracle: an objective `F(w, X)` over a fixed sampled data set
/// whose exact (or certified) minimizer is known, with a cancellation-free
/// excess-risk evaluation.
///
/// ERM objectives `F(w) = (1/n) sum_i f(w, x_i)` also expose their per-record
/// oracle through [`Objective::finite_sum`]; non-ERM objectives such as tilted
/// ERM return `None` there and are solved by full-gradient methods.
/// Optional capabilities (population risk, regularized minimizer) default to
/// `None`, so a family implements only what it can compute exactly.
/// One named array of an instance's data, row-major, as an algorithm
/// outside the process sees it (a Python entry, `runner`'s `python` module):
/// the records, and the fixed arrays that define the loss (a Hessian
/// diagonal, say).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataArray<'a> {
    /// Name the external algorithm reads it by (e.g. `records`).
    pub name: &'static str,
    /// Rows (`n` for records; the length of a vector).
    pub rows: usize,
    /// Columns per row (1 for a vector).
    pub cols: usize,
    /// Whether it is one-dimensional (`rows` values), not a `rows x cols`
    /// matrix: records are a matrix even at `d = 1`.
    pub vector: bool,
    /// The `rows * cols` values.
    pub values: &'a [f64],
}

pub trait Objective: Send + Sync {
    /// Parameter dimension `d`.
    fn dim(&self) -> usize;
    /// Number of records `n`.
    fn num_records(&self) -> usize;
    /// Objective value `F(w)`.
    fn value(&self, w: &[f64]) -> f64;
    /// Gradient of `F` at `w` (a subgradient where `F` is not differentiable),
    /// written into `out` (length `d`).
    fn gradient(&self, w: &[f64], out: &mut [f64]);
    /// The family's analytic constants.
    fn constants(&self) -> ProblemConstants;
    /// Exact (or certified) minimizer `w*(X)` of `F` over `R^d`, or over the
    /// family's domain `B(0, radius)` for the constrained families of
    /// Bassily et al. (their module docs say which).
    fn minimizer(&self) -> &[f64];
    /// `F(w) - F(w*)`, computed without subtracting two large numbers.
    fn excess_risk(&self, w: &[f64]) -> f64;
    /// Sensitivity bounds of the minimizer.
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity;
    /// `tr(H)` when `F` is quadratic with constant Hessian `H`; `None` otherwise.
    /// For isotropic noise `z`, `E[F(w* + z) - F*] = tr(H) E||z||^2 / (2d)` exactly.
    fn hessian_trace(&self) -> Option<f64> {
        None
    }
    /// The per-record oracle when `F` has ERM form; `None` otherwise.
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        None
    }
    /// The instance's data as named arrays, for algorithms that run outside
    /// the process and compute their own gradients from the records; empty
    /// (the default) for a family that does not export its data, which such
    /// an algorithm cannot run on.
    fn data_arrays(&self) -> Vec<DataArray<'_>> {
        Vec::new()
    }
    /// Excess population risk `F(w, D) - min_v F(v, D)` in closed form or by
    /// deterministic quadrature (never a Monte-Carlo estimate); `None` when the
    /// family has no population model.
    fn population_excess(&self, _w: &[f64]) -> Option<f64> {
        None
    }
    /// `E_X[F(w*(X), D)] - min F(., D)`: the population excess of the exact
    /// empirical minimizer averaged over data sets, when known in closed form
    /// (the statistical term of an SCO theory curve, e.g. `tr(H Sigma)/(2n)`).
    fn expected_minimizer_population_excess(&self) -> Option<f64> {
        None
    }
    /// Exact minimizer of the regularized objective
    /// `F_lambda(w) = F(w) + lambda/2 ||w||^2` over `B(0, R)` (Lowy–Razaviyayn
    /// Eq. 6/7), when the family knows it (e.g. `0` on symmetric data).
    fn regularized_minimizer(&self, _lambda: f64) -> Option<Vec<f64>> {
        None
    }
    /// Excess of the regularized objective, `F_lambda(w) - F_lambda(w*_lambda)`,
    /// computed stably; `None` when [`Objective::regularized_minimizer`] is.
    fn regularized_excess(&self, _lambda: f64, _w: &[f64]) -> Option<f64> {
        None
    }
    /// Population loss `F(w, D)` itself (not its excess), in closed form or by
    /// deterministic quadrature; with [`Objective::value`] it gives the
    /// generalization gap `F(w, D) - F(w, X)` (Bassily et al. Lemmas 3.4/5.5).
    /// `None` when the family has no population model.
    fn population_loss(&self, _w: &[f64]) -> Option<f64> {
        None
    }
    /// The per-record Moreau-envelope oracle (closed-form proximal operators),
    /// for families with non-smooth losses; `None` otherwise.
    fn envelope(&self) -> Option<&dyn RecordEnvelope> {
        None
    }
    /// Exact minimizer of the objective-perturbation problem of Bassily et al.
    /// Algorithm 2, `argmin_{||w|| <= radius} F(w) + <b, w> + lambda ||w||^2`
    /// (no 1/2 in front of `lambda`: the objective is `2 lambda`-strongly
    /// convex, digest P16), when the family can compute it exactly (closed
    /// form or a root-finding certificate to machine precision). `None`
    /// otherwise: objective perturbation is private only for the exact
    /// minimizer (digest P11), so a generic solver must not stand in.
    fn perturbed_minimizer(&self, _b: &[f64], _lambda: f64) -> Option<Vec<f64>> {
        None
    }
    /// Whether every loss term is twice differentiable with Hessians of rank
    /// at most one everywhere on the domain (Bassily et al. Assumption 5.1:
    /// GLMs and linear losses), the condition under which objective
    /// perturbation is private. `false` unless the family proves it.
    fn rank_one_hessians(&self) -> bool {
        false
    }
    /// `ln C_tau = tau (A_R - a_R)` of a tilted-ERM objective (Lowy–Razaviyayn
    /// Lemma 5.2, in log form): the tilt times the range of the record loss,
    /// which the tilted-ERM theorems (5.1, 5.2) read. `None` for an objective
    /// that is not tilted.
    fn tilted_log_c(&self) -> Option<f64> {
        None
    }
    /// The Hessian's diagonal `h` of an objective whose Hessian is the
    /// constant diagonal matrix `diag(h)` (the Lowy–Razaviyayn E1 quadratic),
    /// which exact expectations of iterative methods read; `None` otherwise.
    fn constant_diagonal_hessian(&self) -> Option<&[f64]> {
        None
    }
}

/// Per-record Moreau envelopes `f_beta(w; x_i) = min_v f(v; x_i) + beta/2 ||w - v||^2`
/// over `v in R^d` (the unconstrained envelope of Bassily et al. §4, digest
/// §5.3), with the proximal operator in closed form (exact, `xi = 0`).
pub trait RecordEnvelope: Send + Sync {
    /// Gradient `beta (w - prox_{f_i/beta}(w))` of the envelope of record `i`
    /// at `w`, written into `out`. Its norm is at most the loss's Lipschitz
    /// constant `L`.
    fn record_envelope_gradient(&self, i: usize, beta: f64, w: &[f64], out: &mut [f64]);
    /// Value of the envelope of the full empirical objective at `w`,
    /// `(1/n) sum_i f_beta(w; x_i)`.
    fn envelope_value(&self, beta: f64, w: &[f64]) -> f64;
    /// Hints that record `i` will be read soon ([`prefetch`]); never changes
    /// a result. The default does nothing.
    fn prefetch_record(&self, _i: usize) {}
}

/// The per-record oracle of an ERM objective `F(w) = (1/n) sum_i f(w, x_i)`.
pub trait FiniteSum: Send + Sync {
    /// Gradient (or a subgradient) of `f(w, x_i)`, written into `out`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]);
    /// Hints that record `i` will be read soon ([`prefetch`]); never changes
    /// a result. The default does nothing.
    fn prefetch_record(&self, _i: usize) {}
}

/// Why a single run could not produce a usable result.
#[derive(Debug, Clone, PartialEq)]
pub enum RunFailure {
    /// An inner solver did not reach its certified accuracy.
    NonConvergence(String),
    /// A metric or iterate became NaN or infinite.
    NonFinite(String),
    /// Parameters outside the algorithm's domain (found only at run time).
    InvalidParameters(String),
    /// An algorithm running outside the process (a Python entry) raised,
    /// timed out, died or returned something unusable; the message says
    /// which, with its traceback when it raised.
    External(String),
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunFailure::NonConvergence(m) => write!(f, "non-convergence: {m}"),
            RunFailure::NonFinite(m) => write!(f, "non-finite value: {m}"),
            RunFailure::InvalidParameters(m) => write!(f, "invalid parameters: {m}"),
            RunFailure::External(m) => write!(f, "external entry failed: {m}"),
        }
    }
}

impl std::error::Error for RunFailure {}
