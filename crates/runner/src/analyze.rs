//! Analysis: per-grid-point summaries (with polars), log-log slope fits and
//! verdicts against each study's expectations.

use std::collections::BTreeMap;

use anyhow::Result;
use polars::prelude::*;

use crate::plan::Plan;
use crate::stats::{fit_loglog, summarize, t_quantile};
use crate::store::CellRecord;
use crate::validate::{Experiment, Study};

/// Family-wise false-alarm rate of a study's `match_theory` check (Bonferroni
/// over its grid points).
pub const THEORY_MATCH_FAMILY_ALPHA: f64 = 0.01;

/// Summary of one grid point.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSummary {
    /// Grid point index.
    pub point: usize,
    /// Swept values.
    pub swept: Vec<(String, f64)>,
    /// Successful repetitions.
    pub count: usize,
    /// Failed repetitions.
    pub failed: usize,
    /// Mean of the metric.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// 10% quantile.
    pub q10: f64,
    /// 90% quantile.
    pub q90: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// 95% CI of the mean, lower end.
    pub ci_low: f64,
    /// 95% CI of the mean, upper end.
    pub ci_high: f64,
    /// Exact expected metric (NaN if unknown).
    pub theory: f64,
    /// Theorem bound (NaN if none).
    pub bound: f64,
    /// Comparison curve (NaN if none).
    pub reference: f64,
    /// For a worst-case study (`worst_case_over`), the maximized parameter and
    /// the value at which the largest mean was measured.
    pub worst_case_at: Option<(String, f64)>,
}

impl PointSummary {
    /// Value of swept parameter `name`.
    pub fn swept_value(&self, name: &str) -> Option<f64> {
        self.swept.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
}

/// One fitted slope.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopeResult {
    /// Swept parameter.
    pub param: String,
    /// Values of the other swept parameters this fit holds fixed.
    pub at: Vec<(String, f64)>,
    /// Declared theory slope.
    pub theory_slope: f64,
    /// Tolerance.
    pub tolerance: f64,
    /// Which deviations fail.
    pub side: crate::spec::SlopeSide,
    /// Fit window.
    pub window: (f64, f64),
    /// Slope of the exact theory curve itself on the same points (NaN if unknown).
    pub theory_curve_slope: f64,
    /// Fitted slope (NaN if the fit failed).
    pub fitted: f64,
    /// Fitted intercept.
    pub intercept: f64,
    /// 95% CI half-width.
    pub ci_half_width: f64,
    /// Points inside the window.
    pub points: usize,
    /// Whether the fitted slope is within tolerance.
    pub pass: bool,
}

/// Analysis of one study.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyAnalysis {
    /// Study name.
    pub study: String,
    /// Per-point summaries, in grid order.
    pub points: Vec<PointSummary>,
    /// Slope fits.
    pub slopes: Vec<SlopeResult>,
    /// Largest mean/bound ratio.
    pub max_bound_ratio: f64,
    /// `Some(pass)` when the study requires means under the bound.
    pub bound_check: Option<bool>,
    /// `Some(points not above)` when the study requires means above the
    /// reference curve in a window: the points whose CI does not clear it.
    pub reference_failures: Option<Vec<usize>>,
    /// `Some(points outside)` when the study requires a theory match.
    pub theory_mismatches: Option<Vec<usize>>,
    /// Per-point CI multiplier used for the theory match.
    pub theory_match_quantile: f64,
    /// Failed cells with their messages (first few).
    pub failures: Vec<String>,
    /// Number of failed cells.
    pub failed_cells: usize,
    /// Cells planned but missing from the results.
    pub missing_cells: usize,
}

impl StudyAnalysis {
    /// Whether every expectation holds and no cell failed or is missing.
    pub fn pass(&self) -> bool {
        self.slopes.iter().all(|s| s.pass)
            && self.bound_check.unwrap_or(true)
            && self
                .reference_failures
                .as_ref()
                .is_none_or(|m| m.is_empty())
            && self.theory_mismatches.as_ref().is_none_or(|m| m.is_empty())
            && self.failed_cells == 0
            && self.missing_cells == 0
    }
}

/// Analyzes every study of `experiment` from its stored rows.
pub fn analyze(
    experiment: &Experiment,
    plan: &Plan,
    records: &[CellRecord],
) -> Result<Vec<StudyAnalysis>> {
    experiment
        .studies
        .iter()
        .enumerate()
        .map(|(s, study)| {
            let rows: Vec<&CellRecord> = records.iter().filter(|r| r.study == s).collect();
            analyze_study(study, &plan.points[s], &rows)
        })
        .collect()
}

fn point_table(rows: &[&CellRecord]) -> Result<DataFrame> {
    let ok: Vec<&&CellRecord> = rows.iter().filter(|r| r.ok()).collect();
    let df = df!(
        "point" => ok.iter().map(|r| r.point as u64).collect::<Vec<u64>>(),
        "metric" => ok.iter().map(|r| r.metric).collect::<Vec<f64>>(),
        "theory" => ok.iter().map(|r| r.theory).collect::<Vec<f64>>(),
        "bound" => ok.iter().map(|r| r.bound).collect::<Vec<f64>>(),
        "reference" => ok.iter().map(|r| r.reference).collect::<Vec<f64>>(),
    )?;
    let out = df
        .lazy()
        .group_by([col("point")])
        .agg([
            col("metric").mean().alias("mean"),
            col("metric").median().alias("median"),
            col("metric")
                .quantile(lit(0.1), QuantileMethod::Linear)
                .alias("q10"),
            col("metric")
                .quantile(lit(0.9), QuantileMethod::Linear)
                .alias("q90"),
            col("metric").std(1).alias("std"),
            col("metric").count().alias("count"),
            col("theory").mean().alias("theory"),
            col("bound").mean().alias("bound"),
            col("reference").mean().alias("reference"),
        ])
        .sort(["point"], Default::default())
        .collect()?;
    Ok(out)
}

fn column_f64(df: &DataFrame, name: &str) -> Result<Vec<f64>> {
    let s = df.column(name)?.cast(&DataType::Float64)?;
    let ca = s.f64()?;
    Ok((0..ca.len())
        .map(|i| ca.get(i).unwrap_or(f64::NAN))
        .collect())
}

fn analyze_study(
    study: &Study,
    points: &[crate::plan::GridPoint],
    rows: &[&CellRecord],
) -> Result<StudyAnalysis> {
    let table = point_table(rows)?;
    let ids = column_f64(&table, "point")?;
    let cols: BTreeMap<&str, Vec<f64>> = [
        "mean",
        "median",
        "q10",
        "q90",
        "std",
        "count",
        "theory",
        "bound",
        "reference",
    ]
    .into_iter()
    .map(|c| column_f64(&table, c).map(|v| (c, v)))
    .collect::<Result<_>>()?;
    let by_point: BTreeMap<usize, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, p)| (*p as usize, i))
        .collect();
    let mut failed = vec![0usize; points.len()];
    let mut failures = Vec::new();
    for r in rows.iter().filter(|r| !r.ok()) {
        failed[r.point] += 1;
        if failures.len() < 5 {
            failures.push(format!(
                "grid point {} repetition {}: {}",
                r.point, r.repetition, r.error
            ));
        }
    }
    let summaries: Vec<PointSummary> = points
        .iter()
        .map(|p| {
            let get = |c: &str| by_point.get(&p.index).map_or(f64::NAN, |&i| cols[c][i]);
            let count = get("count");
            let count = if count.is_nan() { 0 } else { count as usize };
            let s = summarize(count, get("mean"), get("std"));
            PointSummary {
                point: p.index,
                swept: p.swept.clone(),
                count,
                failed: failed[p.index],
                mean: s.mean,
                median: get("median"),
                q10: get("q10"),
                q90: get("q90"),
                se: s.se,
                ci_low: s.mean - s.ci_half_width,
                ci_high: s.mean + s.ci_half_width,
                theory: get("theory"),
                bound: get("bound"),
                reference: get("reference"),
                worst_case_at: None,
            }
        })
        .collect();
    // Bound and theory checks cover every grid point; slopes, figures and the
    // baseline see the worst case over `worst_case_over` when it is set.
    let every_point = summaries.clone();
    let summaries = match &study.worst_case_over {
        Some(axis) => worst_case(&summaries, axis),
        None => summaries,
    };

    let slopes = study
        .slopes
        .iter()
        .flat_map(|check| {
            fit_groups(&summaries, &check.param)
                .into_iter()
                .map(move |(at, members)| {
                    let inside: Vec<&PointSummary> = members
                        .into_iter()
                        .filter(|p| {
                            let x = p.swept_value(&check.param).unwrap_or(f64::NAN);
                            crate::validate::in_window(x, check.window)
                        })
                        .collect();
                    let xs: Vec<f64> = inside
                        .iter()
                        .map(|p| p.swept_value(&check.param).unwrap_or(f64::NAN))
                        .collect();
                    let means: Vec<f64> = inside.iter().map(|p| p.mean).collect();
                    let ses: Vec<f64> = inside.iter().map(|p| p.se).collect();
                    let theory: Vec<f64> = inside.iter().map(|p| p.theory).collect();
                    let fit = fit_loglog(&xs, &means, &ses);
                    let theory_fit = fit_loglog(&xs, &theory, &vec![0.0; xs.len()]);
                    let fitted = fit.map_or(f64::NAN, |f| f.slope);
                    SlopeResult {
                        param: check.param.clone(),
                        at,
                        theory_slope: check.slope,
                        tolerance: check.tolerance,
                        side: check.side,
                        window: check.window,
                        theory_curve_slope: theory_fit.map_or(f64::NAN, |f| f.slope),
                        fitted,
                        intercept: fit.map_or(f64::NAN, |f| f.intercept),
                        ci_half_width: fit.map_or(f64::NAN, |f| f.ci_half_width),
                        points: xs.len(),
                        pass: check.side.admits(fitted, check.slope, check.tolerance),
                    }
                })
        })
        .collect();

    let max_bound_ratio = every_point
        .iter()
        .map(|p| p.mean / p.bound)
        .filter(|r| r.is_finite())
        .fold(f64::NAN, f64::max);
    let bound_check = study.below_bound.then(|| {
        every_point
            .iter()
            .all(|p| p.bound.is_finite() && p.mean <= p.bound)
    });
    let reference_failures = study.above_reference.map(|window| {
        summaries
            .iter()
            .filter(|p| {
                p.swept
                    .first()
                    .is_some_and(|(_, x)| crate::validate::in_window(*x, window))
            })
            .filter(|p| !(p.reference.is_finite() && p.ci_low > p.reference))
            .map(|p| p.point)
            .collect()
    });
    let k = every_point.len().max(1) as f64;
    let reps = study.repetitions.max(2) as f64;
    let quantile = t_quantile(THEORY_MATCH_FAMILY_ALPHA / k, reps - 1.0);
    let theory_mismatches = study.match_theory.then(|| {
        every_point
            .iter()
            .filter(|p| !(p.theory.is_finite() && (p.mean - p.theory).abs() <= quantile * p.se))
            .map(|p| p.point)
            .collect()
    });
    let planned = points.len() * study.repetitions;
    Ok(StudyAnalysis {
        study: study.name.clone(),
        points: summaries,
        slopes,
        max_bound_ratio,
        bound_check,
        reference_failures,
        theory_mismatches,
        theory_match_quantile: quantile,
        failures,
        failed_cells: failed.iter().sum(),
        missing_cells: planned.saturating_sub(rows.len()),
    })
}

/// For every combination of the swept values other than `axis`, the point
/// with the largest mean (the worst case over `axis`), with `axis` removed
/// from its swept values and recorded in [`PointSummary::worst_case_at`].
/// Points without a finite mean are skipped; the maximum of noisy means is
/// biased upwards by at most the spread of their CIs, which the report shows.
pub fn worst_case(points: &[PointSummary], axis: &str) -> Vec<PointSummary> {
    fit_groups(points, axis)
        .into_iter()
        .filter_map(|(at, members)| {
            let worst = members
                .into_iter()
                .filter(|p| p.mean.is_finite())
                .max_by(|a, b| a.mean.total_cmp(&b.mean))?;
            let value = worst.swept_value(axis).unwrap_or(f64::NAN);
            Some(PointSummary {
                swept: at,
                worst_case_at: Some((axis.to_string(), value)),
                ..worst.clone()
            })
        })
        .collect()
}

/// Points that share the values of every swept parameter but one, with those values.
pub type FitGroup<'a> = (Vec<(String, f64)>, Vec<&'a PointSummary>);

/// Groups points by the values of every swept parameter other than `param`.
pub fn fit_groups<'a>(points: &'a [PointSummary], param: &str) -> Vec<FitGroup<'a>> {
    let mut groups: Vec<FitGroup<'a>> = Vec::new();
    for p in points {
        let at: Vec<(String, f64)> = p
            .swept
            .iter()
            .filter(|(k, _)| k != param)
            .cloned()
            .collect();
        match groups.iter_mut().find(|(a, _)| *a == at) {
            Some((_, members)) => members.push(p),
            None => groups.push((at, vec![p])),
        }
    }
    groups
}
