//! The mat-vecs of [`MeanMatrix::LowRank`](super::matrix::MeanMatrix),
//! `rho sum_k c_k u_k v_k^T` with an optional planted cross, blocked over
//! the output coordinates.
//!
//! Each output entry gets exactly the operations of the row-at-a-time form
//! (kept in the tests as the reference): the rank sum `sum_k s_k u_k[i]`
//! from `-0.0` in term order (as `Iterator::sum`), the cross correction
//! `sum_k (c_k u_k[i]) v_k[j*]` likewise, then `(margin - lic) y_{j*}`, so
//! the results are the same bit for bit. What changes is the loop order: a
//! block of 256 outputs is swept once per term over contiguous factors (the
//! compiler vectorises it), and the cross column's coordinate, the cross
//! row's mass and the `c_k u_k[i*]` products are computed once per call,
//! not once per entry. At `d = 2^14` the two mat-vecs per step of Alg. 1
//! took 59% of `ggp_alg1_d` (2026-11-28 profile, PERFORMANCE.md).

use dpcore::saddle::SimplexPoint;

/// Largest rank of a [`MeanMatrix::LowRank`](super::matrix::MeanMatrix) (its inner products are kept in
/// a stack array).
pub const MAX_RANK: usize = 16;

/// One term `coefficient * u v^T` of a low-rank matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct RankOneTerm {
    /// Coefficient `c_k`.
    pub coefficient: f64,
    /// Left factor `u_k` (length `d_x`).
    pub u: Vec<f64>,
    /// Right factor `v_k` (length `d_y`).
    pub v: Vec<f64>,
}

/// The planted pure saddle `(e_row, e_col)` of digest §6.3 G1-ii.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlantedCross {
    /// The min-player's equilibrium row `i*`.
    pub row: usize,
    /// The max-player's equilibrium column `j*`.
    pub col: usize,
    /// The margin `Delta_m` in `(0, 1]`.
    pub margin: f64,
}

/// Whether a mat-vec adds into its output or overwrites it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Output {
    /// `out += weight * v`.
    Add,
    /// `out = 0.0 + weight * v`: what `Add` gives on a zeroed output, bit
    /// for bit (`0.0 + x` turns `-0.0` into `+0.0`), without reading it or
    /// zeroing it first (the zeroing took 4% of `ggp_alg1_d` at `d = 2^16`).
    Set,
}

/// Outputs per block (2 KiB of partial sums on the stack).
const BLOCK: usize = 256;

/// `sum_{j != skip} p_j` in the point's order.
fn mass_without(p: SimplexPoint<'_>, skip: usize) -> f64 {
    let mut rest = 0.0;
    p.for_each(|j, v| {
        if j != skip {
            rest += v
        }
    });
    rest
}

/// `out += weight * A_bar y` (or `=`, by `mode`), at the run's [`dpcore::simd::level`].
pub(super) fn add_mul(
    terms: &[RankOneTerm],
    cross: Option<PlantedCross>,
    weight: f64,
    y: SimplexPoint<'_>,
    out: &mut [f64],
    mode: Output,
) {
    add_mul_at(dpcore::simd::level(), terms, cross, weight, y, out, mode)
}

dpcore::dispatch_by_level! {
    /// [`add_mul`] at a given level (the same bits at every level).
    fn add_mul_at<'a>(
        terms: &'a [RankOneTerm],
        cross: Option<PlantedCross>,
        weight: f64,
        y: SimplexPoint<'a>,
        out: &'a mut [f64],
        mode: Output,
    ) -> () => add_mul_body
}

/// `out += weight * A_bar y` (the body every level of [`add_mul_at`]
/// compiles).
#[inline(always)]
fn add_mul_body(
    terms: &[RankOneTerm],
    cross: Option<PlantedCross>,
    weight: f64,
    y: SimplexPoint<'_>,
    out: &mut [f64],
    mode: Output,
) {
    let mut s = [0.0; MAX_RANK];
    for (sk, t) in s.iter_mut().zip(terms) {
        *sk = t.coefficient * y.dot(&t.v);
    }
    // The cross column's entries of each term, its coordinate of y and the
    // cross row's value: constants of the call.
    let mut vcol = [0.0; MAX_RANK];
    let fixed = cross.map(|c| {
        for (vc, t) in vcol.iter_mut().zip(terms) {
            *vc = t.v[c.col];
        }
        (c, y.coordinate(c.col), -c.margin * mass_without(y, c.col))
    });
    let mut v = [0.0; BLOCK];
    let mut lic = [0.0; BLOCK];
    for (b, ob) in out.chunks_mut(BLOCK).enumerate() {
        let i0 = b * BLOCK;
        let v = &mut v[..ob.len()];
        v.fill(-0.0);
        for (t, sk) in terms.iter().zip(&s) {
            for (vi, u) in v.iter_mut().zip(&t.u[i0..]) {
                *vi += sk * u;
            }
        }
        if let Some((c, yc, cross_row)) = fixed {
            if yc == 0.0 {
                // `(margin - lic) * 0` is a zero, which leaves every nonzero
                // `v` unchanged: only zeros (whose sign it may flip) need it.
                // A Maurey point off the cross column (K = 1: all but one
                // draw in d) skips this second sweep over the factors.
                for (r, vi) in v.iter_mut().enumerate().filter(|(_, vi)| **vi == 0.0) {
                    let l = terms
                        .iter()
                        .zip(&vcol)
                        .fold(-0.0, |l, (t, vc)| l + t.coefficient * t.u[i0 + r] * vc);
                    *vi += (c.margin - l) * yc;
                }
            } else {
                let lic = &mut lic[..ob.len()];
                lic.fill(-0.0);
                for (t, vc) in terms.iter().zip(&vcol) {
                    for (l, u) in lic.iter_mut().zip(&t.u[i0..]) {
                        *l += t.coefficient * u * vc;
                    }
                }
                for (vi, l) in v.iter_mut().zip(lic.iter()) {
                    *vi += (c.margin - l) * yc;
                }
            }
            if (i0..i0 + ob.len()).contains(&c.row) {
                v[c.row - i0] = cross_row;
            }
        }
        match mode {
            Output::Add => ob
                .iter_mut()
                .zip(v.iter())
                .for_each(|(o, vi)| *o += weight * vi),
            Output::Set => ob
                .iter_mut()
                .zip(v.iter())
                .for_each(|(o, vi)| *o = 0.0 + weight * vi),
        }
    }
}

/// `out += weight * A_bar^T x` (or `=`, by `mode`), at the run's [`dpcore::simd::level`].
pub(super) fn add_tmul(
    terms: &[RankOneTerm],
    cross: Option<PlantedCross>,
    weight: f64,
    x: SimplexPoint<'_>,
    out: &mut [f64],
    mode: Output,
) {
    add_tmul_at(dpcore::simd::level(), terms, cross, weight, x, out, mode)
}

dpcore::dispatch_by_level! {
    /// [`add_tmul`] at a given level (the same bits at every level).
    fn add_tmul_at<'a>(
        terms: &'a [RankOneTerm],
        cross: Option<PlantedCross>,
        weight: f64,
        x: SimplexPoint<'a>,
        out: &'a mut [f64],
        mode: Output,
    ) -> () => add_tmul_body
}

/// `out += weight * A_bar^T x` (the body every level of [`add_tmul_at`]
/// compiles).
#[inline(always)]
fn add_tmul_body(
    terms: &[RankOneTerm],
    cross: Option<PlantedCross>,
    weight: f64,
    x: SimplexPoint<'_>,
    out: &mut [f64],
    mode: Output,
) {
    let mut s = [0.0; MAX_RANK];
    for (sk, t) in s.iter_mut().zip(terms) {
        *sk = t.coefficient * x.dot(&t.u);
    }
    // `c_k u_k[i*]`, the first product of each term's cross-row entry.
    let mut cu = [0.0; MAX_RANK];
    let fixed = cross.map(|c| {
        for (cuk, t) in cu.iter_mut().zip(terms) {
            *cuk = t.coefficient * t.u[c.row];
        }
        (c, x.coordinate(c.row), c.margin * mass_without(x, c.row))
    });
    let mut v = [0.0; BLOCK];
    let mut lrj = [0.0; BLOCK];
    for (b, ob) in out.chunks_mut(BLOCK).enumerate() {
        let j0 = b * BLOCK;
        let v = &mut v[..ob.len()];
        v.fill(-0.0);
        for (t, sk) in terms.iter().zip(&s) {
            for (vj, f) in v.iter_mut().zip(&t.v[j0..]) {
                *vj += sk * f;
            }
        }
        if let Some((c, xr, cross_col)) = fixed {
            if xr == 0.0 {
                // As in `add_mul`: a zero correction changes only zeros.
                for (r, vj) in v.iter_mut().enumerate().filter(|(_, vj)| **vj == 0.0) {
                    let l = terms
                        .iter()
                        .zip(&cu)
                        .fold(-0.0, |l, (t, cuk)| l + cuk * t.v[j0 + r]);
                    *vj -= (c.margin + l) * xr;
                }
            } else {
                let lrj = &mut lrj[..ob.len()];
                lrj.fill(-0.0);
                for (t, cuk) in terms.iter().zip(&cu) {
                    for (l, f) in lrj.iter_mut().zip(&t.v[j0..]) {
                        *l += cuk * f;
                    }
                }
                for (vj, l) in v.iter_mut().zip(lrj.iter()) {
                    *vj -= (c.margin + l) * xr;
                }
            }
            if (j0..j0 + ob.len()).contains(&c.col) {
                v[c.col - j0] = cross_col;
            }
        }
        match mode {
            Output::Add => ob
                .iter_mut()
                .zip(v.iter())
                .for_each(|(o, vj)| *o += weight * vj),
            Output::Set => ob
                .iter_mut()
                .zip(v.iter())
                .for_each(|(o, vj)| *o = 0.0 + weight * vj),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    /// The row-at-a-time `A_bar y` the blocked form replaced.
    fn add_mul_reference(
        terms: &[RankOneTerm],
        cross: Option<PlantedCross>,
        weight: f64,
        y: SimplexPoint<'_>,
        out: &mut [f64],
    ) {
        let mut s = [0.0; MAX_RANK];
        for (sk, t) in s.iter_mut().zip(terms) {
            *sk = t.coefficient * y.dot(&t.v);
        }
        for (i, o) in out.iter_mut().enumerate() {
            let mut v: f64 = terms.iter().zip(&s).map(|(t, sk)| sk * t.u[i]).sum();
            if let Some(c) = cross {
                let yc = y.coordinate(c.col);
                if i == c.row {
                    v = -c.margin * mass_without(y, c.col);
                } else {
                    let lic: f64 = terms
                        .iter()
                        .map(|t| t.coefficient * t.u[i] * t.v[c.col])
                        .sum();
                    v += (c.margin - lic) * yc;
                }
            }
            *o += weight * v;
        }
    }

    /// The column-at-a-time `A_bar^T x` the blocked form replaced.
    fn add_tmul_reference(
        terms: &[RankOneTerm],
        cross: Option<PlantedCross>,
        weight: f64,
        x: SimplexPoint<'_>,
        out: &mut [f64],
    ) {
        let mut s = [0.0; MAX_RANK];
        for (sk, t) in s.iter_mut().zip(terms) {
            *sk = t.coefficient * x.dot(&t.u);
        }
        for (j, o) in out.iter_mut().enumerate() {
            let mut v: f64 = terms.iter().zip(&s).map(|(t, sk)| sk * t.v[j]).sum();
            if let Some(c) = cross {
                let xr = x.coordinate(c.row);
                if j == c.col {
                    v = c.margin * mass_without(x, c.row);
                } else {
                    let lrj: f64 = terms
                        .iter()
                        .map(|t| t.coefficient * t.u[c.row] * t.v[j])
                        .sum();
                    v -= (c.margin + lrj) * xr;
                }
            }
            *o += weight * v;
        }
    }

    #[test]
    fn blocked_mat_vecs_equal_the_row_at_a_time_form_bit_for_bit() {
        // Sizes around the block length, crosses inside the first, a middle
        // and the last block, dense and sparse points that do and do not
        // touch the cross: every output bit must match the reference.
        let mut rng = Pcg64::seed_from_u64(41);
        for (rows, cols, rank) in [(3, 5, 1), (256, 300, 4), (600, 513, 16), (1030, 257, 3)] {
            // Coordinate 1 of every factor is zero, so the points e_1 give
            // zero rank sums, whose sign the cross correction may flip.
            let terms: Vec<RankOneTerm> = (0..rank)
                .map(|_| RankOneTerm {
                    coefficient: rng.random_range(-0.5..0.5),
                    u: (0..rows)
                        .map(|i| {
                            if i == 1 {
                                0.0
                            } else {
                                rng.random_range(-1.0..1.0)
                            }
                        })
                        .collect(),
                    v: (0..cols)
                        .map(|j| {
                            if j == 1 {
                                0.0
                            } else {
                                rng.random_range(-1.0..1.0)
                            }
                        })
                        .collect(),
                })
                .collect();
            let crosses = [
                None,
                Some(PlantedCross {
                    row: rows - 1,
                    col: cols / 2,
                    margin: 0.5,
                }),
                Some(PlantedCross {
                    row: rows / 2,
                    col: 0,
                    margin: 0.3,
                }),
            ];
            let dense_x: Vec<f64> = (0..rows).map(|_| rng.random_range(0.0..1.0)).collect();
            let dense_y: Vec<f64> = (0..cols).map(|_| rng.random_range(0.0..1.0)).collect();
            for cross in crosses {
                let (cr, cc) = cross.map_or((0, 0), |c| (c.row, c.col));
                let xi = [0, cr, rows - 1];
                let yi = [0, cc, cols - 1];
                let (mut xi, mut yi) = (xi.to_vec(), yi.to_vec());
                xi.sort_unstable();
                xi.dedup();
                yi.sort_unstable();
                yi.dedup();
                let xw = vec![1.0 / xi.len() as f64; xi.len()];
                let yw = vec![1.0 / yi.len() as f64; yi.len()];
                let xs = [
                    SimplexPoint::Dense(&dense_x),
                    SimplexPoint::Sparse {
                        indices: &xi,
                        weights: &xw,
                    },
                ];
                let ys = [
                    SimplexPoint::Dense(&dense_y),
                    SimplexPoint::Sparse {
                        indices: &yi,
                        weights: &yw,
                    },
                ];
                // Off the cross (when it is not at 1): e_1 and e_{last}.
                let (one, w1) = ([1usize], [1.0]);
                let last_x = [rows - 1];
                let last_y = [cols - 1];
                let extra_x = [
                    SimplexPoint::Sparse {
                        indices: &one,
                        weights: &w1,
                    },
                    SimplexPoint::Sparse {
                        indices: &last_x,
                        weights: &w1,
                    },
                ];
                let extra_y = [
                    SimplexPoint::Sparse {
                        indices: &one,
                        weights: &w1,
                    },
                    SimplexPoint::Sparse {
                        indices: &last_y,
                        weights: &w1,
                    },
                ];
                let xs = xs.into_iter().chain(extra_x);
                let ys = ys.into_iter().chain(extra_y);
                for (x, y) in xs.zip(ys) {
                    // Every instruction level this machine has (the scalar
                    // path always), each against the reference.
                    for level in dpcore::simd::supported_levels() {
                        let start: Vec<f64> = (0..rows).map(|i| i as f64 * 0.01).collect();
                        let same = |a: &[f64], b: &[f64]| {
                            a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits())
                        };
                        let (mut a, mut b) = (start.clone(), start);
                        add_mul_at(level, &terms, cross, -0.7, y, &mut a, Output::Add);
                        add_mul_reference(&terms, cross, -0.7, y, &mut b);
                        assert!(same(&a, &b), "{level:?}");
                        // `Set` over any old values is `Add` onto zeros.
                        let (mut a, mut b) = (vec![f64::NAN; rows], vec![0.0; rows]);
                        add_mul_at(level, &terms, cross, 1.0, y, &mut a, Output::Set);
                        add_mul_reference(&terms, cross, 1.0, y, &mut b);
                        assert!(same(&a, &b), "{level:?}");
                        let (mut a, mut b) = (vec![0.0; cols], vec![0.0; cols]);
                        add_tmul_at(level, &terms, cross, 1.3, x, &mut a, Output::Add);
                        add_tmul_reference(&terms, cross, 1.3, x, &mut b);
                        assert!(same(&a, &b), "{level:?}");
                        let (mut a, mut b) = (vec![-3.0; cols], vec![0.0; cols]);
                        add_tmul_at(level, &terms, cross, 1.0, x, &mut a, Output::Set);
                        add_tmul_reference(&terms, cross, 1.0, x, &mut b);
                        assert!(same(&a, &b), "{level:?}");
                    }
                }
            }
        }
    }
}
