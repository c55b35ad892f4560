//! Reports: `results/<name>.md` (readable verdict and per-point tables) and
//! `results/<name>.csv` (per-point summary, written with polars).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::*;

use crate::analyze::{StudyAnalysis, THEORY_MATCH_FAMILY_ALPHA};
use crate::validate::Experiment;

/// Formats a number compactly with 4 significant digits.
pub fn sig(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "–".into()
        } else {
            format!("{x}")
        };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{x:.3e}")
    } else {
        let s = format!("{x:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
}

/// `a=1, b=2`.
pub fn describe_values(values: &[(String, f64)]) -> String {
    if values.is_empty() {
        return "–".into();
    }
    values
        .iter()
        .map(|(k, v)| format!("{k}={}", sig(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A point's swept values, with the maximizing value of a worst-case study.
fn describe_point(p: &crate::analyze::PointSummary) -> String {
    match &p.worst_case_at {
        Some((axis, x)) => format!(
            "{} (worst case at {axis}={})",
            describe_values(&p.swept),
            sig(*x)
        ),
        None => describe_values(&p.swept),
    }
}

/// `a=1, b=0.0316227766017` with every value at full (round-trip) precision:
/// the key of a grid point in CSV summaries and baselines.
pub fn point_key(values: &[(String, f64)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The verdict of one fitted slope: `reported` (never checked), `pass` (the
/// slope and every other expectation of its study hold) or `FAIL`.
pub fn slope_verdict(s: &crate::analyze::SlopeResult, a: &StudyAnalysis) -> &'static str {
    if s.side == crate::spec::SlopeSide::Reported {
        "reported"
    } else if s.pass && a.pass() {
        "pass"
    } else {
        "FAIL"
    }
}

/// The verdict table (one row per fitted slope, plus rows for bound/theory checks).
pub fn verdict_table(experiment: &Experiment, analyses: &[StudyAnalysis]) -> String {
    let mut out = String::new();
    out.push_str("| study | swept | at | theory slope | theory-curve slope | fitted slope ± 95% CI | fit window | points | max mean/bound | theory match | verdict |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (study, a) in experiment.studies.iter().zip(analyses) {
        let theory = match &a.theory_mismatches {
            None => "–".to_string(),
            Some(m) if m.is_empty() => format!("{}/{} points", a.points.len(), a.points.len()),
            Some(m) => format!("{} point(s) off", m.len()),
        };
        let ratio = sig(a.max_bound_ratio);
        let ratio = match a.bound_check {
            Some(false) => format!("**{ratio} (> 1)**"),
            _ => ratio,
        };
        let verdict = if a.pass() { "pass" } else { "**FAIL**" };
        if a.slopes.is_empty() {
            let _ = writeln!(
                out,
                "| {} | {} | – | – | – | – | – | {} | {ratio} | {theory} | {verdict} |",
                study.name,
                study
                    .axes
                    .iter()
                    .map(|x| x.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                a.points.len()
            );
        }
        for s in &a.slopes {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:+.3} ± {:.3} | [{}, {}] | {} | {ratio} | {theory} | {} |",
                study.name,
                s.param,
                describe_values(&s.at),
                s.side.describe(s.theory_slope, s.tolerance),
                if s.theory_curve_slope.is_finite() { format!("{:+.3}", s.theory_curve_slope) } else { "–".into() },
                s.fitted,
                s.ci_half_width,
                sig(s.window.0),
                sig(s.window.1),
                s.points,
                match slope_verdict(s, a) {
                    "FAIL" => "**FAIL**",
                    v => v,
                },
            );
        }
    }
    out
}

/// Writes the Markdown report.
pub fn write_markdown(
    path: &Path,
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    source: &str,
    provenance: &str,
) -> Result<()> {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# {} — measured rates vs theory\n",
        experiment.output_name()
    );
    if !experiment.description.is_empty() {
        let _ = writeln!(md, "{}\n", experiment.description);
    }
    let _ = writeln!(md, "Source: `{source}`. {provenance}\n");
    let headline =
        crate::headline::headline_markdown(&crate::headline::headline_rows(experiment, analyses));
    if !headline.is_empty() {
        md.push_str("## Headline table\n\nOne row per fitted exponent: the log-log slope of the measured mean against the swept variable inside the fit window (95% CI, Student t), the exponent the theorem predicts (as checked: `± tolerance`, or one-sided `<=`), the largest ratio of a measured mean to the theorem's bound over the study's points, and the verdict (every expectation of the study holds). `figures/");
        md.push_str(&experiment.output_name());
        md.push_str("/overview.png` draws one panel per row.\n\n");
        md.push_str(&headline);
        md.push('\n');
    }
    md.push_str("## Verdicts\n\n");
    md.push_str(&verdict_table(experiment, analyses));
    let _ = writeln!(
        md,
        "\nSlopes are weighted least-squares fits of log(mean) on log(parameter) inside the fit window \
         (95% CI, Student t). \"theory-curve slope\" is the same fit applied to the exact expected \
         metric. \"theory match\" counts points whose mean lies within a Bonferroni-corrected CI of \
         the exact expectation (family-wise false-alarm rate {THEORY_MATCH_FAMILY_ALPHA} per study).\n"
    );
    let tables = crate::paper_tables::paper_tables(experiment, analyses);
    if !tables.is_empty() {
        md.push_str("## The paper's tables, measured\n\nEach row is a result the paper claims, with the study that measures it: the fitted log-log slope per swept variable against the theory slope, the largest ratio of a measured mean to the theorem's bound, and the study's verdict (every expectation of the study holds).\n");
        md.push_str(&tables);
        md.push('\n');
    }
    md.push_str("## Per-point summaries\n");
    for (study, a) in experiment.studies.iter().zip(analyses) {
        let _ = writeln!(
            md,
            "\n### {}\n\n`{}` on `{}`, metric `{}`, {} repetitions per point.\n",
            study.title, study.algorithm.name, study.family.name, study.metric, study.repetitions
        );
        md.push_str("| point | reps (failed) | mean | 95% CI | median | q10 | q90 | exact expectation | bound | mean/bound |\n");
        md.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
        for p in &a.points {
            let _ = writeln!(
                md,
                "| {} | {} ({}) | {} | [{}, {}] | {} | {} | {} | {} | {} | {} |",
                describe_point(p),
                p.count,
                p.failed,
                sig(p.mean),
                sig(p.ci_low),
                sig(p.ci_high),
                sig(p.median),
                sig(p.q10),
                sig(p.q90),
                sig(p.theory),
                sig(p.bound),
                sig(p.mean / p.bound),
            );
        }
        if a.failed_cells > 0 {
            let _ = writeln!(md, "\n{} failed cells, e.g.:\n", a.failed_cells);
            for f in &a.failures {
                let _ = writeln!(md, "- {f}");
            }
        }
        if a.missing_cells > 0 {
            let _ = writeln!(
                md,
                "\n{} planned cells are missing (interrupted run?).",
                a.missing_cells
            );
        }
    }
    std::fs::write(path, md).with_context(|| format!("writing {}", path.display()))
}

/// The per-point summary as a polars frame (one row per study and grid point).
pub fn summary_frame(experiment: &Experiment, analyses: &[StudyAnalysis]) -> Result<DataFrame> {
    let mut study = Vec::new();
    let mut point = Vec::new();
    let mut swept = Vec::new();
    let mut cols: [Vec<f64>; 11] = Default::default();
    for (s, a) in experiment.studies.iter().zip(analyses) {
        for p in &a.points {
            study.push(s.name.clone());
            point.push(p.point as u64);
            swept.push(point_key(&p.swept));
            let vals = [
                p.count as f64,
                p.failed as f64,
                p.mean,
                p.se,
                p.ci_low,
                p.ci_high,
                p.median,
                p.q10,
                p.q90,
                p.theory,
                p.bound,
            ];
            for (c, v) in cols.iter_mut().zip(vals) {
                c.push(v);
            }
        }
    }
    let names = [
        "count", "failed", "mean", "se", "ci_low", "ci_high", "median", "q10", "q90", "theory",
        "bound",
    ];
    let mut columns: Vec<Column> = vec![
        Column::new("study".into(), study),
        Column::new("point".into(), point),
        Column::new("swept".into(), swept),
    ];
    for (name, c) in names.iter().zip(cols) {
        columns.push(Column::new((*name).into(), c));
    }
    Ok(DataFrame::new_infer_height(columns)?)
}

/// Writes the per-point summary CSV.
pub fn write_csv(path: &Path, experiment: &Experiment, analyses: &[StudyAnalysis]) -> Result<()> {
    let mut df = summary_frame(experiment, analyses)?;
    let mut file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    CsvWriter::new(&mut file).finish(&mut df)?;
    Ok(())
}
