//! A one-run canary audit of `nsgd` ([`crate::one_run`]) on LinBall, the
//! family of the committed E1 studies (`bftt_e1_nsgd_d`: `n = 2e4`, `eps =
//! 1`, `delta = 1e-12`, `d` up to 8192).
//!
//! The study's data are `n - m` LinBall records (`z = r e_1 + (1 - r) u`,
//! signal `r = min(r_factor R(n, d, eps, delta), 0.95)` as the family
//! builds it) and `m` canary slots `+-e_(2 + i)` (`e_1` carries the
//! signal): LinBall's record gradient is `-L z`, so a canary's clipped
//! gradient is the constant `-+L e_(2 + i)`, a white-box gradient canary
//! whose two values differ by `2L`, the replace-one sensitivity `A_NSGD` is
//! calibrated for. The run is the entry's own: the plan (`T`, `m`, `eta`,
//! `q = m/n`, the accountant's `sigma`) from the public `n` (replace-one:
//! the data set's size, always the study's `n`), Poisson batches, clipping,
//! projection onto `B(0, M)` and averaging; only `noise_factor` scales the
//! planned `sigma`. Score of canary `i`: the release's coordinate
//! `<w_bar - w_0, e_(2 + i)>` (`w_0 = 0`; an included canary pulls every
//! step it is sampled in towards `+e_(2 + i)`) minus the study data's
//! expected pull on it, which the white-box auditor knows (it knows every
//! record but the canaries; the guesses may depend on anything independent
//! of the inclusions).

use datagen::bassily::{LinBall, LinBallParams};
use dpcore::{Neighbouring, Objective, PrivacyParams, RunFailure};
use mechanisms::pld::PldAccountant;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::rate::rate;
use solvers::bassily::sgd::{Nsgd, NsgdVariant};
use solvers::dp_sgd::poisson_gaussian_realised_eps;

use super::families::MAX_SIGNAL;
pub use super::options::Calibration;
use crate::one_run::{canary_rows, check_canaries, draw_inclusions, sampled_profile, CanaryRun};

/// Canary coordinates start after `e_1`, LinBall's signal direction.
const OFFSET: usize = 1;

/// The replace-one PLD profile of `steps` Poisson-subsampled Gaussian steps
/// (rate `q`, multiplier `sigma` in units of the replace-one sensitivity),
/// sampled on the claim's grid. It depends on public quantities only, so
/// every audit of one command computes it once: the last one is kept
/// (`runner one-run --audits N` composed it N times before; at the
/// bftt_e1_nsgd_d setting, n = 2e4, d = 4096, it was about 0.9 s of each
/// 2.5 s audit, 2026-11-29, contended).
fn certified_profile(
    q: f64,
    sigma: f64,
    steps: u64,
    claim_eps: f64,
) -> Result<Vec<(f64, f64)>, RunFailure> {
    type Key = (u64, u64, u64, u64);
    type Cached = Option<(Key, Vec<(f64, f64)>)>;
    static LAST: std::sync::Mutex<Cached> = std::sync::Mutex::new(None);
    let key = (q.to_bits(), sigma.to_bits(), steps, claim_eps.to_bits());
    if let Some((k, profile)) = &*LAST.lock().expect("profile cache") {
        if *k == key {
            return Ok(profile.clone());
        }
    }
    let mut pld = PldAccountant::new(Neighbouring::ReplaceOne);
    pld.compose_poisson_gaussian(q, sigma, steps)
        .map_err(|e| RunFailure::InvalidParameters(format!("PLD accountant: {e}")))?;
    let profile = sampled_profile(claim_eps, |eps| pld.delta(eps))?;
    *LAST.lock().expect("profile cache") = Some((key, profile.clone()));
    Ok(profile)
}

/// The setting of one NSGD canary run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NsgdCanaries {
    /// The study's record count (data plus canary slots).
    pub n: usize,
    /// Dimension; at least `canaries + 1`.
    pub d: usize,
    /// The study's claim.
    pub privacy: PrivacyParams,
    /// LinBall's `r_factor` (the studies sweep 0.25 to 16; 1 is the rate).
    pub r_factor: f64,
    /// Canary slots `m`.
    pub canaries: usize,
    /// The entry's `calibration` option (accountant or the printed sigma).
    pub calibration: Calibration,
    /// Fraction of the planned noise actually added (1: the entry as is).
    pub noise_factor: f64,
    /// Seed of the study data.
    pub data_seed: u64,
    /// Seed of the inclusions, then of the run's batches and noise.
    pub run_seed: u64,
}

/// Runs `nsgd` once with canaries ([`NsgdCanaries`]).
///
/// # Errors
/// `InvalidParameters` for canaries that do not fit (`m >= n`, `m + 1 > d`)
/// or a `noise_factor` outside `(0, 1]`; the entry's own errors (its plan,
/// a non-finite release).
pub fn nsgd(s: &NsgdCanaries) -> Result<CanaryRun, RunFailure> {
    let (n, d, m) = (s.n, s.d, s.canaries);
    check_canaries(n, d, m, OFFSET, s.noise_factor)?;
    let p = s.privacy;
    let r = (s.r_factor * rate(n as f64, d as f64, p.eps, p.delta)).min(MAX_SIGNAL);
    let mut data_rng = Pcg64::seed_from_u64(s.data_seed);
    let study = LinBall::generate(LinBallParams::new(n - m, d, r), &mut data_rng)?;
    let mut rng = Pcg64::seed_from_u64(s.run_seed);
    let included = draw_inclusions(m, &mut rng);
    let mut rows: Vec<f64> = (0..n - m).flat_map(|i| study.record(i).to_vec()).collect();
    rows.extend(canary_rows(&included, d, OFFSET));
    let problem = LinBall::from_records(LinBallParams::new(n, d, r), rows)?;
    let algorithm = Nsgd {
        variant: NsgdVariant::Smooth,
        calibration: s.calibration.into(),
        relation: Neighbouring::ReplaceOne,
        public_n: None,
    };
    let mut plan = algorithm.plan(&problem, p)?;
    // The curve of the calibrated noise: replace-one Poisson-subsampled
    // Gaussian steps by the PLD accountant (pessimistic on its grid, so an
    // upper bound on delta(eps): the curve stays one a correct run has).
    // The accountant's unit is the replace-one sensitivity, 2L here (a
    // record replaced by its mirror image), and the plan's multiplier is
    // in units of L: hence the half. With the multiplier itself the curve
    // was that of twice the noise, and the unscaled run rejected it (1 of
    // 10 audits at bftt_e1_nsgd_d's point, at 241 of 400 correct).
    let certified_profile = certified_profile(
        plan.schedule.sampling_rate(),
        plan.noise.noise_multiplier / 2.0,
        plan.schedule.steps,
        p.eps,
    )?;
    plan.noise.sigma *= s.noise_factor;
    plan.noise.noise_multiplier *= s.noise_factor;
    let release = algorithm.run_planned(&problem, &plan, &mut rng)?;
    // The plan's own certificate when its noise runs unchanged; otherwise
    // the same accountant's for the scaled noise (its replace-one fixed
    // point can certify a hair above the calibration's, e.g. 4.0002 for
    // the multiplier calibrated to 4, so it is not used for the unscaled
    // noise).
    let run_eps = if s.noise_factor == 1.0 {
        plan.noise.realised_eps
    } else {
        poisson_gaussian_realised_eps(
            plan.noise.noise_multiplier,
            plan.schedule.sampling_rate(),
            plan.schedule.steps,
            p.delta,
            Neighbouring::ReplaceOne,
        )?
    };
    let sched = plan.schedule;
    // The auditor knows every record but the canaries (white box): it
    // removes the data's expected pull on each canary coordinate. Without
    // projection the average is -eta sum_s g_s (T - s + 1)/T, whose weights
    // sum to (T + 1)/2, and a Poisson batch's clipped sum over m has mean
    // (q/m) sum_j (-L z_j) = -(L/n) sum_j z_j: so c = eta L (T + 1)/(2n).
    // At n = 2e4, d = 1024 the data's column sums are about 4 times a
    // canary's own pull, and left in they hid it.
    let c = sched.step_size * problem.constants().lipschitz * (sched.steps as f64 + 1.0)
        / (2.0 * n as f64);
    // One pass over the n - m records, adding each record's canary block in
    // record order: the same additions, in the same order, as a per-column
    // `sum()` (which starts from -0.0), so the scores are bit-identical, but
    // n - m reads of m contiguous values instead of m strided passes (8e7
    // strided reads at m = 4000, n = 2e4).
    let mut columns = vec![-0.0_f64; m];
    for j in 0..n - m {
        let block = &study.record(j)[OFFSET..OFFSET + m];
        for (sum, x) in columns.iter_mut().zip(block) {
            *sum += x;
        }
    }
    let scores = (0..m)
        .map(|i| release.w[OFFSET + i] - c * columns[i])
        .collect();
    Ok(CanaryRun {
        scores,
        included,
        claim: p,
        noise_scale: plan.noise.sigma,
        run_eps,
        certified_profile,
        // The canary's own pull, +-c per coordinate (its gradient is -+L e).
        signal: 2.0 * c,
        details: format!(
            "nsgd ({:?}, replace-one) on LinBall n = {n}, d = {d}, r = {r:.4}: T = {}, batch m = {}, \
             q = {:.4}, noise multiplier {:.4} (x{} of the plan's), accountant eps {run_eps:.4}",
            plan.noise.calibration,
            sched.steps,
            sched.batch,
            sched.sampling_rate(),
            plan.noise.noise_multiplier,
            s.noise_factor,
        ),
    })
}
