//! The command line: `runner <spec>` runs plan → execute → analyze → plot →
//! report → check; subcommands redo any later stage from an existing results file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::analyze::{analyze, StudyAnalysis};
use crate::check::{
    check_with, read_baseline, read_verdicts, regressions, write_baseline, write_verdicts, Baseline,
};
use crate::cli::CommonArgs;
use crate::diagnostics::SpecError;
use crate::execute::{execute, ExecOptions};
use crate::plan::{describe, plan, Plan};
use crate::provenance::Provenance;
use crate::registry::{algorithms, families, ParamKind, PrivacyUnit};
use crate::seeds::SeedBuilder;
use crate::store::{
    check_same_spec, read_file, stored_segments, CellRecord, OpenMode, ResultsStore, SpecHashes,
    StoreError, FORMAT_VERSION,
};
use crate::validate::{resolve, Experiment, Study};
use crate::{figures, report, sbatch, shard, spec};

// The exit codes live in `cli` (shared with `claims`); they keep their
// `runner::app::EXIT_*` paths.
pub use crate::cli::{EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNTIME};

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
    /// Print printed-vs-corrected privacy calibrations for every calibration erratum in the digests.
    Errata,
    /// Wang–Zhu–Wang removal-margin curve (Figures 2–3) of a labelled feature matrix (HDF5 or CSV).
    RemovalMargin(crate::removal_margin::RemovalMarginArgs),
    /// Peer race (scripts/peers/race.py): time full-batch noisy GD or output perturbation on a logistic data file; prints JSON.
    PeerRace(crate::peer_race::PeerRaceArgs),
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
    fn budget(&self, threads: usize) -> Result<crate::validate::budget::Budget> {
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
struct PlanArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Worker threads the wall-time and memory estimates assume (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    #[command(flatten)]
    budget: BudgetArgs,
}

#[derive(Debug, Args, Clone)]
struct CheckArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Fail when no baseline summary exists (CI sets this).
    #[arg(long)]
    require_baseline: bool,
}

#[derive(Debug, Args, Clone)]
struct RunArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Discard an existing results file instead of resuming it.
    #[arg(long, conflicts_with = "reuse_unchanged")]
    fresh: bool,
    /// When the spec changed since the results file was written, keep the
    /// cells of every study whose computation is unchanged (a study whose
    /// repetitions grew keeps its first ones) and recompute the rest; the
    /// rows of changed studies are discarded.
    #[arg(long)]
    reuse_unchanged: bool,
    #[command(flatten)]
    finish: FinishArgs,
    /// Seconds between flushes of the results file (at least; longer when a
    /// flush is slow, so that rewriting a large file takes at most ~5% of the time).
    #[arg(long, default_value_t = 2.0)]
    flush_seconds: f64,
    /// Run only shard i of N (0-based, e.g. 0/4) into results/<name>.shard-i-of-N.h5;
    /// combine the parts with `runner merge`. Cells are assigned deterministically,
    /// balanced by estimated cost.
    #[arg(long, value_name = "i/N")]
    shard: Option<shard::ShardSpec>,
    #[command(flatten)]
    budget: BudgetArgs,
}

#[derive(Debug, Args, Clone)]
struct MergeArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Number of shards N the parts were run with.
    #[arg(long)]
    shards: usize,
    #[command(flatten)]
    finish: FinishArgs,
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
            } else if let Some(bad) = e.downcast_ref::<crate::peer_race::PeerRaceInputError>() {
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

/// Bad command-line usage beyond what clap catches: (message, hint).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String, String);

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
        Some(Command::Errata) => {
            print!(
                "{}",
                crate::errata::render_markdown(&crate::errata::errata())
            );
            Ok(EXIT_OK)
        }
    }
}

fn load(c: &CommonArgs) -> Result<(spec::LoadedSpec, Experiment)> {
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

fn results_path(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.results_dir.join(format!("{}.h5", e.output_name()))
}

fn figures_dir(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.figures_dir.join(e.output_name())
}

fn baseline_path(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.baselines_dir.join(format!("{}.csv", e.output_name()))
}

fn verdicts_path(c: &CommonArgs, e: &Experiment) -> PathBuf {
    c.baselines_dir
        .join(format!("{}-verdicts.csv", e.output_name()))
}

/// Identity of the computation a results file holds: everything that changes
/// the cells' numbers (not titles or expectations, which only change the check).
pub fn spec_hash(e: &Experiment) -> String {
    let mut b = SeedBuilder::new(e.seed, "spec");
    b.push_u64(FORMAT_VERSION as u64).push_str(&e.name);
    b.push_str(e.profile.as_deref().unwrap_or("default"));
    for s in &e.studies {
        push_study(&mut b, s, true);
    }
    format!("{:016x}", b.finish())
}

/// Identity of one study's cells, without its repetition count: a cell's
/// seeds depend on its repetition index only, so the rows of a study with an
/// equal hash are the same computation whatever the number of repetitions
/// (what `--reuse-unchanged` relies on to keep them).
pub fn study_hash(e: &Experiment, s: &Study) -> String {
    let mut b = SeedBuilder::new(e.seed, "study");
    b.push_u64(FORMAT_VERSION as u64).push_str(&e.name);
    push_study(&mut b, s, false);
    format!("{:016x}", b.finish())
}

/// The hashes [`ResultsStore::open`] compares with a stored file.
pub fn spec_hashes(e: &Experiment) -> SpecHashes {
    SpecHashes {
        spec: spec_hash(e),
        studies: e.studies.iter().map(|s| study_hash(e, s)).collect(),
    }
}

fn push_study(b: &mut SeedBuilder, s: &Study, with_repetitions: bool) {
    b.push_str(&s.name).push_str(&s.metric);
    if with_repetitions {
        b.push_u64(s.repetitions as u64);
    }
    b.push_str(s.family.name).push_str(s.algorithm.name);
    if s.family.ground_truth_revision > 0 {
        // Only revised families enter the hash: every other study keeps its identity.
        b.push_str("ground_truth_revision")
            .push_u64(u64::from(s.family.ground_truth_revision));
    }
    for (k, v) in s.problem.iter().chain(s.options.iter()) {
        b.push_str(k).push_str(&format!("{v:?}"));
    }
    match s.algorithm.privacy_unit {
        PrivacyUnit::EpsDelta => b.push_f64(s.eps).push_f64(s.delta),
        PrivacyUnit::Zcdp => b.push_str("rho").push_f64(s.rho),
    };
    for a in &s.axes {
        b.push_str(&a.name);
        a.values.iter().for_each(|v| {
            b.push_f64(*v);
        });
    }
}

fn run(args: &RunArgs) -> Result<i32> {
    let c = &args.common;
    if c.from_summary {
        return Err(UsageError(
            "--from-summary re-derives from a committed summary; a run computes cells".into(),
            "use it with analyze, plot, check or baseline".into(),
        )
        .into());
    }
    let (loaded, experiment) = load(c)?;
    if !(args.flush_seconds.is_finite() && args.flush_seconds >= 0.0) {
        return Err(UsageError(
            format!("--flush-seconds {} is invalid", args.flush_seconds),
            "give a number of seconds >= 0".into(),
        )
        .into());
    }
    // Refuse before anything is expanded or touched: a cell that cannot fit
    // in memory, or a plan above the ceilings without --yes.
    let estimate = crate::cost::estimate(&experiment);
    let budget = args.budget.budget(args.threads)?;
    let share = args.shard.map_or(1.0, |s| 1.0 / s.count as f64);
    crate::validate::budget::check(&loaded, &experiment, &estimate, &budget, share)?;
    let full = plan(&experiment);
    let (p, path) = match args.shard {
        None => (full, results_path(c, &experiment)),
        Some(s) => (
            shard::shard_plan(&experiment, &full, s),
            shard::part_path(&c.results_dir, &experiment.output_name(), s.index, s.count),
        ),
    };
    let mut provenance = Provenance::new(
        &loaded.text,
        &loaded.path.display().to_string(),
        experiment.profile.as_deref(),
        experiment.seed,
    );
    if let Some(s) = args.shard {
        provenance
            .extra
            .push(("shard_index".into(), s.index.to_string()));
        provenance
            .extra
            .push(("shard_count".into(), s.count.to_string()));
    }
    let mode = if args.fresh {
        OpenMode::Fresh
    } else if args.reuse_unchanged {
        OpenMode::ReuseUnchanged
    } else {
        OpenMode::Resume
    };
    let mut store = ResultsStore::open(
        &path,
        &experiment,
        &p,
        &spec_hashes(&experiment),
        provenance,
        mode,
    )?;
    if let (Some((kept, dropped)), false) = (&store.reuse, args.finish.quiet) {
        eprintln!(
            "spec changed: kept the cells of {} unchanged studies; recomputing {} changed or new \
             studies{}",
            kept.len(),
            experiment.studies.len() - kept.len(),
            if dropped.is_empty() {
                String::new()
            } else {
                format!(" (stored rows discarded: {})", dropped.join(", "))
            }
        );
    }
    if !args.finish.quiet {
        eprintln!(
            "{}: {} cells planned, {} already in {}; estimated {:.3} core-hours, {} on {} threads",
            experiment.output_name(),
            p.cells.len(),
            store.records.len(),
            path.display(),
            estimate.core_seconds() * share / 3600.0,
            crate::format::format_duration(estimate.wall_seconds(budget.threads) * share),
            budget.threads
        );
    }
    // Ctrl-C, or SIGTERM from a scheduler's time limit: stop scheduling, save every
    // finished cell, exit 130. Failing to install the handler only loses that comfort.
    let _ = ctrlc::set_handler(|| {
        crate::execute::INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed)
    });
    let summary = execute(
        &experiment,
        &p,
        &mut store,
        &ExecOptions {
            threads: args.threads,
            flush_every: Duration::from_secs_f64(args.flush_seconds),
            progress: !args.finish.quiet,
        },
    )?;
    if summary.ran == 0 && !path.exists() {
        store.flush(&experiment, &p)?;
    }
    if !args.finish.quiet {
        eprintln!(
            "ran {} cells ({} failed) on {} generated data sets in {:.1} s; {} resumed from \
             the results file",
            summary.ran, summary.failed, summary.datasets, summary.seconds, summary.resumed
        );
    }
    if summary.interrupted {
        eprintln!(
            "interrupted: {} finished cells are saved in {}; rerun the same command to resume",
            store.records.len(),
            path.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    if let Some(s) = args.shard {
        if !args.finish.quiet {
            eprintln!(
                "shard {}/{} complete; combine the parts with `runner merge {} --shards {}`",
                s.index,
                s.count,
                loaded.path.display(),
                s.count
            );
        }
        return Ok(EXIT_OK);
    }
    let records: Vec<CellRecord> = store.records.values().cloned().collect();
    finish(c, experiment, p, &path, &records, &args.finish)
}

/// Options of the stages after execution (reports, figures, check).
#[derive(Debug, Args, Clone)]
struct FinishArgs {
    /// Skip the check stage (exit 0 even if expectations fail).
    #[arg(long)]
    no_check: bool,
    /// Fail when no baseline summary exists (CI sets this).
    #[arg(long)]
    require_baseline: bool,
    /// No progress bar and no summary.
    #[arg(long, short)]
    quiet: bool,
}

/// Analyze, report, plot and check a complete set of records stored at `path`.
fn finish(
    c: &CommonArgs,
    experiment: Experiment,
    p: Plan,
    path: &Path,
    records: &[CellRecord],
    f: &FinishArgs,
) -> Result<i32> {
    let mut ctx = Stored::from_records(experiment, p, path, records)?;
    ctx.baseline = load_baseline(c, &ctx.experiment)?;
    ctx.write_reports(c)?;
    let dir = figures_dir(c, &ctx.experiment);
    let figs = figures::render_all(&ctx.experiment, &ctx.analyses, &dir)?;
    if !f.quiet {
        eprintln!("wrote {} figure files to {}", figs.len(), dir.display());
        let regressions = regressions(&ctx.experiment, &ctx.analyses, ctx.baseline.as_ref());
        print!(
            "{}",
            report::verdict_table(&ctx.experiment, &ctx.analyses, &regressions)
        );
    }
    if f.no_check {
        return Ok(EXIT_OK);
    }
    run_check(c, &ctx.experiment, &ctx.analyses, f.require_baseline)
}

/// Merges the shard parts into `results/<name>.h5`, then reports, plots and checks.
fn merge(args: &MergeArgs) -> Result<i32> {
    let c = &args.common;
    let (loaded, experiment) = load(c)?;
    if args.shards == 0 {
        return Err(UsageError(
            "--shards 0".into(),
            "give the shard count N >= 1 used for the run".into(),
        )
        .into());
    }
    let p = plan(&experiment);
    let hash = spec_hash(&experiment);
    let name = experiment.output_name();
    let planned_seeds: std::collections::BTreeMap<_, _> = p
        .cells
        .iter()
        .map(|x| {
            (
                (x.study, x.point, x.repetition),
                (x.data_seed, x.noise_seed),
            )
        })
        .collect();
    let (mut records, mut missing, mut started) = (Vec::new(), Vec::new(), Vec::new());
    let mut segments = Vec::new();
    for i in 0..args.shards {
        let part = shard::part_path(&c.results_dir, &name, i, args.shards);
        if !part.exists() {
            missing.push(i);
            continue;
        }
        let foreign = |reason: String| shard::MergeError::ForeignPart {
            path: part.display().to_string(),
            reason,
        };
        let stored = read_file(&part, &experiment).map_err(|e| foreign(format!("{e:#}")))?;
        if stored.spec_hash != hash {
            return Err(foreign(format!(
                "written by a different spec or seed (spec hash {}, this spec {hash})",
                stored.spec_hash
            ))
            .into());
        }
        let attr = |k: &str| stored.attributes.get(k).cloned().unwrap_or_default();
        if attr("shard_index") != i.to_string() || attr("shard_count") != args.shards.to_string() {
            return Err(foreign(format!(
                "it is shard {}/{} of its run, expected {i}/{}",
                attr("shard_index"),
                attr("shard_count"),
                args.shards
            ))
            .into());
        }
        if let Some(r) = stored.records.iter().find(|r| {
            planned_seeds.get(&(r.study, r.point, r.repetition))
                != Some(&(r.data_seed, r.noise_seed))
        }) {
            return Err(foreign(format!(
                "cell (study {}, point {}, repetition {}) has seeds that differ from the plan",
                r.study, r.point, r.repetition
            ))
            .into());
        }
        started.push(stored.started_at.clone());
        // The parts' run segments, in shard order; rows keep pointing at theirs.
        let offset = segments.len();
        segments.extend(stored_segments(&stored));
        records.extend(stored.records.into_iter().map(|mut r| {
            r.segment += offset;
            r
        }));
    }
    if !missing.is_empty() {
        let paths = missing
            .iter()
            .map(|&i| {
                shard::part_path(&c.results_dir, &name, i, args.shards)
                    .display()
                    .to_string()
            })
            .collect();
        return Err(shard::MergeError::MissingParts {
            missing,
            count: args.shards,
            paths,
        }
        .into());
    }
    shard::check_complete(&experiment, &p, args.shards, &records)?;
    let path = results_path(c, &experiment);
    let mut provenance = Provenance::new(
        &loaded.text,
        &loaded.path.display().to_string(),
        experiment.profile.as_deref(),
        experiment.seed,
    );
    if let Some(first) = started.iter().min() {
        provenance.started_at = first.clone();
    }
    provenance
        .extra
        .push(("merged_from_shards".into(), args.shards.to_string()));
    provenance.earlier_segments = segments;
    let mut store = ResultsStore::open(
        &path,
        &experiment,
        &p,
        &spec_hashes(&experiment),
        provenance,
        OpenMode::Fresh,
    )?;
    store.extend(records.iter().cloned());
    store.flush(&experiment, &p)?;
    if !args.finish.quiet {
        eprintln!(
            "merged {} shard parts ({} cells) into {}",
            args.shards,
            records.len(),
            path.display()
        );
    }
    finish(c, experiment, p, &path, &records, &args.finish)
}

fn run_check(
    c: &CommonArgs,
    e: &Experiment,
    analyses: &[StudyAnalysis],
    require_baseline: bool,
) -> Result<i32> {
    let path = baseline_path(c, e);
    let verdicts = verdicts_path(c, e);
    let hint = || {
        format!(
            "write them from a trusted run with `runner baseline {}{}` and commit them",
            c.spec
                .as_deref()
                .map_or("<spec>".into(), |p| p.display().to_string()),
            c.profile
                .as_deref()
                .map_or(String::new(), |p| format!(" --profile {p}"))
        )
    };
    for p in [&path, &verdicts] {
        if require_baseline && !p.exists() {
            return Err(UsageError(format!("no committed {}", p.display()), hint()).into());
        }
    }
    let baseline = path.exists().then(|| read_baseline(&path)).transpose()?;
    let committed = verdicts
        .exists()
        .then(|| read_verdicts(&verdicts))
        .transpose()?;
    let mut outcome = check_with(e, analyses, baseline.as_ref(), committed.as_ref());
    if baseline.is_none() {
        outcome.notes.push(format!(
            "no baseline at {}; regression check skipped",
            path.display()
        ));
    }
    if committed.is_none() {
        outcome.notes.push(format!(
            "no committed verdicts at {}; any contradicted expectation fails",
            verdicts.display()
        ));
    }
    print!("{}", outcome.render());
    Ok(if outcome.pass() {
        EXIT_OK
    } else {
        EXIT_CHECK_FAILED
    })
}

/// An experiment with its analyzed stored results.
struct Stored {
    experiment: Experiment,
    analyses: Vec<StudyAnalysis>,
    source: PathBuf,
    provenance_line: String,
    /// The committed point baseline, when there is one (the report's
    /// regression column).
    baseline: Option<Baseline>,
    /// Re-derived from the committed summary, which is then left as it is.
    from_summary: bool,
}

impl Stored {
    fn open(c: &CommonArgs) -> Result<Self> {
        if c.from_summary {
            return Self::from_summary(c);
        }
        let (_, experiment) = load(c)?;
        let p = plan(&experiment);
        let (path, stored) = read_results(c, &experiment)?;
        let mut ctx = Self::from_records(experiment, p, &path, &stored.records)?;
        ctx.provenance_line = provenance_line(&stored.attributes);
        ctx.baseline = load_baseline(c, &ctx.experiment)?;
        Ok(ctx)
    }

    /// Analyses re-derived from the committed summary; the provenance of the
    /// cells is the one the existing report states (the .h5 is not kept).
    fn from_summary(c: &CommonArgs) -> Result<Self> {
        let (_, experiment) = load(c)?;
        let path = crate::summary::summary_path(&c.results_dir, &experiment);
        if !path.exists() {
            return Err(UsageError(
                format!("no summary {}", path.display()),
                "run the experiment first (runner <spec>), with the same --profile".into(),
            )
            .into());
        }
        let analyses = crate::summary::analyses_from_summary(&experiment, &path)?;
        let report = c
            .results_dir
            .join(format!("{}.md", experiment.output_name()));
        let cells = std::fs::read_to_string(&report)
            .ok()
            .and_then(|md| {
                md.lines()
                    .find(|l| l.starts_with("Source: "))
                    .map(|l| l.split_once(". ").map_or(l, |(_, rest)| rest).to_string())
            })
            .map(|l| {
                l.split(" Verdicts re-derived")
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .unwrap_or_default();
        let provenance_line = format!(
            "{cells} Verdicts re-derived from the committed summary `{}` at commit `{}` on {}.",
            path.display(),
            crate::provenance::git_commit(),
            crate::provenance::utc_now()
        );
        let baseline = load_baseline(c, &experiment)?;
        Ok(Self {
            experiment,
            analyses,
            source: path,
            provenance_line: provenance_line.trim().to_string(),
            baseline,
            from_summary: true,
        })
    }

    fn from_records(
        experiment: Experiment,
        p: Plan,
        path: &Path,
        records: &[CellRecord],
    ) -> Result<Self> {
        let analyses = analyze(&experiment, &p, records)?;
        let attrs = read_file(path, &experiment)
            .map(|s| s.attributes)
            .unwrap_or_default();
        Ok(Self {
            experiment,
            analyses,
            source: path.to_path_buf(),
            provenance_line: provenance_line(&attrs),
            baseline: None,
            from_summary: false,
        })
    }

    fn write_reports(&self, c: &CommonArgs) -> Result<()> {
        std::fs::create_dir_all(&c.results_dir)
            .with_context(|| format!("creating {}", c.results_dir.display()))?;
        let stem = c.results_dir.join(self.experiment.output_name());
        let regressions = regressions(&self.experiment, &self.analyses, self.baseline.as_ref());
        report::write_markdown(
            &stem.with_extension("md"),
            &self.experiment,
            &self.analyses,
            &regressions,
            &self.source.display().to_string(),
            &self.provenance_line,
        )?;
        let rows = crate::headline::headline_rows(&self.experiment, &self.analyses);
        if rows.is_empty() {
            if self.from_summary {
                // The summary is the source: rewriting it could only lose columns.
                return Ok(());
            }
            return report::write_csv(
                &stem.with_extension("csv"),
                &self.experiment,
                &self.analyses,
            );
        }
        report::write_headline_csv(&stem.with_extension("csv"), &rows)?;
        if self.from_summary {
            return Ok(());
        }
        let points = c
            .results_dir
            .join(format!("{}-points.csv", self.experiment.output_name()));
        report::write_csv(&points, &self.experiment, &self.analyses)
    }
}

/// The results file of `e` read back, refused when missing or written by a
/// different spec.
fn read_results(c: &CommonArgs, e: &Experiment) -> Result<(PathBuf, crate::store::StoredResults)> {
    let path = results_path(c, e);
    if !path.exists() {
        return Err(UsageError(
            format!("no results file {}", path.display()),
            "run the experiment first (runner <spec>), with the same --profile".into(),
        )
        .into());
    }
    check_same_spec(&path, e, &spec_hashes(e))?;
    let stored = read_file(&path, e)?;
    Ok((path, stored))
}

fn load_baseline(c: &CommonArgs, e: &Experiment) -> Result<Option<Baseline>> {
    let path = baseline_path(c, e);
    path.exists().then(|| read_baseline(&path)).transpose()
}

fn provenance_line(attrs: &std::collections::BTreeMap<String, String>) -> String {
    let get = |k: &str| attrs.get(k).map_or("unknown", String::as_str);
    let mut line = format!(
        "Commit `{}`, runs from {} to {}, {}, {}.",
        get("git_commit"),
        get("started_at"),
        get("finished_at"),
        get("rustc_version"),
        get("host")
    );
    let segments = crate::provenance::parse_segments(get("segments"));
    let computing: Vec<String> = segments
        .iter()
        .enumerate()
        .filter(|(_, s)| s.cells > 0)
        .map(|(i, s)| {
            format!(
                "{i}: {} cells at `{}` ({} to {})",
                s.cells, s.commit, s.started_at, s.finished_at
            )
        })
        .collect();
    if computing.len() > 1 {
        line.push_str(&format!(
            " The rows were computed in {} run segments (`timing/segment`): {}.",
            computing.len(),
            computing.join("; ")
        ));
    }
    line
}

/// The text of `runner list`.
pub fn catalogue() -> String {
    use std::fmt::Write;
    let mut out = String::from("Problem families\n");
    let param_lines = |out: &mut String, defs: &[crate::registry::ParamDef]| {
        for d in defs {
            let kind = match d.kind {
                ParamKind::Int { min } => format!("integer >= {min}"),
                ParamKind::Float { min, max, min_open } => {
                    format!(
                        "number in {}{min}, {max}]",
                        if min_open { "(" } else { "[" }
                    )
                }
                ParamKind::Choice(c) => format!("one of {c:?}"),
            };
            let default = d
                .default
                .map_or("required".to_string(), |v| format!("default {v}"));
            let _ = writeln!(out, "      {:<12} {kind}, {default}: {}", d.name, d.doc);
        }
    };
    for f in families() {
        let _ = writeln!(
            out,
            "  {}\n    {}\n    kind: {}, metrics: {:?}",
            f.name,
            f.doc,
            f.build.kind().name(),
            f.metrics
        );
        param_lines(&mut out, f.params);
    }
    out.push_str("\nAlgorithms\n");
    for a in algorithms() {
        let _ = writeln!(
            out,
            "  {}\n    {}\n    kind: {}, privacy: {}, diagnostics: {:?}",
            a.name,
            a.doc,
            a.run.kind().name(),
            match a.privacy_unit {
                PrivacyUnit::EpsDelta =>
                    format!("(eps, delta)-DP with delta in [0, {})", a.delta_max),
                PrivacyUnit::Zcdp => "rho-zCDP".to_string(),
            },
            a.diagnostics
        );
        param_lines(&mut out, a.options);
    }
    out.push_str(
        "\nPrivacy parameters (sweepable): eps > 0 and delta in [0, 1) for (eps, delta)-DP algorithms, rho > 0 for rho-zCDP algorithms\n",
    );
    out
}
