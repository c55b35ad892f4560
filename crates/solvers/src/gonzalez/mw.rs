//! Multiplicative weights in the log domain and Maurey sparsification
//! (digest §2, §3.0, pitfalls 19–20).
//!
//! [`LogWeights`] stores `theta` with `x = softmax(theta)`; a mirror step is
//! `theta += s g` (`s = -tau` to descend, `+tau` to ascend), re-centred by its
//! maximum every [`RECENTRE_EVERY`] steps so it never drifts. Probabilities
//! are computed with the max shift (log-sum-exp), never from un-shifted
//! exponentials.
//!
//! [`sample_sorted`] draws `count` i.i.d. indices from a probability vector
//! in `O(d + count)` into reused buffers (sorted uniforms from normalised
//! partial sums of `Exp(1)` variables, one sweep of the cumulative weights;
//! the same method as `mechanisms::selection::sample_log_weights_many`,
//! without allocation). [`SparseAverage`] is the Maurey average
//! `x_hat = (1/K) sum_k e_{i_k}` as a sparse count vector.

use dpcore::saddle::SimplexPoint;
use rand::{Rng, RngExt};

/// Steps between two re-centrings `theta <- theta - max theta`.
pub const RECENTRE_EVERY: usize = 64;

/// Multiplicative-weights state `x = softmax(theta)`, uniform at start.
#[derive(Debug, Clone)]
pub struct LogWeights {
    theta: Vec<f64>,
    steps: usize,
}

impl LogWeights {
    /// The uniform distribution on `d` vertices (`theta = 0`).
    pub fn uniform(d: usize) -> Self {
        Self {
            theta: vec![0.0; d],
            steps: 0,
        }
    }

    /// The log-weights `theta`.
    pub fn log_weights(&self) -> &[f64] {
        &self.theta
    }

    /// `theta += scale * g` (entropic mirror step; `scale = -tau` descends).
    pub fn step(&mut self, scale: f64, g: &[f64]) {
        self.theta
            .iter_mut()
            .zip(g)
            .for_each(|(t, gj)| *t += scale * gj);
        self.steps += 1;
        if self.steps.is_multiple_of(RECENTRE_EVERY) {
            let m = self.theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            self.theta.iter_mut().for_each(|t| *t -= m);
        }
    }

    /// Writes `softmax(theta)` into `out` and returns `sum_j out_j` summed
    /// in index order (`out.iter().sum()`, bit for bit), which
    /// [`sample_sorted_with_total`] takes instead of summing again.
    ///
    /// The max shift is taken over four lanes: the maximum of the same
    /// values whatever the order, except that `f64::max` may return either
    /// zero of `+-0`, which `exp(t - m)` cannot tell apart (`t - 0 = t - (-0)`
    /// but for `t = -0`, and `exp(+-0) = 1`). One sequential `max` chain was
    /// latency-bound (4 cycles an entry, as long as the `exp`s at
    /// `d = 2^14`); so was the sampler's separate sum of `p`, now carried by
    /// the division pass.
    pub fn probabilities_into(&self, out: &mut [f64]) -> f64 {
        let m = self.max_shift();
        // `f64::exp`'s bits without glibc's errno wrapper (dpcore::exp).
        let exp = dpcore::exp::exp();
        let mut total = 0.0;
        for (o, t) in out.iter_mut().zip(&self.theta) {
            *o = exp.of(t - m);
            total += *o;
        }
        let mut sum = -0.0;
        for o in out.iter_mut() {
            *o /= total;
            sum += *o;
        }
        sum
    }
}

impl LogWeights {
    /// `max_j theta_j` over four lanes (see [`Self::probabilities_into`]).
    fn max_shift(&self) -> f64 {
        let mut lanes = [f64::NEG_INFINITY; 4];
        let chunks = self.theta.chunks_exact(4);
        let tail = chunks.remainder();
        for c in chunks {
            for (l, &t) in lanes.iter_mut().zip(c) {
                *l = l.max(t);
            }
        }
        tail.iter()
            .copied()
            .fold(lanes[0].max(lanes[1]).max(lanes[2].max(lanes[3])), f64::max)
    }

    /// [`Self::probabilities_into`] of two players at once, bit for bit:
    /// `(pa, pb, sum pa, sum pb)`. Each player's sums are sequential chains
    /// of dependent additions (the normaliser, carried across the `exp`
    /// calls, and the sum of `p`); interleaving the two players' chains in
    /// one loop lets them overlap (Alg. 1 at `d = 2^14`: these passes took
    /// about 60% of a step). Players of different sizes go one at a time.
    pub fn probabilities_pair(
        a: &LogWeights,
        b: &LogWeights,
        pa: &mut [f64],
        pb: &mut [f64],
    ) -> (f64, f64) {
        let n = a.theta.len();
        if b.theta.len() != n || pa.len() != n || pb.len() != n {
            return (a.probabilities_into(pa), b.probabilities_into(pb));
        }
        let (ma, mb) = (a.max_shift(), b.max_shift());
        let exp = dpcore::exp::exp();
        let (mut ta, mut tb) = (0.0, 0.0);
        for j in 0..n {
            let (ea, eb) = (exp.of(a.theta[j] - ma), exp.of(b.theta[j] - mb));
            pa[j] = ea;
            pb[j] = eb;
            ta += ea;
            tb += eb;
        }
        let (mut sa, mut sb) = (-0.0, -0.0);
        for (oa, ob) in pa.iter_mut().zip(pb.iter_mut()) {
            *oa /= ta;
            *ob /= tb;
            sa += *oa;
            sb += *ob;
        }
        (sa, sb)
    }
}

/// A standard exponential draw `-ln(1 - U)`, `U ~ Uniform[0, 1)`.
fn exp1<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    -(1.0 - rng.random::<f64>()).ln()
}

/// Reused buffers of [`sample_sorted`].
#[derive(Debug, Clone, Default)]
pub struct SamplerScratch {
    targets: Vec<f64>,
    /// The last draws, sorted ascending.
    pub draws: Vec<usize>,
}

/// Draws `count >= 1` i.i.d. indices from the probability vector `p` (any
/// nonnegative weights; normalised internally) into `scratch.draws`, sorted
/// ascending (module docs). `O(d + count)`, no allocation once the buffers
/// have grown.
pub fn sample_sorted<R: Rng + ?Sized>(
    p: &[f64],
    count: usize,
    rng: &mut R,
    scratch: &mut SamplerScratch,
) {
    sample_sorted_with_total(p, p.iter().sum(), count, rng, scratch);
}

/// [`sample_sorted`] given `total = p.iter().sum()` (as returned by
/// [`LogWeights::probabilities_into`]): the same draws, one pass less.
pub fn sample_sorted_with_total<R: Rng + ?Sized>(
    p: &[f64],
    total: f64,
    count: usize,
    rng: &mut R,
    scratch: &mut SamplerScratch,
) {
    scratch.targets.clear();
    scratch.draws.clear();
    let mut s = 0.0;
    for _ in 0..count {
        s += exp1(rng);
        scratch.targets.push(s);
    }
    let last = exp1(rng);
    let scale = total / (s + last);
    scratch.targets.iter_mut().for_each(|t| *t *= scale);
    let mut cum = 0.0;
    let mut last_positive = 0;
    let mut next = 0;
    for (i, &w) in p.iter().enumerate() {
        if next == count {
            break;
        }
        if w > 0.0 {
            cum += w;
            last_positive = i;
            while next < count && cum > scratch.targets[next] {
                scratch.draws.push(i);
                next += 1;
            }
        }
    }
    // Only reachable when a target rounds up to the total.
    while scratch.draws.len() < count {
        scratch.draws.push(last_positive);
    }
}

/// A Maurey average `(1/K) sum_k e_{i_k}` stored sparsely.
#[derive(Debug, Clone, Default)]
pub struct SparseAverage {
    /// Support, strictly increasing.
    pub indices: Vec<usize>,
    /// Weights (multiplicities / `K`).
    pub weights: Vec<f64>,
}

impl SparseAverage {
    /// Fills from sorted draws, each weighing `1 / draws.len()`.
    pub fn fill_from_sorted(&mut self, draws: &[usize]) {
        self.fill_from_sorted_weighted(draws, 1.0 / draws.len() as f64);
    }

    /// Fills from sorted draws, each weighing `weight` (weights are
    /// multiplicity times `weight`, one rounding per support point).
    pub fn fill_from_sorted_weighted(&mut self, draws: &[usize], weight: f64) {
        self.indices.clear();
        self.weights.clear();
        let mut run = 0usize;
        for (pos, &i) in draws.iter().enumerate() {
            run += 1;
            if draws.get(pos + 1) != Some(&i) {
                self.indices.push(i);
                self.weights.push(run as f64 * weight);
                run = 0;
            }
        }
    }

    /// The point as a [`SimplexPoint`].
    pub fn point(&self) -> SimplexPoint<'_> {
        SimplexPoint::Sparse {
            indices: &self.indices,
            weights: &self.weights,
        }
    }

    /// The dense vector of length `d`.
    pub fn to_dense(&self, d: usize) -> Vec<f64> {
        let mut v = vec![0.0; d];
        self.indices
            .iter()
            .zip(&self.weights)
            .for_each(|(&i, &w)| v[i] += w);
        v
    }
}

/// Maurey sparsification (digest §2): the average of `k` i.i.d. vertices
/// drawn from `p`.
pub fn maurey_average<R: Rng + ?Sized>(p: &[f64], k: usize, rng: &mut R) -> SparseAverage {
    let mut scratch = SamplerScratch::default();
    sample_sorted(p, k, rng, &mut scratch);
    let mut avg = SparseAverage::default();
    avg.fill_from_sorted(&scratch.draws);
    avg
}

/// Splits `count + 1` sorted i.i.d. draws into the `count` gradient draws
/// (kept sorted, in `draws`) and one output vertex, chosen at a uniformly
/// random position. By exchangeability the output vertex is an independent
/// draw from the same law and the rest are `count` i.i.d. draws.
pub fn split_output_vertex<R: Rng + ?Sized>(draws: &mut Vec<usize>, rng: &mut R) -> usize {
    let pos = rng.random_range(0..draws.len());
    draws.remove(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// The softmax as written before the fused passes: a sequential max,
    /// then `exp`, then the division; then `p.iter().sum()` and the average.
    fn reference(theta: &[f64], p: &mut [f64], avg: &mut [f64], w: f64) -> f64 {
        let m = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for (o, t) in p.iter_mut().zip(theta) {
            *o = (t - m).exp();
            total += *o;
        }
        p.iter_mut().for_each(|o| *o /= total);
        avg.iter_mut().zip(p.iter()).for_each(|(v, q)| *v += w * q);
        p.iter().sum()
    }

    #[test]
    fn fused_softmax_passes_equal_the_plain_ones_bit_for_bit() {
        // Over 200 steps (three recentrings) of random gradients, at lengths
        // that end inside and on a 4-lane chunk, the 4-lane maximum, the
        // pair softmax and the single softmax must give the plain passes'
        // probabilities and sums bit for bit.
        let mut rng = Pcg64::seed_from_u64(41);
        for d in [1, 5, 64, 301] {
            let (mut a, mut b) = (LogWeights::uniform(d), LogWeights::uniform(d));
            let (mut pa, mut pb, mut pr) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
            let (mut va, mut vb) = (vec![0.0; d], vec![0.0; d]);
            let (mut ra, mut rb) = (vec![0.0; d], vec![0.0; d]);
            let same =
                |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits());
            for t in 0..200 {
                let w = 1.0 / (t + 1) as f64;
                let (sa, sb) = LogWeights::probabilities_pair(&a, &b, &mut pa, &mut pb);
                // Alg. 1's average, as it adds it.
                va.iter_mut().zip(&pa).for_each(|(v, q)| *v += w * q);
                vb.iter_mut().zip(&pb).for_each(|(v, q)| *v += w * q);
                let sr = reference(&a.theta, &mut pr, &mut ra, w);
                assert!(same(&pa, &pr) && same(&va, &ra) && sa.to_bits() == sr.to_bits());
                let sr = reference(&b.theta, &mut pr, &mut rb, w);
                assert!(same(&pb, &pr) && same(&vb, &rb) && sb.to_bits() == sr.to_bits());
                let s1 = a.probabilities_into(&mut pr);
                assert!(same(&pa, &pr) && s1.to_bits() == sa.to_bits());
                let ga: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
                let gb: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
                a.step(-0.7, &ga);
                b.step(0.7, &gb);
            }
        }
    }
}
