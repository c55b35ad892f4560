//! Reports: `results/<name>.md` (readable verdict and per-point tables, the
//! headline table and the paper's tables) and `results/<name>.csv` (the
//! per-point summary of [`crate::summary`] or the headline table, written by
//! [`crate::csv`]). This module only renders: the rows it writes come from
//! [`crate::analyze`], [`crate::headline`], [`crate::paper_tables`] and
//! [`crate::summary`], none of which imports it.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::analyze::{StudyAnalysis, THEORY_MATCH_FAMILY_ALPHA};
use crate::csv::{Column, Table};
use crate::format::{describe_values, sig};
use crate::headline::{headline_rows, HeadlineRow};
use crate::paper_tables::paper_tables;
use crate::summary::summary_frame;
use crate::validate::Experiment;
use crate::verdict::Verdict;

/// What a report says of a study with no cell in the run's results: a
/// study that joined the spec after the run (a profile that selects it, such
/// as menart's `t4-vs-t1`, holds its cells, and the claims ledger reads them
/// there), or a run stopped before it. "Interrupted run?" alone misled: 50
/// studies of the five papers' committed default reports are the first kind.
const NOT_IN_THIS_RUN: &str = "no cell of this study is in this run's results (it joined the spec after the run, or the run stopped before it; a profile that selects it may hold its cells, see the claims ledger's sources)";

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

/// A verdict as a Markdown cell: contradicted in bold, so it stands out.
pub fn verdict_cell(v: Verdict) -> String {
    match v {
        Verdict::Contradicted => format!("**{v}**"),
        v => v.to_string(),
    }
}

/// The second estimator and the fit's diagnostics of a slope: the OLS slope
/// with its CI half-width, chi²/df of the weighted fit and the curvature
/// test's p-value ("–" where not defined).
fn fit_diagnostics(s: &crate::analyze::SlopeResult) -> String {
    let num = |x: f64| if x.is_finite() { sig(x) } else { "–".into() };
    let ols = &s.fit.ols;
    let ols = if ols.fitted.is_finite() {
        format!("{:+.3} ± {:.3}", ols.fitted, ols.ci_half_width)
    } else {
        "–".into()
    };
    format!("{ols} · {} · {}", num(s.chi2_df), num(s.curvature_p))
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
    out.push_str("| study | check | theory | theory-curve slope | measured | OLS · χ²/df · curvature p | fit window | points | verdict | why | regression |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (i, (study, a)) in experiment.studies.iter().zip(analyses).enumerate() {
        let regression = regression_cell(regressions.get(i).copied().flatten());
        if a.points.is_empty() && a.missing_cells > 0 {
            let _ = writeln!(
                out,
                "| {} | – | – | – | – | – | – | 0 | {} | {NOT_IN_THIS_RUN} | {regression} |",
                study.name,
                verdict_cell(Verdict::NotMeasured),
            );
            continue;
        }
        for s in &a.slopes {
            let at = if s.at.is_empty() {
                String::new()
            } else {
                format!(" at {}", describe_values(&s.at))
            };
            let _ = writeln!(
                out,
                "| {} | slope in {}{at} | {} | {} | {:+.3} ± {:.3} | {} | [{}, {}] | {} | {} | {} | {regression} |",
                study.name,
                s.param,
                s.rule.describe(s.theory_slope, s.tolerance),
                if s.theory_curve_slope.is_finite() { format!("{:+.3}", s.theory_curve_slope) } else { "–".into() },
                s.fitted,
                s.ci_half_width,
                fit_diagnostics(s),
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
                "| {} | {check} | {theory} | – | {} | – | – | {} | {} | {} | {regression} |",
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
                "| {} | – | – | – | – | – | – | {} | {} | the study declares no expectation | {regression} |",
                study.name,
                a.points.len(),
                verdict_cell(Verdict::NotMeasured),
            );
        }
    }
    out
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

/// The paper's tables ([`crate::paper_tables`]) as Markdown sections, one per
/// table; empty when no study declares a table row.
pub fn paper_tables_markdown(experiment: &Experiment, analyses: &[StudyAnalysis]) -> String {
    let mut out = String::new();
    for table in paper_tables(experiment) {
        let _ = writeln!(out, "\n### {}\n", table.name);
        out.push_str("| class | result | claimed (paper) | study | algorithm | measured slope ± 95% CI (theory) | max mean/bound | verdict |\n");
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for &i in &table.studies {
            let (Some(study), Some(a)) = (experiment.studies.get(i), analyses.get(i)) else {
                continue;
            };
            let Some(p) = study.paper.as_ref() else {
                continue;
            };
            let slopes = if a.slopes.is_empty() {
                "–".to_string()
            } else {
                a.slopes
                    .iter()
                    .map(|s| {
                        let at = if s.at.is_empty() {
                            String::new()
                        } else {
                            format!(" at {}", describe_values(&s.at))
                        };
                        format!(
                            "{}: {:+.2} ± {:.2} ({:+.2}){at}",
                            s.param, s.fitted, s.ci_half_width, s.theory_slope
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | `{}` | {} | {} | {} |",
                p.class,
                p.result,
                p.claimed,
                study.name,
                study.algorithm.name,
                slopes,
                sig(a.max_bound_ratio),
                verdict_cell(a.verdict())
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
    let headline = headline_markdown(&headline_rows(experiment, analyses));
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
    let tables = paper_tables_markdown(experiment, analyses);
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
        if a.points.is_empty() && a.missing_cells > 0 {
            let _ = writeln!(
                md,
                "\n{}: all {} planned cells.",
                NOT_IN_THIS_RUN, a.missing_cells
            );
        } else if a.missing_cells > 0 {
            let _ = writeln!(
                md,
                "\n{} planned cells are missing (the study's grid grew after the run, or the run stopped before them).",
                a.missing_cells
            );
        }
    }
    std::fs::write(path, md).with_context(|| format!("writing {}", path.display()))
}

/// Writes the per-point summary CSV.
pub fn write_csv(path: &Path, experiment: &Experiment, analyses: &[StudyAnalysis]) -> Result<()> {
    summary_frame(experiment, analyses).write_csv(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::judge_study;

    #[test]
    fn a_study_with_no_cell_in_the_run_says_so_not_that_it_declares_nothing() {
        let e = crate::validate::committed_experiment("table1.toml", Some("quick"));
        let study = &e.studies[0];
        // No point at all, 60 planned cells missing: the study is not in this
        // run (it joined the spec later, or the run stopped before it).
        let absent = judge_study(study, Vec::new(), Vec::new(), 0, 60);
        let one = Experiment {
            studies: vec![study.clone()],
            ..e.clone()
        };
        let table = verdict_table(&one, std::slice::from_ref(&absent), &[None]);
        assert!(table.contains(NOT_IN_THIS_RUN), "{table}");
        assert!(!table.contains("declares no expectation"), "{table}");
        assert!(!table.contains("confirmed"), "{table}");
        // The analysis itself claims nothing either (the theory match read
        // "confirmed: all 0 means within their CI" before).
        assert!(absent
            .judgements()
            .iter()
            .all(|(_, j)| j.verdict == Verdict::NotMeasured));
    }
}
