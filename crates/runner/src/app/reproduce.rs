//! `runner reproduce`: every committed result from one command.
//!
//! The committed results are the summaries `results/<name>[-<profile>].csv`
//! of the experiment files (every profile but CI's `quick`), the privacy audit (`results/audit.csv`) and the
//! claims ledger built from them. This command finds every run behind them
//! (an experiment file and profile whose summary is committed), prices each
//! with the cost model (`runner plan`; the audit, which has none, with the
//! thread-seconds its committed report measured), runs them one after the
//! other into a scratch folder, each resuming its own results file, rebuilds
//! the ledger there, and compares every output with the committed one. An
//! interrupted reproduction (Ctrl-C) keeps every finished cell: the same
//! command resumes it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;

use crate::cli::{EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK};
use crate::format::format_duration;

/// Options of `runner reproduce`.
#[derive(Debug, Args, Clone)]
pub struct ReproduceArgs {
    /// Directory of the experiment files (and of `claims/` and `audit.toml`).
    #[arg(long, default_value = "experiments")]
    pub experiments_dir: PathBuf,
    /// Directory of the committed results: which runs to reproduce, and what
    /// each output is compared with.
    #[arg(long, default_value = "results")]
    pub committed_dir: PathBuf,
    /// Directory the reproduction writes its results files, reports, figures
    /// and ledger to; rerun the same command to resume.
    #[arg(long, default_value = "target/reproduce")]
    pub out_dir: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print the runs, their estimated core-hours and the total wall time,
    /// and stop.
    #[arg(long)]
    pub plan: bool,
    /// Reproduce only these outputs (comma-separated, e.g.
    /// `table1,bassily-refine,audit`); the ledger is then not rebuilt.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

/// One run behind a committed result.
#[derive(Debug, Clone, PartialEq)]
struct Job {
    /// The experiment or audit file.
    spec: PathBuf,
    /// Its profile (`None`: the default).
    profile: Option<String>,
    /// The output name, `<name>[-<profile>]`.
    output: String,
    /// Estimated core-seconds (the audit's: measured at its last run).
    core_seconds: f64,
    /// An audit rather than an experiment.
    audit: bool,
}

/// Every run behind a committed result in `committed`, experiments first
/// (sorted by file, then default before profiles in file order), the audit
/// last.
fn jobs(experiments: &Path, committed: &Path) -> Result<Vec<Job>> {
    let mut out = Vec::new();
    let mut audit_specs = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(experiments)
        .with_context(|| format!("reading {}", experiments.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path)?;
        if crate::audit::spec::is_audit_spec(&text) {
            audit_specs.push(path);
            continue;
        }
        let loaded = crate::spec::load(&path)?;
        let profiles = std::iter::once(None).chain(loaded.spec.profiles.keys().cloned().map(Some));
        for profile in profiles {
            let experiment = crate::validate::resolve(&loaded, profile.as_deref())?;
            let output = experiment.output_name();
            // The quick profiles are CI's: their outputs are never committed
            // (.gitignore: /results/*-quick.*), though a CI run leaves them
            // in results/; CI checks them against experiments/baselines.
            let ci_only = profile.as_deref() == Some("quick");
            if ci_only || !committed.join(format!("{output}.csv")).exists() {
                continue;
            }
            out.push(Job {
                spec: path.clone(),
                profile,
                output,
                core_seconds: crate::cost::estimate(&experiment).core_seconds(),
                audit: false,
            });
        }
    }
    for path in audit_specs {
        let output = "audit".to_string();
        if committed.join(format!("{output}.csv")).exists() {
            out.push(Job {
                core_seconds: audit_thread_seconds(&committed.join(format!("{output}.md"))),
                spec: path,
                profile: None,
                output,
                audit: true,
            });
        }
    }
    Ok(out)
}

/// The thread-seconds the committed audit report measured (the sum of its
/// table's `thread s` column), NaN when the report has none.
fn audit_thread_seconds(report: &Path) -> f64 {
    let Ok(text) = std::fs::read_to_string(report) else {
        return f64::NAN;
    };
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut total = f64::NAN;
    let mut column = None;
    for line in text.lines() {
        if !line.starts_with('|') {
            column = None;
            continue;
        }
        let row = cells(line);
        match column {
            None => column = row.iter().position(|c| c == "thread s"),
            Some(k) => {
                if let Some(x) = row.get(k).and_then(|c| c.parse::<f64>().ok()) {
                    total = if total.is_nan() { x } else { total + x };
                }
            }
        }
    }
    total
}

/// The plan as printed: one line per run and the totals.
fn describe(jobs: &[Job], threads: usize) -> String {
    let mut s =
        String::from("| run | spec | profile | estimated core-hours |\n|---|---|---|---|\n");
    for j in jobs {
        s.push_str(&format!(
            "| {} | {} | {} | {:.3}{} |\n",
            j.output,
            j.spec.display(),
            j.profile.as_deref().unwrap_or("default"),
            j.core_seconds / 3600.0,
            if j.audit {
                " (measured at its last run)"
            } else {
                ""
            }
        ));
    }
    let total: f64 = jobs
        .iter()
        .map(|j| j.core_seconds)
        .filter(|x| x.is_finite())
        .sum();
    s.push_str(&format!(
        "\n{} runs, estimated {:.2} core-hours, {} on {threads} threads\n",
        jobs.len(),
        total / 3600.0,
        format_duration(total / threads as f64)
    ));
    s
}

/// Whether `a` and `b` hold the same bytes; `None` when either is missing.
fn same_file(a: &Path, b: &Path) -> Option<bool> {
    Some(std::fs::read(a).ok()? == std::fs::read(b).ok()?)
}

/// Whether two ledgers give every claim the same verdict; `None` when either
/// is missing or unreadable.
fn same_verdicts(a: &Path, b: &Path) -> Option<bool> {
    let verdicts = |p: &Path| -> Option<Vec<(String, String)>> {
        let rows = crate::csv::read_csv(p).ok()?;
        let (id, verdict) = (rows.column("claim_id").ok()?, rows.column("verdict").ok()?);
        Some(
            (0..rows.rows.len())
                .map(|r| {
                    let field = |c| rows.get(r, c).unwrap_or_default().to_string();
                    (field(id), field(verdict))
                })
                .collect(),
        )
    };
    Some(verdicts(a)? == verdicts(b)?)
}

/// The outputs of `job` compared with the committed ones: `(file, same)`.
fn compare(job: &Job, out: &Path, committed: &Path) -> Vec<(String, Option<bool>)> {
    let mut files = vec![format!("{}.csv", job.output)];
    if committed
        .join(format!("{}-points.csv", job.output))
        .exists()
    {
        files.push(format!("{}-points.csv", job.output));
    }
    files
        .into_iter()
        .map(|f| {
            let same = same_file(&out.join(&f), &committed.join(&f));
            (f, same)
        })
        .collect()
}

/// `runner reproduce`.
pub fn run(args: &ReproduceArgs) -> Result<i32> {
    let all = jobs(&args.experiments_dir, &args.committed_dir)?;
    let selected: Vec<Job> = if args.only.is_empty() {
        all
    } else {
        for name in &args.only {
            if !all.iter().any(|j| &j.output == name) {
                return Err(crate::cli::UsageError(
                    format!("--only `{name}` is not a committed result"),
                    format!(
                        "committed results: {}",
                        all.iter()
                            .map(|j| j.output.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .into());
            }
        }
        all.into_iter()
            .filter(|j| args.only.contains(&j.output))
            .collect()
    };
    let threads = crate::validate::budget::effective_threads(args.threads);
    print!("{}", describe(&selected, threads));
    if args.plan {
        return Ok(EXIT_OK);
    }
    let results = args.out_dir.join("results");
    let figures = args.out_dir.join("figures");
    std::fs::create_dir_all(&results)?;
    let total: f64 = selected
        .iter()
        .map(|j| j.core_seconds)
        .filter(|x| x.is_finite())
        .sum();
    let started = Instant::now();
    let mut planned_done = 0.0;
    let mut failed = Vec::new();
    for (k, job) in selected.iter().enumerate() {
        let elapsed = started.elapsed().as_secs_f64();
        // The ETA scales the plan's remaining core-seconds by how fast the
        // finished runs went against their own estimates.
        let pace = if planned_done > 0.0 {
            elapsed / planned_done
        } else {
            1.0 / threads as f64
        };
        eprintln!(
            "\n[{}/{}] {}: estimated {:.3} core-hours; done {:.0}% of the plan in {}, ETA {}",
            k + 1,
            selected.len(),
            job.output,
            job.core_seconds / 3600.0,
            100.0 * planned_done / total.max(f64::MIN_POSITIVE),
            format_duration(elapsed),
            format_duration(pace * (total - planned_done)),
        );
        let spec = job.spec.display().to_string();
        let mut argv: Vec<String> = if job.audit {
            vec!["runner".into(), "audit".into(), spec]
        } else {
            vec!["runner".into(), "run".into(), spec, "--yes".into()]
        };
        if let Some(p) = &job.profile {
            argv.extend(["--profile".into(), p.clone()]);
        }
        argv.extend(["--results-dir".into(), results.display().to_string()]);
        if !job.audit {
            argv.extend(["--figures-dir".into(), figures.display().to_string()]);
        }
        argv.extend(["--threads".into(), args.threads.to_string()]);
        let code = super::main_with_args(argv.into_iter().map(Into::into));
        if code == EXIT_INTERRUPTED {
            eprintln!(
                "interrupted: every finished cell is saved under {}; rerun the same command to resume",
                args.out_dir.display()
            );
            return Ok(EXIT_INTERRUPTED);
        }
        if code != EXIT_OK {
            failed.push(format!("{} (exit {code})", job.output));
        }
        if job.core_seconds.is_finite() {
            planned_done += job.core_seconds;
        }
    }
    if args.only.is_empty() {
        eprintln!("\nclaims ledger from the reproduced summaries");
        let code = super::main_with_args(
            [
                "runner",
                "claims",
                "--claims-dir",
                &args.experiments_dir.join("claims").display().to_string(),
                "--experiments-dir",
                &args.experiments_dir.display().to_string(),
                "--results-dir",
                &results.display().to_string(),
            ]
            .map(Into::into),
        );
        if code != EXIT_OK {
            failed.push(format!("claims (exit {code})"));
        }
    }
    println!("\n| output | file | against the committed one |\n|---|---|---|");
    let mut differing = 0;
    let mut outputs: Vec<(String, String, Option<bool>)> = Vec::new();
    for job in &selected {
        for (file, same) in compare(job, &results, &args.committed_dir) {
            outputs.push((job.output.clone(), file, same));
        }
    }
    if args.only.is_empty() {
        // The ledger's `prereg` column dates each expectation against the
        // commit of the run that judged it, which a reproduction moves to
        // today's: the verdicts are compared, not the bytes.
        let same = same_verdicts(
            &results.join("claims.csv"),
            &args.committed_dir.join("claims.csv"),
        );
        outputs.push(("claims".into(), "claims.csv (verdicts)".into(), same));
    }
    for (output, file, same) in &outputs {
        let word = match same {
            Some(true) => "identical",
            Some(false) => "differs",
            None => "missing",
        };
        if *same != Some(true) {
            differing += 1;
        }
        println!("| {output} | {file} | {word} |");
    }
    println!(
        "\n{} of {} files identical to the committed ones; {} in {}",
        outputs.len() - differing,
        outputs.len(),
        if failed.is_empty() {
            "every run finished with exit 0".to_string()
        } else {
            format!("runs that did not exit 0: {}", failed.join(", "))
        },
        format_duration(started.elapsed().as_secs_f64())
    );
    Ok(if differing == 0 && failed.is_empty() {
        EXIT_OK
    } else {
        EXIT_CHECK_FAILED
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_cost_is_the_sum_of_its_thread_seconds() {
        let dir = std::env::temp_dir().join(format!("reproduce-audit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let md = dir.join("audit.md");
        std::fs::write(
            &md,
            "# audit\n\n| audit | eps_lb | thread s |\n|---|---|---|\n| a | 0.7 | 2 |\n| b | 1.1 | 40.5 |\n\ntext\n\n| other | thread s |\n|---|---|\n| c | 1000 |\n",
        )
        .unwrap();
        // Both tables' columns count: every audit row is a run.
        assert_eq!(audit_thread_seconds(&md), 1042.5);
        assert!(audit_thread_seconds(&dir.join("missing.md")).is_nan());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_committed_summary_is_a_job_and_nothing_else() {
        let jobs = jobs(Path::new("../../experiments"), Path::new("../../results")).unwrap();
        let names: Vec<&str> = jobs.iter().map(|j| j.output.as_str()).collect();
        for expected in ["table1", "lowy_razaviyayn-refine2", "bassily", "audit"] {
            assert!(
                names.contains(&expected),
                "{expected} missing from {names:?}"
            );
        }
        // Quick profiles are CI's, not committed results.
        assert!(!names.iter().any(|n| n.ends_with("-quick")));
        for j in &jobs {
            assert!(
                Path::new("../../results")
                    .join(format!("{}.csv", j.output))
                    .exists(),
                "{}",
                j.output
            );
            assert!(j.core_seconds > 0.0, "{}: {}", j.output, j.core_seconds);
        }
        assert_eq!(
            jobs.last().map(|j| j.audit),
            Some(true),
            "the audit runs last"
        );
    }
}
