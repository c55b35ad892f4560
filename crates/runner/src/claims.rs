//! The claims ledger: every claim of the five papers (declared once, in
//! `experiments/claims/<paper>.toml`), judged on the studies that name it
//! (`claims = [...]` in `experiments/*.toml`) from their committed
//! default-profile summaries, one verdict each: `results/claims.md` and
//! `results/claims.csv`. `runner claims --check` rebuilds the ledger and
//! fails when a verdict lost evidence against the committed one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Deserialize;

use crate::analyze::{SlopeResult, StudyAnalysis};
use crate::csv::{read_csv, Column, Table};
use crate::diagnostics::{SpecError, SpecLocator};
use crate::format::sig;
use crate::validate::{Experiment, Study};
use crate::verdict::{combine, Judgement, Verdict};

/// `runner claims`.
#[derive(Debug, Args, Clone)]
pub struct ClaimsArgs {
    /// Directory of the claim files (one per paper).
    #[arg(long, default_value = "experiments/claims")]
    pub claims_dir: PathBuf,
    /// Directory of the experiment files whose studies name claims.
    #[arg(long, default_value = "experiments")]
    pub experiments_dir: PathBuf,
    /// Directory of the committed summaries, and of the ledger.
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// Compare with the committed ledger (results/claims.csv) instead of
    /// writing it: exit 1 when a claim's verdict lost evidence (confirmed to
    /// anything else, anything to contradicted).
    #[arg(long)]
    pub check: bool,
}

/// One claim file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimFile {
    /// The paper, as printed in reports.
    pub paper: String,
    /// The experiment file (name) whose studies name these claims.
    pub experiment: String,
    /// The claims.
    pub claims: Vec<ClaimSpec>,
}

/// What kind of statement a claim is.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// A rate in one parameter and regime.
    Rate,
    /// A stated comparison between algorithms.
    Comparison,
    /// A privacy guarantee.
    Privacy,
    /// A printed constant the digest corrects.
    Erratum,
    /// An explicit bound.
    Bound,
}

/// Which checks of the naming studies decide a claim.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Every fitted slope in `parameter`.
    #[default]
    Slope,
    /// The bound expectation.
    Bound,
    /// The exact-expectation match.
    TheoryMatch,
    /// The reference expectation.
    Reference,
    /// Every check of the naming studies.
    Study,
    /// The `runner errata` rows of the claim (by `errata_id`, default `id`).
    Errata,
    /// Only the privacy audits it names (`audits`, rows of results/audit.csv).
    Audit,
}

impl Evidence {
    fn name(self) -> &'static str {
        match self {
            Evidence::Slope => "slope",
            Evidence::Bound => "bound",
            Evidence::TheoryMatch => "theory_match",
            Evidence::Reference => "reference",
            Evidence::Study => "study",
            Evidence::Errata => "errata",
            Evidence::Audit => "audit",
        }
    }
}

/// One claim.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    /// Stable unique id, e.g. `MN-T1-n`.
    pub id: String,
    /// Theorem, corollary or section.
    pub theorem: String,
    /// The claim as printed.
    pub statement: String,
    /// What kind of statement it is.
    pub kind: ClaimKind,
    /// The swept variable whose slope is the evidence.
    #[serde(default)]
    pub parameter: Option<String>,
    /// Which checks decide it.
    #[serde(default)]
    pub evidence: Evidence,
    /// The expected exponent or relation, in words.
    pub expected: String,
    /// Why no study tests it (then none may name it).
    #[serde(default)]
    pub not_measured: Option<String>,
    /// With slope evidence, only the naming studies' slope expectations with
    /// this theory exponent (a study fitting two regimes on one parameter).
    #[serde(default)]
    pub slope: Option<f64>,
    /// The errata row id, when it differs from `id`.
    #[serde(default)]
    pub errata_id: Option<String>,
    /// Anything a reader needs.
    #[serde(default)]
    pub notes: Option<String>,
    /// Rows of the committed privacy audit (results/audit.csv, `runner
    /// audit experiments/audit.toml`) that are empirical evidence for it. The
    /// claim judged is the calibration's privacy (for an erratum, the printed
    /// calibration's, as with the errata rows): a violation contradicts it; no
    /// violation confirms it, with the audit's bound and its power (the
    /// smallest violation it would typically have caught) in the reason.
    #[serde(default)]
    pub audits: Vec<String>,
}

/// One row of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerRow {
    /// The paper.
    pub paper: String,
    /// The claim id.
    pub claim_id: String,
    /// Theorem or section.
    pub theorem: String,
    /// Kind of claim.
    pub kind: String,
    /// The statement as printed.
    pub statement: String,
    /// Swept parameter (empty when not a slope claim).
    pub parameter: String,
    /// Expected relation.
    pub expected: String,
    /// Evidence kind.
    pub evidence: String,
    /// The decisive measured value (a fitted slope, a max mean/bound), NaN if none.
    pub measured: f64,
    /// Its 95% CI, low end.
    pub ci_low: f64,
    /// Its 95% CI, high end.
    pub ci_high: f64,
    /// The fit window of the decisive slope.
    pub window: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, with every naming study's part.
    pub reason: String,
    /// Revision notes of the expectations involved.
    pub revised: String,
    /// The naming studies, `experiment:study`.
    pub studies: String,
    /// The experiment files involved.
    pub spec: String,
}

/// An experiment with its analyses re-derived from its committed summary.
pub struct Judged {
    /// Spec path.
    pub path: PathBuf,
    /// The resolved experiment (default profile).
    pub experiment: Experiment,
    /// Its analyses (`None` without a committed summary).
    pub analyses: Option<Vec<StudyAnalysis>>,
}

/// The `.toml` files directly in `dir`, sorted by name (a stable ledger order).
fn toml_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            !std::fs::read_to_string(p).is_ok_and(|t| crate::audit::spec::is_audit_spec(&t))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// Loads every claim file of `dir`, sorted by file name.
pub fn load_claims(dir: &Path) -> Result<Vec<(PathBuf, ClaimFile)>> {
    toml_files(dir)?
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            let file: ClaimFile = toml::from_str(&text).map_err(|e| SpecError {
                location: match e.span() {
                    Some(span) => SpecLocator::new(&p, &text).at_offset(span.start),
                    None => p.display().to_string(),
                },
                message: e.message().trim().to_string(),
                hint: "see experiments/claims/README.md for the fields of a claim".into(),
            })?;
            Ok((p, file))
        })
        .collect()
}

/// Every experiment file of `dir` (default profile), with its analyses
/// re-derived from the committed summary in `results_dir`.
pub fn judge_experiments(dir: &Path, results_dir: &Path) -> Result<Vec<Judged>> {
    toml_files(dir)?
        .into_iter()
        .map(|path| {
            let loaded = crate::spec::load(&path)?;
            let experiment = crate::validate::resolve(&loaded, None)?;
            let summary = crate::summary::summary_path(results_dir, &experiment);
            let analyses = summary
                .exists()
                .then(|| crate::summary::analyses_from_summary(&experiment, &summary))
                .transpose()?;
            Ok(Judged {
                path,
                experiment,
                analyses,
            })
        })
        .collect()
}

fn bad(location: String, message: String, hint: &str) -> anyhow::Error {
    SpecError {
        location,
        message,
        hint: hint.into(),
    }
    .into()
}

/// Checks that every id is unique, every study names known claims, no study
/// names a claim marked not measured, and every other claim is named.
pub fn validate(claims: &[(PathBuf, ClaimFile)], judged: &[Judged]) -> Result<()> {
    let mut ids: BTreeMap<&str, (&Path, &ClaimSpec)> = BTreeMap::new();
    for (path, file) in claims {
        for c in &file.claims {
            if let Some((other, _)) = ids.insert(&c.id, (path, c)) {
                return Err(bad(
                    path.display().to_string(),
                    format!(
                        "claim id `{}` is declared twice (also in {})",
                        c.id,
                        other.display()
                    ),
                    "give every claim one stable, unique id",
                ));
            }
            if c.evidence == Evidence::Slope && c.not_measured.is_none() && c.parameter.is_none() {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}` has slope evidence but no `parameter`", c.id),
                    "name the swept variable whose slope decides it",
                ));
            }
        }
    }
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for j in judged {
        for s in &j.experiment.studies {
            for id in &s.claims {
                let Some((_, c)) = ids.get(id.as_str()) else {
                    return Err(bad(
                        format!("{} (study `{}`)", j.path.display(), s.name),
                        format!("study names claim `{id}`, which no claim file declares"),
                        "declare it in experiments/claims/<paper>.toml or fix the id",
                    ));
                };
                if c.not_measured.is_some() {
                    return Err(bad(
                        format!("{} (study `{}`)", j.path.display(), s.name),
                        format!(
                            "study names claim `{id}`, which its claim file marks not measured"
                        ),
                        "remove `not_measured` from the claim, or the id from the study",
                    ));
                }
                named.insert(id);
            }
        }
    }
    for (path, file) in claims {
        for c in &file.claims {
            let needs_study = c.not_measured.is_none()
                && c.evidence != Evidence::Errata
                && c.evidence != Evidence::Audit;
            if needs_study && !named.contains(c.id.as_str()) {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}` is neither named by a study nor marked not measured", c.id),
                    "add `claims = [\"ID\"]` to the study that tests it, or `not_measured = \"why\"`",
                ));
            }
        }
    }
    Ok(())
}

/// One naming study's contribution to a claim.
struct Part<'a> {
    where_: String,
    judgement: Judgement,
    slope: Option<&'a SlopeResult>,
    max_bound_ratio: f64,
}

fn study_parts<'a>(c: &ClaimSpec, exp: &str, study: &Study, a: &'a StudyAnalysis) -> Vec<Part<'a>> {
    let where_ = |label: &str| format!("{exp}:{} ({label})", study.name);
    let part = |label: &str, j: &Judgement| Part {
        where_: where_(label),
        judgement: j.clone(),
        slope: None,
        max_bound_ratio: a.max_bound_ratio,
    };
    let missing = |what: &str| Part {
        where_: where_(what),
        judgement: Judgement::new(
            Verdict::NotMeasured,
            format!("the study has no {what} expectation"),
        ),
        slope: None,
        max_bound_ratio: f64::NAN,
    };
    let param = c.parameter.as_deref().unwrap_or_default();
    match c.evidence {
        Evidence::Slope => {
            let slopes: Vec<Part> = a
                .slopes
                .iter()
                .filter(|s| s.param == param)
                .filter(|s| c.slope.is_none_or(|x| (s.theory_slope - x).abs() < 1e-9))
                .map(|s| {
                    let at = if s.at.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", crate::format::describe_values(&s.at))
                    };
                    let window = format!(" on [{}, {}]", sig(s.window.0), sig(s.window.1));
                    Part {
                        where_: where_(&format!("slope in {param}{at}{window}")),
                        judgement: s.judgement.clone(),
                        slope: Some(s),
                        max_bound_ratio: f64::NAN,
                    }
                })
                .collect();
            if slopes.is_empty() {
                vec![missing(&format!("slope-in-{param}"))]
            } else {
                slopes
            }
        }
        Evidence::Bound => match &a.bound_judgement {
            Some(j) => vec![part("bound", j)],
            None => vec![missing("bound")],
        },
        Evidence::TheoryMatch => match &a.theory_judgement {
            Some(j) => vec![part("theory match", j)],
            None => vec![missing("theory-match")],
        },
        Evidence::Reference => match &a.reference_judgement {
            Some(j) => vec![part("reference", j)],
            None => vec![missing("reference")],
        },
        Evidence::Study => {
            let all: Vec<Part> = a
                .judgements()
                .into_iter()
                .map(|(label, j)| Part {
                    where_: where_(&label),
                    judgement: j.clone(),
                    slope: a.slopes.iter().find(|s| std::ptr::eq(&s.judgement, j)),
                    max_bound_ratio: a.max_bound_ratio,
                })
                .collect();
            if all.is_empty() {
                vec![missing("")]
            } else {
                all
            }
        }
        Evidence::Errata | Evidence::Audit => Vec::new(),
    }
}

/// The `runner errata` rows of a claim, judged: the printed calibration is
/// the paper's privacy claim; exactly not private contradicts it, not
/// certifiable by the best bound leaves it inconclusive, private confirms it.
fn errata_parts(c: &ClaimSpec, rows: &[crate::errata::Erratum]) -> Vec<Part<'static>> {
    use crate::errata::Verdict as E;
    let id = c.errata_id.as_deref().unwrap_or(&c.id);
    rows.iter()
        .filter(|r| r.id == id)
        .map(|r| {
            let verdict = match r.verdict {
                E::NotPrivate => Verdict::Contradicted,
                E::NotCertified => Verdict::Inconclusive,
                E::PrivateBySlack | E::PrivateButLoose => Verdict::Confirmed,
            };
            Part {
                where_: format!("runner errata {} ({})", r.id, r.setting),
                judgement: Judgement::new(
                    verdict,
                    format!(
                        "printed calibration realises {} against the claimed {} ({}): {}",
                        r.realised,
                        r.target,
                        r.accounting.label(),
                        r.verdict.label()
                    ),
                ),
                slope: None,
                max_bound_ratio: f64::NAN,
            }
        })
        .collect()
}

/// One row of the committed audit (results/audit.csv), as the ledger reads it.
#[derive(Debug, Clone)]
pub struct AuditRow {
    /// Audit name.
    pub audit: String,
    /// `consistent`, `violation` or `not measured`.
    pub verdict: String,
    /// The bound on eps.
    pub eps_lower: String,
    /// The claimed eps (at `claimed_delta`).
    pub claimed_eps: String,
    /// The claimed delta.
    pub claimed_delta: String,
    /// Runs a side.
    pub runs: String,
    /// The audit's power.
    pub detectable: String,
}

/// Reads `path` (results/audit.csv); no rows when it does not exist.
pub fn read_audit_rows(path: &Path) -> Result<Vec<AuditRow>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .with_context(|| format!("{} has no column `{name}`", path.display()))
    };
    let idx = [
        col("audit")?,
        col("verdict")?,
        col("eps_lower")?,
        col("claimed_eps")?,
        col("claimed_delta")?,
        col("runs_per_side")?,
        col("smallest_detectable_eps")?,
    ];
    Ok(lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let get = |i: usize| f.get(idx[i]).copied().unwrap_or_default().to_string();
            AuditRow {
                audit: get(0),
                verdict: get(1),
                eps_lower: get(2),
                claimed_eps: get(3),
                claimed_delta: get(4),
                runs: get(5),
                detectable: get(6),
            }
        })
        .collect())
}

/// The audit rows a claim names, judged (see [`ClaimSpec::audits`]).
fn audit_parts(c: &ClaimSpec, rows: &[AuditRow]) -> Vec<Part<'static>> {
    c.audits
        .iter()
        .map(|name| {
            let judgement = match rows.iter().find(|r| &r.audit == name) {
                None => Judgement::new(
                    Verdict::NotMeasured,
                    "no row in the committed results/audit.csv".to_string(),
                ),
                Some(r) => {
                    let what = format!(
                        "eps_lb {} against the claimed {} at delta {} ({} runs a side; detectable from eps {})",
                        r.eps_lower, r.claimed_eps, r.claimed_delta, r.runs, r.detectable
                    );
                    // The claim judged is the (printed or corrected)
                    // calibration's privacy, as for the errata rows: a
                    // violation contradicts it; no violation is the outcome
                    // the claim predicts of a check that could have failed,
                    // with the audit's power in the reason.
                    let verdict = match r.verdict.as_str() {
                        "violation" => Verdict::Contradicted,
                        "consistent" => Verdict::Confirmed,
                        _ => Verdict::NotMeasured,
                    };
                    Judgement::new(verdict, format!("{}: {what}", r.verdict))
                }
            };
            Part {
                where_: format!("runner audit {name}"),
                judgement,
                slope: None,
                max_bound_ratio: f64::NAN,
            }
        })
        .collect()
}

/// Builds the ledger: one row per claim, in claim-file order, without audit
/// evidence ([`ledger_with_audits`]).
pub fn ledger(claims: &[(PathBuf, ClaimFile)], judged: &[Judged]) -> Vec<LedgerRow> {
    ledger_with_audits(claims, judged, &[])
}

/// Builds the ledger with the committed audit's rows as evidence.
pub fn ledger_with_audits(
    claims: &[(PathBuf, ClaimFile)],
    judged: &[Judged],
    audits: &[AuditRow],
) -> Vec<LedgerRow> {
    let errata = crate::errata::errata();
    let mut rows = Vec::new();
    for (_, file) in claims {
        for c in &file.claims {
            let mut parts: Vec<Part> = Vec::new();
            let mut studies = Vec::new();
            let mut specs = BTreeSet::new();
            let mut revised = Vec::new();
            for j in judged {
                let exp = j.experiment.output_name();
                for (i, study) in j.experiment.studies.iter().enumerate() {
                    if !study.claims.contains(&c.id) {
                        continue;
                    }
                    studies.push(format!("{exp}:{}", study.name));
                    specs.insert(j.path.display().to_string());
                    for why in study
                        .slopes
                        .iter()
                        .filter_map(|s| s.revised.as_deref())
                        .chain(study.revised.as_deref())
                    {
                        revised.push(format!("{}: {why}", study.name));
                    }
                    match &j.analyses {
                        Some(a) => parts.extend(study_parts(c, &exp, study, &a[i])),
                        None => parts.push(Part {
                            where_: format!("{exp}:{}", study.name),
                            judgement: Judgement::new(
                                Verdict::NotMeasured,
                                format!("no committed summary of {exp}"),
                            ),
                            slope: None,
                            max_bound_ratio: f64::NAN,
                        }),
                    }
                }
            }
            if c.evidence == Evidence::Errata {
                parts.extend(errata_parts(c, &errata));
            }
            parts.extend(audit_parts(c, audits));
            rows.push(row(file, c, &parts, studies, specs, revised));
        }
    }
    rows
}

fn row(
    file: &ClaimFile,
    c: &ClaimSpec,
    parts: &[Part],
    studies: Vec<String>,
    specs: BTreeSet<String>,
    revised: Vec<String>,
) -> LedgerRow {
    let verdict = combine(parts.iter().map(|p| &p.judgement));
    let reason = match &c.not_measured {
        Some(why) if parts.is_empty() => why.clone(),
        _ if parts.is_empty() => "no evidence: no study names it and no errata row matches".into(),
        _ => {
            let count = |v: Verdict| parts.iter().filter(|p| p.judgement.verdict == v).count();
            let tally: Vec<String> = Verdict::ALL
                .into_iter()
                .filter(|v| count(*v) > 0)
                .map(|v| format!("{} {v}", count(v)))
                .collect();
            let details: Vec<String> = parts
                .iter()
                .map(|p| {
                    format!(
                        "{}: {}, {}",
                        p.where_, p.judgement.verdict, p.judgement.reason
                    )
                })
                .collect();
            format!("{} — {}", tally.join(", "), details.join(" | "))
        }
    };
    // The decisive part: the first with the claim's verdict.
    let decisive = parts.iter().find(|p| p.judgement.verdict == verdict);
    let (measured, ci_low, ci_high, window) = match decisive.and_then(|p| p.slope) {
        Some(s) => (
            s.fitted,
            s.fitted - s.ci_half_width,
            s.fitted + s.ci_half_width,
            format!("[{}, {}]", sig(s.window.0), sig(s.window.1)),
        ),
        None => (
            decisive.map_or(f64::NAN, |p| p.max_bound_ratio),
            f64::NAN,
            f64::NAN,
            String::new(),
        ),
    };
    let mut revised = revised;
    revised.dedup();
    LedgerRow {
        paper: file.paper.clone(),
        claim_id: c.id.clone(),
        theorem: c.theorem.clone(),
        kind: format!("{:?}", c.kind).to_lowercase(),
        statement: c.statement.clone(),
        parameter: c.parameter.clone().unwrap_or_default(),
        expected: c.expected.clone(),
        evidence: c.evidence.name().into(),
        measured,
        ci_low,
        ci_high,
        window,
        verdict,
        reason,
        revised: revised.join(" | "),
        studies: studies.join(" "),
        spec: specs.into_iter().collect::<Vec<_>>().join(" "),
    }
}

/// Verdict counts per paper, in first-appearance order.
pub fn counts(rows: &[LedgerRow]) -> Vec<(String, [usize; 4])> {
    let mut out: Vec<(String, [usize; 4])> = Vec::new();
    for r in rows {
        let i = Verdict::ALL
            .iter()
            .position(|v| *v == r.verdict)
            .unwrap_or(3);
        match out.iter_mut().find(|(p, _)| *p == r.paper) {
            Some((_, c)) => c[i] += 1,
            None => {
                let mut c = [0; 4];
                c[i] = 1;
                out.push((r.paper.clone(), c));
            }
        }
    }
    out
}

/// The counts table in Markdown (paper | confirmed | contradicted | inconclusive | not measured).
pub fn counts_markdown(rows: &[LedgerRow]) -> String {
    let mut out = String::from(
        "| paper | confirmed | contradicted | inconclusive | not measured | claims |\n|---|---|---|---|---|---|\n",
    );
    let mut total = [0usize; 4];
    for (paper, c) in counts(rows) {
        for (t, x) in total.iter_mut().zip(c) {
            *t += x;
        }
        let _ = writeln!(
            out,
            "| {paper} | {} | {} | {} | {} | {} |",
            c[0],
            c[1],
            c[2],
            c[3],
            c.iter().sum::<usize>()
        );
    }
    let _ = writeln!(
        out,
        "| all | {} | {} | {} | {} | {} |",
        total[0],
        total[1],
        total[2],
        total[3],
        total.iter().sum::<usize>()
    );
    out
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The ledger in Markdown.
pub fn markdown(rows: &[LedgerRow], provenance: &str) -> String {
    let mut md =
        String::from("# Claims ledger — every claim of the five papers, one verdict each\n\n");
    let _ = writeln!(md, "{provenance}\n");
    md.push_str(
        "Verdicts: **confirmed** — the evidence lies inside what the theorem allows (a fitted \
         exponent's whole 95% CI inside the band; every mean below an informative bound; the \
         exact expectation matched; a printed privacy calibration certified by the tightest \
         accountant); **contradicted** — it lies outside; **inconclusive** — neither, with what \
         would decide it; **not measured** — no study, no expectation, or a vacuous bound. A claim \
         judged on several studies is contradicted if any is, confirmed if every judged one is. \
         Claims are declared in `experiments/claims/*.toml`; expectations live in the studies' \
         `expect` and were decided from the theorems (`revised` says why one changed after \
         data existed). Built by `runner claims` from the committed default-profile summaries.\n\n",
    );
    md.push_str(&counts_markdown(rows));
    let mut papers: Vec<&str> = Vec::new();
    for r in rows {
        if !papers.contains(&r.paper.as_str()) {
            papers.push(&r.paper);
        }
    }
    for paper in papers {
        let _ = writeln!(md, "\n## {paper}\n");
        md.push_str("| claim | theorem | statement | parameter | expected | measured (95% CI) | window | verdict | why | revised | studies |\n");
        md.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in rows.iter().filter(|r| r.paper == paper) {
            let measured = if r.ci_low.is_finite() {
                format!("{:+.3} [{:+.3}, {:+.3}]", r.measured, r.ci_low, r.ci_high)
            } else if r.measured.is_finite() {
                format!("max mean/bound {}", sig(r.measured))
            } else {
                "–".into()
            };
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.claim_id,
                escape(&r.theorem),
                escape(&r.statement),
                if r.parameter.is_empty() {
                    "–"
                } else {
                    &r.parameter
                },
                escape(&r.expected),
                measured,
                if r.window.is_empty() {
                    "–"
                } else {
                    &r.window
                },
                crate::report::verdict_cell(r.verdict),
                escape(&r.reason),
                if r.revised.is_empty() {
                    "–".into()
                } else {
                    escape(&r.revised)
                },
                if r.studies.is_empty() {
                    "–".into()
                } else {
                    format!("`{}`", r.studies.replace(' ', "`, `"))
                },
            );
        }
    }
    md
}

/// Writes the ledger as CSV.
pub fn write_csv(path: &Path, rows: &[LedgerRow]) -> Result<()> {
    let text = |f: fn(&LedgerRow) -> String| Column::Text(rows.iter().map(f).collect());
    let num = |f: fn(&LedgerRow) -> f64| Column::Float(rows.iter().map(f).collect());
    Table::new()
        .with("paper", text(|r| r.paper.clone()))
        .with("claim_id", text(|r| r.claim_id.clone()))
        .with("theorem", text(|r| r.theorem.clone()))
        .with("kind", text(|r| r.kind.clone()))
        .with("statement", text(|r| r.statement.clone()))
        .with("parameter", text(|r| r.parameter.clone()))
        .with("expected", text(|r| r.expected.clone()))
        .with("evidence", text(|r| r.evidence.clone()))
        .with("measured", num(|r| r.measured))
        .with("ci_low", num(|r| r.ci_low))
        .with("ci_high", num(|r| r.ci_high))
        .with("window", text(|r| r.window.clone()))
        .with("verdict", text(|r| r.verdict.name().to_string()))
        .with("reason", text(|r| r.reason.clone()))
        .with("revised", text(|r| r.revised.clone()))
        .with("studies", text(|r| r.studies.clone()))
        .with("spec", text(|r| r.spec.clone()))
        .write_csv(path)
}

/// Reads the claim ids and verdicts of a committed ledger CSV.
pub fn read_verdicts(path: &Path) -> Result<BTreeMap<String, Verdict>> {
    let csv = read_csv(path).with_context(|| format!("reading {}", path.display()))?;
    let col = |name| csv.column(name).with_context(|| path.display().to_string());
    let (id, verdict) = (col("claim_id")?, col("verdict")?);
    let mut out = BTreeMap::new();
    for i in 0..csv.rows.len() {
        let (Some(c), Some(v)) = (csv.get(i, id), csv.get(i, verdict)) else {
            bail!("{} row {i} is incomplete", path.display());
        };
        let v = Verdict::from_name(v)
            .with_context(|| format!("{} row {i}: unknown verdict `{v}`", path.display()))?;
        out.insert(c.to_string(), v);
    }
    Ok(out)
}

/// The claims whose verdict lost evidence against `committed`, as messages
/// (a claim gone from the ledger counts as not measured).
pub fn degradations(rows: &[LedgerRow], committed: &BTreeMap<String, Verdict>) -> Vec<String> {
    let now: BTreeMap<&str, &LedgerRow> = rows.iter().map(|r| (r.claim_id.as_str(), r)).collect();
    let mut out = Vec::new();
    for (id, &before) in committed {
        let (v, why) = match now.get(id.as_str()) {
            Some(r) => (r.verdict, r.reason.as_str()),
            None => (Verdict::NotMeasured, "the claim is gone from the ledger"),
        };
        if before.degrades_to(v) {
            out.push(format!("{id}: {before} (committed) -> {v}: {why}"));
        }
    }
    for r in rows {
        if !committed.contains_key(&r.claim_id) && r.verdict == Verdict::Contradicted {
            out.push(format!(
                "{}: contradicted, and the committed ledger does not say so: {}",
                r.claim_id, r.reason
            ));
        }
    }
    out
}

/// `runner claims`: build (and write, or check) the ledger.
pub fn run(args: &ClaimsArgs) -> Result<i32> {
    let claims = load_claims(&args.claims_dir)?;
    let judged = judge_experiments(&args.experiments_dir, &args.results_dir)?;
    validate(&claims, &judged)?;
    let audits = read_audit_rows(&args.results_dir.join("audit.csv"))?;
    let rows = ledger_with_audits(&claims, &judged, &audits);
    let csv = args.results_dir.join("claims.csv");
    print!("{}", counts_markdown(&rows));
    if args.check {
        if !csv.exists() {
            bail!(
                "no committed ledger at {}: run `runner claims` and commit it",
                csv.display()
            );
        }
        let committed = read_verdicts(&csv)?;
        let lost = degradations(&rows, &committed);
        for l in &lost {
            println!("  FAIL: {l}");
        }
        let changed = rows
            .iter()
            .filter(|r| committed.get(&r.claim_id).is_some_and(|v| *v != r.verdict))
            .count();
        println!(
            "claims: {} claims, {changed} verdict(s) differ from {}, {} lost evidence",
            rows.len(),
            csv.display(),
            lost.len()
        );
        return Ok(if lost.is_empty() {
            crate::cli::EXIT_OK
        } else {
            crate::cli::EXIT_CHECK_FAILED
        });
    }
    std::fs::create_dir_all(&args.results_dir)?;
    let provenance = format!(
        "Built on {} at commit `{}` from `{}` and the committed summaries in `{}`.",
        crate::provenance::utc_now(),
        crate::provenance::git_commit(),
        args.claims_dir.display(),
        args.results_dir.display()
    );
    std::fs::write(
        args.results_dir.join("claims.md"),
        markdown(&rows, &provenance),
    )?;
    write_csv(&csv, &rows)?;
    println!(
        "wrote {} and {} ({} claims)",
        args.results_dir.join("claims.md").display(),
        csv.display(),
        rows.len()
    );
    Ok(crate::cli::EXIT_OK)
}
