//! Refusal before running: a grid point its algorithm's guarantee does not
//! cover (the entry's `point_check`), a cell whose estimated memory exceeds
//! what the machine has, or a plan above the cell-count or core-hour ceiling,
//! is a located [`SpecError`] (exit 2, nothing touched), with a hint.
//!
//! The estimates come from [`crate::cost`]; the hard limits on grid sizes
//! that keep the estimate itself fast are the `MAX_*` constants of [`super`].

use crate::cost::{self, PlanEstimate, PointValues};
use crate::diagnostics::{PathSeg, SpecError};
use crate::format::{format_bytes, format_count, format_duration};
use crate::registry::{SizeStep, Value};
use crate::spec::LoadedSpec;
use crate::toml_path;
use crate::validate::{Experiment, Study};

/// Core-hours a run may be estimated to take without `--yes` or
/// `--max-core-hours`: a day of one core, 12 hours of this 2-core machine.
/// Every committed default profile is below it (the largest, Bassily's, took
/// 4.1 core-hours); Wang's `full` profile (about 100) is above.
pub const DEFAULT_MAX_CORE_HOURS: f64 = 24.0;

/// Cells a run may plan without `--yes`: 26 times the largest committed
/// default profile (Lowy–Razaviyayn, 38 354 cells), whose records alone take
/// about 0.5 GiB at [`cost::constants::BYTES_PER_CELL`].
pub const DEFAULT_MAX_CELLS: f64 = 1e6;

/// Bytes no cell may need even when the machine's memory is unknown: 256 TiB,
/// the x86-64 user address space (an allocation above it cannot succeed).
pub const ADDRESS_SPACE_BYTES: f64 = 281_474_976_710_656.0;

/// What a run or a plan may cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// Bytes the run may use, and where that number comes from.
    pub memory: Option<(f64, String)>,
    /// Core-hours ceiling (`None`: no ceiling, `--yes`).
    pub max_core_hours: Option<f64>,
    /// Cell-count ceiling (`None`: no ceiling, `--yes`).
    pub max_cells: Option<f64>,
    /// Worker threads of the run (for its total memory).
    pub threads: usize,
}

impl Budget {
    /// The budget of a run: `max_memory` bytes (default: `MemAvailable`),
    /// `max_core_hours` (default [`DEFAULT_MAX_CORE_HOURS`]), no ceilings with `yes`.
    pub fn new(
        max_memory: Option<f64>,
        max_core_hours: Option<f64>,
        yes: bool,
        threads: usize,
    ) -> Self {
        let memory = match max_memory {
            Some(bytes) => Some((bytes, "--max-memory".to_string())),
            None => available_memory().map(|b| (b, "MemAvailable in /proc/meminfo".to_string())),
        };
        let (max_core_hours, max_cells) = match (yes, max_core_hours) {
            (_, Some(h)) => (Some(h), if yes { None } else { Some(DEFAULT_MAX_CELLS) }),
            (true, None) => (None, None),
            (false, None) => (Some(DEFAULT_MAX_CORE_HOURS), Some(DEFAULT_MAX_CELLS)),
        };
        Self {
            memory,
            max_core_hours,
            max_cells,
            threads: effective_threads(threads),
        }
    }

    /// The same budget without the ceilings (what `runner plan` applies: it
    /// reports the cost of a large sweep instead of refusing it).
    pub fn without_ceilings(mut self) -> Self {
        self.max_core_hours = None;
        self.max_cells = None;
        self
    }
}

/// The worker threads a run with `--threads threads` uses (0: every core).
pub fn effective_threads(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        std::thread::available_parallelism().map_or(1, usize::from)
    }
}

/// `MemAvailable` of `/proc/meminfo` in bytes, when the file exists.
pub fn available_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// Parses a byte count: `1000000`, `512M`, `16G`, `1.5GiB`, `2T` (binary units).
pub fn parse_bytes(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 16G, 512M, 1000000)"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}` (use K, M, G or T)"
            ))
        }
    };
    let bytes = value * scale;
    if bytes.is_finite() && bytes > 0.0 {
        Ok(bytes)
    } else {
        Err(format!("`{text}` is not a positive size"))
    }
}

/// Checks `estimate` of `experiment` (from `loaded`) against `budget`;
/// `share` is the fraction of the plan this process runs (1, or 1/N for a
/// shard of N).
pub fn check(
    loaded: &LoadedSpec,
    experiment: &Experiment,
    estimate: &PlanEstimate,
    budget: &Budget,
    share: f64,
) -> Result<(), SpecError> {
    let loc = loaded.locator();
    // A grid point the algorithm's guarantee does not cover, refused before
    // anything runs rather than as failed cells.
    for (i, study) in experiment.studies.iter().enumerate() {
        let Some(point_check) = study.algorithm.point_check else {
            continue;
        };
        let mut refused = None;
        cost::for_each_point(study, |_, v| {
            if refused.is_none() {
                refused = point_check(v).err();
            }
        });
        if let Some((param, why)) = refused {
            return Err(loc.error(
                &param_path(loaded, experiment, i, param),
                format!("study `{}`: {why}", study.name),
                format!(
                    "change `{param}` or the other values so that every grid point meets it: algorithm `{}` is proven only there",
                    study.algorithm.name
                ),
            ));
        }
    }
    let (limit, source) = match &budget.memory {
        Some((bytes, source)) => (bytes.min(ADDRESS_SPACE_BYTES), source.as_str()),
        None => (ADDRESS_SPACE_BYTES, "the address space"),
    };
    // One cell: the process base plus its data set and working memory.
    for (i, (study, est)) in experiment.studies.iter().zip(&estimate.studies).enumerate() {
        let need = cost::constants::BASE_BYTES + est.peak_cell_bytes;
        if need <= limit {
            continue;
        }
        let (param, values) = memory_driver(study, est.peak_point);
        return Err(loc.error(
            &param_path(loaded, experiment, i, &param),
            format!(
                "study `{}`: a cell at {values} needs an estimated {} of memory, more than the {} available ({source})",
                study.name,
                format_bytes(need),
                format_bytes(limit)
            ),
            format!(
                "lower `{param}` (the data set and the working vectors grow with it; `runner plan` prints the estimate per study), or pass --max-memory if this machine can hold it"
            ),
        ));
    }
    // The whole run: records of every cell plus one data set per worker.
    let total = estimate.peak_bytes(budget.threads);
    // NaN (an estimate that overflowed) is refused like an excess.
    if total.is_nan() || total > limit {
        return Err(loc.error(
            &toml_path!["repetitions"],
            format!(
                "the plan ({} cells on {} threads) needs an estimated {} of memory, more than the {} available ({source})",
                format_count(estimate.cells()),
                budget.threads,
                format_bytes(total),
                format_bytes(limit)
            ),
            "run fewer threads (--threads), fewer repetitions or a smaller grid, or pass --max-memory",
        ));
    }
    let cells = estimate.cells() * share;
    let core_hours = estimate.core_seconds() * share / 3600.0;
    let over_cells = budget
        .max_cells
        .is_some_and(|m| cells.is_nan() || cells > m);
    let over_hours = budget
        .max_core_hours
        .is_some_and(|m| core_hours.is_nan() || core_hours > m);
    if over_cells || over_hours {
        let (i, biggest) = estimate
            .studies
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.core_seconds.total_cmp(&b.1.core_seconds))
            .expect("an experiment has studies");
        let ceiling = if over_hours {
            format!(
                "the ceiling of {} core-hours",
                budget.max_core_hours.unwrap_or_default()
            )
        } else {
            format!(
                "the ceiling of {} cells",
                format_count(budget.max_cells.unwrap_or_default())
            )
        };
        return Err(loc.error(
            &study_grid_path(loaded, experiment, i),
            format!(
                "the {} has {} cells and an estimated {:.3} core-hours ({} on {} threads; the largest study, `{}`, {:.3} core-hours), above {ceiling}",
                if share < 1.0 { "shard" } else { "plan" },
                format_count(cells),
                core_hours,
                format_duration(estimate.wall_seconds(budget.threads) * share),
                budget.threads,
                biggest.name,
                biggest.core_seconds * share / 3600.0,
            ),
            format!(
                "pass --yes to run it anyway, or --max-core-hours {:.0} to raise the ceiling; a cluster spreads it (`runner sbatch`), a smaller profile shrinks it (e.g. --profile quick)",
                (core_hours * 1.5).ceil().max(1.0)
            ),
        ));
    }
    Ok(())
}

/// The size parameter (declared by the family, [`SizeStep`]) whose halving
/// shrinks the peak cell most, and the point's size values as text
/// (`n = 1000, d = 1e11`).
fn memory_driver(study: &Study, point: usize) -> (String, String) {
    let mut found = None;
    cost::for_each_point(study, |index, v| {
        if index != point {
            return;
        }
        let base = cost::cell_work(study, v);
        let bytes = |w: &cost::Work| w.data_numbers + w.work_numbers;
        let mut best: Option<(f64, &str)> = None;
        let mut shown = Vec::new();
        for def in study.family.params {
            let Some(step) = def.size else { continue };
            let name = def.name;
            let Some(Value::Num(x)) = v.problem.get(name) else {
                continue;
            };
            shown.push(format!("{name} = {x}"));
            let mut problem = v.problem.clone();
            let smaller = match step {
                SizeStep::Halve => x / 2.0,
                SizeStep::Decrement => x - 1.0,
            };
            problem.insert(name.to_string(), Value::Num(smaller));
            let w = cost::cell_work(
                study,
                &PointValues {
                    problem: &problem,
                    ..*v
                },
            );
            let drop = bytes(&base) - bytes(&w);
            if best.is_none_or(|(b, _)| drop > b) {
                best = Some((drop, name));
            }
        }
        let name = best.map_or("n", |(_, n)| n).to_string();
        found = Some((name, shown.join(", ")));
    });
    found.unwrap_or_else(|| ("n".into(), "its grid point".into()))
}

/// The index in the spec file of the experiment's study `i` (a profile's
/// `only` leaves a subset of the file's studies).
fn spec_index(loaded: &LoadedSpec, experiment: &Experiment, i: usize) -> usize {
    let name = &experiment.studies[i].name;
    loaded
        .spec
        .studies
        .iter()
        .position(|s| &s.name == name)
        .expect("every resolved study comes from the spec file")
}

/// Where parameter `param` of study `i` is written: its grid axis (the
/// profile's override when there is one) or its fixed value.
fn param_path(loaded: &LoadedSpec, experiment: &Experiment, i: usize, param: &str) -> Vec<PathSeg> {
    let i = spec_index(loaded, experiment, i);
    let s = &loaded.spec.studies[i];
    if let Some(p) = &experiment.profile {
        let overridden = loaded
            .spec
            .profiles
            .get(p)
            .and_then(|ps| ps.grids.get(&s.name))
            .is_some_and(|g| g.contains_key(param));
        if overridden {
            return toml_path!["profiles", p, "grids", &s.name, param].to_vec();
        }
    }
    if s.grid.contains_key(param) {
        return toml_path!["studies", i, "grid", param].to_vec();
    }
    toml_path!["studies", i, "problem", param].to_vec()
}

/// The grid of study `i` (the profile's override when there is one).
fn study_grid_path(loaded: &LoadedSpec, experiment: &Experiment, i: usize) -> Vec<PathSeg> {
    let i = spec_index(loaded, experiment, i);
    let s = &loaded.spec.studies[i];
    if let Some(p) = &experiment.profile {
        let overridden = loaded
            .spec
            .profiles
            .get(p)
            .is_some_and(|ps| ps.grids.contains_key(&s.name));
        if overridden {
            return toml_path!["profiles", p, "grids", &s.name].to_vec();
        }
    }
    toml_path!["studies", i, "grid"].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_meminfo_parse() {
        assert_eq!(parse_bytes("1000"), Ok(1000.0));
        assert_eq!(parse_bytes("512M"), Ok(512.0 * 1024.0 * 1024.0));
        assert_eq!(parse_bytes("1.5GiB"), Ok(1.5 * 1024.0 * 1024.0 * 1024.0));
        for bad in ["", "-1G", "abc", "5Q", "0"] {
            assert!(parse_bytes(bad).is_err(), "{bad} accepted");
        }
        let meminfo =
            "MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(parse_meminfo(meminfo), Some(2048.0 * 1024.0));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }
}
