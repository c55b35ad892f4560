//! Private selection over a finite candidate set: the exponential mechanism
//! (McSherry & Talwar 2007), report-noisy-max/min, and exact log-domain
//! sampling of an index from a multiplicative-weights (MW) distribution.
//!
//! # Neighbouring relation
//! A selection guarantee is stated for the relation under which the caller
//! bounded the **score sensitivity**
//! `Delta_u = max_i max_{S ~ S'} |u(S, i) - u(S', i)|`: the mechanism is eps-DP
//! under that same relation. The harness works under replace-one
//! ([`crate::Neighbouring::ReplaceOne`]); examples of replace-one score
//! sensitivities from the digests:
//! * gradient norm of an average of `L0`-Lipschitz losses, `u = -||grad F(w_t; S)||`:
//!   `Delta_u = 2 L0 / n` (Menart et al. digest §2.5, Thm 5 selection; the
//!   paper's `L0/n` is the add/remove value and is **not** valid under
//!   replace-one);
//! * MW log-weights `theta_j = -tau sum_t g_j^t` over disjoint batches of size
//!   `B` with `||grad f||_inf <= L0`: `Delta = 2 L0 tau / B` per coordinate
//!   (González–Guzmán–Paquette digest §3.0, Thm A.3);
//! * average 0-1 error on `n` points: `Delta_u = 1/n` (Wang–Zhu–Wang digest P1).
//!
//! # Numerics
//! Every sampler works in the log domain: weights are `exp(l_i - max_j l_j)`,
//! so log-weights of any finite magnitude (e.g. `±1e6`) neither overflow nor
//! underflow as a whole; a candidate whose log-weight is more than ~745 below
//! the maximum gets weight 0 (relative mass < 1e-323). `-inf` log-weights are
//! allowed (weight exactly 0, never selected); NaN and `+inf` are errors. As
//! everywhere in this crate, floating-point side channels (Mironov 2012) are
//! out of scope: the harness measures utility.

mod checks;
mod exponential;
mod log_domain;
mod noisy_max;

pub use exponential::{
    exponential_mechanism, exponential_mechanism_probabilities, exponential_mechanism_scale,
    log_weight_sampling_epsilon, report_noisy_max_gumbel,
};
pub use log_domain::{
    gumbel_max, log_sum_exp, sample_log_weights, sample_log_weights_many, softmax,
};
pub use noisy_max::{
    gaussian_report_noisy_min_mu, report_noisy_max_laplace, report_noisy_min_gaussian,
};

/// Why a selection could not be performed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum SelectionError {
    /// There is no candidate to select from.
    #[error("the candidate set is empty")]
    Empty,
    /// A (scaled) score or log-weight is NaN or `+inf` (for
    /// [`report_noisy_min_gaussian`]: a loss that is NaN or `-inf`).
    #[error("log-weight of candidate {index} is {value}; it must be finite or -inf")]
    InvalidLogWeight {
        /// Index of the offending candidate.
        index: usize,
        /// The offending (scaled) value.
        value: f64,
    },
    /// Every log-weight is `-inf`, so no candidate has positive probability.
    #[error("every log-weight is -inf: no candidate has positive weight")]
    NoPositiveWeight,
    /// `eps` must be finite and strictly positive.
    #[error("eps must be finite and > 0, got {0}")]
    InvalidEpsilon(f64),
    /// The score sensitivity must be finite and strictly positive.
    #[error("score sensitivity must be finite and > 0, got {0}")]
    InvalidSensitivity(f64),
    /// A noise scale must be finite and strictly positive.
    #[error("noise scale must be finite and > 0, got {0}")]
    InvalidNoiseScale(f64),
}

/// Convenience alias for selection results.
pub type Result<T> = std::result::Result<T, SelectionError>;

/// Whether the score function is monotone, which decides the exponent of the
/// exponential mechanism.
///
/// A score `u` is **monotone** if for every neighbouring pair `(S, S')` either
/// `u(S, i) >= u(S', i)` for **all** `i` or `u(S, i) <= u(S', i)` for all `i`:
/// all scores move in the same direction. Counting queries under add/remove
/// are monotone; the same counts under replace-one are **not** (one count can
/// go up while another goes down), and neither are gradient-norm or 0-1-error
/// scores under replace-one. When in doubt use [`ScoreKind::General`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreKind {
    /// Arbitrary scores of sensitivity `Delta_u`: weights
    /// `exp(eps u / (2 Delta_u))` are eps-DP (McSherry & Talwar 2007;
    /// Dwork & Roth 2014, Thm 3.10).
    General,
    /// Monotone scores (see the type docs): weights `exp(eps u / Delta_u)` are
    /// eps-DP. The proof of Dwork & Roth 2014, Thm 3.10 bounds the numerator
    /// `exp(c eps u_i / Delta)` and the normaliser by a factor `e^{c eps}`
    /// each; for monotone scores both move in the same direction, so their
    /// ratio moves by at most one such factor (McSherry & Talwar 2007; the
    /// "bounded range" view of Dong, Durfee & Rogers 2020). Using this for a
    /// non-monotone score can cost up to `2 eps`.
    Monotone,
}

impl ScoreKind {
    /// The factor `c` in the exponent `c * eps * u / Delta_u`: `1/2` for
    /// [`ScoreKind::General`] and `1` for [`ScoreKind::Monotone`].
    pub fn exponent_factor(self) -> f64 {
        match self {
            ScoreKind::General => 0.5,
            ScoreKind::Monotone => 1.0,
        }
    }
}
