//! Algorithm 4: private SMD with sequential Maurey sparsification for
//! polyhedral DP-SCO, with anytime online-to-batch (digest §3.4, Thm 5.1,
//! Prop F.1).
//!
//! MW iterates `x^t` are averaged (Cesàro, in probability space, pitfall 21)
//! into `w^t`; the gradient of a fresh batch is taken at the Maurey point
//! `w_hat^t` of `K` vertices drawn from `P_{w^t}`, re-drawn when `t <= q` or
//! `q | t` and reused otherwise (pitfall 13). The output is a fresh
//! `K`-sample of `w^T`.
//!
//! Privacy (Prop F.1): sampling from `P_{w^t}` is the exponential mechanism
//! with log-sum-exp scores of sensitivity `2 tau L0 / B`, so each vertex is
//! `4 tau L0 / B`-DP. Corrected release count (digest §3.4, pitfall 12):
//! the realised number of re-draws times `K` plus the final `K`
//! (`<= TK/q + (q+1)K`); [`ReleaseCount::PaperPrinted`] uses the printed
//! `TK/q + qK`. `tau` is the minimum of the statistical term of App. F, the
//! stability cap `1/(8 L0 q)` and the privacy cap `eps_0 B / (4 L0)` with
//! `eps_0` from [`super::privacy::per_release_budget`].

use dpcore::saddle::{SimplexPoint, SimplexSco};
use dpcore::{PrivacyParams, RunFailure};
use rand::Rng;

use super::mw::{sample_sorted, LogWeights, SamplerScratch, SparseAverage};
use super::privacy::{account, per_release_budget};
use super::{ReleaseCount, ScoDiagnostics, ScoRelease, SpentPrivacy};
use crate::transcript::{Transcript, Unobserved};

/// Smoothness regime of Thm 5.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoRegime {
    /// First-order smooth: `T = min(n, (n eps)^{4/5}/(l_x Lambda)^{2/5})`,
    /// `q = round(sqrt(T)/l_x)`, `K = ceil(T/l_x)`.
    FirstOrder,
    /// Second-order smooth: `T = min(n, n eps/(l_x sqrt Lambda))`,
    /// `q = round(sqrt(T/l_x))`, `K = ceil(sqrt(T l_x))`.
    SecondOrder,
}

/// Alg. 4's realised schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alg4Schedule {
    /// Steps `T`.
    pub steps: usize,
    /// Batch `B = floor(n/T)`.
    pub batch: usize,
    /// Maurey samples `K`.
    pub k: usize,
    /// Refresh period `q`.
    pub q: usize,
    /// Step size `tau` (minimum of the three terms below).
    pub tau: f64,
    /// Statistical term of App. F.
    pub tau_statistical: f64,
    /// Stability cap `1/(8 L0 q)`.
    pub tau_stability_cap: f64,
    /// Privacy cap.
    pub tau_privacy_cap: f64,
    /// Released vertices of the corrected count.
    pub releases: usize,
}

/// Number of re-draws: `|{t in 1..=T : t <= q or q | t}|`.
pub fn alg4_refreshes(steps: usize, q: usize) -> usize {
    steps.min(q) + steps.saturating_sub(q) / q
}

/// Alg. 4's step count `T`, refresh period `q` and Maurey sample size `K`
/// ([`ScoRegime`]), from public quantities only: `n`, `d` and the privacy
/// parameters. [`alg4_schedule`] builds on it; the cost model prices a run
/// with it without building the problem.
pub fn alg4_steps(
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    regime: ScoRegime,
) -> (usize, usize, usize) {
    let lx = (d as f64).ln().max(f64::MIN_POSITIVE);
    let lam = (1.0 / privacy.delta).ln();
    let ne = n as f64 * privacy.eps;
    let raw_t = match regime {
        ScoRegime::FirstOrder => ne.powf(0.8) / (lx * lam).powf(0.4),
        ScoRegime::SecondOrder => ne / (lx * lam.sqrt()),
    };
    let steps = raw_t.clamp(1.0, n as f64) as usize;
    let t = steps as f64;
    let (q, k) = match regime {
        ScoRegime::FirstOrder => ((t.sqrt() / lx).round(), (t / lx).ceil()),
        ScoRegime::SecondOrder => ((t / lx).sqrt().round(), (t * lx).sqrt().ceil()),
    };
    (steps, q.max(1.0) as usize, k.max(1.0) as usize)
}

/// Alg. 4's schedule (module docs).
pub fn alg4_schedule(
    problem: &dyn SimplexSco,
    privacy: PrivacyParams,
    regime: ScoRegime,
    count: ReleaseCount,
) -> Result<Alg4Schedule, RunFailure> {
    let n = problem.num_records();
    let c = problem.constants();
    let lx = (problem.dim() as f64).ln().max(f64::MIN_POSITIVE);
    let (steps, q, k) = alg4_steps(n, problem.dim(), privacy, regime);
    let t = steps as f64;
    let (qf, kf) = (q as f64, k as f64);
    let batch = n / steps;
    let releases = (alg4_refreshes(steps, q) + 1) * k;
    let counted = match count {
        ReleaseCount::Corrected => releases,
        ReleaseCount::PaperPrinted => ((t * kf / qf) + qf * kf) as usize,
    };
    let eps0 = per_release_budget(privacy, counted.max(1))?;
    let variance = match regime {
        ScoRegime::FirstOrder => {
            c.l0 * c.l0
                + (c.l0 * c.l0 + c.l1 * c.l1) * qf * (lx / kf).sqrt()
                + c.l1 * c.l1 * qf / (lx.sqrt() * kf.powf(1.5))
        }
        ScoRegime::SecondOrder => {
            c.l0 * c.l0
                + c.l1 * c.l1 * qf * lx / kf
                + if c.l2.is_finite() {
                    c.l2 * c.l2 * qf / (kf * kf)
                } else {
                    0.0
                }
        }
    };
    let tau_statistical = (lx / (variance * t)).sqrt();
    let tau_stability_cap = 1.0 / (8.0 * c.l0 * qf);
    let tau_privacy_cap = eps0 * batch as f64 / (4.0 * c.l0);
    Ok(Alg4Schedule {
        steps,
        batch,
        k,
        q,
        tau: tau_statistical.min(tau_stability_cap).min(tau_privacy_cap),
        tau_statistical,
        tau_stability_cap,
        tau_privacy_cap,
        releases,
    })
}

/// Runs Alg. 4 with the corrected schedule of [`alg4_schedule`].
pub fn private_sco_smd<R: Rng + ?Sized>(
    problem: &dyn SimplexSco,
    privacy: PrivacyParams,
    regime: ScoRegime,
    rng: &mut R,
) -> Result<ScoRelease, RunFailure> {
    let s = alg4_schedule(problem, privacy, regime, ReleaseCount::Corrected)?;
    private_sco_smd_with(problem, privacy, s, rng)
}

/// Runs Alg. 4 with an explicit schedule (spend accounted from it).
pub fn private_sco_smd_with<R: Rng + ?Sized>(
    problem: &dyn SimplexSco,
    privacy: PrivacyParams,
    s: Alg4Schedule,
    rng: &mut R,
) -> Result<ScoRelease, RunFailure> {
    private_sco_smd_observed(problem, privacy, s, &mut Unobserved, rng)
}

/// [`private_sco_smd_with`], handing `transcript` each step's MW
/// distribution ([`Transcript::distribution`]), every vertex the accountant
/// counts (each re-draw's `K` vertices from the running average and the
/// final `K`: [`Transcript::vertices`]) and each mirror step
/// ([`Transcript::mirror_step`], the single player as `x`). Same random
/// stream and release.
///
/// # Errors
/// As [`private_sco_smd_with`].
pub fn private_sco_smd_observed<R: Rng + ?Sized>(
    problem: &dyn SimplexSco,
    privacy: PrivacyParams,
    s: Alg4Schedule,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<ScoRelease, RunFailure> {
    let d = problem.dim();
    if s.batch == 0 || s.steps * s.batch > problem.num_records() {
        return Err(RunFailure::InvalidParameters("T * B exceeds n".into()));
    }
    let mut mw = LogWeights::uniform(d);
    let (mut p, mut w, mut g) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    let mut scratch = SamplerScratch::default();
    let mut w_hat = SparseAverage::default();
    let mut refreshes = 0;
    let observed = transcript.observes();
    for t in 1..=s.steps {
        mw.probabilities_into(&mut p);
        if observed {
            transcript.distribution(0, &p);
        }
        let inv = 1.0 / t as f64;
        w.iter_mut()
            .zip(&p)
            .for_each(|(wj, pj)| *wj += (pj - *wj) * inv);
        if t % 64 == 0 {
            let total: f64 = w.iter().sum();
            w.iter_mut().for_each(|wj| *wj /= total);
        }
        if t <= s.q || t.is_multiple_of(s.q) {
            sample_sorted(&w, s.k, rng, &mut scratch);
            if observed {
                transcript.vertices(0, &w, w.iter().sum(), &scratch.draws);
            }
            w_hat.fill_from_sorted(&scratch.draws);
            refreshes += 1;
        }
        let records = (t - 1) * s.batch..t * s.batch;
        if observed {
            let none = SimplexPoint::Dense(&[]);
            transcript.mirror_step(records.clone(), w_hat.point(), none, -s.tau, 0.0);
        }
        problem.batch_gradient(records, w_hat.point(), &mut g);
        mw.step(-s.tau, &g);
    }
    sample_sorted(&w, s.k, rng, &mut scratch);
    if observed {
        transcript.vertices(0, &w, w.iter().sum(), &scratch.draws);
    }
    w_hat.fill_from_sorted(&scratch.draws);
    let out = w_hat.to_dense(d);
    let l0 = problem.constants().l0;
    let acct = account(
        4.0 * l0 * s.tau / s.batch as f64,
        (refreshes + 1) * s.k,
        privacy.delta,
    )?;
    Ok(ScoRelease {
        w: out,
        gradient_evaluations: s.steps * s.batch,
        privacy: Some(SpentPrivacy::Vertices(acct)),
        diagnostics: ScoDiagnostics {
            steps: s.steps,
            batch: s.batch,
            k: s.k,
            q: s.q,
            tau: s.tau,
            average: w,
        },
    })
}
