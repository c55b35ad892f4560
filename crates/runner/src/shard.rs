//! Sharding a plan across machines (`--shard i/N`) and merging the parts.
//!
//! The unit of work is a data group (cells sharing a study and a data seed, see
//! [`crate::execute::data_groups`]), so no shard regenerates another shard's
//! data. Groups are assigned by the longest-processing-time rule on an
//! estimated cost: sorted by decreasing cost (ties in plan order), each goes to
//! the currently lightest shard (ties to the lowest index). The cost is the
//! plan's estimate ([`crate::cost`]), the one `runner plan` prints. The assignment is a
//! pure function of the plan and `N`, so every array task computes the same one
//! without talking to the others, and a merge can tell which shard a missing
//! cell belonged to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cost::PlanEstimate;
use crate::execute::data_groups;
use crate::plan::{Cell, Plan};
use crate::store::{CellKey, CellRecord};
use crate::validate::Experiment;

/// Which part of a plan a process runs: shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    /// 0-based index.
    pub index: usize,
    /// Number of shards, at least 1.
    pub count: usize,
}

impl std::str::FromStr for ShardSpec {
    type Err = String;

    /// Parses `i/N` with `0 <= i < N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not of the form i/N (e.g. 0/4)"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("shard index `{i}` is not a number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("shard count `{n}` is not a number"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard {index}/{count} is out of range: need 0 <= i < N and N >= 1"
            ));
        }
        Ok(Self { index, count })
    }
}

/// The file of shard `index` of `count`: `results/<name>.shard-<i>-of-<N>.h5`.
pub fn part_path(results_dir: &Path, output_name: &str, index: usize, count: usize) -> PathBuf {
    results_dir.join(format!("{output_name}.shard-{index}-of-{count}.h5"))
}

/// Estimated core-seconds of a data group: the sum of its cells' estimates
/// (each carries its share of the group's data generation).
pub fn estimated_cost(estimate: &PlanEstimate, group: &[Cell]) -> f64 {
    group
        .iter()
        .map(|c| estimate.studies[c.study].point_seconds[c.point])
        .sum()
}

/// Assigns every data group of `plan` (of `experiment`) to one of `count`
/// shards; returns, per shard, its cells in plan order.
pub fn assign(experiment: &Experiment, plan: &Plan, count: usize) -> Vec<Vec<Cell>> {
    let estimate = crate::cost::estimate(experiment);
    let groups = data_groups(&plan.cells);
    let mut order: Vec<(f64, usize)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (estimated_cost(&estimate, g), i))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut load = vec![0.0f64; count];
    let mut owner = vec![0usize; groups.len()];
    for (cost, g) in order {
        let lightest = (0..count)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("count >= 1");
        load[lightest] += cost;
        owner[g] = lightest;
    }
    let mut shards = vec![Vec::new(); count];
    for (g, cells) in groups.iter().enumerate() {
        shards[owner[g]].extend(cells.iter().copied());
    }
    for s in &mut shards {
        s.sort_by_key(|c| (c.study, c.point, c.repetition));
    }
    shards
}

/// The sub-plan of one shard: the same grid points, only its cells.
pub fn shard_plan(experiment: &Experiment, plan: &Plan, shard: ShardSpec) -> Plan {
    Plan {
        points: plan.points.clone(),
        cells: assign(experiment, plan, shard.count).swap_remove(shard.index),
    }
}

/// Why shard parts cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Some parts are absent.
    #[error("missing shard part(s) {missing:?} of {count}: {}", paths.join(", "))]
    MissingParts {
        /// Indices of the missing parts.
        missing: Vec<usize>,
        /// Shard count.
        count: usize,
        /// Expected paths of the missing parts.
        paths: Vec<String>,
    },
    /// A part was produced by another spec, seed or shard layout.
    #[error("{path} does not belong to this merge: {reason}")]
    ForeignPart {
        /// The offending part.
        path: String,
        /// What differs.
        reason: String,
    },
    /// Parts exist but cells are missing (an unfinished shard) or duplicated.
    #[error("shard part(s) {shards:?} are incomplete: {missing} planned cells missing{}", if *.duplicated > 0 { format!(", {} duplicated", .duplicated) } else { String::new() })]
    Incomplete {
        /// Shards whose cells are missing.
        shards: Vec<usize>,
        /// Number of missing cells.
        missing: usize,
        /// Number of cells found in more than one part.
        duplicated: usize,
    },
}

/// Checks that `records` (gathered from all parts) hold every planned cell
/// exactly once; reports the shards of missing cells by index.
pub fn check_complete(
    experiment: &Experiment,
    plan: &Plan,
    count: usize,
    records: &[CellRecord],
) -> Result<(), MergeError> {
    let mut seen: BTreeMap<CellKey, usize> = BTreeMap::new();
    for r in records {
        *seen.entry((r.study, r.point, r.repetition)).or_default() += 1;
    }
    let duplicated = seen.values().filter(|&&n| n > 1).count();
    let mut shards = Vec::new();
    let mut missing = 0;
    for (i, cells) in assign(experiment, plan, count).iter().enumerate() {
        let absent = cells
            .iter()
            .filter(|c| !seen.contains_key(&(c.study, c.point, c.repetition)))
            .count();
        if absent > 0 {
            shards.push(i);
            missing += absent;
        }
    }
    if missing > 0 || duplicated > 0 {
        return Err(MergeError::Incomplete {
            shards,
            missing,
            duplicated,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan;

    fn table1_quick() -> (Experiment, Plan) {
        let e = crate::validate::committed_experiment("table1.toml", Some("quick"));
        let p = plan(&e);
        (e, p)
    }

    #[test]
    fn shard_specs_parse_and_reject_out_of_range() {
        assert_eq!(
            "2/5".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 2, count: 5 })
        );
        for bad in ["5/5", "0/0", "1", "a/2", "-1/2"] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn every_cell_lands_in_exactly_one_shard_and_loads_are_balanced() {
        let (e, p) = table1_quick();
        let est = crate::cost::estimate(&e);
        for count in [1, 2, 3, 7] {
            let shards = assign(&e, &p, count);
            let mut all: Vec<_> = shards
                .iter()
                .flatten()
                .map(|c| (c.study, c.point, c.repetition))
                .collect();
            all.sort();
            let mut planned: Vec<_> = p
                .cells
                .iter()
                .map(|c| (c.study, c.point, c.repetition))
                .collect();
            planned.sort();
            assert_eq!(all, planned, "{count} shards");
            // Data groups are never split: every (study, data seed) sits in one shard.
            let mut owner = BTreeMap::new();
            for (i, s) in shards.iter().enumerate() {
                for c in s {
                    assert_eq!(*owner.entry((c.study, c.data_seed)).or_insert(i), i);
                }
            }
            // LPT: the heaviest shard exceeds the mean by at most the largest group.
            let loads: Vec<f64> = shards
                .iter()
                .map(|s| data_groups(s).iter().map(|g| estimated_cost(&est, g)).sum())
                .collect();
            let biggest = data_groups(&p.cells)
                .iter()
                .map(|g| estimated_cost(&est, g))
                .fold(0.0, f64::max);
            let mean = loads.iter().sum::<f64>() / count as f64;
            let max = loads.iter().cloned().fold(0.0, f64::max);
            assert!(
                max <= mean + biggest + 1e-9,
                "{count} shards: loads {loads:?}"
            );
            assert_eq!(
                assign(&e, &p, count),
                shards,
                "assignment must be deterministic"
            );
        }
    }

    #[test]
    fn missing_cells_are_reported_by_shard_index() {
        let (e, p) = table1_quick();
        let shards = assign(&e, &p, 3);
        let record = |c: &Cell| CellRecord {
            study: c.study,
            point: c.point,
            repetition: c.repetition,
            data_seed: c.data_seed,
            noise_seed: c.noise_seed,
            error: String::new(),
            metric: 1.0,
            theory: 1.0,
            bound: 1.0,
            reference: f64::NAN,
            diagnostics: vec![],
            wall_seconds: 0.0,
            segment: 0,
        };
        let mut records: Vec<CellRecord> = shards.iter().flatten().map(record).collect();
        assert!(check_complete(&e, &p, 3, &records).is_ok());
        let dropped = shards[1][0];
        records.retain(|r| {
            (r.study, r.point, r.repetition) != (dropped.study, dropped.point, dropped.repetition)
        });
        match check_complete(&e, &p, 3, &records) {
            Err(MergeError::Incomplete {
                shards,
                missing,
                duplicated,
            }) => {
                assert_eq!((shards, missing, duplicated), (vec![1], 1, 0));
            }
            other => panic!("expected Incomplete, got {other:?}"),
        }
        records.push(record(&shards[0][0]));
        records.push(record(&dropped));
        assert!(matches!(
            check_complete(&e, &p, 3, &records),
            Err(MergeError::Incomplete { duplicated: 1, .. })
        ));
    }
}
