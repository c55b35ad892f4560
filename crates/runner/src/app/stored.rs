//! An experiment with its analyzed stored results (the results file, or the
//! committed summary) and the reports written from it: what `analyze`,
//! `plot`, `check` and `baseline` redo, and what a run or a merge finishes
//! with.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::analyze::{analyze, StudyAnalysis};
use crate::check::{read_baseline, regressions, Baseline};
use crate::cli::{baseline_path, load, results_path, CommonArgs, UsageError};
use crate::identity::spec_hashes;
use crate::plan::{plan, Plan};
use crate::report;
use crate::store::{check_same_spec, read_file, CellRecord};
use crate::validate::Experiment;

/// An experiment with its analyzed stored results.
pub(super) struct Stored {
    pub(super) experiment: Experiment,
    pub(super) analyses: Vec<StudyAnalysis>,
    pub(super) source: PathBuf,
    pub(super) provenance_line: String,
    /// The committed point baseline, when there is one (the report's
    /// regression column).
    pub(super) baseline: Option<Baseline>,
    /// Re-derived from the committed summary, which is then left as it is.
    pub(super) from_summary: bool,
}

impl Stored {
    pub(super) fn open(c: &CommonArgs) -> Result<Self> {
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

    pub(super) fn from_records(
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

    pub(super) fn write_reports(&self, c: &CommonArgs) -> Result<()> {
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
pub(super) fn read_results(
    c: &CommonArgs,
    e: &Experiment,
) -> Result<(PathBuf, crate::store::StoredResults)> {
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

pub(super) fn load_baseline(c: &CommonArgs, e: &Experiment) -> Result<Option<Baseline>> {
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
