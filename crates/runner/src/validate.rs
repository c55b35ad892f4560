//! Semantic validation: turns a parsed [`ExperimentSpec`] plus a profile into a
//! fully resolved [`Experiment`], or a located [`SpecError`]. Nothing runs before
//! this succeeds.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry::{self, AlgorithmDef, FamilyDef, ParamDef, ParamKind, Value, Values};
use crate::spec::{GridAxisSpec, LoadedSpec, ParamValue, StudySpec};
use crate::toml_path;

/// Where a swept parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A problem-family parameter.
    Problem,
    /// An algorithm option.
    Algorithm,
    /// `eps` or `delta`.
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

/// A resolved slope expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopeCheck {
    /// Swept parameter.
    pub param: String,
    /// Theory slope.
    pub slope: f64,
    /// Allowed absolute deviation.
    pub tolerance: f64,
    /// Inclusive fit window.
    pub window: (f64, f64),
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
    /// Repetitions per grid point.
    pub repetitions: usize,
    /// Problem family.
    pub family: &'static FamilyDef,
    /// Algorithm.
    pub algorithm: &'static AlgorithmDef,
    /// Fixed problem values (swept ones hold their first grid value).
    pub problem: Values,
    /// Fixed algorithm values.
    pub options: Values,
    /// Fixed eps.
    pub eps: f64,
    /// Fixed delta.
    pub delta: f64,
    /// Swept axes (cartesian grid, first axis slowest).
    pub axes: Vec<Axis>,
    /// Whether every mean must be under the bound.
    pub below_bound: bool,
    /// Whether every mean must match the exact expectation.
    pub match_theory: bool,
    /// Slope checks.
    pub slopes: Vec<SlopeCheck>,
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

/// Validates `loaded` under `profile` and resolves it.
pub fn resolve(loaded: &LoadedSpec, profile: Option<&str>) -> Result<Experiment, SpecError> {
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
        let (reps, reps_path) = match (s.repetitions, profile_spec.and_then(|p| p.repetitions)) {
            (_, Some(r)) => (r, rep_path.clone()),
            (Some(r), None) => (r, join(&base, &toml_path!["repetitions"])),
            (None, None) => (repetitions, rep_path.clone()),
        };
        if reps < 2 {
            return Err(loc.error(
                &reps_path,
                format!("repetitions = {reps} is too small"),
                "use at least 2 repetitions so that a confidence interval exists",
            ));
        }
        studies.push(resolve_study(&loc, s, &base, reps, profile, profile_spec)?);
    }
    if let Some(p) = profile_spec {
        for study in p.grids.keys() {
            if !seen.contains(study) {
                return Err(loc.error(
                    &toml_path!["profiles", profile.unwrap_or_default()],
                    format!("profile overrides unknown study `{study}`"),
                    format!("studies in this file: {seen:?}"),
                ));
            }
        }
    }
    Ok(Experiment {
        name: spec.name.clone(),
        profile: profile.map(str::to_string),
        description: spec.description.clone(),
        seed: spec.seed,
        studies,
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

fn resolve_study(
    loc: &SpecLocator,
    s: &StudySpec,
    base: &[PathSeg],
    repetitions: usize,
    profile: Option<&str>,
    profile_spec: Option<&crate::spec::ProfileSpec>,
) -> Result<Study, SpecError> {
    let family = registry::family(&s.problem.name).ok_or_else(|| {
        loc.error(
            &join(base, &toml_path!["problem", "family"]),
            format!("unknown problem family `{}`", s.problem.name),
            format!("known families: {:?} (see `runner list`)", family_names()),
        )
    })?;
    let algorithm = registry::algorithm(&s.algorithm.name).ok_or_else(|| {
        loc.error(
            &join(base, &toml_path!["algorithm", "name"]),
            format!("unknown algorithm `{}`", s.algorithm.name),
            format!(
                "known algorithms: {:?} (see `runner list`)",
                algorithm_names()
            ),
        )
    })?;
    if !family.metrics.contains(&s.metric.as_str()) {
        return Err(loc.error(
            &join(base, &toml_path!["metric"]),
            format!(
                "family `{}` cannot measure metric `{}`",
                family.name, s.metric
            ),
            format!("metrics it measures exactly: {:?}", family.metrics),
        ));
    }

    // Grid: the base grid, with a profile's per-study override replacing whole axes.
    let mut grid: BTreeMap<String, (GridAxisSpec, Vec<PathSeg>)> = s
        .grid
        .iter()
        .map(|(k, v)| (k.clone(), (v.clone(), join(base, &toml_path!["grid", k]))))
        .collect();
    if let (Some(p), Some(ps)) = (profile, profile_spec) {
        for (k, v) in ps.grids.get(&s.name).into_iter().flatten() {
            let path = toml_path!["profiles", p, "grids", &s.name, k].to_vec();
            if !grid.contains_key(k) {
                return Err(loc.error(
                    &path,
                    format!(
                        "profile sweeps `{k}`, which study `{}` does not sweep",
                        s.name
                    ),
                    format!(
                        "a profile may only override swept axes: {:?}",
                        s.grid.keys()
                    ),
                ));
            }
            grid.insert(k.clone(), (v.clone(), path));
        }
    }
    if grid.is_empty() {
        return Err(loc.error(
            &join(base, &toml_path!["grid"]),
            "the grid is empty",
            "sweep at least one parameter, e.g. n = { log_range = [1e3, 1e6], points = 7 }",
        ));
    }

    let mut axes = Vec::new();
    for (name, (axis, path)) in &grid {
        let (target, def) = locate_param(loc, family, algorithm, name, path)?;
        let values = axis_values(loc, axis, path, name, def)?;
        axes.push(Axis {
            name: name.clone(),
            target,
            values,
        });
    }
    let swept: BTreeSet<&str> = axes.iter().map(|a| a.name.as_str()).collect();

    let problem = resolve_values(
        loc,
        family.params,
        &s.problem.params,
        &join(base, &toml_path!["problem"]),
        &swept,
        &format!("family `{}`", family.name),
        &["family", "name"],
    )?;
    let options = resolve_values(
        loc,
        algorithm.options,
        &s.algorithm.params,
        &join(base, &toml_path!["algorithm"]),
        &swept,
        &format!("algorithm `{}`", algorithm.name),
        &["name"],
    )?;
    check_eps(
        loc,
        s.privacy.eps,
        &join(base, &toml_path!["privacy", "eps"]),
    )?;
    check_delta(
        loc,
        s.privacy.delta,
        algorithm,
        &join(base, &toml_path!["privacy", "delta"]),
    )?;
    for axis in &axes {
        let path = grid[&axis.name].1.clone();
        for &v in &axis.values {
            match axis.name.as_str() {
                "eps" => check_eps(loc, v, &path)?,
                "delta" => check_delta(loc, v, algorithm, &path)?,
                _ => {}
            }
        }
    }

    let mut slopes = Vec::new();
    for (param, expectations) in &s.expect.slopes {
        for (j, exp) in expectations.as_slice().iter().enumerate() {
            let mut path = join(base, &toml_path!["expect", "slopes", param]);
            if matches!(expectations, crate::spec::OneOrMany::Many(_)) {
                path.push(PathSeg::Index(j));
            }
            slopes.push(resolve_slope(loc, &axes, &swept, param, exp, &path)?);
        }
    }

    Ok(Study {
        name: s.name.clone(),
        title: if s.title.is_empty() {
            s.name.clone()
        } else {
            s.title.clone()
        },
        metric: s.metric.clone(),
        repetitions,
        family,
        algorithm,
        problem,
        options,
        eps: s.privacy.eps,
        delta: s.privacy.delta,
        axes,
        below_bound: s.expect.below_bound,
        match_theory: s.expect.match_theory,
        slopes,
    })
}

fn resolve_slope(
    loc: &SpecLocator,
    axes: &[Axis],
    swept: &BTreeSet<&str>,
    param: &str,
    exp: &crate::spec::SlopeExpectation,
    path: &[PathSeg],
) -> Result<SlopeCheck, SpecError> {
    let Some(axis) = axes.iter().find(|a| a.name == param) else {
        return Err(loc.error(
            path,
            format!("slope expected for `{param}`, which is not swept"),
            format!("swept parameters: {swept:?}"),
        ));
    };
    if !(exp.tolerance.is_finite() && exp.tolerance > 0.0 && exp.slope.is_finite()) {
        return Err(loc.error(
            path,
            format!(
                "slope {} with tolerance {} is not usable",
                exp.slope, exp.tolerance
            ),
            "give a finite slope and a tolerance > 0",
        ));
    }
    let window = exp.fit.unwrap_or_else(|| {
        let lo = axis.values.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = axis.values.iter().cloned().fold(0.0, f64::max);
        [lo, hi]
    });
    let wpath = join(path, &toml_path!["fit"]);
    if !(window[0] > 0.0 && window[0] < window[1]) {
        return Err(loc.error(
            &wpath,
            format!(
                "fit window [{}, {}] is not a positive interval",
                window[0], window[1]
            ),
            "write fit = [lo, hi] with 0 < lo < hi",
        ));
    }
    let inside = axis
        .values
        .iter()
        .filter(|&&v| in_window(v, (window[0], window[1])))
        .count();
    if inside < 3 {
        return Err(loc.error(
            &wpath,
            format!(
                "fit window [{}, {}] contains {inside} grid values of `{param}`",
                window[0], window[1]
            ),
            "a slope with a confidence interval needs at least 3 grid values inside the window",
        ));
    }
    Ok(SlopeCheck {
        param: param.to_string(),
        slope: exp.slope,
        tolerance: exp.tolerance,
        window: (window[0], window[1]),
    })
}

/// Whether `x` lies in the inclusive window (with a relative slack of 1e-9 for
/// values produced by a log range).
pub fn in_window(x: f64, window: (f64, f64)) -> bool {
    x >= window.0 * (1.0 - 1e-9) && x <= window.1 * (1.0 + 1e-9)
}

fn family_names() -> Vec<&'static str> {
    registry::FAMILIES.iter().map(|f| f.name).collect()
}

fn algorithm_names() -> Vec<&'static str> {
    registry::ALGORITHMS.iter().map(|a| a.name).collect()
}

fn check_eps(loc: &SpecLocator, eps: f64, path: &[PathSeg]) -> Result<(), SpecError> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(loc.error(
            path,
            format!("eps = {eps} is out of range"),
            "eps must be a finite number > 0",
        ))
    }
}

fn check_delta(
    loc: &SpecLocator,
    delta: f64,
    algorithm: &AlgorithmDef,
    path: &[PathSeg],
) -> Result<(), SpecError> {
    if !(0.0..1.0).contains(&delta) {
        return Err(loc.error(
            path,
            format!("delta = {delta} is outside [0, 1)"),
            "delta is a probability in [0, 1); use 0 for pure DP",
        ));
    }
    if delta >= algorithm.delta_max {
        return Err(loc.error(
            path,
            format!(
                "delta = {delta} is outside [0, {}) for algorithm `{}`",
                algorithm.delta_max, algorithm.name
            ),
            "its Gaussian calibration is only defined for small delta; delta << 1/n is meaningful",
        ));
    }
    Ok(())
}

fn find_def<'a>(defs: &'a [ParamDef], name: &str) -> Option<&'a ParamDef> {
    defs.iter().find(|d| d.name == name)
}

fn locate_param(
    loc: &SpecLocator,
    family: &FamilyDef,
    algorithm: &AlgorithmDef,
    name: &str,
    path: &[PathSeg],
) -> Result<(Target, Option<&'static ParamDef>), SpecError> {
    if registry::PRIVACY_PARAMS.contains(&name) {
        return Ok((Target::Privacy, None));
    }
    if let Some(d) = find_def(family.params, name) {
        return Ok((Target::Problem, Some(d)));
    }
    if let Some(d) = find_def(algorithm.options, name) {
        if matches!(d.kind, ParamKind::Choice(_)) {
            return Err(loc.error(
                path,
                format!("option `{name}` is a string choice and cannot be swept"),
                "sweep numeric parameters only; use separate studies for each choice",
            ));
        }
        return Ok((Target::Algorithm, Some(d)));
    }
    let mut known: Vec<&str> = registry::PRIVACY_PARAMS.to_vec();
    known.extend(family.params.iter().map(|d| d.name));
    known.extend(algorithm.options.iter().map(|d| d.name));
    Err(loc.error(
        path,
        format!("cannot sweep unknown parameter `{name}`"),
        format!("parameters of this study: {known:?}"),
    ))
}

fn axis_values(
    loc: &SpecLocator,
    axis: &GridAxisSpec,
    path: &[PathSeg],
    name: &str,
    def: Option<&ParamDef>,
) -> Result<Vec<f64>, SpecError> {
    if let GridAxisSpec::Log(r) = axis {
        let [lo, hi] = r.log_range;
        if !(lo > 0.0 && hi > 0.0 && lo.is_finite() && hi.is_finite()) || r.points == 0 {
            return Err(loc.error(
                path,
                format!("log range [{lo}, {hi}] with {} points is invalid", r.points),
                "a log range needs 0 < lo, 0 < hi and points >= 1",
            ));
        }
    }
    let mut values = axis.values();
    if values.is_empty() {
        return Err(loc.error(
            path,
            format!("grid axis `{name}` has no values"),
            "give at least one value",
        ));
    }
    if let Some(def) = def {
        if let ParamKind::Int { .. } = def.kind {
            values.iter_mut().for_each(|v| *v = v.round());
        }
        for &v in &values {
            check_numeric(loc, def, v, path)?;
        }
    }
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(loc.error(
            path,
            format!("grid axis `{name}` has repeated values {values:?}"),
            "use distinct values (integer parameters are rounded; widen the range or use fewer points)",
        ));
    }
    Ok(values)
}

fn check_numeric(
    loc: &SpecLocator,
    def: &ParamDef,
    v: f64,
    path: &[PathSeg],
) -> Result<(), SpecError> {
    let ok = match def.kind {
        ParamKind::Int { min } => v.is_finite() && v.fract() == 0.0 && v >= min as f64,
        ParamKind::Float { min, max, min_open } => {
            v.is_finite() && v <= max && if min_open { v > min } else { v >= min }
        }
        ParamKind::Choice(_) => false,
    };
    if ok {
        return Ok(());
    }
    let range = match def.kind {
        ParamKind::Int { min } => format!("an integer >= {min}"),
        ParamKind::Float { min, max, min_open } => format!(
            "a number in {}{min}, {max}]",
            if min_open { "(" } else { "[" }
        ),
        ParamKind::Choice(c) => format!("one of {c:?}"),
    };
    Err(loc.error(
        path,
        format!("{} = {v} is out of range", def.name),
        format!("{} ({}) must be {range}", def.name, def.doc),
    ))
}

fn resolve_values(
    loc: &SpecLocator,
    defs: &'static [ParamDef],
    given: &BTreeMap<String, ParamValue>,
    path: &[PathSeg],
    swept: &BTreeSet<&str>,
    owner: &str,
    reserved: &[&str],
) -> Result<Values, SpecError> {
    for key in given.keys() {
        if find_def(defs, key).is_none() && !reserved.contains(&key.as_str()) {
            let known: Vec<_> = defs.iter().map(|d| d.name).collect();
            return Err(loc.error(
                &join(path, &toml_path![key]),
                format!("unknown parameter `{key}` for {owner}"),
                format!("accepted parameters: {known:?}"),
            ));
        }
    }
    if let Some(key) = given.keys().find(|k| swept.contains(k.as_str())) {
        return Err(loc.error(
            &join(path, &toml_path![key]),
            format!("`{key}` is both fixed here and swept in the grid"),
            format!("remove `{key}` here or from the grid"),
        ));
    }
    let mut values = Values::new();
    for def in defs {
        let kpath = join(path, &toml_path![def.name]);
        let raw = match (given.get(def.name), def.default) {
            (Some(v), _) => Some(v.clone()),
            (None, Some(text)) => Some(
                toml::from_str::<BTreeMap<String, ParamValue>>(&format!("v = {text}"))
                    .expect("registry defaults are valid TOML")
                    .remove("v")
                    .expect("default present"),
            ),
            (None, None) => None,
        };
        let value = match (raw, def.kind) {
            (None, _) if swept.contains(def.name) => Value::Num(f64::NAN),
            (None, _) => {
                return Err(loc.error(
                    path,
                    format!("{owner} needs parameter `{}`", def.name),
                    format!(
                        "add `{} = ...` ({}) or sweep it in the grid",
                        def.name, def.doc
                    ),
                ))
            }
            (Some(ParamValue::Str(s)), ParamKind::Choice(choices)) => {
                if !choices.contains(&s.as_str()) {
                    return Err(loc.error(
                        &kpath,
                        format!("{} = \"{s}\" is not a valid choice", def.name),
                        format!("choose one of {choices:?}"),
                    ));
                }
                Value::Str(s)
            }
            (Some(v), ParamKind::Choice(choices)) => {
                return Err(loc.error(
                    &kpath,
                    format!("{} = {v:?} must be a string", def.name),
                    format!("choose one of {choices:?}"),
                ))
            }
            (Some(v), _) => {
                let Some(x) = v.as_f64() else {
                    return Err(loc.error(
                        &kpath,
                        format!("{} must be a number", def.name),
                        def.doc.to_string(),
                    ));
                };
                check_numeric(loc, def, x, &kpath)?;
                Value::Num(x)
            }
        };
        values.insert(def.name.to_string(), value);
    }
    Ok(values)
}
