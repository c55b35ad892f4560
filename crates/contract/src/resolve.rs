//! The one step from what a spec writes to typed values, shared by every spec
//! (the experiment spec and the audit spec): a parameter's written value
//! against its [`ParamDef`] (kind, range, choices, default), and a written
//! privacy guarantee against its algorithm's [`PrivacyUnit`].
//!
//! An error names the key it is about, what is wrong and how to fix it, but
//! not where the key is written: each spec loader knows the path of the table
//! it resolved and turns the key into `file:line:column`. Both specs then
//! accept and refuse exactly the same values (before issue 38 the audit spec
//! had its own rules: it refused an integer written `1000.0` and accepted
//! `inf` where the experiment spec did the opposite).

use std::collections::BTreeMap;

use dpcore::PrivacyParams;
use serde::{Deserialize, Serialize};

use crate::{AlgorithmDef, ParamDef, ParamKind, Privacy, PrivacyUnit, Value, Values};

/// A parameter value as written in a spec (TOML), before it is checked
/// against its [`ParamDef`].
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ParamValue {
    /// A boolean flag (no parameter is one: refused with a hint).
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string choice.
    Str(String),
}

impl ParamValue {
    /// The numeric value, if any.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(x) => Some(*x),
            _ => None,
        }
    }
}

/// A privacy guarantee as written: `{ eps, delta }` for `(eps, delta)`-DP
/// algorithms, `{ rho }` for `rho`-zCDP ones (see [`PrivacyUnit`]). Every
/// field is optional here; [`resolve_privacy`] decides which must be given.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrivacySpec {
    /// Privacy loss `eps > 0` (`(eps, delta)`-DP algorithms).
    #[serde(default)]
    pub eps: Option<f64>,
    /// Failure probability in `[0, 1)`; 0 (pure DP) when not given.
    #[serde(default)]
    pub delta: Option<f64>,
    /// zCDP parameter `rho > 0` (`rho`-zCDP algorithms).
    #[serde(default)]
    pub rho: Option<f64>,
}

impl PrivacySpec {
    /// The written value of `name` (`eps`, `delta` or `rho`; another name
    /// is a programming error, as in [`Privacy::with`]).
    pub fn get(&self, name: &str) -> Option<f64> {
        match name {
            "eps" => self.eps,
            "delta" => self.delta,
            "rho" => self.rho,
            _ => panic!("no privacy parameter `{name}`"),
        }
    }

    /// The same guarantee with `name` (`eps`, `delta` or `rho`) set to `value`
    /// (another name is a programming error).
    pub fn with(self, name: &str, value: Option<f64>) -> Self {
        match name {
            "eps" => Self { eps: value, ..self },
            "delta" => Self {
                delta: value,
                ..self
            },
            "rho" => Self { rho: value, ..self },
            _ => panic!("no privacy parameter `{name}`"),
        }
    }
}

/// What is wrong with a written value, without where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolveError {
    /// The key it is about inside the resolved table (a parameter's name,
    /// `eps`, ...); `None` when it is about the table as a whole (a required
    /// key is missing).
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl ResolveError {
    fn at(key: &str, message: String, hint: impl Into<String>) -> Self {
        Self {
            key: Some(key.to_string()),
            message,
            hint: hint.into(),
        }
    }
}

/// Checks a number against `def`'s kind and range: an integer parameter takes
/// any finite integral value `>= min` (so `1000.0` is 1000), a float one any
/// finite value in its range (`inf` is refused even where the range is
/// unbounded: no run is defined at an infinite value).
pub fn check_number(def: &ParamDef, v: f64) -> Result<(), ResolveError> {
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
    Err(ResolveError::at(
        def.name,
        format!("{} = {v} is out of range", def.name),
        format!("{} ({}) must be {range}", def.name, def.doc),
    ))
}

/// The typed value of `written` for parameter `def`: a string among its
/// choices, or a number that passes [`check_number`].
pub fn resolve_param(def: &ParamDef, written: &ParamValue) -> Result<Value, ResolveError> {
    match (written, def.kind) {
        (ParamValue::Str(s), ParamKind::Choice(choices)) => {
            if choices.contains(&s.as_str()) {
                Ok(Value::Str(s.clone()))
            } else {
                Err(ResolveError::at(
                    def.name,
                    format!("{} = \"{s}\" is not a valid choice", def.name),
                    format!("choose one of {choices:?}"),
                ))
            }
        }
        (v, ParamKind::Choice(choices)) => Err(ResolveError::at(
            def.name,
            format!("{} = {v:?} must be a string", def.name),
            format!("choose one of {choices:?}"),
        )),
        (v, _) => {
            let Some(x) = v.as_f64() else {
                return Err(ResolveError::at(
                    def.name,
                    format!("{} must be a number", def.name),
                    def.doc,
                ));
            };
            check_number(def, x)?;
            Ok(Value::Num(x))
        }
    }
}

/// The declared default of `def` as written (`None`: required). Defaults are
/// TOML text: a quoted string, or a number (`1.0`, `10`, `1e-6`, `1_000`).
pub fn default_written(def: &ParamDef) -> Option<ParamValue> {
    let text = def.default?.trim();
    if let Some(s) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return Some(ParamValue::Str(s.to_string()));
    }
    let digits = text.replace('_', "");
    Some(match digits.parse::<i64>() {
        Ok(i) => ParamValue::Int(i),
        Err(_) => ParamValue::Float(digits.parse().unwrap_or_else(|_| {
            panic!(
                "the default {text:?} of `{}` is neither a quoted string nor a number",
                def.name
            )
        })),
    })
}

/// Whether `value` of the parameter `name` is a late option at its default
/// ([`crate::ParamRole::NoiseOffDefault`]): such a value enters no noise
/// seed, no study identity and no audit seed identity, so every result
/// committed before the option existed keeps its bits.
pub fn late_at_default(defs: &[ParamDef], name: &str, value: &Value) -> bool {
    defs.iter().find(|d| d.name == name).is_some_and(|d| {
        d.role == crate::ParamRole::NoiseOffDefault && declared_default(d).as_ref() == Some(value)
    })
}

/// The declared default of `def` as a resolved value, unchecked (`None`:
/// required). Study identities read it for swept parameters.
pub fn declared_default(def: &ParamDef) -> Option<Value> {
    Some(match default_written(def)? {
        ParamValue::Str(s) => Value::Str(s),
        v => Value::Num(
            v.as_f64()
                .expect("registry defaults are numbers or strings"),
        ),
    })
}

/// The context of a table of written parameters: whose they are and which
/// keys it may hold besides them.
#[derive(Debug, Clone, Copy)]
pub struct ParamTable<'a> {
    /// Whose parameters, for messages: e.g. ``algorithm `dp_gd` ``.
    pub owner: &'a str,
    /// Keys of the table that are not parameters (the component's name).
    pub reserved: &'a [&'a str],
    /// The parameters swept by the spec's grid with their first values, or
    /// `None` when the spec has no grid (an audit row): a swept parameter
    /// takes its first grid value and may not also be written here.
    pub swept: Option<&'a BTreeMap<&'a str, f64>>,
}

/// Resolves a table of written parameters against `defs`: every key must be
/// a declared parameter (or reserved), every parameter is written, swept or
/// defaulted, and every value passes [`resolve_param`].
pub fn resolve_params(
    defs: &[ParamDef],
    given: &BTreeMap<String, ParamValue>,
    table: ParamTable<'_>,
) -> Result<Values, ResolveError> {
    let owner = table.owner;
    for key in given.keys() {
        if !defs.iter().any(|d| d.name == key) && !table.reserved.contains(&key.as_str()) {
            let known: Vec<_> = defs.iter().map(|d| d.name).collect();
            return Err(ResolveError::at(
                key,
                format!("unknown parameter `{key}` for {owner}"),
                format!("accepted parameters: {known:?}"),
            ));
        }
    }
    let swept = |name: &str| table.swept.and_then(|s| s.get(name).copied());
    if let Some(key) = given.keys().find(|k| swept(k).is_some()) {
        return Err(ResolveError::at(
            key,
            format!("`{key}` is both fixed here and swept in the grid"),
            format!("remove `{key}` here or from the grid"),
        ));
    }
    let mut values = Values::new();
    for def in defs {
        // A swept parameter holds its first grid value (the plan sets it per
        // grid point); its declared default is not used by any cell.
        if let Some(first) = swept(def.name) {
            values.insert(def.name.to_string(), Value::Num(first));
            continue;
        }
        let Some(written) = given
            .get(def.name)
            .cloned()
            .or_else(|| default_written(def))
        else {
            let or_sweep = if table.swept.is_some() {
                " or sweep it in the grid"
            } else {
                ""
            };
            return Err(ResolveError {
                key: None,
                message: format!("{owner} needs parameter `{}`", def.name),
                hint: format!("add `{} = ...` ({}){or_sweep}", def.name, def.doc),
            });
        };
        values.insert(def.name.to_string(), resolve_param(def, &written)?);
    }
    Ok(values)
}

/// The unit's name and an example of a guarantee in it, for hints.
fn unit_text(unit: PrivacyUnit, table: &str) -> (&'static str, String) {
    match unit {
        PrivacyUnit::EpsDelta => (
            "(eps, delta)-DP",
            format!("{table} = {{ eps = 1.0, delta = 1e-6 }}"),
        ),
        PrivacyUnit::Zcdp => ("rho-zCDP", format!("{table} = {{ rho = 0.5 }}")),
    }
}

/// Resolves a written guarantee for `algorithm`, written as table `table`
/// (`privacy`, `claim`, ...; for messages): in its unit, with no field of
/// the other unit; `eps > 0` finite; `delta` in `[0, delta_max)` (0, pure
/// DP, when not given; `> 0` for an algorithm that needs it); `rho > 0`
/// finite.
pub fn resolve_privacy(
    algorithm: &AlgorithmDef,
    written: &PrivacySpec,
    table: &str,
) -> Result<Privacy, ResolveError> {
    let unit = algorithm.privacy_unit;
    let (unit_name, example) = unit_text(unit, table);
    let other: &[&str] = match unit {
        PrivacyUnit::EpsDelta => &["rho"],
        PrivacyUnit::Zcdp => &["eps", "delta"],
    };
    if let Some(name) = other.iter().find(|n| written.get(n).is_some()) {
        return Err(ResolveError::at(
            name,
            format!(
                "algorithm `{}` is calibrated for {unit_name}; `{name}` does not apply",
                algorithm.name
            ),
            format!("set {:?} instead, e.g. {example}", unit.params()),
        ));
    }
    let required = |name: &str| {
        written.get(name).ok_or_else(|| ResolveError {
            key: None,
            message: format!("missing `{table}.{name}`"),
            hint: format!(
                "algorithm `{}` is calibrated for {unit_name}: {example}",
                algorithm.name
            ),
        })
    };
    let positive = |name: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(ResolveError::at(
                name,
                format!("{name} = {v} is out of range"),
                format!("{name} must be a finite number > 0"),
            ))
        }
    };
    match unit {
        PrivacyUnit::EpsDelta => {
            let eps = positive("eps", required("eps")?)?;
            let delta = written.delta.unwrap_or(0.0);
            check_delta(algorithm, delta)?;
            Ok(Privacy::Approx(PrivacyParams { eps, delta }))
        }
        PrivacyUnit::Zcdp => Ok(Privacy::Zcdp(positive("rho", required("rho")?)?)),
    }
}

fn check_delta(algorithm: &AlgorithmDef, delta: f64) -> Result<(), ResolveError> {
    if !(0.0..1.0).contains(&delta) {
        return Err(ResolveError::at(
            "delta",
            format!("delta = {delta} is outside [0, 1)"),
            "delta is a probability in [0, 1); use 0 for pure DP",
        ));
    }
    if delta >= algorithm.delta_max {
        return Err(ResolveError::at(
            "delta",
            format!(
                "delta = {delta} is outside [0, {}) for algorithm `{}`",
                algorithm.delta_max, algorithm.name
            ),
            "its Gaussian calibration is only defined for small delta; delta << 1/n is meaningful",
        ));
    }
    if algorithm.needs_delta && delta == 0.0 {
        return Err(ResolveError::at(
            "delta",
            format!("algorithm `{}` needs delta > 0", algorithm.name),
            "it is calibrated for (eps, delta)-DP by a Gaussian accountant; set delta, e.g. 1e-6",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::tests::never_runs;

    const OPTIONS: &[ParamDef] = &[
        ParamDef::int("steps", 1, "number of steps")
            .default("10")
            .option(),
        ParamDef::positive("scale", "noise scale").option(),
        ParamDef::choice("mode", &["tight", "paper"], "which constant")
            .default("\"tight\"")
            .option(),
    ];
    const APPROX: AlgorithmDef =
        AlgorithmDef::new("probe", "", &[], crate::Run::Objective(never_runs))
            .with_options(OPTIONS)
            .delta_below(0.5);
    const GAUSSIAN: AlgorithmDef = APPROX.requiring_delta();
    const ZCDP: AlgorithmDef = APPROX.zcdp();

    fn table<'a>(swept: Option<&'a BTreeMap<&'a str, f64>>) -> ParamTable<'a> {
        ParamTable {
            owner: "algorithm `probe`",
            reserved: &["name"],
            swept,
        }
    }

    fn given(pairs: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn integers_may_be_written_as_integral_floats_and_floats_must_be_finite() {
        let steps = &OPTIONS[0];
        assert_eq!(
            resolve_param(steps, &ParamValue::Float(1000.0)),
            Ok(Value::Num(1000.0))
        );
        assert_eq!(
            resolve_param(steps, &ParamValue::Int(1000)),
            Ok(Value::Num(1000.0))
        );
        for bad in [0.0, 2.5, f64::INFINITY, f64::NAN] {
            let e = resolve_param(steps, &ParamValue::Float(bad)).unwrap_err();
            assert_eq!(e.key.as_deref(), Some("steps"), "{bad}");
        }
        let scale = &OPTIONS[1];
        assert_eq!(
            resolve_param(scale, &ParamValue::Int(2)),
            Ok(Value::Num(2.0))
        );
        for bad in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            assert!(
                resolve_param(scale, &ParamValue::Float(bad)).is_err(),
                "{bad}"
            );
        }
        assert!(resolve_param(scale, &ParamValue::Str("1".into())).is_err());
        let mode = &OPTIONS[2];
        assert!(resolve_param(mode, &ParamValue::Str("loose".into())).is_err());
        assert!(resolve_param(mode, &ParamValue::Int(1)).is_err());
    }

    #[test]
    fn a_table_is_resolved_with_defaults_sweeps_and_named_errors() {
        let values = resolve_params(
            OPTIONS,
            &given(&[("scale", ParamValue::Float(0.5))]),
            table(None),
        )
        .unwrap();
        assert_eq!(values["steps"], Value::Num(10.0));
        assert_eq!(values["mode"], Value::Str("tight".into()));
        let swept = BTreeMap::from([("scale", 3.0)]);
        let values = resolve_params(OPTIONS, &given(&[]), table(Some(&swept))).unwrap();
        assert_eq!(values["scale"], Value::Num(3.0));

        let unknown = resolve_params(
            OPTIONS,
            &given(&[("scael", ParamValue::Int(1))]),
            table(None),
        );
        assert_eq!(unknown.unwrap_err().key.as_deref(), Some("scael"));
        let both = resolve_params(
            OPTIONS,
            &given(&[("scale", ParamValue::Int(1))]),
            table(Some(&swept)),
        );
        assert!(both
            .unwrap_err()
            .message
            .contains("both fixed here and swept"));
        let missing = resolve_params(OPTIONS, &given(&[]), table(None)).unwrap_err();
        assert_eq!(missing.key, None);
        assert!(!missing.hint.contains("grid"), "{}", missing.hint);
    }

    #[test]
    fn defaults_are_read_as_toml_text() {
        let d = |text| ParamDef::positive("x", "").default(text);
        assert_eq!(declared_default(&d("1.0")), Some(Value::Num(1.0)));
        assert_eq!(declared_default(&d("10")), Some(Value::Num(10.0)));
        assert_eq!(declared_default(&d("1_000_000")), Some(Value::Num(1e6)));
        assert_eq!(declared_default(&d("1e-6")), Some(Value::Num(1e-6)));
        assert_eq!(
            declared_default(&d("\"tight\"")),
            Some(Value::Str("tight".into()))
        );
        assert_eq!(declared_default(&ParamDef::positive("x", "")), None);
    }

    #[test]
    fn a_guarantee_is_resolved_in_its_algorithm_unit() {
        let spec = |eps, delta, rho| PrivacySpec { eps, delta, rho };
        let approx = |eps, delta| Privacy::Approx(PrivacyParams { eps, delta });
        assert_eq!(
            resolve_privacy(&APPROX, &spec(Some(1.0), None, None), "claim"),
            Ok(approx(1.0, 0.0))
        );
        assert_eq!(
            resolve_privacy(&ZCDP, &spec(None, None, Some(0.5)), "claim"),
            Ok(Privacy::Zcdp(0.5))
        );
        // (what is written, algorithm, key refused)
        let refused = [
            (spec(Some(1.0), None, Some(0.5)), &APPROX, Some("rho")),
            (spec(None, Some(1e-6), None), &APPROX, None),
            (spec(Some(0.0), None, None), &APPROX, Some("eps")),
            (spec(Some(f64::INFINITY), None, None), &APPROX, Some("eps")),
            (spec(Some(1.0), Some(1.0), None), &APPROX, Some("delta")),
            (spec(Some(1.0), Some(0.5), None), &APPROX, Some("delta")),
            (spec(Some(1.0), Some(-1e-9), None), &APPROX, Some("delta")),
            (spec(Some(1.0), None, None), &GAUSSIAN, Some("delta")),
            (spec(Some(1.0), None, Some(0.5)), &ZCDP, Some("eps")),
            (spec(None, Some(0.0), Some(0.5)), &ZCDP, Some("delta")),
            (spec(None, None, None), &ZCDP, None),
            (spec(None, None, Some(f64::NAN)), &ZCDP, Some("rho")),
        ];
        for (written, algorithm, key) in refused {
            let e = resolve_privacy(algorithm, &written, "claim").unwrap_err();
            assert_eq!(e.key.as_deref(), key, "{written:?}: {e:?}");
        }
        let missing = resolve_privacy(&APPROX, &spec(None, None, None), "claim").unwrap_err();
        assert_eq!(missing.message, "missing `claim.eps`");
    }
}
