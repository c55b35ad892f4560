//! A dense mean matrix whose entries are never stored (digest §6.3 G1-i and
//! G1-ii up to `d = 2^16`): entry `(i, j)` is a pure function of
//! `(seed, i, j)` through the counter-based hash of [`super::counter`],
//!
//! `A_bar[i][j] = rho (2 u(seed, i, j) - 1)`, `u` uniform on `[0, 1)` with 53
//! random bits, so `|A_bar[i][j]| <= rho` holds exactly (`2u - 1` is exact in
//! `f64` and lies in `[-1, 1)`),
//!
//! with an optional planted cross ([`PlantedCross`]: row `i*` equal to
//! `-margin`, column `j*` equal to `+margin`, `A_bar[i*][j*] = 0`). Storage
//! is `O(1)`; a mat-vec streams the rows it needs, one mixer call per entry
//! (the row's partial key [`key2`] is computed once per row), so the exact
//! gap costs `O(d^2)` hash evaluations and no `d^2` memory. Entries are the
//! same whatever the access order, so every mat-vec agrees with
//! [`LazyDense::entry`] up to the rounding of the summation order.

use dpcore::saddle::SimplexPoint;

use super::counter::{key2, uniform_keyed};
use super::matrix::PlantedCross;

/// Lazily generated dense `d_x x d_y` matrix (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LazyDense {
    rows: usize,
    cols: usize,
    seed: u64,
    rho: f64,
    cross: Option<PlantedCross>,
}

/// Below this fraction of nonzero coordinates, a dense point is multiplied
/// through its support (the released points of Alg. 1 are averages of at
/// most `T` vertices).
const SPARSE_FRACTION: usize = 4;

/// Up to this support size `A_bar^T x` is accumulated row by row (one row
/// key per support row, contiguous writes), above it column by column.
const ROW_WISE_SUPPORT: usize = 8;

impl LazyDense {
    /// The matrix keyed by `seed` with off-cross entries in `[-rho, rho]`.
    ///
    /// # Panics
    /// If a dimension is 0, `rho` is negative or not finite, or the cross
    /// lies outside the matrix or has a negative or non-finite margin.
    pub fn new(rows: usize, cols: usize, seed: u64, rho: f64, cross: Option<PlantedCross>) -> Self {
        assert!(rows > 0 && cols > 0, "empty matrix");
        assert!(rho.is_finite() && rho >= 0.0, "rho must be finite and >= 0");
        if let Some(c) = cross {
            assert!(c.row < rows && c.col < cols, "cross outside the matrix");
            assert!(
                c.margin.is_finite() && c.margin >= 0.0,
                "margin must be finite and >= 0"
            );
        }
        Self {
            rows,
            cols,
            seed,
            rho,
            cross,
        }
    }

    /// `(d_x, d_y)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The key of the entries.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The half-width `rho` of the off-cross entries.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The planted cross, if any.
    pub fn cross(&self) -> Option<PlantedCross> {
        self.cross
    }

    /// A guaranteed bound on `max_ij |A_bar[i][j]|` without a scan: `rho`,
    /// or `max(rho, margin)` with a cross (module docs).
    pub fn max_abs_bound(&self) -> f64 {
        self.cross.map_or(self.rho, |c| self.rho.max(c.margin))
    }

    /// The off-cross entry of column `j` in the row of partial key `key`.
    #[inline]
    fn value(&self, key: u64, j: usize) -> f64 {
        self.rho * (2.0 * uniform_keyed(key, j as u64) - 1.0)
    }

    /// The partial key of row `i`.
    #[inline]
    fn row_key(&self, i: usize) -> u64 {
        key2(self.seed, i as u64)
    }

    /// The entry `A_bar[i][j]`.
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        if let Some(c) = self.cross {
            if i == c.row {
                return if j == c.col { 0.0 } else { -c.margin };
            }
            if j == c.col {
                return c.margin;
            }
        }
        self.value(self.row_key(i), j)
    }

    /// `sum_{j in range} A_bar[i][j] y_j` over an off-cross stretch of the
    /// row of partial key `key` (four accumulators, so the sum is not
    /// latency-bound).
    fn dot_stretch(&self, key: u64, start: usize, y: &[f64]) -> f64 {
        let (mut a0, mut a1, mut a2, mut a3) = (0.0, 0.0, 0.0, 0.0);
        let chunks = y.chunks_exact(4);
        let tail = chunks.remainder();
        let mut j = start;
        for yc in chunks {
            a0 += self.value(key, j) * yc[0];
            a1 += self.value(key, j + 1) * yc[1];
            a2 += self.value(key, j + 2) * yc[2];
            a3 += self.value(key, j + 3) * yc[3];
            j += 4;
        }
        let rest: f64 = (j..).zip(tail).map(|(j, &p)| self.value(key, j) * p).sum();
        (a0 + a1) + (a2 + a3) + rest
    }

    /// `(A_bar y)_i` for a dense `y`.
    fn row_dot_dense(&self, i: usize, y: &[f64]) -> f64 {
        match self.cross {
            Some(c) if i == c.row => {
                -c.margin
                    * y.iter()
                        .enumerate()
                        .fold(0.0, |s, (j, p)| if j == c.col { s } else { s + p })
            }
            Some(c) => {
                let key = self.row_key(i);
                self.dot_stretch(key, 0, &y[..c.col])
                    + c.margin * y[c.col]
                    + self.dot_stretch(key, c.col + 1, &y[c.col + 1..])
            }
            None => self.dot_stretch(self.row_key(i), 0, y),
        }
    }

    /// `(A_bar y)_i` for `y` given by its support.
    fn row_dot_sparse(&self, i: usize, indices: &[usize], weights: &[f64]) -> f64 {
        let pairs = indices.iter().zip(weights);
        match self.cross {
            Some(c) if i == c.row => {
                -c.margin
                    * pairs
                        .filter(|(&j, _)| j != c.col)
                        .map(|(_, p)| p)
                        .sum::<f64>()
            }
            cross => {
                let key = self.row_key(i);
                pairs
                    .map(|(&j, &p)| match cross {
                        Some(c) if j == c.col => c.margin * p,
                        _ => self.value(key, j) * p,
                    })
                    .sum()
            }
        }
    }

    /// `out += weight * A_bar y`. Costs `d_x |supp y|` entries (a dense `y`
    /// with few nonzeros is multiplied through its support).
    pub fn add_mul(&self, weight: f64, y: SimplexPoint<'_>, out: &mut [f64]) {
        match y {
            SimplexPoint::Dense(y) => {
                let nnz = y.iter().filter(|&&p| p != 0.0).count();
                if nnz * SPARSE_FRACTION > self.cols {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o += weight * self.row_dot_dense(i, y);
                    }
                } else {
                    let (indices, weights): (Vec<usize>, Vec<f64>) = y
                        .iter()
                        .enumerate()
                        .filter(|(_, &p)| p != 0.0)
                        .map(|(j, &p)| (j, p))
                        .unzip();
                    self.add_mul_sparse(weight, &indices, &weights, out);
                }
            }
            SimplexPoint::Sparse { indices, weights } => {
                self.add_mul_sparse(weight, indices, weights, out)
            }
        }
    }

    fn add_mul_sparse(&self, weight: f64, indices: &[usize], weights: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o += weight * self.row_dot_sparse(i, indices, weights);
        }
    }

    /// `out[range] += s * A_bar[i][range]` over an off-cross stretch of the
    /// row of partial key `key`.
    fn axpy_stretch(&self, key: u64, start: usize, s: f64, out: &mut [f64]) {
        for (j, o) in (start..).zip(out.iter_mut()) {
            *o += s * self.value(key, j);
        }
    }

    /// `sum_k A_bar[i_k][j] w_k` over off-cross rows given by their partial
    /// keys. Four scalar accumulators over the four quarters of the rows:
    /// packing four consecutive keys into vectors makes the compiler emulate
    /// 64-bit multiplies, slower than scalar ones.
    fn column_dot(&self, keys: &[u64], weights: &[f64], j: usize) -> f64 {
        let q = keys.len() / 4;
        let (k0, k) = keys.split_at(q);
        let (k1, k) = k.split_at(q);
        let (k2, k) = k.split_at(q);
        let (k3, kt) = k.split_at(q);
        let (w0, w) = weights.split_at(q);
        let (w1, w) = w.split_at(q);
        let (w2, w) = w.split_at(q);
        let (w3, wt) = w.split_at(q);
        let (mut a0, mut a1, mut a2, mut a3) = (0.0, 0.0, 0.0, 0.0);
        for r in 0..q {
            a0 += self.value(k0[r], j) * w0[r];
            a1 += self.value(k1[r], j) * w1[r];
            a2 += self.value(k2[r], j) * w2[r];
            a3 += self.value(k3[r], j) * w3[r];
        }
        let rest: f64 = kt.iter().zip(wt).map(|(&k, &w)| self.value(k, j) * w).sum();
        (a0 + a1) + (a2 + a3) + rest
    }

    /// `out += weight * A_bar^T x`. Costs `d_y |supp x|` entries: row by row
    /// for a small support (the Maurey points), column by column otherwise.
    pub fn add_tmul(&self, weight: f64, x: SimplexPoint<'_>, out: &mut [f64]) {
        let nnz = match x {
            SimplexPoint::Dense(x) => x.iter().filter(|&&p| p != 0.0).count(),
            SimplexPoint::Sparse { indices, .. } => indices.len(),
        };
        if nnz > ROW_WISE_SUPPORT {
            return self.add_tmul_by_columns(weight, x, out);
        }
        x.for_each(|i, p| {
            if p == 0.0 {
                return;
            }
            let s = weight * p;
            match self.cross {
                Some(c) if i == c.row => {
                    for (j, o) in out.iter_mut().enumerate() {
                        if j != c.col {
                            *o -= s * c.margin;
                        }
                    }
                }
                Some(c) => {
                    let key = self.row_key(i);
                    let (left, rest) = out.split_at_mut(c.col);
                    self.axpy_stretch(key, 0, s, left);
                    rest[0] += s * c.margin;
                    self.axpy_stretch(key, c.col + 1, s, &mut rest[1..]);
                }
                None => self.axpy_stretch(self.row_key(i), 0, s, out),
            }
        });
    }

    fn add_tmul_by_columns(&self, weight: f64, x: SimplexPoint<'_>, out: &mut [f64]) {
        let (mut keys, mut weights) = (Vec::new(), Vec::new());
        let mut cross_row_weight = 0.0;
        x.for_each(|i, p| match self.cross {
            _ if p == 0.0 => {}
            Some(c) if i == c.row => cross_row_weight = p,
            _ => {
                keys.push(self.row_key(i));
                weights.push(p);
            }
        });
        for (j, o) in out.iter_mut().enumerate() {
            let v = match self.cross {
                Some(c) if j == c.col => c.margin * weights.iter().sum::<f64>(),
                Some(c) => self.column_dot(&keys, &weights, j) - c.margin * cross_row_weight,
                None => self.column_dot(&keys, &weights, j),
            };
            *o += weight * v;
        }
    }
}
