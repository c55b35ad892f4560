//! Noise models of the stochastic payoff `A(z)` (digest §6.3 G1(a), G1(b)),
//! generated lazily from `(seed, record, coordinate)` ([`super::counter`]).

use dpcore::saddle::SimplexPoint;

use super::counter::{uniform3, SignWords};
use super::matrix::MeanMatrix;

/// The law of `A(z) - A_bar`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GameNoise {
    /// `A(z) = A_bar` (deterministic game; only the penalties are random).
    None,
    /// `A(z) = A_bar + sigma xi zeta^T`, `xi, zeta` Rademacher (G1(b)); needs
    /// `max |A_bar| + sigma <= 1`.
    RankOne {
        /// `sigma >= 0`.
        sigma: f64,
    },
    /// `A(z)_ij = +1` w.p. `(1 + A_bar_ij)/2`, else `-1` (G1(a)): maximal
    /// variance; needs `|A_bar| <= 1`.
    SignBernoulli,
}

/// Reused sign words of [`add_matrix_noise_with`] (the record's `xi` and
/// `zeta`).
#[derive(Debug, Clone, Default)]
pub struct NoiseScratch {
    xi: SignWords,
    zeta: SignWords,
}

impl NoiseScratch {
    /// Hashes record `i`'s rank-one sign vectors `xi` (length `d_x`) and
    /// `zeta` (length `d_y`).
    #[inline]
    pub fn fill_rank_one(&mut self, seed: u64, i: usize, dx: usize, dy: usize) {
        let (kx, ky) = (2 * i as u64, 2 * i as u64 + 1);
        self.xi.fill(seed, kx, dx);
        self.zeta.fill(seed, ky, dy);
    }

    /// Adds the rank-one noise `weight sigma (xi zeta^T y, zeta xi^T x)` of
    /// the record last given to [`Self::fill_rank_one`].
    #[inline]
    pub fn add_rank_one(
        &self,
        sigma: f64,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        let zeta_y = self.zeta.signed_dot(y);
        let xi_x = self.xi.signed_dot(x);
        self.xi.add_scaled(weight * sigma * zeta_y, gx);
        self.zeta.add_scaled(weight * sigma * xi_x, gy);
    }
}

/// Adds `weight * (A(z_i) - A_bar) y` to `gx` and `weight * (A(z_i) - A_bar)^T x`
/// to `gy`. Cost: `O(d_x + d_y)` (rank one) or `O(d_x |supp y| + d_y |supp x|)`
/// (sign-Bernoulli).
#[allow(clippy::too_many_arguments)]
pub fn add_matrix_noise(
    noise: GameNoise,
    matrix: &MeanMatrix,
    seed: u64,
    i: usize,
    x: SimplexPoint<'_>,
    y: SimplexPoint<'_>,
    weight: f64,
    gx: &mut [f64],
    gy: &mut [f64],
) {
    let mut scratch = NoiseScratch::default();
    add_matrix_noise_with(noise, matrix, seed, i, x, y, weight, gx, gy, &mut scratch);
}

/// [`add_matrix_noise`] with reused buffers (a batch passes the same
/// scratch for every record). The rank-one noise hashes each of the
/// record's two sign vectors once ([`SignWords`]): the same signs, sums and
/// updates as one hash per coordinate, bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn add_matrix_noise_with(
    noise: GameNoise,
    matrix: &MeanMatrix,
    seed: u64,
    i: usize,
    x: SimplexPoint<'_>,
    y: SimplexPoint<'_>,
    weight: f64,
    gx: &mut [f64],
    gy: &mut [f64],
    scratch: &mut NoiseScratch,
) {
    let (dx, dy) = matrix.dims();
    match noise {
        GameNoise::None => {}
        GameNoise::RankOne { sigma } => {
            scratch.fill_rank_one(seed, i, dx, dy);
            scratch.add_rank_one(sigma, x, y, weight, gx, gy);
        }
        GameNoise::SignBernoulli => {
            let sign = |r: usize, c: usize| {
                let u = uniform3(seed, i as u64, (r * dy + c) as u64);
                let mean = matrix.entry(r, c);
                let centred = if u < 0.5 * (1.0 + mean) { 1.0 } else { -1.0 };
                centred - mean
            };
            for (r, g) in gx.iter_mut().enumerate().take(dx) {
                y.for_each(|c, p| *g += weight * p * sign(r, c));
            }
            x.for_each(|r, p| {
                for (c, g) in gy.iter_mut().enumerate().take(dy) {
                    *g += weight * p * sign(r, c);
                }
            });
        }
    }
}
