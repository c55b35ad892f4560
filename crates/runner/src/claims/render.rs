//! The ledger written out: the verdict counts, `results/claims.md` and
//! `results/claims.csv`, and the list of verdicts that changed against an
//! earlier ledger (`results/claims-changes.md`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use crate::csv::{Column, Table};
use crate::format::sig;
use crate::verdict::Verdict;

use super::ledger::LedgerRow;

/// Verdict counts per paper, in first-appearance order (in [`Verdict::ALL`]
/// order).
pub fn counts<'a>(rows: impl IntoIterator<Item = &'a LedgerRow>) -> Vec<(String, [usize; 6])> {
    let mut out: Vec<(String, [usize; 6])> = Vec::new();
    for r in rows {
        let i = Verdict::ALL
            .iter()
            .position(|v| *v == r.verdict)
            .unwrap_or(Verdict::ALL.len() - 1);
        match out.iter_mut().find(|(p, _)| *p == r.paper) {
            Some((_, c)) => c[i] += 1,
            None => {
                let mut c = [0; 6];
                c[i] = 1;
                out.push((r.paper.clone(), c));
            }
        }
    }
    out
}

/// The counts table of the paper claims (hypotheses apart) in Markdown, with
/// a last row for the harness hypotheses.
pub fn counts_markdown(rows: &[LedgerRow]) -> String {
    let mut out = String::from("| paper |");
    for v in Verdict::ALL {
        let _ = write!(out, " {v} |");
    }
    out.push_str(" claims |\n|---|---|---|---|---|---|---|---|\n");
    let line = |out: &mut String, label: &str, c: &[usize; 6]| {
        let _ = write!(out, "| {label} |");
        for x in c {
            let _ = write!(out, " {x} |");
        }
        let _ = writeln!(out, " {} |", c.iter().sum::<usize>());
    };
    let sum = |counts: Vec<(String, [usize; 6])>| {
        counts.iter().fold([0usize; 6], |mut t, (_, c)| {
            t.iter_mut().zip(c).for_each(|(t, x)| *t += x);
            t
        })
    };
    let papers = counts(rows.iter().filter(|r| r.is_paper_claim()));
    for (paper, c) in &papers {
        line(&mut out, paper, c);
    }
    line(&mut out, "all paper claims", &sum(papers));
    let hyp = sum(counts(rows.iter().filter(|r| !r.is_paper_claim())));
    line(&mut out, "harness hypotheses (not counted above)", &hyp);
    out
}

/// Decisive verdicts (confirmed or contradicted) of paper claims by
/// pre-registration: `(before, after with a reason, after without, unknown)`.
pub fn prereg_counts(rows: &[LedgerRow]) -> [usize; 4] {
    let mut c = [0; 4];
    for r in rows
        .iter()
        .filter(|r| r.is_paper_claim() && r.verdict.is_decisive() && !r.prereg.is_empty())
    {
        let i = match r.prereg.as_str() {
            "before" => 0,
            "after (revised)" => 1,
            "after" => 2,
            _ => 3,
        };
        c[i] += 1;
    }
    c
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "–".into()
    } else {
        escape(s)
    }
}

fn rules_text(r: &LedgerRow) -> String {
    r.rules
        .iter()
        .map(|x| x.name())
        .collect::<Vec<_>>()
        .join("; ")
}

const RULES_TEXT: &str = "Verdicts follow the claim's kind (experiments/claims/README.md): an \
**upper bound** is contradicted only by data worse than it (a mean above an explicit bound, or a \
significantly worse exponent on an instance that attains the rate), and a faster decay is \
confirmed as \"beats the bound\"; a **sharp rate** is judged on the two-sided band; a **printed** \
statement (every erratum) reads contradicted when it is shown false and confirmed when certified \
(not refuted when a unit test looked for a counterexample where it is weakest and found none); \
a **privacy** claim is confirmed only by an accountant, and an audit or a unit test on chosen pairs alone gives **not refuted**; \
**hypotheses** are the harness's own predictions, listed apart and not counted with the papers. \
A decisive slope verdict needs at least 4 points in its window and the same verdict from the \
weighted fit and from OLS of the log means; a fit at the trivial value is excluded; a declared \
regime not reached weakens any decisive verdict; a contradiction across a band edge that the \
theorem's own curve sits at cannot be decided by that window. `prereg` says whether the study \
expectations were committed before their data (read from git). Built by `runner claims` from the \
committed default-profile summaries.";

fn table_rows(md: &mut String, rows: &[&LedgerRow]) {
    md.push_str("| claim | kind | theorem | statement | parameter | expected | measured (95% CI) | theorem curve | points | window | verdict | why | rules | prereg | revised | studies |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let measured = if r.ci_low.is_finite() {
            let ols = if r.ols_slope.is_finite() {
                format!("; OLS {:+.3}", r.ols_slope)
            } else {
                String::new()
            };
            let fit = if r.chi2_df.is_finite() {
                format!("; χ²/df {}", sig(r.chi2_df))
            } else {
                String::new()
            };
            let bend = if r.curvature_p.is_finite() {
                format!("; curvature p {}", sig(r.curvature_p))
            } else {
                String::new()
            };
            format!(
                "{:+.3} [{:+.3}, {:+.3}]{ols}{fit}{bend}",
                r.measured, r.ci_low, r.ci_high
            )
        } else if r.measured.is_finite() {
            format!("max mean/bound {}", sig(r.measured))
        } else {
            "–".into()
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.claim_id,
            r.kind.name(),
            escape(&r.theorem),
            escape(&r.statement),
            or_dash(&r.parameter),
            escape(&r.expected),
            measured,
            if r.theory_curve_slope.is_finite() {
                format!("{:+.3}", r.theory_curve_slope)
            } else {
                "–".into()
            },
            if r.points > 0 {
                r.points.to_string()
            } else {
                "–".into()
            },
            or_dash(&r.window),
            crate::report::verdict_cell(r.verdict),
            escape(&r.reason),
            or_dash(&rules_text(r)),
            or_dash(&r.prereg),
            or_dash(&r.revised),
            if r.studies.is_empty() {
                "–".into()
            } else {
                format!("`{}`", r.studies.replace(' ', "`, `"))
            },
        );
    }
}

/// The inconclusive paper rows by what keeps them open (what would decide
/// them), with their ids.
fn open_markdown(rows: &[LedgerRow]) -> String {
    let open: Vec<&LedgerRow> = rows
        .iter()
        .filter(|r| r.is_paper_claim() && r.verdict == Verdict::Inconclusive)
        .collect();
    if open.is_empty() {
        return String::new();
    }
    let mut causes: Vec<super::ledger::OpenCause> = open.iter().filter_map(|r| r.open).collect();
    causes.sort();
    causes.dedup();
    let mut md = format!(
        "\nWhy the {} inconclusive paper rows are open (the `open` column of results/claims.csv):\n\n| open because | rows | what would decide them | claims |\n|---|---|---|---|\n",
        open.len()
    );
    for cause in causes {
        let ids: Vec<String> = open
            .iter()
            .filter(|r| r.open == Some(cause))
            .map(|r| format!("`{}`", r.claim_id))
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            cause.name(),
            ids.len(),
            cause.decides(),
            ids.join(", ")
        );
    }
    md
}

/// The ledger in Markdown.
pub fn markdown(rows: &[LedgerRow], provenance: &str) -> String {
    let mut md =
        String::from("# Claims ledger — every claim of the five papers, one verdict each\n\n");
    let _ = writeln!(md, "{provenance}\n");
    md.push_str(RULES_TEXT);
    md.push_str("\n\n");
    md.push_str(&counts_markdown(rows));
    md.push_str(&open_markdown(rows));
    let [before, revised, after, unknown] = prereg_counts(rows);
    let _ = writeln!(
        md,
        "\nDecisive verdicts of paper claims whose expectations come from studies: {before} \
         pre-registered (committed before their data), {revised} set after their data with a \
         stated reason, {after} set after without one, {unknown} unknown."
    );
    let mut papers: Vec<&str> = Vec::new();
    for r in rows {
        if !papers.contains(&r.paper.as_str()) {
            papers.push(&r.paper);
        }
    }
    for paper in papers {
        let _ = writeln!(md, "\n## {paper}\n");
        let claims: Vec<&LedgerRow> = rows
            .iter()
            .filter(|r| r.paper == paper && r.is_paper_claim())
            .collect();
        table_rows(&mut md, &claims);
        let hyp: Vec<&LedgerRow> = rows
            .iter()
            .filter(|r| r.paper == paper && !r.is_paper_claim())
            .collect();
        if !hyp.is_empty() {
            md.push_str(
                "\nHarness hypotheses (the digest's own predictions, not claims of the paper):\n\n",
            );
            table_rows(&mut md, &hyp);
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
        .with("kind", text(|r| r.kind.name().to_string()))
        .with("statement", text(|r| r.statement.clone()))
        .with("parameter", text(|r| r.parameter.clone()))
        .with("expected", text(|r| r.expected.clone()))
        .with("evidence", text(|r| r.evidence.clone()))
        .with("measured", num(|r| r.measured))
        .with("ci_low", num(|r| r.ci_low))
        .with("ci_high", num(|r| r.ci_high))
        .with("window", text(|r| r.window.clone()))
        .with("points", num(|r| r.points as f64))
        .with("theory_curve_slope", num(|r| r.theory_curve_slope))
        .with("ols_slope", num(|r| r.ols_slope))
        .with("chi2_df", num(|r| r.chi2_df))
        .with("curvature_p", num(|r| r.curvature_p))
        .with("verdict", text(|r| r.verdict.name().to_string()))
        .with("reason", text(|r| r.reason.clone()))
        .with("rules", text(rules_text))
        .with(
            "open",
            text(|r| r.open.map_or("", |o| o.name()).to_string()),
        )
        .with("revised", text(|r| r.revised.clone()))
        .with("prereg", text(|r| r.prereg.clone()))
        .with("studies", text(|r| r.studies.clone()))
        .with("spec", text(|r| r.spec.clone()))
        .write_csv(path)
}

/// Every claim whose verdict differs from `before` (an earlier ledger's
/// verdicts, `earlier` naming it), old → new, with the rules that moved it,
/// in Markdown.
pub fn changes_markdown(
    rows: &[LedgerRow],
    before: &BTreeMap<String, Verdict>,
    earlier: &str,
    provenance: &str,
) -> String {
    let mut md = String::from("# Claims ledger: verdicts changed by the regrade\n\n");
    let _ = writeln!(
        md,
        "{provenance} Compared with {earlier}. Every row whose verdict differs, old → new, with \
         the verdict rules that set the new one (empty: the evidence itself changed, e.g. an \
         errata or audit row). No verdict is set by hand: each is what `runner claims` gives on \
         the committed data.\n"
    );
    let mut moves: BTreeMap<(Verdict, Verdict), usize> = BTreeMap::new();
    let mut lines = Vec::new();
    for r in rows {
        let old = before.get(&r.claim_id).copied();
        if old == Some(r.verdict) {
            continue;
        }
        let old_name = old.map_or("(new claim)".to_string(), |v| v.name().to_string());
        if let Some(o) = old {
            *moves.entry((o, r.verdict)).or_default() += 1;
        }
        let reason: String = r.reason.chars().take(400).collect();
        let more = if r.reason.chars().count() > 400 {
            " …"
        } else {
            ""
        };
        lines.push(format!(
            "| `{}` | {} | {old_name} → **{}** | {} | {}{more} |",
            r.claim_id,
            r.kind.name(),
            r.verdict,
            or_dash(&rules_text(r)),
            escape(&reason)
        ));
    }
    for id in before.keys() {
        if !rows.iter().any(|r| &r.claim_id == id) {
            lines.push(format!(
                "| `{id}` | – | {} → (removed) | – | the claim left the ledger (a duplicate erratum merged into another row) |",
                before[id]
            ));
        }
    }
    md.push_str("| old → new | claims |\n|---|---|\n");
    for ((o, n), k) in &moves {
        let _ = writeln!(md, "| {o} → {n} | {k} |");
    }
    let _ = writeln!(md, "\n{} rows changed.\n", lines.len());
    md.push_str(
        "| claim | kind | verdict | rules | why (first 400 characters) |\n|---|---|---|---|---|\n",
    );
    for l in lines {
        md.push_str(&l);
        md.push('\n');
    }
    md
}
