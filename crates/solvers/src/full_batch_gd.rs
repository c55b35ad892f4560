//! Full-batch noisy gradient descent on L2-regularized logistic regression,
//! the `(eps, delta)`-DP workhorse that the peer race (`runner peer-race`,
//! `scripts/peers/race.py`) times against numpy.
//!
//! # Objective
//! `F(w) = (1/n) sum_i softplus(-y_i <w, x_i>) + (lambda/2) ||w||^2` with labels
//! `y_i = ±1`: the objective of the Lowy–Razaviyayn logistic family
//! (`datagen::logistic`), whose excess risk the race reports.
//!
//! # Algorithm
//! From `w_0 = 0`, for `t = 0..T-1`:
//! `w_{t+1} = w_t - eta (g(w_t) + lambda w_t + xi_t)`, `xi_t ~ N(0, sigma^2 I_d)`,
//! with the clipped mean data gradient
//! `g(w) = (1/n) sum_i clip_C(-y_i sigmoid(-y_i <w, x_i>) x_i)`,
//! `clip_C(v) = v min(1, C/||v||)`. The output is the last iterate `w_T`.
//! The per-record data gradient has norm `sigmoid(.) ||x_i|| <= ||x_i||`, so
//! with rows of norm `<= 1` and `C = 1` clipping never changes it; it is kept
//! so that privacy never rests on the data's promise. The default step is
//! `eta = 1/(1/4 + lambda)`, the inverse smoothness of `F` on such rows.
//!
//! # Privacy (replace-one)
//! The regularizer is data-independent, so step `t` releases `g(w_t)`, whose
//! replace-one L2 sensitivity is `Delta = 2C/n` whatever `w_t` (clipping). The
//! Gaussian mechanism with noise `sigma` is exactly `Delta/sigma`-GDP (Dong,
//! Roth & Su, Thm 2.7) and `T` adaptive steps compose to
//! `sqrt(T) Delta/sigma`-GDP (Cor 3.3), an exact composition for Gaussians.
//! [`FullBatchNoisyGd::calibrate`] takes `mu = mechanisms::gdp::gdp_mu(eps, delta)`
//! (the largest GDP budget that is `(eps, delta)`-DP, Cor 2.13) and
//! `sigma = Delta sqrt(T)/mu`, then re-accounts the realised `(T, sigma, Delta)`
//! with `mechanisms::gdp` and refuses a realised `eps` above the target.
//! GDP is used rather than the zCDP or RDP accountants because for a
//! composition of Gaussian mechanisms it is exact, hence gives the smallest
//! valid `sigma`.
//!
//! # Computation
//! One pass over the rows per step: each row is read once from memory for
//! its margin `<w, x_i>` and, while its sub-block of rows is still in cache,
//! accumulated into the gradient. Rows are split into fixed blocks of [`BLOCK_ROWS`]; rayon
//! computes the blocks' partial sums in parallel on the current thread pool
//! and they are added in block order, so the result does not depend on the
//! number of threads.

use dpcore::numerics::sigmoid;
use dpcore::rows::lane_dot;
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::gdp::{gdp_epsilon, gdp_mu, Gdp};
use mechanisms::noise::gaussian;
use mechanisms::Neighbouring;
use rand::Rng;
use rayon::prelude::*;

/// Rows per block of the parallel gradient (fixed, so the summation order
/// does not depend on the thread count).
pub const BLOCK_ROWS: usize = 256;

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

/// Labelled rows `(x_i, y_i)` of a logistic-regression data set, borrowed
/// row-major, with their norms (computed once, used for clipping).
#[derive(Debug, Clone)]
pub struct LogisticRows<'a> {
    x: &'a [f64],
    y: &'a [f64],
    d: usize,
    row_norms: Vec<f64>,
}

impl<'a> LogisticRows<'a> {
    /// Wraps `n x d` row-major features `x` and labels `y`.
    ///
    /// # Errors
    /// `InvalidParameters` for `d = 0`, no rows, mismatched lengths, a
    /// non-finite feature or a label other than `±1`.
    pub fn new(x: &'a [f64], y: &'a [f64], d: usize) -> Result<Self, RunFailure> {
        if d == 0 || y.is_empty() || x.len() != y.len() * d {
            return Err(invalid(format!(
                "logistic rows: {} features for {} labels and d = {d}",
                x.len(),
                y.len()
            )));
        }
        if let Some(i) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
            return Err(invalid(format!(
                "logistic rows: label {} of record {i} is not +1 or -1",
                y[i]
            )));
        }
        let mut row_norms = Vec::with_capacity(y.len());
        x.par_chunks_exact(d)
            .map(|row| lane_dot(row, row).sqrt())
            .collect_into_vec(&mut row_norms);
        if let Some(i) = row_norms.iter().position(|v| !v.is_finite()) {
            return Err(invalid(format!(
                "logistic rows: record {i} has a non-finite feature"
            )));
        }
        Ok(Self { x, y, d, row_norms })
    }

    /// Number of records `n`.
    pub fn num_records(&self) -> usize {
        self.y.len()
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// `||x_i||` of every record.
    pub fn row_norms(&self) -> &[f64] {
        &self.row_norms
    }

    /// Writes `g(w) = (1/n) sum_i clip_C(-y_i sigmoid(-y_i <w, x_i>) x_i)`
    /// into `out` (module doc, "Computation"); returns how many records were
    /// clipped. `partials` is scratch space (resized as needed).
    ///
    /// # Panics
    /// If `w` or `out` does not have length `d`.
    pub fn clipped_mean_gradient(
        &self,
        w: &[f64],
        clip: f64,
        partials: &mut Vec<f64>,
        out: &mut [f64],
    ) -> u64 {
        let d = self.d;
        assert!(
            w.len() == d && out.len() == d,
            "clipped_mean_gradient: shape"
        );
        let blocks = self.y.len().div_ceil(BLOCK_ROWS);
        partials.resize(blocks * (d + 1), 0.0);
        let level = dpcore::simd::level();
        self.x
            .par_chunks(BLOCK_ROWS * d)
            .zip(self.y.par_chunks(BLOCK_ROWS))
            .zip(self.row_norms.par_chunks(BLOCK_ROWS))
            .zip(partials.par_chunks_mut(d + 1))
            .for_each(|(((x, y), norms), acc)| {
                let (grad, count) = acc.split_at_mut(d);
                count[0] = block_gradient_at(level, x, y, norms, w, clip, grad) as f64;
            });
        out.fill(0.0);
        let mut clipped = 0.0;
        for acc in partials.chunks_exact(d + 1) {
            out.iter_mut().zip(&acc[..d]).for_each(|(o, a)| *o += a);
            clipped += acc[d];
        }
        let inv_n = 1.0 / self.y.len() as f64;
        out.iter_mut().for_each(|o| *o *= inv_n);
        clipped as u64
    }
}

/// The clipped gradient sum of one block of rows into `acc`; returns the
/// number of clipped rows.
///
/// Rows of at least [`dpcore::prefetch::PREFETCH_MIN_LEN`] coordinates hint the row
/// [`dpcore::prefetch::PREFETCH_ROWS`] ahead to the cache, as `datagen`'s GLM passes do (a hint
/// never changes a result). Without it one thread read the race's 80 MB at
/// 6 GiB/s, half the one-thread triad: `perf` put 52% of the pass's samples
/// on the row load of the dot product. With it the pass took 8.9-9.4 ms
/// instead of 12.9-13.6 on one thread and 3.9-4.0 instead of 4.4-5.0 on two
/// (`solvers.full_batch_gd`, n = 1e5, d = 100; PERFORMANCE.md).
///
/// With the memory stall gone the pass was compute-bound, and its AVX2 copy
/// ran it in four-double registers: 6.7-8.0 ms against 8.4-9.4 for the
/// baseline build on one thread, 3.5-3.9 against 4.3-4.6 on two (three runs
/// each). An AVX-512F copy was slower than AVX2 there (8.5 against 7.0 ms
/// in one paired run: the row's four accumulators fill a 256-bit register),
/// so the pass stops at AVX2. Since 2026-12-01 each sub-block runs in two
/// phases ([`dpcore::rows::weighted_row_pass`]) and the AVX2 copy computes the
/// margins four rows at a time with explicit AVX2 adds ([`dpcore::rows::margins_avx2`]):
/// 5.6 against 8.4 ms on one thread, 2.7 against 4.7 on two (criterion,
/// Intel Xeon VM). Every level gives the same bits ([`dpcore::simd`]), and
/// the bits of the fused pass before it (test
/// `the_tiled_pass_gives_the_fused_bits`).
///
/// The pass: per sub-block the rows' margins, then their coefficients here
/// (sigmoid and clip), then the coefficient-weighted rows tile by tile,
/// compiled for AVX2 or the baseline at `level`
/// ([`dpcore::rows::weighted_row_pass_at`]). Each coordinate sums its rows
/// in row order from 0, so the bits are the fused pass's (test
/// `the_tiled_pass_gives_the_fused_bits`). Why two phases: in the fused
/// pass each row's update waited for its own dot product and `exp` (about
/// 100 cycles of dependent adds), which kept one thread at 8.4 ms a step on
/// the race's 80 MB (9.5 GB/s) where numpy's `X @ w` reads it at 27 GB/s on
/// the same machine.
fn block_gradient_at(
    level: dpcore::simd::SimdLevel,
    x: &[f64],
    y: &[f64],
    norms: &[f64],
    w: &[f64],
    clip: f64,
    acc: &mut [f64],
) -> usize {
    acc.fill(0.0);
    let mut clipped = 0;
    dpcore::rows::weighted_row_pass_at(level, x, w, acc, |first, coefs| {
        for ((coef, &yi), &norm) in coefs.iter_mut().zip(&y[first..]).zip(&norms[first..]) {
            *coef = -yi * sigmoid(-yi * *coef);
            let length = coef.abs() * norm;
            if length > clip {
                *coef *= clip / length;
                clipped += 1;
            }
        }
    });
    clipped
}

/// Configuration of full-batch noisy GD (module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullBatchNoisyGd {
    /// Number of steps `T >= 1`.
    pub steps: u64,
    /// Step size `eta > 0`.
    pub step_size: f64,
    /// Clipping norm `C > 0` of the per-record data gradients.
    pub clip: f64,
    /// Regularization `lambda >= 0`.
    pub l2: f64,
}

/// The noise calibration of a run (module doc, "Privacy").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullBatchCalibration {
    /// Replace-one L2 sensitivity `Delta = 2C/n` of one released gradient.
    pub sensitivity: f64,
    /// The GDP budget `mu = gdp_mu(eps, delta)` of the whole run.
    pub gdp_mu: f64,
    /// Per-coordinate noise standard deviation `sigma = Delta sqrt(T)/mu`.
    pub sigma: f64,
    /// `eps` at the target `delta` of the realised `(T, sigma, Delta)`.
    pub realised_eps: f64,
}

/// One run of full-batch noisy GD.
#[derive(Debug, Clone, PartialEq)]
pub struct FullBatchRun {
    /// The released last iterate `w_T`.
    pub w: Vec<f64>,
    /// Per-record gradient evaluations (`T n`).
    pub gradient_evaluations: u64,
    /// Records clipped over all steps (0 when every row has norm `<= C`).
    pub clipped_records: u64,
}

impl FullBatchNoisyGd {
    /// `T` steps with `C = 1` and the inverse smoothness `eta = 1/(1/4 + lambda)`
    /// of the objective on rows of norm `<= 1`.
    pub fn logistic(steps: u64, l2: f64) -> Self {
        Self {
            steps,
            step_size: 1.0 / (0.25 + l2),
            clip: 1.0,
            l2,
        }
    }

    fn check(&self) -> Result<(), RunFailure> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        let valid = self.steps >= 1
            && pos(self.step_size)
            && pos(self.clip)
            && self.l2.is_finite()
            && self.l2 >= 0.0;
        if !valid {
            return Err(invalid(format!(
                "full-batch noisy GD needs T >= 1, eta > 0, C > 0 and lambda >= 0, got {self:?}"
            )));
        }
        Ok(())
    }

    /// The noise for `n` records and `privacy` (module doc, "Privacy").
    ///
    /// # Errors
    /// `InvalidParameters` for an invalid configuration, `n = 0`, pure DP,
    /// `eps <= 0`, `delta` outside `(0, 1)`, an accountant failure, or a
    /// realised `eps` above the target.
    pub fn calibrate(
        &self,
        n: usize,
        privacy: PrivacyParams,
    ) -> Result<FullBatchCalibration, RunFailure> {
        self.check()?;
        let (eps, delta) = (privacy.eps, privacy.delta);
        if n == 0 || !(eps.is_finite() && eps > 0.0 && delta > 0.0 && delta < 1.0) {
            return Err(invalid(format!(
                "full-batch noisy GD needs n >= 1, eps > 0 and delta in (0, 1), got n = {n}, {privacy:?}"
            )));
        }
        let accountant =
            |e: mechanisms::composition::AccountingError| invalid(format!("GDP accountant: {e}"));
        let sensitivity = 2.0 * self.clip / n as f64;
        let mu = gdp_mu(eps, delta).map_err(accountant)?;
        let sigma = sensitivity * (self.steps as f64).sqrt() / mu;
        let step =
            Gdp::gaussian(sigma, sensitivity, Neighbouring::ReplaceOne).map_err(accountant)?;
        let realised_mu = (self.steps as f64).sqrt() * step.mu;
        let realised_eps = gdp_epsilon(realised_mu, delta).map_err(accountant)?;
        if realised_eps.is_nan() || realised_eps > eps * (1.0 + 1e-12) {
            return Err(invalid(format!(
                "GDP accountant: realised eps {realised_eps} exceeds the target {eps}"
            )));
        }
        Ok(FullBatchCalibration {
            sensitivity,
            gdp_mu: mu,
            sigma,
            realised_eps,
        })
    }

    /// Calibrates ([`Self::calibrate`]) and runs ([`Self::run_with_sigma`]).
    ///
    /// # Errors
    /// As those two.
    pub fn run<R: Rng + ?Sized>(
        &self,
        rows: &LogisticRows<'_>,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<(FullBatchRun, FullBatchCalibration), RunFailure> {
        let calibration = self.calibrate(rows.num_records(), privacy)?;
        let run = self.run_with_sigma(rows, calibration.sigma, rng)?;
        Ok((run, calibration))
    }

    /// Runs `T` steps with noise `sigma` per coordinate (module doc).
    /// `sigma = 0` is plain (non-private) clipped gradient descent; the run
    /// is private only with a `sigma` from [`Self::calibrate`].
    ///
    /// # Errors
    /// `InvalidParameters` for an invalid configuration or `sigma`;
    /// `NonFinite` for a non-finite iterate.
    pub fn run_with_sigma<R: Rng + ?Sized>(
        &self,
        rows: &LogisticRows<'_>,
        sigma: f64,
        rng: &mut R,
    ) -> Result<FullBatchRun, RunFailure> {
        self.check()?;
        if !(sigma.is_finite() && sigma >= 0.0) {
            return Err(invalid(format!(
                "noise sigma must be finite and >= 0, got {sigma}"
            )));
        }
        let d = rows.dim();
        let (mut w, mut g, mut partials) = (vec![0.0; d], vec![0.0; d], Vec::new());
        let mut clipped = 0;
        for _ in 0..self.steps {
            clipped += rows.clipped_mean_gradient(&w, self.clip, &mut partials, &mut g);
            let z = gaussian(d, sigma, rng);
            for ((wj, gj), zj) in w.iter_mut().zip(&g).zip(&z) {
                *wj -= self.step_size * (gj + self.l2 * *wj + zj);
            }
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite(
                "full-batch noisy GD iterate is not finite".into(),
            ));
        }
        Ok(FullBatchRun {
            w,
            gradient_evaluations: self.steps * rows.num_records() as u64,
            clipped_records: clipped,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{block_gradient_at, sigmoid};
    use dpcore::rows::lane_dot as dot;
    use dpcore::simd::supported_levels;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    /// The pass as it was fused until 2026-12-01 (each row's coefficient,
    /// then its update, row by row): the two-phase tiled pass and its AVX2
    /// copy must give its bits, for row counts below, at and above a
    /// sub-block (20 rows at d = 100) and a block, and dimensions below,
    /// at and between tiles of 32.
    fn fused_reference(
        x: &[f64],
        y: &[f64],
        norms: &[f64],
        w: &[f64],
        clip: f64,
        acc: &mut [f64],
    ) -> usize {
        acc.fill(0.0);
        let mut clipped = 0;
        for ((row, &yi), &norm) in x.chunks_exact(w.len()).zip(y).zip(norms) {
            let mut coef = -yi * sigmoid(-yi * dot(row, w));
            let length = coef.abs() * norm;
            if length > clip {
                coef *= clip / length;
                clipped += 1;
            }
            acc.iter_mut().zip(row).for_each(|(a, xj)| *a += coef * xj);
        }
        clipped
    }

    /// Every vector level gives the fused pass's bits (so the same bits as
    /// each other), for row counts below, at and above a sub-block (20 rows
    /// at d = 100) and a block, dimensions below, at and between registers,
    /// tiles of 32 and the prefetch threshold (64), margins large and small,
    /// and a clip that binds for some rows.
    #[test]
    fn the_tiled_pass_gives_the_fused_bits() {
        let levels = supported_levels();
        eprintln!("levels on this CPU: {levels:?}");
        let mut rng = Pcg64::seed_from_u64(12);
        for (n, d) in [
            (1, 1),
            (5, 3),
            (17, 7),
            (33, 8),
            (40, 13),
            (64, 100),
            (9, 257),
            (19, 100),
            (20, 100),
            (21, 100),
            (300, 100),
            (256, 32),
            (70, 64),
            (41, 65),
            (50, 37),
            (12, 1000),
        ] {
            let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f64> = (0..n)
                .map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 })
                .collect();
            let norms: Vec<f64> = x.chunks_exact(d).map(|r| dot(r, r).sqrt()).collect();
            for scale in [2.0, 0.2] {
                let w: Vec<f64> = (0..d).map(|_| rng.random_range(-scale..scale)).collect();
                for clip in [0.05, 1e9] {
                    let mut expect = vec![f64::NAN; d];
                    let clipped = fused_reference(&x, &y, &norms, &w, clip, &mut expect);
                    let expect: Vec<u64> = expect.iter().map(|a| a.to_bits()).collect();
                    for &level in &levels {
                        let mut acc = vec![f64::NAN; d];
                        let got = block_gradient_at(level, &x, &y, &norms, &w, clip, &mut acc);
                        let bits: Vec<u64> = acc.iter().map(|a| a.to_bits()).collect();
                        assert_eq!(
                            (got, &bits),
                            (clipped, &expect),
                            "{level:?}, n = {n}, d = {d}, clip = {clip}"
                        );
                    }
                }
            }
        }
    }
}
