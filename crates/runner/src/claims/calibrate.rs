//! Calibration of the slope rules: how often a *correct* claim is called
//! contradicted, and how often a claim off by 0.3 in its exponent is, with
//! the grid, repetitions and per-point noise of every real study window a
//! measured slope claim is judged on.
//!
//! For each window, the synthetic means follow an exact power law with the
//! committed means' relative standard errors: a mean is the true value times
//! `exp(r z - r²/2)` (`r` the point's se/mean, `z` standard normal: unbiased
//! and positive however wide the error), and its standard error is
//! re-estimated from a chi-square with `reps - 1` degrees of freedom, as a
//! sample's is. The fit and the verdict are exactly the ledger's
//! ([`judge_fit`]): both estimators, the 4-point rule, the claim's rule.
//! Upper bounds are judged as if their instance attained the rate (the
//! strictest rule, the only one that can contradict them by a slope).

use std::fmt::Write as _;
use std::path::PathBuf;

use rand::SeedableRng;
use rand_distr::{ChiSquared, Distribution, StandardNormal};

use crate::analyze::SlopeResult;
use crate::stats::{fit_loglog, fit_loglog_ols};
use crate::verdict::{judge_fit, SlopeEvidence, SlopeFit, SlopeRule, Verdict};

use super::evidence::Judged;
use super::spec::{ClaimFile, ClaimKind, Evidence};

/// How far off the exponent is for the power column.
pub const POWER_OFFSET: f64 = 0.3;

/// The calibration of one (claim, study window).
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationRow {
    /// Claim id.
    pub claim: String,
    /// `experiment:study`.
    pub study: String,
    /// The window and its points.
    pub points: usize,
    /// Repetitions per point.
    pub repetitions: usize,
    /// Median relative standard error of a point's mean.
    pub median_rel_se: f64,
    /// The rule judged.
    pub rule: SlopeRule,
    /// Fraction contradicted with the truth exactly at the claimed exponent.
    pub false_at_claim: f64,
    /// Fraction contradicted with the truth at the band edge that would
    /// contradict (the hardest correct claim).
    pub false_at_edge: f64,
    /// Fraction contradicted with the truth [`POWER_OFFSET`] beyond the
    /// claimed exponent on the worse side.
    pub power: f64,
    /// Fraction confirmed with the truth at the claimed exponent.
    pub confirmed_at_claim: f64,
}

/// The window of one committed fit: x, the relative se, the repetitions.
struct Window {
    x: Vec<f64>,
    rel: Vec<f64>,
    reps: usize,
}

fn window_of(a: &crate::analyze::StudyAnalysis, s: &SlopeResult) -> Option<Window> {
    let mut x = Vec::new();
    let mut rel = Vec::new();
    let mut reps = usize::MAX;
    for p in &a.points {
        if !s.at.iter().all(|(k, v)| p.swept_value(k) == Some(*v)) {
            continue;
        }
        let Some(v) = p.swept_value(&s.param) else {
            continue;
        };
        if !crate::validate::in_window(v, s.window) {
            continue;
        }
        if !(p.mean.is_finite() && p.mean > 0.0 && p.se.is_finite() && p.se >= 0.0) {
            return None;
        }
        x.push(v);
        rel.push(p.se / p.mean);
        reps = reps.min(p.count);
    }
    (x.len() >= 3 && reps >= 2 && reps != usize::MAX).then_some(Window { x, rel, reps })
}

/// The exponent that is worse than `slope` by `by` under `rule`.
fn worse(rule: SlopeRule, slope: f64, by: f64) -> f64 {
    match rule {
        SlopeRule::UpperBound {
            worse_is_larger: false,
            ..
        } => slope - by,
        _ => slope + by,
    }
}

fn simulate(w: &Window, truth: f64, rule: SlopeRule, slope: f64, tol: f64, seed: u64) -> Verdict {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let chi = ChiSquared::new((w.reps - 1) as f64).expect("reps >= 2");
    let df = (w.reps - 1) as f64;
    let mut means = Vec::with_capacity(w.x.len());
    let mut ses = Vec::with_capacity(w.x.len());
    for (x, r) in w.x.iter().zip(&w.rel) {
        let z: f64 = StandardNormal.sample(&mut rng);
        let m = x.powf(truth) * (r * z - r * r / 2.0).exp();
        means.push(m);
        ses.push(m * r * (chi.sample(&mut rng) / df).sqrt());
    }
    // As in the study analysis: both estimators carry the weighted chi2/df.
    let weighted = fit_loglog(&w.x, &means, &ses);
    let misfit = weighted.map_or(f64::NAN, |f| f.chi2_df);
    let evidence = |f: Option<crate::stats::LogLogFit>| SlopeEvidence {
        chi2_df: misfit,
        fitted: f.map_or(f64::NAN, |f| f.slope),
        ci_half_width: f.map_or(f64::NAN, |f| f.ci_half_width),
        points: w.x.len(),
        repetitions: w.reps,
    };
    let fit = SlopeFit {
        weighted: evidence(weighted),
        ols: evidence(fit_loglog_ols(&w.x, &means)),
        theory_curve_slope: f64::NAN,
        trivial: None,
        regime_note: String::new(),
        regime_not_reached: Vec::new(),
        revised: None,
    };
    judge_fit(&fit, rule, slope, tol).verdict
}

/// Calibrates every measured slope claim's windows over `seeds` seeds.
pub fn calibrate(
    claims: &[(PathBuf, ClaimFile)],
    judged: &[Judged],
    seeds: usize,
) -> Vec<CalibrationRow> {
    let mut rows = Vec::new();
    for (_, file) in claims {
        for c in file.claims.iter().filter(|c| {
            c.evidence == Evidence::Slope
                && c.not_measured.is_none()
                && c.kind != ClaimKind::Printed
        }) {
            for j in judged {
                let Some(analyses) = &j.analyses else {
                    continue;
                };
                for ((study, a), source) in
                    j.experiment.studies.iter().zip(analyses).zip(&j.sources)
                {
                    if !study.claims.contains(&c.id) {
                        continue;
                    }
                    for s in a
                        .slopes
                        .iter()
                        .filter(|s| Some(&s.param) == c.parameter.as_ref())
                    {
                        let (mut rule, slope) = c.slope_rule(&study.name, s.side, s.theory_slope);
                        if let SlopeRule::UpperBound {
                            worse_is_larger, ..
                        } = rule
                        {
                            rule = SlopeRule::UpperBound {
                                worse_is_larger,
                                attained: true,
                            };
                        }
                        if rule == SlopeRule::Declared(crate::spec::SlopeSide::Reported) {
                            continue;
                        }
                        let Some(w) = window_of(a, s) else { continue };
                        let tol = s.tolerance;
                        let rate = |truth: f64, v: Verdict, salt: u64| {
                            (0..seeds)
                                .filter(|i| {
                                    simulate(&w, truth, rule, slope, tol, salt ^ (*i as u64)) == v
                                })
                                .count() as f64
                                / seeds as f64
                        };
                        let mut rel = w.rel.clone();
                        rel.sort_by(f64::total_cmp);
                        rows.push(CalibrationRow {
                            claim: c.id.clone(),
                            study: format!("{source}:{}", study.name),
                            points: w.x.len(),
                            repetitions: w.reps,
                            median_rel_se: rel[rel.len() / 2],
                            rule,
                            false_at_claim: rate(slope, Verdict::Contradicted, 1 << 32),
                            false_at_edge: rate(
                                worse(rule, slope, tol),
                                Verdict::Contradicted,
                                2 << 32,
                            ),
                            power: rate(
                                worse(rule, slope, POWER_OFFSET),
                                Verdict::Contradicted,
                                3 << 32,
                            ),
                            confirmed_at_claim: rate(slope, Verdict::Confirmed, 1 << 32),
                        });
                    }
                }
            }
        }
    }
    rows
}

fn rule_name(rule: SlopeRule) -> &'static str {
    match rule {
        SlopeRule::UpperBound {
            worse_is_larger: true,
            ..
        } => "upper bound (larger worse)",
        SlopeRule::UpperBound { .. } => "upper bound (smaller worse)",
        SlopeRule::Declared(crate::spec::SlopeSide::Both) => "two-sided",
        SlopeRule::Declared(crate::spec::SlopeSide::AtMost) => "at most",
        SlopeRule::Declared(crate::spec::SlopeSide::AtLeast) => "at least",
        SlopeRule::Declared(crate::spec::SlopeSide::Reported) => "reported",
    }
}

/// The calibration as a Markdown table, with a summary line.
pub fn markdown(rows: &[CalibrationRow], seeds: usize) -> String {
    let mut md = String::new();
    let max = |f: fn(&CalibrationRow) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    let mut powers: Vec<f64> = rows.iter().map(|r| r.power).collect();
    powers.sort_by(f64::total_cmp);
    let median_power = powers.get(powers.len() / 2).copied().unwrap_or(f64::NAN);
    let _ = writeln!(
        md,
        "{} claim windows, {seeds} seeds each. False \"contradicted\": at most {:.1}% with the truth at the claimed exponent, at most {:.1}% with the truth at the contradicting band edge. Power to contradict an exponent {POWER_OFFSET} worse: median {:.0}%, {} of {} windows at least 80%.\n",
        rows.len(),
        100.0 * max(|r| r.false_at_claim),
        100.0 * max(|r| r.false_at_edge),
        100.0 * median_power,
        rows.iter().filter(|r| r.power >= 0.8).count(),
        rows.len()
    );
    md.push_str("| claim | study | rule | points | reps | median se/mean | false at claim | false at edge | confirmed at claim | power at 0.3 worse |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            md,
            "| `{}` | `{}` | {} | {} | {} | {:.3} | {:.1}% | {:.1}% | {:.0}% | {:.0}% |",
            r.claim,
            r.study,
            rule_name(r.rule),
            r.points,
            r.repetitions,
            r.median_rel_se,
            100.0 * r.false_at_claim,
            100.0 * r.false_at_edge,
            100.0 * r.confirmed_at_claim,
            100.0 * r.power
        );
    }
    md
}
