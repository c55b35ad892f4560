//! Analysis: per-grid-point summaries, log-log slope fits and verdicts
//! against each study's expectations.

use std::collections::BTreeMap;

use crate::plan::Plan;
use crate::stats::{
    curvature_test, fit_loglog, fit_loglog_ols, sample_mean, sample_median, sample_quantile,
    sample_std, summarize, t_quantile,
};
use crate::store::CellRecord;
use crate::validate::{Experiment, Study};
use crate::verdict::{
    combine, judge_bound, judge_fit, judge_reference, judge_theory_match, power_law_crossing,
    BoundPoint, Judgement, ReferencePoint, SlopeEvidence, SlopeFit, SlopeRule, Verdict,
    TRIVIAL_FRACTION,
};
use anyhow::Result;

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
    /// The rule the verdict was judged by: the declared `side`, or the
    /// upper-bound rule of the ledger claims the window measures
    /// ([`crate::claims::study_rule`]).
    pub rule: SlopeRule,
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
    /// Whether the fitted point estimate is within tolerance (the old,
    /// CI-blind criterion; verdicts use [`SlopeResult::judgement`]).
    pub pass: bool,
    /// The verdict on the whole 95% CI, with its reason.
    pub judgement: Judgement,
    /// Why the expectation was revised after data existed, if it was.
    pub revised: Option<String>,
    /// Everything the verdict was judged on (both estimators, the theorem
    /// curve's slope, regime notes), for judging it again under a claim's
    /// own rule ([`crate::verdict::judge_fit`]).
    pub fit: SlopeFit,
    /// chi²/(k-2) of the weighted fit (NaN without known errors).
    pub chi2_df: f64,
    /// Two-sided p-value of a quadratic term in log-log (NaN with fewer
    /// than 4 points).
    pub curvature_p: f64,
}

/// The verdict of one fitted slope, on its own CI (see [`crate::verdict`]).
pub fn slope_verdict(s: &SlopeResult) -> Verdict {
    s.judgement.verdict
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
    /// Per-point CI multiplier used for the theory match.
    pub theory_match_quantile: f64,
    /// Failed cells with their messages (first few).
    pub failures: Vec<String>,
    /// Number of failed cells.
    pub failed_cells: usize,
    /// Cells planned but missing from the results.
    pub missing_cells: usize,
    /// Verdict of the bound expectation (`below_bound`).
    pub bound_judgement: Option<Judgement>,
    /// Verdict of the exact-expectation match (`match_theory`).
    pub theory_judgement: Option<Judgement>,
    /// Verdict of the reference expectation (`above_reference`).
    pub reference_judgement: Option<Judgement>,
}

impl StudyAnalysis {
    /// Every judged expectation of the study, labelled (`slope in n at ...`,
    /// `bound`, `theory match`, `reference`, `cells`).
    pub fn judgements(&self) -> Vec<(String, &Judgement)> {
        let mut out: Vec<(String, &Judgement)> = self
            .slopes
            .iter()
            .map(|s| {
                let at = if s.at.is_empty() {
                    String::new()
                } else {
                    format!(" at {}", crate::format::describe_values(&s.at))
                };
                // The window tells two regimes on one parameter apart.
                let window = format!(
                    " on [{}, {}]",
                    crate::format::sig(s.window.0),
                    crate::format::sig(s.window.1)
                );
                (format!("slope in {}{at}{window}", s.param), &s.judgement)
            })
            .collect();
        for (label, j) in [
            ("bound", &self.bound_judgement),
            ("theory match", &self.theory_judgement),
            ("reference", &self.reference_judgement),
        ] {
            if let Some(j) = j {
                out.push((label.to_string(), j));
            }
        }
        out
    }

    /// The study's verdict: every judged expectation combined
    /// ([`crate::verdict::combine`]); inconclusive at best when cells
    /// failed or are missing.
    pub fn verdict(&self) -> Verdict {
        let v = combine(self.judgements().into_iter().map(|(_, j)| j));
        if (self.failed_cells > 0 || self.missing_cells > 0) && v == Verdict::Confirmed {
            Verdict::Inconclusive
        } else {
            v
        }
    }
}

/// Analyzes every study of `experiment` from its stored rows.
pub fn analyze(
    experiment: &Experiment,
    plan: &Plan,
    records: &[CellRecord],
) -> Result<Vec<StudyAnalysis>> {
    Ok(experiment
        .studies
        .iter()
        .enumerate()
        .map(|(s, study)| {
            let rows: Vec<&CellRecord> = records.iter().filter(|r| r.study == s).collect();
            analyze_study(study, &plan.points[s], &rows)
        })
        .collect())
}

/// Sample statistics of one grid point's successful cells.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PointStats {
    count: usize,
    mean: f64,
    median: f64,
    q10: f64,
    q90: f64,
    std: f64,
    theory: f64,
    bound: f64,
    reference: f64,
}

/// Per grid point (only those with a successful cell), the statistics of its
/// successful cells, each sample in row order (see [`crate::stats`] on why
/// the order and formulas are fixed). The theory, bound and reference are
/// means over the cells too: equal in every cell of a point, or NaN where
/// any cell lacks them.
fn point_table(rows: &[&CellRecord]) -> BTreeMap<usize, PointStats> {
    let mut groups: BTreeMap<usize, Vec<&CellRecord>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.ok()) {
        groups.entry(r.point).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|(point, cells)| {
            let column = |f: fn(&CellRecord) -> f64| cells.iter().map(|r| f(r)).collect::<Vec<_>>();
            let metric = column(|r| r.metric);
            let stats = PointStats {
                count: metric.len(),
                mean: sample_mean(&metric),
                median: sample_median(&metric),
                q10: sample_quantile(&metric, 0.1),
                q90: sample_quantile(&metric, 0.9),
                std: sample_std(&metric),
                theory: sample_mean(&column(|r| r.theory)),
                bound: sample_mean(&column(|r| r.bound)),
                reference: sample_mean(&column(|r| r.reference)),
            };
            (point, stats)
        })
        .collect()
}

fn analyze_study(
    study: &Study,
    points: &[crate::plan::GridPoint],
    rows: &[&CellRecord],
) -> StudyAnalysis {
    let table = point_table(rows);
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
            let st = table.get(&p.index);
            let get = |f: fn(&PointStats) -> f64| st.map_or(f64::NAN, f);
            let count = st.map_or(0, |s| s.count);
            let s = summarize(count, get(|s| s.mean), get(|s| s.std));
            PointSummary {
                point: p.index,
                swept: p.swept.clone(),
                count,
                failed: failed[p.index],
                mean: s.mean,
                median: get(|s| s.median),
                q10: get(|s| s.q10),
                q90: get(|s| s.q90),
                se: s.se,
                ci_low: s.mean - s.ci_half_width,
                ci_high: s.mean + s.ci_half_width,
                theory: get(|s| s.theory),
                bound: get(|s| s.bound),
                reference: get(|s| s.reference),
                worst_case_at: None,
            }
        })
        .collect();
    let planned = points.len() * study.repetitions;
    judge_study(
        study,
        summaries,
        failures,
        failed.iter().sum(),
        planned.saturating_sub(rows.len()),
    )
}

/// Fits and judges a study from its per-grid-point summaries (every grid
/// point, before any worst case is taken): the slopes, bound, theory-match
/// and reference expectations, each with its verdict. Used on freshly
/// stored cells and on committed summaries alike (`--from-summary`).
pub fn judge_study(
    study: &Study,
    every_point: Vec<PointSummary>,
    failures: Vec<String>,
    failed_cells: usize,
    missing_cells: usize,
) -> StudyAnalysis {
    // Bound and theory checks cover every grid point; slopes, figures and the
    // baseline see the worst case over `worst_case_over` when it is set.
    let summaries = match &study.worst_case_over {
        Some(axis) => worst_case(&every_point, axis),
        None => every_point.clone(),
    };
    let trivial = study.trivial_max;
    let slopes: Vec<SlopeResult> = study
        .slopes
        .iter()
        .flat_map(|check| {
            fit_groups(&summaries, &check.param)
                .into_iter()
                .map(move |(at, members)| fit_slope(study, check, at, &members, trivial))
        })
        .collect();

    let max_bound_ratio = every_point
        .iter()
        .map(|p| p.mean / p.bound)
        .filter(|r| r.is_finite())
        .fold(f64::NAN, f64::max);
    let mut bound_judgement = study.below_bound.then(|| {
        let pts: Vec<BoundPoint> = every_point
            .iter()
            .map(|p| BoundPoint {
                mean: p.mean,
                ci_half_width: p.ci_high - p.mean,
                bound: p.bound,
            })
            .collect();
        let onset = bound_onset(study, &every_point);
        judge_bound(&pts, trivial, &onset).with_note(revised_note(study))
    });
    let in_reference_window = |p: &&PointSummary, window| {
        p.swept
            .first()
            .is_some_and(|(_, x)| crate::validate::in_window(*x, window))
    };
    let mut reference_judgement = study.above_reference.map(|window| {
        let pts: Vec<ReferencePoint> = summaries
            .iter()
            .filter(|p| in_reference_window(p, window))
            .map(|p| ReferencePoint {
                ci_low: p.ci_low,
                ci_high: p.ci_high,
                reference: p.reference,
            })
            .collect();
        judge_reference(&pts).with_note(revised_note(study))
    });
    // A point with no finished cell has no mean to compare, so it is left
    // out; with none left the check is not measured (it read "confirmed:
    // all 0 means within their CI" for a study absent from the run).
    let measured: Vec<&PointSummary> = every_point.iter().filter(|p| p.count > 0).collect();
    let k = measured.len().max(1) as f64;
    let reps = study.repetitions.max(2) as f64;
    let quantile = t_quantile(THEORY_MATCH_FAMILY_ALPHA / k, reps - 1.0);
    let mut theory_judgement = study.match_theory.then(|| {
        let misses = measured
            .iter()
            .filter(|p| !(p.theory.is_finite() && (p.mean - p.theory).abs() <= quantile * p.se))
            .count();
        judge_theory_match(measured.len(), misses, THEORY_MATCH_FAMILY_ALPHA)
            .with_note(revised_note(study))
    });
    if let Some(why) = &study.regime_not_reached {
        for j in [
            &mut bound_judgement,
            &mut theory_judgement,
            &mut reference_judgement,
        ]
        .into_iter()
        .flatten()
        {
            *j = j.clone().weakened(why, "check");
        }
    }
    StudyAnalysis {
        study: study.name.clone(),
        points: summaries,
        slopes,
        max_bound_ratio,
        theory_match_quantile: quantile,
        failures,
        failed_cells,
        missing_cells,
        bound_judgement,
        theory_judgement,
        reference_judgement,
    }
}

fn revised_note(study: &Study) -> &str {
    study.revised.as_deref().unwrap_or("")
}

/// Fits one slope expectation on one group of points and judges it.
fn fit_slope(
    study: &Study,
    check: &crate::validate::SlopeCheck,
    at: Vec<(String, f64)>,
    members: &[&PointSummary],
    trivial: Option<f64>,
) -> SlopeResult {
    let x_of = |p: &PointSummary| p.swept_value(&check.param).unwrap_or(f64::NAN);
    let inside: Vec<&PointSummary> = members
        .iter()
        .copied()
        .filter(|p| crate::validate::in_window(x_of(p), check.window))
        .collect();
    let xs: Vec<f64> = inside.iter().map(|p| x_of(p)).collect();
    let means: Vec<f64> = inside.iter().map(|p| p.mean).collect();
    let ses: Vec<f64> = inside.iter().map(|p| p.se).collect();
    let theory: Vec<f64> = inside.iter().map(|p| p.theory).collect();
    let fit = fit_loglog(&xs, &means, &ses);
    let ols = fit_loglog_ols(&xs, &means);
    // The theorem's own curve over the same points: the exact expectation
    // where it is known, else the bound.
    let theory_fit = fit_loglog(&xs, &theory, &vec![0.0; xs.len()]).or_else(|| {
        let bound: Vec<f64> = inside.iter().map(|p| p.bound).collect();
        fit_loglog(&xs, &bound, &vec![0.0; xs.len()])
    });
    let repetitions = inside
        .iter()
        .map(|p| p.count)
        .min()
        .unwrap_or(study.repetitions);
    // Both estimators carry the weighted fit's chi2/df: the misfit of the
    // same means to one power law, which no repetition count removes from
    // either CI (OLS has no error bars to measure it against).
    let misfit = fit.map_or(f64::NAN, |f| f.chi2_df);
    let evidence = |f: Option<crate::stats::LogLogFit>| SlopeEvidence {
        chi2_df: misfit,
        fitted: f.map_or(f64::NAN, |f| f.slope),
        ci_half_width: f.map_or(f64::NAN, |f| f.ci_half_width),
        points: xs.len(),
        repetitions,
    };
    let at_trivial = trivial.map_or(0, |t| {
        inside
            .iter()
            .filter(|p| p.mean >= TRIVIAL_FRACTION * t)
            .count()
    });
    let note = regime_note(&check.param, &inside, members, trivial, &x_of);
    // Half the window or more at the trivial value: the fit measures the
    // ceiling, not the algorithm, whichever way it points.
    let at_ceiling = at_trivial > 0 && 2 * at_trivial >= inside.len();
    let slope_fit = SlopeFit {
        weighted: evidence(fit),
        ols: evidence(ols),
        theory_curve_slope: theory_fit.map_or(f64::NAN, |f| f.slope),
        trivial: at_ceiling.then(|| note.clone()),
        regime_note: if at_ceiling { String::new() } else { note },
        regime_not_reached: study
            .regime_not_reached
            .iter()
            .chain(&check.regime_not_reached)
            .cloned()
            .collect(),
        revised: check.revised.clone(),
    };
    let rule = check
        .claim_rule
        .as_ref()
        .map_or(SlopeRule::Declared(check.side), |c| c.rule);
    let mut judgement = judge_fit(&slope_fit, rule, check.slope, check.tolerance);
    if let Some(c) = &check.claim_rule {
        // Say why the band is one-sided: the window measures upper bounds.
        judgement.reason = format!(
            "as the upper bound of {}: {}",
            c.claims.join(", "),
            judgement.reason
        );
    }
    let fitted = slope_fit.weighted.fitted;
    SlopeResult {
        param: check.param.clone(),
        at,
        theory_slope: check.slope,
        tolerance: check.tolerance,
        side: check.side,
        rule,
        window: check.window,
        theory_curve_slope: slope_fit.theory_curve_slope,
        fitted,
        intercept: fit.map_or(f64::NAN, |f| f.intercept),
        ci_half_width: slope_fit.weighted.ci_half_width,
        points: xs.len(),
        pass: check.side.admits(fitted, check.slope, check.tolerance),
        judgement,
        revised: check.revised.clone(),
        chi2_df: fit.map_or(f64::NAN, |f| f.chi2_df),
        curvature_p: curvature_test(&xs, &means, &ses).map_or(f64::NAN, |c| c.p_value),
        fit: slope_fit,
    }
}

/// "Regime not reached": the window's points whose mean sits at the trivial
/// value, and where the bound (else the theory curve) of the whole group
/// falls below the trivial maximum. Empty when nothing sits there.
fn regime_note(
    param: &str,
    inside: &[&PointSummary],
    members: &[&PointSummary],
    trivial: Option<f64>,
    x_of: &dyn Fn(&PointSummary) -> f64,
) -> String {
    let Some(t) = trivial else {
        return String::new();
    };
    let at_trivial: Vec<String> = inside
        .iter()
        .filter(|p| p.mean >= TRIVIAL_FRACTION * t)
        .map(|p| crate::format::sig(x_of(p)))
        .collect();
    if at_trivial.is_empty() {
        return String::new();
    }
    let mut note = format!(
        "regime not reached: the mean is at least {TRIVIAL_FRACTION} of the trivial value {t} at {param} = {}",
        at_trivial.join(", ")
    );
    note.push_str(&crossing_note(param, members, t, x_of));
    note
}

/// Where the bound (or, without one, the theory curve) of `members` falls
/// to the trivial maximum `t`, as a clause; empty when it cannot be said.
fn crossing_note(
    param: &str,
    members: &[&PointSummary],
    t: f64,
    x_of: &dyn Fn(&PointSummary) -> f64,
) -> String {
    let xs: Vec<f64> = members.iter().map(|p| x_of(p)).collect();
    let has = |f: fn(&PointSummary) -> f64| members.iter().any(|p| f(p).is_finite());
    let (name, curve): (&str, Vec<f64>) = if has(|p| p.bound) {
        ("bound", members.iter().map(|p| p.bound).collect())
    } else if has(|p| p.theory) {
        ("theory curve", members.iter().map(|p| p.theory).collect())
    } else {
        return String::new();
    };
    match power_law_crossing(&xs, &curve, t) {
        Some(x) => format!(
            "; the {name} reaches the trivial value {t} at {param} ≈ {} (power law through the grid)",
            crate::format::sig(crate::spec::round_significant(x, 3))
        ),
        None => String::new(),
    }
}

/// For a vacuous bound: where a single swept parameter's bound becomes
/// informative.
fn bound_onset(study: &Study, points: &[PointSummary]) -> String {
    let (Some(t), [axis]) = (study.trivial_max, study.axes.as_slice()) else {
        return String::new();
    };
    let members: Vec<&PointSummary> = points.iter().collect();
    let x_of = |p: &PointSummary| p.swept_value(&axis.name).unwrap_or(f64::NAN);
    crossing_note(&axis.name, &members, t, &x_of)
        .trim_start_matches("; ")
        .to_string()
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
