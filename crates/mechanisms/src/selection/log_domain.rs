//! Exact log-domain sampling of an index from log-weights: inversion,
//! Gumbel-max, many i.i.d. draws at once, and the softmax they sample.

use rand::Rng;
use rand_distr::{Distribution, Exp1, Open01, StandardUniform};

use super::checks::check_log_weight;
use super::noisy_max::noisy_argmax;
use super::{Result, SelectionError};

// Named only in doc links.
#[cfg(doc)]
use super::log_weight_sampling_epsilon;

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
pub(super) fn sample_inversion<R: Rng + ?Sized>(
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
pub(super) fn sample_gumbel<R: Rng + ?Sized>(
    len: usize,
    l: impl Fn(usize) -> f64,
    rng: &mut R,
) -> Result<usize> {
    noisy_argmax(len, l, rng, |rng| {
        let u: f64 = Open01.sample(rng);
        // G = -ln(-ln U): adding it is exactly subtracting ln(-ln U).
        -(-u.ln()).ln()
    })
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
