//! The cost model: estimated seconds and peak bytes of every cell, before
//! anything runs.
//!
//! A cell's cost is a work formula from the complexity of its family and
//! algorithm (data size `n d`, the iteration counts the theorems prescribe,
//! the dense-matrix size of saddle games, ...), declared by each entry beside
//! its definition (`contract::cost`; one data pass by default), in abstract
//! operations, times
//! a per-algorithm constant calibrated on the measured per-cell wall times of
//! this harness ([`constants`], refreshed by `scripts/refresh_cost_constants.sh`
//! through `runner calibrate`). The data set of a (study, data seed) group is
//! generated once and shared by its cells ([`crate::execute::run_group`]), so
//! its generation is spread over the group, as the stored times are.
//!
//! Memory is the data set (8 bytes per stored number) plus the algorithm's
//! working vectors, per worker thread, over the process base and the records
//! the run holds for every planned cell.
//!
//! Everything is computed in `f64` from the grid's values, never allocated:
//! `d = 1e11` gives an estimate of 8e17 bytes, not an allocation failure. The
//! grid is walked point by point (not expanded into cells), so estimating a
//! plan costs microseconds per grid point whatever the repetitions.

pub mod calibrate;
pub mod constants;

use std::collections::HashMap;

pub use crate::registry::CostPoint as PointValues;
use crate::registry::{FamilyWork, ParamRole, SetupWork, Value};
use crate::validate::{Experiment, Study, Target};

/// The work of one cell in the model's units.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Work {
    /// Operations to generate the cell's data set (shared by its data group).
    pub generate_ops: f64,
    /// Operations of the algorithm's run and its metric.
    pub run_ops: f64,
    /// Numbers (8 bytes each) the data set holds.
    pub data_numbers: f64,
    /// Numbers (8 bytes each) the algorithm holds besides the data set.
    pub work_numbers: f64,
    /// Which of the algorithm's constants prices it (`""`: its own;
    /// `contract::AlgorithmDef::cost_variant`).
    pub variant: &'static str,
}

/// Estimated cost of one cell.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CellCost {
    /// Core-seconds, its share of the group's data generation included.
    pub seconds: f64,
    /// Peak bytes it adds to the process while it runs (data set and working memory).
    pub bytes: f64,
}

/// The work of one cell of `study` at the values `v`, without the
/// algorithm's memoized setup (which [`study_works`] spreads over the cells
/// sharing it).
pub fn cell_work(study: &Study, v: &PointValues) -> Work {
    let family = (study.family.work)(v);
    work_of(study, v, &family)
}

fn work_of(study: &Study, v: &PointValues, family: &FamilyWork) -> Work {
    // The formulas are the entries' own (`contract::cost`, declared beside
    // each entry in `papers`).
    let (run_ops, work_numbers) = (study.algorithm.work)(v, family);
    Work {
        generate_ops: family.generate_ops,
        run_ops,
        data_numbers: family.data_numbers,
        work_numbers,
        variant: study.algorithm.cost_variant.map_or("", |f| f(v, family)),
    }
}

/// The work of one cell at every grid point of `study` (plan order), each
/// with its share of the algorithm's memoized setup, as if the study ran
/// alone ([`experiment_works`]).
pub fn study_works(study: &Study) -> Vec<Work> {
    experiment_works(std::slice::from_ref(study))
        .pop()
        .unwrap_or_default()
}

/// Per study of `studies` (one run), the work of one cell at every grid
/// point (plan order), each with its share of the algorithm's memoized setup
/// ([`crate::registry::SetupWork`]): a setup is computed once per process,
/// memo entry and concurrent worker ([`constants::SETUP_COMPUTATIONS`]) by
/// the first cells that need it, so the plan spreads those computations over
/// every cell of the run with the same memo and key (repetitions, data-only
/// axes and the other studies hitting the entry), as the stored per-cell
/// times do on average. (Shards and resumed runs pay it again; the plan does
/// not count them.)
pub fn experiment_works(studies: &[Study]) -> Vec<Vec<Work>> {
    type Key = (&'static str, [u64; 5]);
    let key = |s: &SetupWork| (s.memo, s.key.map(f64::to_bits));
    let mut works = Vec::new();
    let mut setups = Vec::new();
    let mut sharing: HashMap<Key, f64> = HashMap::new();
    for study in studies {
        let (mut w, mut u) = (Vec::new(), Vec::new());
        let reps = (study.repetitions as f64).max(1.0);
        for_each_point(study, |_, v| {
            let family = (study.family.work)(v);
            w.push(work_of(study, v, &family));
            let setup = study.algorithm.setup_work.and_then(|f| f(v, &family));
            if let Some(s) = &setup {
                *sharing.entry(key(s)).or_default() += reps;
            }
            u.push(setup);
        });
        works.push(w);
        setups.push(u);
    }
    for (w, u) in works.iter_mut().zip(&setups) {
        for (w, s) in w.iter_mut().zip(u) {
            if let Some(s) = s {
                let cells = sharing[&key(s)];
                w.run_ops += s.ops * constants::SETUP_COMPUTATIONS.min(cells) / cells;
            }
        }
    }
    works
}

/// Estimated cost of one cell from its work, whose data set is shared by
/// `group_size` cells.
pub fn cell_cost(study: &Study, work: &Work, group_size: f64) -> CellCost {
    let k = constants::seconds_per_op_of(study.algorithm.name, work.variant);
    CellCost {
        seconds: constants::SECONDS_PER_CELL
            + k * (work.run_ops + work.generate_ops / group_size.max(1.0)),
        bytes: 8.0 * (work.data_numbers + work.work_numbers),
    }
}

/// The number of cells sharing a data set: the grid points that differ only
/// in swept values that do not define the data (algorithm options, privacy
/// unless the family's data depend on it).
pub fn group_size(study: &Study) -> f64 {
    study
        .axes
        .iter()
        .filter(|a| !defines_data(study, a))
        .map(|a| a.values.len() as f64)
        .product()
}

fn defines_data(study: &Study, axis: &crate::validate::Axis) -> bool {
    match axis.target {
        Target::Problem => study
            .family
            .params
            .iter()
            .any(|p| p.name == axis.name && p.role == ParamRole::Data),
        Target::Privacy => study.family.privacy_defines_data,
        Target::Algorithm => false,
    }
}

/// Calls `f` with the index and values of every grid point of `study`, in
/// plan order (first axis slowest), without expanding the grid.
pub fn for_each_point(study: &Study, mut f: impl FnMut(usize, &PointValues)) {
    let mut problem = study.problem.clone();
    let mut options = study.options.clone();
    let total = study.axes.iter().map(|a| a.values.len()).product::<usize>();
    for index in 0..total {
        let mut privacy = study.privacy;
        let mut rest = index;
        for axis in study.axes.iter().rev() {
            let value = axis.values[rest % axis.values.len()];
            rest /= axis.values.len();
            match axis.target {
                Target::Problem => {
                    problem.insert(axis.name.clone(), Value::Num(value));
                }
                Target::Algorithm => {
                    options.insert(axis.name.clone(), Value::Num(value));
                }
                Target::Privacy => privacy = privacy.with(&axis.name, value),
            }
        }
        f(
            index,
            &PointValues {
                problem: &problem,
                options: &options,
                privacy,
            },
        );
    }
}

/// The estimate of one study.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyEstimate {
    /// Study name.
    pub name: String,
    /// Grid points.
    pub points: f64,
    /// Cells (points x repetitions).
    pub cells: f64,
    /// Estimated core-seconds of all its cells.
    pub core_seconds: f64,
    /// Estimated seconds of its most expensive cell.
    pub max_cell_seconds: f64,
    /// Estimated peak bytes of its most memory-hungry cell.
    pub peak_cell_bytes: f64,
    /// Index of the grid point of that cell.
    pub peak_point: usize,
    /// Estimated seconds of one cell at each grid point (plan order).
    pub point_seconds: Vec<f64>,
}

/// The estimate of a whole plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanEstimate {
    /// Per study, in experiment order.
    pub studies: Vec<StudyEstimate>,
}

impl PlanEstimate {
    /// Cells of the plan.
    pub fn cells(&self) -> f64 {
        self.studies.iter().map(|s| s.cells).sum()
    }

    /// Estimated core-seconds of the plan.
    pub fn core_seconds(&self) -> f64 {
        self.studies.iter().map(|s| s.core_seconds).sum()
    }

    /// Estimated peak bytes of a single cell.
    pub fn peak_cell_bytes(&self) -> f64 {
        self.studies
            .iter()
            .map(|s| s.peak_cell_bytes)
            .fold(0.0, f64::max)
    }

    /// Estimated wall seconds on `threads` workers: the core-seconds spread
    /// over the threads, but never less than the longest cell.
    pub fn wall_seconds(&self, threads: usize) -> f64 {
        let longest = self
            .studies
            .iter()
            .map(|s| s.max_cell_seconds)
            .fold(0.0, f64::max);
        (self.core_seconds() / threads.max(1) as f64).max(longest)
    }

    /// Estimated peak resident bytes of a run on `threads` workers: the
    /// process base, the records of every cell, and one data set per worker
    /// (the largest ones, as if they all ran at once).
    pub fn peak_bytes(&self, threads: usize) -> f64 {
        let mut largest: Vec<f64> = self.studies.iter().map(|s| s.peak_cell_bytes).collect();
        largest.sort_by(|a, b| b.total_cmp(a));
        let per_worker = largest.first().copied().unwrap_or(0.0) * threads.max(1) as f64;
        constants::BASE_BYTES + constants::BYTES_PER_CELL * self.cells() + per_worker
    }
}

/// Estimates one study as if it ran alone: every grid point once, times the
/// repetitions.
pub fn estimate_study(study: &Study) -> StudyEstimate {
    estimate_with(study, &study_works(study))
}

/// Estimates `study` from the work of its grid points ([`experiment_works`]).
fn estimate_with(study: &Study, works: &[Work]) -> StudyEstimate {
    let group = group_size(study);
    let reps = study.repetitions as f64;
    let mut out = StudyEstimate {
        name: study.name.clone(),
        points: study.grid_size(),
        cells: study.grid_size() * reps,
        core_seconds: 0.0,
        max_cell_seconds: 0.0,
        peak_cell_bytes: 0.0,
        peak_point: 0,
        point_seconds: Vec::new(),
    };
    for (index, work) in works.iter().enumerate() {
        let cost = cell_cost(study, work, group);
        out.core_seconds += cost.seconds * reps;
        out.max_cell_seconds = out.max_cell_seconds.max(cost.seconds);
        if cost.bytes > out.peak_cell_bytes {
            out.peak_cell_bytes = cost.bytes;
            out.peak_point = index;
        }
        out.point_seconds.push(cost.seconds);
    }
    out
}

/// Estimates every study of `experiment`.
pub fn estimate(experiment: &Experiment) -> PlanEstimate {
    PlanEstimate {
        studies: experiment
            .studies
            .iter()
            .zip(experiment_works(&experiment.studies))
            .map(|(s, w)| estimate_with(s, &w))
            .collect(),
    }
}
