//! Problem families of Menart et al., "Differentially Private Non-Convex
//! Optimization under the KL Condition with Optimal Rates" (digest §4.3,
//! families F-A to F-H), each with exact (or certified) KL parameters, a known
//! minimum and an analytic excess (digest P17: never `F(w) - F*` by
//! subtraction).
//!
//! | family | type | `kappa` | `gamma` |
//! |---|---|---|---|
//! | F-A [`MeanEstimation`] | PL, convex | 2 | `1/sqrt 2`, equality |
//! | F-B [`PowerTilt`] | power + zero-sum tilt | `p/(p-1)` | `p^(-1/kappa)`, equality |
//! | F-C [`PowerRegression`] | realisable power regression (`p >= 2`) | `p/(p-1)` | public, from `(n, d)` ([`public_min_eigenvalue`]) |
//! | F-D [`KnsPl`] | non-convex PL (Karimi et al.) | 2 | `1/sqrt(2 mu_R)`, `mu_R` by grid + refinement |
//! | F-E [`Theorem8Instance`] | the Thm 8 lower-bound instance, `d = 1` | `tau/(tau-1)` | max over the region (dense grid) |
//! | F-F [`LeastSquares`] | PL, convex | 2 | `1/sqrt(2 mu)`, public `mu(n, d)` |
//! | F-G [`PhaseRetrieval`] | non-convex, local KL only | — | estimate with [`kl_check`] |
//! | F-H [`GemanMcClure`] | non-KL (Theorem 5) | — | — |
//!
//! Every family implements [`dpcore::menart::KlObjective`] (public constants,
//! start point, clipped oracles; `O(d)` for F-A, F-B, F-D and `O(1)` for F-E).
//! [`kl_check`] is the numerical KL-exponent check of digest §4.4.

mod common;
pub mod kl_check;
mod kns;
mod least_squares;
mod mean_estimation;
mod phase_retrieval;
mod power_regression;
mod power_tilt;
mod robust;
mod spectrum;
mod theorem8;

pub use kns::{kns_h, kns_h_prime, kns_pl_constant, KnsPl, KnsPlParams};
pub use least_squares::{LeastSquares, LeastSquaresParams};
pub use mean_estimation::{MeanEstimation, MeanEstimationParams};
pub use phase_retrieval::{PhaseRetrieval, PhaseRetrievalParams};
pub use power_regression::{PowerRegression, PowerRegressionParams};
pub use power_tilt::{PowerTilt, PowerTiltParams};
pub use robust::{GemanMcClure, GemanMcClureParams};
pub use spectrum::{min_eigenvalue_lower_bound, public_min_eigenvalue, DESIGN_FAILURE_PROBABILITY};
pub use theorem8::{Theorem8Instance, Theorem8Params};

/// Per-record losses `f(w; x_i)` of the families (the values whose gradients
/// [`dpcore::FiniteSum::record_gradient`] returns), for finite-difference
/// checks of the per-record oracles.
pub trait RecordLoss {
    /// `f(w; x_i)`.
    fn record_loss(&self, i: usize, w: &[f64]) -> f64;
}
