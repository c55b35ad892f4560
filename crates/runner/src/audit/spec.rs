//! The audit spec (`experiments/audit.toml`): one `[[audit]]` row per audit,
//! each an algorithm with its options at a setting, the privacy it claims and
//! the privacy it is run at, the runs a side and the verdict the theory
//! expects, decided before the data.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diagnostics::{parse_toml, PathSeg, SpecError, SpecLocator};
use crate::registry::{
    resolve_params, resolve_privacy, AlgorithmDef, ParamTable, ParamValue, Privacy, PrivacySpec,
    Values,
};
use crate::toml_path;

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

/// Points of the power search's grid `reference x 1.5^k`, `k < MAX_PROBES`
/// (`crate::audit::power`): the last is at `1.5^4 ~ 5.1` times the
/// reference power. Here because a row's `power_probes` is validated
/// against it.
pub const MAX_PROBES: usize = 5;

/// One audit.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditRow {
    /// Unique name (the store's group).
    pub name: String,
    /// Registered algorithm.
    pub algorithm: String,
    /// What the row is: the algorithm as the harness runs it, a printed
    /// variant the digest corrects, or a deliberately broken control.
    pub role: Role,
    /// The erratum's id in the digest (for `role = "erratum"`).
    #[serde(default)]
    pub erratum: Option<String>,
    /// Algorithm options (the rest take their defaults), resolved by the
    /// same resolver as an experiment's.
    #[serde(default)]
    pub options: BTreeMap<String, ParamValue>,
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
    /// The verdict the theory expects, written before the data.
    pub expect: Expect,
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
    /// How many points of the power search's grid (`reference x 1.5^k`,
    /// `k < power_probes`) this row may probe (default and at most
    /// [`MAX_PROBES`]). For a row whose probes cost more as
    /// `eps'` grows (an inner count or a step count that grows with the
    /// privacy), the note says what one probe costs; the report says where
    /// the search stopped. A limit of cost at the row's own `runs`: a
    /// profile that runs fewer probes the whole grid.
    #[serde(default)]
    pub power_probes: Option<usize>,
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

/// What an audit row is.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The algorithm as the harness runs it.
    Default,
    /// A printed variant the digest corrects (`erratum = "<id>"` names it).
    Erratum,
    /// Deliberately broken (less noise than claimed), to show the audit
    /// catches it.
    Control,
}

impl Role {
    /// Name in the spec and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Role::Default => "default",
            Role::Erratum => "erratum",
            Role::Control => "control",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The verdict an audit row expects, from the theory, before the data.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// No violation of the claim.
    Consistent,
    /// The claim is violated (an erratum far from its claim, a control).
    Violation,
}

impl Expect {
    /// The verdict expected.
    pub fn verdict(self) -> audit::Verdict {
        match self {
            Expect::Consistent => audit::Verdict::Consistent,
            Expect::Violation => audit::Verdict::Violation,
        }
    }

    /// Name in the spec and in reports: the verdict's.
    pub fn name(self) -> &'static str {
        self.verdict().name()
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
    /// Power probes of named audits in this profile, replacing the row's
    /// `power_probes` (`0..=`[`MAX_PROBES`]; 0 runs none, and the row's
    /// power columns say so). For a row whose probes cost minutes even at
    /// the profile's runs (a step count that grows with `eps'`), where the
    /// profile checks the row itself and the default profile its power.
    #[serde(default)]
    pub power_probes: BTreeMap<String, usize>,
}

/// A validated audit: its algorithm, options resolved with their defaults and
/// the guarantees in the algorithm's unit.
#[derive(Debug, Clone)]
pub struct Audit {
    /// The row as written.
    pub row: AuditRow,
    /// Its index among the file's `[[audit]]` rows (where its errors are located).
    pub index: usize,
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
    /// Power probes the profile allows this row, replacing the row's own
    /// limit (`None`: the row's, see [`AuditRow::power_probes`]).
    pub profile_probes: Option<usize>,
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
    /// The path it was read from.
    pub path: PathBuf,
}

impl AuditPlan {
    /// A locator that turns TOML key paths of the file into `file:line:column`.
    pub fn locator(&self) -> SpecLocator<'_> {
        SpecLocator::new(&self.path, &self.text)
    }
}

/// Whether `text` is an audit spec (it has `[[audit]]` rows) rather than an
/// experiment spec: both live in `experiments/`, and the tools that read
/// every experiment file there (the claims ledger, the spec tests) skip
/// audit specs.
pub fn is_audit_spec(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.get("audit").is_some_and(|a| a.is_array()))
}

/// Reads and validates `path` under `profile`. Every error is a [`SpecError`]
/// at the `file:line:column` of the offending key, with a hint (exit code 2,
/// nothing run or written).
pub fn load(path: &Path, profile: Option<&str>) -> Result<AuditPlan, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|e| SpecError {
        location: path.display().to_string(),
        message: format!("cannot read audit spec: {e}"),
        hint: "give an audit spec, e.g. experiments/audit.toml".into(),
    })?;
    let file: AuditFile = parse_toml(path, &text, hint_for_parse_error)?;
    validate(path, file, profile, text)
}

fn hint_for_parse_error(message: &str) -> String {
    if message.contains("unknown variant") {
        "use one of the values listed (see docs/audit.md)".into()
    } else if message.contains("unknown field") {
        "remove or rename the key; experiments/audit.toml shows every key".into()
    } else if message.contains("missing field") {
        "add the missing key: every [[audit]] row needs name, algorithm, role, n, d, claim, runs and expect".into()
    } else {
        "check the TOML syntax and value types against experiments/audit.toml".into()
    }
}

fn join(a: &[PathSeg], b: &[PathSeg]) -> Vec<PathSeg> {
    a.iter().chain(b).cloned().collect()
}

/// Validates a parsed file (read from `path`, with `text`) under `profile`.
fn validate(
    path: &Path,
    file: AuditFile,
    profile: Option<&str>,
    text: String,
) -> Result<AuditPlan, SpecError> {
    let loc = SpecLocator::new(path, &text);
    if !(file.alpha > 0.0 && file.alpha < 0.5) {
        return Err(loc.error(
            &toml_path!["alpha"],
            format!("alpha = {} outside (0, 0.5)", file.alpha),
            "the false-alarm rate of each audit, e.g. alpha = 1e-3",
        ));
    }
    if !(file.zcdp_delta > 0.0 && file.zcdp_delta < 1.0) {
        return Err(loc.error(
            &toml_path!["zcdp_delta"],
            format!("zcdp_delta = {} outside (0, 1)", file.zcdp_delta),
            "e.g. zcdp_delta = 1e-5",
        ));
    }
    let prof = match profile {
        None => None,
        Some(p) => Some(file.profiles.get(p).ok_or_else(|| {
            loc.error(
                &toml_path!["profiles"],
                format!("no profile `{p}` in the audit spec"),
                format!("profiles: {:?}", file.profiles.keys().collect::<Vec<_>>()),
            )
        })?),
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut audits = Vec::new();
    for (i, row) in file.audit.iter().enumerate() {
        if !seen.insert(row.name.clone()) {
            return Err(loc.error(
                &toml_path!["audit", i, "name"],
                format!("audit `{}` appears twice", row.name),
                "give each audit a unique name (it names the store's group)",
            ));
        }
        // Every row is validated, selected or not: a profile runs a part of
        // a spec that is right as a whole (as an experiment's `only` does).
        let cap = prof.and_then(|p| p.runs.get(&row.name).copied().or(p.max_runs));
        let probes = prof.and_then(|p| p.power_probes.get(&row.name).copied());
        let audit = validate_row(&loc, i, row, cap, probes, file.zcdp_delta)?;
        if prof
            .and_then(|p| p.only.as_ref())
            .is_none_or(|only| only.contains(&row.name))
        {
            audits.push(audit);
        }
    }
    if let (Some(p), Some(prof)) = (profile, prof) {
        // The per-audit tables of a profile name audits of the spec.
        for (table, what, names) in [
            ("runs", "the runs", prof.runs.keys()),
            ("power_probes", "the power probes", prof.power_probes.keys()),
        ] {
            if let Some(missing) = names.into_iter().find(|o| !seen.contains(*o)) {
                return Err(loc.error(
                    &toml_path!["profiles", p, table, missing],
                    format!("profile sets {what} of audit `{missing}`, which the spec lacks"),
                    format!("fix the profile's `{table}` table"),
                ));
            }
        }
        if let Some((name, k)) = prof.power_probes.iter().find(|(_, k)| **k > MAX_PROBES) {
            return Err(loc.error(
                &toml_path!["profiles", p, "power_probes", name],
                format!("power_probes = {k} for audit `{name}` is outside 0..={MAX_PROBES}"),
                "0 skips the row's power search in this profile, 1 probes the reference only",
            ));
        }
        let only = prof.only.iter().flatten().enumerate();
        if let Some((j, missing)) = only.clone().find(|(_, o)| !seen.contains(*o)) {
            return Err(loc.error(
                &toml_path!["profiles", p, "only", j],
                format!("profile names audit `{missing}`, which the spec lacks"),
                "fix the profile's `only` list",
            ));
        }
    }
    if audits.is_empty() {
        return Err(match profile {
            Some(p) => loc.error(
                &toml_path!["profiles", p, "only"],
                format!("profile `{p}` selects no audit"),
                "name at least one audit in `only`",
            ),
            None => loc.error(
                &toml_path!["audit"],
                "the audit spec has no audit",
                "add at least one [[audit]] row",
            ),
        });
    }
    let output = match profile {
        Some(p) => format!("{}-{p}", file.name),
        None => file.name.clone(),
    };
    Ok(AuditPlan {
        file,
        output,
        audits,
        path: path.to_path_buf(),
        text,
    })
}

fn validate_row(
    loc: &SpecLocator,
    index: usize,
    row: &AuditRow,
    max_runs: Option<usize>,
    profile_probes: Option<usize>,
    file_zcdp_delta: f64,
) -> Result<Audit, SpecError> {
    let base = toml_path!["audit", index];
    let at = |key: &str| join(&base, &toml_path![key]);
    let here = |m: String| format!("audit `{}`: {m}", row.name);
    let algorithm = if row.algorithm.starts_with(crate::python::PREFIX) {
        let dir = loc.path().parent().unwrap_or(std::path::Path::new(""));
        crate::python::resolve(&row.algorithm, dir).map_err(|e| {
            loc.error(
                &at("algorithm"),
                here(e),
                "a Python entry is python:<path>:<function> with a HARNESS declaration (docs/python-entries.md)",
            )
        })?
    } else {
        crate::registry::algorithm(&row.algorithm).ok_or_else(|| {
            loc.error(
                &at("algorithm"),
                here(format!("unknown algorithm `{}`", row.algorithm)),
                "`runner list` names them",
            )
        })?
    };
    let Some(audit_def) = algorithm.audit else {
        return Err(loc.error(
            &at("algorithm"),
            here(format!(
                "`{}` declares no audit (it releases nothing private)",
                algorithm.name
            )),
            "audit a private algorithm",
        ));
    };
    if row.observe == Observe::Transcript && audit_def.transcript.is_none() {
        return Err(loc.error(
            &at("observe"),
            here(format!(
                "`{}` declares no transcript statistic",
                algorithm.name
            )),
            "observe = \"release\", or declare `transcript` in the entry's AuditDef",
        ));
    }
    if row.role == Role::Erratum && row.erratum.is_none() {
        return Err(loc.error(
            &at("role"),
            here("an erratum row needs `erratum = \"<id>\"`".into()),
            "name the digest's erratum",
        ));
    }
    for (key, value, least) in [("runs", row.runs, 8), ("n", row.n, 1), ("d", row.d, 1)] {
        if value < least {
            return Err(loc.error(
                &at(key),
                here(format!("{key} = {value} is below {least}")),
                "runs >= 8 (half select the event, half estimate), n >= 1 and d >= 1, e.g. runs = 20000, n = 4, d = 1",
            ));
        }
    }
    if let Some(k) = row.power_probes {
        if !(1..=MAX_PROBES).contains(&k) {
            return Err(loc.error(
                &at("power_probes"),
                here(format!("power_probes = {k} is outside 1..={}", MAX_PROBES)),
                "power_probes = 1 probes the reference only; leave it out for the whole grid",
            ));
        }
    }
    let owner = format!("algorithm `{}`", algorithm.name);
    let table = ParamTable {
        owner: &owner,
        reserved: &[],
        swept: None,
    };
    let options = resolve_params(algorithm.options, &row.options, table)
        .map_err(|e| loc.unresolved(&at("options"), e))?;
    let claim = resolve_privacy(algorithm, &row.claim, "claim")
        .map_err(|e| loc.unresolved(&at("claim"), e))?;
    let run_at = match &row.run_at {
        Some(p) => {
            resolve_privacy(algorithm, p, "run_at").map_err(|e| loc.unresolved(&at("run_at"), e))?
        }
        None => claim,
    };
    if let (Privacy::Approx(c), Privacy::Approx(r)) = (claim, run_at) {
        if c.delta != r.delta {
            return Err(loc.error(
                &join(&base, &toml_path!["run_at", "delta"]),
                here(format!(
                    "run_at's delta = {} differs from the claim's {}",
                    r.delta, c.delta
                )),
                "a control keeps the claim's delta and changes eps only",
            ));
        }
    }
    let zcdp_delta = match (row.zcdp_delta, claim) {
        (None, _) => file_zcdp_delta,
        (Some(delta), Privacy::Zcdp(_)) if delta > 0.0 && delta < 1.0 => delta,
        (Some(delta), Privacy::Zcdp(_)) => {
            return Err(loc.error(
                &at("zcdp_delta"),
                here(format!("zcdp_delta = {delta} outside (0, 1)")),
                "e.g. zcdp_delta = 1e-3",
            ))
        }
        (Some(_), Privacy::Approx(_)) => {
            return Err(loc.error(
                &at("zcdp_delta"),
                here("zcdp_delta applies to a zCDP claim only".into()),
                "an (eps, delta) claim states its delta",
            ))
        }
    };
    Ok(Audit {
        row: row.clone(),
        index,
        algorithm,
        options,
        claim,
        run_at,
        runs: max_runs.map_or(row.runs, |m| row.runs.min(m)),
        profile_probes,
        zcdp_delta,
    })
}

/// The options that differ from their defaults, as `k=v` joined by `,`
/// (the variant's name in reports; empty for the default algorithm).
pub fn variant(audit: &Audit) -> String {
    audit
        .row
        .options
        .iter()
        .map(|(k, v)| format!("{k}={}", toml_text(v).trim_matches('"')))
        .collect::<Vec<_>>()
        .join(",")
}

/// `value` as TOML writes it (`10.0`, `"paper"`): the variant column's text
/// from before the options were read as [`ParamValue`]s.
fn toml_text(value: &ParamValue) -> String {
    match value {
        ParamValue::Bool(b) => toml::Value::Boolean(*b),
        ParamValue::Int(i) => toml::Value::Integer(*i),
        ParamValue::Float(x) => toml::Value::Float(*x),
        ParamValue::Str(s) => toml::Value::String(s.clone()),
    }
    .to_string()
}
