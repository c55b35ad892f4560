//! The paper-table view of a report: studies that declare
//! `paper = { table, class, result, claimed }` are grouped by table, so the
//! report mirrors each table of the paper with measured columns added
//! (fitted slope ± CI per swept variable, largest measured/bound ratio,
//! verdict). This module groups the studies; [`crate::report`] writes the
//! tables.

use crate::validate::Experiment;

/// One table of the paper, with the studies that declare a row of it.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperTable<'a> {
    /// The table, as the studies name it (`paper.table`).
    pub name: &'a str,
    /// Indices of the studies declaring a row of it, in study order.
    pub studies: Vec<usize>,
}

/// The paper's tables in order of first appearance; empty when no study
/// declares a table row.
pub fn paper_tables(experiment: &Experiment) -> Vec<PaperTable<'_>> {
    let mut tables: Vec<PaperTable> = Vec::new();
    for (i, s) in experiment.studies.iter().enumerate() {
        let Some(p) = &s.paper else { continue };
        match tables.iter_mut().find(|t| t.name == p.table) {
            Some(t) => t.studies.push(i),
            None => tables.push(PaperTable {
                name: &p.table,
                studies: vec![i],
            }),
        }
    }
    tables
}
