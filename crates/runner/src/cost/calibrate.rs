//! `runner calibrate`: the cost model against the per-cell wall times stored
//! in a results file (`timing/wall_seconds`, which include each cell's share
//! of its group's data generation, as the model does).
//!
//! The output is tab-separated so that `scripts/refresh_cost_constants.sh`
//! can sum it over several files:
//!
//! ```text
//! algorithm  <name>  <cells>  <measured seconds>  <operations>  <seconds per op>
//! study      <name>  <cells>  <measured core-s>   <estimated core-s>  <estimated/measured>
//! total      <file>  <cells>  <measured core-s>   <estimated core-s>  <estimated/measured>
//! ```

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use super::{cell_cost, constants, experiment_works, group_size, Work};
use crate::store::CellRecord;
use crate::validate::Experiment;

/// The calibration report of `records` (read from `path`) of `experiment`.
pub fn report(experiment: &Experiment, path: &Path, records: &[CellRecord]) -> String {
    // Work of every grid point, per study.
    let works: Vec<Vec<Work>> = experiment_works(&experiment.studies);
    // Keyed by constant (algorithm, variant): an algorithm's cost variants
    // are fitted apart.
    let mut per_algorithm: BTreeMap<(&str, &str), (usize, f64, f64)> = BTreeMap::new();
    let mut per_study = vec![(0usize, 0.0f64, 0.0f64); experiment.studies.len()];
    for r in records {
        let study = &experiment.studies[r.study];
        let Some(work) = works[r.study].get(r.point) else {
            continue;
        };
        let group = group_size(study);
        let ops = work.run_ops + work.generate_ops / group.max(1.0);
        let a = per_algorithm
            .entry((study.algorithm.name, work.variant))
            .or_default();
        a.0 += 1;
        a.1 += (r.wall_seconds - constants::SECONDS_PER_CELL).max(0.0);
        a.2 += ops;
        let s = &mut per_study[r.study];
        s.0 += 1;
        s.1 += r.wall_seconds;
        s.2 += cell_cost(study, work, group).seconds;
    }
    let mut out = format!(
        "# runner calibrate {} ({}): cost model (constants from {}) against stored per-cell wall times\n",
        experiment.output_name(),
        path.display(),
        constants::CALIBRATED_FROM
    );
    for ((algorithm, variant), (cells, seconds, ops)) in &per_algorithm {
        let name = constants::constant_name(algorithm, variant);
        let k = if *ops > 0.0 { seconds / ops } else { 0.0 };
        let _ = writeln!(
            out,
            "algorithm\t{name}\t{cells}\t{seconds:.6}\t{ops:.6e}\t{k:.6e}"
        );
    }
    let (mut cells, mut measured, mut estimated) = (0, 0.0, 0.0);
    for (study, (c, m, e)) in experiment.studies.iter().zip(&per_study) {
        let _ = writeln!(
            out,
            "study\t{}\t{c}\t{m:.3}\t{e:.3}\t{:.3}",
            study.name,
            e / m
        );
        cells += c;
        measured += m;
        estimated += e;
    }
    let _ = writeln!(
        out,
        "total\t{}\t{cells}\t{measured:.3}\t{estimated:.3}\t{:.3}",
        experiment.output_name(),
        estimated / measured
    );
    out
}
