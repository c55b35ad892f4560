//! `runner audit <spec>`: an empirical lower bound on the privacy of every
//! private algorithm.
//!
//! Each audit row of the spec names an algorithm (with options: a printed
//! variant, a deliberately broken control), a setting and a claim. The
//! algorithm's entry declares a worst-case neighbouring pair, a statistic and
//! an estimator ([`contract::audit`]); the runner builds and checks the pair,
//! runs the algorithm on each side with seeds derived from the master seed,
//! the audit's identity, the side and the run index (so the runs do not
//! depend on the thread count or on interruptions), stores the statistics in
//! `results/<name>.h5` (resumable) and writes `results/<name>.md` and `.csv`
//! with the bound, the verdict, the expectation and the audit's power.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

pub mod execute;
pub mod one_run;
pub mod outcome;
pub mod power;
pub mod report;
pub mod spec;
pub mod store;

use crate::cli::{EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK};

/// Options of `runner audit`.
#[derive(Debug, Args, Clone)]
pub struct AuditArgs {
    /// Audit spec (TOML), e.g. experiments/audit.toml.
    pub spec: PathBuf,
    /// Named profile (e.g. `quick`); outputs are named `<name>-<profile>`.
    #[arg(long)]
    pub profile: Option<String>,
    /// Directory of the results file and reports.
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Discard stored runs instead of resuming them.
    #[arg(long)]
    pub fresh: bool,
    /// Exit 0 even when a verdict differs from the spec's expectation.
    #[arg(long)]
    pub no_check: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Seconds between flushes of the results file.
    #[arg(long, default_value_t = 2.0)]
    pub flush_seconds: f64,
}

/// Runs the audits of a spec; returns the exit code: 0 every verdict as
/// expected, 1 one is not, 130 interrupted (rerun to resume).
pub fn run(args: &AuditArgs) -> Result<i32> {
    let plan = spec::load(&args.spec, args.profile.as_deref())?;
    // Every pair is built and checked before anything runs: a bad pair is bad input.
    let mut pairs = Vec::new();
    for a in &plan.audits {
        let pair = execute::build_pair(a).map_err(|e| {
            plan.locator().error(
                &crate::toml_path!["audit", a.index, "algorithm"],
                format!("{e:#}"),
                "the pair is declared beside the algorithm's entry (its AuditDef); check the row's n, d and options",
            )
        })?;
        pairs.push((pair.relation.name(), pair.description.clone()));
    }
    let h5 = args.results_dir.join(format!("{}.h5", plan.output));
    let mut store = store::AuditStore::open(&h5, args.fresh)?;
    store.attributes = vec![
        ("git_commit".into(), crate::provenance::git_commit()),
        ("spec_text".into(), plan.text.clone()),
        ("spec_path".into(), args.spec.display().to_string()),
        ("profile".into(), args.profile.clone().unwrap_or_default()),
        ("finished_at".into(), crate::provenance::utc_now()),
    ];
    // Runs of audits no longer in the spec are dropped from the file.
    store.audits.retain(|name, _| {
        plan.audits
            .iter()
            .any(|a| a.row.name == power::row_of(name))
    });
    let _ = ctrlc::set_handler(|| {
        crate::execute::INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed)
    });
    let threads = crate::validate::budget::effective_threads(args.threads);
    let total: usize = plan.audits.iter().map(|a| 2 * a.runs).sum();
    if !args.quiet {
        eprintln!(
            "{}: {} audits, {total} runs in all, on {threads} threads; resuming {}",
            plan.output,
            plan.audits.len(),
            h5.display()
        );
    }
    let started = std::time::Instant::now();
    let interrupted = execute::execute(
        &plan.audits,
        plan.file.seed,
        &mut store,
        threads,
        !args.quiet,
        Duration::from_secs_f64(args.flush_seconds.max(0.1)),
    )?;
    if interrupted {
        eprintln!(
            "interrupted: every finished run is saved in {}; rerun the same command to resume",
            h5.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    let mut outcomes: Vec<report::Outcome> = plan
        .audits
        .iter()
        .zip(&pairs)
        .map(|(a, (relation, pair))| {
            report::outcome(&plan, a, &store.audits[&a.row.name], relation, pair.clone())
        })
        .collect();
    // The power of each row for its own statistic: probes of the consistent
    // rows (more runs, resumable like the rows) and the bootstrap.
    let powers = power::measure(
        &plan,
        &outcomes,
        &mut store,
        threads,
        !args.quiet,
        Duration::from_secs_f64(args.flush_seconds.max(0.1)),
    )?;
    let Some(powers) = powers else {
        eprintln!(
            "interrupted: every finished run is saved in {}; rerun the same command to resume",
            h5.display()
        );
        return Ok(EXIT_INTERRUPTED);
    };
    for (o, p) in outcomes.iter_mut().zip(powers) {
        o.power = p;
    }
    let unaudited: Vec<&str> = crate::registry::algorithms()
        .filter(|d| d.audit.is_none())
        .map(|d| d.name)
        .collect();
    let commit = crate::provenance::git_commit();
    let date = crate::provenance::utc_now();
    std::fs::write(
        args.results_dir.join(format!("{}.md", plan.output)),
        report::markdown(&plan, &outcomes, &unaudited, &commit, &date),
    )?;
    std::fs::write(
        args.results_dir.join(format!("{}.csv", plan.output)),
        report::csv(&outcomes, plan.file.alpha),
    )?;
    let unexpected: Vec<&report::Outcome> = outcomes.iter().filter(|o| !o.as_expected()).collect();
    if !args.quiet {
        eprintln!(
            "{} audits in {:.0} s: {} violations, {} verdicts differ from the expectation; wrote {}.md and .csv",
            outcomes.len(),
            started.elapsed().as_secs_f64(),
            outcomes.iter().filter(|o| report::is_violation(o)).count(),
            unexpected.len(),
            args.results_dir.join(&plan.output).display()
        );
    }
    for o in &unexpected {
        eprintln!(
            "  {}: {} (expected {})",
            o.audit.row.name,
            o.verdict(),
            o.audit.row.expect
        );
    }
    Ok(if unexpected.is_empty() || args.no_check {
        EXIT_OK
    } else {
        EXIT_CHECK_FAILED
    })
}
