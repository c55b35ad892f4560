//! Parameter checks and value resolution: privacy parameters, numeric ranges
//! of registry parameters, and the fixed values of a family or algorithm.

use std::collections::{BTreeMap, BTreeSet};

use super::{join, Axis, Grid, Target};
use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry::{AlgorithmDef, ParamDef, ParamKind, Privacy, PrivacyUnit, Value, Values};
use crate::spec::{ParamValue, StudySpec};
use crate::toml_path;
use dpcore::PrivacyParams;

/// Checks study `s`'s privacy parameters against `algorithm`'s privacy unit
/// (`eps` and `delta` for `(eps, delta)`-DP, `rho` for zCDP; the other unit's
/// parameters are rejected, set or swept), then every swept value of a privacy
/// axis (located at its `grid` entry). Returns the fixed guarantee.
pub(super) fn check_privacy(
    loc: &SpecLocator,
    s: &StudySpec,
    base: &[PathSeg],
    algorithm: &AlgorithmDef,
    axes: &[Axis],
    grid: &Grid,
) -> Result<Privacy, SpecError> {
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
    let missing = |name: &str| {
        loc.error(
            &join(base, &toml_path!["privacy"]),
            format!("missing `privacy.{name}`"),
            format!(
                "algorithm `{}` is calibrated for {unit_name}: {example}",
                algorithm.name
            ),
        )
    };
    let fixed = match unit {
        PrivacyUnit::EpsDelta => {
            if s.privacy.rho.is_some() {
                return Err(wrong_unit(&path("rho"), "rho"));
            }
            let eps = s.privacy.eps.ok_or_else(|| missing("eps"))?;
            check_eps(loc, eps, &path("eps"))?;
            check_delta(loc, s.privacy.delta, algorithm, &path("delta"))?;
            Privacy::Approx(PrivacyParams::approx(eps, s.privacy.delta))
        }
        PrivacyUnit::Zcdp => {
            if s.privacy.eps.is_some() {
                return Err(wrong_unit(&path("eps"), "eps"));
            }
            if s.privacy.delta != 0.0 {
                return Err(wrong_unit(&path("delta"), "delta"));
            }
            let rho = s.privacy.rho.ok_or_else(|| missing("rho"))?;
            check_positive(loc, "rho", rho, &path("rho"))?;
            Privacy::Zcdp(rho)
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
    Ok(fixed)
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

pub(super) fn resolve_values(
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
