//! The command line's pieces below [`crate::app`]: the exit codes, the options
//! of the subcommands, usage errors, and the experiment and output paths the
//! common options name. They live here, not in `app`, so that `app` can wire
//! [`crate::sbatch`] and [`crate::claims`] (which share the exit codes and
//! `CommonArgs`) without either importing `app`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::shard;
use crate::spec;
use crate::validate::{resolve, Experiment};

/// Exit code: every check passed.
pub const EXIT_OK: i32 = 0;
/// Exit code: a check failed: a verdict lost evidence against the committed
/// one, a baseline regression, failed or missing cells.
pub const EXIT_CHECK_FAILED: i32 = 1;
/// Exit code: bad input (spec, flags, an incompatible results file); nothing was run or written.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code: an I/O or internal error while running.
pub const EXIT_RUNTIME: i32 = 3;
/// Exit code: stopped by SIGINT/SIGTERM after saving every finished cell (rerun to resume).
pub const EXIT_INTERRUPTED: i32 = 130;

#[derive(Debug, Args, Clone)]
pub(crate) struct CommonArgs {
    /// Experiment file (TOML).
    pub(crate) spec: Option<PathBuf>,
    /// Named profile of the spec to apply (e.g. `quick`); outputs are named <name>-<profile>.
    #[arg(long)]
    pub(crate) profile: Option<String>,
    /// Directory of results files and reports.
    #[arg(long, default_value = "results")]
    pub(crate) results_dir: PathBuf,
    /// Directory of figures.
    #[arg(long, default_value = "figures")]
    pub(crate) figures_dir: PathBuf,
    /// Directory of committed baseline summaries.
    #[arg(long, default_value = "experiments/baselines")]
    pub(crate) baselines_dir: PathBuf,
    /// (analyze, plot, check, baseline) Re-derive from the committed per-point
    /// summary (results/<name>.csv, or <name>-points.csv with headline rows)
    /// instead of results/<name>.h5: verdicts, reports and figures without
    /// rerunning. The summary has no failed-cell messages, and summaries
    /// written before it gained the `reference` column have no reference curve.
    #[arg(long)]
    pub(crate) from_summary: bool,
}

/// What a run may cost before it is refused (see [`crate::validate::budget`]).
#[derive(Debug, Args, Clone)]
pub(crate) struct BudgetArgs {
    /// Memory the run may use, e.g. 16G or 512M (default: MemAvailable of
    /// /proc/meminfo). A cell estimated to need more is refused before anything runs.
    #[arg(long, value_name = "SIZE", value_parser = crate::validate::budget::parse_bytes)]
    pub(crate) max_memory: Option<f64>,
    /// Refuse a run estimated above this many core-hours (default 24).
    #[arg(long, value_name = "HOURS")]
    pub(crate) max_core_hours: Option<f64>,
    /// Run a plan above the core-hour (24) and cell-count (1 000 000) ceilings.
    #[arg(long)]
    pub(crate) yes: bool,
}

impl BudgetArgs {
    pub(crate) fn budget(&self, threads: usize) -> Result<crate::validate::budget::Budget> {
        if let Some(h) = self.max_core_hours {
            if !(h.is_finite() && h > 0.0) {
                return Err(UsageError(
                    format!("--max-core-hours {h} is invalid"),
                    "give a number of core-hours > 0, e.g. --max-core-hours 120".into(),
                )
                .into());
            }
        }
        Ok(crate::validate::budget::Budget::new(
            self.max_memory,
            self.max_core_hours,
            self.yes,
            threads,
        ))
    }
}

#[derive(Debug, Args, Clone)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Worker threads the wall-time and memory estimates assume (default: all cores).
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
}

#[derive(Debug, Args, Clone)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Fail when no baseline summary exists (CI sets this).
    #[arg(long)]
    pub(crate) require_baseline: bool,
}

#[derive(Debug, Args, Clone)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
    /// Discard an existing results file instead of resuming it.
    #[arg(long, conflicts_with = "reuse_unchanged")]
    pub(crate) fresh: bool,
    /// When the spec changed since the results file was written, keep the
    /// cells of every study whose computation is unchanged (a study whose
    /// repetitions grew keeps its first ones) and recompute the rest; the
    /// rows of changed studies are discarded.
    #[arg(long)]
    pub(crate) reuse_unchanged: bool,
    #[command(flatten)]
    pub(crate) finish: FinishArgs,
    /// Seconds between flushes of the results file (at least; longer when a
    /// flush is slow, so that rewriting a large file takes at most ~5% of the time).
    #[arg(long, default_value_t = 2.0)]
    pub(crate) flush_seconds: f64,
    /// Run only shard i of N (0-based, e.g. 0/4) into results/<name>.shard-i-of-N.h5;
    /// combine the parts with `runner merge`. Cells are assigned deterministically,
    /// balanced by estimated cost.
    #[arg(long, value_name = "i/N")]
    pub(crate) shard: Option<shard::ShardSpec>,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
}

#[derive(Debug, Args, Clone)]
pub(crate) struct MergeArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Number of shards N the parts were run with.
    #[arg(long)]
    pub(crate) shards: usize,
    #[command(flatten)]
    pub(crate) finish: FinishArgs,
}

/// Options of the stages after execution (reports, figures, check).
#[derive(Debug, Args, Clone)]
pub(crate) struct FinishArgs {
    /// Skip the check stage (exit 0 even if expectations fail).
    #[arg(long)]
    pub(crate) no_check: bool,
    /// Fail when no baseline summary exists (CI sets this).
    #[arg(long)]
    pub(crate) require_baseline: bool,
    /// No progress bar and no summary.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// Bad command-line usage beyond what clap catches: (message, hint).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub(crate) String, pub(crate) String);

/// The spec the options name, loaded and resolved under their profile.
pub(crate) fn load(c: &CommonArgs) -> Result<(spec::LoadedSpec, Experiment)> {
    let Some(path) = &c.spec else {
        return Err(UsageError(
            "no experiment file given".into(),
            "run `runner experiments/table1.toml`, or `runner --help`".into(),
        )
        .into());
    };
    let loaded = spec::load(path)?;
    let experiment = resolve(&loaded, c.profile.as_deref())?;
    Ok((loaded, experiment))
}

/// The results file, `<results-dir>/<name>.h5`.
pub(crate) fn results_path(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.results_dir.join(format!("{}.h5", e.output_name()))
}

/// The figures directory, `<figures-dir>/<name>/`.
pub(crate) fn figures_dir(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.figures_dir.join(e.output_name())
}

/// The committed point baseline, `<baselines-dir>/<name>.csv`.
pub(crate) fn baseline_path(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.baselines_dir.join(format!("{}.csv", e.output_name()))
}

/// The committed verdicts, `<baselines-dir>/<name>-verdicts.csv`.
pub(crate) fn verdicts_path(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.baselines_dir
        .join(format!("{}-verdicts.csv", e.output_name()))
}
