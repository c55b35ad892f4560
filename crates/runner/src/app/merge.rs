//! `runner merge`: the shard parts combined into `results/<name>.h5`, each
//! checked to be written by this spec as the shard it claims to be, then
//! reported, plotted and checked as after a run.

use anyhow::Result;

use super::pipeline::finish;
use crate::cli::{load, results_path, MergeArgs, UsageError};
use crate::identity::{spec_hash, spec_hashes};
use crate::plan::plan;
use crate::provenance::Provenance;
use crate::shard;
use crate::store::{read_file, stored_segments, OpenMode, ResultsStore};

/// Merges the shard parts into `results/<name>.h5`, then reports, plots and checks.
pub(super) fn merge(args: &MergeArgs) -> Result<i32> {
    let c = &args.common;
    let (loaded, experiment) = load(c)?;
    if args.shards == 0 {
        return Err(UsageError(
            "--shards 0".into(),
            "give the shard count N >= 1 used for the run".into(),
        )
        .into());
    }
    let p = plan(&experiment);
    let hash = spec_hash(&experiment);
    let name = experiment.output_name();
    let planned_seeds: std::collections::BTreeMap<_, _> = p
        .cells
        .iter()
        .map(|x| {
            (
                (x.study, x.point, x.repetition),
                (x.data_seed, x.noise_seed),
            )
        })
        .collect();
    let (mut records, mut missing, mut started) = (Vec::new(), Vec::new(), Vec::new());
    let mut segments = Vec::new();
    for i in 0..args.shards {
        let part = shard::part_path(&c.results_dir, &name, i, args.shards);
        if !part.exists() {
            missing.push(i);
            continue;
        }
        let foreign = |reason: String| shard::MergeError::ForeignPart {
            path: part.display().to_string(),
            reason,
        };
        let stored = read_file(&part, &experiment).map_err(|e| foreign(format!("{e:#}")))?;
        if stored.spec_hash != hash {
            return Err(foreign(format!(
                "written by a different spec or seed (spec hash {}, this spec {hash})",
                stored.spec_hash
            ))
            .into());
        }
        let attr = |k: &str| stored.attributes.get(k).cloned().unwrap_or_default();
        if attr("shard_index") != i.to_string() || attr("shard_count") != args.shards.to_string() {
            return Err(foreign(format!(
                "it is shard {}/{} of its run, expected {i}/{}",
                attr("shard_index"),
                attr("shard_count"),
                args.shards
            ))
            .into());
        }
        if let Some(r) = stored.records.iter().find(|r| {
            planned_seeds.get(&(r.study, r.point, r.repetition))
                != Some(&(r.data_seed, r.noise_seed))
        }) {
            return Err(foreign(format!(
                "cell (study {}, point {}, repetition {}) has seeds that differ from the plan",
                r.study, r.point, r.repetition
            ))
            .into());
        }
        started.push(stored.started_at.clone());
        // The parts' run segments, in shard order; rows keep pointing at theirs.
        let offset = segments.len();
        segments.extend(stored_segments(&stored));
        records.extend(stored.records.into_iter().map(|mut r| {
            r.segment += offset;
            r
        }));
    }
    if !missing.is_empty() {
        let paths = missing
            .iter()
            .map(|&i| {
                shard::part_path(&c.results_dir, &name, i, args.shards)
                    .display()
                    .to_string()
            })
            .collect();
        return Err(shard::MergeError::MissingParts {
            missing,
            count: args.shards,
            paths,
        }
        .into());
    }
    shard::check_complete(&experiment, &p, args.shards, &records)?;
    let path = results_path(c, &experiment);
    let mut provenance = Provenance::new(
        &loaded.text,
        &loaded.path.display().to_string(),
        experiment.profile.as_deref(),
        experiment.seed,
    );
    if let Some(first) = started.iter().min() {
        provenance.started_at = first.clone();
    }
    provenance
        .extra
        .push(("merged_from_shards".into(), args.shards.to_string()));
    provenance.earlier_segments = segments;
    let mut store = ResultsStore::open(
        &path,
        &experiment,
        &p,
        &spec_hashes(&experiment),
        provenance,
        OpenMode::Fresh,
    )?;
    store.extend(records.iter().cloned());
    store.flush(&experiment, &p)?;
    if !args.finish.quiet {
        eprintln!(
            "merged {} shard parts ({} cells) into {}",
            args.shards,
            records.len(),
            path.display()
        );
    }
    finish(c, experiment, p, &path, &records, &args.finish)
}
