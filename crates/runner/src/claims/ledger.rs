//! The ledger: one row per claim, its verdict combined from its parts under
//! the claim's kind, and the comparison with a committed ledger.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::csv::read_csv;
use crate::format::sig;
use crate::verdict::{combine, Judgement, Rule, Verdict};

use super::evidence::{
    audit_parts, difference_fits, errata_parts, study_parts, test_parts, AuditRow, Judged, Part,
    SetAside,
};
use super::prereg::{Prereg, PreregStatus};
use super::spec::{ClaimFile, ClaimKind, ClaimSpec, Evidence};

/// One row of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerRow {
    /// The paper.
    pub paper: String,
    /// The claim id.
    pub claim_id: String,
    /// Theorem or section.
    pub theorem: String,
    /// Kind of claim.
    pub kind: ClaimKind,
    /// The statement as printed.
    pub statement: String,
    /// Swept parameter (empty when not a slope claim).
    pub parameter: String,
    /// Expected relation.
    pub expected: String,
    /// Evidence kind.
    pub evidence: String,
    /// The decisive measured value (a fitted slope, a max mean/bound), NaN if none.
    pub measured: f64,
    /// Its 95% CI, low end.
    pub ci_low: f64,
    /// Its 95% CI, high end.
    pub ci_high: f64,
    /// The fit window of the decisive slope.
    pub window: String,
    /// Points in that window (0 when not a slope).
    pub points: usize,
    /// The theorem curve's own local slope over the window (NaN if unknown).
    pub theory_curve_slope: f64,
    /// The OLS slope of the log means over the window (NaN if none).
    pub ols_slope: f64,
    /// chi²/df of the weighted fit (NaN if none).
    pub chi2_df: f64,
    /// p-value of the curvature test (NaN with fewer than 4 points).
    pub curvature_p: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, with every naming study's part.
    pub reason: String,
    /// The verdict rules that moved a part's verdict (see [`Rule`]).
    pub rules: Vec<Rule>,
    /// For an inconclusive row, what keeps it open ([`OpenCause`]).
    pub open: Option<OpenCause>,
    /// Revision notes of the expectations involved.
    pub revised: String,
    /// Whether the study expectations were committed before their data
    /// (`before`, `after`, `after (revised)`, `unknown`; empty without one).
    pub prereg: String,
    /// Expectations set after their data without a `revised` reason.
    pub unrevised_post_hoc: Vec<String>,
    /// The naming studies, `experiment:study`.
    pub studies: String,
    /// The experiment files involved.
    pub spec: String,
}

/// What keeps an inconclusive row open, that is, what would decide it. In
/// order: the first a row's inconclusive parts name is the row's (the most
/// actionable first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpenCause {
    /// More repetitions: the reason names about how many.
    Repetitions,
    /// The means miss one power law over the window (or the estimate sits on
    /// the band edge, or the metric has no error bars): no repetition count
    /// decides it; a window inside one regime might.
    Misfit,
    /// A worse exponent on an instance not shown to attain the rate: an O(.)
    /// bound is contradicted only where the rate is attained (or by a mean
    /// above an explicit bound), so only such an instance decides it.
    NotAttained,
    /// The regime is not reached on this grid (declared, at the trivial
    /// value, or the theorem's own curve at the band edge).
    Regime,
    /// Fewer than 4 points in the window.
    FewPoints,
    /// Anything else (an estimator disagreement without a count, an errata
    /// comparison, a fit that failed): the reason says.
    Other,
}

impl OpenCause {
    /// Short name (the ledger CSV's `open` column).
    pub fn name(self) -> &'static str {
        match self {
            OpenCause::Repetitions => "repetitions",
            OpenCause::Misfit => "misfit",
            OpenCause::NotAttained => "not attained",
            OpenCause::Regime => "regime not reached",
            OpenCause::FewPoints => "few points",
            OpenCause::Other => "other",
        }
    }

    /// What would decide a row open for this cause.
    pub fn decides(self) -> &'static str {
        match self {
            OpenCause::Repetitions => "more repetitions (each reason names about how many, and the cost)",
            OpenCause::Misfit => "no repetition count: the means miss one power law over the window; a window inside one regime (often larger n, beyond the committed grid) might. Each reason says what lies beyond the window on the side of the claim's limit: grid points already measured there, or the next decade's cost by runner plan's model against the 1 core-hour line",
            OpenCause::NotAttained => "no experiment on this instance: a worse exponent contradicts an O(.) bound only on an instance that attains the rate, and none is known to the harness. Each reason prices the next decade beyond the window, as for a misfit",
            OpenCause::Regime => "a grid that reaches the regime (each reason says where the curve leaves the trivial value, or why the window cannot)",
            OpenCause::FewPoints => "more grid points in the window",
            OpenCause::Other => "see each reason",
        }
    }

    /// The cause of one inconclusive judgement.
    fn of(j: &crate::verdict::Judgement) -> Self {
        use crate::verdict::Outlook;
        match j.outlook {
            Some(Outlook::Count(_)) => return OpenCause::Repetitions,
            Some(_) => return OpenCause::Misfit,
            None => {}
        }
        let has = |r: Rule| j.rules.contains(&r);
        if has(Rule::NotAttained) {
            OpenCause::NotAttained
        } else if has(Rule::RegimeNotReached)
            || has(Rule::WindowCannotDecide)
            || has(Rule::TrivialExcluded)
        {
            OpenCause::Regime
        } else if has(Rule::FewPoints) {
            OpenCause::FewPoints
        } else {
            OpenCause::Other
        }
    }
}

impl LedgerRow {
    /// Whether the row is one of the paper's claims (not a harness hypothesis).
    pub fn is_paper_claim(&self) -> bool {
        self.kind != ClaimKind::Hypothesis
    }
}

/// Builds the ledger: one row per claim, in claim-file order, without audit
/// evidence or pre-registration ([`ledger_with`]).
pub fn ledger(claims: &[(PathBuf, ClaimFile)], judged: &[Judged]) -> Vec<LedgerRow> {
    ledger_with(claims, judged, &[], &Prereg::default(), Path::new("."))
}

/// Builds the ledger with the committed audit's rows as evidence and the
/// pre-registration of every study expectation.
pub fn ledger_with(
    claims: &[(PathBuf, ClaimFile)],
    judged: &[Judged],
    audits: &[AuditRow],
    prereg: &Prereg,
    repo: &Path,
) -> Vec<LedgerRow> {
    let errata = crate::errata::errata();
    let mut rows = Vec::new();
    for (_, file) in claims {
        for c in &file.claims {
            let mut parts: Vec<Part> = Vec::new();
            let mut studies = Vec::new();
            let mut specs = BTreeSet::new();
            let mut revised = Vec::new();
            for j in judged {
                for (i, study) in j.experiment.studies.iter().enumerate() {
                    if !study.claims.contains(&c.id) {
                        continue;
                    }
                    let exp = &j.sources[i];
                    studies.push(format!("{exp}:{}", study.name));
                    specs.insert(j.path.display().to_string());
                    for why in study
                        .slopes
                        .iter()
                        .filter_map(|s| s.revised.as_deref())
                        .chain(study.revised.as_deref())
                    {
                        revised.push(format!("{}: {why}", study.name));
                    }
                    match &j.analyses {
                        Some(a) => parts.extend(study_parts(c, &j.path, exp, study, &a[i])),
                        None => parts.push(Part {
                            where_: format!("{exp}:{}", study.name),
                            judgement: Judgement::new(
                                Verdict::NotMeasured,
                                format!("no committed summary of {exp}"),
                            ),
                            slope: None,
                            max_bound_ratio: f64::NAN,
                            check: None,
                            set_aside: None,
                        }),
                    }
                }
            }
            if c.evidence == Evidence::Errata {
                parts.extend(errata_parts(c, &errata));
            }
            let differences = if c.evidence == Evidence::SlopeDifference {
                difference_fits(c, judged)
            } else {
                Vec::new()
            };
            for difference in &differences {
                match difference {
                    Ok((fit, check, where_)) => parts.push(Part {
                        where_: where_.clone(),
                        judgement: fit.judgement.clone(),
                        slope: Some(fit),
                        max_bound_ratio: f64::NAN,
                        check: Some(check.clone()),
                        set_aside: None,
                    }),
                    Err(why) => parts.push(Part::plain(
                        "slope difference".into(),
                        Judgement::new(Verdict::NotMeasured, why.clone()),
                    )),
                }
            }
            parts.extend(audit_parts(c, audits));
            parts.extend(test_parts(c, repo));
            super::supersede::supersede_nearer_windows(&mut parts, judged, c.limit);
            super::supersede::set_aside_unreached(&mut parts);
            super::supersede::set_aside_not_attained(&mut parts, c);
            rows.push(row(file, c, &parts, studies, specs, revised, prereg));
        }
    }
    rows
}

/// The pre-registration of a row's decisive study expectations: `before`
/// when every one was committed before its data; `after (revised)` when
/// some were set after but each says why; `after` otherwise.
fn prereg_of(parts: &[Part], prereg: &Prereg) -> (String, Vec<String>) {
    let mut statuses = Vec::new();
    let mut unrevised = Vec::new();
    for p in parts
        .iter()
        .filter(|p| p.judgement.verdict != Verdict::NotMeasured)
    {
        let Some(check) = &p.check else { continue };
        let status = prereg.status(check);
        if let PreregStatus::After { revised: false } = status {
            unrevised.push(p.where_.clone());
        }
        statuses.push(status);
    }
    let label = if statuses.is_empty() {
        String::new()
    } else if statuses.iter().all(|s| *s == PreregStatus::Before) {
        "before".into()
    } else if statuses.contains(&PreregStatus::After { revised: false }) {
        "after".into()
    } else if statuses
        .iter()
        .any(|s| matches!(s, PreregStatus::After { .. }))
    {
        "after (revised)".into()
    } else {
        "unknown".into()
    };
    (label, unrevised)
}

fn row(
    file: &ClaimFile,
    c: &ClaimSpec,
    parts: &[Part],
    studies: Vec<String>,
    specs: BTreeSet<String>,
    revised: Vec<String>,
    prereg: &Prereg,
) -> LedgerRow {
    // A superseded or set-aside part is reported in the reason, not combined.
    let live = || parts.iter().filter(|p| p.set_aside.is_none());
    let verdict = match &c.undecidable {
        Some(_) => Verdict::Undecidable,
        None => combine(live().map(|p| &p.judgement)),
    };
    let reason = match (&c.not_measured, &c.undecidable) {
        (_, Some(why)) => why.clone(),
        (Some(why), _) if parts.is_empty() => why.clone(),
        _ if parts.is_empty() => "no evidence: no study names it and no errata row matches".into(),
        (_, None) => {
            let count = |v: Verdict| live().filter(|p| p.judgement.verdict == v).count();
            let mut tally: Vec<String> = Verdict::ALL
                .into_iter()
                .filter(|v| count(*v) > 0)
                .map(|v| format!("{} {v}", count(v)))
                .collect();
            let count = |kind: fn(&SetAside) -> bool| {
                parts
                    .iter()
                    .filter(|p| p.set_aside.as_ref().is_some_and(kind))
                    .count()
            };
            let superseded = count(|s| matches!(s, SetAside::Farther(_)));
            if superseded > 0 {
                tally.push(format!("{superseded} superseded"));
            }
            let set_aside = count(|s| matches!(s, SetAside::RegimeElsewhere(_)));
            let not_attained = count(|s| matches!(s, SetAside::AttainedElsewhere(_)));
            if set_aside > 0 {
                tally.push(format!("{set_aside} set aside (regime not reached there)"));
            }
            if not_attained > 0 {
                tally.push(format!(
                    "{not_attained} set aside (an instance that does not attain the rate)"
                ));
            }
            let details: Vec<String> = parts
                .iter()
                .map(|p| match &p.set_aside {
                    None => format!(
                        "{}: {}, {}",
                        p.where_, p.judgement.verdict, p.judgement.reason
                    ),
                    Some(SetAside::Farther(by)) => format!(
                        "{}: {}, superseded by {by}'s decisive window farther in the claim's limit (it extends this study), so left out of the verdict: {}",
                        p.where_, p.judgement.verdict, p.judgement.reason
                    ),
                    Some(SetAside::RegimeElsewhere(by)) => format!(
                        "{}: {}, set aside: its window declares the claim's regime not reached, and {by} measures that regime (same parameter and expectation) decisively, so it is left out of the verdict: {}",
                        p.where_, p.judgement.verdict, p.judgement.reason
                    ),
                    Some(SetAside::AttainedElsewhere(by)) => format!(
                        "{}: {}, set aside: its instance does not attain the bound's rate, so no window of it can contradict the bound, and {by}, on an instance that attains it, decides the same expectation, so it is left out of the verdict: {}",
                        p.where_, p.judgement.verdict, p.judgement.reason
                    ),
                })
                .collect();
            format!("{} — {}", tally.join(", "), details.join(" | "))
        }
    };
    // The decisive part: the first with the claim's verdict, else the first
    // slope (so an excluded or inconclusive fit still shows its numbers).
    let decisive = live()
        .find(|p| p.judgement.verdict == verdict)
        .filter(|p| p.slope.is_some() || live().all(|q| q.slope.is_none()))
        .or_else(|| live().find(|p| p.slope.is_some()))
        .or_else(|| live().find(|p| p.judgement.verdict == verdict));
    let slope = decisive.and_then(|p| p.slope);
    let (measured, ci_low, ci_high, window) = match slope {
        Some(s) => (
            s.fitted,
            s.fitted - s.ci_half_width,
            s.fitted + s.ci_half_width,
            format!("[{}, {}]", sig(s.window.0), sig(s.window.1)),
        ),
        None => (
            decisive.map_or(f64::NAN, |p| p.max_bound_ratio),
            f64::NAN,
            f64::NAN,
            String::new(),
        ),
    };
    let open = (verdict == Verdict::Inconclusive).then(|| {
        live()
            .filter(|p| p.judgement.verdict == Verdict::Inconclusive)
            .map(|p| OpenCause::of(&p.judgement))
            .min()
            .unwrap_or(OpenCause::Other)
    });
    let mut rules: Vec<Rule> = live()
        .flat_map(|p| p.judgement.rules.iter().copied())
        .collect();
    rules.sort();
    rules.dedup();
    let mut revised = revised;
    revised.dedup();
    let (prereg_label, unrevised_post_hoc) = prereg_of(parts, prereg);
    LedgerRow {
        paper: file.paper.clone(),
        claim_id: c.id.clone(),
        theorem: c.theorem.clone(),
        kind: c.kind,
        statement: c.statement.clone(),
        parameter: c.parameter.clone().unwrap_or_default(),
        expected: c.expected.clone(),
        evidence: c.evidence.name().into(),
        measured,
        ci_low,
        ci_high,
        window,
        points: slope.map_or(0, |s| s.points),
        theory_curve_slope: slope.map_or(f64::NAN, |s| s.theory_curve_slope),
        ols_slope: slope.map_or(f64::NAN, |s| s.fit.ols.fitted),
        chi2_df: slope.map_or(f64::NAN, |s| s.chi2_df),
        curvature_p: slope.map_or(f64::NAN, |s| s.curvature_p),
        verdict,
        reason,
        rules,
        open,
        revised: revised.join(" | "),
        prereg: prereg_label,
        unrevised_post_hoc,
        studies: studies.join(" "),
        spec: specs.into_iter().collect::<Vec<_>>().join(" "),
    }
}

/// Reads the claim ids and verdicts of a committed ledger CSV.
pub fn read_verdicts(path: &Path) -> Result<BTreeMap<String, Verdict>> {
    let csv = read_csv(path).with_context(|| format!("reading {}", path.display()))?;
    let col = |name| csv.column(name).with_context(|| path.display().to_string());
    let (id, verdict) = (col("claim_id")?, col("verdict")?);
    let mut out = BTreeMap::new();
    for i in 0..csv.rows.len() {
        let (Some(c), Some(v)) = (csv.get(i, id), csv.get(i, verdict)) else {
            bail!("{} row {i} is incomplete", path.display());
        };
        let v = Verdict::from_name(v)
            .with_context(|| format!("{} row {i}: unknown verdict `{v}`", path.display()))?;
        out.insert(c.to_string(), v);
    }
    Ok(out)
}

/// The claims whose verdict lost evidence against `committed`, as messages
/// (a claim gone from the ledger counts as not measured).
pub fn degradations(rows: &[LedgerRow], committed: &BTreeMap<String, Verdict>) -> Vec<String> {
    let now: BTreeMap<&str, &LedgerRow> = rows.iter().map(|r| (r.claim_id.as_str(), r)).collect();
    let mut out = Vec::new();
    for (id, &before) in committed {
        let (v, why) = match now.get(id.as_str()) {
            Some(r) => (r.verdict, r.reason.as_str()),
            None => (Verdict::NotMeasured, "the claim is gone from the ledger"),
        };
        if before.degrades_to(v) {
            out.push(format!("{id}: {before} (committed) -> {v}: {why}"));
        }
    }
    for r in rows {
        if !committed.contains_key(&r.claim_id) && r.verdict == Verdict::Contradicted {
            out.push(format!(
                "{}: contradicted, and the committed ledger does not say so: {}",
                r.claim_id, r.reason
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Judgement, Outlook};

    fn inconclusive() -> Judgement {
        Judgement::new(Verdict::Inconclusive, "r")
    }

    #[test]
    fn an_open_row_names_what_would_decide_it() {
        let with = |o: Outlook| Judgement {
            outlook: Some(o),
            ..inconclusive()
        };
        assert_eq!(
            OpenCause::of(&with(Outlook::Count(400))),
            OpenCause::Repetitions
        );
        assert_eq!(
            OpenCause::of(&with(Outlook::ScatterFloor(0.3))),
            OpenCause::Misfit
        );
        assert_eq!(OpenCause::of(&with(Outlook::OnEdge)), OpenCause::Misfit);
        assert_eq!(
            OpenCause::of(&with(Outlook::NoErrorBars)),
            OpenCause::Misfit
        );
        let by = |r: Rule| OpenCause::of(&inconclusive().by(r));
        assert_eq!(by(Rule::NotAttained), OpenCause::NotAttained);
        assert_eq!(by(Rule::RegimeNotReached), OpenCause::Regime);
        assert_eq!(by(Rule::WindowCannotDecide), OpenCause::Regime);
        assert_eq!(by(Rule::FewPoints), OpenCause::FewPoints);
        assert_eq!(OpenCause::of(&inconclusive()), OpenCause::Other);
        // A straddle's outlook outranks the rules that came with it.
        let both = Judgement {
            outlook: Some(Outlook::Count(50)),
            ..inconclusive().by(Rule::NotAttained)
        };
        assert_eq!(OpenCause::of(&both), OpenCause::Repetitions);
        // A row takes the most actionable cause of its parts.
        assert!(OpenCause::Repetitions < OpenCause::Misfit);
        assert!(OpenCause::Misfit < OpenCause::NotAttained);
    }
}
