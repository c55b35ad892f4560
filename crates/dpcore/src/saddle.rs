//! Problem interfaces over simplices for González, Guzmán & Paquette (2024),
//! "Mirror descent with nearly dimension-independent rates for DP stochastic
//! saddle points" (`../shared/papers/digests/gonzalez-guzman-paquette-dp-saddle.md`).
//!
//! Saddle problems do not fit [`crate::Objective`] (two players, a duality gap
//! instead of an excess risk, `l1/l-inf` geometry), so this module holds the
//! three small object-safe traits the runner builds and hands to
//! `solvers::gonzalez`:
//!
//! - [`SaddleProblem`]: `min_{x in Delta_x} max_{y in Delta_y} E f(x, y; z)`
//!   (digest §1.2), with record gradients and the exact population gap;
//! - [`SimplexSco`]: `min_{x in Delta_x} E f(x; z)` (digest §3.4, §6.3 G4),
//!   with the exact population excess risk;
//! - [`QueryRelease`]: linear-query release over a finite domain (digest
//!   §3.5, §6.3 G5), with the exact population query answers.
//!
//! Points are passed as [`SimplexPoint`], dense or sparse, so that oracles
//! evaluated at a Maurey-sparsified point (`K` vertices, digest §2) cost
//! `O(K)` per record where the family allows it. Record `i` is the `i`-th
//! record of the sampled data set `S`; algorithms that use each record once
//! (one pass, disjoint batches, digest pitfall 2) pass disjoint ranges.

use std::ops::Range;

/// A point of a simplex, stored densely or as `(index, weight)` pairs (all
/// other coordinates zero). Weights are nonnegative and sum to one.
#[derive(Debug, Clone, Copy)]
pub enum SimplexPoint<'a> {
    /// All `d` coordinates.
    Dense(&'a [f64]),
    /// The support: strictly increasing indices and their weights.
    Sparse {
        /// Support indices, strictly increasing.
        indices: &'a [usize],
        /// Weights of the support indices.
        weights: &'a [f64],
    },
}

impl SimplexPoint<'_> {
    /// Calls `f(j, p_j)` for every coordinate that may be nonzero.
    pub fn for_each(&self, mut f: impl FnMut(usize, f64)) {
        match *self {
            SimplexPoint::Dense(p) => p.iter().enumerate().for_each(|(j, &v)| f(j, v)),
            SimplexPoint::Sparse { indices, weights } => {
                indices.iter().zip(weights).for_each(|(&j, &v)| f(j, v))
            }
        }
    }

    /// `<p, v>` for a dense vector `v`.
    pub fn dot(&self, v: &[f64]) -> f64 {
        let mut s = 0.0;
        self.for_each(|j, p| s += p * v[j]);
        s
    }

    /// The coordinate `p_j` (`O(log K)` for a sparse point).
    pub fn coordinate(&self, j: usize) -> f64 {
        match *self {
            SimplexPoint::Dense(p) => p[j],
            SimplexPoint::Sparse { indices, weights } => {
                indices.binary_search(&j).map(|k| weights[k]).unwrap_or(0.0)
            }
        }
    }
}

/// Smoothness constants in the `l1/l-inf` geometry (digest §1.1), jointly in
/// `(x, y)` for saddle problems, derived from the family's definition and
/// never from the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimplexConstants {
    /// `L0`: `||grad f(., z)||_inf <= L0` at every point of the domain, for
    /// every record. The privacy of every algorithm rests on it (pitfall 1).
    pub l0: f64,
    /// `L1`: `||grad f(u) - grad f(u')||_inf <= L1 ||u - u'||_1`.
    pub l1: f64,
    /// `L2`: every partial derivative is `L2`-smooth w.r.t. `l1`;
    /// `f64::INFINITY` for families that are first-order smooth only.
    pub l2: f64,
    /// Whether the gradient is affine in the point (bilinear or quadratic
    /// `f`), so that Maurey sampling gives an unbiased gradient (`beta_K = 0`).
    pub affine_gradient: bool,
}

/// A stochastic convex-concave saddle problem over `Delta_x x Delta_y`
/// (digest §1.2) with a sampled data set of `n` records.
pub trait SaddleProblem: Send + Sync {
    /// `(d_x, d_y)`.
    fn dims(&self) -> (usize, usize);
    /// Number of records `n` of the sampled data set.
    fn num_records(&self) -> usize;
    /// The family's constants.
    fn constants(&self) -> SimplexConstants;
    /// Adds `weight * grad_x f(x, y; z_i)` to `gx` and
    /// `weight * grad_y f(x, y; z_i)` to `gy` (the plain partial gradients;
    /// algorithms ascend in `y`).
    fn accumulate_record_gradient(
        &self,
        i: usize,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
    );
    /// Overwrites `gx, gy` with the average gradient over the records in
    /// `records` (non-empty). Families override it to share work between
    /// records (e.g. `A_bar y` once per batch).
    fn batch_gradient(
        &self,
        records: Range<usize>,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        gx.fill(0.0);
        gy.fill(0.0);
        let w = 1.0 / records.len() as f64;
        for i in records {
            self.accumulate_record_gradient(i, x, y, w, gx, gy);
        }
    }
    /// [`Self::batch_gradient`] at several points over the same records:
    /// `out[p]` gets exactly what `batch_gradient(records, points[p].0,
    /// points[p].1, ..)` writes, bit for bit. Families override it to share
    /// a record's work between the points (Alg. 3 evaluates three points
    /// on each batch, and a record's hashed noise is the same at all of
    /// them).
    fn batch_gradients(
        &self,
        records: Range<usize>,
        points: &[(SimplexPoint<'_>, SimplexPoint<'_>)],
        out: &mut [(&mut [f64], &mut [f64])],
    ) {
        for (&(x, y), (gx, gy)) in points.iter().zip(out.iter_mut()) {
            self.batch_gradient(records.clone(), x, y, gx, gy);
        }
    }
    /// Population gradient `(grad_x F_D, grad_y F_D)` at `(x, y)` (used for
    /// the non-private bias diagnostics of digest §7.1 and the tests).
    fn population_gradient(
        &self,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        gx: &mut [f64],
        gy: &mut [f64],
    );
    /// The exact strong population duality gap
    /// `max_w F_D(x, w) - min_v F_D(v, y)` (digest §1.2, §6.3), for dense
    /// `x` (length `d_x`) and `y` (length `d_y`) in the simplices.
    fn duality_gap(&self, x: &[f64], y: &[f64]) -> f64;
}

/// A stochastic convex problem over the simplex `Delta_d` (DP-SCO,
/// digest §3.4) with a sampled data set of `n` records.
pub trait SimplexSco: Send + Sync {
    /// Dimension `d`.
    fn dim(&self) -> usize;
    /// Number of records `n`.
    fn num_records(&self) -> usize;
    /// The family's constants.
    fn constants(&self) -> SimplexConstants;
    /// Adds `weight * grad f(w; z_i)` to `g`.
    fn accumulate_record_gradient(&self, i: usize, w: SimplexPoint<'_>, weight: f64, g: &mut [f64]);
    /// Overwrites `g` with the average gradient over `records` (non-empty).
    fn batch_gradient(&self, records: Range<usize>, w: SimplexPoint<'_>, g: &mut [f64]) {
        g.fill(0.0);
        let weight = 1.0 / records.len() as f64;
        for i in records {
            self.accumulate_record_gradient(i, w, weight, g);
        }
    }
    /// The exact population excess risk `F_D(w) - min_{Delta} F_D` for dense
    /// `w` in the simplex.
    fn excess_risk(&self, w: &[f64]) -> f64;
}

/// Linear-query release over a finite domain `Z` (digest §3.5): queries
/// `q_j: Z -> [-1, 1]`, a sampled data set of `n` records in `Z`, and the
/// population answers `q_j(D)` in closed form. The query class must be closed
/// under negation (digest §3.5 ambiguity).
pub trait QueryRelease: Send + Sync {
    /// `|Z|`.
    fn domain_size(&self) -> usize;
    /// `|Q|`.
    fn num_queries(&self) -> usize;
    /// Number of records `n`.
    fn num_records(&self) -> usize;
    /// Writes `q_j` as a vector over `Z` into `out` (length `|Z|`).
    fn query_vector(&self, j: usize, out: &mut [f64]);
    /// Writes `<q_j, h>` for every query into `out` (length `|Q|`), for a
    /// histogram `h` over `Z` (a probability vector).
    fn answers(&self, histogram: &[f64], out: &mut [f64]);
    /// Writes the empirical answers `q_j(S)` into `out`.
    fn empirical_answers(&self, out: &mut [f64]);
    /// The population answers `q_j(D)` (exact).
    fn population_answers(&self) -> &[f64];
    /// The metric of digest §7.1: `max_j |q_j(D) - <q_j, h>|`.
    fn max_error(&self, histogram: &[f64]) -> f64 {
        let mut a = vec![0.0; self.num_queries()];
        self.answers(histogram, &mut a);
        a.iter()
            .zip(self.population_answers())
            .map(|(x, p)| (x - p).abs())
            .fold(0.0, f64::max)
    }
}
