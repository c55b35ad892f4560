//! The evidence a claim is judged on: the naming studies' checks (judged
//! again under the claim's kind), the `runner errata` rows and the committed
//! privacy audit, one [`Part`] each.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::analyze::{SlopeResult, StudyAnalysis};
use crate::format::sig;
use crate::spec::SlopeSide;
use crate::validate::{Experiment, Study};
use crate::verdict::{judge_fit, Judgement, Rule, Verdict, MISFIT_TAIL};

use super::spec::{toml_files, ClaimKind, ClaimSpec, Evidence, TestReading};

/// An experiment with its analyses re-derived from its committed summary.
pub struct Judged {
    /// Spec path.
    pub path: PathBuf,
    /// The resolved experiment (default profile).
    pub experiment: Experiment,
    /// Its analyses (`None` without a committed summary), one per study.
    pub analyses: Option<Vec<StudyAnalysis>>,
    /// Per study, the output name of the summary its analysis was read from:
    /// the default's (`<name>`), or a selecting profile's (`<name>-<profile>`)
    /// for a study the default summary has no point of.
    pub sources: Vec<String>,
}

/// Every experiment file of `dir` (default profile), with its analyses
/// re-derived from the committed summary in `results_dir`. A study the
/// default summary lacks, or holds at fewer grid points than a profile that
/// only selects studies, is read from that profile's summary (its cells are
/// the default cells: seeds do not depend on the profile), so a long sweep,
/// or the new points of a grown grid, run on their own are evidence. A profile that
/// reruns studies on new seeds ([`crate::spec::ProfileSpec::reruns_only`]:
/// more repetitions, the default grids and expectations) stands in for the
/// default run of its studies once its summary exists: an independent
/// replication decided before its data, read alone (never pooled with the
/// run it replaces).
pub fn judge_experiments(dir: &Path, results_dir: &Path) -> Result<Vec<Judged>> {
    toml_files(dir)?
        .into_iter()
        .map(|path| {
            let loaded = crate::spec::load(&path)?;
            let beside = super::study_rule::claims_beside(&path);
            let experiment = crate::validate::resolve_with_claims(&loaded, None, &beside)?;
            let name = experiment.output_name();
            let mut sources = vec![name.clone(); experiment.studies.len()];
            let summary = crate::summary::summary_path(results_dir, &experiment);
            let mut analyses = summary
                .exists()
                .then(|| crate::summary::analyses_from_summary(&experiment, &summary))
                .transpose()?;
            for (profile, p) in &loaded.spec.profiles {
                let rerun = p.reruns_only();
                if !rerun && !p.selects_only() {
                    continue;
                }
                let Some((source, read)) =
                    profile_analyses(&loaded, profile, &beside, results_dir, &experiment)?
                else {
                    continue;
                };
                if rerun {
                    let own = analyses.get_or_insert_with(|| read.clone());
                    for (i, a) in read.into_iter().enumerate() {
                        if p.only.contains(&experiment.studies[i].name) && !a.points.is_empty() {
                            own[i] = a;
                            sources[i] = source.clone();
                        }
                    }
                    continue;
                }
                let own = analyses.get_or_insert_with(|| {
                    sources.iter_mut().for_each(|s| *s = source.clone());
                    read.clone()
                });
                // More points than the default summary holds: the study's
                // grid grew after the default run (the profile's cells are
                // default cells, so its summary is the more complete one).
                for (i, a) in read.into_iter().enumerate() {
                    if own[i].points.len() < a.points.len() {
                        own[i] = a;
                        sources[i] = source.clone();
                    }
                }
            }
            Ok(Judged {
                path,
                experiment,
                analyses,
                sources,
            })
        })
        .collect()
}

/// The analyses of `experiment`'s studies read from `profile`'s committed
/// summary, with the summary's name (the ledger's source), or `None` when
/// that profile has no summary in `results_dir`.
fn profile_analyses(
    loaded: &crate::spec::LoadedSpec,
    profile: &str,
    claims: &[ClaimSpec],
    results_dir: &Path,
    experiment: &crate::validate::Experiment,
) -> Result<Option<(String, Vec<crate::analyze::StudyAnalysis>)>> {
    let resolved = crate::validate::resolve_with_claims(loaded, Some(profile), claims)?;
    let path = crate::summary::summary_path(results_dir, &resolved);
    if !path.exists() {
        return Ok(None);
    }
    let read = crate::summary::analyses_from_summary(experiment, &path)?;
    Ok(Some((resolved.output_name(), read)))
}

/// Which expectation of a study a part judges (what pre-registration is
/// read for).
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The slope in `param` fitted on `window`.
    Slope {
        /// Swept parameter.
        param: String,
        /// Fit window.
        window: (f64, f64),
    },
    /// `below_bound`.
    Bound,
    /// `match_theory`.
    TheoryMatch,
    /// `above_reference`.
    Reference,
}

/// A study's expectation, located: the experiment file, the study and the
/// check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRef {
    /// The experiment file.
    pub spec: PathBuf,
    /// The study.
    pub study: String,
    /// The expectation.
    pub check: Check,
}

/// One piece of evidence for a claim.
pub struct Part<'a> {
    /// Where it comes from, as printed in the reason.
    pub where_: String,
    /// Its verdict on the claim.
    pub judgement: Judgement,
    /// The slope fit behind it, if any.
    pub slope: Option<&'a SlopeResult>,
    /// The study's largest mean/bound ratio (bound evidence).
    pub max_bound_ratio: f64,
    /// The study expectation it judges (for pre-registration).
    pub check: Option<CheckRef>,
    /// Why this inconclusive part is reported in the reason but left out of
    /// the row's verdict, if it is.
    pub set_aside: Option<SetAside>,
}

/// Why a part is set aside: another study's decisive window answers the
/// claim where this one cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetAside {
    /// This study's decisive window farther in the claim's limit
    /// supersedes it (`extends`, [`super::supersede::supersede_nearer_windows`]).
    Farther(String),
    /// This study's decisive window measures the claim's regime (same
    /// parameter and expected exponent) where this window declares it not
    /// reached ([`super::supersede::set_aside_unreached`]).
    RegimeElsewhere(String),
    /// This inconclusive window is on an instance that does not attain the
    /// upper bound's rate (so it can never contradict it), and this study's
    /// window, on an instance that does ([`super::spec::ClaimSpec::attained_on`]),
    /// decides the same expectation ([`super::supersede::set_aside_not_attained`]).
    AttainedElsewhere(String),
}

impl Part<'_> {
    pub(super) fn plain(where_: String, judgement: Judgement) -> Part<'static> {
        Part {
            where_,
            judgement,
            slope: None,
            max_bound_ratio: f64::NAN,
            check: None,
            set_aside: None,
        }
    }
}

/// A printed statement's polarity on reference evidence: the study expects
/// its data *above* the printed curve (showing it false), so a confirmed
/// reference check contradicts the printed statement, and data clearly below
/// the printed curve are consistent with it.
fn printed_polarity(j: &Judgement) -> Judgement {
    let (verdict, what) = match j.verdict {
        Verdict::Confirmed => (
            Verdict::Contradicted,
            "the printed statement is false: the data exceed the printed curve",
        ),
        Verdict::Contradicted => (
            Verdict::Confirmed,
            "the data lie below the printed curve, as the printed statement says",
        ),
        v => {
            return Judgement {
                outlook: j.outlook,
                ..Judgement::new(v, j.reason.clone())
            }
        }
    };
    Judgement::new(verdict, format!("{what} ({})", j.reason)).by(Rule::PrintedPolarity)
}

/// The parts of one naming study, judged under the claim's kind.
pub fn study_parts<'a>(
    c: &ClaimSpec,
    spec: &Path,
    exp: &str,
    study: &Study,
    a: &'a StudyAnalysis,
) -> Vec<Part<'a>> {
    let where_ = |label: &str| format!("{exp}:{} ({label})", study.name);
    let located = |check: Check| {
        Some(CheckRef {
            spec: spec.to_path_buf(),
            study: study.name.clone(),
            check,
        })
    };
    let part = |label: &str, j: &Judgement, check: Check| Part {
        where_: where_(label),
        judgement: if c.kind == ClaimKind::Printed && check == Check::Reference {
            printed_polarity(j)
        } else {
            j.clone()
        },
        slope: None,
        max_bound_ratio: a.max_bound_ratio,
        check: located(check),
        set_aside: None,
    };
    let missing = |what: &str| {
        Part::plain(
            where_(what),
            Judgement::new(
                Verdict::NotMeasured,
                format!("the study has no {what} expectation"),
            ),
        )
    };
    let slope_part = |s: &'a SlopeResult| {
        let at = if s.at.is_empty() {
            String::new()
        } else {
            format!(" at {}", crate::format::describe_values(&s.at))
        };
        let window = format!(" on [{}, {}]", sig(s.window.0), sig(s.window.1));
        let (rule, slope) = c.slope_rule(&study.name, s.side, s.theory_slope);
        let mut judgement = if slope == s.theory_slope {
            judge_fit(&s.fit, rule, slope, s.tolerance)
        } else {
            // A printed exponent: the study's theorem curve is the corrected
            // one, which says nothing about the printed statement's window.
            let fit = crate::verdict::SlopeFit {
                theory_curve_slope: f64::NAN,
                ..s.fit.clone()
            };
            judge_fit(&fit, rule, slope, s.tolerance)
        };
        if c.kind == ClaimKind::Printed {
            judgement = judgement.by(Rule::PrintedPolarity);
        }
        if judgement.verdict != s.judgement.verdict && judgement.rules.is_empty() {
            judgement = judgement.by(Rule::Kind);
        }
        let judgement = with_rerun_cost(judgement, study);
        let judgement = with_local_slopes(judgement, a, s, rule.band(slope, s.tolerance));
        let judgement =
            super::beyond::with_next_decade(judgement, study, a, s, c.limit, c.beyond.as_deref());
        Part {
            where_: where_(&format!("slope in {}{at}{window}", s.param)),
            judgement,
            slope: Some(s),
            max_bound_ratio: f64::NAN,
            check: located(Check::Slope {
                param: s.param.clone(),
                window: s.window,
            }),
            set_aside: None,
        }
    };
    let param = c.parameter.as_deref().unwrap_or_default();
    match c.evidence {
        Evidence::Slope => {
            let slopes: Vec<Part> = a
                .slopes
                .iter()
                .filter(|s| c.selects_window(&s.param, s.theory_slope))
                .map(slope_part)
                .collect();
            if slopes.is_empty() {
                vec![missing(&format!("slope-in-{param}"))]
            } else {
                slopes
            }
        }
        Evidence::Bound => match &a.bound_judgement {
            Some(j) => vec![part("bound", j, Check::Bound)],
            None => vec![missing("bound")],
        },
        Evidence::TheoryMatch => match &a.theory_judgement {
            Some(j) => vec![part("theory match", j, Check::TheoryMatch)],
            None => vec![missing("theory-match")],
        },
        Evidence::Reference => match &a.reference_judgement {
            Some(j) => vec![part("reference", j, Check::Reference)],
            None => vec![missing("reference")],
        },
        Evidence::Study => {
            let mut all: Vec<Part> = a.slopes.iter().map(slope_part).collect();
            for (label, j, check) in [
                ("bound", &a.bound_judgement, Check::Bound),
                ("theory match", &a.theory_judgement, Check::TheoryMatch),
                ("reference", &a.reference_judgement, Check::Reference),
            ] {
                if let Some(j) = j {
                    all.push(part(label, j, check));
                }
            }
            if all.is_empty() {
                vec![missing("")]
            } else {
                all
            }
        }
        Evidence::Errata | Evidence::Audit | Evidence::Test | Evidence::SlopeDifference => {
            Vec::new()
        }
    }
}

/// The slope fit of study `name` on `window` in `param`, with the judged
/// experiment it was read from and the study's index there.
fn window_fit<'a>(
    judged: &'a [Judged],
    name: &str,
    param: &str,
    window: (f64, f64),
) -> Option<(&'a Judged, usize, &'a SlopeResult)> {
    judged.iter().find_map(|j| {
        let i = j.experiment.studies.iter().position(|s| s.name == name)?;
        let a = j.analyses.as_ref()?.get(i)?;
        let s = a
            .slopes
            .iter()
            .find(|s| s.param == param && s.window == window)?;
        Some((j, i, s))
    })
}

/// The fit of `log(mean_a / mean_b)`: the two fits' slopes subtracted,
/// estimator by estimator, their CI half-widths added in quadrature (the
/// studies run on their own seeds; where they share data sets the
/// difference's error is smaller, so this is conservative), the fewer
/// points and repetitions, the larger misfit, and either trivial or regime
/// note.
pub fn fit_difference(
    a: &crate::verdict::SlopeFit,
    b: &crate::verdict::SlopeFit,
) -> crate::verdict::SlopeFit {
    let minus = |x: crate::verdict::SlopeEvidence, y: crate::verdict::SlopeEvidence| {
        crate::verdict::SlopeEvidence {
            fitted: x.fitted - y.fitted,
            ci_half_width: x.ci_half_width.hypot(y.ci_half_width),
            points: x.points.min(y.points),
            repetitions: x.repetitions.min(y.repetitions),
            chi2_df: x.chi2_df.max(y.chi2_df),
        }
    };
    let notes: Vec<String> = [&a.regime_note, &b.regime_note]
        .into_iter()
        .filter(|n| !n.is_empty())
        .cloned()
        .collect();
    crate::verdict::SlopeFit {
        weighted: minus(a.weighted, b.weighted),
        ols: minus(a.ols, b.ols),
        theory_curve_slope: a.theory_curve_slope - b.theory_curve_slope,
        trivial: a.trivial.clone().or_else(|| b.trivial.clone()),
        regime_note: notes.join("; "),
        regime_not_reached: a
            .regime_not_reached
            .iter()
            .chain(&b.regime_not_reached)
            .cloned()
            .collect(),
        revised: None,
    }
}

/// Judges a slope difference against `d`. The studies' rates are upper
/// bounds: a one-sided difference bounds a price (one algorithm's rate
/// against another's), so beating it confirms; a difference outside the
/// band contradicts only where both instances attain their rates
/// (`attained`), and is inconclusive otherwise, on either side of a
/// two-sided band too.
pub fn judge_difference(
    fit: &crate::verdict::SlopeFit,
    d: &super::spec::SlopeDifference,
) -> (crate::verdict::SlopeRule, Judgement) {
    let rule = match d.side {
        SlopeSide::AtMost => crate::verdict::SlopeRule::UpperBound {
            worse_is_larger: true,
            attained: d.attained,
        },
        SlopeSide::AtLeast => crate::verdict::SlopeRule::UpperBound {
            worse_is_larger: false,
            attained: d.attained,
        },
        side => crate::verdict::SlopeRule::Declared(side),
    };
    let mut judgement = judge_fit(fit, rule, d.slope, d.tolerance);
    if judgement.verdict == Verdict::Contradicted && !d.attained {
        judgement = Judgement::new(
            Verdict::Inconclusive,
            format!(
                "{} — outside the band, but a difference of two upper bounds contradicts only where both instances attain their rates",
                judgement.reason
            ),
        )
        .by(Rule::NotAttained);
    }
    (rule, judgement)
}

/// Each window of a `slope_difference` claim judged by `difference_fit`:
/// the claim's own, then its `farther` ones, in order. `Err` says what is
/// missing.
pub fn difference_fits(
    c: &ClaimSpec,
    judged: &[Judged],
) -> Vec<std::result::Result<(SlopeResult, CheckRef, String), String>> {
    let (Some(d), Some(param)) = (&c.difference, c.parameter.as_deref()) else {
        return vec![Err("no `difference`".into())];
    };
    std::iter::once((d.minuend.as_str(), d.subtrahend.as_str(), d.fit))
        .chain(
            d.farther
                .iter()
                .map(|f| (f.minuend.as_str(), f.subtrahend.as_str(), f.fit)),
        )
        .map(|(minuend, subtrahend, fit)| {
            difference_fit(c, d, param, judged, [minuend, subtrahend], fit)
        })
        .collect()
}

/// One window of a `slope_difference` claim: the minuend's fitted slope
/// minus the subtrahend's (`pair`) on `fit`, both estimators, with CI
/// half-widths added in quadrature (the studies run on their own seeds;
/// where they share data sets the difference's error is smaller, so the CI
/// is conservative), judged against the claim's difference `d`. `Err` says
/// what is missing.
fn difference_fit(
    c: &ClaimSpec,
    d: &super::spec::SlopeDifference,
    param: &str,
    judged: &[Judged],
    [minuend, subtrahend]: [&str; 2],
    fit: [f64; 2],
) -> std::result::Result<(SlopeResult, CheckRef, String), String> {
    let window = (fit[0], fit[1]);
    let find = |name: &str| {
        window_fit(judged, name, param, window).ok_or_else(|| {
            format!(
                "no committed fit of `{name}` in {param} on [{}, {}] (the study must declare that window and have a committed summary)",
                sig(window.0),
                sig(window.1)
            )
        })
    };
    let (ja, ia, a) = find(minuend)?;
    let (jb, ib, b) = find(subtrahend)?;
    let fit = fit_difference(&a.fit, &b.fit);
    let (rule, mut judgement) = judge_difference(&fit, d);
    if let (Some(band), true) = (
        rule.band(d.slope, d.tolerance),
        judgement.reason.contains(MISFIT_TAIL),
    ) {
        // What the window shows instead: the local slopes of the ratio of
        // the two studies' means (and of their theorem curves).
        let points = |j: &Judged, i: usize| -> Vec<(f64, f64, f64)> {
            j.analyses.as_ref().map_or_else(Vec::new, |a| {
                a[i].points
                    .iter()
                    .filter_map(|p| {
                        let x = p.swept_value(param)?;
                        let usable = crate::validate::in_window(x, window)
                            && p.mean > 0.0
                            && p.mean.is_finite();
                        usable.then_some((x, p.mean, p.theory))
                    })
                    .collect()
            })
        };
        let denominator = points(jb, ib);
        let mut ratio: Vec<(f64, f64, f64)> = points(ja, ia)
            .into_iter()
            .filter_map(|(x, m, t)| {
                let (_, mb, tb) = denominator.iter().find(|q| q.0 == x)?;
                Some((x, m / mb, t / tb))
            })
            .collect();
        ratio.sort_by(|p, q| p.0.total_cmp(&q.0));
        if let Some(text) = local_slope_text(&ratio, band, param) {
            let text = text
                .replacen("of the means", "of the ratio of the means", 1)
                .replacen("of the theorem's curve", "of the theorem curves' ratio", 1);
            judgement.reason = judgement.reason.replace(MISFIT_TAIL, &text);
        }
    }
    let judgement = super::beyond::difference_with_next_decade(
        judgement,
        [&ja.experiment.studies[ia], &jb.experiment.studies[ib]],
        param,
        window,
        c.limit,
        c.beyond.as_deref(),
    );
    let result = SlopeResult {
        param: param.to_string(),
        at: Vec::new(),
        theory_slope: d.slope,
        tolerance: d.tolerance,
        side: d.side,
        rule,
        window,
        theory_curve_slope: fit.theory_curve_slope,
        fitted: fit.weighted.fitted,
        intercept: f64::NAN,
        ci_half_width: fit.weighted.ci_half_width,
        points: fit.weighted.points,
        pass: d.side.admits(fit.weighted.fitted, d.slope, d.tolerance),
        judgement,
        revised: None,
        chi2_df: fit.weighted.chi2_df,
        curvature_p: f64::NAN,
        fit,
    };
    // Pre-registration is read from the minuend's window (committed with
    // the claim's expectation before either study ran).
    let check = CheckRef {
        spec: ja.path.clone(),
        study: minuend.to_string(),
        check: Check::Slope {
            param: param.to_string(),
            window,
        },
    };
    let where_ = format!(
        "{}:{} - {}:{} (slope in {param} on [{}, {}])",
        ja.sources[ia],
        minuend,
        jb.sources[ib],
        subtrahend,
        sig(window.0),
        sig(window.1)
    );
    Ok((result, check, where_))
}

/// An inconclusive fit that names the repetitions that would decide it, with
/// what they cost by `runner plan`'s model (the study's grid at that count,
/// whatever count its evidence ran at) and on which side of
/// [`RERUN_LINE_CORE_HOURS`](super::beyond::RERUN_LINE_CORE_HOURS) that falls. Other judgements are returned as
/// they are.
fn with_rerun_cost(mut j: Judgement, study: &Study) -> Judgement {
    if j.verdict != Verdict::Inconclusive {
        return j;
    }
    let Some(reps) = j.repetitions_to_decide() else {
        return j;
    };
    let per_repetition =
        crate::cost::estimate_study(study).core_seconds / study.repetitions.max(1) as f64;
    let hours = per_repetition * reps as f64 / 3600.0;
    j.reason.push_str(&format!(
        "; {reps} repetitions cost about {} core-hours by runner plan's model, {} of a rerun",
        sig(hours),
        super::beyond::against_the_line(hours)
    ));
    j
}

/// For an inconclusive fit whose misfit no repetition count removes: the
/// local log-log slopes between the window's consecutive points, bottom to
/// top, of the means and of the theorem's own curve (the study's `theory`
/// column, where stored), and where they stand against the claim's `band`.
/// A theorem curve still outside the band at the window's top says the
/// theorem's regime starts beyond the window; one inside it throughout says
/// the misfit is the data's, not a regime the window misses.
pub fn with_local_slopes(
    mut j: Judgement,
    a: &StudyAnalysis,
    s: &SlopeResult,
    band: Option<(f64, f64)>,
) -> Judgement {
    let (Some((low, high)), true) = (band, j.reason.contains(MISFIT_TAIL)) else {
        return j;
    };
    let mut pts: Vec<(f64, f64, f64)> = super::beyond::window_points(a, s)
        .into_iter()
        .filter(|(_, p)| p.mean > 0.0 && p.mean.is_finite())
        .map(|(x, p)| (x, p.mean, p.theory))
        .collect();
    pts.sort_by(|p, q| p.0.total_cmp(&q.0));
    if let Some(text) = local_slope_text(&pts, (low, high), &s.param) {
        j.reason = j.reason.replace(MISFIT_TAIL, &text);
    }
    j
}

/// The text [`with_local_slopes`] puts in place of [`MISFIT_TAIL`], from the
/// window's points `(x, mean, theory)` sorted by `x` (`theory` NaN where no
/// theorem curve is stored) and the claim's band; `None` below 3 points.
fn local_slope_text(pts: &[(f64, f64, f64)], band: (f64, f64), param: &str) -> Option<String> {
    let (low, high) = band;
    if pts.len() < 3 {
        return None;
    }
    let local = |y: fn(&(f64, f64, f64)) -> f64| -> Vec<f64> {
        pts.windows(2)
            .map(|w| (y(&w[1]).ln() - y(&w[0]).ln()) / (w[1].0.ln() - w[0].0.ln()))
            .collect()
    };
    let (data, theory) = (local(|p| p.1), local(|p| p.2));
    let inside = |v: f64| v >= low && v <= high;
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:+.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let top = pts[pts.len() - 1].0;
    let mut text = format!(
        "no repetition count decides it; local slopes of the means across the window, bottom to top: {}",
        list(&data)
    );
    if theory.iter().all(|v| v.is_finite()) {
        text.push_str(&format!("; of the theorem's curve: {}", list(&theory)));
        let first_inside = theory.iter().position(|v| inside(*v));
        text.push_str(&match first_inside {
            _ if !inside(theory[theory.len() - 1]) => format!(
                " — the theorem's own curve is still outside the claim's band at the window's top ({} = {}), so its regime starts beyond the window",
                param,
                sig(top)
            ),
            Some(0) => " — the theorem's own curve is inside the claim's band throughout, so the misfit is the data's, not a regime the window misses".to_string(),
            Some(k) => format!(
                " — the theorem's own curve enters the claim's band inside the window (from {} = {}), so the window straddles the onset of its regime",
                param,
                sig(pts[k].0)
            ),
            None => String::new(),
        });
    } else {
        let count = data.iter().filter(|v| inside(**v)).count();
        text.push_str(&format!(
            " ({count} of {} segments inside the claim's band; no theorem curve is stored)",
            data.len()
        ));
    }
    Some(text)
}

/// The unit tests a claim names (`evidence = "test"`), each found in the
/// source under `repo`: a `#[test]` function that asserts something is
/// evidence that could have failed, and `cargo test --workspace` (which CI
/// runs before `runner claims --check`) fails if it does, so a test found
/// confirms; one not found, or one that asserts nothing, is not evidence.
/// A printed statement's test asserts the statement false (a counterexample
/// on the harness's own instance), so it contradicts the claim, the same way
/// round as every printed row, unless its `test_reading` says the test
/// found no counterexample where the statement is weakest, which gives "not
/// refuted". A privacy claim's test checks some pairs of neighbours, not
/// all, so it gives "not refuted", as an audit does.
pub fn test_parts(c: &ClaimSpec, repo: &Path) -> Vec<Part<'static>> {
    c.tests
        .iter()
        .map(|t| {
            let runs = "which `cargo test --workspace` runs (CI fails before this ledger is checked if it fails)";
            let judgement = match find_test(repo, t) {
                Ok(()) if c.test_reading == Some(TestReading::NoCounterexample) => Judgement::new(
                    Verdict::NotRefuted,
                    format!("no counterexample in the unit test `{t}`, which checks the statement where it is weakest, {runs}"),
                )
                .by(Rule::TestNotRefuted),
                Ok(()) if c.kind == ClaimKind::Printed => Judgement::new(
                    Verdict::Contradicted,
                    format!("shown false by the unit test `{t}`, {runs}"),
                )
                .by(Rule::PrintedPolarity),
                // A privacy guarantee holds for every pair of neighbours; a
                // test checks some, so like an audit it can only fail to
                // refute it.
                Ok(()) if c.kind == ClaimKind::Privacy => Judgement::new(
                    Verdict::NotRefuted,
                    format!("not refuted by the unit test `{t}`, {runs}"),
                )
                .by(Rule::TestNotRefuted),
                Ok(()) => Judgement::new(
                    Verdict::Confirmed,
                    format!("asserted by the unit test `{t}`, {runs}"),
                ),
                Err(why) => Judgement::new(Verdict::NotMeasured, why),
            };
            Part::plain(format!("test {t}"), judgement)
        })
        .collect()
}

/// Checks that `spec` (`path.rs::name`) is a `#[test]` function under
/// `repo` whose body asserts something.
fn find_test(repo: &Path, spec: &str) -> std::result::Result<(), String> {
    let (path, name) = spec
        .rsplit_once("::")
        .ok_or_else(|| format!("`{spec}` is not `path.rs::test_function`"))?;
    let text = std::fs::read_to_string(repo.join(path))
        .map_err(|e| format!("no test file {path} under {}: {e}", repo.display()))?;
    let head = format!("fn {name}(");
    let at = text
        .find(&head)
        .ok_or_else(|| format!("no function `{name}` in {path}"))?;
    let before = &text[..at];
    let attribute = before
        .rfind("#[test]")
        .is_some_and(|i| before[i..].lines().count() <= 4 && !before[i..].contains("fn "));
    if !attribute {
        return Err(format!("`{name}` in {path} is not a #[test] function"));
    }
    // The body: from the signature to the first line closing at column 0
    // (rustfmt's layout of a top-level function).
    let rest = &text[at..];
    let end = rest.find("\n}").map_or(rest.len(), |k| k + 2);
    let body = &rest[..end];
    if !(body.contains("assert") || body.contains("panic!")) {
        return Err(format!("`{name}` in {path} asserts nothing"));
    }
    Ok(())
}

/// The `runner errata` rows of a claim, judged: the printed calibration is
/// the statement; exactly not private contradicts it, not certifiable by the
/// best bound leaves it inconclusive (with the claim's written `beyond`, what
/// would decide it, where it has one), certified private confirms it.
pub fn errata_parts(c: &ClaimSpec, rows: &[crate::errata::Erratum]) -> Vec<Part<'static>> {
    use crate::errata::Verdict as E;
    let id = c.errata_id.as_deref().unwrap_or(&c.id);
    rows.iter()
        .filter(|r| r.id == id)
        .map(|r| {
            let verdict = match r.verdict {
                E::NotPrivate => Verdict::Contradicted,
                E::NotCertified => Verdict::Inconclusive,
                E::PrivateBySlack | E::PrivateButLoose => Verdict::Confirmed,
            };
            let mut reason = format!(
                "printed calibration realises {} against the claimed {} ({}): {}",
                r.realised,
                r.target,
                r.accounting.label(),
                r.verdict.label()
            );
            // An uncertified calibration is open until a proof or a
            // counterexample: the claim says which, and what it needs.
            if let (Verdict::Inconclusive, Some(text)) = (verdict, c.beyond.as_deref()) {
                reason.push_str(&format!("; what would decide it: {text}"));
            }
            Part::plain(
                format!("runner errata {} ({})", r.id, r.setting),
                Judgement::new(verdict, reason),
            )
        })
        .collect()
}

/// One row of the committed audit (results/audit.csv), as the ledger reads it.
#[derive(Debug, Clone)]
pub struct AuditRow {
    /// Audit name.
    pub audit: String,
    /// `consistent`, `violation` or `not measured`.
    pub verdict: String,
    /// The bound on eps.
    pub eps_lower: String,
    /// The claimed eps (at `claimed_delta`).
    pub claimed_eps: String,
    /// The claimed delta.
    pub claimed_delta: String,
    /// Runs a side.
    pub runs: String,
    /// The smallest eps such that the algorithm calibrated to it is flagged
    /// by an audit of this size with probability at least 0.95, on the
    /// row's own statistic (`detectable_eps_95`, from probes and the
    /// bootstrap; older files: the typical `smallest_detectable_eps` of a
    /// reference release, flagged about half the time).
    pub detectable: String,
    /// Whether `detectable` is the 0.95-power figure.
    pub detectable_is_95: bool,
}

/// Reads `path` (results/audit.csv); no rows when it does not exist.
pub fn read_audit_rows(path: &Path) -> Result<Vec<AuditRow>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let table =
        crate::csv::read_csv(path).with_context(|| format!("reading {}", path.display()))?;
    let col = |name: &str| {
        table
            .column(name)
            .with_context(|| path.display().to_string())
    };
    let power95 = table.index("detectable_eps_95");
    let idx = [
        col("audit")?,
        col("verdict")?,
        col("eps_lower")?,
        col("claimed_eps")?,
        col("claimed_delta")?,
        col("runs_per_side")?,
        match power95 {
            Some(i) => i,
            None => col("smallest_detectable_eps")?,
        },
    ];
    Ok((0..table.rows.len())
        .map(|r| {
            let get = |i: usize| table.get(r, idx[i]).unwrap_or_default().to_string();
            AuditRow {
                audit: get(0),
                verdict: get(1),
                eps_lower: get(2),
                claimed_eps: get(3),
                claimed_delta: get(4),
                runs: get(5),
                detectable: get(6),
                detectable_is_95: power95.is_some(),
            }
        })
        .collect())
}

/// The audit rows a claim names, judged. A violation contradicts the
/// calibration audited (for a printed claim, the printed one); no violation
/// is "not refuted": an audit can only fail to refute, so it never confirms
/// privacy, and its power says how large a violation it would have caught.
pub fn audit_parts(c: &ClaimSpec, rows: &[AuditRow]) -> Vec<Part<'static>> {
    c.audits
        .iter()
        .map(|name| {
            let judgement = match rows.iter().find(|r| &r.audit == name) {
                None => Judgement::new(
                    Verdict::NotMeasured,
                    "no row in the committed results/audit.csv".to_string(),
                ),
                Some(r) => {
                    let power = match (r.detectable.trim(), r.detectable_is_95) {
                        ("" | "none", _) => {
                            "no calibration error within its probes is flagged by an audit of this size".into()
                        }
                        (d, true) => format!(
                            "it flags this algorithm calibrated to eps >= {d} with probability >= 0.95"
                        ),
                        (d, false) => format!("a typical audit of this size flags eps >= {d}"),
                    };
                    let what = format!(
                        "eps_lb {} against the claimed {} at delta {} ({} runs a side; {power})",
                        r.eps_lower, r.claimed_eps, r.claimed_delta, r.runs
                    );
                    match r.verdict.as_str() {
                        "violation" => {
                            Judgement::new(Verdict::Contradicted, format!("violation: {what}"))
                        }
                        "consistent" => {
                            Judgement::new(Verdict::NotRefuted, format!("consistent: {what}"))
                                .by(Rule::AuditNotRefuted)
                        }
                        other => Judgement::new(Verdict::NotMeasured, format!("{other}: {what}")),
                    }
                }
            };
            Part::plain(format!("runner audit {name}"), judgement)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points `(x, mean, theory)` of `x^-a` means and a theorem curve
    /// `c(x)` at x = 1, 10, 100, 1000.
    fn points(mean_exponents: [f64; 3], theory: Option<[f64; 3]>) -> Vec<(f64, f64, f64)> {
        let mut out = vec![(1.0, 1.0, 1.0)];
        for (k, a) in mean_exponents.iter().enumerate() {
            let (x0, m0, t0) = out[k];
            let t = theory.map_or(f64::NAN, |e| t0 * 10f64.powf(e[k]));
            out.push((x0 * 10.0, m0 * 10f64.powf(*a), t));
        }
        out
    }

    #[test]
    fn local_slopes_say_where_the_theorem_curve_meets_the_band() {
        let band = (f64::NEG_INFINITY, -0.85);
        let text =
            |theory| local_slope_text(&points([-0.5, -0.7, -0.9], theory), band, "n").unwrap();
        let late = text(Some([-0.4, -0.6, -0.8]));
        assert!(late.contains("-0.50, -0.70, -0.90"), "{late}");
        assert!(
            late.contains("starts beyond the window") && late.contains("n = 1000"),
            "{late}"
        );
        let throughout = text(Some([-1.0, -1.0, -1.0]));
        assert!(
            throughout.contains("the misfit is the data's"),
            "{throughout}"
        );
        let enters = text(Some([-0.5, -0.9, -1.0]));
        assert!(
            enters.contains("straddles the onset") && enters.contains("from n = 10"),
            "{enters}"
        );
        let bare = text(None);
        assert!(bare.contains("1 of 3 segments inside"), "{bare}");
        assert_eq!(
            local_slope_text(&points([-1.0; 3], None)[..2], band, "n"),
            None
        );
    }

    fn evidence(fitted: f64, half: f64, points: usize) -> crate::verdict::SlopeEvidence {
        crate::verdict::SlopeEvidence {
            fitted,
            ci_half_width: half,
            points,
            repetitions: 20,
            chi2_df: 1.0,
        }
    }

    fn slope_fit(fitted: f64, half: f64, points: usize) -> crate::verdict::SlopeFit {
        crate::verdict::SlopeFit {
            weighted: evidence(fitted, half, points),
            ols: evidence(fitted, half, points),
            theory_curve_slope: f64::NAN,
            trivial: None,
            regime_note: String::new(),
            regime_not_reached: Vec::new(),
            revised: None,
        }
    }

    fn difference(side: &str, attained: bool) -> super::super::spec::SlopeDifference {
        toml::from_str(&format!(
            "minuend = \"a\"\nsubtrahend = \"b\"\nslope = 0.3\ntolerance = 0.15\nside = \"{side}\"\nfit = [1.0, 10.0]\nattained = {attained}\n"
        ))
        .unwrap()
    }

    #[test]
    fn a_slope_difference_reads_its_farther_windows_and_refuses_unknown_keys() {
        assert!(difference("at_most", false).farther.is_empty());
        let text = "minuend = \"a\"\nsubtrahend = \"b\"\nslope = 0.3\ntolerance = 0.15\nfit = [1.0, 10.0]\nfarther = [{ minuend = \"a_far\", subtrahend = \"b_far\", fit = [10.0, 100.0] }]\n";
        let d: super::super::spec::SlopeDifference = toml::from_str(text).unwrap();
        assert_eq!(d.farther.len(), 1);
        assert_eq!(
            (
                d.farther[0].minuend.as_str(),
                d.farther[0].subtrahend.as_str(),
                d.farther[0].fit
            ),
            ("a_far", "b_far", [10.0, 100.0])
        );
        // A farther window takes its expectation from the difference: a
        // slope of its own is an unknown key.
        let own = text.replace(
            "fit = [10.0, 100.0] }",
            "fit = [10.0, 100.0], slope = 0.5 }",
        );
        assert!(toml::from_str::<super::super::spec::SlopeDifference>(&own).is_err());
    }

    #[test]
    fn a_slope_difference_subtracts_and_adds_the_errors_in_quadrature() {
        let f = fit_difference(&slope_fit(-1.1, 0.03, 5), &slope_fit(-1.4, 0.04, 4));
        assert!((f.weighted.fitted - 0.3).abs() < 1e-12);
        assert!((f.weighted.ci_half_width - 0.05).abs() < 1e-12);
        assert_eq!(f.weighted.points, 4);
        // Inside at_most 0.3 + 0.15: confirmed; well below it: beats it.
        let (_, j) = judge_difference(&f, &difference("at_most", false));
        assert_eq!(j.verdict, Verdict::Confirmed);
        let low = fit_difference(&slope_fit(-1.4, 0.03, 5), &slope_fit(-1.4, 0.04, 5));
        let (_, j) = judge_difference(&low, &difference("at_most", false));
        assert_eq!(j.verdict, Verdict::Confirmed);
        assert!(j.reason.starts_with("beats the bound"), "{}", j.reason);
    }

    #[test]
    fn a_slope_difference_outside_its_band_contradicts_only_when_attained() {
        // +0.9 +- 0.05: outside 0.3 +- 0.15 on both readings.
        let high = fit_difference(&slope_fit(-0.5, 0.03, 5), &slope_fit(-1.4, 0.04, 5));
        for side in ["both", "at_most"] {
            let (_, j) = judge_difference(&high, &difference(side, false));
            assert_eq!(j.verdict, Verdict::Inconclusive, "{side}: {}", j.reason);
            assert!(j.rules.contains(&Rule::NotAttained), "{side}");
            let (_, j) = judge_difference(&high, &difference(side, true));
            assert_eq!(j.verdict, Verdict::Contradicted, "{side} attained");
        }
    }

    #[test]
    fn a_test_is_evidence_only_if_it_is_a_test_that_asserts() {
        let dir = std::env::temp_dir().join(format!("claims-find-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("t.rs"),
            "#[test]\nfn checks() {\n    assert!(1 + 1 == 2);\n}\n\n#[test]\nfn says_nothing() {\n    let _ = 1;\n}\n\nfn helper() {\n    assert!(true);\n}\n",
        )
        .unwrap();
        assert_eq!(find_test(&dir, "t.rs::checks"), Ok(()));
        assert!(find_test(&dir, "t.rs::says_nothing")
            .unwrap_err()
            .contains("asserts nothing"));
        assert!(find_test(&dir, "t.rs::helper")
            .unwrap_err()
            .contains("not a #[test]"));
        assert!(find_test(&dir, "t.rs::missing").is_err());
        assert!(find_test(&dir, "u.rs::checks").is_err());
        // The same passing test confirms a rate, contradicts a printed
        // statement (its test is a counterexample) and leaves a privacy
        // guarantee not refuted (it checks some neighbours, not all).
        let claim = |kind: &str| -> ClaimSpec {
            toml::from_str(&format!(
                "id = \"X\"\ntheorem = \"T\"\nstatement = \"s\"\nkind = \"{kind}\"\nevidence = \"test\"\ntests = [\"t.rs::checks\"]\nexpected = \"e\"\n"
            ))
            .unwrap()
        };
        let verdict = |kind: &str| test_parts(&claim(kind), &dir)[0].judgement.verdict;
        assert_eq!(verdict("upper_bound"), Verdict::Confirmed);
        assert_eq!(verdict("printed"), Verdict::Contradicted);
        assert_eq!(verdict("privacy"), Verdict::NotRefuted);
        // A printed statement's test that found no counterexample where the
        // statement is weakest leaves it not refuted.
        let mut searched = claim("printed");
        searched.test_reading = Some(TestReading::NoCounterexample);
        let j = &test_parts(&searched, &dir)[0].judgement;
        assert_eq!(j.verdict, Verdict::NotRefuted);
        assert!(j.reason.starts_with("no counterexample"), "{}", j.reason);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_uncertified_calibration_says_what_would_decide_it_where_the_claim_writes_it() {
        use crate::errata::Verdict as E;
        let mut rows = crate::errata::errata();
        // No committed calibration is uncertified since BFTT-P12a was
        // decided by an exact profile (2026-12-01): mark one so.
        let first = rows
            .iter()
            .position(|r| matches!(r.verdict, E::NotPrivate))
            .expect("a violated erratum");
        rows[first].verdict = E::NotCertified;
        let open = rows[first].clone();
        let closed = rows
            .iter()
            .find(|r| matches!(r.verdict, E::PrivateBySlack | E::PrivateButLoose))
            .expect("a certified erratum");
        let claim = |id: &str, beyond: Option<&str>| -> ClaimSpec {
            let mut c: ClaimSpec = toml::from_str(&format!(
                "id = \"{id}\"\ntheorem = \"T\"\nstatement = \"s\"\nkind = \"printed\"\nevidence = \"errata\"\nexpected = \"e\"\n"
            ))
            .unwrap();
            c.beyond = beyond.map(str::to_string);
            c
        };
        let written = "a proof, or a loss that attains the bound";
        let j = &errata_parts(&claim(open.id, Some(written)), &rows)[0].judgement;
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(
            j.reason
                .ends_with(&format!("; what would decide it: {written}")),
            "{}",
            j.reason
        );
        let bare = &errata_parts(&claim(open.id, None), &rows)[0].judgement;
        assert!(
            !bare.reason.contains("what would decide"),
            "{}",
            bare.reason
        );
        // A decided calibration keeps its reason as it is.
        let j = &errata_parts(&claim(closed.id, Some(written)), &rows)[0].judgement;
        assert_eq!(j.verdict, Verdict::Confirmed);
        assert!(!j.reason.contains("what would decide"), "{}", j.reason);
    }
}
