//! Builds one rate-vs-theory figure per study and swept parameter from the
//! analysis, and renders it with [`crate::plot`].

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::analyze::{fit_groups, StudyAnalysis};
use crate::plot::{render, Figure, PlotPoint, PlotSeries, SlopeFit};
use crate::report::describe_values;
use crate::validate::Experiment;

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

/// Renders every figure of the experiment into `dir`; returns the files written.
pub fn render_all(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (study, a) in experiment.studies.iter().zip(analyses) {
        for axis in &study.axes {
            let series = fit_groups(&a.points, &axis.name)
                .into_iter()
                .map(|(at, members)| {
                    let points: Vec<PlotPoint> = members
                        .iter()
                        .filter(|p| p.count > 0)
                        .map(|p| PlotPoint {
                            x: p.swept_value(&axis.name).unwrap_or(f64::NAN),
                            mean: p.mean,
                            ci_low: p.ci_low,
                            ci_high: p.ci_high,
                            theory: p.theory.is_finite().then_some(p.theory),
                            bound: p.bound.is_finite().then_some(p.bound),
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
                        .filter(|s| s.param == axis.name && s.at == at && s.fitted.is_finite())
                        .map(|s| SlopeFit {
                            slope: s.fitted,
                            ci_half_width: s.ci_half_width,
                            theory_slope: s.theory_slope,
                            window: s.window,
                            intercept: s.intercept,
                        })
                        .collect();
                    PlotSeries {
                        label: if at.is_empty() {
                            String::new()
                        } else {
                            describe_values(&at)
                        },
                        points,
                        fits,
                        theory_scale: theory_scale(&means, &theory),
                    }
                })
                .collect();
            let figure = Figure {
                title: study.title.clone(),
                x_label: axis.name.clone(),
                y_label: study.metric.replace('_', " "),
                series,
                bound_label: study.algorithm.bound_name.into(),
                theory_label: study.algorithm.theory_name.into(),
            };
            let stem = dir.join(format!("{}__{}", study.name, axis.name));
            written.extend(render(&figure, &stem)?);
        }
    }
    Ok(written)
}
