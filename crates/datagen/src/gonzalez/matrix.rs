//! The mean payoff matrix `A_bar = E[A(z)]` of the bilinear games (digest
//! §6.3 G1 i-iv): dense and stored row-major (small `d`), dense and
//! generated lazily from a counter-based hash of `(seed, i, j)`
//! ([`LazyDense`]: no `d^2` storage, up to `d = 2^16`), or low rank
//! `rho sum_k c_k u_k v_k^T` with an optional planted "cross" (up to
//! `d = 2^20`, mat-vecs in `O(r (d_x + d_y))`).
//!
//! The planted cross at `(r, c)` with margin `m` overwrites row `r` by `-m`
//! and column `c` by `+m`, with `A_bar[r][c] = 0`. Then `(e_r, e_c)` is a
//! pure saddle point of value 0: `max_j A_bar[r][j] = 0` and
//! `min_i A_bar[i][c] = 0`, whatever the other entries.

use dpcore::saddle::SimplexPoint;

pub use super::lazy::LazyDense;
use super::low_rank::{self, Output};
pub use super::low_rank::{PlantedCross, RankOneTerm, MAX_RANK};

/// `A_bar`, `d_x x d_y`.
#[derive(Debug, Clone, PartialEq)]
pub enum MeanMatrix {
    /// Dense, row-major.
    Dense {
        /// `d_x`.
        rows: usize,
        /// `d_y`.
        cols: usize,
        /// Entries, row-major.
        data: Vec<f64>,
    },
    /// Dense, entries generated on demand from `(seed, i, j)` (no storage).
    Lazy(LazyDense),
    /// `sum_k c_k u_k v_k^T`, with row and column of `cross` overwritten.
    LowRank {
        /// `d_x`.
        rows: usize,
        /// `d_y`.
        cols: usize,
        /// The rank-one terms (at most [`MAX_RANK`]).
        terms: Vec<RankOneTerm>,
        /// The optional planted cross.
        cross: Option<PlantedCross>,
    },
}

impl MeanMatrix {
    /// A stored copy with the same entries ([`MeanMatrix::Dense`], `d_x d_y`
    /// values: small matrices only, e.g. to check a lazy matrix's mat-vecs).
    pub fn materialise(&self) -> MeanMatrix {
        let (rows, cols) = self.dims();
        let mut data = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            data.extend((0..cols).map(|j| self.entry(i, j)));
        }
        MeanMatrix::Dense { rows, cols, data }
    }

    /// The same matrix with a lazy matrix's entries stored
    /// ([`LazyDense::cached`]: faster mat-vecs over dense points, the same
    /// results bit for bit); other kinds are returned unchanged.
    pub fn with_cached_entries(self) -> MeanMatrix {
        match self {
            MeanMatrix::Lazy(m) => MeanMatrix::Lazy(m.cached()),
            other => other,
        }
    }

    /// `(d_x, d_y)`.
    pub fn dims(&self) -> (usize, usize) {
        match self {
            MeanMatrix::Dense { rows, cols, .. } | MeanMatrix::LowRank { rows, cols, .. } => {
                (*rows, *cols)
            }
            MeanMatrix::Lazy(m) => m.dims(),
        }
    }

    /// A guaranteed bound on `max_ij |A_bar[i][j]|`: exact for stored dense
    /// matrices, `rho` (or `max(rho, margin)`) for lazy ones without a scan.
    pub fn max_abs_bound(&self) -> f64 {
        match self {
            MeanMatrix::Dense { data, .. } => data.iter().fold(0.0, |m, a| m.max(a.abs())),
            MeanMatrix::Lazy(m) => m.max_abs_bound(),
            MeanMatrix::LowRank { terms, cross, .. } => {
                let low: f64 = terms
                    .iter()
                    .map(|t| {
                        let mu = t.u.iter().fold(0.0f64, |m, a| m.max(a.abs()));
                        let mv = t.v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
                        t.coefficient.abs() * mu * mv
                    })
                    .sum();
                cross.map_or(low, |c| low.max(c.margin))
            }
        }
    }

    /// The entry `A_bar[i][j]`.
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        match self {
            MeanMatrix::Dense { cols, data, .. } => data[i * cols + j],
            MeanMatrix::Lazy(m) => m.entry(i, j),
            MeanMatrix::LowRank { terms, cross, .. } => {
                if let Some(c) = cross {
                    if i == c.row {
                        return if j == c.col { 0.0 } else { -c.margin };
                    }
                    if j == c.col {
                        return c.margin;
                    }
                }
                terms.iter().map(|t| t.coefficient * t.u[i] * t.v[j]).sum()
            }
        }
    }

    /// `out += weight * A_bar y`.
    pub fn add_mul(&self, weight: f64, y: SimplexPoint<'_>, out: &mut [f64]) {
        match self {
            MeanMatrix::Dense { cols, data, .. } => match y {
                SimplexPoint::Dense(y) => {
                    for (o, row) in out.iter_mut().zip(data.chunks_exact(*cols)) {
                        *o += weight * row.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
                    }
                }
                SimplexPoint::Sparse { .. } => {
                    for (o, row) in out.iter_mut().zip(data.chunks_exact(*cols)) {
                        *o += weight * y.dot(row);
                    }
                }
            },
            MeanMatrix::Lazy(m) => m.add_mul(weight, y, out),
            MeanMatrix::LowRank { terms, cross, .. } => {
                low_rank::add_mul(terms, *cross, weight, y, out, Output::Add)
            }
        }
    }

    /// `out = A_bar y`, bit for bit as `out.fill(0.0)` then
    /// [`Self::add_mul`] with weight 1; the low-rank matrix writes it in
    /// one pass, without zeroing `out` first.
    pub fn mul_into(&self, y: SimplexPoint<'_>, out: &mut [f64]) {
        match self {
            MeanMatrix::LowRank { terms, cross, .. } => {
                low_rank::add_mul(terms, *cross, 1.0, y, out, Output::Set)
            }
            _ => {
                out.fill(0.0);
                self.add_mul(1.0, y, out);
            }
        }
    }

    /// `out = A_bar^T x`, bit for bit as `out.fill(0.0)` then
    /// [`Self::add_tmul`] with weight 1 (see [`Self::mul_into`]).
    pub fn tmul_into(&self, x: SimplexPoint<'_>, out: &mut [f64]) {
        match self {
            MeanMatrix::LowRank { terms, cross, .. } => {
                low_rank::add_tmul(terms, *cross, 1.0, x, out, Output::Set)
            }
            _ => {
                out.fill(0.0);
                self.add_tmul(1.0, x, out);
            }
        }
    }

    /// `out += weight * A_bar^T x`.
    pub fn add_tmul(&self, weight: f64, x: SimplexPoint<'_>, out: &mut [f64]) {
        match self {
            MeanMatrix::Dense { cols, data, .. } => x.for_each(|i, p| {
                if p != 0.0 {
                    let row = &data[i * cols..(i + 1) * cols];
                    out.iter_mut()
                        .zip(row)
                        .for_each(|(o, a)| *o += weight * p * a);
                }
            }),
            MeanMatrix::Lazy(m) => m.add_tmul(weight, x, out),
            MeanMatrix::LowRank { terms, cross, .. } => {
                low_rank::add_tmul(terms, *cross, weight, x, out, Output::Add)
            }
        }
    }
}
