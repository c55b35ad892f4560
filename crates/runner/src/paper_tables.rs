//! The paper-table view of a report: studies that declare
//! `paper = { table, class, result, claimed }` are grouped by table, so the
//! report mirrors each table of the paper with measured columns added
//! (fitted slope ± CI per swept variable, largest measured/bound ratio,
//! verdict).

use std::fmt::Write;

use crate::analyze::StudyAnalysis;
use crate::report::{describe_values, sig};
use crate::validate::Experiment;

/// Markdown sections, one per paper table, in order of first appearance;
/// empty when no study declares a table row.
pub fn paper_tables(experiment: &Experiment, analyses: &[StudyAnalysis]) -> String {
    let mut tables: Vec<&str> = Vec::new();
    for s in &experiment.studies {
        if let Some(p) = &s.paper {
            if !tables.contains(&p.table.as_str()) {
                tables.push(&p.table);
            }
        }
    }
    let mut out = String::new();
    for table in tables {
        let _ = writeln!(out, "\n### {table}\n");
        out.push_str("| class | result | claimed (paper) | study | algorithm | measured slope ± 95% CI (theory) | max mean/bound | verdict |\n");
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for (study, a) in experiment.studies.iter().zip(analyses) {
            let Some(p) = study.paper.as_ref().filter(|p| p.table == table) else {
                continue;
            };
            let slopes = if a.slopes.is_empty() {
                "–".to_string()
            } else {
                a.slopes
                    .iter()
                    .map(|s| {
                        let at = if s.at.is_empty() {
                            String::new()
                        } else {
                            format!(" at {}", describe_values(&s.at))
                        };
                        format!(
                            "{}: {:+.2} ± {:.2} ({:+.2}){at}",
                            s.param, s.fitted, s.ci_half_width, s.theory_slope
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | `{}` | {} | {} | {} |",
                p.class,
                p.result,
                p.claimed,
                study.name,
                study.algorithm.name,
                slopes,
                sig(a.max_bound_ratio),
                crate::report::verdict_cell(a.verdict())
            );
        }
    }
    out
}
