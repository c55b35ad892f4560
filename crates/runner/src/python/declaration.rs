//! Reading a Python entry's `HARNESS` declaration into an [`AlgorithmDef`]
//! (fields: `docs/python-entries.md`, "One file").

use std::time::Duration;

use serde_json::Value as Json;

use super::{not_in_process, DEFAULT_TIMEOUT, EXPORTING_FAMILIES};
use crate::registry::{AlgorithmDef, AuditDef, Estimator, Metric, ParamDef, PrivacyUnit, Run};

/// A parsed declaration.
pub(super) struct Declaration {
    pub(super) def: AlgorithmDef,
    pub(super) timeout: Duration,
    pub(super) audit_family: Option<&'static str>,
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// Reads a `HARNESS` entry (`docs/python.md` lists its fields).
pub(super) fn parse_declaration(name: &str, d: &Json) -> Result<Declaration, String> {
    let obj = d
        .as_object()
        .ok_or("the declaration must be a dict".to_string())?;
    const FIELDS: &[&str] = &[
        "doc",
        "kind",
        "privacy",
        "families",
        "metrics",
        "options",
        "diagnostics",
        "timeout_seconds",
        "needs_delta",
        "private",
        "audit",
        "theory_name",
        "bound_name",
        "reference_name",
    ];
    if let Some(k) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("unknown field {k:?} (fields: {FIELDS:?})"));
    }
    let kind = obj
        .get("kind")
        .and_then(Json::as_str)
        .unwrap_or("objective");
    if kind != "objective" {
        return Err(format!(
            "kind {kind:?}: Python entries run on objective families (kind \"objective\")"
        ));
    }
    let unit = match obj.get("privacy").and_then(Json::as_str) {
        Some("eps_delta") => PrivacyUnit::EpsDelta,
        Some("zcdp") => PrivacyUnit::Zcdp,
        other => {
            return Err(format!(
                "privacy must be \"eps_delta\" or \"zcdp\", got {other:?}"
            ))
        }
    };
    let strings = |k: &str| -> Result<Vec<String>, String> {
        match obj.get(k) {
            None => Ok(Vec::new()),
            Some(Json::Array(v)) => v
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or(format!("{k} must be a list of strings"))
                })
                .collect(),
            Some(_) => Err(format!("{k} must be a list of strings")),
        }
    };
    let families = strings("families")?;
    if families.is_empty() {
        return Err(format!(
            "families must name at least one of {EXPORTING_FAMILIES:?} (the families that export their data)"
        ));
    }
    if let Some(f) = families
        .iter()
        .find(|f| !EXPORTING_FAMILIES.contains(&f.as_str()))
    {
        return Err(format!(
            "family {f:?} does not export its data to Python; those that do: {EXPORTING_FAMILIES:?}"
        ));
    }
    let metrics = strings("metrics")?
        .iter()
        .map(|m| Metric::from_name(m).ok_or(format!("unknown metric {m:?}")))
        .collect::<Result<Vec<_>, _>>()?;
    if metrics.is_empty() {
        return Err("metrics must name at least one metric (e.g. \"excess_risk\")".into());
    }
    let diagnostics = strings("diagnostics")?;
    let options = match obj.get("options") {
        None => Vec::new(),
        Some(Json::Object(o)) => o
            .iter()
            .map(|(k, v)| parse_option(k, v).map_err(|e| format!("option {k:?}: {e}")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err("options must be a dict of option declarations".into()),
    };
    let timeout = match obj.get("timeout_seconds") {
        None => DEFAULT_TIMEOUT,
        Some(t) => t
            .as_f64()
            .filter(|t| *t > 0.0 && t.is_finite())
            .ok_or(format!(
                "timeout_seconds must be a positive number, got {t}"
            ))?,
    };
    let flag = |k: &str, default: bool| -> Result<bool, String> {
        obj.get(k).map_or(Ok(default), |v| {
            v.as_bool().ok_or(format!("{k} must be true or false"))
        })
    };
    let families: &'static [&'static str] = Box::leak(
        families
            .iter()
            .map(|f| leak(f))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let mut def = AlgorithmDef::new(
        leak(name),
        leak(
            obj.get("doc")
                .and_then(Json::as_str)
                .unwrap_or("a Python entry"),
        ),
        Box::leak(metrics.into_boxed_slice()),
        Run::Objective(not_in_process),
    )
    .with_options(Box::leak(options.into_boxed_slice()))
    .with_diagnostics(Box::leak(
        diagnostics
            .iter()
            .map(|d| leak(d))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    ))
    .only_on(families, "the Python file's HARNESS declaration lists them");
    let name_of = |k: &str| -> Result<&'static str, String> {
        match obj.get(k) {
            None => Ok(""),
            Some(Json::String(t)) => Ok(leak(t)),
            Some(_) => Err(format!("{k} must be a string (a legend)")),
        }
    };
    def.theory_name = name_of("theory_name")?;
    def.bound_name = name_of("bound_name")?;
    def.reference_name = name_of("reference_name")?;
    def.privacy_unit = unit;
    def.needs_delta = flag("needs_delta", false)?;
    def.private = flag("private", true)?;
    let mut audit_family = None;
    if def.private {
        let (audit, family) = family_audit(def.families, obj.get("audit"))?;
        def.audit = Some(audit);
        audit_family = Some(family);
    } else if obj.contains_key("audit") {
        return Err("a non-private entry (private = false) has no audit".into());
    }
    Ok(Declaration {
        def,
        timeout: Duration::from_secs_f64(timeout),
        audit_family,
    })
}

/// The audit of a private Python entry (`runner audit`): the pair of the
/// first accepted family that has a family-level one, the family's
/// statistic, and the declared estimator (`{"estimator": "threshold"}`, the
/// default, valid for any release, or `"gaussian_dp"` for a release whose
/// statistic is Gaussian with a mean shift between the pair's sides).
fn family_audit(
    families: &[&'static str],
    declared: Option<&Json>,
) -> Result<(&'static AuditDef, &'static str), String> {
    let estimator = match declared {
        None => Estimator::Threshold,
        Some(Json::Object(o)) => {
            if let Some(k) = o.keys().find(|k| k.as_str() != "estimator") {
                return Err(format!(
                    "audit: unknown field {k:?} (fields: [\"estimator\"])"
                ));
            }
            match o.get("estimator").and_then(Json::as_str) {
                None | Some("threshold") => Estimator::Threshold,
                Some("gaussian_dp") => Estimator::GaussianDp,
                Some(other) => {
                    return Err(format!(
                        "audit: estimator {other:?}: \"threshold\" or \"gaussian_dp\""
                    ))
                }
            }
        }
        Some(_) => return Err("audit must be a dict, e.g. {\"estimator\": \"threshold\"}".into()),
    };
    let (family, fa) = families
        .iter()
        .find_map(|f| Some((*f, crate::registry::family_audit(f)?)))
        .ok_or_else(|| {
            format!("none of the families {families:?} has a family-level audit pair (private entries need one)")
        })?;
    let def: &'static AuditDef = Box::leak(Box::new(AuditDef {
        pair: fa.pair,
        statistic: fa.statistic,
        estimator,
        transcript: None,
        method: fa.method,
    }));
    Ok((def, family))
}

/// One option: `{"int": min}`, `{"float": [min, max]}` or
/// `{"choice": [..]}`, with an optional `default` and `doc`.
fn parse_option(name: &str, v: &Json) -> Result<ParamDef, String> {
    let o = v.as_object().ok_or("must be a dict".to_string())?;
    let doc = leak(o.get("doc").and_then(Json::as_str).unwrap_or(""));
    let name = leak(name);
    let def = if let Some(min) = o.get("int") {
        let min = min.as_i64().ok_or("int takes its minimum, an integer")?;
        ParamDef::int(name, min, doc)
    } else if let Some(range) = o.get("float") {
        let r = range
            .as_array()
            .filter(|r| r.len() == 2)
            .and_then(|r| Some((r[0].as_f64()?, r[1].as_f64().unwrap_or(f64::INFINITY))))
            .ok_or("float takes [min, max] (max null for none)")?;
        ParamDef::float(name, (r.0, r.1, false), doc)
    } else if let Some(choices) = o.get("choice") {
        let c: Vec<&'static str> = choices
            .as_array()
            .ok_or("choice takes a list of strings")?
            .iter()
            .map(|c| c.as_str().map(leak).ok_or("choice takes a list of strings"))
            .collect::<Result<_, _>>()?;
        ParamDef::choice(name, Box::leak(c.into_boxed_slice()), doc)
    } else {
        return Err("declare its type: \"int\", \"float\" or \"choice\"".into());
    };
    let default = match o.get("default") {
        None => None,
        Some(Json::String(s)) => Some(leak(&format!("{s:?}"))),
        Some(Json::Number(x)) => Some(leak(&x.to_string())),
        Some(other) => return Err(format!("default must be a number or a string, got {other}")),
    };
    Ok(def.option().maybe_default(default))
}
