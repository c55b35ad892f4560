//! What an iterative private algorithm releases along the way.
//!
//! An accountant composes over every noisy release of a run (each noisy
//! gradient, each noisy norm), not only over the final point, so a printed
//! calibration that undercharges one step leaks in the transcript even when
//! the final point hides it (Menart et al.'s negative `N_t`, digest §2.4).
//! An algorithm that supports transcript audits reports each Gaussian
//! release to a [`Transcript`]: what it estimates, where, the released
//! value and its noise scale. The audit (`papers`, per entry) turns that
//! into the transcript's privacy loss on its pair.

use dpcore::saddle::SimplexPoint;
use std::ops::Range;

/// The quantity a Gaussian release estimates, as a function of the query
/// point and the data set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Query {
    /// The mean of the per-record gradients clipped to norm `clip`.
    ClippedMeanGradient {
        /// Clipping norm.
        clip: f64,
    },
    /// The Euclidean norm of [`Query::ClippedMeanGradient`] (a scalar).
    ClippedMeanGradientNorm {
        /// Clipping norm.
        clip: f64,
    },
    /// The sum of the per-record gradients clipped to norm `clip` over a
    /// Poisson sample (each record in with probability `rate`), divided by
    /// the fixed `batch` (Bassily et al.'s `A_NSGD`). The sample is secret:
    /// the release's distribution on a data set is the mixture over samples,
    /// so an observer computing a privacy loss marginalises over it and
    /// must not read the realised batch's mean handed to it.
    PoissonBatchMeanGradient {
        /// Clipping norm.
        clip: f64,
        /// Sampling probability `q`.
        rate: f64,
        /// The fixed divisor `m`.
        batch: f64,
    },
    /// The sum of the per-record gradients clipped to norm `clip` over
    /// `draws` indices drawn uniformly **with replacement** from the
    /// `records` records, divided by `draws` (Bassily et al.'s Algorithm 1
    /// as printed, digest P5): record `i` enters `r_i ~ Binomial(draws,
    /// 1/records)` times. The draws are secret, as a Poisson sample's: an
    /// observer computing a privacy loss marginalises over the
    /// multiplicities and must not read the realised batch's mean.
    WithReplacementBatchMeanGradient {
        /// Clipping norm.
        clip: f64,
        /// Records drawn from, `n`.
        records: usize,
        /// Indices drawn (and the divisor), `m`.
        draws: usize,
    },
    /// The mean over records of `clip(grad f(w') - grad f(w))` (norm
    /// `clip`), a Spider difference (Menart et al.'s Algorithm 1). The
    /// release's `at` holds the two points, `w'` then `w`, concatenated
    /// (length `2d`).
    ClippedMeanGradientDifference {
        /// Clipping norm.
        clip: f64,
    },
    /// The **sum** over the rows last handed to [`Transcript::rows`] of the
    /// hinge subgradient `-y s z/c` of each row whose margin `y s <z, w>`
    /// is below `c` (Wang et al.'s `A_NGD`; `s` the row's clip factor).
    HingeGradientSum {
        /// The hinge `c`.
        hinge: f64,
    },
    /// A selection score (a scalar): the 0-1 error, ties counted as
    /// errors, over the rows last handed to [`Transcript::rows`], of the
    /// point last handed to [`Transcript::output`], plus a data-independent
    /// penalty (Wang et al.'s `A_Iter` scores).
    ZeroOneScore,
}

/// Receives every Gaussian release of a run, in order.
pub trait Transcript {
    /// `released = mean + N(0, sigma^2 I)`, `mean` being `query` at the
    /// point `at` on the run's data set, whose clipped mean gradient there
    /// is `gradient` (given so that an observer need not recompute it).
    fn gaussian(
        &mut self,
        query: Query,
        at: &[f64],
        gradient: &[f64],
        released: &[f64],
        sigma: f64,
    );

    /// The rows (row-major, `labels.len()` of them) that the following
    /// releases are computed from, after the algorithm's data-independent
    /// transforms (a JL projection), each used as `scale[i]` times its row:
    /// an observer of a run on a known pair computes the other side's
    /// releases from them. Ignored by default.
    fn rows(&mut self, _rows: &[f64], _labels: &[f64], _scale: &[f64]) {}

    /// The point a base run outputs (a post-processing of its releases),
    /// at which a following [`Query::ZeroOneScore`] is computed. Ignored by
    /// default.
    fn output(&mut self, _point: &[f64]) {}

    /// Sorted i.i.d. `draws` (indices) from player `player`'s distribution
    /// `weights / total` (0: the min player `x`, 1: the max player `y`),
    /// released (González et al.'s vertex samples, an exponential mechanism
    /// each). Ignored by default.
    fn vertices(&mut self, _player: usize, _weights: &[f64], _total: f64, _draws: &[usize]) {}

    /// Player `player`'s multiplicative-weights distribution at this step
    /// (not itself released: González et al.'s Algorithm 4 draws its
    /// vertices from the running average of these, so an observer of a
    /// known pair, who could recompute it from the data and the earlier
    /// draws, averages them too). Ignored by default.
    fn distribution(&mut self, _player: usize, _p: &[f64]) {}

    /// One entropic mirror step: the players' log-weights moved by `step_x`
    /// (resp. `step_y`) times the mean gradient over `records` at the point
    /// `(x, y)`, which is a function of earlier releases. An observer of a
    /// run on a known pair follows the two sides' log-weights apart from it.
    /// Ignored by default.
    fn mirror_step(
        &mut self,
        _records: Range<usize>,
        _x: SimplexPoint<'_>,
        _y: SimplexPoint<'_>,
        _step_x: f64,
        _step_y: f64,
    ) {
    }

    /// Whether anything reads the releases: a solver may skip assembling
    /// them (one vector a step) when nothing does.
    fn observes(&self) -> bool {
        true
    }
}

/// A transcript nobody reads (the ordinary runs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl Transcript for Unobserved {
    fn gaussian(&mut self, _: Query, _: &[f64], _: &[f64], _: &[f64], _: f64) {}

    fn observes(&self) -> bool {
        false
    }
}
