//! Noise models of the stochastic payoff `A(z)` (digest §6.3 G1(a), G1(b)),
//! generated lazily from `(seed, record, coordinate)` ([`super::counter`]).

use dpcore::saddle::SimplexPoint;

use super::counter::{add_rademacher, rademacher, uniform3};
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
    let (dx, dy) = matrix.dims();
    match noise {
        GameNoise::None => {}
        GameNoise::RankOne { sigma } => {
            let (kx, ky) = (2 * i as u64, 2 * i as u64 + 1);
            let mut zeta_y = 0.0;
            y.for_each(|j, p| zeta_y += p * rademacher(seed, ky, j));
            let mut xi_x = 0.0;
            x.for_each(|j, p| xi_x += p * rademacher(seed, kx, j));
            add_rademacher(seed, kx, weight * sigma * zeta_y, gx);
            add_rademacher(seed, ky, weight * sigma * xi_x, gy);
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
