//! The one-read pass over labelled rows shared by the GLM gradients that
//! must stream a large data set: full-batch noisy GD's clipped logistic
//! gradient (`solvers::full_batch_gd`) and the logistic family's plain
//! value-and-gradient pass (`datagen::logistic`, the L-BFGS of the peer
//! race's output perturbation).
//!
//! Per sub-block of [`SUB_BLOCK_BYTES`] of rows: first every row's margin
//! `<x_i, w>` ([`lane_dot`]'s order; four rows at a time in explicit AVX2
//! registers in [`margins_avx2`]), then the caller turns margins into
//! coefficients `c_i`, then `acc_j += c_i x_ij` for every row in row order,
//! one [`TILE`] of coordinates at a time from L1 ([`add_weighted_rows`]).
//! Splitting the phases lets the dot products of successive rows overlap
//! (in a fused loop each row's update waits about 100 cycles for its own
//! dot product and `exp`) and keeps a tile of `acc` in registers across the
//! rows. The arithmetic is fixed by the code, not by the vector width, so a
//! caller that compiles [`weighted_row_pass`] for AVX2 gets the bits of the
//! baseline build (each caller's tests compare the levels).

use crate::prefetch::{prefetch_slice, PREFETCH_MIN_LEN, PREFETCH_ROWS};

/// Bytes of rows in one sub-block: 16 KiB (20 rows at d = 100), so that
/// the second phase re-reads them from L1. On the peer race's GD pass
/// (n = 1e5, d = 100, one thread) 8, 16, 32, 64 and 160 KiB took 5.4-6.8,
/// 5.2-5.6, 5.8-6.3, 7.0 and 6.6 ms (criterion medians, a noisy VM).
pub const SUB_BLOCK_BYTES: usize = 16 * 1024;

/// Most rows in one sub-block (the coefficient buffer lives on the stack).
pub const MAX_SUB_ROWS: usize = 256;

/// Coordinates of `acc` one tile keeps in registers: 32 doubles are eight
/// AVX2 or four AVX-512 registers.
pub const TILE: usize = 32;

/// `<a, b>` with four accumulators, lane `l` summing the products of the
/// indices `l mod 4` in index order, then `(s0 + s1) + (s2 + s3) + tail`
/// (vectorizable; a fixed order whatever the vector width).
#[inline(always)]
pub fn lane_dot(a: &[f64], b: &[f64]) -> f64 {
    let (ca, ra) = a.as_chunks::<4>();
    let (cb, rb) = b[..a.len()].as_chunks::<4>();
    let tail: f64 = ra.iter().zip(rb).map(|(u, v)| u * v).sum();
    let mut s = [0.0f64; 4];
    for (u, v) in ca.iter().zip(cb) {
        s = [
            s[0] + u[0] * v[0],
            s[1] + u[1] * v[1],
            s[2] + u[2] * v[2],
            s[3] + u[3] * v[3],
        ];
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// `out[i] = lane_dot(row i, w)` for the rows of `rows`, hinting row `i` of
/// `ahead` (where there is one) to the cache first.
#[inline(always)]
pub fn margins_portable(rows: &[f64], ahead: &[f64], w: &[f64], out: &mut [f64]) {
    let d = w.len();
    for (i, (row, m)) in rows.chunks_exact(d).zip(out).enumerate() {
        if let Some(next) = ahead.get(i * d..(i + 1) * d) {
            prefetch_slice(next);
        }
        *m = lane_dot(row, w);
    }
}

/// [`margins_portable`] four rows at a time, each row's dot product in its
/// own AVX2 register in [`lane_dot`]'s lane order (a multiply, then an add,
/// no FMA), so the bits are [`lane_dot`]'s: the four chains of dependent adds
/// overlap instead of waiting on each other, and LLVM's own code for
/// [`lane_dot`] (two-lane multiplies with a shuffle per pair of loads) is
/// avoided.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn margins_avx2(rows: &[f64], ahead: &[f64], w: &[f64], out: &mut [f64]) {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_setzero_pd, _mm256_storeu_pd,
    };
    let d = w.len();
    let n4 = d / 4 * 4;
    let (groups, rest) = out.as_chunks_mut::<4>();
    for (g, m) in groups.iter_mut().enumerate() {
        let base = 4 * g * d;
        if let Some(next) = ahead.get(base..base + 4 * d) {
            prefetch_slice(next);
        }
        let r = &rows[base..base + 4 * d];
        let mut s = [_mm256_setzero_pd(); 4];
        let mut k = 0;
        while k < n4 {
            // SAFETY: k + 4 <= n4 <= d, and row q of r has d values.
            unsafe {
                let wv = _mm256_loadu_pd(w.as_ptr().add(k));
                for (q, sq) in s.iter_mut().enumerate() {
                    let u = _mm256_loadu_pd(r.as_ptr().add(q * d + k));
                    *sq = _mm256_add_pd(*sq, _mm256_mul_pd(u, wv));
                }
            }
            k += 4;
        }
        for (q, sq) in s.iter().enumerate() {
            let mut lanes = [0.0f64; 4];
            // SAFETY: `lanes` holds four doubles.
            unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), *sq) };
            let row = &r[q * d..(q + 1) * d];
            let tail: f64 = row[n4..].iter().zip(&w[n4..]).map(|(u, v)| u * v).sum();
            m[q] = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail;
        }
    }
    let done = groups.len() * 4;
    for (i, m) in rest.iter_mut().enumerate() {
        let at = (done + i) * d;
        if let Some(next) = ahead.get(at..at + d) {
            prefetch_slice(next);
        }
        // At most three rows a sub-block: `lane_dot` itself.
        *m = lane_dot(&rows[at..at + d], w);
    }
}

/// `acc[j] += coefs[i] * rows[i][j]` for every row `i` in order, tile by
/// tile of coordinates `j`.
#[inline(always)]
pub fn add_weighted_rows(rows: &[f64], coefs: &[f64], acc: &mut [f64]) {
    let d = acc.len();
    let mut j0 = 0;
    while j0 + TILE <= d {
        let mut a = [0.0f64; TILE];
        a.copy_from_slice(&acc[j0..j0 + TILE]);
        for (row, &c) in rows.chunks_exact(d).zip(coefs) {
            let xr = &row[j0..j0 + TILE];
            for k in 0..TILE {
                a[k] += c * xr[k];
            }
        }
        acc[j0..j0 + TILE].copy_from_slice(&a);
        j0 += TILE;
    }
    if j0 < d {
        let tail = &mut acc[j0..];
        for (row, &c) in rows.chunks_exact(d).zip(coefs) {
            tail.iter_mut()
                .zip(&row[j0..])
                .for_each(|(a, xj)| *a += c * xj);
        }
    }
}

/// [`weighted_row_pass`] at `level`: compiled for AVX2 with
/// [`margins_avx2`] when the level and the CPU allow it, the baseline build
/// with [`margins_portable`] otherwise; the same bits either way (each
/// caller's test forces both levels). `coefficients` is inlined into each
/// copy, so the caller's per-row arithmetic (a sigmoid and a clip, a loss)
/// is compiled for the copy's registers too.
#[inline(always)]
pub fn weighted_row_pass_at(
    level: crate::simd::SimdLevel,
    x: &[f64],
    w: &[f64],
    acc: &mut [f64],
    coefficients: impl FnMut(usize, &mut [f64]),
) {
    #[cfg(target_arch = "x86_64")]
    if level.runs(crate::simd::SimdLevel::Avx2) {
        // SAFETY: `runs` checked that the CPU supports AVX2.
        return unsafe { weighted_row_pass_avx2(x, w, acc, coefficients) };
    }
    let _ = level;
    weighted_row_pass(x, w, acc, margins_portable, coefficients)
}

/// The AVX2 copy of [`weighted_row_pass`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn weighted_row_pass_avx2(
    x: &[f64],
    w: &[f64],
    acc: &mut [f64],
    coefficients: impl FnMut(usize, &mut [f64]),
) {
    // SAFETY: this copy runs only where AVX2 is supported.
    weighted_row_pass(
        x,
        w,
        acc,
        |r, a, w, o| unsafe { margins_avx2(r, a, w, o) },
        coefficients,
    )
}

/// The two-phase pass over the rows of `x` (row-major, `w.len()` columns)
/// into `acc` (not zeroed first): per sub-block, the rows' margins by
/// `margins` ([`margins_portable`], or [`margins_avx2`] in an AVX2 copy),
/// then `coefficients(first, c)` with `c` holding the margins of rows
/// `first..first + c.len()` to overwrite with their coefficients, then
/// [`add_weighted_rows`]. Rows of at least [`PREFETCH_MIN_LEN`] coordinates
/// hint the rows [`PREFETCH_ROWS`] ahead to the cache (a hint never changes
/// a result). Inline it into each level's copy, so that each is compiled
/// for that level's registers.
#[inline(always)]
pub fn weighted_row_pass(
    x: &[f64],
    w: &[f64],
    acc: &mut [f64],
    margins: impl Fn(&[f64], &[f64], &[f64], &mut [f64]),
    mut coefficients: impl FnMut(usize, &mut [f64]),
) {
    let d = w.len();
    if d == 0 {
        return;
    }
    let sub_rows = (SUB_BLOCK_BYTES / (8 * d)).clamp(1, MAX_SUB_ROWS);
    let mut coefs = [0.0f64; MAX_SUB_ROWS];
    for (s, xs) in x.chunks(sub_rows * d).enumerate() {
        // The rows PREFETCH_ROWS ahead of this sub-block's, to hint (none
        // for short rows, where the hardware prefetcher keeps up).
        let ahead = if d >= PREFETCH_MIN_LEN {
            x.get((s * sub_rows + PREFETCH_ROWS) * d..).unwrap_or(&[])
        } else {
            &[]
        };
        let coefs = &mut coefs[..xs.len() / d];
        margins(xs, ahead, w, coefs);
        coefficients(s * sub_rows, coefs);
        add_weighted_rows(xs, coefs, acc);
    }
}
