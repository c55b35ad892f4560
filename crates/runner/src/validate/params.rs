//! Parameter checks and value resolution: privacy parameters, numeric ranges
//! of registry parameters, and the fixed values of a family or algorithm.

use std::collections::BTreeMap;

use super::{join, Axis, Grid, Target};
use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry::{AlgorithmDef, ParamDef, ParamKind, Privacy, PrivacyUnit, Value, Values};
use crate::spec::{ParamValue, PrivacySpec, StudySpec};
use crate::toml_path;
use dpcore::PrivacyParams;

/// A range check of one privacy value, located at the key it was read from.
type RangeCheck<'a> = dyn Fn(f64, &[PathSeg]) -> Result<(), SpecError> + 'a;

/// A study's privacy guarantee, resolved.
#[derive(Debug, Clone, Copy)]
pub(super) struct ResolvedPrivacy {
    /// The guarantee at the first grid point: each swept parameter holds its
    /// first grid value (the plan overrides it per point).
    pub(super) first: Privacy,
    /// The guarantee the study's identity hash reads: a swept parameter holds
    /// the experiment's `privacy` value for it, NaN when it has none (see
    /// [`super::Study::privacy_identity`]).
    pub(super) identity: Privacy,
}

/// Checks study `s`'s privacy parameters against `algorithm`'s privacy unit
/// (`eps` and `delta` for `(eps, delta)`-DP, `rho` for zCDP; the other unit's
/// parameters are rejected, set or swept), then every swept value of a privacy
/// axis (located at its `grid` entry). A parameter is fixed (in the study's
/// `privacy`, else inherited from the experiment's `defaults`) or swept,
/// never both in the study.
pub(super) fn check_privacy(
    loc: &SpecLocator,
    s: &StudySpec,
    base: &[PathSeg],
    defaults: &PrivacySpec,
    algorithm: &AlgorithmDef,
    axes: &[Axis],
    grid: &Grid,
) -> Result<ResolvedPrivacy, SpecError> {
    let unit = algorithm.privacy_unit;
    let (unit_name, example) = match unit {
        PrivacyUnit::EpsDelta => ("(eps, delta)-DP", "privacy = { eps = 1.0, delta = 1e-6 }"),
        PrivacyUnit::Zcdp => ("rho-zCDP", "privacy = { rho = 0.5 }"),
    };
    let wrong_unit = |path: &[PathSeg], name: &str| {
        loc.error(
            path,
            format!(
                "algorithm `{}` is calibrated for {unit_name}; `{name}` does not apply",
                algorithm.name
            ),
            format!("set {:?} instead, e.g. {example}", unit.params()),
        )
    };
    for axis in axes.iter().filter(|a| a.target == Target::Privacy) {
        if !unit.params().contains(&axis.name.as_str()) {
            return Err(wrong_unit(&grid[&axis.name].1, &axis.name));
        }
    }
    let path = |name: &str| join(base, &toml_path!["privacy", name]);
    let own = |spec: &PrivacySpec, name: &str| match name {
        "eps" => spec.eps,
        "delta" => spec.delta,
        _ => spec.rho,
    };
    let swept_first = |name: &str| {
        axes.iter()
            .find(|a| a.target == Target::Privacy && a.name == name)
            .map(|a| a.values[0])
    };
    // Resolves parameter `name` of the unit: `(first grid point, identity)`.
    // Fixed xor swept: a study writing a swept parameter is refused, so a
    // value that no cell uses never enters the spec.
    let resolve = |name: &str,
                   implicit: Option<f64>,
                   check: &RangeCheck|
     -> Result<(f64, f64), SpecError> {
        if let Some(first) = swept_first(name) {
            if own(&s.privacy, name).is_some() {
                return Err(loc.error(
                    &path(name),
                    format!("`{name}` is both fixed here and swept in the grid"),
                    format!("remove `{name}` here or from the grid"),
                ));
            }
            return Ok((first, own(defaults, name).unwrap_or(f64::NAN)));
        }
        let (value, at) = match (own(&s.privacy, name), own(defaults, name), implicit) {
            (Some(v), _, _) => (v, path(name)),
            (None, Some(v), _) => (v, toml_path!["privacy", name].to_vec()),
            (None, None, Some(v)) => (v, path(name)),
            (None, None, None) => {
                return Err(loc.error(
                    &join(base, &toml_path!["privacy"]),
                    format!("missing `privacy.{name}`"),
                    format!(
                        "algorithm `{}` is calibrated for {unit_name}: {example}, or sweep it in the grid",
                        algorithm.name
                    ),
                ))
            }
        };
        check(value, &at)?;
        Ok((value, value))
    };
    let resolved = match unit {
        PrivacyUnit::EpsDelta => {
            if s.privacy.rho.is_some() {
                return Err(wrong_unit(&path("rho"), "rho"));
            }
            let eps = resolve("eps", None, &|v, at| check_eps(loc, v, at))?;
            // delta = 0 (pure DP) when nobody sets it.
            let delta = resolve("delta", Some(0.0), &|v, at| {
                check_delta(loc, v, algorithm, at)
            })?;
            let approx = |eps, delta| Privacy::Approx(PrivacyParams { eps, delta });
            ResolvedPrivacy {
                first: approx(eps.0, delta.0),
                identity: approx(eps.1, delta.1),
            }
        }
        PrivacyUnit::Zcdp => {
            if s.privacy.eps.is_some() {
                return Err(wrong_unit(&path("eps"), "eps"));
            }
            if s.privacy.delta.is_some_and(|d| d != 0.0) {
                return Err(wrong_unit(&path("delta"), "delta"));
            }
            let rho = resolve("rho", None, &|v, at| check_positive(loc, "rho", v, at))?;
            ResolvedPrivacy {
                first: Privacy::Zcdp(rho.0),
                identity: Privacy::Zcdp(rho.1),
            }
        }
    };
    for axis in axes {
        let path = grid[&axis.name].1.clone();
        for &v in &axis.values {
            match axis.name.as_str() {
                "eps" => check_eps(loc, v, &path)?,
                "delta" => check_delta(loc, v, algorithm, &path)?,
                "rho" => check_positive(loc, "rho", v, &path)?,
                _ => {}
            }
        }
    }
    Ok(resolved)
}

fn check_eps(loc: &SpecLocator, eps: f64, path: &[PathSeg]) -> Result<(), SpecError> {
    check_positive(loc, "eps", eps, path)
}

fn check_positive(
    loc: &SpecLocator,
    name: &str,
    value: f64,
    path: &[PathSeg],
) -> Result<(), SpecError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(loc.error(
            path,
            format!("{name} = {value} is out of range"),
            format!("{name} must be a finite number > 0"),
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

pub(super) fn find_def<'a>(defs: &'a [ParamDef], name: &str) -> Option<&'a ParamDef> {
    defs.iter().find(|d| d.name == name)
}

pub(super) fn check_numeric(
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

/// A declared default (TOML text) as written in a spec.
fn default_text(text: &str) -> ParamValue {
    toml::from_str::<BTreeMap<String, ParamValue>>(&format!("v = {text}"))
        .expect("registry defaults are valid TOML")
        .remove("v")
        .expect("default present")
}

/// The declared default of `def` as a resolved value (`None`: required).
pub fn declared_default(def: &ParamDef) -> Option<Value> {
    Some(match default_text(def.default?) {
        ParamValue::Str(s) => Value::Str(s),
        v => Value::Num(
            v.as_f64()
                .expect("registry defaults are numbers or strings"),
        ),
    })
}

pub(super) fn resolve_values(
    loc: &SpecLocator,
    defs: &'static [ParamDef],
    given: &BTreeMap<String, ParamValue>,
    path: &[PathSeg],
    swept: &BTreeMap<&str, f64>,
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
    if let Some(key) = given.keys().find(|k| swept.contains_key(k.as_str())) {
        return Err(loc.error(
            &join(path, &toml_path![key]),
            format!("`{key}` is both fixed here and swept in the grid"),
            format!("remove `{key}` here or from the grid"),
        ));
    }
    let mut values = Values::new();
    for def in defs {
        let kpath = join(path, &toml_path![def.name]);
        // A swept parameter holds its first grid value (the plan sets it per
        // grid point); its declared default is not used by any cell.
        if let Some(&first) = swept.get(def.name) {
            values.insert(def.name.to_string(), Value::Num(first));
            continue;
        }
        let raw = match (given.get(def.name), def.default) {
            (Some(v), _) => Some(v.clone()),
            (None, Some(text)) => Some(default_text(text)),
            (None, None) => None,
        };
        let value = match (raw, def.kind) {
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
