//! Noisy projected SGD in the style of \[BST14\], the `(eps, delta)`-DP
//! baseline of Lowy–Razaviyayn Tables 4 and 6 for strongly convex ERM (rate
//! `L^2/mu d/(eps n)^2 log^2(n/delta)`, runtime `O(n^2 d)`). The digest gives
//! no calibration, so the noise is calibrated with this repository's RDP
//! accountant.
//!
//! # Algorithm
//! For `t = 1..T` (default `T = n^2`, BST14's runtime): draw a Poisson batch
//! `B_t` (each record independently with probability `q = b/n`, default
//! expected batch `b = 1`, BST14's single-sample steps), clip each per-record
//! gradient to norm `C = L` (a no-op on `B(0,R)`, where `||grad f|| <= L`;
//! kept defensively so privacy never rests on the constants alone), and step
//! `w_t = Pi_{B(0,R)}(w_{t-1} - eta_t (sum_{i in B_t} g_i + N(0, (sigma C)^2
//! I))/(q n))` with `eta_t = 1/(mu t)`, from `w_0 = 0`. The output is the
//! **t-weighted average** `sum_t t w_t / sum_t t` (or the last iterate, see
//! [`SgdOutput`]).
//!
//! # Batch sampling
//! Exact Poisson sampling, [`poisson_batch`] (shared with Bassily et al.'s
//! `A_NSGD`, see [`crate::dp_sgd`]).
//!
//! # Privacy (replace-one, the paper's relation; digest §1.3)
//! The accountant analyses Poisson subsampling only under add/remove
//! (`mechanisms::rdp` module doc). Under add/remove the clipped sum has
//! sensitivity `C`, so noise `sigma C` has multiplier `sigma`, and `T`
//! adaptive steps are `(eps', delta')`-DP with
//! `sigma = calibrate_noise_multiplier(eps', delta', q, T, AddRemove)`.
//! A replace-one neighbour is an add/remove neighbour of an add/remove
//! neighbour (remove `x_i`, add `x'_i`), so group privacy gives
//! `P(A(X) in K) <= e^{eps'} (e^{eps'} P(A(X') in K) + delta') + delta'`,
//! i.e. `(2 eps', (1 + e^{eps'}) delta')`-DP under replace-one. We take
//! `eps' = eps/2`, `delta' = delta/(1 + e^{eps/2})` and report the realised
//! replace-one `eps = 2 eps'_acc`, where `eps'_acc <= eps/2` is the
//! accountant's value at `delta'` (so the realised `delta` is `<= delta` as
//! well); the calibration is [`crate::dp_sgd::calibrate_poisson_gaussian`]
//! under replace-one. Post-processing (projection, averaging) is free.

use crate::dp_sgd::calibrate_poisson_gaussian;
pub use crate::dp_sgd::poisson_batch;
use dpcore::{FiniteSum, Objective, PrivacyParams, ProblemConstants, RunFailure};
use mechanisms::noise::gaussian;
use mechanisms::Neighbouring;
use rand::Rng;

/// Which iterate noisy SGD releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SgdOutput {
    /// `sum_t t w_t / sum_t t` (default).
    #[default]
    WeightedAverage,
    /// `w_T`.
    Last,
}

/// Configuration of the noisy-SGD baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoisySgd {
    /// Expected batch size `b = q n` (default 1).
    pub expected_batch: f64,
    /// Number of steps `T`; `None` means `n^2`.
    pub steps: Option<u64>,
    /// Released iterate.
    pub output: SgdOutput,
}

impl Default for NoisySgd {
    fn default() -> Self {
        Self {
            expected_batch: 1.0,
            steps: None,
            output: SgdOutput::WeightedAverage,
        }
    }
}

/// Largest admissible `T * max(d, b d)` (about `1e10` floating-point updates).
pub const MAX_WORK: f64 = 1e10;

/// The noise calibration of one configuration (module doc, "Privacy").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoisySgdCalibration {
    /// Poisson sampling rate `q = b/n`.
    pub sampling_rate: f64,
    /// Number of steps `T`.
    pub steps: u64,
    /// Add/remove noise multiplier `sigma` (noise std `sigma L` on the sum).
    pub noise_multiplier: f64,
    /// Realised replace-one `eps = 2 eps'_acc <= eps` at the target `delta`.
    pub realised_eps: f64,
}

/// One noisy-SGD release.
#[derive(Debug, Clone, PartialEq)]
pub struct NoisySgdRelease {
    /// The released parameter.
    pub w: Vec<f64>,
    /// The calibration used.
    pub calibration: NoisySgdCalibration,
    /// Per-record gradient evaluations (the sum of the realised batch sizes).
    pub gradient_evaluations: u64,
}

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

impl NoisySgd {
    /// Calibrates `sigma` for `n` records and `privacy` (module doc).
    /// Errors: `InvalidParameters` for pure DP, `delta` outside `(0, 1)`,
    /// `eps <= 0`, a batch size outside `(0, n]`, an accountant failure, or
    /// a realised replace-one `eps` above the target.
    pub fn calibrate(
        &self,
        n: usize,
        privacy: PrivacyParams,
    ) -> Result<NoisySgdCalibration, RunFailure> {
        let (eps, delta) = (privacy.eps, privacy.delta);
        if !(eps.is_finite() && eps > 0.0 && delta > 0.0 && delta < 1.0) {
            return Err(invalid(format!(
                "noisy SGD needs eps > 0 and delta in (0, 1), got {privacy:?}"
            )));
        }
        let b = self.expected_batch;
        if n == 0 || !(b > 0.0 && b <= n as f64) {
            return Err(invalid(format!(
                "expected batch {b} must lie in (0, n = {n}]"
            )));
        }
        let q = b / n as f64;
        let steps = self.steps.unwrap_or((n as u64).saturating_mul(n as u64));
        let calibrated =
            calibrate_poisson_gaussian(eps, delta, q, steps, Neighbouring::ReplaceOne)?;
        Ok(NoisySgdCalibration {
            sampling_rate: q,
            steps,
            noise_multiplier: calibrated.noise_multiplier,
            realised_eps: calibrated.realised_eps,
        })
    }

    /// Runs noisy SGD on `problem` (module doc).
    ///
    /// Errors: `InvalidParameters` when `problem` has no `finite_sum`, for
    /// invalid privacy or constants (`mu > 0`, `L > 0`, `R > 0`, finite), or
    /// when `T * max(d, b d)` exceeds [`MAX_WORK`]; `NonFinite` for a
    /// non-finite iterate.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<NoisySgdRelease, RunFailure> {
        self.check(problem)?;
        let calibration = self.calibrate(problem.num_records(), privacy)?;
        self.run_calibrated(problem, calibration, rng)
    }

    /// The checks of [`NoisySgd::run`] that do not involve privacy: a finite
    /// sum, finite positive `mu, L, R`, `d >= 1` and the [`MAX_WORK`] guard.
    fn check<'a>(
        &self,
        problem: &'a dyn Objective,
    ) -> Result<(&'a dyn FiniteSum, ProblemConstants, u64), RunFailure> {
        let records = problem
            .finite_sum()
            .ok_or_else(|| invalid("noisy SGD needs a finite-sum (ERM) objective".into()))?;
        let (n, d) = (problem.num_records(), problem.dim());
        let c = problem.constants();
        let finite_pos = |v: f64| v.is_finite() && v > 0.0;
        if !(finite_pos(c.strong_convexity) && finite_pos(c.lipschitz) && finite_pos(c.radius))
            || d == 0
        {
            return Err(invalid(format!(
                "noisy SGD needs finite mu, L, R > 0 and d >= 1, got {c:?}"
            )));
        }
        let steps = self.steps.unwrap_or((n as u64).saturating_mul(n as u64));
        let work = steps as f64 * (d as f64) * self.expected_batch.max(1.0);
        if work > MAX_WORK {
            return Err(invalid(format!(
                "T * max(d, b d) = {work:e} exceeds {MAX_WORK:e}"
            )));
        }
        Ok((records, c, steps))
    }

    /// Runs noisy SGD with a calibration from [`NoisySgd::calibrate`] for the
    /// same `n` and configuration (so repeated runs calibrate once).
    ///
    /// Errors: as [`NoisySgd::run`], plus `InvalidParameters` when the
    /// calibration's sampling rate or step count does not match this
    /// configuration and `n`.
    pub fn run_calibrated<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        calibration: NoisySgdCalibration,
        rng: &mut R,
    ) -> Result<NoisySgdRelease, RunFailure> {
        let (records, c, steps) = self.check(problem)?;
        let (n, d) = (problem.num_records(), problem.dim());
        if calibration.sampling_rate != self.expected_batch / n as f64 || calibration.steps != steps
        {
            return Err(invalid(format!(
                "calibration {calibration:?} does not match this configuration with n = {n}"
            )));
        }
        let q = calibration.sampling_rate;
        let clip = c.lipschitz;
        let noise_std = calibration.noise_multiplier * clip;
        let (mut w, mut avg) = (vec![0.0; d], vec![0.0; d]);
        let (mut g, mut sum) = (vec![0.0; d], vec![0.0; d]);
        let mut batch = Vec::new();
        let mut evaluations = 0u64;
        for t in 1..=calibration.steps {
            poisson_batch(n, q, rng, &mut batch);
            sum.iter_mut().for_each(|s| *s = 0.0);
            for &i in &batch {
                records.record_gradient(i, &w, &mut g);
                let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
                let scale = if norm > clip { clip / norm } else { 1.0 };
                sum.iter_mut().zip(&g).for_each(|(s, gj)| *s += scale * gj);
            }
            evaluations += batch.len() as u64;
            let step = 1.0 / (c.strong_convexity * t as f64 * q * n as f64);
            let z = gaussian(d, noise_std, rng);
            for ((wj, sj), zj) in w.iter_mut().zip(&sum).zip(&z) {
                *wj -= step * (sj + zj);
            }
            project(&mut w, c.radius);
            let mix = 2.0 / (t as f64 + 1.0);
            avg.iter_mut()
                .zip(&w)
                .for_each(|(a, wj)| *a += mix * (wj - *a));
        }
        let out = match self.output {
            SgdOutput::WeightedAverage => avg,
            SgdOutput::Last => w,
        };
        if out.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite(
                "noisy SGD output is not finite".into(),
            ));
        }
        Ok(NoisySgdRelease {
            w: out,
            calibration,
            gradient_evaluations: evaluations,
        })
    }
}

/// Projects `w` onto `B(0, radius)` in place.
fn project(w: &mut [f64], radius: f64) {
    let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > radius {
        let s = radius / norm;
        w.iter_mut().for_each(|v| *v *= s);
    }
}
