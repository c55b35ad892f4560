//! The command line: `runner <spec>` runs plan → execute → analyze → plot →
//! report → check; subcommands redo any later stage from an existing results file.
//!
//! This module parses the command line and dispatches it; the options and
//! exit codes are in [`crate::cli`], the identity hashes of results files in
//! [`crate::identity`], and the stages in `pipeline` (a run), `merge` (shard
//! parts), `stored` (stored results and their reports) and `catalogue`
//! (`runner list`).

use std::ffi::OsString;

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::check::{write_baseline, write_verdicts};
use crate::cli::{
    baseline_path, figures_dir, load, verdicts_path, CheckArgs, CommonArgs, MergeArgs, PlanArgs,
    RunArgs, UsageError,
};
use crate::diagnostics::SpecError;
use crate::plan::describe;
use crate::store::StoreError;
use crate::{figures, sbatch, shard};

mod catalogue;
mod merge;
mod pipeline;
mod reproduce;
mod stored;

use merge::merge;
use pipeline::{run, run_check};
use stored::{read_results, Stored};

pub use catalogue::catalogue;
// The exit codes live in `cli` (shared with `claims`) and the hashes in
// `identity`; they keep their `runner::app::` paths.
pub use crate::cli::{EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNTIME};
pub use crate::identity::{spec_hash, spec_hashes, study_hash};

/// Measures differentially private optimization algorithms against their theorems.
///
/// `runner experiments/table1.toml` runs the whole pipeline: expand the grid into
/// cells, run them in parallel with deterministic seeds, store them in
/// `results/NAME.h5` (resumable), summarize, draw `figures/NAME/`, write
/// `results/NAME.md` and `.csv`, and judge every expectation (confirmed,
/// contradicted, inconclusive, not measured). Exit codes: 0 no verdict lost
/// evidence against the committed verdicts and no baseline regression, 1 one
/// did, 2 bad input (nothing run), 3 runtime error.
#[derive(Debug, Parser)]
#[command(name = "runner", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the whole pipeline (the default when a spec is given without a subcommand).
    Run(RunArgs),
    /// Dry run: print every study's grid, cells and estimated core-hours and
    /// memory, and the totals with the wall time at --threads; run nothing.
    /// Refuses (exit 2) a cell that cannot fit in memory.
    Plan(PlanArgs),
    /// Compare the cost model with the per-cell times stored in a results file
    /// (TSV: per-algorithm operation counts and seconds, per-study estimated
    /// and measured core-seconds); `scripts/refresh_cost_constants.sh` turns
    /// it into the calibrated constants.
    Calibrate(CommonArgs),
    /// Re-analyze an existing results file: rewrite results/<name>.md and .csv.
    Analyze(CommonArgs),
    /// Re-draw figures/<name>/ from an existing results file.
    Plot(CommonArgs),
    /// Re-check expectations and the baseline from an existing results file.
    Check(CheckArgs),
    /// Write the baseline summary (experiments/baselines/<name>.csv) and the committed verdicts (<name>-verdicts.csv) from an existing results file.
    Baseline(CommonArgs),
    /// Build the claims ledger (results/claims.md, .csv) from experiments/claims/*.toml, the experiment files and their committed summaries.
    Claims(crate::claims::ClaimsArgs),
    /// List problem families, algorithms and their parameters.
    List,
    /// Merge shard parts (from `--shard i/N` runs) into results/NAME.h5, then report, plot and check.
    Merge(MergeArgs),
    /// Write Slurm scripts: a job array running one shard per task and a dependent merge job.
    Sbatch(sbatch::SbatchArgs),
    /// Empirical privacy audit: run each audit of the spec (e.g.
    /// experiments/audit.toml) on its algorithm's worst-case neighbouring pair,
    /// bound eps from below and write results/<name>.{h5,md,csv}; exit 1 when a
    /// verdict differs from the spec's expectation.
    Audit(crate::audit::AuditArgs),
    /// One-run privacy audit (Steinke, Nasr & Jagielski 2023) at a study's
    /// setting: the entry runs once with m canaries, each in with probability
    /// 1/2; eps is bounded from how well their inclusion is guessed.
    OneRun(crate::audit::one_run::OneRunArgs),
    /// Print printed-vs-corrected privacy calibrations for every calibration erratum in the digests.
    Errata,
    /// Reproduce every committed result (each experiment run and profile
    /// whose summary is in results/, the privacy audit, the claims ledger)
    /// into target/reproduce, resuming where it stopped, with the plan's ETA;
    /// then compare every output with the committed one (exit 1 if any differs).
    Reproduce(reproduce::ReproduceArgs),
    /// Wang–Zhu–Wang removal-margin curve (Figures 2–3) of a labelled feature matrix (HDF5 or CSV).
    RemovalMargin(crate::removal_margin::RemovalMarginArgs),
    /// Peer race (scripts/peers/race.py): time full-batch noisy GD or output perturbation on a logistic data file; prints JSON.
    PeerRace(crate::peer_race::PeerRaceArgs),
}

/// Parses `args` and runs; returns the process exit code.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                EXIT_BAD_INPUT
            } else {
                EXIT_OK
            };
            let _ = e.print();
            return code;
        }
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            if let Some(spec_error) = e.downcast_ref::<SpecError>() {
                eprintln!("{spec_error}");
                EXIT_BAD_INPUT
            } else if let Some(store_error) = e.downcast_ref::<StoreError>() {
                eprintln!(
                    "error: {store_error}\n  hint: the file was left untouched; rerun with \
                     --reuse-unchanged to keep the unchanged studies' cells and recompute the \
                     rest, with --fresh to discard it, or move it away to keep it"
                );
                EXIT_BAD_INPUT
            } else if let Some(merge_error) = e.downcast_ref::<shard::MergeError>() {
                eprintln!(
                    "error: {merge_error}\n  hint: rerun the missing or incomplete shards with \
                     `runner <spec> --shard i/N` (they resume), then merge again"
                );
                EXIT_BAD_INPUT
            } else if let Some(bad) = e.downcast_ref::<papers::InputError>() {
                eprintln!("error: {bad}");
                EXIT_BAD_INPUT
            } else if let Some(usage) = e.downcast_ref::<UsageError>() {
                eprintln!("error: {}\n  hint: {}", usage.0, usage.1);
                EXIT_BAD_INPUT
            } else {
                eprintln!("error: {e:#}");
                EXIT_RUNTIME
            }
        }
    }
}

fn dispatch(cli: Cli) -> Result<i32> {
    match cli.command {
        None => run(&cli.run),
        Some(Command::Run(args)) => run(&args),
        Some(Command::Plan(a)) => {
            let (loaded, experiment) = load(&a.common)?;
            let estimate = crate::cost::estimate(&experiment);
            let budget = a.budget.budget(a.threads)?;
            // `plan` reports a large sweep's cost instead of refusing it; only
            // a cell that cannot fit in memory is an error here.
            crate::validate::budget::check(
                &loaded,
                &experiment,
                &estimate,
                &budget.clone().without_ceilings(),
                1.0,
            )?;
            print!("{}", describe(&experiment, &estimate, budget.threads));
            if let Err(e) =
                crate::validate::budget::check(&loaded, &experiment, &estimate, &budget, 1.0)
            {
                println!(
                    "note: a run of this plan would be refused: {}\n  hint: {}",
                    e.message, e.hint
                );
            }
            Ok(EXIT_OK)
        }
        Some(Command::Calibrate(c)) => {
            let (_, experiment) = load(&c)?;
            let (path, stored) = read_results(&c, &experiment)?;
            print!(
                "{}",
                crate::cost::calibrate::report(&experiment, &path, &stored.records)
            );
            Ok(EXIT_OK)
        }
        Some(Command::Analyze(c)) => {
            let ctx = Stored::open(&c)?;
            ctx.write_reports(&c)?;
            Ok(EXIT_OK)
        }
        Some(Command::Plot(c)) => {
            let ctx = Stored::open(&c)?;
            let files = figures::render_all(
                &ctx.experiment,
                &ctx.analyses,
                &figures_dir(&c, &ctx.experiment),
            )?;
            println!("wrote {} figure files", files.len());
            Ok(EXIT_OK)
        }
        Some(Command::Check(a)) => {
            let ctx = Stored::open(&a.common)?;
            run_check(
                &a.common,
                &ctx.experiment,
                &ctx.analyses,
                a.require_baseline,
            )
        }
        Some(Command::Baseline(c)) => {
            let ctx = Stored::open(&c)?;
            if !c.from_summary {
                // From a summary the point baseline would only copy it back.
                let path = baseline_path(&c, &ctx.experiment);
                write_baseline(&path, &ctx.experiment, &ctx.analyses)?;
                println!("wrote baseline {}", path.display());
            }
            let path = verdicts_path(&c, &ctx.experiment);
            write_verdicts(&path, &ctx.experiment, &ctx.analyses)?;
            println!("wrote committed verdicts {}", path.display());
            Ok(EXIT_OK)
        }
        Some(Command::Claims(args)) => crate::claims::run(&args),
        Some(Command::Merge(args)) => merge(&args),
        Some(Command::Sbatch(args)) => {
            let (loaded, experiment) = load(&args.common)?;
            let files = sbatch::write_scripts(&args, &loaded.path, &experiment)?;
            for f in &files {
                println!("wrote {}", f.display());
            }
            println!("submit with: bash {}", files[2].display());
            Ok(EXIT_OK)
        }
        Some(Command::List) => {
            print!("{}", catalogue());
            Ok(EXIT_OK)
        }
        Some(Command::RemovalMargin(args)) => {
            crate::removal_margin::run(&args)?;
            Ok(EXIT_OK)
        }
        Some(Command::PeerRace(args)) => {
            crate::peer_race::run(&args)?;
            Ok(EXIT_OK)
        }
        Some(Command::Audit(args)) => crate::audit::run(&args),
        Some(Command::Reproduce(args)) => reproduce::run(&args),
        Some(Command::OneRun(args)) => crate::audit::one_run::run(&args),
        Some(Command::Errata) => {
            print!(
                "{}",
                crate::errata::render_markdown(&crate::errata::errata())
            );
            Ok(EXIT_OK)
        }
    }
}
