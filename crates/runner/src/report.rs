//! Reports: `results/<name>.md` (readable verdict and per-point tables) and
//! `results/<name>.csv` (per-point summary, written by [`crate::csv`]).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::analyze::{StudyAnalysis, THEORY_MATCH_FAMILY_ALPHA};
use crate::csv::{Column, Table};
use crate::validate::Experiment;
use crate::verdict::Verdict;

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

/// The verdict of one fitted slope, on its own CI (see [`crate::verdict`]).
pub fn slope_verdict(s: &crate::analyze::SlopeResult) -> Verdict {
    s.judgement.verdict
}

/// A verdict as a Markdown cell: contradicted in bold, so it stands out.
pub fn verdict_cell(v: Verdict) -> String {
    match v {
        Verdict::Contradicted => format!("**{v}**"),
        v => v.to_string(),
    }
}

/// The regression column: how many of a study's grid points got worse than
/// the committed baseline beyond their noise (`None`: nothing compared).
pub fn regression_cell(worse: Option<usize>) -> String {
    match worse {
        None => "no baseline".into(),
        Some(0) => "none".into(),
        Some(k) => format!("**worse at {k} points**"),
    }
}

/// The verdict table: one row per fitted slope, then one row per other
/// expectation (bound, theory match, reference) of each study, each with
/// its verdict and the reason in numbers, and the study's baseline
/// regression (`regressions[i]`, see [`crate::check::regressions`]).
pub fn verdict_table(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    regressions: &[Option<usize>],
) -> String {
    let mut out = String::new();
    out.push_str("| study | check | theory | theory-curve slope | measured | fit window | points | verdict | why | regression |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for (i, (study, a)) in experiment.studies.iter().zip(analyses).enumerate() {
        let regression = regression_cell(regressions.get(i).copied().flatten());
        for s in &a.slopes {
            let at = if s.at.is_empty() {
                String::new()
            } else {
                format!(" at {}", describe_values(&s.at))
            };
            let _ = writeln!(
                out,
                "| {} | slope in {}{at} | {} | {} | {:+.3} ± {:.3} | [{}, {}] | {} | {} | {} | {regression} |",
                study.name,
                s.param,
                s.side.describe(s.theory_slope, s.tolerance),
                if s.theory_curve_slope.is_finite() { format!("{:+.3}", s.theory_curve_slope) } else { "–".into() },
                s.fitted,
                s.ci_half_width,
                sig(s.window.0),
                sig(s.window.1),
                s.points,
                verdict_cell(s.judgement.verdict),
                s.judgement.reason,
            );
        }
        let others = [
            (
                "bound",
                "mean <= bound",
                &a.bound_judgement,
                format!("max mean/bound {}", sig(a.max_bound_ratio)),
            ),
            (
                "theory match",
                "mean = exact expectation",
                &a.theory_judgement,
                String::new(),
            ),
            (
                "reference",
                "mean > reference curve",
                &a.reference_judgement,
                String::new(),
            ),
        ];
        for (check, theory, judgement, measured) in others {
            let Some(j) = judgement else { continue };
            let _ = writeln!(
                out,
                "| {} | {check} | {theory} | – | {} | – | {} | {} | {} | {regression} |",
                study.name,
                if measured.is_empty() {
                    "–".to_string()
                } else {
                    measured
                },
                a.points.len(),
                verdict_cell(j.verdict),
                j.reason,
            );
        }
        if a.judgements().is_empty() {
            let _ = writeln!(
                out,
                "| {} | – | – | – | – | – | {} | {} | the study declares no expectation | {regression} |",
                study.name,
                a.points.len(),
                verdict_cell(Verdict::NotMeasured),
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
    regressions: &[Option<usize>],
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
        md.push_str("## Headline table\n\nOne row per fitted exponent: the log-log slope of the measured mean against the swept variable inside the fit window (95% CI, Student t), the exponent the theorem predicts (as checked: `± tolerance`, or one-sided `<=`), the largest ratio of a measured mean to the theorem's bound over the study's points, and the verdict on the exponent's whole CI (confirmed / contradicted / inconclusive / not measured) with its reason. `figures/");
        md.push_str(&experiment.output_name());
        md.push_str("/overview.png` draws one panel per row.\n\n");
        md.push_str(&headline);
        md.push('\n');
    }
    md.push_str("## Verdicts\n\n");
    md.push_str(&verdict_table(experiment, analyses, regressions));
    let _ = writeln!(
        md,
        "\nSlopes are weighted least-squares fits of log(mean) on log(parameter) inside the fit window \
         (95% CI, Student t). \"theory-curve slope\" is the same fit applied to the exact expected \
         metric. Verdicts: **confirmed** when the whole 95% CI lies inside the theory's band (slope ± \
         tolerance, or one-sided), every mean is below an informative bound (one below the metric's \
         trivial maximum), or every mean lies within a Bonferroni-corrected CI of the exact expectation \
         (family-wise false-alarm rate {THEORY_MATCH_FAMILY_ALPHA} per study); **contradicted** when \
         the CI lies outside the band or a mean exceeds the bound beyond its CI or misses the exact \
         expectation; **inconclusive** otherwise, with what would decide it; **not measured** for a \
         reported slope or a vacuous bound. \"regression\" compares every grid point with the \
         committed baseline (experiments/baselines/).\n"
    );
    let tables = crate::paper_tables::paper_tables(experiment, analyses);
    if !tables.is_empty() {
        md.push_str("## The paper's tables, measured\n\nEach row is a result the paper claims, with the study that measures it: the fitted log-log slope per swept variable against the theory slope, the largest ratio of a measured mean to the theorem's bound, and the study's verdict (every expectation of the study combined: contradicted if any is, confirmed if every judged one is, inconclusive otherwise).\n");
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

/// The per-point summary as a table (one row per study and grid point): the
/// columns of `results/<name>.csv`, and of the baseline (a selection).
pub fn summary_frame(experiment: &Experiment, analyses: &[StudyAnalysis]) -> Table {
    let mut study = Vec::new();
    let mut point = Vec::new();
    let mut swept = Vec::new();
    let mut worst = Vec::new();
    let mut cols: [Vec<f64>; 12] = Default::default();
    for (s, a) in experiment.studies.iter().zip(analyses) {
        for p in &a.points {
            study.push(s.name.clone());
            point.push(p.point as u64);
            swept.push(point_key(&p.swept));
            worst.push(
                p.worst_case_at
                    .as_ref()
                    .map_or(String::new(), |(k, v)| point_key(&[(k.clone(), *v)])),
            );
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
                p.reference,
            ];
            for (c, v) in cols.iter_mut().zip(vals) {
                c.push(v);
            }
        }
    }
    let names = [
        "count",
        "failed",
        "mean",
        "se",
        "ci_low",
        "ci_high",
        "median",
        "q10",
        "q90",
        "theory",
        "bound",
        "reference",
    ];
    // Counts are written as floats (`20.0`), as the committed files have them.
    let mut table = Table::new()
        .with("study", Column::Text(study))
        .with("point", Column::UInt(point))
        .with("swept", Column::Text(swept));
    for (name, c) in names.iter().zip(cols) {
        table.push(name, Column::Float(c));
    }
    table.with("worst_case_at", Column::Text(worst))
}

/// Writes the per-point summary CSV.
pub fn write_csv(path: &Path, experiment: &Experiment, analyses: &[StudyAnalysis]) -> Result<()> {
    summary_frame(experiment, analyses).write_csv(path)
}
