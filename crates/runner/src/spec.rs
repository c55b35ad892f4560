//! The experiment specification: what a TOML file may say, parsed with serde.
//!
//! Parsing only checks shape (unknown keys, missing fields, wrong types);
//! [`crate::validate`] checks meaning (ranges, names, fit windows) afterwards.
//! Both report `file:line:column` through [`crate::diagnostics`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostics::{SpecError, SpecLocator};

/// A whole experiment file.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Experiment name; results go to `results/<name>.h5`.
    pub name: String,
    /// One-line description shown in reports.
    #[serde(default)]
    pub description: String,
    /// Master seed from which every cell's seeds are derived.
    pub seed: u64,
    /// Default number of repetitions per grid point.
    pub repetitions: usize,
    /// Privacy parameters every study inherits where its own `privacy` table
    /// leaves them unset (`privacy = { eps = 0.5, delta = 1e-6 }` above the
    /// first `[[studies]]`). A study that sweeps a parameter takes its values
    /// from the grid; the inherited value then only names the study's
    /// identity (as a swept option's declared default does, see
    /// [`crate::identity`]).
    #[serde(default)]
    pub privacy: PrivacySpec,
    /// The studies, each a sweep of one algorithm on one problem family.
    pub studies: Vec<StudySpec>,
    /// Titles of combined figures (see [`StudySpec::figure`]), by figure name.
    #[serde(default)]
    pub figures: BTreeMap<String, String>,
    /// Named profiles (e.g. `quick`) overriding grids and repetitions.
    #[serde(default)]
    pub profiles: BTreeMap<String, ProfileSpec>,
}

/// One study: a problem family, an algorithm, privacy parameters, a grid and expectations.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StudySpec {
    /// Unique name within the experiment (used for HDF5 groups and figure files).
    pub name: String,
    /// Human-readable title for figures and reports.
    #[serde(default)]
    pub title: String,
    /// Metric to measure, e.g. `excess_empirical_risk`.
    pub metric: String,
    /// Overrides the experiment's repetitions for this study.
    #[serde(default)]
    pub repetitions: Option<usize>,
    /// Problem family and its parameters.
    pub problem: ComponentSpec,
    /// Algorithm and its options.
    pub algorithm: ComponentSpec,
    /// Privacy parameters: each is fixed here (or inherited from the
    /// experiment's `privacy`) or swept in the grid, never both.
    #[serde(default)]
    pub privacy: PrivacySpec,
    /// Swept parameters; several form a cartesian grid.
    pub grid: BTreeMap<String, GridAxisSpec>,
    /// What theory predicts.
    #[serde(default)]
    pub expect: ExpectSpec,
    /// Ids of the claims of the ledger (`experiments/claims/*.toml`) this
    /// study tests; `runner claims` judges each claim on the named studies.
    #[serde(default)]
    pub claims: Vec<String>,
    /// Name of a combined figure: studies sharing it are drawn on one set of
    /// axes (e.g. conceptual vs implemented, sharp vs benign).
    #[serde(default)]
    pub figure: Option<String>,
    /// Legend label of this study in a combined figure (default: its name).
    #[serde(default)]
    pub label: Option<String>,
    /// Which result of which paper table the study reproduces (for the
    /// paper-table report).
    #[serde(default)]
    pub paper: Option<PaperRefSpec>,
    /// The headline-table row this study provides (`headline = { paper,
    /// theorem }`): the report then opens with one row per fitted slope of
    /// such studies, and `figures/<name>/overview.png` draws one panel each.
    #[serde(default)]
    pub headline: Option<HeadlineSpec>,
    /// A swept parameter to take the worst case over: for every value of the
    /// other swept parameters only the grid point with the largest mean is
    /// kept, and slopes, figures and the baseline use those maxima (e.g. the
    /// signal `r_factor` of Bassily et al.'s LinBall, whose rates are minimax).
    /// The bound and theory checks still cover every grid point.
    #[serde(default)]
    pub worst_case_over: Option<String>,
    /// Another study of this file whose slope windows this one continues
    /// farther in its claims' limit (larger `n`, say), on the same family and
    /// algorithm: where this study's fit of a claim is decisive, the claims
    /// ledger reads that study's inconclusive fit of the same claim as
    /// superseded (reported, not combined), since a rate is a statement about
    /// the limit. Declared with the window, before its cells run.
    #[serde(default)]
    pub extends: Option<String>,
}

/// Where a study's `extends` points: a study of the same file (`"name"`),
/// or of an experiment file beside it (`"file.toml:name"`, e.g. a farther
/// window kept out of the main job's `table1.toml`, whose default profile
/// runs every study it holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendsTarget<'a> {
    /// The file beside the extending one, when not that file itself.
    pub file: Option<&'a str>,
    /// The extended study's name.
    pub study: &'a str,
}

impl<'a> ExtendsTarget<'a> {
    /// Reads `extends`: `file.toml:name` or `name` (a study name holds no
    /// `:`, [`crate::validate`] checks names).
    pub fn parse(extends: &'a str) -> Self {
        match extends.split_once(':') {
            Some((file, study)) => ExtendsTarget {
                file: Some(file),
                study,
            },
            None => ExtendsTarget {
                file: None,
                study: extends,
            },
        }
    }

    /// The experiment file holding the extended study, for a study of the
    /// file at `spec`.
    pub fn spec_path(&self, spec: &Path) -> PathBuf {
        match self.file {
            None => spec.to_path_buf(),
            Some(file) => spec.parent().unwrap_or(Path::new("")).join(file),
        }
    }
}

/// The table row of a paper a study reproduces.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PaperRefSpec {
    /// Table of the paper, e.g. `"Table 5"`.
    pub table: String,
    /// Function class or setting, e.g. `"F^ERM, δ = 0"`.
    pub class: String,
    /// The result, e.g. `"Cor 3.1"`.
    pub result: String,
    /// The claimed rate as printed in the table, e.g. `"O(L²/μ · d/(εn))"`.
    pub claimed: String,
}

/// Where a headline-table row comes from.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeadlineSpec {
    /// The paper, e.g. `"Lowy–Razaviyayn (2021)"`.
    pub paper: String,
    /// The result whose rate the row measures, e.g. `"Prop 2.4 / Cor 2.2"`.
    pub theorem: String,
}

/// A named component (problem family or algorithm) with free-form parameters,
/// checked against the component's schema by [`crate::validate`].
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct ComponentSpec {
    /// Registered name (see `runner list`).
    #[serde(alias = "family")]
    pub name: String,
    /// Parameters by name.
    #[serde(flatten)]
    pub params: BTreeMap<String, ParamValue>,
}

/// A parameter value as written, and a written guarantee: the contract's
/// types, which its resolver turns into typed values for this spec and the
/// audit spec alike ([`contract::resolve_params`], [`contract::resolve_privacy`]).
/// A study's `privacy` sets some of `eps`, `delta` (`(eps, delta)`-DP
/// algorithms) or `rho` (zCDP ones); it inherits the others from the
/// experiment's, and a swept parameter is written in the grid only.
pub use crate::registry::{ParamValue, PrivacySpec};

/// One swept axis: an explicit list or a log-spaced range.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum GridAxisSpec {
    /// Explicit values.
    List(Vec<f64>),
    /// `points` log-spaced values from `log_range[0]` to `log_range[1]` inclusive.
    Log(LogRangeSpec),
}

/// `{ log_range = [lo, hi], points = k }`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LogRangeSpec {
    /// Endpoints, both > 0.
    pub log_range: [f64; 2],
    /// Number of points, at least 1.
    pub points: usize,
}

impl GridAxisSpec {
    /// The values of the axis (before integer rounding).
    pub fn values(&self) -> Vec<f64> {
        match self {
            GridAxisSpec::List(v) => v.clone(),
            GridAxisSpec::Log(r) => log_space(r.log_range[0], r.log_range[1], r.points),
        }
    }
}

/// `k` log-spaced values from `lo` to `hi` inclusive.
pub fn log_space(lo: f64, hi: f64, k: usize) -> Vec<f64> {
    if k == 1 {
        return vec![lo];
    }
    let (a, b) = (lo.ln(), hi.ln());
    (0..k)
        .map(|i| {
            if i == k - 1 {
                hi
            } else {
                round_significant((a + (b - a) * i as f64 / (k - 1) as f64).exp(), 12)
            }
        })
        .collect()
}

/// Rounds to `digits` significant decimal digits, so that log-spaced grid values
/// print cleanly (`0.1`, not `0.10000000000000002`) and compare exactly across runs.
pub fn round_significant(x: f64, digits: usize) -> f64 {
    format!("{:.*e}", digits.saturating_sub(1), x)
        .parse()
        .unwrap_or(x)
}

/// Expectations of a study.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// Every measured mean must stay at or below the theorem's bound.
    #[serde(default)]
    pub below_bound: bool,
    /// Every measured mean must lie within its (Bonferroni-corrected) CI of the exact expectation.
    #[serde(default)]
    pub match_theory: bool,
    /// Window `[lo, hi]` of the (single) swept parameter inside which every
    /// measured mean must lie significantly above the algorithm's reference
    /// curve (e.g. to show that a printed bound is violated).
    #[serde(default)]
    pub above_reference: Option<[f64; 2]>,
    /// Expected log-log slope per swept parameter: one fit window, or several
    /// (one per regime, e.g. `[{ slope = -2, ... }, { slope = -1, ... }]`).
    #[serde(default)]
    pub slopes: BTreeMap<String, OneOrMany<SlopeExpectation>>,
    /// The metric's value at a trivial (data-ignoring) release, e.g. 1 for a
    /// 0-1 error: a bound at or above it is vacuous (no evidence), and means
    /// within 10% of it sit at the trivial value (the rate regime is not
    /// reached there). Defaults to 1 for the 0-1 error metrics.
    #[serde(default)]
    pub trivial_max: Option<f64>,
    /// Why the study's points do not reach the theorem's regime although no
    /// mean sits near `trivial_max` (e.g. every worst-case mean equals the
    /// excess of a data-ignoring release at that point): every decisive
    /// verdict of the study (confirmed or contradicted) becomes inconclusive
    /// with this reason. It can only weaken evidence, never strengthen it.
    #[serde(default)]
    pub regime_not_reached: Option<String>,
    /// Why the bound, theory or reference expectations were changed after
    /// data existed (pre-registration: the ledger prints it).
    #[serde(default)]
    pub revised: Option<String>,
}

/// A single item or a list of them.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// One item.
    One(T),
    /// Several items.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The items as a slice.
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t),
            OneOrMany::Many(v) => v,
        }
    }
}

/// Expected slope of `log(mean metric)` against `log(parameter)`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlopeExpectation {
    /// Theory slope.
    pub slope: f64,
    /// Allowed absolute deviation of the fitted slope (required unless
    /// `side = "reported"`).
    #[serde(default)]
    pub tolerance: f64,
    /// Fit window `[lo, hi]` in parameter units (inclusive); whole grid when absent.
    #[serde(default)]
    pub fit: Option<[f64; 2]>,
    /// Which deviations fail: both sides (the default, `|fitted - slope| <= tolerance`),
    /// or one side only, for a bound that is an upper envelope.
    #[serde(default)]
    pub side: SlopeSide,
    /// Why the slope, side, tolerance or window was changed after data
    /// existed (pre-registration: the ledger prints it).
    #[serde(default)]
    pub revised: Option<String>,
    /// Why this window's points do not reach the theorem's regime (see
    /// [`ExpectSpec::regime_not_reached`]): a decisive fit becomes inconclusive.
    #[serde(default)]
    pub regime_not_reached: Option<String>,
}

/// Which side of the theory slope a fitted slope may not cross.
///
/// A theorem that gives an upper bound on the error only says the error falls
/// at least as fast as the bound: a fitted slope of -1.4 against a bound's
/// -1 is no violation. `at_most` checks exactly that (`fitted <= slope +
/// tolerance`); `at_least` is its mirror for a quantity that must grow at least
/// at a rate (`fitted >= slope - tolerance`). `reported` fits and reports
/// the slope with its CI but never fails: for a range where the theorem's
/// explicit bound is vacuous, so that no measured slope can contradict it.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SlopeSide {
    /// `|fitted - slope| <= tolerance`: the rate is claimed to be sharp.
    #[default]
    Both,
    /// `fitted <= slope + tolerance`: no shallower than an upper envelope.
    AtMost,
    /// `fitted >= slope - tolerance`: no slower growth than the claimed one.
    AtLeast,
    /// Fitted and reported beside the theory slope, never a failure.
    Reported,
}

impl SlopeSide {
    /// Whether `fitted` satisfies the expectation `slope` with `tolerance`.
    /// A NaN fit never passes, except a reported one (which never fails).
    pub fn admits(self, fitted: f64, slope: f64, tolerance: f64) -> bool {
        match self {
            SlopeSide::Both => (fitted - slope).abs() <= tolerance,
            SlopeSide::AtMost => fitted <= slope + tolerance,
            SlopeSide::AtLeast => fitted >= slope - tolerance,
            SlopeSide::Reported => true,
        }
    }

    /// The expectation in words, e.g. `+0.000 ± 0.15` or `<= -0.900 + 0.2`.
    pub fn describe(self, slope: f64, tolerance: f64) -> String {
        match self {
            SlopeSide::Both => format!("{slope:+.3} ± {tolerance}"),
            SlopeSide::AtMost => format!("<= {slope:+.3} + {tolerance}"),
            SlopeSide::AtLeast => format!(">= {slope:+.3} - {tolerance}"),
            SlopeSide::Reported => format!("reported (theory {slope:+.3})"),
        }
    }
}

/// A named profile.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// Overrides the default repetitions of every study.
    #[serde(default)]
    pub repetitions: Option<usize>,
    /// Per-study grid overrides: `grids.<study>.<param> = axis`.
    #[serde(default)]
    pub grids: BTreeMap<String, BTreeMap<String, GridAxisSpec>>,
    /// Per-study repetitions, overriding `repetitions` above for the named
    /// studies (`study_repetitions.<study> = r`): a noisy study can get more
    /// runs in a quick profile without slowing the others.
    #[serde(default)]
    pub study_repetitions: BTreeMap<String, usize>,
    /// Per-study expectations replacing the study's `expect` in this profile
    /// (`expect.<study> = { ... }`): a quick grid with two points cannot fit
    /// the default's slope, but its bound checks still apply.
    #[serde(default)]
    pub expect: BTreeMap<String, ExpectSpec>,
    /// The studies this profile runs (`only = ["a", "b"]`; every study when
    /// empty). Cell seeds do not depend on the profile, so a profile that only
    /// selects ([`ProfileSpec::selects_only`]) computes exactly the default
    /// cells of its studies: a long sweep can run on its own, and the claims
    /// ledger reads its summary for the studies the default summary lacks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    /// Master seed of this profile's cells in place of the experiment's
    /// (`seed = 20261129`): with `only` and more repetitions (or denser
    /// grids that keep every default point), and nothing else changed, an
    /// independent rerun of inconclusive studies
    /// ([`ProfileSpec::reruns_only`]), whose verdicts the claims ledger then
    /// reads in place of the default run's. It must differ from the
    /// experiment's seed (the same seed would repeat the first cells).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl ProfileSpec {
    /// Whether the profile selects studies and changes nothing else: its
    /// cells are the default profile's cells of those studies.
    pub fn selects_only(&self) -> bool {
        !self.only.is_empty()
            && self.repetitions.is_none()
            && self.grids.is_empty()
            && self.study_repetitions.is_empty()
            && self.expect.is_empty()
            && self.seed.is_none()
    }

    /// Whether the profile reruns selected studies on new seeds, with any
    /// repetitions, the default expectations, and the default grids or denser
    /// ones (every default point kept: `validate` refuses a grid override of a
    /// profile with a `seed` that drops one): an independent replication that
    /// may only add runs, so its analyses can stand in for the default run's.
    pub fn reruns_only(&self) -> bool {
        !self.only.is_empty() && self.seed.is_some() && self.expect.is_empty()
    }
}

/// A spec read from disk, with its text kept for provenance and error locations.
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    /// Path it was read from.
    pub path: PathBuf,
    /// Raw text.
    pub text: String,
    /// Parsed experiment (profile not yet applied).
    pub spec: ExperimentSpec,
}

impl LoadedSpec {
    /// A locator that turns TOML key paths into `file:line:column`.
    pub fn locator(&self) -> SpecLocator<'_> {
        SpecLocator::new(&self.path, &self.text)
    }
}

/// Reads and parses a spec file; shape errors carry `file:line:column` and a hint.
pub fn load(path: &Path) -> Result<LoadedSpec, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|e| SpecError {
        location: path.display().to_string(),
        message: format!("cannot read experiment file: {e}"),
        hint: "pass the path of an existing TOML file, e.g. experiments/table1.toml".into(),
    })?;
    let spec = parse(path, &text)?;
    Ok(LoadedSpec {
        path: path.to_path_buf(),
        text,
        spec,
    })
}

/// Parses spec text (see [`load`]).
pub fn parse(path: &Path, text: &str) -> Result<ExperimentSpec, SpecError> {
    crate::diagnostics::parse_toml(path, text, hint_for_parse_error)
}

fn hint_for_parse_error(message: &str) -> String {
    if message.contains("unknown field") {
        "remove or rename the key; the accepted keys are listed above (see docs/spec.md)".into()
    } else if message.contains("missing field") {
        "add the missing key; every study needs name, metric, problem, algorithm, privacy and grid"
            .into()
    } else if message.contains("did not match any variant") {
        "a grid axis is a list of numbers, e.g. n = [1000, 2000], or a log range, e.g. n = { log_range = [1e3, 1e6], points = 7 }"
            .into()
    } else {
        "check the TOML syntax and value types against docs/spec.md's annotated example".into()
    }
}

#[cfg(test)]
mod slope_side_tests {
    use super::SlopeSide;

    #[test]
    fn one_sided_expectations_fail_only_on_their_side() {
        // An upper envelope with slope -1: steeper fits pass, shallower ones fail.
        assert!(SlopeSide::AtMost.admits(-3.0, -1.0, 0.2));
        assert!(SlopeSide::AtMost.admits(-0.85, -1.0, 0.2));
        assert!(!SlopeSide::AtMost.admits(-0.7, -1.0, 0.2));
        // Growth of at least +0.5.
        assert!(SlopeSide::AtLeast.admits(2.0, 0.5, 0.1));
        assert!(!SlopeSide::AtLeast.admits(0.3, 0.5, 0.1));
        // Two-sided: both directions fail.
        assert!(!SlopeSide::Both.admits(-3.0, -1.0, 0.2));
        assert!(!SlopeSide::Both.admits(-0.7, -1.0, 0.2));
        assert!(SlopeSide::Both.admits(-1.1, -1.0, 0.2));
        for side in [SlopeSide::Both, SlopeSide::AtMost, SlopeSide::AtLeast] {
            assert!(!side.admits(f64::NAN, -1.0, 0.2), "{side:?} admits NaN");
        }
        // Reported slopes never fail, whatever the fit.
        for fitted in [-3.0, -1.0, 0.5, f64::NAN] {
            assert!(SlopeSide::Reported.admits(fitted, -1.0, 0.2));
        }
    }

    #[test]
    fn side_parses_from_toml_and_defaults_to_both() {
        let e: super::SlopeExpectation =
            toml::from_str("slope = -1.0\ntolerance = 0.2\nside = \"at_most\"").unwrap();
        assert_eq!(e.side, SlopeSide::AtMost);
        let e: super::SlopeExpectation = toml::from_str("slope = -1.0\ntolerance = 0.2").unwrap();
        assert_eq!(e.side, SlopeSide::Both);
        assert!(toml::from_str::<super::SlopeExpectation>(
            "slope = -1.0\ntolerance = 0.2\nside = \"below\""
        )
        .is_err());
    }
}
