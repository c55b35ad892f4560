//! The claims ledger: every claim of the five papers (declared once, in
//! `experiments/claims/<paper>.toml`), judged on the studies that name it
//! (`claims = [...]` in `experiments/*.toml`) from their committed
//! default-profile summaries, the `runner errata` rows and the committed
//! privacy audit, one verdict each under the rules of the claim's kind:
//! `results/claims.md` and `results/claims.csv`. `runner claims --check`
//! rebuilds the ledger and fails when a verdict lost evidence against the
//! committed one, or when an expectation was set after its data without a
//! `revised` reason.
//!
//! - [`spec`]: the claim files and kinds;
//! - [`validate`](mod@validate): the claim files cross-checked against the studies;
//! - [`evidence`]: each piece of evidence judged under the claim's kind;
//! - [`beyond`]: what the next decade above an open row's window costs;
//! - [`prereg`]: pre-registration read from git history;
//! - [`ledger`](mod@ledger): one row per claim, and the comparison with a committed one;
//! - [`supersede`]: a decisive farther window of the same instance supersedes an inconclusive nearer one;
//! - [`render`]: Markdown, CSV and the list of changed verdicts;
//! - [`calibrate`]: false alarms and power of the slope rules on synthetic
//!   power laws with the real studies' grids and noise.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

pub mod beyond;
pub mod calibrate;
pub mod evidence;
pub mod ledger;
pub mod prereg;
pub mod render;
pub mod spec;
pub mod study_rule;
pub mod supersede;
pub mod validate;

pub use evidence::{judge_experiments, read_audit_rows, AuditRow, Judged};
pub use ledger::{degradations, ledger, ledger_with, read_verdicts, LedgerRow};
pub use prereg::Prereg;
pub use render::{counts, counts_markdown, markdown, write_csv};
pub use spec::{load_claims, ClaimFile, ClaimKind, ClaimSpec, Evidence};
pub use validate::validate;

/// `runner claims`.
#[derive(Debug, Args, Clone)]
pub struct ClaimsArgs {
    /// Directory of the claim files (one per paper).
    #[arg(long, default_value = "experiments/claims")]
    pub claims_dir: PathBuf,
    /// Directory of the experiment files whose studies name claims.
    #[arg(long, default_value = "experiments")]
    pub experiments_dir: PathBuf,
    /// Directory of the committed summaries, and of the ledger.
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// The repository root, against which `evidence = "test"` paths are read.
    #[arg(long, default_value = ".")]
    pub repo_dir: PathBuf,
    /// Compare with the committed ledger (results/claims.csv) instead of
    /// writing it: exit 1 when a claim's verdict lost evidence (confirmed to
    /// anything else, anything to contradicted), or when a study expectation
    /// was set after its data without a `revised` reason.
    #[arg(long)]
    pub check: bool,
    /// Also write results/claims-changes.md: every verdict that differs from
    /// this earlier ledger CSV (e.g. `git show REV:results/claims.csv`).
    #[arg(long, value_name = "CSV")]
    pub changes_against: Option<PathBuf>,
    /// Print the calibration of the slope rules instead (false contradictions
    /// on correct synthetic power laws, and power at an exponent off by 0.3,
    /// with every measured slope claim's grid and noise), over this many
    /// seeds per claim.
    #[arg(long, value_name = "SEEDS")]
    pub calibrate: Option<usize>,
}

/// `runner claims`: build (and write, or check) the ledger.
pub fn run(args: &ClaimsArgs) -> Result<i32> {
    let claims = load_claims(&args.claims_dir)?;
    let judged = judge_experiments(&args.experiments_dir, &args.results_dir)?;
    validate(&claims, &judged)?;
    if let Some(seeds) = args.calibrate {
        let rows = calibrate::calibrate(&claims, &judged, seeds);
        print!("{}", calibrate::markdown(&rows, seeds));
        return Ok(crate::cli::EXIT_OK);
    }
    let audits = read_audit_rows(&args.results_dir.join("audit.csv"))?;
    let prereg = Prereg::from_history(&judged, &args.results_dir);
    let rows = ledger_with(&claims, &judged, &audits, &prereg, &args.repo_dir);
    let csv = args.results_dir.join("claims.csv");
    print!("{}", counts_markdown(&rows));
    let post_hoc: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.unrevised_post_hoc
                .iter()
                .map(move |w| format!("{}: {w}", r.claim_id))
        })
        .collect();
    if args.check {
        if !csv.exists() {
            bail!(
                "no committed ledger at {}: run `runner claims` and commit it",
                csv.display()
            );
        }
        let committed = read_verdicts(&csv)?;
        let lost = degradations(&rows, &committed);
        for l in &lost {
            println!("  FAIL: {l}");
        }
        for p in &post_hoc {
            println!("  FAIL: expectation set after its data without a `revised` reason: {p}");
        }
        let changed = rows
            .iter()
            .filter(|r| committed.get(&r.claim_id).is_some_and(|v| *v != r.verdict))
            .count();
        println!(
            "claims: {} claims, {changed} verdict(s) differ from {}, {} lost evidence, {} post-hoc expectation(s) without a reason",
            rows.len(),
            csv.display(),
            lost.len(),
            post_hoc.len()
        );
        return Ok(if lost.is_empty() && post_hoc.is_empty() {
            crate::cli::EXIT_OK
        } else {
            crate::cli::EXIT_CHECK_FAILED
        });
    }
    for p in &post_hoc {
        println!("  warning: expectation set after its data without a `revised` reason: {p}");
    }
    std::fs::create_dir_all(&args.results_dir)?;
    let provenance = format!(
        "Built on {} at commit `{}` from `{}` and the committed summaries in `{}`.",
        crate::provenance::utc_now(),
        crate::provenance::git_commit(),
        args.claims_dir.display(),
        args.results_dir.display()
    );
    std::fs::write(
        args.results_dir.join("claims.md"),
        markdown(&rows, &provenance),
    )?;
    write_csv(&csv, &rows)?;
    if let Some(earlier) = &args.changes_against {
        let before = read_verdicts(earlier)?;
        let out = args.results_dir.join("claims-changes.md");
        std::fs::write(
            &out,
            render::changes_markdown(&rows, &before, &earlier.display().to_string(), &provenance),
        )?;
        println!("wrote {}", out.display());
    }
    println!(
        "wrote {} and {} ({} claims)",
        args.results_dir.join("claims.md").display(),
        csv.display(),
        rows.len()
    );
    Ok(crate::cli::EXIT_OK)
}
