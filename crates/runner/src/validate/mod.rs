//! Semantic validation: turns a parsed [`ExperimentSpec`](crate::spec::ExperimentSpec) plus a profile into a
//! fully resolved [`Experiment`], or a located [`SpecError`]. Nothing runs before
//! this succeeds.
//!
//! [`resolve`] checks the experiment and hands each study to `study`, which
//! resolves the swept axes (`grid`), the fixed parameter values and privacy
//! parameters (`params`) and the slope expectations (`slopes`).

use std::collections::BTreeSet;

use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry::{AlgorithmDef, FamilyDef, Privacy, Values};
use crate::spec::LoadedSpec;
use crate::toml_path;

pub mod budget;
mod extends;
mod grid;
mod params;
mod slopes;
mod study;

pub use slopes::in_window;

/// Largest repetition count of a study: a million runs of one grid point is
/// far beyond any confidence interval this harness fits (the committed specs
/// use at most 200), and bounds the plan before anything is expanded.
pub const MAX_REPETITIONS: usize = 1_000_000;

/// Largest number of values of one grid axis (a log range's `points`), so
/// that an axis is never materialized beyond this.
pub const MAX_AXIS_POINTS: usize = 100_000;

/// Largest number of grid points of an experiment (all studies): the cost
/// estimate walks every point (about a microsecond each), so `runner plan`
/// answers in well under a second. The committed specs have at most 1 000.
pub const MAX_GRID_POINTS: f64 = 100_000.0;

/// Largest number of cells of an experiment, whatever the budget flags: the
/// plan holds 40 bytes per cell and the store a record each, so 1e8 cells
/// would need about 50 GiB before any computation.
pub const MAX_CELLS: f64 = 1e8;

/// Where a swept parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A problem-family parameter.
    Problem,
    /// An algorithm option.
    Algorithm,
    /// `eps`, `delta` or `rho`.
    Privacy,
}

/// One swept axis, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Parameter name.
    pub name: String,
    /// Where it goes.
    pub target: Target,
    /// Values in grid order.
    pub values: Vec<f64>,
}

/// The swept axes of a study by parameter name, each with where it is
/// written: what `grid::merge` returns and `params::check_privacy` reads. It
/// lives here, beside [`Axis`], so that `params` need not depend on `grid`.
type Grid = std::collections::BTreeMap<String, (crate::spec::GridAxisSpec, Vec<PathSeg>)>;

/// A resolved slope expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopeCheck {
    /// Swept parameter.
    pub param: String,
    /// Theory slope.
    pub slope: f64,
    /// Allowed absolute deviation.
    pub tolerance: f64,
    /// Which deviations fail.
    pub side: crate::spec::SlopeSide,
    /// Inclusive fit window.
    pub window: (f64, f64),
    /// Why the expectation was changed after data existed, if it was.
    pub revised: Option<String>,
    /// Why the window does not reach the theorem's regime, if it does not.
    pub regime_not_reached: Option<String>,
    /// The upper-bound rule of the ledger claims this window measures, if
    /// every one is an upper bound ([`crate::claims::study_rule`]); the
    /// declared band otherwise.
    pub claim_rule: Option<crate::claims::study_rule::ClaimRule>,
}

/// A fully resolved study.
#[derive(Debug, Clone)]
pub struct Study {
    /// Name.
    pub name: String,
    /// Title.
    pub title: String,
    /// Metric name.
    pub metric: String,
    /// The metric, resolved.
    pub metric_kind: crate::registry::Metric,
    /// Repetitions per grid point.
    pub repetitions: usize,
    /// Problem family.
    pub family: &'static FamilyDef,
    /// Algorithm.
    pub algorithm: &'static AlgorithmDef,
    /// Problem values: the fixed ones, and each swept one at its first grid
    /// value (the plan sets it per grid point).
    pub problem: Values,
    /// Algorithm values, as [`Study::problem`].
    pub options: Values,
    /// The guarantee at the first grid point, in the algorithm's unit: a
    /// swept privacy parameter holds its first grid value (a privacy axis
    /// overrides it per grid point).
    pub privacy: Privacy,
    /// The guarantee as the study's identity hash reads it
    /// ([`crate::identity`]): fixed parameters as in [`Study::privacy`], a
    /// swept one at the experiment's `privacy` value for it (NaN when it has
    /// none). No cell uses that value: before a swept parameter was written
    /// once (issue 38) every study also fixed it in its own `privacy`, and the
    /// hash of its stored results reads that value.
    pub privacy_identity: Privacy,
    /// Swept axes (cartesian grid, first axis slowest).
    pub axes: Vec<Axis>,
    /// Whether every mean must be under the bound.
    pub below_bound: bool,
    /// Whether every mean must match the exact expectation.
    pub match_theory: bool,
    /// Slope checks.
    pub slopes: Vec<SlopeCheck>,
    /// Window of the swept parameter where means must exceed the reference curve.
    pub above_reference: Option<(f64, f64)>,
    /// Combined figure this study is drawn in, if any.
    pub figure: Option<String>,
    /// Legend label in combined figures.
    pub label: String,
    /// The paper-table row it reproduces.
    pub paper: Option<crate::spec::PaperRefSpec>,
    /// The headline-table row it provides.
    pub headline: Option<crate::spec::HeadlineSpec>,
    /// Swept parameter the analysis takes the worst case over, if any.
    pub worst_case_over: Option<String>,
    /// The metric's value at a trivial release (bounds at or above it are vacuous).
    pub trivial_max: Option<f64>,
    /// Why the bound/theory/reference expectations were revised after data existed.
    pub revised: Option<String>,
    /// Why the points do not reach the theorem's regime (confirmed becomes inconclusive).
    pub regime_not_reached: Option<String>,
    /// Claim ids (of `experiments/claims/*.toml`) this study tests.
    pub claims: Vec<String>,
    /// The study of the same file whose windows this one continues farther
    /// in its claims' limit ([`crate::spec::StudySpec::extends`]).
    pub extends: Option<String>,
}

impl Study {
    /// The number of grid points of the study, as `f64` (never overflows).
    pub fn grid_size(&self) -> f64 {
        self.axes.iter().map(|a| a.values.len() as f64).product()
    }

    /// The swept axes results are drawn and fitted along: every axis but the
    /// one the worst case is taken over.
    pub fn plotted_axes(&self) -> impl Iterator<Item = &Axis> {
        self.axes
            .iter()
            .filter(move |a| self.worst_case_over.as_deref() != Some(a.name.as_str()))
    }
}

/// A fully resolved experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// Base name from the spec.
    pub name: String,
    /// Profile applied, if any.
    pub profile: Option<String>,
    /// Description.
    pub description: String,
    /// Master seed.
    pub seed: u64,
    /// Studies.
    pub studies: Vec<Study>,
    /// Titles of combined figures by name.
    pub figures: std::collections::BTreeMap<String, String>,
}

impl Experiment {
    /// The name results and figures are stored under: `<name>` or `<name>-<profile>`.
    pub fn output_name(&self) -> String {
        match &self.profile {
            Some(p) => format!("{}-{p}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Validates `loaded` under `profile` and resolves it, with the slope rules
/// of the claim files beside the spec ([`crate::claims::study_rule`]).
pub fn resolve(loaded: &LoadedSpec, profile: Option<&str>) -> Result<Experiment, SpecError> {
    let claims = crate::claims::study_rule::claims_beside(&loaded.path);
    resolve_with_claims(loaded, profile, &claims)
}

/// [`resolve`] with the claims beside the spec already loaded: the ledger
/// resolves a spec once for its default run and once per profile whose
/// summary it reads, and reads the claim files once per spec.
pub fn resolve_with_claims(
    loaded: &LoadedSpec,
    profile: Option<&str>,
    claims: &[crate::claims::spec::ClaimSpec],
) -> Result<Experiment, SpecError> {
    let loc = loaded.locator();
    let spec = &loaded.spec;
    check_name(&loc, &spec.name, &toml_path!["name"], "experiment")?;
    let profile_spec = match profile {
        None => None,
        Some(p) => Some(spec.profiles.get(p).ok_or_else(|| {
            let known: Vec<_> = spec.profiles.keys().cloned().collect();
            loc.error(
                &toml_path!["profiles"],
                format!("unknown profile `{p}`"),
                format!("profiles defined in this file: {known:?}"),
            )
        })?),
    };
    if spec.studies.is_empty() {
        return Err(loc.error(
            &toml_path!["studies"],
            "the experiment has no studies",
            "add at least one [[studies]] table",
        ));
    }
    let seed = match profile_spec.and_then(|p| p.seed) {
        Some(seed) if seed == spec.seed => {
            return Err(loc.error(
                &toml_path!["profiles", profile.unwrap_or_default(), "seed"],
                format!("the profile's seed {seed} is the experiment's own"),
                "a rerun needs new seeds (the same seed repeats the default run's first cells); pick another",
            ))
        }
        Some(seed) => seed,
        None => spec.seed,
    };
    let mut repetitions = spec.repetitions;
    let mut rep_path = toml_path!["repetitions"].to_vec();
    if let Some(r) = profile_spec.and_then(|p| p.repetitions) {
        repetitions = r;
        rep_path = toml_path!["profiles", profile.unwrap_or_default(), "repetitions"].to_vec();
    }
    let mut seen = BTreeSet::new();
    let mut studies = Vec::new();
    for (i, s) in spec.studies.iter().enumerate() {
        let base = toml_path!["studies", i];
        check_name(&loc, &s.name, &join(&base, &toml_path!["name"]), "study")?;
        if !seen.insert(s.name.clone()) {
            return Err(loc.error(
                &join(&base, &toml_path!["name"]),
                format!("duplicate study name `{}`", s.name),
                "study names must be unique within an experiment",
            ));
        }
        let per_study = profile_spec.and_then(|p| p.study_repetitions.get(&s.name).copied());
        let profile_name = profile.unwrap_or_default();
        let per_study_path = toml_path![
            "profiles",
            profile_name,
            "study_repetitions",
            s.name.as_str()
        ];
        let profile_reps = profile_spec.and_then(|p| p.repetitions);
        let (reps, reps_path) = match (per_study, profile_reps, s.repetitions) {
            (Some(r), _, _) => (r, per_study_path.to_vec()),
            (None, Some(r), _) => (r, rep_path.clone()),
            (None, None, Some(r)) => (r, join(&base, &toml_path!["repetitions"])),
            (None, None, None) => (repetitions, rep_path.clone()),
        };
        if reps < 2 {
            return Err(loc.error(
                &reps_path,
                format!("repetitions = {reps} is too small"),
                "use at least 2 repetitions so that a confidence interval exists",
            ));
        }
        if reps > MAX_REPETITIONS {
            return Err(loc.error(
                &reps_path,
                format!(
                    "repetitions = {reps} is too large (at most {MAX_REPETITIONS}): study `{}` alone would plan {} or more cells",
                    s.name,
                    crate::format::format_count(reps as f64)
                ),
                "use tens to hundreds of repetitions: the committed specs use 3 to 200, chosen for a 95% CI half-width of 0.1 on the fitted slopes",
            ));
        }
        studies.push(study::resolve(
            &loc,
            s,
            &base,
            reps,
            profile,
            profile_spec,
            &spec.privacy,
        )?);
    }
    let points: f64 = studies.iter().map(Study::grid_size).sum();
    let cells: f64 = studies
        .iter()
        .map(|s| s.grid_size() * s.repetitions as f64)
        .sum();
    if points > MAX_GRID_POINTS || cells > MAX_CELLS {
        let (i, largest) = studies
            .iter()
            .enumerate()
            .max_by(|a, b| {
                let size = |s: &Study| s.grid_size() * s.repetitions as f64;
                size(a.1).total_cmp(&size(b.1))
            })
            .expect("an experiment has studies");
        return Err(loc.error(
            &join(&toml_path!["studies", i], &toml_path!["grid"]),
            format!(
                "the experiment has {} grid points and {} cells (study `{}`: {} points x {} repetitions); the runner holds at most {} grid points and {} cells",
                crate::format::format_count(points),
                crate::format::format_count(cells),
                largest.name,
                crate::format::format_count(largest.grid_size()),
                largest.repetitions,
                crate::format::format_count(MAX_GRID_POINTS),
                crate::format::format_count(MAX_CELLS)
            ),
            "shrink the grid (fewer points per axis, fewer axes) or the repetitions; split a very large sweep into several experiment files",
        ));
    }
    extends::check_extends(&loc, &loaded.path, spec)?;
    if let Some(p) = profile_spec {
        for study in p
            .grids
            .keys()
            .chain(p.study_repetitions.keys())
            .chain(p.expect.keys())
        {
            if !seen.contains(study) {
                return Err(loc.error(
                    &toml_path!["profiles", profile.unwrap_or_default()],
                    format!("profile overrides unknown study `{study}`"),
                    format!("studies in this file: {seen:?}"),
                ));
            }
        }
    }
    if let Some(p) = profile_spec.filter(|p| !p.only.is_empty()) {
        for (i, study) in p.only.iter().enumerate() {
            if !seen.contains(study) {
                return Err(loc.error(
                    &toml_path!["profiles", profile.unwrap_or_default(), "only", i],
                    format!("profile selects unknown study `{study}`"),
                    format!("studies in this file: {seen:?}"),
                ));
            }
        }
        studies.retain(|s| p.only.contains(&s.name));
    }
    for study in &mut studies {
        for check in &mut study.slopes {
            let window = crate::claims::study_rule::Window {
                param: &check.param,
                slope: check.slope,
                side: check.side,
            };
            check.claim_rule =
                crate::claims::study_rule::rule_for(window, &study.name, &study.claims, claims);
        }
    }
    Ok(Experiment {
        name: spec.name.clone(),
        profile: profile.map(str::to_string),
        description: spec.description.clone(),
        seed,
        studies,
        figures: spec.figures.clone(),
    })
}

fn join(a: &[PathSeg], b: &[PathSeg]) -> Vec<PathSeg> {
    a.iter().chain(b).cloned().collect()
}

fn check_name(
    loc: &SpecLocator,
    name: &str,
    path: &[PathSeg],
    what: &str,
) -> Result<(), SpecError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(loc.error(
            path,
            format!("invalid {what} name `{name}`"),
            "use letters, digits, `_` and `-` only (it becomes a file and HDF5 group name)",
        ))
    }
}

/// A committed experiment file of `experiments/`, resolved under `profile`
/// (unit tests' fixture).
#[cfg(test)]
pub(crate) fn committed_experiment(file: &str, profile: Option<&str>) -> Experiment {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(file);
    resolve(&crate::spec::load(&path).unwrap(), profile).unwrap()
}
