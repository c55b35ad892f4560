//! The swept axes of a study: the base grid with a profile's overrides, where
//! each swept parameter goes, and the checked values of each axis.

use super::params::find_def;
use super::{join, Axis, Grid, Target};
use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry::{self, AlgorithmDef, FamilyDef, ParamDef, ParamKind};
use crate::spec::{GridAxisSpec, ProfileSpec, StudySpec};
use crate::toml_path;

/// The axes study `s` sweeps under `profile`. Fails if the profile sweeps a
/// parameter the study does not, or if the grid is empty.
pub(super) fn merge(
    loc: &SpecLocator,
    s: &StudySpec,
    base: &[PathSeg],
    profile: Option<&str>,
    profile_spec: Option<&ProfileSpec>,
) -> Result<Grid, SpecError> {
    // Grid: the base grid, with a profile's per-study override replacing whole axes.
    let mut grid: Grid = s
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
    Ok(grid)
}

/// A profile with its own `seed` is a rerun ([`ProfileSpec::reruns_only`]):
/// its grid overrides may add points (a denser window), never drop one, so
/// the rerun still answers every window the default run answered. Fails on
/// an overridden axis that lacks a default value.
pub(super) fn check_refines(
    loc: &SpecLocator,
    profile: &str,
    study: &str,
    defaults: &[Axis],
    axes: &[Axis],
) -> Result<(), SpecError> {
    for (base, now) in defaults.iter().zip(axes) {
        if let Some(v) = base.values.iter().find(|v| !now.values.contains(v)) {
            return Err(loc.error(
                &toml_path!["profiles", profile, "grids", study, &base.name],
                format!(
                    "a rerun profile (it sets `seed`) may only add grid points, but `{}` drops {v}",
                    base.name
                ),
                format!("keep every default value: {:?}", base.values),
            ));
        }
    }
    Ok(())
}

/// The resolved axes of `grid`, in grid (name) order.
pub(super) fn resolve_axes(
    loc: &SpecLocator,
    family: &FamilyDef,
    algorithm: &AlgorithmDef,
    grid: &Grid,
) -> Result<Vec<Axis>, SpecError> {
    let mut axes = Vec::new();
    for (name, (axis, path)) in grid {
        let (target, def) = locate_param(loc, family, algorithm, name, path)?;
        let values = axis_values(loc, axis, path, name, def)?;
        axes.push(Axis {
            name: name.clone(),
            target,
            values,
        });
    }
    Ok(axes)
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
    let count = match axis {
        GridAxisSpec::List(v) => v.len(),
        GridAxisSpec::Log(r) => r.points,
    };
    if count > super::MAX_AXIS_POINTS {
        return Err(loc.error(
            path,
            format!(
                "grid axis `{name}` has {count} values (at most {} per axis)",
                super::MAX_AXIS_POINTS
            ),
            "a rate is fitted on tens of points: use e.g. points = 7 for a log range",
        ));
    }
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
            registry::check_number(def, v).map_err(|e| loc.error(path, e.message, e.hint))?;
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
