//! Algorithm 1: private stochastic mirror descent with sequential Maurey
//! sparsification (digest §3.1; Thms 4.1, 4.2; Prop 4.1).
//!
//! One pass over disjoint batches of `B = floor(n/T)` records. At step `t`
//! each player draws `K + 1` i.i.d. vertices from its MW distribution: `K`
//! form the Maurey point `(x_hat, y_hat)` at which the batch gradient is
//! evaluated, one is the step's output vertex. The MW iterates are never
//! released; the output is the average of the `T` output vertices.
//!
//! Corrections (digest §3.1 errata, default): the max-player **ascends**
//! (`theta_y += tau grad_y F`), and the privacy cap counts the `2 T (K + 1)`
//! vertex releases of both players. [`ReleaseCount::PaperPrinted`] is the
//! printed Prop 4.1 (`T (K + 1)`, looser by `sqrt 2`).
//!
//! Privacy: batches are disjoint and `||grad f||_inf <= L0`, so the
//! log-weights `-tau sum g` have sensitivity `2 L0 tau / B` and each release
//! is `4 L0 tau / B`-DP (Thm A.3). `tau` is capped so that this equals the
//! per-release budget of [`super::privacy::per_release_budget`] (for
//! `eps < 1` exactly `tau <= B eps / (16 L0 sqrt(T (K+1) ln(1/delta)))`),
//! and the realised spend is composed by [`super::privacy::account`].
//!
//! Schedules (digest §3.1 table, §9): `T` and `K` by regime, clamped to
//! `T in [1, n]`, `K >= 1`; `tau = min(c_tau sqrt(2 l/(5T))/L0, cap)`.

use dpcore::saddle::SaddleProblem;
use dpcore::{PrivacyParams, RunFailure};
use rand::Rng;

use super::mw::{
    sample_sorted_with_prefix, split_output_vertex, LogWeights, PrefixSums, SamplerScratch,
    SoftmaxOut, SparseAverage,
};
use super::privacy::{account, per_release_budget};
use super::rates::log_dims;
use super::{ReleaseCount, SaddleDiagnostics, SaddleRelease, SpentPrivacy};
use crate::transcript::{Transcript, Unobserved};

/// The smoothness regime that selects Alg. 1's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regime {
    /// Thm 4.1 with `L2 = 0` or small (Remark E.1): `T = min(n, n eps / sqrt(l Lambda))`, `K = 1`.
    Quadratic,
    /// Thm 4.1: `T = min(n, (n eps/(l^{1/4} sqrt Lambda))^{4/5})`, `K = ceil(sqrt(T/l))`.
    SecondOrder,
    /// Thm 4.2: `T = min(n, (n eps)^{2/3} / Lambda^{1/3})`, `K = ceil(T/l)`.
    FirstOrder,
}

/// Options of Alg. 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alg1Options {
    /// Schedule regime.
    pub regime: Regime,
    /// Absolute constant `c_T` multiplying the schedule's `T` (default 1).
    pub c_steps: f64,
    /// Absolute constant `c_tau` multiplying the statistical step size (default 1).
    pub c_tau: f64,
    /// Which release count the privacy cap uses (default corrected).
    pub release_count: ReleaseCount,
}

impl Alg1Options {
    /// Defaults for a regime: `c_T = c_tau = 1`, corrected release count.
    pub fn new(regime: Regime) -> Self {
        Self {
            regime,
            c_steps: 1.0,
            c_tau: 1.0,
            release_count: ReleaseCount::Corrected,
        }
    }
}

/// The realised schedule of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alg1Schedule {
    /// Steps `T`.
    pub steps: usize,
    /// Batch size `B = floor(n/T)`.
    pub batch: usize,
    /// Maurey samples per step and player `K`.
    pub k: usize,
    /// Step size `tau`.
    pub tau: f64,
    /// The statistical term `c_tau sqrt(2 l / (5 T)) / L0`.
    pub tau_statistical: f64,
    /// The privacy cap on `tau`.
    pub tau_privacy_cap: f64,
    /// True when the schedule's `T` was below 1 and clamped (outside the
    /// theorem's regime, pitfall 17).
    pub clamped: bool,
}

/// Alg. 1's steps `T` and Maurey samples `K` for `n` records and `l = ln(d_x
/// d_y)` (module docs), from public quantities only, with the unclamped `T`.
/// [`alg1_schedule`] builds on it; the cost model prices a run with it
/// without building the game.
pub fn alg1_steps(
    n: usize,
    l: f64,
    privacy: PrivacyParams,
    opts: Alg1Options,
) -> (usize, usize, f64) {
    let lam = (1.0 / privacy.delta).ln();
    let ne = n as f64 * privacy.eps;
    let raw_t = opts.c_steps
        * match opts.regime {
            Regime::Quadratic => ne / (l * lam).sqrt(),
            Regime::SecondOrder => (ne / (l.powf(0.25) * lam.sqrt())).powf(0.8),
            Regime::FirstOrder => ne.powf(2.0 / 3.0) / lam.cbrt(),
        };
    let steps = raw_t.min(n as f64).max(1.0).floor() as usize;
    let raw_k = match opts.regime {
        Regime::Quadratic => 1.0,
        Regime::SecondOrder => (steps as f64 / l).sqrt().ceil(),
        Regime::FirstOrder => (steps as f64 / l).ceil(),
    };
    (steps, raw_k.max(1.0) as usize, raw_t)
}

/// Alg. 1's schedule for `n` records (module docs).
pub fn alg1_schedule(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    opts: Alg1Options,
) -> Result<Alg1Schedule, RunFailure> {
    let n = problem.num_records();
    let (dx, dy) = problem.dims();
    let l = log_dims(dx, dy);
    if l <= 0.0 {
        return Err(RunFailure::InvalidParameters(
            "Alg. 1 needs d_x d_y >= 2".into(),
        ));
    }
    let (steps, k, raw_t) = alg1_steps(n, l, privacy, opts);
    let batch = n / steps;
    let l0 = problem.constants().l0;
    let releases = match opts.release_count {
        ReleaseCount::Corrected => 2 * steps * (k + 1),
        ReleaseCount::PaperPrinted => steps * (k + 1),
    };
    let eps0 = per_release_budget(privacy, releases)?;
    let tau_privacy_cap = eps0 * batch as f64 / (4.0 * l0);
    let tau_statistical = opts.c_tau * (2.0 * l / (5.0 * steps as f64)).sqrt() / l0;
    Ok(Alg1Schedule {
        steps,
        batch,
        k,
        tau: tau_statistical.min(tau_privacy_cap),
        tau_statistical,
        tau_privacy_cap,
        clamped: raw_t < 1.0,
    })
}

/// Runs Alg. 1 with the schedule of [`alg1_schedule`].
pub fn private_smd<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    opts: Alg1Options,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    let s = alg1_schedule(problem, privacy, opts)?;
    private_smd_with(problem, privacy, s, rng)
}

/// Runs Alg. 1 with an explicit schedule (the privacy spent is still
/// accounted from the realised `tau`, `B`, `T`, `K`).
pub fn private_smd_with<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    s: Alg1Schedule,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    private_smd_observed(problem, privacy, s, &mut Unobserved, rng)
}

/// [`private_smd_with`], handing `transcript` every vertex the accountant
/// counts (each step's `K + 1` draws of each player, before the output
/// vertex is split off: [`Transcript::vertices`]) and each mirror step
/// ([`Transcript::mirror_step`]). Same random stream and release.
///
/// # Errors
/// As [`private_smd_with`].
pub fn private_smd_observed<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    s: Alg1Schedule,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    let (dx, dy) = problem.dims();
    if s.batch == 0 || s.steps * s.batch > problem.num_records() {
        return Err(RunFailure::InvalidParameters("T * B exceeds n".into()));
    }
    let (mut wx, mut wy) = (LogWeights::uniform(dx), LogWeights::uniform(dy));
    let (mut px, mut py) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut out_x, mut out_y) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut avg_x, mut avg_y) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut sx, mut sy) = (SamplerScratch::default(), SamplerScratch::default());
    let (mut cx, mut cy) = (PrefixSums::default(), PrefixSums::default());
    let (mut hx, mut hy) = (SparseAverage::default(), SparseAverage::default());
    let inv_t = 1.0 / s.steps as f64;
    for t in 0..s.steps {
        // The MW average gains `p / T` in the softmax's own pass.
        let (total_x, total_y) = LogWeights::probabilities_pair(
            &wx,
            &wy,
            SoftmaxOut {
                p: &mut px,
                average: &mut avg_x,
                prefix: &mut cx,
            },
            SoftmaxOut {
                p: &mut py,
                average: &mut avg_y,
                prefix: &mut cy,
            },
            inv_t,
        );
        sample_sorted_with_prefix(&px, &cx, total_x, s.k + 1, rng, &mut sx);
        sample_sorted_with_prefix(&py, &cy, total_y, s.k + 1, rng, &mut sy);
        if transcript.observes() {
            transcript.vertices(0, &px, total_x, &sx.draws);
            transcript.vertices(1, &py, total_y, &sy.draws);
        }
        out_x[split_output_vertex(&mut sx.draws, rng)] += inv_t;
        out_y[split_output_vertex(&mut sy.draws, rng)] += inv_t;
        hx.fill_from_sorted(&sx.draws);
        hy.fill_from_sorted(&sy.draws);
        let records = t * s.batch..(t + 1) * s.batch;
        if transcript.observes() {
            transcript.mirror_step(records.clone(), hx.point(), hy.point(), -s.tau, s.tau);
        }
        problem.batch_gradient(records, hx.point(), hy.point(), &mut gx, &mut gy);
        wx.step(-s.tau, &gx);
        wy.step(s.tau, &gy);
    }
    let l0 = problem.constants().l0;
    let acct = account(
        4.0 * l0 * s.tau / s.batch as f64,
        2 * s.steps * (s.k + 1),
        privacy.delta,
    )?;
    check_finite(&out_x, &out_y)?;
    Ok(SaddleRelease {
        x: out_x,
        y: out_y,
        gradient_evaluations: s.steps * s.batch,
        privacy: Some(SpentPrivacy::Vertices(acct)),
        diagnostics: SaddleDiagnostics {
            steps: s.steps,
            batch: s.batch,
            k: s.k,
            tau: s.tau,
            mw_average_x: avg_x,
            mw_average_y: avg_y,
        },
    })
}

/// `y += a x`.
pub(crate) fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(yi, xi)| *yi += a * xi);
}

/// Errors with [`RunFailure::NonFinite`] unless both outputs are finite.
pub(crate) fn check_finite(x: &[f64], y: &[f64]) -> Result<(), RunFailure> {
    if x.iter().chain(y).all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(RunFailure::NonFinite("released point".into()))
    }
}
