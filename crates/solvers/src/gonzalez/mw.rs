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
    /// `max_j theta_j`, kept by [`Self::step`] (its update pass finds it).
    max: f64,
    steps: usize,
}

impl LogWeights {
    /// The uniform distribution on `d` vertices (`theta = 0`).
    pub fn uniform(d: usize) -> Self {
        Self {
            theta: vec![0.0; d],
            max: if d == 0 { f64::NEG_INFINITY } else { 0.0 },
            steps: 0,
        }
    }

    /// The log-weights `theta`.
    pub fn log_weights(&self) -> &[f64] {
        &self.theta
    }

    /// `theta += scale * g` (entropic mirror step; `scale = -tau` descends).
    ///
    /// The same pass keeps `max theta` over four lanes for the next softmax,
    /// which then reads `theta` once instead of twice (Alg. 1 at `d = 2^16`).
    pub fn step(&mut self, scale: f64, g: &[f64]) {
        let n = self.theta.len().min(g.len());
        let (head, rest) = self.theta.split_at_mut(n);
        let mut lanes = [f64::NEG_INFINITY; 4];
        let mut chunks = head.chunks_exact_mut(4);
        let mut g_chunks = g[..n].chunks_exact(4);
        for (c, gc) in (&mut chunks).zip(&mut g_chunks) {
            for ((t, gj), l) in c.iter_mut().zip(gc).zip(lanes.iter_mut()) {
                *t += scale * gj;
                *l = larger(*l, *t);
            }
        }
        let mut m = larger(larger(lanes[0], lanes[1]), larger(lanes[2], lanes[3]));
        for (t, gj) in chunks.into_remainder().iter_mut().zip(g_chunks.remainder()) {
            *t += scale * gj;
            m = larger(m, *t);
        }
        self.max = rest.iter().copied().fold(m, larger);
        self.steps += 1;
        if self.steps.is_multiple_of(RECENTRE_EVERY) {
            let m = self.max;
            self.theta.iter_mut().for_each(|t| *t -= m);
            self.max = self.max_scan();
        }
    }

    /// Writes `softmax(theta)` into `out` and returns `sum_j out_j` summed
    /// in index order (`out.iter().sum()`, bit for bit), which
    /// [`sample_sorted_with_total`] takes instead of summing again.
    ///
    /// The max shift is taken over four lanes (by [`Self::step`]): the
    /// maximum of the same values whatever the order, except that `f64::max`
    /// may return either zero of `+-0`, which `exp(t - m)` cannot tell apart
    /// (`t - 0 = t - (-0)` but for `t = -0`, and `exp(+-0) = 1`). One
    /// sequential `max` chain was latency-bound (4 cycles an entry, as long
    /// as the `exp`s at `d = 2^14`); so was the sampler's separate sum of
    /// `p`, now carried by the division pass.
    pub fn probabilities_into(&self, out: &mut [f64]) -> f64 {
        let m = self.max;
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

/// `max(a, b)` in `maxpd`'s form, `b` when `b > a` and `a` otherwise: the
/// maximum [`LogWeights::step`] keeps, in one form for its vector lanes and
/// its remainder (`f64::max`'s NaN rule kept the lane loop scalar). It may
/// differ from `f64::max` in the sign of a zero only, which the softmax
/// cannot see (see [`LogWeights::probabilities_into`]).
#[inline(always)]
fn larger(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

impl LogWeights {
    /// `max_j theta_j` over four lanes (see [`Self::probabilities_into`]),
    /// by a pass of its own (after a recentring).
    fn max_scan(&self) -> f64 {
        let mut lanes = [f64::NEG_INFINITY; 4];
        let chunks = self.theta.chunks_exact(4);
        let tail = chunks.remainder();
        for c in chunks {
            for (l, &t) in lanes.iter_mut().zip(c) {
                *l = larger(*l, t);
            }
        }
        let m = larger(larger(lanes[0], lanes[1]), larger(lanes[2], lanes[3]));
        tail.iter().copied().fold(m, larger)
    }

    /// [`Self::probabilities_into`] of two players at once, bit for bit,
    /// with Alg. 1's bookkeeping in the same passes: each player's
    /// `average += weight * p` and the [`PrefixSums`] its sampler searches.
    /// Returns `(sum pa, sum pb)`. Each player's sums are sequential chains
    /// of dependent additions (the normaliser, carried across the `exp`
    /// calls, and the sum of `p`); interleaving the two players' chains in
    /// one loop lets them overlap (Alg. 1 at `d = 2^14`: these passes took
    /// about 60% of a step). The divisions and the averages of a block of
    /// [`PREFIX_BLOCK`] coordinates go first, in a loop without a chain
    /// that the compiler vectorises, then the block's two sums. Players of
    /// different sizes go one at a time.
    pub fn probabilities_pair(
        a: &LogWeights,
        b: &LogWeights,
        out_a: SoftmaxOut<'_>,
        out_b: SoftmaxOut<'_>,
        weight: f64,
    ) -> (f64, f64) {
        let n = a.theta.len();
        let lengths = [
            out_a.p.len(),
            out_b.p.len(),
            out_a.average.len(),
            out_b.average.len(),
        ];
        if b.theta.len() != n || lengths.iter().any(|&l| l != n) {
            return (a.softmax_out(out_a, weight), b.softmax_out(out_b, weight));
        }
        let (pa, pb) = (out_a.p, out_b.p);
        let (ma, mb) = (a.max, b.max);
        let exp = dpcore::exp::exp();
        let (mut ta, mut tb) = (0.0, 0.0);
        for j in 0..n {
            let (ea, eb) = (exp.of(a.theta[j] - ma), exp.of(b.theta[j] - mb));
            pa[j] = ea;
            pb[j] = eb;
            ta += ea;
            tb += eb;
        }
        out_a.prefix.ends.clear();
        out_b.prefix.ends.clear();
        let (mut sa, mut sb) = (-0.0, -0.0);
        let blocks = pa
            .chunks_mut(PREFIX_BLOCK)
            .zip(pb.chunks_mut(PREFIX_BLOCK))
            .zip(out_a.average.chunks_mut(PREFIX_BLOCK))
            .zip(out_b.average.chunks_mut(PREFIX_BLOCK));
        for (((ca, cb), va), vb) in blocks {
            divide_and_average(ca, ta, va, weight);
            divide_and_average(cb, tb, vb, weight);
            for (oa, ob) in ca.iter().zip(cb.iter()) {
                sa += *oa;
                sb += *ob;
            }
            if ca.len() == PREFIX_BLOCK {
                out_a.prefix.ends.push(sa);
                out_b.prefix.ends.push(sb);
            }
        }
        (sa, sb)
    }

    /// One player's [`Self::probabilities_pair`].
    fn softmax_out(&self, out: SoftmaxOut<'_>, weight: f64) -> f64 {
        let sum = self.probabilities_into(out.p);
        out.average
            .iter_mut()
            .zip(out.p.iter())
            .for_each(|(v, q)| *v += weight * q);
        out.prefix.fill(out.p);
        sum
    }
}

/// `p /= total` and `average += weight * p`, entry by entry.
fn divide_and_average(p: &mut [f64], total: f64, average: &mut [f64], weight: f64) {
    for (o, v) in p.iter_mut().zip(average.iter_mut()) {
        *o /= total;
        *v += weight * *o;
    }
}

/// Coordinates between two stored sums of [`PrefixSums`].
pub const PREFIX_BLOCK: usize = 64;

/// The partial sums `p_0 + ... + p_{(b+1) B - 1}` (`B` = [`PREFIX_BLOCK`]),
/// each summed in index order as the sampler's own sweep sums them, so
/// [`sample_sorted_with_prefix`] can skip whole blocks and sweep only the
/// one a target falls in.
#[derive(Debug, Clone, Default)]
pub struct PrefixSums {
    ends: Vec<f64>,
}

impl PrefixSums {
    /// The sums of `p`'s full blocks, by a pass of their own.
    pub fn fill(&mut self, p: &[f64]) {
        self.ends.clear();
        let mut sum = -0.0;
        for block in p.chunks_exact(PREFIX_BLOCK) {
            block.iter().for_each(|w| sum += w);
            self.ends.push(sum);
        }
    }

    /// The stored sums, one per full block.
    pub fn ends(&self) -> &[f64] {
        &self.ends
    }
}

/// One player's outputs of [`LogWeights::probabilities_pair`].
#[derive(Debug)]
pub struct SoftmaxOut<'a> {
    /// The probabilities `softmax(theta)`.
    pub p: &'a mut [f64],
    /// The running average, `average += weight * p`.
    pub average: &'a mut [f64],
    /// The block sums of `p` for [`sample_sorted_with_prefix`].
    pub prefix: &'a mut PrefixSums,
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
    draw_targets(total, count, rng, scratch);
    sweep_targets(p, scratch);
}

/// [`sample_sorted_with_total`] given also `p`'s [`PrefixSums`] (as
/// [`LogWeights::probabilities_pair`] writes them): the same draws and the
/// same random stream, bit for bit, in `O(count (log(d/B) + B))` instead of
/// a sweep of up to `d` dependent additions (`B` = [`PREFIX_BLOCK`]; at
/// `d = 2^16` the sweep took 12% of Alg. 1's time).
///
/// The sweep draws index `i` for a target `t` when the running sum
/// `p_0 + ... + p_i` first exceeds `t`. The running sums only grow, so that
/// `i` lies in the first block whose stored end sum exceeds `t`, and the
/// sum at the block's start is the previous block's stored end: the same
/// additions in the same order (up to the sign of a zero, which no
/// comparison sees). A target at or above `total` (only when one rounds up
/// to it) falls back to the sweep.
pub fn sample_sorted_with_prefix<R: Rng + ?Sized>(
    p: &[f64],
    prefix: &PrefixSums,
    total: f64,
    count: usize,
    rng: &mut R,
    scratch: &mut SamplerScratch,
) {
    draw_targets(total, count, rng, scratch);
    let ends = prefix.ends();
    let sound =
        ends.len() == p.len() / PREFIX_BLOCK && scratch.targets.last().is_some_and(|&t| t < total);
    if !sound || !search_targets(p, ends, scratch) {
        scratch.draws.clear();
        sweep_targets(p, scratch);
    }
}

/// The sorted targets: normalised partial sums of `count + 1` `Exp(1)`
/// draws, scaled to `total` (module docs).
fn draw_targets<R: Rng + ?Sized>(
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
}

/// One sweep of the running sum of `p` past every target.
fn sweep_targets(p: &[f64], scratch: &mut SamplerScratch) {
    let count = scratch.targets.len();
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

/// [`sweep_targets`] by blocks (see [`sample_sorted_with_prefix`]); false
/// if a target was not reached before the end of `p`.
fn search_targets(p: &[f64], ends: &[f64], scratch: &mut SamplerScratch) -> bool {
    // `cum` is the sum of `p[..i]`; right after a draw at `i - 1`.
    let (mut cum, mut i) = (0.0, 0);
    for (k, &t) in scratch.targets.iter().enumerate() {
        if k > 0 && cum > t {
            scratch.draws.push(i - 1);
            continue;
        }
        let block = i / PREFIX_BLOCK;
        if block < ends.len() && ends[block] <= t {
            let skip = ends[block + 1..].partition_point(|&e| e <= t);
            let start = block + 1 + skip;
            i = start * PREFIX_BLOCK;
            cum = ends[start - 1];
        }
        loop {
            let Some(&w) = p.get(i) else {
                return false;
            };
            i += 1;
            if w > 0.0 {
                cum += w;
                if cum > t {
                    scratch.draws.push(i - 1);
                    break;
                }
            }
        }
    }
    true
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
        assert_eq!(
            m.to_bits(),
            theta.iter().copied().fold(m, f64::max).to_bits()
        );
        let mut total = 0.0;
        for (o, t) in p.iter_mut().zip(theta) {
            *o = (t - m).exp();
            total += *o;
        }
        p.iter_mut().for_each(|o| *o /= total);
        avg.iter_mut().zip(p.iter()).for_each(|(v, q)| *v += w * q);
        p.iter().sum()
    }

    /// The running sums of `p` at the end of each full block, summed one
    /// entry at a time as the sweep does.
    fn block_ends(p: &[f64]) -> Vec<f64> {
        let mut cum = -0.0;
        let mut ends = Vec::new();
        for (i, w) in p.iter().enumerate() {
            cum += w;
            if (i + 1) % PREFIX_BLOCK == 0 {
                ends.push(cum);
            }
        }
        ends
    }

    #[test]
    fn fused_softmax_passes_equal_the_plain_ones_bit_for_bit() {
        // Over 200 steps (three recentrings) of random gradients, at lengths
        // that end inside and on a 4-lane chunk, the 4-lane maximum, the
        // pair softmax and the single softmax must give the plain passes'
        // probabilities and sums bit for bit.
        let mut rng = Pcg64::seed_from_u64(41);
        for d in [1, 5, 64, 301, 1000] {
            let (mut a, mut b) = (LogWeights::uniform(d), LogWeights::uniform(d));
            let (mut pa, mut pb, mut pr) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
            let (mut va, mut vb) = (vec![0.0; d], vec![0.0; d]);
            let (mut ra, mut rb) = (vec![0.0; d], vec![0.0; d]);
            let same =
                |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits());
            let (mut ca, mut cb) = (PrefixSums::default(), PrefixSums::default());
            for t in 0..200 {
                let w = 1.0 / (t + 1) as f64;
                let (sa, sb) = LogWeights::probabilities_pair(
                    &a,
                    &b,
                    SoftmaxOut {
                        p: &mut pa,
                        average: &mut va,
                        prefix: &mut ca,
                    },
                    SoftmaxOut {
                        p: &mut pb,
                        average: &mut vb,
                        prefix: &mut cb,
                    },
                    w,
                );
                let sr = reference(&a.theta, &mut pr, &mut ra, w);
                assert!(same(&pa, &pr) && same(&va, &ra) && sa.to_bits() == sr.to_bits());
                assert!(same_bits(ca.ends(), &block_ends(&pr)));
                let sr = reference(&b.theta, &mut pr, &mut rb, w);
                assert!(same(&pb, &pr) && same(&vb, &rb) && sb.to_bits() == sr.to_bits());
                assert!(same_bits(cb.ends(), &block_ends(&pr)));
                let s1 = a.probabilities_into(&mut pr);
                assert!(same(&pa, &pr) && s1.to_bits() == sa.to_bits());
                let ga: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
                let gb: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
                a.step(-0.7, &ga);
                b.step(0.7, &gb);
            }
        }
    }

    #[test]
    fn the_block_search_draws_what_the_sweep_draws_bit_for_bit() {
        // Softmax vectors of 1 to 700 entries (ends inside and on a block;
        // very peaked ones, whose tails are exact zeros), 1 to 40 draws:
        // the block search must give the sweep's draws and leave the random
        // stream where the sweep leaves it. Then targets that round up to
        // the total (a vector with its mass in one early entry) take the
        // fallback, as must a prefix that does not belong to `p`.
        let mut rng = Pcg64::seed_from_u64(43);
        let (mut swept, mut searched) = (SamplerScratch::default(), SamplerScratch::default());
        let mut prefix = PrefixSums::default();
        for case in 0..600 {
            let d = 1 + (case * 37) % 700;
            let spread = [0.5, 5.0, 800.0][case % 3];
            let mut w = LogWeights::uniform(d);
            let g: Vec<f64> = (0..d).map(|_| rng.random_range(-spread..spread)).collect();
            w.step(1.0, &g);
            let mut p = vec![0.0; d];
            let total = w.probabilities_into(&mut p);
            prefix.fill(&p);
            assert!(same_bits(prefix.ends(), &block_ends(&p)));
            let count = 1 + case % 40;
            let (mut r1, mut r2) = (
                Pcg64::seed_from_u64(case as u64),
                Pcg64::seed_from_u64(case as u64),
            );
            sample_sorted_with_total(&p, total, count, &mut r1, &mut swept);
            sample_sorted_with_prefix(&p, &prefix, total, count, &mut r2, &mut searched);
            assert_eq!(swept.draws, searched.draws, "d = {d}, count = {count}");
            assert_eq!(r1.random::<u64>(), r2.random::<u64>());
            // The search itself, not its fallback, found them.
            let mut direct = SamplerScratch::default();
            draw_targets(
                total,
                count,
                &mut Pcg64::seed_from_u64(case as u64),
                &mut direct,
            );
            assert!(search_targets(&p, prefix.ends(), &mut direct));
            assert_eq!(direct.draws, swept.draws);
        }
        let mut p = vec![0.0; 200];
        p[3] = 1.0;
        prefix.fill(&p);
        let (mut r1, mut r2) = (Pcg64::seed_from_u64(7), Pcg64::seed_from_u64(7));
        // A total below the mass puts every target under it, one above it
        // puts targets past the end of the sums.
        for total in [0.5, 1.5] {
            sample_sorted_with_total(&p, total, 5, &mut r1, &mut swept);
            sample_sorted_with_prefix(&p, &prefix, total, 5, &mut r2, &mut searched);
            assert_eq!(swept.draws, searched.draws);
        }
        let stale = PrefixSums::default();
        sample_sorted_with_total(&p, 1.0, 5, &mut r1, &mut swept);
        sample_sorted_with_prefix(&p, &stale, 1.0, 5, &mut r2, &mut searched);
        assert_eq!(swept.draws, searched.draws);
    }

    fn same_bits(x: &[f64], y: &[f64]) -> bool {
        x.len() == y.len() && x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits())
    }
}
