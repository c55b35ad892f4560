//! The audit spec (`experiments/audit.toml`): one `[[audit]]` row per audit,
//! each an algorithm with its options at a setting, the privacy it claims and
//! the privacy it is run at, the runs a side and the verdict the theory
//! expects, decided before the data.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Result};
use serde::Deserialize;

use crate::cli::UsageError;
use crate::registry::{AlgorithmDef, ParamKind, Privacy, PrivacyUnit, Value, Values};
use dpcore::PrivacyParams;

/// A parsed audit file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditFile {
    /// Output name: `results/<name>.{h5,md,csv}` (`<name>-<profile>` under a profile).
    pub name: String,
    /// What the audits are for.
    #[serde(default)]
    pub description: String,
    /// Master seed of every run's noise stream.
    pub seed: u64,
    /// False-alarm rate of each audit: a claim that holds is flagged with
    /// probability at most `alpha`.
    pub alpha: f64,
    /// The `delta` at which a zCDP claim is converted to `eps` and audited.
    pub zcdp_delta: f64,
    /// The audits.
    pub audit: Vec<AuditRow>,
    /// Named profiles (e.g. `quick`).
    #[serde(default)]
    pub profiles: BTreeMap<String, AuditProfile>,
}

/// One audit.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditRow {
    /// Unique name (the store's group).
    pub name: String,
    /// Registered algorithm.
    pub algorithm: String,
    /// `default` (the algorithm as the harness runs it), `erratum` (a printed
    /// variant the digest corrects) or `control` (deliberately broken).
    pub role: String,
    /// The erratum's id in the digest (for `role = "erratum"`).
    #[serde(default)]
    pub erratum: Option<String>,
    /// Algorithm options (the rest take their defaults).
    #[serde(default)]
    pub options: BTreeMap<String, toml::Value>,
    /// Records of the larger data set of the pair.
    pub n: usize,
    /// Dimension.
    pub d: usize,
    /// The guarantee claimed.
    pub claim: PrivacySpec,
    /// The guarantee the algorithm is run at (default: the claim). A control
    /// runs at a weaker guarantee (less noise) while claiming the stronger.
    #[serde(default)]
    pub run_at: Option<PrivacySpec>,
    /// Runs a side (half select the event, half estimate).
    pub runs: usize,
    /// What the audit observes: the final `release` (default) or the whole
    /// `transcript` of noisy releases the accountant composes over (the
    /// entry must declare a transcript statistic).
    #[serde(default)]
    pub observe: Observe,
    /// The `delta` at which a zCDP claim is converted to `eps` for this row
    /// (default: the file's `zcdp_delta`). A `rho`-zCDP claim implies
    /// `(eps(delta), delta)`-DP at every `delta`; a larger `delta` puts the
    /// audited event where fewer runs resolve it.
    #[serde(default)]
    pub zcdp_delta: Option<f64>,
    /// `consistent` or `violation`, from the theory, before the data.
    pub expect: String,
    /// The realised `eps` at the claimed `delta` the digest computes (errata):
    /// the report states the runs a typical Gaussian-DP audit needs to flag it.
    #[serde(default)]
    pub realised_eps: Option<f64>,
    /// Why the row is there / what it shows.
    #[serde(default)]
    pub note: String,
    /// When the expectation, label or setting was changed after the row was
    /// first run: what changed and the analysis that fixes it (not the
    /// data), e.g. a corrected digest's argument. Absent for rows as written
    /// before their first run.
    #[serde(default)]
    pub revised: Option<String>,
}

/// What an audit observes of each run.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Observe {
    /// The final release, through the entry's statistic.
    #[default]
    Release,
    /// Every noisy release of the run, through the entry's transcript
    /// statistic ([`crate::registry::audit::AuditDef::transcript`]).
    Transcript,
}

impl Observe {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Observe::Release => "release",
            Observe::Transcript => "transcript",
        }
    }
}

/// A guarantee in a spec: `{ eps, delta }` or `{ rho }`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrivacySpec {
    /// `eps` of `(eps, delta)`-DP.
    pub eps: Option<f64>,
    /// `delta` (default 0).
    pub delta: Option<f64>,
    /// `rho` of zCDP.
    pub rho: Option<f64>,
}

/// A named profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditProfile {
    /// Only these audits (all when absent).
    #[serde(default)]
    pub only: Option<Vec<String>>,
    /// At most this many runs a side.
    #[serde(default)]
    pub max_runs: Option<usize>,
    /// Runs a side of named audits, replacing `max_runs` for them (a control
    /// that needs more runs to be caught than the profile's cap).
    #[serde(default)]
    pub runs: BTreeMap<String, usize>,
}

/// A validated audit: its algorithm, options resolved with their defaults and
/// the guarantees in the algorithm's unit.
#[derive(Debug, Clone)]
pub struct Audit {
    /// The row as written.
    pub row: AuditRow,
    /// The algorithm.
    pub algorithm: &'static AlgorithmDef,
    /// Options with defaults.
    pub options: Values,
    /// Claimed guarantee.
    pub claim: Privacy,
    /// Guarantee run at.
    pub run_at: Privacy,
    /// Runs a side after the profile.
    pub runs: usize,
    /// The `delta` a zCDP claim is converted at (the row's, else the file's).
    pub zcdp_delta: f64,
}

/// A validated audit file under a profile.
#[derive(Debug, Clone)]
pub struct AuditPlan {
    /// The file.
    pub file: AuditFile,
    /// Output name (with the profile).
    pub output: String,
    /// The audits to run.
    pub audits: Vec<Audit>,
    /// The file's text (provenance).
    pub text: String,
}

fn bad(message: String, hint: &str) -> anyhow::Error {
    UsageError(message, hint.into()).into()
}

/// Whether `text` is an audit spec (it has `[[audit]]` rows) rather than an
/// experiment spec: both live in `experiments/`, and the tools that read
/// every experiment file there (the claims ledger, the spec tests) skip
/// audit specs.
pub fn is_audit_spec(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.get("audit").is_some_and(|a| a.is_array()))
}

/// Reads and validates `path` under `profile`.
pub fn load(path: &Path, profile: Option<&str>) -> Result<AuditPlan> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        bad(
            format!("cannot read {}: {e}", path.display()),
            "give an audit spec, e.g. experiments/audit.toml",
        )
    })?;
    let file: AuditFile = toml::from_str(&text).map_err(|e| {
        bad(
            format!("{} is not a valid audit spec: {e}", path.display()),
            "see experiments/audit.toml for the format",
        )
    })?;
    validate(file, profile, text)
}

/// Validates a parsed file.
pub fn validate(file: AuditFile, profile: Option<&str>, text: String) -> Result<AuditPlan> {
    if !(file.alpha > 0.0 && file.alpha < 0.5) {
        return Err(bad(
            format!("alpha = {} outside (0, 0.5)", file.alpha),
            "e.g. alpha = 1e-3",
        ));
    }
    if !(file.zcdp_delta > 0.0 && file.zcdp_delta < 1.0) {
        return Err(bad(
            format!("zcdp_delta = {} outside (0, 1)", file.zcdp_delta),
            "e.g. zcdp_delta = 1e-5",
        ));
    }
    let prof = match profile {
        None => None,
        Some(p) => Some(file.profiles.get(p).ok_or_else(|| {
            bad(
                format!("no profile `{p}` in the audit spec"),
                &format!("profiles: {:?}", file.profiles.keys().collect::<Vec<_>>()),
            )
        })?),
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut audits = Vec::new();
    for row in &file.audit {
        if !seen.insert(row.name.clone()) {
            return Err(bad(
                format!("audit `{}` appears twice", row.name),
                "give each audit a unique name",
            ));
        }
        if let Some(only) = prof.and_then(|p| p.only.as_ref()) {
            if !only.contains(&row.name) {
                continue;
            }
        }
        let cap = prof.and_then(|p| p.runs.get(&row.name).copied().or(p.max_runs));
        audits.push(validate_row(row, cap, file.zcdp_delta)?);
    }
    if let Some(missing) = prof.and_then(|p| p.runs.keys().find(|o| !seen.contains(*o))) {
        return Err(bad(
            format!("profile sets the runs of audit `{missing}`, which the spec lacks"),
            "fix the profile's `runs` table",
        ));
    }
    if let Some(only) = prof.and_then(|p| p.only.as_ref()) {
        if let Some(missing) = only.iter().find(|o| !seen.contains(*o)) {
            return Err(bad(
                format!("profile names audit `{missing}`, which the spec lacks"),
                "fix the profile's `only` list",
            ));
        }
    }
    let output = match profile {
        Some(p) => format!("{}-{p}", file.name),
        None => file.name.clone(),
    };
    Ok(AuditPlan {
        file,
        output,
        audits,
        text,
    })
}

fn validate_row(row: &AuditRow, max_runs: Option<usize>, file_zcdp_delta: f64) -> Result<Audit> {
    let here = |m: String| format!("audit `{}`: {m}", row.name);
    let algorithm = crate::registry::algorithm(&row.algorithm).ok_or_else(|| {
        bad(
            here(format!("unknown algorithm `{}`", row.algorithm)),
            "`runner list` names them",
        )
    })?;
    if algorithm.audit.is_none() {
        return Err(bad(
            here(format!(
                "`{}` declares no audit (it releases nothing private)",
                algorithm.name
            )),
            "audit a private algorithm",
        ));
    }
    if row.observe == Observe::Transcript && algorithm.audit.is_some_and(|a| a.transcript.is_none())
    {
        return Err(bad(
            here(format!(
                "`{}` declares no transcript statistic",
                algorithm.name
            )),
            "observe = \"release\", or declare `transcript` in the entry's AuditDef",
        ));
    }
    if !["default", "erratum", "control"].contains(&row.role.as_str()) {
        return Err(bad(
            here(format!("role `{}`", row.role)),
            "role is default, erratum or control",
        ));
    }
    if row.role == "erratum" && row.erratum.is_none() {
        return Err(bad(
            here("an erratum row needs `erratum = \"<id>\"`".into()),
            "name the digest's erratum",
        ));
    }
    if !["consistent", "violation"].contains(&row.expect.as_str()) {
        return Err(bad(
            here(format!("expect `{}`", row.expect)),
            "expect is consistent or violation",
        ));
    }
    if row.runs < 8 || row.n < 1 || row.d < 1 {
        return Err(bad(
            here("runs >= 8, n >= 1 and d >= 1 are needed".into()),
            "e.g. runs = 20000, n = 4, d = 1",
        ));
    }
    let options = resolve_options(algorithm, &row.options)
        .map_err(|m| bad(here(m), "`runner list` documents the options"))?;
    let claim = privacy(algorithm, &row.claim).map_err(|m| {
        bad(
            here(format!("claim: {m}")),
            "e.g. claim = { eps = 1.0, delta = 1e-5 } or { rho = 0.5 }",
        )
    })?;
    let run_at = match &row.run_at {
        Some(p) => privacy(algorithm, p)
            .map_err(|m| bad(here(format!("run_at: {m}")), "the same unit as the claim"))?,
        None => claim,
    };
    if let (Privacy::Approx(c), Privacy::Approx(r)) = (claim, run_at) {
        if c.delta != r.delta {
            return Err(bad(
                here("run_at must keep the claim's delta".into()),
                "change eps only",
            ));
        }
    }
    let zcdp_delta = match (row.zcdp_delta, claim) {
        (None, _) => file_zcdp_delta,
        (Some(delta), Privacy::Zcdp(_)) if delta > 0.0 && delta < 1.0 => delta,
        (Some(delta), Privacy::Zcdp(_)) => {
            return Err(bad(
                here(format!("zcdp_delta = {delta} outside (0, 1)")),
                "e.g. zcdp_delta = 1e-3",
            ))
        }
        (Some(_), Privacy::Approx(_)) => {
            return Err(bad(
                here("zcdp_delta applies to a zCDP claim only".into()),
                "an (eps, delta) claim states its delta",
            ))
        }
    };
    Ok(Audit {
        row: row.clone(),
        algorithm,
        options,
        claim,
        run_at,
        runs: max_runs.map_or(row.runs, |m| row.runs.min(m)),
        zcdp_delta,
    })
}

fn privacy(algorithm: &AlgorithmDef, p: &PrivacySpec) -> Result<Privacy, String> {
    match (algorithm.privacy_unit, p.eps, p.rho) {
        (PrivacyUnit::EpsDelta, Some(eps), None) => {
            let delta = p.delta.unwrap_or(0.0);
            if !(eps > 0.0 && eps.is_finite()) {
                return Err(format!("eps = {eps} must be positive"));
            }
            if !(0.0..algorithm.delta_max).contains(&delta)
                || (algorithm.needs_delta && delta == 0.0)
            {
                return Err(format!(
                    "delta = {delta} is outside what `{}` admits",
                    algorithm.name
                ));
            }
            Ok(Privacy::Approx(PrivacyParams { eps, delta }))
        }
        (PrivacyUnit::Zcdp, None, Some(rho)) if p.delta.is_none() => {
            if !(rho > 0.0 && rho.is_finite()) {
                return Err(format!("rho = {rho} must be positive"));
            }
            Ok(Privacy::Zcdp(rho))
        }
        (PrivacyUnit::EpsDelta, _, _) => Err(format!(
            "`{}` is calibrated for (eps, delta)-DP: give eps and delta",
            algorithm.name
        )),
        (PrivacyUnit::Zcdp, _, _) => Err(format!(
            "`{}` is calibrated for rho-zCDP: give rho only",
            algorithm.name
        )),
    }
}

fn resolve_options(
    algorithm: &AlgorithmDef,
    given: &BTreeMap<String, toml::Value>,
) -> Result<Values, String> {
    if let Some(k) = given
        .keys()
        .find(|k| !algorithm.options.iter().any(|d| d.name == k.as_str()))
    {
        let known: Vec<_> = algorithm.options.iter().map(|d| d.name).collect();
        return Err(format!(
            "unknown option `{k}` of `{}` (options: {known:?})",
            algorithm.name
        ));
    }
    let mut values = Values::new();
    for def in algorithm.options {
        let raw = match (given.get(def.name), def.default) {
            (Some(v), _) => v.clone(),
            (None, Some(text)) => {
                toml::from_str::<BTreeMap<String, toml::Value>>(&format!("v = {text}"))
                    .expect("registry defaults are valid TOML")
                    .remove("v")
                    .expect("default present")
            }
            (None, None) => return Err(format!("option `{}` has no default; set it", def.name)),
        };
        let value = match (raw, def.kind) {
            (toml::Value::String(s), ParamKind::Choice(choices))
                if choices.contains(&s.as_str()) =>
            {
                Value::Str(s)
            }
            (v, ParamKind::Choice(choices)) => {
                return Err(format!("{} = {v} is not one of {choices:?}", def.name))
            }
            (toml::Value::Integer(i), ParamKind::Int { min }) if i >= min => Value::Num(i as f64),
            (toml::Value::Float(x), ParamKind::Float { min, max, min_open })
                if x <= max && (x > min || (!min_open && x == min)) =>
            {
                Value::Num(x)
            }
            (toml::Value::Integer(i), ParamKind::Float { min, max, min_open })
                if (i as f64) <= max && ((i as f64) > min || (!min_open && i as f64 == min)) =>
            {
                Value::Num(i as f64)
            }
            (v, _) => return Err(format!("{} = {v} is outside its range", def.name)),
        };
        values.insert(def.name.to_string(), value);
    }
    Ok(values)
}

/// The options that differ from their defaults, as `k=v` joined by `,`
/// (the variant's name in reports; empty for the default algorithm).
pub fn variant(audit: &Audit) -> String {
    audit
        .row
        .options
        .iter()
        .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
        .collect::<Vec<_>>()
        .join(",")
}

/// Fails when the spec is unusable for another reason.
pub fn ensure_nonempty(plan: &AuditPlan) -> Result<()> {
    if plan.audits.is_empty() {
        bail!("the audit spec selects no audit");
    }
    Ok(())
}
