//! The exponential mechanism (McSherry & Talwar 2007), its Gumbel
//! report-noisy-max form, and the privacy cost of sampling from log-weights.

use rand::Rng;

use super::checks::{check_eps, check_sensitivity};
use super::log_domain::{sample_gumbel, sample_inversion};
use super::{softmax, Result, ScoreKind};

// Named only in doc links.
#[cfg(doc)]
use super::{sample_log_weights, SelectionError};

/// Log-weight per unit of score of the exponential mechanism,
/// `c * eps / Delta_u` with `c = 1/2` ([`ScoreKind::General`]) or `c = 1`
/// ([`ScoreKind::Monotone`]); see [`exponential_mechanism`].
///
/// # Errors
/// [`SelectionError::InvalidEpsilon`] or [`SelectionError::InvalidSensitivity`]
/// unless both are finite and `> 0`.
pub fn exponential_mechanism_scale(eps: f64, sensitivity: f64, kind: ScoreKind) -> Result<f64> {
    check_eps(eps)?;
    check_sensitivity(sensitivity)?;
    Ok(kind.exponent_factor() * eps / sensitivity)
}

/// The exponential mechanism (McSherry & Talwar 2007): samples candidate `i`
/// with probability proportional to `exp(c eps u_i / Delta_u)`, where `u` are
/// the scores (higher is better), `Delta_u` their sensitivity under the
/// neighbouring relation of interest (module docs), and
///
/// * `c = 1/2` for [`ScoreKind::General`]: eps-DP for every score function
///   (McSherry & Talwar 2007; Dwork & Roth 2014, Thm 3.10; González digest
///   Thm A.3). E.g. Menart et al. Thm 5 selection (digest §2.5):
///   `u_t = -||grad F(w_t)||`, `Delta_u = 2 L0 / n` under replace-one,
///   `eps = sqrt(rho)`, i.e. weights `exp(-n sqrt(rho) ||grad F|| / (4 L0))`,
///   costing `rho/2`-zCDP (eps-DP implies `eps^2/2`-zCDP, Bun & Steinke 2016,
///   Prop 1.4).
/// * `c = 1` for [`ScoreKind::Monotone`]: eps-DP only when the score is
///   monotone (see [`ScoreKind`] for the definition and the argument).
///
/// `-inf` scores exclude a candidate; that exclusion must not depend on the
/// data. Sampling is [`sample_log_weights`] applied to `c eps u / Delta_u`
/// without materialising the scaled vector: `O(len)` time, no allocation,
/// exact for scores of any magnitude.
///
/// # Errors
/// Invalid `eps` or sensitivity, an empty score slice, a NaN/`+inf` (scaled)
/// score, or all scores `-inf`.
pub fn exponential_mechanism<R: Rng + ?Sized>(
    scores: &[f64],
    eps: f64,
    sensitivity: f64,
    kind: ScoreKind,
    rng: &mut R,
) -> Result<usize> {
    let scale = exponential_mechanism_scale(eps, sensitivity, kind)?;
    sample_inversion(scores.len(), |i| scale * scores[i], rng)
}

/// The exact output distribution of [`exponential_mechanism`] (and of
/// [`report_noisy_max_gumbel`]): `softmax(c eps u / Delta_u)`.
///
/// # Errors
/// As [`exponential_mechanism`].
pub fn exponential_mechanism_probabilities(
    scores: &[f64],
    eps: f64,
    sensitivity: f64,
    kind: ScoreKind,
) -> Result<Vec<f64>> {
    let scale = exponential_mechanism_scale(eps, sensitivity, kind)?;
    let scaled: Vec<f64> = scores.iter().map(|&u| scale * u).collect();
    softmax(&scaled)
}

/// Report-noisy-max with Gumbel noise of scale `Delta_u / (c eps)`:
/// `argmax_i u_i + (Delta_u / (c eps)) G_i`. By the Gumbel-max trick its
/// output has **exactly** the law of [`exponential_mechanism`] with the same
/// arguments, hence the same guarantee (eps-DP; `c` as in [`ScoreKind`]).
/// One pass, no allocation.
///
/// # Errors
/// As [`exponential_mechanism`].
pub fn report_noisy_max_gumbel<R: Rng + ?Sized>(
    scores: &[f64],
    eps: f64,
    sensitivity: f64,
    kind: ScoreKind,
    rng: &mut R,
) -> Result<usize> {
    let scale = exponential_mechanism_scale(eps, sensitivity, kind)?;
    sample_gumbel(scores.len(), |i| scale * scores[i], rng)
}

/// Pure-DP cost of releasing one index sampled with probability
/// `proportional to exp(l_i)` when the log-weights `l` have sensitivity
/// `Delta_l` (max over `i` and neighbours of `|l_i(S) - l_i(S')|`):
/// `eps = 2 Delta_l` in general and `eps = Delta_l` if `l` is monotone
/// (González–Guzmán–Paquette digest Thm A.3: "sampling `Pr(j) ∝ exp(s(S,j))`
/// is `2 Delta_s`-DP"; the exponential mechanism with `eps u / (2 Delta_u)`
/// rewritten with `l = eps u / (2 Delta_u)`).
///
/// E.g. MW with step `tau`, batch `B`, `||grad||_inf <= L0`, replace-one:
/// `Delta_l = 2 L0 tau / B`, so each released vertex is `4 L0 tau / B`-DP,
/// conditionally on the previously released vertices (digest §3.0).
///
/// # Errors
/// [`SelectionError::InvalidSensitivity`] unless `Delta_l` is finite and `> 0`.
pub fn log_weight_sampling_epsilon(log_weight_sensitivity: f64, kind: ScoreKind) -> Result<f64> {
    check_sensitivity(log_weight_sensitivity)?;
    Ok(log_weight_sensitivity / kind.exponent_factor())
}
