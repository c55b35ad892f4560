//! Random stopping for private selection from private candidates, and the
//! privacy costs of the resulting hyperparameter-tuning procedures.
//!
//! # The procedure
//! [`repeat_and_select`]: draw a number of runs `K` from a stopping
//! distribution, run a randomized candidate procedure `Q` (e.g. train with a
//! random hyperparameter and score the result) `K` times, and release only the
//! best candidate. `K` itself, the other candidates and their scores stay
//! secret. If each run of `Q` is DP, the selection costs a **constant** factor
//! more than one run, instead of the `K`-fold cost of composition:
//!
//! | stopping law | candidate runs | selection | source |
//! |---|---|---|---|
//! | geometric, [`Geometric`] | eps-DP | 3 eps-DP | Liu & Talwar 2019 ([`liu_talwar_random_stop_epsilon`]) |
//! | geometric capped at `T`, [`CappedGeometric`] | eps-DP | (3 eps, delta_T)-DP | coupling, [`liu_talwar_capped_dp`] |
//! | truncated negative binomial, [`TruncatedNegativeBinomial`] | RDP | RDP | Papernot & Steinke 2022, Thm 2 ([`tnb_tuning_rdp`]) |
//! | Poisson, [`Poisson`] | RDP and approx-DP | RDP | Papernot & Steinke 2022, Thm 6 ([`poisson_tuning_rdp`], `mu >= 1`); ours for any `mu` ([`poisson_tuning_rdp_any_mean`]) |
//! | geometric, `mu`-GDP runs | mu-GDP | (eps, delta)-DP | Wang–Zhu–Wang Lemma K.1 / Thm K.3 ([`privtune_gdp_epsilon`]) |
//!
//! Approximate-DP statements follow from the RDP curves by
//! [`rdp_curve_to_dp`] ([`tnb_tuning_dp`], [`poisson_tuning_dp`]).
//!
//! Theorem numbers of Papernot & Steinke refer to arXiv:2110.03620v2 (the
//! numbering used by Google's `dp_accounting` library); of Liu & Talwar to
//! arXiv:1811.07971 (taken from secondary sources; the statements are
//! re-checked by exact audits in `tests/selection.rs`).
//!
//! # Neighbouring relation
//! These theorems are relation-agnostic: if every run of `Q` satisfies the
//! stated guarantee for a neighbouring relation, the selection satisfies the
//! output guarantee for **the same** relation. The harness uses replace-one
//! ([`crate::Neighbouring::ReplaceOne`]), as do Wang–Zhu–Wang (digest P1).
//! What must hold is that the *whole* run (training and scoring) is DP, that
//! the distribution of `K` is data-independent, and that only the winner is
//! released (not `K`, not the losing scores).
//!
//! # Samplers
//! Every stopping law implements [`rand_distr::Distribution<u64>`] with an
//! exact sampler (exact up to floating-point rounding; no truncation of the
//! support and no normal approximations) and [`StoppingDistribution`], which
//! exposes the exact pmf, cdf, mean, variance and probability-generating
//! function used by the tests and by the privacy/utility formulas
//! (e.g. Wang–Zhu–Wang Lemma K.4 needs `PGF(1 - 1/|Theta|)`).

mod checks;
mod dp_cost;
mod geometric;
mod liu_talwar;
mod negative_binomial;
mod papernot_steinke;
mod poisson;
mod privtune;
mod procedure;
mod truncated_geometric;

pub use dp_cost::{poisson_tuning_dp, rdp_curve_to_dp, tnb_tuning_dp, DpCost};
pub use geometric::{CappedGeometric, Geometric};
pub use liu_talwar::{
    cap_for_overflow, liu_talwar_capped_dp, liu_talwar_random_stop_epsilon,
    liu_talwar_threshold_epsilon,
};
pub use negative_binomial::{tnb_mean, TruncatedNegativeBinomial};
pub use papernot_steinke::{
    poisson_tuning_rdp, poisson_tuning_rdp_any_mean, poisson_tuning_rdp_curve, tnb_tuning_pure_dp,
    tnb_tuning_rdp, tnb_tuning_rdp_curve,
};
pub use poisson::Poisson;
pub use privtune::{privtune_gdp_epsilon, privtune_mu};
pub use procedure::{repeat_and_select, Selected};
pub use truncated_geometric::TruncatedGeometric;

use rand_distr::Distribution;

/// Why a stopping distribution or a privacy cost could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum StoppingError {
    /// A probability parameter lies outside its admissible interval.
    #[error("parameter {name} = {value} is outside its admissible range {range}")]
    InvalidParameter {
        /// Name of the parameter (`gamma`, `eta`, `p`, `mu`, ...).
        name: &'static str,
        /// The offending value.
        value: f64,
        /// Human-readable admissible range.
        range: &'static str,
    },
    /// An RDP curve is empty, has mismatched lengths, or contains an order
    /// below 1, a NaN, or a negative divergence.
    #[error("invalid RDP curve: {0}")]
    InvalidRdpCurve(&'static str),
    /// Papernot & Steinke Thm 6 needs `exp(eps_hat) <= 1 + 1/(order - 1)`.
    #[error(
        "Poisson tuning (Papernot-Steinke Thm 6) needs exp(eps_hat) <= 1 + 1/(order - 1); \
         got eps_hat = {eps_hat}, order = {order}"
    )]
    PoissonConditionViolated {
        /// The approximate-DP epsilon of one run.
        eps_hat: f64,
        /// The Renyi order.
        order: f64,
    },
    /// `eps` is outside the range where the cited theorem is proven.
    #[error("eps = {eps} exceeds {max}, the largest value for which this bound is proven")]
    EpsilonOutOfRange {
        /// The offending `eps`.
        eps: f64,
        /// The largest admissible `eps`.
        max: f64,
    },
}

/// Convenience alias for stopping results.
pub type Result<T> = std::result::Result<T, StoppingError>;

/// Exact law of a number of runs: pmf, cdf, moments and generating function.
///
/// All implementors are also `rand_distr::Distribution<u64>` samplers of the
/// same law.
pub trait StoppingDistribution: Distribution<u64> {
    /// Smallest value with positive probability.
    fn support_min(&self) -> u64;
    /// `ln P(K = k)`; `-inf` outside the support.
    fn ln_pmf(&self, k: u64) -> f64;
    /// `P(K = k)`.
    fn pmf(&self, k: u64) -> f64 {
        self.ln_pmf(k).exp()
    }
    /// `P(K <= k)`. The default sums the pmf from [`Self::support_min`]
    /// (`O(k)`); closed forms override it.
    fn cdf(&self, k: u64) -> f64 {
        let lo = self.support_min();
        if k < lo {
            return 0.0;
        }
        (lo..=k).map(|j| self.pmf(j)).sum::<f64>().min(1.0)
    }
    /// `E[K]`.
    fn mean(&self) -> f64;
    /// `Var[K]`.
    fn variance(&self) -> f64;
    /// Probability-generating function `E[x^K]` for `x` in `[0, 1]`.
    fn pgf(&self, x: f64) -> f64;
}
