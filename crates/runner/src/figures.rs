//! Builds one rate-vs-theory figure per study and swept parameter from the
//! analysis, and the headline overview (one panel per row of
//! [`crate::headline`]), and renders them with [`crate::plot`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::analyze::{fit_groups, StudyAnalysis};
use crate::format::describe_values;
use crate::headline::headline_rows;
use crate::plot::{render, render_panels, Figure, PlotPoint, PlotSeries, SlopeFit};
use crate::validate::Experiment;

/// Columns of the overview figure's panel grid.
const OVERVIEW_COLUMNS: usize = 3;

/// Least-squares scale `c` of `c * theory` to the means in log space:
/// `ln c = mean(ln mean - ln theory)` over points where both are positive.
pub fn theory_scale(means: &[f64], theory: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = means
        .iter()
        .zip(theory)
        .filter(|(m, t)| **m > 0.0 && **t > 0.0 && m.is_finite() && t.is_finite())
        .map(|(m, t)| m.ln() - t.ln())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The series of one study along `axis`: one per combination of the other
/// swept values, labelled by them (prefixed by `prefix` when not empty).
pub(crate) fn study_series(a: &StudyAnalysis, axis: &str, prefix: &str) -> Vec<PlotSeries> {
    fit_groups(&a.points, axis)
        .into_iter()
        .map(|(at, members)| {
            let points: Vec<PlotPoint> = members
                .iter()
                .filter(|p| p.count > 0)
                .map(|p| PlotPoint {
                    x: p.swept_value(axis).unwrap_or(f64::NAN),
                    mean: p.mean,
                    ci_low: p.ci_low,
                    ci_high: p.ci_high,
                    theory: p.theory.is_finite().then_some(p.theory),
                    bound: p.bound.is_finite().then_some(p.bound),
                    reference: p.reference.is_finite().then_some(p.reference),
                })
                .collect();
            let means: Vec<f64> = points.iter().map(|p| p.mean).collect();
            let theory: Vec<f64> = points
                .iter()
                .map(|p| p.theory.unwrap_or(f64::NAN))
                .collect();
            let fits = a
                .slopes
                .iter()
                .filter(|s| s.param == axis && s.at == at && s.fitted.is_finite())
                .map(|s| SlopeFit {
                    slope: s.fitted,
                    ci_half_width: s.ci_half_width,
                    theory_slope: s.theory_slope,
                    window: s.window,
                    intercept: s.intercept,
                    verdict: s.judgement.verdict.name().to_string(),
                })
                .collect();
            let label = match (prefix.is_empty(), at.is_empty()) {
                (_, true) => prefix.to_string(),
                (true, false) => describe_values(&at),
                (false, false) => format!("{prefix}, {}", describe_values(&at)),
            };
            PlotSeries {
                label,
                points,
                fits,
                theory_scale: theory_scale(&means, &theory),
            }
        })
        .collect()
}

/// One name when every study agrees on it, else `fallback`.
fn common_name<'a>(names: impl Iterator<Item = &'a str>, fallback: &str) -> String {
    let names: BTreeSet<&str> = names.filter(|n| !n.is_empty()).collect();
    match names.len() {
        0 => String::new(),
        1 => names.into_iter().next().unwrap_or_default().to_string(),
        _ => fallback.to_string(),
    }
}

/// Renders every figure of the experiment into `dir`: one per study and swept
/// parameter, and one per combined figure (studies sharing `figure = "..."`,
/// drawn along their first swept parameter), plus the headline overview
/// (`overview.png`, see [`crate::headline`]) when studies declare headline
/// rows; returns the files written.
pub fn render_all(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (study, a) in experiment.studies.iter().zip(analyses) {
        for axis in study.plotted_axes() {
            let figure = Figure {
                title: study.title.clone(),
                x_label: axis.name.clone(),
                y_label: study.metric.replace('_', " "),
                series: study_series(a, &axis.name, ""),
                bound_label: study.algorithm.bound_name.into(),
                theory_label: study.algorithm.theory_name.into(),
                reference_label: study.algorithm.reference_name.into(),
            };
            let stem = dir.join(format!("{}__{}", study.name, axis.name));
            written.extend(render(&figure, &stem)?);
        }
    }
    let mut combined: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, study) in experiment.studies.iter().enumerate() {
        if let Some(f) = &study.figure {
            combined.entry(f.as_str()).or_default().push(i);
        }
    }
    for (name, members) in combined {
        let studies: Vec<_> = members.iter().map(|&i| &experiment.studies[i]).collect();
        let Some(axis) = studies[0].plotted_axes().next().map(|a| a.name.clone()) else {
            continue;
        };
        let series = members
            .iter()
            .flat_map(|&i| study_series(&analyses[i], &axis, &experiment.studies[i].label))
            .collect();
        let figure = Figure {
            title: experiment
                .figures
                .get(name)
                .cloned()
                .unwrap_or_else(|| name.to_string()),
            x_label: axis,
            y_label: common_name(studies.iter().map(|s| s.metric.as_str()), "metric")
                .replace('_', " "),
            series,
            bound_label: common_name(
                studies.iter().map(|s| s.algorithm.bound_name),
                "theorem bound",
            ),
            theory_label: common_name(studies.iter().map(|s| s.algorithm.theory_name), "theory"),
            reference_label: common_name(
                studies.iter().map(|s| s.algorithm.reference_name),
                "reference",
            ),
        };
        written.extend(render(&figure, &dir.join(name))?);
    }
    written.extend(render_overview(experiment, analyses, dir)?);
    Ok(written)
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
