//! The pieces of the command line that the subcommands' own modules share
//! with [`crate::app`]: the exit codes and the options every subcommand that
//! reads an experiment takes. They live here, not in `app`, so that `app` can
//! wire [`crate::sbatch`] and [`crate::claims`] without either importing `app`.

use std::path::PathBuf;

use clap::Args;

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
