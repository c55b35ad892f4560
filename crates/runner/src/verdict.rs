//! Evidence-graded verdicts: one vocabulary for reports, CSVs, table 1, the
//! claims ledger and `check`.
//!
//! - **confirmed**: the whole 95% CI of a fitted exponent lies inside the
//!   declared band (an equivalence test; one-sided for `at_most`/`at_least`);
//!   every mean is below an *informative* bound; every mean matches the exact
//!   expectation; every mean clears the reference curve.
//! - **contradicted**: the CI lies entirely outside the band; a mean exceeds
//!   the bound by more than its CI; a mean misses the exact expectation; a
//!   mean lies clearly below the reference curve.
//! - **inconclusive**: neither; the reason says what would decide it, in
//!   numbers (the repetitions that would shrink the CI enough, or the grid
//!   points at the trivial value and where the regime starts).
//! - **not refuted**: a privacy claim that an empirical audit (or a unit
//!   test on chosen neighbours) could have refuted and did not, or a printed
//!   statement whose tests found no counterexample where it is weakest; an audit can never certify privacy, so this is
//!   never "confirmed" (the claims ledger only).
//! - **undecidable by experiment**: no experiment can decide the claim (a
//!   lower bound over all algorithms, a proof step, a typo, a definition);
//!   the claims ledger only.
//! - **not measured**: no expectation, or a vacuous one (a bound at or above
//!   the metric's trivial maximum), or a fit excluded as evidence (its means
//!   sit at the trivial value). Never "pass".
//!
//! A decisive slope verdict (confirmed or contradicted) needs at least
//! [`MIN_DECISIVE_POINTS`] points in its window and the same verdict from the
//! weighted fit and from ordinary least squares ([`judge_fit`]); a declared
//! regime not reached weakens any decisive verdict, contradictions included.

use std::fmt;

use crate::spec::SlopeSide;

/// Fraction of the trivial maximum at or above which a mean "sits at the
/// trivial value": the algorithm has not left the trivial regime there.
/// González et al.'s gaps at n <= 1e5 sat within 2% of 1; 10% leaves room
/// for noise without calling a 0.5 gap trivial.
pub const TRIVIAL_FRACTION: f64 = 0.9;

/// The four verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// The evidence lies inside what the theory allows.
    Confirmed,
    /// Neither confirmed nor contradicted at this precision.
    Inconclusive,
    /// The evidence lies outside what the theory allows.
    Contradicted,
    /// A privacy claim an audit or test could have refuted and did not, or a
    /// printed statement a test found no counterexample to.
    NotRefuted,
    /// No expectation, or a vacuous one.
    NotMeasured,
    /// No experiment can decide it (a lower bound over all algorithms, a
    /// proof step, a typo, a definition): the claims ledger only.
    Undecidable,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 6] = [
        Verdict::Confirmed,
        Verdict::Contradicted,
        Verdict::Inconclusive,
        Verdict::NotRefuted,
        Verdict::NotMeasured,
        Verdict::Undecidable,
    ];

    /// Whether the verdict decides the claim (confirmed or contradicted).
    pub fn is_decisive(self) -> bool {
        matches!(self, Verdict::Confirmed | Verdict::Contradicted)
    }

    /// The verdict as written in reports and CSVs.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Contradicted => "contradicted",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NotRefuted => "not refuted",
            Verdict::NotMeasured => "not measured",
            Verdict::Undecidable => "undecidable by experiment",
        }
    }

    /// Parses [`Verdict::name`].
    pub fn from_name(s: &str) -> Option<Verdict> {
        Self::ALL.into_iter().find(|v| v.name() == s.trim())
    }

    /// Whether going from `self` (committed) to `now` loses evidence:
    /// confirmed to anything else, or anything to contradicted. These are
    /// the changes `check` fails on.
    pub fn degrades_to(self, now: Verdict) -> bool {
        self != now && (self == Verdict::Confirmed || now == Verdict::Contradicted)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A verdict with the numbers behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in numbers.
    pub reason: String,
    /// The verdict rules (beyond the plain band test) that set or changed
    /// the verdict, e.g. [`Rule::FewPoints`]: what `results/claims-changes.md`
    /// names as the reason a verdict moved.
    pub rules: Vec<Rule>,
    /// What more repetitions can do, for a slope whose CI straddles a band
    /// edge (`None` for every other judgement): the claims ledger prices a
    /// count against its rerun line and reads its "why open" column from it.
    pub outlook: Option<Outlook>,
}

/// A verdict rule that can move a verdict away from the plain band test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// An upper bound is contradicted only by data worse than it.
    UpperBoundOneSided,
    /// A worse exponent on an instance not shown to attain the rate.
    NotAttained,
    /// A declared regime not reached weakens any decisive verdict.
    RegimeNotReached,
    /// A fit whose means sit at the trivial value is not evidence.
    TrivialExcluded,
    /// The theorem curve's own slope sits at the contradicting band edge.
    WindowCannotDecide,
    /// A decisive verdict needs at least [`MIN_DECISIVE_POINTS`] points.
    FewPoints,
    /// The weighted and the unweighted fit disagree.
    EstimatorsDisagree,
    /// A printed statement: contradicted when shown false.
    PrintedPolarity,
    /// Privacy: an audit alone does not confirm.
    AuditNotRefuted,
    /// Privacy, or a printed statement's search for a counterexample: a
    /// unit test on instances alone does not confirm.
    TestNotRefuted,
    /// The claim's kind changed its band (sharp, hypothesis, printed).
    Kind,
}

impl Rule {
    /// The rule as named in reports.
    pub fn name(self) -> &'static str {
        match self {
            Rule::UpperBoundOneSided => "upper bound: only worse data contradict",
            Rule::NotAttained => "worse exponent on an instance not shown to attain the rate",
            Rule::RegimeNotReached => "declared regime not reached weakens any decisive verdict",
            Rule::TrivialExcluded => "fit at the trivial value excluded",
            Rule::WindowCannotDecide => "theorem curve at the band edge: window cannot decide",
            Rule::FewPoints => "a decisive fit needs at least 4 points",
            Rule::EstimatorsDisagree => "weighted and OLS fits disagree",
            Rule::PrintedPolarity => "printed statement: contradicted when shown false",
            Rule::AuditNotRefuted => "privacy: an audit alone gives not refuted",
            Rule::TestNotRefuted => "a test on chosen instances alone gives not refuted",
            Rule::Kind => "the claim's kind sets its band",
        }
    }
}

impl Judgement {
    /// A judgement.
    pub fn new(verdict: Verdict, reason: impl Into<String>) -> Self {
        Self {
            verdict,
            reason: reason.into(),
            rules: Vec::new(),
            outlook: None,
        }
    }

    /// The repetitions per point an inconclusive fit says would decide it
    /// ("about N repetitions per point", [`repetitions_needed`]), if it
    /// names a count.
    pub fn repetitions_to_decide(&self) -> Option<u64> {
        match self.outlook {
            Some(Outlook::Count(r)) => Some(r),
            _ => None,
        }
    }

    /// The same judgement, recording that `rule` set it.
    pub fn by(mut self, rule: Rule) -> Self {
        if !self.rules.contains(&rule) {
            self.rules.push(rule);
        }
        self
    }

    /// A decisive verdict (confirmed or contradicted) made inconclusive
    /// because the points do not reach the theorem's regime (`why`); `what`
    /// names the evidence ("fit", "check") in the reason. A regime not
    /// reached says nothing about the theorem either way, so it weakens a
    /// contradiction as much as a confirmation. Other verdicts are returned
    /// as they are: this can only weaken evidence.
    pub fn weakened(self, why: &str, what: &str) -> Self {
        if !self.verdict.is_decisive() {
            return self;
        }
        let rules = self.rules.clone();
        Judgement {
            rules,
            ..Judgement::new(
                Verdict::Inconclusive,
                format!(
                    "regime not reached: {why} (the {what} alone: {}, {})",
                    self.verdict, self.reason
                ),
            )
        }
        .by(Rule::RegimeNotReached)
    }

    /// Appends a sentence to the reason.
    pub fn with_note(mut self, note: &str) -> Self {
        if !note.is_empty() {
            if !self.reason.is_empty() {
                self.reason.push_str("; ");
            }
            self.reason.push_str(note);
        }
        self
    }
}

/// Combines several judgements of one claim or study: contradicted if any
/// is; otherwise inconclusive if a measured one is; confirmed if a measured
/// one is confirmed (a not-refuted audit beside a certificate does not
/// weaken it); not refuted when only audits spoke; not measured when none is
/// measured.
pub fn combine<'a>(parts: impl IntoIterator<Item = &'a Judgement>) -> Verdict {
    let measured: Vec<Verdict> = parts
        .into_iter()
        .map(|j| j.verdict)
        .filter(|v| *v != Verdict::NotMeasured)
        .collect();
    if measured.is_empty() {
        Verdict::NotMeasured
    } else if measured.contains(&Verdict::Contradicted) {
        Verdict::Contradicted
    } else if measured.contains(&Verdict::Inconclusive) {
        Verdict::Inconclusive
    } else if measured.contains(&Verdict::Confirmed) {
        Verdict::Confirmed
    } else {
        Verdict::NotRefuted
    }
}

/// The band of exponents the expectation allows, `(low, high)` (infinite on
/// the free side of a one-sided expectation); `None` for a reported slope.
pub fn band(side: SlopeSide, slope: f64, tolerance: f64) -> Option<(f64, f64)> {
    match side {
        SlopeSide::Both => Some((slope - tolerance, slope + tolerance)),
        SlopeSide::AtMost => Some((f64::NEG_INFINITY, slope + tolerance)),
        SlopeSide::AtLeast => Some((slope - tolerance, f64::INFINITY)),
        SlopeSide::Reported => None,
    }
}

/// What a slope fit needs to be judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlopeEvidence {
    /// Fitted exponent (NaN when the fit failed).
    pub fitted: f64,
    /// Half-width of its 95% CI.
    pub ci_half_width: f64,
    /// Points inside the fit window.
    pub points: usize,
    /// Repetitions per point behind the fit.
    pub repetitions: usize,
    /// The weighted fit's chi²/df (the Birge ratio squared; NaN for OLS or
    /// when an error is unknown): above 1 the CI carries the means' misfit
    /// to a single power law, which more repetitions do not remove.
    pub chi2_df: f64,
}

/// Judges a fitted exponent against `slope ± tolerance` on `side` (an
/// equivalence test on the 95% CI). When inconclusive, the reason gives the
/// repetitions that would make the CI narrow enough to decide
/// ([`repetitions_outlook`]): the half-width shrinks as `1/sqrt(repetitions)`
/// while the per-point standard errors dominate, but a model misfit, which
/// the Birge ratio adds to the CI, does not shrink; when that part alone
/// reaches the margin the reason says no repetition count decides it (more
/// grid points or a narrower window inside one regime are what help).
pub fn judge_slope(e: SlopeEvidence, side: SlopeSide, slope: f64, tolerance: f64) -> Judgement {
    judge_banded(e, SlopeRule::Declared(side), slope, tolerance)
}

/// Fewest points in a fit window for a decisive slope verdict: with 3
/// points a log-log line has one residual degree of freedom, so neither its
/// CI nor its misfit (the Birge ratio) is estimated with any confidence.
pub const MIN_DECISIVE_POINTS: usize = 4;

/// How a fitted exponent is judged against the claimed `slope ± tolerance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlopeRule {
    /// The band the expectation declares: two-sided (a sharp rate), or one
    /// side only (`at_most` / `at_least`), or reported only.
    Declared(SlopeSide),
    /// An upper bound (an O(·) guarantee): only data *worse* than the bound
    /// contradict it. `worse_is_larger`: a larger fitted exponent is worse
    /// (the bound speaks to the parameter growing: n, d, T); otherwise a
    /// smaller one is (eps, rho or a margin shrinking). `attained`: the
    /// instance attains the rate, so a worse exponent contradicts; otherwise
    /// a worse exponent is inconclusive (an O(·) with an unknown constant on
    /// an instance that need not attain it, over a finite window).
    UpperBound {
        /// A larger exponent is worse than the bound.
        worse_is_larger: bool,
        /// The instance attains the rate.
        attained: bool,
    },
}

impl SlopeRule {
    /// The band edges a fitted CI must not cross, `(low, high)`; `None` for
    /// a reported slope.
    pub fn band(self, slope: f64, tolerance: f64) -> Option<(f64, f64)> {
        match self {
            SlopeRule::Declared(side) => band(side, slope, tolerance),
            SlopeRule::UpperBound {
                worse_is_larger: true,
                ..
            } => Some((f64::NEG_INFINITY, slope + tolerance)),
            SlopeRule::UpperBound {
                worse_is_larger: false,
                ..
            } => Some((slope - tolerance, f64::INFINITY)),
        }
    }

    /// The band as written in reports: `slope ± tolerance`, one side of it,
    /// or `(upper bound)` after the bound's side.
    pub fn describe(self, slope: f64, tolerance: f64) -> String {
        match self {
            SlopeRule::Declared(side) => side.describe(slope, tolerance),
            SlopeRule::UpperBound {
                worse_is_larger: true,
                ..
            } => format!("<= {slope:+.3} + {tolerance} (upper bound)"),
            SlopeRule::UpperBound {
                worse_is_larger: false,
                ..
            } => format!(">= {slope:+.3} - {tolerance} (upper bound)"),
        }
    }
}

/// Judges a fitted exponent under `rule` (an equivalence test on its 95% CI,
/// see [`judge_slope`]). An upper bound's CI entirely on the better side of
/// the claimed band is confirmed and said to beat the bound; a CI entirely
/// on the worse side contradicts only where the instance attains the rate.
pub fn judge_slope_rule(
    e: SlopeEvidence,
    rule: SlopeRule,
    slope: f64,
    tolerance: f64,
) -> Judgement {
    let mut j = judge_banded(e, rule, slope, tolerance);
    let SlopeRule::UpperBound {
        worse_is_larger,
        attained,
    } = rule
    else {
        return j;
    };
    let (f, h) = (e.fitted, e.ci_half_width);
    if j.verdict == Verdict::Confirmed {
        let better = if worse_is_larger {
            f + h < slope - tolerance
        } else {
            f - h > slope + tolerance
        };
        if better {
            j.reason = format!(
                "beats the bound: exponent {f:+.3} (CI [{:+.3}, {:+.3}]) better than the claimed {slope:+.3} ± {tolerance}",
                f - h,
                f + h
            );
            j = j.by(Rule::UpperBoundOneSided);
        }
    } else if j.verdict == Verdict::Contradicted && !attained {
        j = Judgement::new(
            Verdict::Inconclusive,
            format!(
                "{} — worse than the bound's exponent over the window, on an instance not shown to attain the rate: an O(·) bound with an unknown constant is contradicted only where the rate is attained, or by a mean above an explicit bound",
                j.reason
            ),
        )
        .by(Rule::NotAttained);
    }
    j
}

/// How an inconclusive reason ends when the fit's misfit alone keeps its CI
/// across the band edge; the claims ledger replaces it by what the window's
/// segments show (`claims::evidence::with_local_slopes`).
pub const MISFIT_TAIL: &str = "no repetition count decides it (a window inside one regime might)";

/// The band test of [`judge_slope`] on `rule`'s band.
fn judge_banded(e: SlopeEvidence, rule: SlopeRule, slope: f64, tolerance: f64) -> Judgement {
    let Some((low, high)) = rule.band(slope, tolerance) else {
        return Judgement::new(
            Verdict::NotMeasured,
            format!("reported only, no expectation (theory {slope:+.3})"),
        );
    };
    let (f, h) = (e.fitted, e.ci_half_width);
    if !(f.is_finite() && h.is_finite()) {
        return Judgement::new(
            Verdict::Inconclusive,
            format!(
                "no fit: {} point(s) with a positive finite mean inside the window (3 needed)",
                e.points
            ),
        );
    }
    let (ci_low, ci_high) = (f - h, f + h);
    let ci = format!("CI [{ci_low:+.3}, {ci_high:+.3}]");
    let allowed = rule.describe(slope, tolerance);
    if ci_low >= low && ci_high <= high {
        return Judgement::new(Verdict::Confirmed, format!("{ci} inside {allowed}"));
    }
    if ci_high < low || ci_low > high {
        return Judgement::new(Verdict::Contradicted, format!("{ci} outside {allowed}"));
    }
    // The nearest band edge decides: with the point estimate inside the band
    // a CI narrower than the distance confirms, outside it contradicts.
    let margin = [low, high]
        .into_iter()
        .filter(|x| x.is_finite())
        .map(|x| (f - x).abs())
        .fold(f64::INFINITY, f64::min);
    let inside = f >= low && f <= high;
    let outcome = if inside { "confirm" } else { "contradict" };
    let outlook = repetitions_outlook(e.repetitions, h, margin, e.chi2_df);
    let what: String = match outlook {
        Outlook::Count(r) if e.chi2_df > 1.0 => format!(
                "about {r} repetitions per point (now {}) would {outcome} it, with the misfit the CI carries (χ²/df {}) held fixed",
                e.repetitions,
                crate::format::sig(e.chi2_df)
        ),
        Outlook::Count(r) => format!(
                "about {r} repetitions per point (now {}) would {outcome} it, if the CI shrinks as 1/sqrt(reps)",
                e.repetitions
        ),
        Outlook::ScatterFloor(floor) => format!(
                "the means miss a single power law by more than their error bars (χ²/df {}), and the part of the CI that more repetitions cannot remove, ±{floor:.3}, is not below the margin: {MISFIT_TAIL}",
                crate::format::sig(e.chi2_df)
        ),
        Outlook::OnEdge => "the point estimate sits on the band edge; no repetition count decides it".into(),
        Outlook::NoErrorBars => "a point has no error bar (a deterministic metric), so the CI is the means' scatter around one power law, which repetitions do not shrink: no repetition count decides it".into(),
    };
    Judgement {
        outlook: Some(outlook),
        ..Judgement::new(
            Verdict::Inconclusive,
            format!("{ci} straddles {allowed}: half-width {h:.3} > margin {margin:.3}; {what}"),
        )
    }
}

/// Everything a slope verdict is judged on, whatever the rule: the study
/// judges it on its declared band, the claims ledger on the claim's kind.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopeFit {
    /// The documented weighted fit (delta-method weights, Birge-inflated CI).
    pub weighted: SlopeEvidence,
    /// Ordinary least squares of the log means (residual-scatter CI).
    pub ols: SlopeEvidence,
    /// The theorem curve's own local slope over the window (the exact
    /// expectation's, else the bound's; NaN when neither is known).
    pub theory_curve_slope: f64,
    /// Set when at least half the window's means sit at the trivial value:
    /// the fit measures the ceiling, not the algorithm, and is no evidence.
    pub trivial: Option<String>,
    /// Where fewer than half the means sit at the trivial value: appended to
    /// a verdict that is not confirmed.
    pub regime_note: String,
    /// Declared regimes not reached (the study's, then the check's).
    pub regime_not_reached: Vec<String>,
    /// Why the expectation was revised after data existed.
    pub revised: Option<String>,
}

/// The band edge a contradicting CI crossed (`None` unless contradicted).
fn crossed_edge(e: SlopeEvidence, rule: SlopeRule, slope: f64, tolerance: f64) -> Option<f64> {
    let (low, high) = rule.band(slope, tolerance)?;
    let (f, h) = (e.fitted, e.ci_half_width);
    if f + h < low {
        Some(low)
    } else if f - h > high {
        Some(high)
    } else {
        None
    }
}

/// Judges a slope fit under `rule`: the band test on the weighted fit, then
/// the robustness rules. A decisive verdict needs at least
/// [`MIN_DECISIVE_POINTS`] points and the same verdict from OLS; a
/// contradiction across a band edge that the theorem's own curve sits within
/// `tolerance / 2` of (or beyond) cannot tell the theorem from its
/// lower-order terms; a fit at the trivial value is excluded (not measured);
/// a declared regime not reached weakens any decisive verdict.
pub fn judge_fit(fit: &SlopeFit, rule: SlopeRule, slope: f64, tolerance: f64) -> Judgement {
    let weighted = judge_slope_rule(fit.weighted, rule, slope, tolerance);
    let mut j = weighted.clone();
    if let Some(note) = &fit.trivial {
        if j.verdict != Verdict::NotMeasured {
            j = Judgement::new(
                Verdict::NotMeasured,
                format!(
                    "excluded from the evidence: {note} (the fit alone: {}, {})",
                    weighted.verdict, weighted.reason
                ),
            )
            .by(Rule::TrivialExcluded);
        }
        return with_revised(j, fit);
    }
    if j.verdict.is_decisive() {
        let ols = judge_slope_rule(fit.ols, rule, slope, tolerance);
        let both = format!(
            "weighted fit {:+.3} ± {:.3}: {}; OLS {:+.3} ± {:.3}: {}",
            fit.weighted.fitted,
            fit.weighted.ci_half_width,
            weighted.verdict,
            fit.ols.fitted,
            fit.ols.ci_half_width,
            ols.verdict
        );
        if fit.weighted.points < MIN_DECISIVE_POINTS {
            j = Judgement::new(
                Verdict::Inconclusive,
                format!(
                    "only {} points in the window; a decisive verdict needs {MIN_DECISIVE_POINTS} ({both}; {})",
                    fit.weighted.points, weighted.reason
                ),
            )
            .by(Rule::FewPoints);
        } else if ols.verdict != weighted.verdict {
            // The weighted fit is decisive here, so only OLS can name a count.
            j = Judgement {
                outlook: ols.outlook,
                ..Judgement::new(
                    Verdict::Inconclusive,
                    format!(
                        "the estimators disagree ({both}): {}; OLS: {}",
                        weighted.reason, ols.reason
                    ),
                )
            }
            .by(Rule::EstimatorsDisagree);
        }
    }
    // The band edge the weighted CI crosses, when the theorem's own curve
    // sits beyond it or within tolerance/2 of it: the window cannot tell the
    // theorem from its lower-order terms, whatever the rule made of it.
    let cannot_decide = crossed_edge(fit.weighted, rule, slope, tolerance).and_then(|edge| {
        let t = fit.theory_curve_slope;
        let beyond = if edge >= slope { t > edge } else { t < edge };
        (t.is_finite() && (beyond || (t - edge).abs() < tolerance / 2.0)).then(|| {
            format!(
                "the window cannot decide: the theorem's own curve has local slope {t:+.3} over it, within {} of (or beyond) the band edge {edge:+.3} the fit crosses, so its lower-order terms alone could cross it",
                tolerance / 2.0
            )
        })
    });
    if let Some(note) = cannot_decide {
        j = match j.verdict {
            Verdict::Contradicted => Judgement::new(
                Verdict::Inconclusive,
                format!("{note} (the fit alone: contradicted, {})", j.reason),
            ),
            _ => Judgement {
                reason: format!("{note}; {}", j.reason),
                ..j
            },
        }
        .by(Rule::WindowCannotDecide);
    }
    if j.verdict != Verdict::Confirmed {
        j = j.with_note(&fit.regime_note);
    }
    for why in &fit.regime_not_reached {
        j = j.weakened(why, "fit");
    }
    with_revised(j, fit)
}

fn with_revised(j: Judgement, fit: &SlopeFit) -> Judgement {
    match &fit.revised {
        Some(why) => j.with_note(&format!("revised: {why}")),
        None => j,
    }
}

/// What more repetitions can do for an inconclusive slope fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outlook {
    /// About this many repetitions per point would bring the CI inside the
    /// margin.
    Count(u64),
    /// The misfit part of the CI (this half-width) alone reaches the margin:
    /// no repetition count decides it.
    ScatterFloor(f64),
    /// The point estimate sits on the band edge (margin 0).
    OnEdge,
    /// Some point has no error bar (a deterministic metric): the CI is the
    /// means' scatter around one power law, which repetitions do not shrink.
    NoErrorBars,
}

/// The repetitions that bring a weighted fit's CI half-width `h` (at
/// `reps`, with reduced chi-square `chi2_df`) below `margin`.
///
/// The weighted fit inflates its CI by `sqrt(max(1, chi2/df))` (the Birge
/// ratio). Its weights grow with the repetitions `N` while the means' misfit
/// to a single power law does not shrink, so the expected `chi2/df` grows as
/// `1 + (c - 1) N/N0` and `h(N)^2 = (h^2/c) (N0/N + c - 1)` (`c = chi2_df` at
/// `N0 = reps`): the half-width falls towards the floor `h sqrt((c - 1)/c)`,
/// never below. With `c <= 1` this is `h sqrt(N0/N)`, the `1/sqrt(reps)` of
/// [`repetitions_needed`]. Counting all of `c - 1` as misfit is conservative
/// when part of it is chance (a few points). A NaN `chi2_df` means the fit
/// had no error bars (a point with zero standard error, a deterministic
/// metric): its CI is the residual scatter, which repetitions do not shrink.
pub fn repetitions_outlook(reps: usize, h: f64, margin: f64, chi2_df: f64) -> Outlook {
    if chi2_df.is_nan() {
        return Outlook::NoErrorBars;
    }
    if !(chi2_df.is_finite() && chi2_df > 1.0) {
        return repetitions_needed(reps, h, margin).map_or(Outlook::OnEdge, Outlook::Count);
    }
    let c = chi2_df;
    let floor = h * ((c - 1.0) / c).sqrt();
    // A NaN margin or floor names no count either.
    if margin.partial_cmp(&floor) != Some(std::cmp::Ordering::Greater) {
        return Outlook::ScatterFloor(floor);
    }
    // N0/N < c m^2/h^2 - (c - 1), positive because margin > floor.
    let room = c * (margin / h).powi(2) - (c - 1.0);
    let r = (reps.max(1) as f64 / room).ceil();
    if r.is_finite() && r < 1e15 {
        Outlook::Count(r as u64)
    } else {
        Outlook::ScatterFloor(floor)
    }
}

/// Repetitions that shrink a CI half-width `h` (at `reps`) below `margin`.
pub fn repetitions_needed(reps: usize, h: f64, margin: f64) -> Option<u64> {
    if !(margin > 1e-9 * h.abs().max(1e-12) && h.is_finite()) {
        return None;
    }
    let r = (reps.max(1) as f64 * (h / margin).powi(2)).ceil();
    (r.is_finite() && r < 1e15).then_some(r as u64)
}

/// One grid point as the bound check sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundPoint {
    /// Mean of the metric.
    pub mean: f64,
    /// 95% CI half-width of the mean.
    pub ci_half_width: f64,
    /// The theorem's bound at the point.
    pub bound: f64,
}

/// Judges "every mean stays below the bound". A bound at or above
/// `trivial_max` says nothing any trivial release would not also satisfy:
/// such points are not evidence, and a study whose bound is vacuous at every
/// point is not measured. `onset` is appended to a vacuous verdict's reason
/// (where the bound becomes informative).
pub fn judge_bound(points: &[BoundPoint], trivial_max: Option<f64>, onset: &str) -> Judgement {
    let with_bound: Vec<&BoundPoint> = points.iter().filter(|p| p.bound.is_finite()).collect();
    if with_bound.is_empty() {
        return Judgement::new(Verdict::NotMeasured, "no finite bound at any point");
    }
    let k = with_bound.len();
    let clearly_above = with_bound
        .iter()
        .filter(|p| p.mean - p.ci_half_width > p.bound)
        .count();
    // A NaN mean is no evidence of staying below.
    let above = with_bound
        .iter()
        .filter(|p| p.mean.is_nan() || p.mean > p.bound)
        .count();
    let ratio = with_bound
        .iter()
        .map(|p| p.mean / p.bound)
        .fold(f64::NAN, f64::max);
    if clearly_above > 0 {
        return Judgement::new(
            Verdict::Contradicted,
            format!(
                "the mean exceeds the bound by more than its CI at {clearly_above} of {k} points (max mean/bound {ratio:.3})"
            ),
        );
    }
    if above > 0 {
        return Judgement::new(
            Verdict::Inconclusive,
            format!(
                "the mean is above the bound, within its CI, at {above} of {k} points (max mean/bound {ratio:.3}); more repetitions decide it"
            ),
        );
    }
    let informative = match trivial_max {
        Some(t) => with_bound.iter().filter(|p| p.bound < t).count(),
        None => k,
    };
    if informative == 0 {
        let t = trivial_max.unwrap_or(f64::NAN);
        return Judgement::new(
            Verdict::NotMeasured,
            format!("vacuous bound: at or above the trivial maximum {t} at all {k} points"),
        )
        .with_note(onset);
    }
    let scope = match trivial_max {
        Some(t) if informative < k => {
            format!(", informative (below the trivial maximum {t}) at {informative} of them")
        }
        Some(_) => ", all informative".to_string(),
        None => ", trivial maximum not declared".to_string(),
    };
    Judgement::new(
        Verdict::Confirmed,
        format!("every mean below the bound at {k} points{scope} (max mean/bound {ratio:.3})"),
    )
}

/// Judges "every mean matches the exact expectation" from the points that
/// miss it (Bonferroni-corrected CI at `family_alpha`).
pub fn judge_theory_match(points: usize, misses: usize, family_alpha: f64) -> Judgement {
    if points == 0 {
        Judgement::new(
            Verdict::NotMeasured,
            "no grid point has a finished cell, so no mean to compare",
        )
    } else if misses == 0 {
        Judgement::new(
            Verdict::Confirmed,
            format!(
                "all {points} means within their CI of the exact expectation (family-wise false-alarm rate {family_alpha})"
            ),
        )
    } else {
        Judgement::new(
            Verdict::Contradicted,
            format!(
                "{misses} of {points} means miss the exact expectation by more than their CI (family-wise false-alarm rate {family_alpha})"
            ),
        )
    }
}

/// One grid point as the reference check sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReferencePoint {
    /// Lower end of the mean's 95% CI.
    pub ci_low: f64,
    /// Upper end of the mean's 95% CI.
    pub ci_high: f64,
    /// The reference curve (NaN if unknown).
    pub reference: f64,
}

/// Judges "every mean lies above the reference curve" (e.g. measured risk
/// above a printed bound, showing the bound wrong) inside the window.
pub fn judge_reference(points: &[ReferencePoint]) -> Judgement {
    let known: Vec<&ReferencePoint> = points.iter().filter(|p| p.reference.is_finite()).collect();
    if known.is_empty() {
        return Judgement::new(
            Verdict::NotMeasured,
            "no reference value at any point of the window (a summary written before the reference column needs a rerun)",
        );
    }
    let k = known.len();
    let above = known.iter().filter(|p| p.ci_low > p.reference).count();
    let below = known.iter().filter(|p| p.ci_high < p.reference).count();
    if above == k {
        Judgement::new(
            Verdict::Confirmed,
            format!("the CI clears the reference curve at all {k} points"),
        )
    } else if below > 0 {
        Judgement::new(
            Verdict::Contradicted,
            format!("the CI lies below the reference curve at {below} of {k} points"),
        )
    } else {
        Judgement::new(
            Verdict::Inconclusive,
            format!(
                "the CI straddles the reference curve at {} of {k} points",
                k - above
            ),
        )
    }
}

/// Where a power law through `(x, curve)` reaches `level`: the fitted
/// `x` at which `curve(x) = level`, or `None` when the curve is flat, has
/// fewer than two usable points, or never gets there.
pub fn power_law_crossing(x: &[f64], curve: &[f64], level: f64) -> Option<f64> {
    let pts: Vec<(f64, f64)> = x
        .iter()
        .zip(curve)
        .filter(|(x, y)| x.is_finite() && **x > 0.0 && y.is_finite() && **y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 2 || level.is_nan() || level <= 0.0 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    if b.abs() < 1e-6 {
        return None;
    }
    let a = my - b * mx;
    let at = ((level.ln() - a) / b).exp();
    at.is_finite().then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theory_match_on_no_point_is_not_measured_not_confirmed() {
        assert_eq!(judge_theory_match(0, 0, 0.01).verdict, Verdict::NotMeasured);
        assert_eq!(judge_theory_match(3, 0, 0.01).verdict, Verdict::Confirmed);
        assert_eq!(
            judge_theory_match(3, 1, 0.01).verdict,
            Verdict::Contradicted
        );
    }

    fn ev(fitted: f64, h: f64) -> SlopeEvidence {
        SlopeEvidence {
            fitted,
            ci_half_width: h,
            points: 7,
            repetitions: 20,
            chi2_df: 1.0,
        }
    }

    #[test]
    fn slope_ci_inside_the_band_is_confirmed() {
        let j = judge_slope(ev(-1.997, 0.018), SlopeSide::Both, -2.0, 0.15);
        assert_eq!(j.verdict, Verdict::Confirmed, "{j:?}");
    }

    #[test]
    fn slope_ci_outside_the_band_is_contradicted() {
        // Menart kappa = 4: -2.35 measured against -3.58.
        let j = judge_slope(ev(-2.35, 0.1), SlopeSide::Both, -3.58, 0.2);
        assert_eq!(j.verdict, Verdict::Contradicted, "{j:?}");
    }

    #[test]
    fn a_point_estimate_inside_with_a_wide_ci_is_inconclusive_with_repetitions() {
        // NSGD's held-out eps-slope: -0.945 +- 0.212 against -1 +- 0.15.
        let j = judge_slope(ev(-0.945, 0.212), SlopeSide::Both, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        // Margin to the nearer edge -0.85 is 0.095: 20 * (0.212/0.095)^2 = 99.6.
        assert!(j.reason.contains("about 100 repetitions"), "{}", j.reason);
        assert!(j.reason.contains("would confirm"), "{}", j.reason);
    }

    #[test]
    fn a_ci_set_by_misfit_names_no_repetition_count() {
        // The NSGD case with the means 50 times their error bars' chi-square
        // per degree of freedom: the CI's floor 0.212 sqrt(49/50) = 0.210
        // exceeds the margin 0.095, so no count is named or priced.
        let e = SlopeEvidence {
            chi2_df: 50.0,
            ..ev(-0.945, 0.212)
        };
        let j = judge_slope(e, SlopeSide::Both, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert_eq!(j.repetitions_to_decide(), None, "{}", j.reason);
        assert!(
            j.reason.contains("no repetition count decides it"),
            "{}",
            j.reason
        );
        // A mild misfit (chi2/df 1.1) still names a count, larger than the
        // 1/sqrt(reps) one (100): 20/(1.1 (0.095/0.212)^2 - 0.1) = 165.4.
        let e = SlopeEvidence {
            chi2_df: 1.1,
            ..ev(-0.945, 0.212)
        };
        let j = judge_slope(e, SlopeSide::Both, -1.0, 0.15);
        assert_eq!(j.repetitions_to_decide(), Some(166), "{}", j.reason);
        // No error bars (a deterministic metric): no count either.
        let e = SlopeEvidence {
            chi2_df: f64::NAN,
            ..ev(-0.945, 0.212)
        };
        let j = judge_slope(e, SlopeSide::Both, -1.0, 0.15);
        assert_eq!(j.repetitions_to_decide(), None, "{}", j.reason);
    }

    #[test]
    fn the_repetitions_an_inconclusive_reason_names_are_carried_with_it() {
        // The NSGD case above: 100 named; a decisive verdict names none.
        let j = judge_slope(ev(-0.945, 0.212), SlopeSide::Both, -1.0, 0.15);
        assert_eq!(j.repetitions_to_decide(), Some(100), "{}", j.reason);
        assert!(j.reason.contains("about 100 repetitions"), "{}", j.reason);
        let j = judge_slope(ev(-1.997, 0.018), SlopeSide::Both, -2.0, 0.15);
        assert_eq!(j.repetitions_to_decide(), None, "{}", j.reason);
        let j = Judgement::new(Verdict::Inconclusive, "about 3 points in the window");
        assert_eq!(j.repetitions_to_decide(), None);
    }

    #[test]
    fn the_gonzalez_huber_slope_is_inconclusive() {
        let j = judge_slope(ev(-0.240, 0.452), SlopeSide::AtMost, -1.0 / 3.0, 0.1);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
    }

    #[test]
    fn one_sided_expectations_judge_only_their_side() {
        assert_eq!(
            judge_slope(ev(-3.0, 0.2), SlopeSide::AtMost, -1.0, 0.2).verdict,
            Verdict::Confirmed
        );
        assert_eq!(
            judge_slope(ev(0.0, 0.1), SlopeSide::AtMost, -1.0, 0.2).verdict,
            Verdict::Contradicted
        );
        assert_eq!(
            judge_slope(ev(2.0, 0.5), SlopeSide::AtLeast, 0.5, 0.1).verdict,
            Verdict::Confirmed
        );
        let j = judge_slope(ev(0.45, 0.2), SlopeSide::AtLeast, 0.5, 0.1);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(j.reason.contains("would confirm"), "{}", j.reason);
    }

    #[test]
    fn reported_slopes_and_failed_fits_are_never_confirmed() {
        assert_eq!(
            judge_slope(ev(-1.0, 0.01), SlopeSide::Reported, -1.0, 0.0).verdict,
            Verdict::NotMeasured
        );
        assert_eq!(
            judge_slope(ev(f64::NAN, f64::NAN), SlopeSide::Both, -1.0, 0.1).verdict,
            Verdict::Inconclusive
        );
    }

    #[test]
    fn repetitions_scale_with_the_squared_ratio() {
        assert_eq!(repetitions_needed(10, 0.2, 0.1), Some(40));
        assert_eq!(repetitions_needed(10, 0.2, 0.0), None);
        // No misfit: the 1/sqrt(reps) count.
        assert_eq!(repetitions_outlook(10, 0.2, 0.1, 0.8), Outlook::Count(40));
        assert_eq!(
            repetitions_outlook(10, 0.2, 0.1, f64::NAN),
            Outlook::NoErrorBars
        );
        // chi2/df 2: the floor is 0.2 sqrt(1/2) = 0.141 > 0.1, never decided.
        match repetitions_outlook(10, 0.2, 0.1, 2.0) {
            Outlook::ScatterFloor(f) => assert!((f - 0.2 / 2f64.sqrt()).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
        // chi2/df 1.25: floor 0.089 < 0.1; h(N)^2 = (0.04/1.25)(10/N + 0.25)
        // < 0.01 needs 10/N < 0.0625, N > 160.
        assert_eq!(repetitions_outlook(10, 0.2, 0.1, 1.25), Outlook::Count(160));
    }

    fn bp(mean: f64, bound: f64) -> BoundPoint {
        BoundPoint {
            mean,
            ci_half_width: 0.01,
            bound,
        }
    }

    #[test]
    fn a_bound_at_the_trivial_maximum_is_vacuous_not_evidence() {
        let j = judge_bound(&[bp(0.1, 1.0), bp(0.05, 1.0)], Some(1.0), "");
        assert_eq!(j.verdict, Verdict::NotMeasured);
        assert!(j.reason.contains("vacuous"), "{}", j.reason);
        // Informative at one point: evidence, and said so.
        let j = judge_bound(&[bp(0.1, 1.0), bp(0.05, 0.5)], Some(1.0), "");
        assert_eq!(j.verdict, Verdict::Confirmed);
        assert!(j.reason.contains("at 1 of them"), "{}", j.reason);
    }

    #[test]
    fn a_mean_above_the_bound_is_contradicted_only_beyond_its_ci() {
        assert_eq!(
            judge_bound(&[bp(0.5, 0.4)], None, "").verdict,
            Verdict::Contradicted
        );
        assert_eq!(
            judge_bound(&[bp(0.405, 0.4)], None, "").verdict,
            Verdict::Inconclusive
        );
        assert_eq!(
            judge_bound(&[bp(0.3, 0.4)], None, "").verdict,
            Verdict::Confirmed
        );
    }

    #[test]
    fn combination_and_degradation() {
        let c = Judgement::new(Verdict::Confirmed, "");
        let i = Judgement::new(Verdict::Inconclusive, "");
        let x = Judgement::new(Verdict::Contradicted, "");
        let n = Judgement::new(Verdict::NotMeasured, "");
        assert_eq!(combine([&c, &n]), Verdict::Confirmed);
        assert_eq!(combine([&c, &i]), Verdict::Inconclusive);
        assert_eq!(combine([&c, &i, &x]), Verdict::Contradicted);
        assert_eq!(combine([&n]), Verdict::NotMeasured);
        assert_eq!(combine([]), Verdict::NotMeasured);
        assert!(Verdict::Confirmed.degrades_to(Verdict::Inconclusive));
        assert!(Verdict::Inconclusive.degrades_to(Verdict::Contradicted));
        assert!(!Verdict::Contradicted.degrades_to(Verdict::Contradicted));
        assert!(!Verdict::Inconclusive.degrades_to(Verdict::Confirmed));
        for v in Verdict::ALL {
            assert_eq!(Verdict::from_name(v.name()), Some(v));
        }
    }

    fn fit(w: (f64, f64), o: (f64, f64), points: usize) -> SlopeFit {
        let e = |(f, h): (f64, f64)| SlopeEvidence {
            fitted: f,
            ci_half_width: h,
            points,
            repetitions: 20,
            chi2_df: 1.0,
        };
        SlopeFit {
            weighted: e(w),
            ols: e(o),
            theory_curve_slope: f64::NAN,
            trivial: None,
            regime_note: String::new(),
            regime_not_reached: Vec::new(),
            revised: None,
        }
    }

    const UPPER: SlopeRule = SlopeRule::UpperBound {
        worse_is_larger: true,
        attained: true,
    };
    const SHARP: SlopeRule = SlopeRule::Declared(SlopeSide::Both);

    #[test]
    fn an_upper_bound_beaten_on_a_fast_instance_is_confirmed_not_contradicted() {
        // MN-T4-n-k2: -2.199 +- 0.06 against -1.84 +- 0.15.
        let f = fit((-2.199, 0.06), (-2.2, 0.1), 6);
        let j = judge_fit(&f, UPPER, -1.84, 0.15);
        assert_eq!(j.verdict, Verdict::Confirmed, "{j:?}");
        assert!(
            j.reason.contains("beats the bound: exponent -2.199"),
            "{}",
            j.reason
        );
        assert!(j.rules.contains(&Rule::UpperBoundOneSided));
        // The same fit against the two-sided band of a sharp rate contradicts.
        assert_eq!(
            judge_fit(&f, SHARP, -1.84, 0.15).verdict,
            Verdict::Contradicted
        );
        // Limit small: a larger exponent is the better side.
        let small = SlopeRule::UpperBound {
            worse_is_larger: false,
            attained: true,
        };
        let g = fit((-0.5, 0.05), (-0.5, 0.1), 5);
        assert_eq!(judge_fit(&g, small, -1.0, 0.1).verdict, Verdict::Confirmed);
        assert_eq!(
            judge_fit(&g, UPPER, -1.0, 0.1).verdict,
            Verdict::Contradicted
        );
    }

    #[test]
    fn a_slope_worse_than_the_bound_contradicts_only_where_the_rate_is_attained() {
        let f = fit((-0.5, 0.05), (-0.5, 0.08), 6);
        let j = judge_fit(&f, UPPER, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Contradicted, "{j:?}");
        let free = SlopeRule::UpperBound {
            worse_is_larger: true,
            attained: false,
        };
        let j = judge_fit(&f, free, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        assert!(j.rules.contains(&Rule::NotAttained));
    }

    #[test]
    fn a_three_point_window_is_never_decisive() {
        for (w, rule) in [
            ((-1.0, 0.02), SHARP),
            ((-0.5, 0.02), SHARP),
            ((-3.0, 0.1), UPPER),
        ] {
            let j = judge_fit(&fit(w, w, 3), rule, -1.0, 0.15);
            assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
            assert!(j.rules.contains(&Rule::FewPoints), "{j:?}");
            assert!(j.reason.contains("OLS"), "both fits shown: {}", j.reason);
        }
        // Four points decide.
        let j = judge_fit(&fit((-1.0, 0.02), (-1.0, 0.05), 4), SHARP, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Confirmed, "{j:?}");
    }

    #[test]
    fn weighted_and_unweighted_fits_that_disagree_are_inconclusive() {
        // The weighted fit is inside the band; OLS (a point the weights
        // silence pulls it) is outside.
        let f = fit((-1.0, 0.05), (-0.6, 0.1), 6);
        let j = judge_fit(&f, SHARP, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        assert!(j.rules.contains(&Rule::EstimatorsDisagree));
        assert!(j.reason.contains("weighted fit -1.000") && j.reason.contains("OLS -0.600"));
        // Agreement on a contradiction keeps it.
        let f = fit((-0.5, 0.05), (-0.45, 0.1), 6);
        assert_eq!(
            judge_fit(&f, SHARP, -1.0, 0.15).verdict,
            Verdict::Contradicted
        );
    }

    #[test]
    fn a_trivial_regime_fit_is_excluded_and_a_regime_not_reached_weakens_contradictions() {
        let mut f = fit((0.0, 0.01), (0.0, 0.01), 6);
        f.trivial = Some("regime not reached: the mean sits at the trivial value".into());
        let j = judge_fit(&f, SHARP, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::NotMeasured, "{j:?}");
        assert!(j.reason.contains("excluded from the evidence"));
        // Excluded parts do not count: the other study decides.
        let ok = Judgement::new(Verdict::Confirmed, "");
        assert_eq!(combine([&j, &ok]), Verdict::Confirmed);
        let mut g = fit((-0.5, 0.02), (-0.5, 0.05), 6);
        g.regime_not_reached = vec!["3 of 4 points pre-asymptotic".into()];
        let j = judge_fit(&g, SHARP, -1.0, 0.15);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        assert!(
            j.reason.contains("regime not reached: 3 of 4") && j.reason.contains("contradicted")
        );
    }

    #[test]
    fn a_theorem_curve_at_the_band_edge_cannot_be_decided_by_the_window() {
        // GGP-T4.3-n: edge -0.4, the constant-1 curve's slope -0.418, the
        // fit -0.342 +- 0.012.
        let mut f = fit((-0.342, 0.012), (-0.34, 0.03), 6);
        f.theory_curve_slope = -0.418;
        let at_most = SlopeRule::Declared(SlopeSide::AtMost);
        let j = judge_fit(&f, at_most, -0.5, 0.1);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        assert!(
            j.reason.contains("the window cannot decide"),
            "{}",
            j.reason
        );
        // A curve well inside the band leaves the contradiction standing.
        f.theory_curve_slope = -0.5;
        assert_eq!(
            judge_fit(&f, at_most, -0.5, 0.1).verdict,
            Verdict::Contradicted
        );
    }

    #[test]
    fn audits_alone_give_not_refuted_and_a_certificate_confirms() {
        let audit = Judgement::new(Verdict::NotRefuted, "");
        let cert = Judgement::new(Verdict::Confirmed, "");
        let bad = Judgement::new(Verdict::Contradicted, "");
        assert_eq!(combine([&audit]), Verdict::NotRefuted);
        assert_eq!(combine([&audit, &cert]), Verdict::Confirmed);
        assert_eq!(combine([&audit, &bad]), Verdict::Contradicted);
        assert!(Verdict::Confirmed.degrades_to(Verdict::NotRefuted));
        assert!(!Verdict::NotRefuted.is_decisive());
    }

    #[test]
    fn crossing_of_a_power_law() {
        // bound = 10 / sqrt(n): reaches 1 at n = 100.
        let x = [1.0, 4.0, 16.0];
        let y: Vec<f64> = x.iter().map(|n: &f64| 10.0 / n.sqrt()).collect();
        let at = power_law_crossing(&x, &y, 1.0).unwrap();
        assert!((at - 100.0).abs() < 1e-9, "{at}");
        assert!(power_law_crossing(&x, &[1.0, 1.0, 1.0], 0.5).is_none());
    }
}
