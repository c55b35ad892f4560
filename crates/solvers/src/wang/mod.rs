//! Wang, Zhu & Wang (ICML 2025), "Adapting to linear separable subsets with
//! large margin in differentially private learning"
//! (`../shared/papers/digests/wang-zhu-wang-large-margin.md`).
//!
//! Classification, not minimisation: problems are
//! [`dpcore::halfspace::HalfspaceProblem`]s and every algorithm reports the
//! released `w` (judged by the 0-1 error, ties are errors, P9), its gradient
//! evaluations, and the privacy actually spent under **replace-one**
//! neighbours (P1), composed in GDP from the realised noise.
//!
//! - [`ngd`]: `A_NGD` (Algorithm 5), paper and fast iteration modes.
//! - [`jl`]: the packed, counter-based Rademacher JL map and `k_gamma`.
//! - [`mod@jlgd`]: `A_JLGD` (Algorithm 1) and the projected NGD it is built on.
//! - [`select`]: `A_Iter` (Algorithm 2).
//! - [`mstar`]: `M*` (Algorithm 3), also the tuned full-dimension baseline.
//! - [`privtune`]: `A_PrivTune` / `M'` (Algorithms 4 and 6).
//! - [`baselines`]: B0 (hard-margin SVM), B1 and B2 at a known margin.
//! - [`margin`], [`svm`]: the certified exact margin and the bias-free SVM.
//! - [`removal`]: the removal-margin curve (Appendix N, digest §5).
//! - [`budget`], [`bounds`]: the budget chain and the theorem bounds.
//!
//! # Calling conventions (for the runner)
//! - `M*`: [`m_star`]`(problem, PrivacyParams::approx(eps, delta), MStarOptions, rng)`
//!   returns [`MStarRun`]: `w` (score it with `problem.zero_one_error(&w)` and
//!   `problem.population_error(&w)`), `selected_gamma`, per-candidate
//!   `k`, `T`, `sigma`, noisy scores, `gradient_evaluations`, `privacy.eps`.
//! - B1 tuned: the same with `projection: Projection::FullDimension { radius_factor }`.
//! - B1 / B2 at a known margin: [`known_margin`] with `KnownMarginBudget::Total`
//!   (whole `mu`) or `PerCall` (`mu_p`, experiment E6).
//! - B0: [`hard_margin_svm`] (its `direction` is the predictor).
//! - `M'`: [`m_prime`] with a stop probability `r` (P14).
//! - Removal-margin: [`removal_margin_curve`] on any `n x d` matrix.
//!
//! # Randomness (P8)
//! Everything draws from the caller's seeded RNG (a reproducible PRNG, not a
//! CSPRNG) and samples Gaussians in floating point: adequate for measuring
//! rates, not hardened for deployment.

pub mod baselines;
pub mod bounds;
pub mod budget;
pub mod jl;
pub mod jlgd;
pub mod margin;
pub mod mstar;
pub mod ngd;
pub mod privtune;
pub mod removal;
pub mod select;
pub mod svm;

pub use baselines::{
    hard_margin_svm, known_margin, known_margin_observed, KnownMarginBudget, KnownMarginRun,
};
pub use budget::{margin_grid, replicate_grid, total_mu, BudgetConversion, PrivacySpent};
pub use jl::JlMap;
pub use jlgd::{jlgd, projected_ngd, projected_ngd_observed, JlgdOptions, JlgdRun};
pub use margin::{exact_margin, exact_margin_warm, MarginCertificate, MarginOptions};
pub use mstar::{m_star, m_star_observed, MStarOptions, MStarRun, Projection, SelectionCriterion};
pub use ngd::{IterateChoice, IterationMode, NgdPlan};
pub use privtune::{m_prime, PrivTuneOptions, PrivTuneRun};
pub use removal::{removal_margin_curve, RemovalOptions, RemovalPoint};
pub use svm::{fit_svm, SvmOptions};
