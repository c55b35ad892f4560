//! The headline table (table 1): one row per fitted slope of every study that
//! declares `headline = { paper, theorem }`, written at the top of the
//! Markdown report, as `results/<name>.csv` (the per-point summary then goes
//! to `results/<name>-points.csv`), and drawn as one panel per row in
//! `figures/<name>/overview.png` and `.svg`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::analyze::StudyAnalysis;
use crate::csv::{Column, Table};
use crate::figures::study_series;
use crate::plot::{render_panels, Figure};
use crate::report::{describe_values, sig, verdict_cell};
use crate::validate::{Experiment, Study};

/// Columns of the overview figure's panel grid.
const OVERVIEW_COLUMNS: usize = 3;

/// One row of the headline table.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineRow {
    /// Index of the study in the experiment.
    pub study_index: usize,
    /// Index of the slope in the study's analysis.
    pub slope_index: usize,
    /// The paper.
    pub paper: String,
    /// The theorem or result.
    pub theorem: String,
    /// Registered algorithm name.
    pub algorithm: String,
    /// Registered problem family.
    pub family: String,
    /// Privacy notion with its fixed parameters, e.g. `(eps, delta)-DP, delta = 1e-6`.
    pub privacy: String,
    /// Swept variable (with the fixed values of other swept variables, if any).
    pub swept: String,
    /// Theory exponent as the check reads it, e.g. `-2.000 ± 0.15` or `<= -0.500 + 0.1`.
    pub theory: String,
    /// Declared theory exponent.
    pub theory_slope: f64,
    /// Fitted exponent.
    pub fitted: f64,
    /// Its 95% CI half-width.
    pub ci_half_width: f64,
    /// Fit window.
    pub window: (f64, f64),
    /// Largest mean/bound ratio of the study (NaN without a bound).
    pub bound_ratio: f64,
    /// The verdict on the fitted exponent's CI.
    pub verdict: crate::verdict::Verdict,
    /// Its reason, in numbers.
    pub reason: String,
}

/// The privacy notion of a study in words.
pub fn privacy_notion(study: &Study) -> String {
    let swept = |name: &str| study.axes.iter().any(|a| a.name == name);
    if study.rho > 0.0 || swept("rho") {
        return "rho-zCDP".into();
    }
    let eps = if swept("eps") {
        "eps swept".to_string()
    } else {
        format!("eps = {}", sig(study.eps))
    };
    if study.delta > 0.0 {
        format!("(eps, delta)-DP, {eps}, delta = {}", sig(study.delta))
    } else {
        format!("pure eps-DP, {eps}")
    }
}

/// The rows of every study with a `headline`, in study order, one per slope.
pub fn headline_rows(experiment: &Experiment, analyses: &[StudyAnalysis]) -> Vec<HeadlineRow> {
    let mut rows = Vec::new();
    for (i, (study, a)) in experiment.studies.iter().zip(analyses).enumerate() {
        let Some(h) = &study.headline else { continue };
        for (j, s) in a.slopes.iter().enumerate() {
            let swept = if s.at.is_empty() {
                s.param.clone()
            } else {
                format!("{} at {}", s.param, describe_values(&s.at))
            };
            rows.push(HeadlineRow {
                study_index: i,
                slope_index: j,
                paper: h.paper.clone(),
                theorem: h.theorem.clone(),
                algorithm: study.algorithm.name.to_string(),
                family: study.family.name.to_string(),
                privacy: privacy_notion(study),
                swept,
                theory: s.side.describe(s.theory_slope, s.tolerance),
                theory_slope: s.theory_slope,
                fitted: s.fitted,
                ci_half_width: s.ci_half_width,
                window: s.window,
                bound_ratio: if a.bound_judgement.is_some() {
                    a.max_bound_ratio
                } else {
                    f64::NAN
                },
                verdict: s.judgement.verdict,
                reason: s.judgement.reason.clone(),
            });
        }
    }
    rows
}

/// The headline table in Markdown (empty when there are no rows).
pub fn headline_markdown(rows: &[HeadlineRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    out.push_str("| paper | theorem | algorithm | family | privacy | swept | theory exponent | fitted ± 95% CI | fit window | max measured/bound | verdict | why |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let verdict = verdict_cell(r.verdict);
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | `{}` | {} | {} | {} | {:+.3} ± {:.3} | [{}, {}] | {} | {} | {} |",
            r.paper,
            r.theorem,
            r.algorithm,
            r.family,
            r.privacy,
            r.swept,
            r.theory,
            r.fitted,
            r.ci_half_width,
            sig(r.window.0),
            sig(r.window.1),
            if r.bound_ratio.is_finite() {
                sig(r.bound_ratio)
            } else {
                "–".into()
            },
            verdict,
            r.reason,
        );
    }
    out
}

/// Writes the headline table as CSV.
pub fn write_headline_csv(path: &Path, rows: &[HeadlineRow]) -> Result<()> {
    let text = |f: fn(&HeadlineRow) -> String| Column::Text(rows.iter().map(f).collect());
    let num = |f: fn(&HeadlineRow) -> f64| Column::Float(rows.iter().map(f).collect());
    Table::new()
        .with("paper", text(|r| r.paper.clone()))
        .with("theorem", text(|r| r.theorem.clone()))
        .with("algorithm", text(|r| r.algorithm.clone()))
        .with("family", text(|r| r.family.clone()))
        .with("privacy", text(|r| r.privacy.clone()))
        .with("swept", text(|r| r.swept.clone()))
        .with("theory", text(|r| r.theory.clone()))
        .with("theory_slope", num(|r| r.theory_slope))
        .with("fitted", num(|r| r.fitted))
        .with("ci_half_width", num(|r| r.ci_half_width))
        .with("window_low", num(|r| r.window.0))
        .with("window_high", num(|r| r.window.1))
        .with("max_bound_ratio", num(|r| r.bound_ratio))
        .with("verdict", text(|r| r.verdict.name().to_string()))
        .with("reason", text(|r| r.reason.clone()))
        .write_csv(path)
}

/// Draws `overview.png` and `.svg` in `dir`: one panel per headline row
/// (the study's measured means with CI bars, its theory curve and bound, and
/// the row's fitted line); returns the files written (none without rows).
pub fn render_overview(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    let rows = headline_rows(experiment, analyses);
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let figures: Vec<Figure> = rows
        .iter()
        .map(|r| {
            let study = &experiment.studies[r.study_index];
            let slope = &analyses[r.study_index].slopes[r.slope_index];
            let mut series = study_series(&analyses[r.study_index], &slope.param, "");
            series.retain(|s| s.fits.iter().any(|f| f.window == slope.window) || s.fits.is_empty());
            for s in &mut series {
                s.fits.retain(|f| f.window == slope.window);
            }
            Figure {
                title: format!("{}: {} ({})", r.paper, r.theorem, r.swept),
                x_label: slope.param.clone(),
                y_label: study.metric.replace('_', " "),
                series,
                bound_label: study.algorithm.bound_name.into(),
                theory_label: study.algorithm.theory_name.into(),
                reference_label: study.algorithm.reference_name.into(),
            }
        })
        .collect();
    render_panels(&figures, OVERVIEW_COLUMNS, &dir.join("overview"))
}
