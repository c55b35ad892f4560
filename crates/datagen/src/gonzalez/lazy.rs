//! A dense mean matrix whose entries need not be stored (digest §6.3 G1-i and
//! G1-ii up to `d = 2^16`): entry `(i, j)` is a pure function of
//! `(seed, i, j)` through the counter-based hash of [`super::counter`],
//!
//! `A_bar[i][j] = rho (2 u(seed, i, j) - 1)`, `u` uniform on `[0, 1)` with 53
//! random bits, so `|A_bar[i][j]| <= rho` holds exactly (`2u - 1` is exact in
//! `f64` and lies in `[-1, 1)`),
//!
//! with an optional planted cross ([`PlantedCross`]: row `i*` equal to
//! `-margin`, column `j*` equal to `+margin`, `A_bar[i*][j*] = 0`). Storage
//! is `O(1)` (uncached); a mat-vec streams the rows it needs, one mixer call per entry
//! (the row's partial key [`key2`] is computed once per row), so the exact
//! gap costs `O(d^2)` hash evaluations and no `d^2` memory. Entries are the
//! same whatever the access order, so every mat-vec agrees with
//! [`LazyDense::entry`] up to the rounding of the summation order.
//!
//! For small `d`, [`LazyDense::cached`] stores the same entries once
//! (`d_x d_y` values): the mat-vecs over dense points then read them instead
//! of hashing (memory is faster than the hash when the matrix fits the
//! caches, e.g. for algorithms that multiply by dense iterates at every
//! step), in the same summation order, so a cached matrix gives bit for bit
//! the results of the uncached one. Products with points of small support
//! (the Maurey points) always hash: a gather from a large stored matrix
//! misses the caches.

use std::fmt;
use std::sync::Arc;

use dpcore::saddle::SimplexPoint;

use super::counter::{key2, uniform_keyed};
use super::matrix::PlantedCross;

/// Lazily generated dense `d_x x d_y` matrix (module docs).
#[derive(Clone)]
pub struct LazyDense {
    rows: usize,
    cols: usize,
    seed: u64,
    rho: f64,
    cross: Option<PlantedCross>,
    /// The entries, row-major, once [`LazyDense::cached`] stored them.
    cache: Option<Arc<[f64]>>,
}

impl fmt::Debug for LazyDense {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyDense")
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("seed", &self.seed)
            .field("rho", &self.rho)
            .field("cross", &self.cross)
            .field("cached", &self.cache.is_some())
            .finish()
    }
}

/// Equal when the entries are: the cache is a function of the other fields.
impl PartialEq for LazyDense {
    fn eq(&self, other: &Self) -> bool {
        (self.rows, self.cols, self.seed, self.rho, self.cross)
            == (other.rows, other.cols, other.seed, other.rho, other.cross)
    }
}

/// The four quarters of `v` and the remainder (the row split of the
/// column sums).
fn quarters<T>(v: &[T]) -> [&[T]; 5] {
    let q = v.len() / 4;
    let (a, r) = v.split_at(q);
    let (b, r) = r.split_at(q);
    let (c, r) = r.split_at(q);
    let (d, tail) = r.split_at(q);
    [a, b, c, d, tail]
}

/// Columns per block of the cached column sums (4 KiB of each row).
const COLUMN_BLOCK: usize = 512;

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
            cache: None,
        }
    }

    /// The same matrix with its `d_x d_y` entries stored (module docs):
    /// faster mat-vecs over dense points, the same results bit for bit.
    pub fn cached(mut self) -> Self {
        let mut data = Vec::with_capacity(self.rows * self.cols);
        for i in 0..self.rows {
            let key = self.row_key(i);
            data.extend((0..self.cols).map(|j| match self.cross {
                Some(c) if i == c.row || j == c.col => self.entry(i, j),
                _ => self.value(key, j),
            }));
        }
        self.cache = Some(data.into());
        self
    }

    /// Whether the entries are stored ([`LazyDense::cached`]).
    pub fn is_cached(&self) -> bool {
        self.cache.is_some()
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

    /// `sum_{j in start..start + y.len()} A_bar[i][j] y_j` over an
    /// off-cross stretch of row `i` (partial key `key`), from the cache if
    /// any.
    ///
    /// Four accumulators (`j mod 4` within the stretch), so the sum is not
    /// latency-bound; the hashed and the cached loops have the same order,
    /// hence the same rounding. (Written out: through a shared closure the
    /// compiler packs the hashes into 2-lane vectors, emulating the 64-bit
    /// multiplies, twice as slow as scalar code.)
    fn dot_stretch(&self, i: usize, key: u64, start: usize, y: &[f64]) -> f64 {
        let (mut a0, mut a1, mut a2, mut a3) = (0.0, 0.0, 0.0, 0.0);
        let chunks = y.chunks_exact(4);
        let tail = chunks.remainder();
        let rest: f64 = match &self.cache {
            Some(cache) => {
                let row = &cache[i * self.cols + start..][..y.len()];
                for (yc, ec) in chunks.zip(row.chunks_exact(4)) {
                    a0 += ec[0] * yc[0];
                    a1 += ec[1] * yc[1];
                    a2 += ec[2] * yc[2];
                    a3 += ec[3] * yc[3];
                }
                let row_tail = &row[y.len() - tail.len()..];
                row_tail.iter().zip(tail).map(|(&e, &p)| e * p).sum()
            }
            None => {
                let mut j = start;
                for yc in chunks {
                    a0 += self.value(key, j) * yc[0];
                    a1 += self.value(key, j + 1) * yc[1];
                    a2 += self.value(key, j + 2) * yc[2];
                    a3 += self.value(key, j + 3) * yc[3];
                    j += 4;
                }
                (j..).zip(tail).map(|(j, &p)| self.value(key, j) * p).sum()
            }
        };
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
                self.dot_stretch(i, key, 0, &y[..c.col])
                    + c.margin * y[c.col]
                    + self.dot_stretch(i, key, c.col + 1, &y[c.col + 1..])
            }
            None => self.dot_stretch(i, self.row_key(i), 0, y),
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
    /// keys. Four scalar accumulators over the four quarters of the rows
    /// (packing four consecutive keys into vectors makes the compiler
    /// emulate 64-bit multiplies, slower than scalar ones).
    fn column_dot(&self, keys: &[u64], weights: &[f64], j: usize) -> f64 {
        let [k0, k1, k2, k3, kt] = quarters(keys);
        let [w0, w1, w2, w3, wt] = quarters(weights);
        let (mut a0, mut a1, mut a2, mut a3) = (0.0, 0.0, 0.0, 0.0);
        for r in 0..k0.len() {
            a0 += self.value(k0[r], j) * w0[r];
            a1 += self.value(k1[r], j) * w1[r];
            a2 += self.value(k2[r], j) * w2[r];
            a3 += self.value(k3[r], j) * w3[r];
        }
        let rest: f64 = kt.iter().zip(wt).map(|(&k, &w)| self.value(k, j) * w).sum();
        (a0 + a1) + (a2 + a3) + rest
    }

    /// [`Self::column_dot`] of the columns `j0..j0 + sums.len()` from the
    /// cache, in the same order (so the same rounding), a block of columns
    /// at a time so that the rows are read contiguously.
    fn column_block_cached(
        &self,
        cache: &[f64],
        rows: &[usize],
        weights: &[f64],
        j0: usize,
        sums: &mut [f64],
    ) {
        let [r0, r1, r2, r3, rt] = quarters(rows);
        let [w0, w1, w2, w3, wt] = quarters(weights);
        let b = sums.len();
        let mut acc = [[0.0f64; COLUMN_BLOCK]; 4];
        for r in 0..r0.len() {
            let lanes = [
                (r0[r], w0[r]),
                (r1[r], w1[r]),
                (r2[r], w2[r]),
                (r3[r], w3[r]),
            ];
            for (a, &(i, w)) in acc.iter_mut().zip(&lanes) {
                let row = &cache[i * self.cols + j0..][..b];
                for (a, &e) in a.iter_mut().zip(row) {
                    *a += e * w;
                }
            }
        }
        for (t, s) in sums.iter_mut().enumerate() {
            let j = j0 + t;
            let rest: f64 = rt
                .iter()
                .zip(wt)
                .map(|(&i, &w)| cache[i * self.cols + j] * w)
                .sum();
            *s = (acc[0][t] + acc[1][t]) + (acc[2][t] + acc[3][t]) + rest;
        }
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
        let (mut rows, mut weights) = (Vec::new(), Vec::new());
        let mut cross_row_weight = 0.0;
        x.for_each(|i, p| match self.cross {
            _ if p == 0.0 => {}
            Some(c) if i == c.row => cross_row_weight = p,
            _ => {
                rows.push(i);
                weights.push(p);
            }
        });
        // Column j's value from its off-cross sum (unused for the cross
        // column, whose entries are all +-margin or 0).
        let finish = |j: usize, dot: f64| match self.cross {
            Some(c) if j == c.col => c.margin * weights.iter().sum::<f64>(),
            Some(c) => dot - c.margin * cross_row_weight,
            None => dot,
        };
        match &self.cache {
            Some(cache) => {
                let mut sums = [0.0; COLUMN_BLOCK];
                for (block, outs) in out.chunks_mut(COLUMN_BLOCK).enumerate() {
                    let j0 = block * COLUMN_BLOCK;
                    let sums = &mut sums[..outs.len()];
                    self.column_block_cached(cache, &rows, &weights, j0, sums);
                    for (t, (o, &dot)) in outs.iter_mut().zip(sums.iter()).enumerate() {
                        *o += weight * finish(j0 + t, dot);
                    }
                }
            }
            None => {
                let keys: Vec<u64> = rows.iter().map(|&i| self.row_key(i)).collect();
                for (j, o) in out.iter_mut().enumerate() {
                    *o += weight * finish(j, self.column_dot(&keys, &weights, j));
                }
            }
        }
    }
}
