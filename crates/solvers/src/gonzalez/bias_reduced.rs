//! Algorithm 2, BiasReducedGradient (digest §3.2; multilevel Monte Carlo à la
//! Blanchet–Glynn), with the corrected truncated-geometric normaliser.
//!
//! `N ~ TG(1/2, M)`: `P(N = k) = 2^-k / C_M`, `C_M = 2 - 2^-M`
//! (`mechanisms::stopping::TruncatedGeometric`; the paper's "`p <= C_M <= 1`"
//! is the erratum). Draw `2^{N+1}` i.i.d. vertices per player, in draw
//! order; `x_bar_+` averages all of them, `x_bar_-` the **first half**
//! (coupled), `x_0` is the first. Then
//! `g = C_M 2^N [grad(x_bar_+, y_bar_+) - grad(x_bar_-, y_bar_-)] + grad(x_0, y_0)`,
//! whose expectation telescopes to `E grad(x_bar_{+,M}, y_bar_{+,M})`, the
//! gradient at an average of `2^{M+1}` vertices (bias `<= 2 L2 / 2^M`,
//! Lemma 4.3).

use std::ops::Range;

use dpcore::saddle::{SaddleProblem, SimplexPoint};
use rand::{Rng, RngExt};

use super::mw::{sample_sorted, SamplerScratch, SparseAverage};
use crate::transcript::{Transcript, Unobserved};

/// Reused buffers of [`bias_reduced_gradient`].
#[derive(Debug, Clone, Default)]
pub struct BiasReducedScratch {
    sampler: SamplerScratch,
    order: Vec<usize>,
    half: Vec<usize>,
    points: [SparseAverage; 6],
    tmp: (Vec<f64>, Vec<f64>),
    tmp_minus: (Vec<f64>, Vec<f64>),
}

/// Draws `count` i.i.d. indices from `p` in draw order (sorted draws
/// shuffled uniformly, which restores an i.i.d. sequence) into `order`.
fn iid_sequence<R: Rng + ?Sized>(
    p: &[f64],
    count: usize,
    rng: &mut R,
    sampler: &mut SamplerScratch,
    order: &mut Vec<usize>,
) {
    sample_sorted(p, count, rng, sampler);
    order.clear();
    order.extend_from_slice(&sampler.draws);
    for i in (1..order.len()).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
}

/// Fills `plus` (from the sorted draws), `minus` (first half of the draw
/// order) and `zero` (first draw) (module docs).
fn levels(sorted: &[usize], order: &[usize], half: &mut Vec<usize>, points: &mut [SparseAverage]) {
    points[0].fill_from_sorted(sorted);
    half.clear();
    half.extend_from_slice(&order[..order.len() / 2]);
    half.sort_unstable();
    points[1].fill_from_sorted(half);
    points[2].fill_from_sorted(&order[..1]);
}

/// Algorithm 2 at level `level = N` with normaliser `c_m`: writes `g_x, g_y`
/// (plain partial gradients; callers ascend in `y`) given the players'
/// probability vectors and a gradient oracle `grad(x, y, gx, gy)` (a batch
/// gradient in Alg. 3, the population gradient in tests).
#[allow(clippy::too_many_arguments)]
pub fn bias_reduced_gradient<R: Rng + ?Sized>(
    px: &[f64],
    py: &[f64],
    level: u32,
    c_m: f64,
    mut grad: impl FnMut(SimplexPoint<'_>, SimplexPoint<'_>, &mut [f64], &mut [f64]),
    rng: &mut R,
    s: &mut BiasReducedScratch,
    gx: &mut [f64],
    gy: &mut [f64],
) {
    draw_points(px, py, level, rng, s);
    let (xs, ys) = s.points.split_at(3);
    let weight = c_m * (1u64 << level) as f64;
    let (tx, ty) = (&mut s.tmp.0, &mut s.tmp.1);
    tx.resize(px.len(), 0.0);
    ty.resize(py.len(), 0.0);
    grad(xs[2].point(), ys[2].point(), gx, gy);
    grad(xs[0].point(), ys[0].point(), tx, ty);
    add_scaled(weight, tx, gx);
    add_scaled(weight, ty, gy);
    grad(xs[1].point(), ys[1].point(), tx, ty);
    add_scaled(-weight, tx, gx);
    add_scaled(-weight, ty, gy);
}

/// `g += a t` (`a = -w` gives `g -= w t` exactly: `(-w) t = -(w t)`).
fn add_scaled(a: f64, t: &[f64], g: &mut [f64]) {
    g.iter_mut().zip(t).for_each(|(g, t)| *g += a * t);
}

/// Draws the `2^{level+1}` vertices of each player and fills the three
/// points of each (module docs).
fn draw_points<R: Rng + ?Sized>(
    px: &[f64],
    py: &[f64],
    level: u32,
    rng: &mut R,
    s: &mut BiasReducedScratch,
) {
    draw_points_observed(px, py, level, &mut Unobserved, rng, s);
}

/// [`draw_points`], handing `transcript` each player's draws (the multiset:
/// their order is exchangeable, so it carries nothing about the data).
fn draw_points_observed<R: Rng + ?Sized>(
    px: &[f64],
    py: &[f64],
    level: u32,
    transcript: &mut dyn Transcript,
    rng: &mut R,
    s: &mut BiasReducedScratch,
) {
    let count = 1usize << (level + 1);
    let (xs, ys) = s.points.split_at_mut(3);
    let observed = transcript.observes();
    iid_sequence(px, count, rng, &mut s.sampler, &mut s.order);
    if observed {
        transcript.vertices(0, px, px.iter().sum(), &s.sampler.draws);
    }
    levels(&s.sampler.draws, &s.order, &mut s.half, xs);
    iid_sequence(py, count, rng, &mut s.sampler, &mut s.order);
    if observed {
        transcript.vertices(1, py, py.iter().sum(), &s.sampler.draws);
    }
    levels(&s.sampler.draws, &s.order, &mut s.half, ys);
}

/// [`bias_reduced_gradient`] with the batch gradient of `problem` over
/// `records` as the oracle (Alg. 3): the same draws and the same result bit
/// for bit, with the three points evaluated in one pass over the records
/// ([`SaddleProblem::batch_gradients`]).
#[allow(clippy::too_many_arguments)]
pub fn bias_reduced_batch_gradient<R: Rng + ?Sized>(
    px: &[f64],
    py: &[f64],
    level: u32,
    c_m: f64,
    problem: &dyn SaddleProblem,
    records: Range<usize>,
    rng: &mut R,
    s: &mut BiasReducedScratch,
    gx: &mut [f64],
    gy: &mut [f64],
) {
    let oracle = BatchOracle { problem, records };
    bias_reduced_batch_gradient_observed(
        px,
        py,
        level,
        c_m,
        oracle,
        (1.0, 1.0),
        &mut Unobserved,
        rng,
        s,
        (gx, gy),
    );
}

/// The batch oracle of [`bias_reduced_batch_gradient_observed`]: `problem`'s
/// mean gradient over `records`.
pub struct BatchOracle<'a> {
    /// The game.
    pub problem: &'a dyn SaddleProblem,
    /// The batch.
    pub records: Range<usize>,
}

/// [`bias_reduced_batch_gradient`], handing `transcript` each player's
/// `2^{level+1}` draws and the mirror step the result will make with
/// `steps = (step_x, step_y)`, as three [`Transcript::mirror_step`]s (the
/// gradient is a linear combination of the batch gradients at the three
/// points: `g(p2) + w (g(p0) - g(p1))`). Same draws and result bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn bias_reduced_batch_gradient_observed<R: Rng + ?Sized>(
    px: &[f64],
    py: &[f64],
    level: u32,
    c_m: f64,
    oracle: BatchOracle<'_>,
    steps: (f64, f64),
    transcript: &mut dyn Transcript,
    rng: &mut R,
    s: &mut BiasReducedScratch,
    (gx, gy): (&mut [f64], &mut [f64]),
) {
    let BatchOracle { problem, records } = oracle;
    draw_points_observed(px, py, level, transcript, rng, s);
    let (xs, ys) = s.points.split_at(3);
    let weight = c_m * (1u64 << level) as f64;
    if transcript.observes() {
        let (sx, sy) = steps;
        for (k, c) in [(2, 1.0), (0, weight), (1, -weight)] {
            transcript.mirror_step(
                records.clone(),
                xs[k].point(),
                ys[k].point(),
                c * sx,
                c * sy,
            );
        }
    }
    let (tx, ty) = (&mut s.tmp.0, &mut s.tmp.1);
    let (ux, uy) = (&mut s.tmp_minus.0, &mut s.tmp_minus.1);
    for v in [&mut *tx, &mut *ux] {
        v.resize(px.len(), 0.0);
    }
    for v in [&mut *ty, &mut *uy] {
        v.resize(py.len(), 0.0);
    }
    problem.batch_gradients(
        records,
        &[
            (xs[2].point(), ys[2].point()),
            (xs[0].point(), ys[0].point()),
            (xs[1].point(), ys[1].point()),
        ],
        &mut [
            (&mut *gx, &mut *gy),
            (&mut tx[..], &mut ty[..]),
            (&mut ux[..], &mut uy[..]),
        ],
    );
    // In the order of `bias_reduced_gradient`'s updates.
    add_scaled(weight, tx, gx);
    add_scaled(weight, ty, gy);
    add_scaled(-weight, ux, gx);
    add_scaled(-weight, uy, gy);
}
