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

use rand::Rng;
use rand_distr::{Distribution, Exp1, Open01, StandardNormal, StandardUniform};

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

fn check_eps(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(SelectionError::InvalidEpsilon(eps))
    }
}

fn check_sensitivity(sensitivity: f64) -> Result<()> {
    if sensitivity.is_finite() && sensitivity > 0.0 {
        Ok(())
    } else {
        Err(SelectionError::InvalidSensitivity(sensitivity))
    }
}

fn check_noise_scale(scale: f64) -> Result<()> {
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(SelectionError::InvalidNoiseScale(scale))
    }
}

/// Validates a log-weight: finite or `-inf` (NaN and `+inf` are rejected).
fn check_log_weight(index: usize, value: f64) -> Result<()> {
    if value.is_nan() || value == f64::INFINITY {
        Err(SelectionError::InvalidLogWeight { index, value })
    } else {
        Ok(())
    }
}

/// Maximum of the log-weights `l(0), ..., l(len-1)`, validating every entry.
/// Errors if `len == 0`, an entry is NaN/`+inf`, or every entry is `-inf`.
fn checked_max(len: usize, l: impl Fn(usize) -> f64) -> Result<f64> {
    if len == 0 {
        return Err(SelectionError::Empty);
    }
    let mut max = f64::NEG_INFINITY;
    for i in 0..len {
        let v = l(i);
        check_log_weight(i, v)?;
        if v > max {
            max = v;
        }
    }
    if max == f64::NEG_INFINITY {
        Err(SelectionError::NoPositiveWeight)
    } else {
        Ok(max)
    }
}

/// `sum_i exp(l(i) - max)`, summed left to right (>= 1 since the maximiser
/// contributes exactly 1).
fn shifted_total(len: usize, max: f64, l: &impl Fn(usize) -> f64) -> f64 {
    (0..len).map(|i| (l(i) - max).exp()).sum()
}

/// Number of contiguous blocks whose partial sums [`sample_inversion`] keeps
/// on the stack (fixed, so the extra memory is O(1)).
const BLOCKS: usize = 64;

/// Inversion sampling of an index with probability `exp(l(i)) / sum_j exp(l(j))`.
///
/// Pass 1 finds the maximum `m` and validates. Pass 2 sums the shifted
/// weights `w_i = exp(l(i) - m)` of each of at most [`BLOCKS`] contiguous
/// blocks into a stack array. The block containing `U * total` is found from
/// the block sums, and pass 3 walks only that block, repeating the exact
/// floating-point operations of its block sum, so the walk ends inside the
/// block; the fallback to the block's last positive weight only guards
/// against rounding of `U * total - (earlier blocks)`. Cost: `d + d/64` calls
/// to `exp`, O(1) extra memory, one uniform draw.
fn sample_inversion<R: Rng + ?Sized>(
    len: usize,
    l: impl Fn(usize) -> f64,
    rng: &mut R,
) -> Result<usize> {
    let max = checked_max(len, &l)?;
    let block_len = len.div_ceil(BLOCKS);
    let mut block_sums = [0.0f64; BLOCKS];
    let mut total = 0.0;
    for (b, sum) in block_sums.iter_mut().enumerate() {
        let lo = b * block_len;
        let hi = (lo + block_len).min(len);
        *sum = (lo..hi).map(|i| (l(i) - max).exp()).sum();
        total += *sum;
    }
    let u: f64 = StandardUniform.sample(rng);
    let target = u * total;
    // Find the block: last block with positive mass whose cumulative sum
    // exceeds the target (the final one with positive mass as a fallback).
    let mut cum = 0.0;
    let mut chosen = None;
    for (b, &sum) in block_sums.iter().enumerate() {
        if sum > 0.0 {
            chosen = Some((b, cum));
            cum += sum;
            if cum > target {
                break;
            }
        }
    }
    let (b, before) = chosen.expect("the maximiser has weight exactly 1");
    let inner_target = target - before;
    let lo = b * block_len;
    let hi = (lo + block_len).min(len);
    let mut acc = 0.0;
    let mut last_positive = None;
    for i in lo..hi {
        let w = (l(i) - max).exp();
        if w > 0.0 {
            acc += w;
            last_positive = Some(i);
            if acc > inner_target {
                return Ok(i);
            }
        }
    }
    Ok(last_positive.expect("the chosen block has positive mass"))
}

/// Gumbel-max sampling: `argmax_i l(i) + G_i` with i.i.d. standard Gumbel
/// `G_i = -ln(-ln U_i)`, `U_i ~ Uniform(0, 1)` (open interval).
fn sample_gumbel<R: Rng + ?Sized>(
    len: usize,
    l: impl Fn(usize) -> f64,
    rng: &mut R,
) -> Result<usize> {
    if len == 0 {
        return Err(SelectionError::Empty);
    }
    let mut best: Option<(usize, f64)> = None;
    for i in 0..len {
        let v = l(i);
        check_log_weight(i, v)?;
        if v == f64::NEG_INFINITY {
            continue;
        }
        let u: f64 = Open01.sample(rng);
        let perturbed = v - (-u.ln()).ln();
        match best {
            Some((_, b)) if perturbed <= b => {}
            _ => best = Some((i, perturbed)),
        }
    }
    best.map(|(i, _)| i).ok_or(SelectionError::NoPositiveWeight)
}

/// `ln sum_i exp(x_i)`, computed as `m + ln sum_i exp(x_i - m)` with
/// `m = max_i x_i` (the log-sum-exp trick; González–Guzmán–Paquette digest,
/// pitfall 19), so it neither overflows nor underflows for any finite inputs.
///
/// `-inf` entries contribute 0; if all entries are `-inf` the result is `-inf`.
///
/// # Errors
/// [`SelectionError::Empty`] for an empty slice and
/// [`SelectionError::InvalidLogWeight`] for a NaN or `+inf` entry.
pub fn log_sum_exp(xs: &[f64]) -> Result<f64> {
    match checked_max(xs.len(), |i| xs[i]) {
        Ok(max) => Ok(max + shifted_total(xs.len(), max, &|i| xs[i]).ln()),
        Err(SelectionError::NoPositiveWeight) => Ok(f64::NEG_INFINITY),
        Err(e) => Err(e),
    }
}

/// The probabilities `p_i = exp(l_i - LSE(l))` of the distribution with
/// log-weights `l` (the softmax), computed with the max shift of
/// [`log_sum_exp`]. This is the exact distribution sampled by
/// [`sample_log_weights`], [`sample_log_weights_many`] and [`gumbel_max`].
///
/// # Errors
/// As [`sample_log_weights`].
pub fn softmax(log_weights: &[f64]) -> Result<Vec<f64>> {
    let l = |i: usize| log_weights[i];
    let max = checked_max(log_weights.len(), l)?;
    let total = shifted_total(log_weights.len(), max, &l);
    Ok(log_weights
        .iter()
        .map(|&x| (x - max).exp() / total)
        .collect())
}

/// Samples an index `i` with probability `exp(l_i) / sum_j exp(l_j)` from
/// log-weights `l` (e.g. the multiplicative-weights iterate of entropic mirror
/// descent, `x = softmax(theta)`), by inversion in the log domain.
///
/// This is the vertex sampling of González–Guzmán–Paquette (digest §3.0,
/// Algs 1–5): releasing one such index is the exponential mechanism with
/// score `l`, hence `2 Delta_l`-DP where `Delta_l` is the sensitivity of the
/// log-weights (digest Thm A.3; see [`log_weight_sampling_epsilon`]).
///
/// Method: streaming passes over `l`: the maximum; the sums of
/// `exp(l_i - max)` over 64 contiguous blocks (kept in a stack array); then
/// a walk of the partial sums inside the block that contains `U S`,
/// `U ~ Uniform[0, 1)`, `S` the total. Cost `O(d)` time with `d + d/64`
/// `exp` calls, **no allocation**, one uniform draw.
/// Log-weights of magnitude `1e6` or more are handled exactly (only
/// differences to the maximum are exponentiated). The realised probability of
/// index `i` differs from the softmax by at most the rounding of the partial
/// sums, `<= d * 2^-53` in total variation (in practice far less: blocks are
/// summed separately).
///
/// # Errors
/// [`SelectionError::Empty`], [`SelectionError::InvalidLogWeight`] (NaN or
/// `+inf`), [`SelectionError::NoPositiveWeight`] (all `-inf`).
pub fn sample_log_weights<R: Rng + ?Sized>(log_weights: &[f64], rng: &mut R) -> Result<usize> {
    sample_inversion(log_weights.len(), |i| log_weights[i], rng)
}

/// Samples an index with probability `exp(l_i) / sum_j exp(l_j)` by the
/// Gumbel-max trick: `argmax_i (l_i + G_i)` with i.i.d. standard Gumbel `G_i`
/// (Gumbel 1954; Yellott 1977). Equivalently, report-noisy-max with Gumbel
/// noise **is** the exponential mechanism.
///
/// One pass, `O(d)` time, no allocation, no normalisation; it draws one
/// uniform per candidate with finite log-weight (so it consumes more
/// randomness and computes two logarithms per candidate instead of one
/// `exp`, which makes it slower than [`sample_log_weights`]). Same
/// distribution as [`sample_log_weights`].
///
/// # Errors
/// As [`sample_log_weights`].
pub fn gumbel_max<R: Rng + ?Sized>(log_weights: &[f64], rng: &mut R) -> Result<usize> {
    sample_gumbel(log_weights.len(), |i| log_weights[i], rng)
}

/// Draws `count` i.i.d. indices from the distribution with log-weights `l`
/// (as [`sample_log_weights`]) in `O(d + count)` time, returned **sorted
/// ascending** (the multiset of the draws; their order carries no
/// information). This is what Maurey sparsification needs: the `K` vertices
/// `x_hat^{t,k} ~ P_{x^t}` of González–Guzmán–Paquette Alg. 1 (digest §3.1),
/// whose average is a `K`-sparse count vector.
///
/// Method: `count` sorted uniforms are generated directly as normalised
/// partial sums `(E_1 + ... + E_j) / (E_1 + ... + E_{count+1})` of i.i.d.
/// `Exp(1)` variables, which have exactly the law of the order statistics of
/// `count` i.i.d. `Uniform(0, 1)` draws (Rényi 1953; Devroye 1986, §V.2); one
/// sweep of the cumulative weights then inverts all of them. Extra memory:
/// the `count` targets (`O(count)`), none proportional to `d`.
///
/// # Errors
/// As [`sample_log_weights`].
pub fn sample_log_weights_many<R: Rng + ?Sized>(
    log_weights: &[f64],
    count: usize,
    rng: &mut R,
) -> Result<Vec<usize>> {
    let l = |i: usize| log_weights[i];
    let max = checked_max(log_weights.len(), l)?;
    let total = shifted_total(log_weights.len(), max, &l);
    let mut partial = Vec::with_capacity(count);
    let mut s = 0.0f64;
    for _ in 0..count {
        let e: f64 = Exp1.sample(rng);
        s += e;
        partial.push(s);
    }
    let last: f64 = Exp1.sample(rng);
    let norm = s + last;
    let mut out = Vec::with_capacity(count);
    let mut cum = 0.0;
    let mut last_positive = None;
    let mut next = 0;
    for (i, &x) in log_weights.iter().enumerate() {
        if next == count {
            break;
        }
        let w = (x - max).exp();
        if w > 0.0 {
            cum += w;
            last_positive = Some(i);
            while next < count && cum > partial[next] / norm * total {
                out.push(i);
                next += 1;
            }
        }
    }
    if next < count {
        // Only reachable when a target rounds up to `total`.
        let i = last_positive.expect("the maximiser has weight exactly 1");
        out.resize(count, i);
    }
    Ok(out)
}

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

/// Report-noisy-max with Laplace noise: `argmax_i u_i + Z_i`,
/// `Z_i ~ Lap(b)` i.i.d., with
///
/// * `b = Delta_u / eps` for [`ScoreKind::Monotone`] scores: eps-DP (Dwork &
///   Roth 2014, Claim 3.9, stated for counting queries, `Delta_u = 1`; the
///   proof only uses `u <= u' <= u + Delta_u` coordinatewise);
/// * `b = 2 Delta_u / eps` for [`ScoreKind::General`] scores: eps-DP, because
///   for neighbours `u' + Delta_u` lies coordinatewise in `[u, u + 2 Delta_u]`
///   and a common shift does not change the argmax, so the monotone case with
///   sensitivity `2 Delta_u` applies.
///
/// Unlike the Gumbel version this is **not** the exponential mechanism; its
/// exact law has no closed form beyond two candidates (for two, the winner is
/// `0` with probability `1 - P(Z_1 - Z_0 > u_0 - u_1)`, where
/// `P(Z_1 - Z_0 > t) = (1 + t/(2b)) e^{-t/b} / 2` for `t >= 0`). Ties have
/// probability zero; the first maximiser wins. `-inf` scores never win.
///
/// # Errors
/// As [`exponential_mechanism`].
pub fn report_noisy_max_laplace<R: Rng + ?Sized>(
    scores: &[f64],
    eps: f64,
    sensitivity: f64,
    kind: ScoreKind,
    rng: &mut R,
) -> Result<usize> {
    check_eps(eps)?;
    check_sensitivity(sensitivity)?;
    let b = sensitivity / (kind.exponent_factor() * eps);
    noisy_argmax(scores, rng, |rng| {
        let e: f64 = Exp1.sample(rng);
        if rng.next_u32() & 1 == 0 {
            b * e
        } else {
            -b * e
        }
    })
}

/// `argmax_i scores[i] + noise()`, skipping `-inf` scores.
fn noisy_argmax<R: Rng + ?Sized>(
    scores: &[f64],
    rng: &mut R,
    mut noise: impl FnMut(&mut R) -> f64,
) -> Result<usize> {
    if scores.is_empty() {
        return Err(SelectionError::Empty);
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, &u) in scores.iter().enumerate() {
        check_log_weight(i, u)?;
        if u == f64::NEG_INFINITY {
            continue;
        }
        let v = u + noise(rng);
        match best {
            Some((_, b)) if v <= b => {}
            _ => best = Some((i, v)),
        }
    }
    best.map(|(i, _)| i).ok_or(SelectionError::NoPositiveWeight)
}

/// Gaussian report-noisy-**min** (Wang–Zhu–Wang Alg. 2, `A_Iter`, digest
/// §2.3): `argmin_i u_i + N(0, sigma^2)` with fresh noise per candidate, for
/// losses `u` (lower is better). `+inf` losses never win (they play the role
/// of `-inf` scores); NaN and `-inf` losses are errors.
///
/// Privacy: each noisy loss is a Gaussian mechanism, `(Delta_u / sigma)`-GDP;
/// releasing all `m` noisy losses (hence their argmin) is
/// `sqrt(m) Delta_u / sigma`-GDP by GDP composition (Dong, Roth & Su 2022;
/// see [`gaussian_report_noisy_min_mu`]). For two candidates the law is
/// `P(0 wins) = Phi((u_1 - u_0) / (sigma sqrt 2))`.
///
/// # Errors
/// [`SelectionError::InvalidNoiseScale`] unless `sigma` is finite and `> 0`;
/// otherwise as [`exponential_mechanism`].
pub fn report_noisy_min_gaussian<R: Rng + ?Sized>(
    losses: &[f64],
    sigma: f64,
    rng: &mut R,
) -> Result<usize> {
    check_noise_scale(sigma)?;
    if losses.is_empty() {
        return Err(SelectionError::Empty);
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, &u) in losses.iter().enumerate() {
        // A loss of +inf is an excluded candidate; -inf would always win.
        if u.is_nan() || u == f64::NEG_INFINITY {
            return Err(SelectionError::InvalidLogWeight { index: i, value: u });
        }
        if u == f64::INFINITY {
            continue;
        }
        let g: f64 = StandardNormal.sample(rng);
        let v = u + sigma * g;
        match best {
            Some((_, b)) if v >= b => {}
            _ => best = Some((i, v)),
        }
    }
    best.map(|(i, _)| i).ok_or(SelectionError::NoPositiveWeight)
}

/// GDP parameter `mu = sqrt(m) Delta_u / sigma` of [`report_noisy_min_gaussian`]
/// over `m` candidates: the `m` noisy losses form one Gaussian mechanism with
/// L2 sensitivity `sqrt(m) Delta_u`, which is `(sqrt(m) Delta_u/sigma)`-GDP
/// (Dong, Roth & Su 2022; Wang–Zhu–Wang Remark 2.3).
/// Wang–Zhu–Wang (`A_Iter`) instead charge each score `mu/sqrt(2|Theta|)`
/// separately, which is the same total.
///
/// # Errors
/// [`SelectionError::Empty`] if `m == 0`; invalid sensitivity or `sigma`.
pub fn gaussian_report_noisy_min_mu(m: usize, sensitivity: f64, sigma: f64) -> Result<f64> {
    if m == 0 {
        return Err(SelectionError::Empty);
    }
    check_sensitivity(sensitivity)?;
    check_noise_scale(sigma)?;
    Ok((m as f64).sqrt() * sensitivity / sigma)
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
