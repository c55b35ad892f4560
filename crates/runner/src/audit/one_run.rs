//! `runner one-run`: one-run privacy audits (Steinke, Nasr & Jagielski
//! 2023) at a committed study's setting: the entry runs once with `m`
//! canaries (`papers::one_run`), the auditor guesses the top `k` "in" and the
//! bottom `k` "out" from the canaries' scores, and `audit::one_run` bounds
//! `eps` at `delta` with false-alarm rate `alpha`.
//!
//! A command, not an `experiments/audit.toml` row: a row's machinery (a
//! neighbouring pair, runs a side, the statistic's store, power probes) is
//! built for many runs on a tiny pair and has nothing to hold here, where
//! one run at the study's `n` is the whole audit. `--audits N` repeats the
//! audit on `N` independent seeds to measure how often it flags a variant;
//! each line is a complete one-run audit on its own.

use std::time::Instant;

use anyhow::Result;
use audit::assess::gdp_mu_of;
use audit::one_run_fdp::{gdp_mu_lower, rejects, Tradeoff};
use clap::Args;
use dpcore::{PrivacyParams, RunFailure};
use papers::bassily::one_run::{nsgd, Calibration, NsgdCanaries};
use papers::lowy_razaviyayn::one_run::{output_perturbation, OutputPerturbationCanaries};
use papers::one_run::CanaryRun;

use crate::cli::{UsageError, EXIT_OK};

/// A name the command does not know, as bad input (exit 2).
fn usage(message: String) -> anyhow::Error {
    UsageError(
        message,
        "runner one-run nsgd|output_perturbation_conceptual --n N --d D --eps E --delta DELTA \
         [--calibration accountant|paper]"
            .into(),
    )
    .into()
}

/// Options of `runner one-run`.
#[derive(Debug, Args, Clone)]
pub struct OneRunArgs {
    /// `nsgd` (Bassily et al., LinBall) or `output_perturbation_conceptual`
    /// (Lowy–Razaviyayn, the diagonal quadratic).
    pub algorithm: String,
    /// The study's record count (data plus canaries).
    #[arg(long)]
    pub n: usize,
    /// Dimension (at least the canaries, plus 1 for nsgd).
    #[arg(long)]
    pub d: usize,
    /// Claimed eps.
    #[arg(long)]
    pub eps: f64,
    /// Claimed delta.
    #[arg(long)]
    pub delta: f64,
    /// Canary slots m.
    #[arg(long, default_value_t = 1000)]
    pub canaries: usize,
    /// Guesses on each side (k "in", k "out").
    #[arg(long, default_value_t = 100)]
    pub guesses: usize,
    /// Fraction of the calibrated noise added (0.5: the half-noise control).
    #[arg(long, default_value_t = 1.0)]
    pub noise_factor: f64,
    /// nsgd's `calibration` option: `accountant` or `paper` (the printed sigma).
    #[arg(long, default_value = "accountant")]
    pub calibration: String,
    /// LinBall's r_factor (nsgd).
    #[arg(long, default_value_t = 1.0)]
    pub r_factor: f64,
    /// False-alarm rate of each audit.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Independent one-run audits (seeds seed, seed + 1, ...).
    #[arg(long, default_value_t = 1)]
    pub audits: u64,
    /// Seed of the first audit (data and run).
    #[arg(long, default_value_t = 20_261_128)]
    pub seed: u64,
}

fn canary_run(a: &OneRunArgs, seed: u64) -> Result<CanaryRun> {
    let privacy = PrivacyParams {
        eps: a.eps,
        delta: a.delta,
    };
    // The run's stream is the seed's, decorrelated from the data's.
    let run_seed = seed ^ 0x9e37_79b9_7f4a_7c15;
    let run = match a.algorithm.as_str() {
        "nsgd" => {
            let calibration = match a.calibration.as_str() {
                "accountant" => Calibration::Accountant,
                "paper" => Calibration::Paper,
                other => {
                    return Err(usage(format!(
                        "calibration {other:?}: expected accountant or paper"
                    )))
                }
            };
            nsgd(&NsgdCanaries {
                n: a.n,
                d: a.d,
                privacy,
                r_factor: a.r_factor,
                canaries: a.canaries,
                calibration,
                noise_factor: a.noise_factor,
                data_seed: seed,
                run_seed,
            })
        }
        "output_perturbation_conceptual" => output_perturbation(&OutputPerturbationCanaries {
            n: a.n,
            d: a.d,
            privacy,
            canaries: a.canaries,
            noise_factor: a.noise_factor,
            data_seed: seed,
            run_seed,
        }),
        other => {
            return Err(usage(format!(
                "one-run audits exist for nsgd and output_perturbation_conceptual, not {other:?}"
            )))
        }
    };
    // A setting the canaries or the entry refuse is bad input: nothing ran.
    run.map_err(|e| match e {
        RunFailure::InvalidParameters(m) => usage(m),
        other => other.into(),
    })
}

/// Runs `args.audits` one-run audits and prints one line each and a summary.
///
/// Each audit reads the same guesses two ways: against the claim's one
/// point `(eps, delta)` (`audit::one_run`, Steinke et al.: `eps_lower`, a
/// violation when above the claim) and against the whole curve the
/// calibration certifies (`audit::one_run_fdp`, Mahloujifar et al.: the
/// accountant's profile for the calibrated noise, rejected or not, and the
/// largest `mu`-GDP the guesses reject). Both at level `alpha`.
pub fn run(args: &OneRunArgs) -> Result<i32> {
    let (mut flagged, mut rejected, mut total, mut sum_eps) = (0, 0, 0.0, 0.0);
    for k in 0..args.audits {
        let start = Instant::now();
        let run = canary_run(args, args.seed + k)?;
        let seconds = start.elapsed().as_secs_f64();
        total += seconds;
        let a = audit::one_run::audit(
            &run.scores,
            &run.included,
            args.guesses,
            args.guesses,
            run.claim.delta,
            args.alpha,
        );
        let certified = Tradeoff::Profile {
            points: run.certified_profile.clone(),
        };
        let curve_rejected = rejects(&certified, a.canaries, a.guesses, a.correct, args.alpha);
        let mu_lower = gdp_mu_lower(a.canaries, a.guesses, a.correct, args.alpha);
        if k == 0 {
            println!("{}", run.details);
            println!(
                "claim eps = {} at delta = {} (the noise run: eps {:.4} by the entry's accountant); \
                 m = {}, k = {} a side, alpha = {}",
                run.claim.eps, run.claim.delta, run.run_eps, a.canaries, args.guesses, args.alpha
            );
            let claim_mu = gdp_mu_of(run.claim.eps, run.claim.delta)
                .map_or("none (delta = 0)".to_string(), |mu| format!("{mu:.4}"));
            println!(
                "certified curve: the calibrated noise's privacy profile at {} points \
                 (eps 0 to {:.2}); the largest mu-GDP meeting the claim's point is {claim_mu} \
                 (a reference: mu_lower above it contradicts the claim only for a Gaussian-shaped \
                 mechanism)",
                run.certified_profile.len(),
                run.certified_profile.last().map_or(0.0, |p| p.0),
            );
        }
        let flag = a.eps_lower > run.claim.eps;
        sum_eps += a.eps_lower;
        flagged += u64::from(flag);
        rejected += u64::from(curve_rejected);
        println!(
            "seed {}: {}/{} correct, eps_lower {:.4}{}; certified curve {}, mu_lower {:.4} ({seconds:.2} s run)",
            args.seed + k,
            a.correct,
            a.guesses,
            a.eps_lower,
            if flag { " > claim: VIOLATION" } else { "" },
            if curve_rejected { "REJECTED" } else { "not rejected" },
            mu_lower,
        );
    }
    println!(
        "flagged {flagged} of {} audits against (eps, delta), mean eps_lower {:.4}; \
         certified curve rejected in {rejected} of {} ({:.1} s of runs in all)",
        args.audits,
        sum_eps / args.audits as f64,
        args.audits,
        total
    );
    Ok(EXIT_OK)
}
