//! The claim files (`experiments/claims/<paper>.toml`): what each claim is,
//! which kind of statement, and which evidence decides it; loading and
//! cross-checking them against the studies that name them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::diagnostics::{SpecError, SpecLocator};
use crate::spec::SlopeSide;
use crate::verdict::SlopeRule;

/// One claim file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimFile {
    /// The paper, as printed in reports.
    pub paper: String,
    /// The experiment file (name) whose studies name these claims.
    pub experiment: String,
    /// The claims.
    pub claims: Vec<ClaimSpec>,
}

/// What kind of statement a claim is: it decides what data could show it
/// false (experiments/claims/README.md, "Claim kinds").
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// An O(·) guarantee or an explicit bound: only worse data contradict.
    UpperBound,
    /// A rate proved tight (or attained by the paper's instance): two-sided.
    SharpRate,
    /// A printed statement, constant or calibration the digest questions:
    /// contradicted when shown false, confirmed when certified.
    Printed,
    /// A privacy guarantee: confirmed only by an accountant; an audit or a
    /// unit test on chosen pairs alone gives "not refuted".
    Privacy,
    /// "A beats B".
    Comparison,
    /// The harness's own prediction, not a claim of the paper.
    Hypothesis,
}

impl ClaimKind {
    /// The kind as written in the files and the ledger.
    pub fn name(self) -> &'static str {
        match self {
            ClaimKind::UpperBound => "upper_bound",
            ClaimKind::SharpRate => "sharp_rate",
            ClaimKind::Printed => "printed",
            ClaimKind::Privacy => "privacy",
            ClaimKind::Comparison => "comparison",
            ClaimKind::Hypothesis => "hypothesis",
        }
    }
}

/// The limit an upper bound's O(·) speaks to in its swept parameter.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The parameter growing (n, d, T): a larger exponent is worse.
    #[default]
    Large,
    /// The parameter shrinking (eps <= 1, rho, a margin): a smaller
    /// exponent is worse.
    Small,
}

/// Which checks of the naming studies decide a claim.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Every fitted slope in `parameter`.
    #[default]
    Slope,
    /// The bound expectation.
    Bound,
    /// The exact-expectation match.
    TheoryMatch,
    /// The reference expectation.
    Reference,
    /// Every check of the naming studies.
    Study,
    /// The `runner errata` rows of the claim (by `errata_id`, default `id`).
    Errata,
    /// Only the privacy audits it names (`audits`, rows of results/audit.csv).
    Audit,
    /// Unit tests that assert the claim (`tests`), run by `cargo test
    /// --workspace` in CI before the ledger is checked.
    Test,
    /// The difference of two studies' fitted slopes on one window
    /// (`difference`): the exponent of the ratio of their means.
    SlopeDifference,
}

impl Evidence {
    /// The evidence as written in the files.
    pub fn name(self) -> &'static str {
        match self {
            Evidence::Slope => "slope",
            Evidence::Bound => "bound",
            Evidence::TheoryMatch => "theory_match",
            Evidence::Reference => "reference",
            Evidence::Study => "study",
            Evidence::Errata => "errata",
            Evidence::Audit => "audit",
            Evidence::Test => "test",
            Evidence::SlopeDifference => "slope_difference",
        }
    }
}

/// One claim.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    /// Stable unique id, e.g. `MN-T1-n`.
    pub id: String,
    /// Theorem, corollary or section.
    pub theorem: String,
    /// The claim as printed.
    pub statement: String,
    /// What kind of statement it is.
    pub kind: ClaimKind,
    /// The swept variable whose slope is the evidence.
    #[serde(default)]
    pub parameter: Option<String>,
    /// Which checks decide it.
    #[serde(default)]
    pub evidence: Evidence,
    /// The expected exponent or relation, in words.
    pub expected: String,
    /// Why no study tests it (then none may name it).
    #[serde(default)]
    pub not_measured: Option<String>,
    /// Why no experiment can decide it (a lower bound over all algorithms,
    /// a proof step, a typo, a definition): its own status, apart from "not
    /// measured"; no study may name it.
    #[serde(default)]
    pub undecidable: Option<String>,
    /// With slope evidence, only the naming studies' slope expectations with
    /// this theory exponent (a study fitting two regimes on one parameter).
    #[serde(default)]
    pub slope: Option<f64>,
    /// An upper bound's limit in its parameter (which exponent is worse).
    #[serde(default)]
    pub limit: Limit,
    /// An upper bound whose naming studies' instance attains the rate, and
    /// why: a significantly worse exponent then contradicts it.
    #[serde(default)]
    pub attained: Option<String>,
    /// The naming studies whose instance attains the rate, when not all do
    /// (default: every naming study, if `attained` is set). Only these
    /// studies' windows contradict on a significantly worse exponent; an
    /// inconclusive window of another study gives way to a decisive window
    /// of one of these with the same expectation
    /// ([`super::supersede::set_aside_not_attained`]).
    #[serde(default)]
    pub attained_on: Option<Vec<String>>,
    /// A printed statement with slope evidence: the exponent it predicts
    /// (the naming study's expectation is the corrected one).
    #[serde(default)]
    pub printed_slope: Option<f64>,
    /// The errata row id, when it differs from `id`.
    #[serde(default)]
    pub errata_id: Option<String>,
    /// Anything a reader needs.
    #[serde(default)]
    pub notes: Option<String>,
    /// Rows of the committed privacy audit (results/audit.csv) that are
    /// empirical evidence for it: a violation contradicts the calibration it
    /// audits; no violation leaves it "not refuted", with the audit's power.
    #[serde(default)]
    pub audits: Vec<String>,
    /// With `evidence = "test"`: the unit tests that assert the claim, as
    /// `path/from/repo/root.rs::test_function`.
    #[serde(default)]
    pub tests: Vec<String>,
    /// A printed statement's tests: what they assert. `shown_false` (the
    /// default): a counterexample, so the row reads contradicted.
    /// `no_counterexample`: they looked for one where the statement is
    /// weakest and assert it holds there, so the row reads not refuted.
    #[serde(default)]
    pub test_reading: Option<TestReading>,
    /// With `evidence = "slope_difference"`: the two studies and the
    /// expected difference of their slopes.
    #[serde(default)]
    pub difference: Option<SlopeDifference>,
    /// What lies beyond the naming studies' windows, written where the
    /// ledger's priced next decade would mislead (a decade the algorithm
    /// cannot run at the study's other values, or one whose cost the plan
    /// is known to miss): it replaces that clause in every misfit or
    /// not-attained part's reason ([`super::beyond`]). On an errata claim it
    /// follows an uncertified calibration's reason: what would decide it.
    #[serde(default)]
    pub beyond: Option<String>,
}

/// The expectation of a `slope_difference` claim: the slope of
/// `log(mean of minuend / mean of subtrahend)` in the claim's `parameter`,
/// the difference of the two studies' fitted slopes on `fit`, each study
/// declaring a slope window there (its own expectation, or `reported`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlopeDifference {
    /// The study whose slope is subtracted from.
    pub minuend: String,
    /// The study whose slope is subtracted.
    pub subtrahend: String,
    /// Expected difference.
    pub slope: f64,
    /// Allowed deviation.
    pub tolerance: f64,
    /// Which deviations fail (default two-sided).
    #[serde(default)]
    pub side: SlopeSide,
    /// The fit window both studies declare.
    pub fit: [f64; 2],
    /// Both studies' instances attain their theorems' rates, so a
    /// difference outside the band contradicts; otherwise (the default) a
    /// difference of two upper bounds outside the band is inconclusive.
    #[serde(default)]
    pub attained: bool,
    /// Farther windows of the same difference, each on a pair of studies
    /// whose minuend `extends` the nearer minuend (a farther window of the
    /// same instance, written before its cells ran): judged with this
    /// difference's expectation, each is a part of its own, and a decisive
    /// one supersedes an inconclusive nearer one as for a single study's
    /// windows ([`super::supersede`]).
    #[serde(default)]
    pub farther: Vec<FartherDifference>,
}

/// A farther window of a [`SlopeDifference`]: its two studies and the
/// window both declare.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FartherDifference {
    /// The study whose slope is subtracted from.
    pub minuend: String,
    /// The study whose slope is subtracted.
    pub subtrahend: String,
    /// The fit window both declare.
    pub fit: [f64; 2],
}

/// What a printed statement's unit tests assert.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TestReading {
    /// A counterexample: the statement is false (contradicted).
    ShownFalse,
    /// The statement holds on the instances where it is weakest, which
    /// shows no counterexample and proves nothing (not refuted).
    NoCounterexample,
}

impl ClaimSpec {
    /// Whether `study`'s instance attains this upper bound's rate
    /// ([`ClaimSpec::attained`], [`ClaimSpec::attained_on`]).
    pub fn attains(&self, study: &str) -> bool {
        self.attained.is_some()
            && self
                .attained_on
                .as_ref()
                .is_none_or(|on| on.iter().any(|s| s == study))
    }

    /// The rule a slope of this claim is judged by, and the exponent it is
    /// judged against, given the naming study `study`'s declared `side` and
    /// `slope`.
    pub fn slope_rule(&self, study: &str, side: SlopeSide, slope: f64) -> (SlopeRule, f64) {
        if side == SlopeSide::Reported {
            return (SlopeRule::Declared(side), slope);
        }
        match self.kind {
            ClaimKind::UpperBound => (
                SlopeRule::UpperBound {
                    worse_is_larger: self.limit == Limit::Large,
                    attained: self.attains(study),
                },
                slope,
            ),
            ClaimKind::SharpRate => (SlopeRule::Declared(SlopeSide::Both), slope),
            ClaimKind::Printed => (
                SlopeRule::Declared(SlopeSide::Both),
                self.printed_slope.unwrap_or(slope),
            ),
            ClaimKind::Privacy | ClaimKind::Comparison | ClaimKind::Hypothesis => {
                (SlopeRule::Declared(side), slope)
            }
        }
    }

    /// Whether a study's slope window on `param` with exponent `slope` is
    /// one this claim is judged on: the claim's parameter, and its `slope`
    /// selector (if any) picks the window. The ledger's evidence, a study's
    /// own rule ([`super::study_rule`]) and the side check of `runner claims`
    /// all read windows through this one predicate.
    pub fn selects_window(&self, param: &str, slope: f64) -> bool {
        self.parameter.as_deref() == Some(param)
            && self.slope.is_none_or(|x| (slope - x).abs() < 1e-9)
    }
}

/// The `.toml` files directly in `dir`, sorted by name (a stable ledger
/// order), without the audit spec.
pub fn toml_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            !std::fs::read_to_string(p).is_ok_and(|t| crate::audit::spec::is_audit_spec(&t))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// Loads every claim file of `dir`, sorted by file name.
pub fn load_claims(dir: &Path) -> Result<Vec<(PathBuf, ClaimFile)>> {
    toml_files(dir)?
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            let file: ClaimFile = toml::from_str(&text).map_err(|e| SpecError {
                location: match e.span() {
                    Some(span) => SpecLocator::new(&p, &text).at_offset(span.start),
                    None => p.display().to_string(),
                },
                message: e.message().trim().to_string(),
                hint: "see experiments/claims/README.md for the fields of a claim".into(),
            })?;
            Ok((p, file))
        })
        .collect()
}
