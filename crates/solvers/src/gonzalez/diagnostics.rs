//! Non-private diagnostics of digest §7.1/§7.5 for the runner: the measured
//! Maurey gradient bias `||E[grad F(x_hat_K, y_hat_K)] - grad F(x, y)||_inf`
//! at a given point, to compare with `2 L2 / K` or `4 L1 / sqrt K`
//! ([`super::rates::maurey_gradient_bias_bound`]), and its Monte-Carlo
//! standard error. Uses the population gradient (never the sample).

use dpcore::saddle::{SaddleProblem, SimplexPoint};
use rand::Rng;

use super::mw::maurey_average;

/// Estimated bias and the largest coordinate standard error over `reps`
/// Maurey draws of size `k` at the dense point `(x, y)`.
pub fn maurey_gradient_bias<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    x: &[f64],
    y: &[f64],
    k: usize,
    reps: usize,
    rng: &mut R,
) -> (f64, f64) {
    let (dx, dy) = problem.dims();
    let (mut g0x, mut g0y) = (vec![0.0; dx], vec![0.0; dy]);
    problem.population_gradient(
        SimplexPoint::Dense(x),
        SimplexPoint::Dense(y),
        &mut g0x,
        &mut g0y,
    );
    let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
    let mut sum = vec![0.0; dx + dy];
    let mut sum2 = vec![0.0; dx + dy];
    for _ in 0..reps {
        let (hx, hy) = (maurey_average(x, k, rng), maurey_average(y, k, rng));
        problem.population_gradient(hx.point(), hy.point(), &mut gx, &mut gy);
        let diffs = gx
            .iter()
            .zip(&g0x)
            .chain(gy.iter().zip(&g0y))
            .map(|(a, b)| a - b);
        for ((s, s2), e) in sum.iter_mut().zip(sum2.iter_mut()).zip(diffs) {
            *s += e;
            *s2 += e * e;
        }
    }
    let r = reps as f64;
    let bias = sum.iter().map(|s| (s / r).abs()).fold(0.0, f64::max);
    let se = sum
        .iter()
        .zip(&sum2)
        .map(|(s, s2)| ((s2 / r - (s / r).powi(2)).max(0.0) / r).sqrt())
        .fold(0.0, f64::max);
    (bias, se)
}
