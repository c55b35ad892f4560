//! The pipeline of `runner <spec>`: refuse a plan that cannot fit or is over
//! budget, plan, execute (resumable; optionally one shard), then analyze,
//! report, plot and check.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use super::stored::{load_baseline, Stored};
use crate::analyze::StudyAnalysis;
use crate::check::{check_with, read_baseline, read_verdicts, regressions};
use crate::cli::{
    baseline_path, figures_dir, load, results_path, verdicts_path, CommonArgs, FinishArgs, RunArgs,
    UsageError, EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK,
};
use crate::execute::{execute, ExecOptions};
use crate::identity::spec_hashes;
use crate::plan::{plan, Plan};
use crate::provenance::Provenance;
use crate::store::{CellRecord, OpenMode, ResultsStore};
use crate::validate::Experiment;
use crate::{figures, report, shard};

pub(super) fn run(args: &RunArgs) -> Result<i32> {
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
    // Nothing ran: write the file anyway when there is none yet, or when
    // `--reuse-unchanged` adopted an edited spec (the kept rows must be stored
    // under the new spec hash, without the rows the edit dropped).
    if summary.ran == 0 && (!path.exists() || store.reuse.is_some()) {
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

/// Analyze, report, plot and check a complete set of records stored at `path`.
pub(super) fn finish(
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

pub(super) fn run_check(
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
