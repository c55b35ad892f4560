//! The check stage: expectations (slopes, bounds, theory match) and regression
//! against a committed baseline summary.
//!
//! Baseline comparison: a grid point regresses when its mean is worse (larger)
//! than the baseline's by more than `z * sqrt(se² + se_baseline²)`, with `z`
//! the one-sided normal quantile at a family-wise false-alarm rate of
//! [`BASELINE_FAMILY_ALPHA`] split over all compared points (Bonferroni). With
//! unchanged code and seeds the numbers are identical, so this tolerance only
//! matters for changes that alter random streams but not distributions.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use statrs::distribution::{ContinuousCDF, Normal};

use crate::analyze::StudyAnalysis;
use crate::csv::{read_csv, Column, Table};
use crate::format::{describe_values, sig};
use crate::summary::{point_key, summary_frame};
use crate::validate::Experiment;
use crate::verdict::Verdict;

/// Family-wise false-alarm rate of the baseline regression check.
pub const BASELINE_FAMILY_ALPHA: f64 = 0.001;

/// One baseline row.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselinePoint {
    /// Mean.
    pub mean: f64,
    /// Standard error.
    pub se: f64,
}

/// Baseline keyed by (study, swept description).
pub type Baseline = BTreeMap<(String, String), BaselinePoint>;

/// Writes the baseline summary (the per-point CSV columns the check needs).
pub fn write_baseline(
    path: &Path,
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
) -> Result<()> {
    summary_frame(experiment, analyses)
        .select(&["study", "swept", "count", "mean", "se"])?
        .write_csv(path)
}

/// Reads a baseline written by [`write_baseline`]. A missing or unparsable
/// mean or standard error reads as NaN.
pub fn read_baseline(path: &Path) -> Result<Baseline> {
    let csv = read_csv(path).with_context(|| format!("reading baseline {}", path.display()))?;
    let col = |name| {
        csv.column(name)
            .with_context(|| format!("baseline {}", path.display()))
    };
    let (study, swept, mean, se) = (col("study")?, col("swept")?, col("mean")?, col("se")?);
    let mut out = Baseline::new();
    for i in 0..csv.rows.len() {
        let (Some(st), Some(sw)) = (csv.get(i, study), csv.get(i, swept)) else {
            bail!("baseline {} row {i} lacks study or swept", path.display());
        };
        out.insert(
            (st.to_string(), sw.to_string()),
            BaselinePoint {
                mean: csv.float(i, mean),
                se: csv.float(i, se),
            },
        );
    }
    Ok(out)
}

/// The outcome of the check stage.
#[derive(Debug, Clone, Default)]
pub struct CheckOutcome {
    /// Human-readable lines, one per problem found.
    pub problems: Vec<String>,
    /// Informational lines.
    pub notes: Vec<String>,
}

impl CheckOutcome {
    /// Whether everything holds.
    pub fn pass(&self) -> bool {
        self.problems.is_empty()
    }

    /// Printable report.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            let _ = writeln!(out, "  note: {n}");
        }
        for p in &self.problems {
            let _ = writeln!(out, "  FAIL: {p}");
        }
        let _ = writeln!(
            out,
            "check: {}",
            if self.pass() {
                "no verdict lost evidence, no regression"
            } else {
                "FAILED"
            }
        );
        out
    }
}

/// Checks every expectation, and the baseline when given, without committed
/// verdicts (so any contradicted expectation fails): see [`check_with`].
pub fn check(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    baseline: Option<&Baseline>,
) -> CheckOutcome {
    check_with(experiment, analyses, baseline, None)
}

/// The check stage, a regression check. It fails when
/// - a verdict changes from the committed one (`committed`, see
///   [`write_verdicts`]) by losing evidence: confirmed to anything else, or
///   anything to contradicted ([`Verdict::degrades_to`]); without a
///   committed verdict for an expectation, when it is contradicted;
/// - a grid point is worse than the committed baseline beyond its noise;
/// - cells failed or are missing.
///
/// A verdict that is contradicted in the committed file does not fail by
/// itself: a contradicted claim is a result. It is listed as a note.
pub fn check_with(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    baseline: Option<&Baseline>,
    committed: Option<&CommittedVerdicts>,
) -> CheckOutcome {
    let mut outcome = CheckOutcome::default();
    for (study, a) in experiment.studies.iter().zip(analyses) {
        let judged = a.judgements();
        for (label, j) in &judged {
            let now = j.verdict;
            let before = committed.and_then(|c| c.get(&(study.name.clone(), label.clone())));
            match before {
                Some(&b) if b.degrades_to(now) => outcome.problems.push(format!(
                    "{}: {label}: verdict changed from {b} (committed) to {now}: {}",
                    study.name, j.reason
                )),
                Some(&b) if b != now => outcome.notes.push(format!(
                    "{}: {label}: verdict improved from {b} (committed) to {now}: {}; commit it with `runner baseline`",
                    study.name, j.reason
                )),
                Some(_) if now == Verdict::Contradicted => outcome.notes.push(format!(
                    "{}: {label}: contradicted, as committed: {}",
                    study.name, j.reason
                )),
                Some(_) => {}
                None if now == Verdict::Contradicted => outcome.problems.push(format!(
                    "{}: {label}: contradicted, and no committed verdict says so: {}",
                    study.name, j.reason
                )),
                None => {}
            }
        }
        if let Some(c) = committed {
            for ((st, label), &b) in c.iter().filter(|((st, _), _)| *st == study.name) {
                let still = judged.iter().any(|(l, _)| l == label);
                if !still && b.degrades_to(Verdict::NotMeasured) {
                    outcome.problems.push(format!(
                        "{st}: {label}: verdict changed from {b} (committed) to not measured: the expectation is gone"
                    ));
                }
            }
        }
        if a.failed_cells > 0 {
            outcome.problems.push(format!(
                "{}: {} cells failed, e.g. {}",
                study.name,
                a.failed_cells,
                a.failures.first().cloned().unwrap_or_default()
            ));
        }
        if a.missing_cells > 0 {
            outcome.problems.push(format!(
                "{}: {} planned cells are missing from the results file",
                study.name, a.missing_cells
            ));
        }
    }
    if let Some(base) = baseline {
        compare_baseline(experiment, analyses, base, &mut outcome);
    }
    outcome
}

/// Committed verdicts keyed by (study, check label as in
/// [`StudyAnalysis::judgements`]).
pub type CommittedVerdicts = BTreeMap<(String, String), Verdict>;

/// Writes every judged expectation's verdict (`study,check,verdict,reason`):
/// the committed verdicts `check` compares with.
pub fn write_verdicts(
    path: &Path,
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
) -> Result<()> {
    let (mut study, mut label, mut verdict, mut reason) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (s, a) in experiment.studies.iter().zip(analyses) {
        for (l, j) in a.judgements() {
            study.push(s.name.clone());
            label.push(l);
            verdict.push(j.verdict.name().to_string());
            reason.push(j.reason.clone());
        }
    }
    Table::new()
        .with("study", Column::Text(study))
        .with("check", Column::Text(label))
        .with("verdict", Column::Text(verdict))
        .with("reason", Column::Text(reason))
        .write_csv(path)
}

/// Reads verdicts written by [`write_verdicts`].
pub fn read_verdicts(path: &Path) -> Result<CommittedVerdicts> {
    let csv = read_csv(path).with_context(|| format!("reading verdicts {}", path.display()))?;
    let col = |name| {
        csv.column(name)
            .with_context(|| format!("verdicts {}", path.display()))
    };
    let (study, label, verdict) = (col("study")?, col("check")?, col("verdict")?);
    let mut out = CommittedVerdicts::new();
    for i in 0..csv.rows.len() {
        let (Some(st), Some(l), Some(v)) =
            (csv.get(i, study), csv.get(i, label), csv.get(i, verdict))
        else {
            bail!("verdicts {} row {i} is incomplete", path.display());
        };
        let Some(v) = Verdict::from_name(v) else {
            bail!("verdicts {} row {i}: unknown verdict `{v}`", path.display());
        };
        out.insert((st.to_string(), l.to_string()), v);
    }
    Ok(out)
}

/// Per study, how many grid points are worse than the baseline beyond their
/// noise (`None` where the baseline has none of its points).
pub fn regressions(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    base: Option<&Baseline>,
) -> Vec<Option<usize>> {
    let Some(base) = base else {
        return vec![None; analyses.len()];
    };
    let worse = worse_points(experiment, analyses, base);
    experiment
        .studies
        .iter()
        .zip(analyses)
        .map(|(s, a)| {
            let compared = a
                .points
                .iter()
                .any(|p| base.contains_key(&(s.name.clone(), point_key(&p.swept))));
            compared.then(|| worse.iter().filter(|w| w.study == s.name).count())
        })
        .collect()
}

/// A grid point worse than its baseline beyond the noise.
struct WorsePoint {
    study: String,
    message: String,
}

fn compare_baseline(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    base: &Baseline,
    outcome: &mut CheckOutcome,
) {
    let compared = compared_pairs(experiment, analyses, base).len();
    if compared == 0 {
        outcome
            .notes
            .push("the baseline shares no grid point with this run; nothing compared".into());
        return;
    }
    let worse = worse_points(experiment, analyses, base);
    let z = baseline_z(compared);
    outcome.notes.push(format!(
        "baseline: {compared} grid points compared at z = {z:.2} (family-wise false-alarm rate {BASELINE_FAMILY_ALPHA}), {} worse",
        worse.len()
    ));
    outcome
        .problems
        .extend(worse.into_iter().map(|w| w.message));
}

type Pair<'a> = (
    &'a crate::validate::Study,
    &'a crate::analyze::PointSummary,
    &'a BaselinePoint,
);

fn compared_pairs<'a>(
    experiment: &'a Experiment,
    analyses: &'a [StudyAnalysis],
    base: &'a Baseline,
) -> Vec<Pair<'a>> {
    experiment
        .studies
        .iter()
        .zip(analyses)
        .flat_map(|(s, a)| {
            a.points.iter().filter_map(move |p| {
                base.get(&(s.name.clone(), point_key(&p.swept)))
                    .map(|b| (s, p, b))
            })
        })
        .collect()
}

/// One-sided normal quantile at the family-wise rate split over `k` points.
fn baseline_z(k: usize) -> f64 {
    Normal::standard().inverse_cdf(1.0 - BASELINE_FAMILY_ALPHA / k.max(1) as f64)
}

fn worse_points(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    base: &Baseline,
) -> Vec<WorsePoint> {
    let pairs = compared_pairs(experiment, analyses, base);
    let z = baseline_z(pairs.len());
    pairs
        .into_iter()
        .filter_map(|(s, p, b)| {
            let tol = z * (p.se.powi(2) + b.se.powi(2)).sqrt();
            (p.mean - b.mean > tol).then(|| WorsePoint {
                study: s.name.clone(),
                message: format!(
                    "{}: mean {} at {} is worse than the baseline {} by more than its noise ({})",
                    s.name,
                    sig(p.mean),
                    describe_values(&p.swept),
                    sig(b.mean),
                    sig(tol)
                ),
            })
        })
        .collect()
}
