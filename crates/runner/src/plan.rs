//! Expansion of a resolved experiment into cells (study x grid point x repetition)
//! with their seeds.
//!
//! The data stream of a cell depends on (master seed, study, data-defining
//! problem values, repetition), so every privacy level and algorithm option in
//! a repetition sees the same data set (common random numbers). The noise
//! stream depends on every value of the grid point. Seeds depend on values, not
//! on grid positions, so extending a grid leaves existing cells untouched.

use crate::registry::{ParamRole, Privacy, Value, Values};
use crate::seeds::SeedBuilder;
use crate::validate::{Experiment, Study, Target};

/// One grid point of a study, with every value resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct GridPoint {
    /// Position in the study's grid (first axis slowest).
    pub index: usize,
    /// Problem-family values.
    pub problem: Values,
    /// Algorithm options.
    pub options: Values,
    /// The guarantee, in the unit of the study's algorithm, which decides the
    /// privacy columns stored and the privacy values in the seeds.
    pub privacy: Privacy,
    /// The swept values, in axis order.
    pub swept: Vec<(String, f64)>,
}

impl GridPoint {
    /// Every numeric parameter of the point, by name: problem values, options,
    /// and the privacy parameters of its unit (`eps` and `delta`, or `rho`):
    /// the columns stored per cell.
    pub fn numeric_params(&self) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = self
            .problem
            .iter()
            .chain(self.options.iter())
            .filter_map(|(k, v)| match v {
                Value::Num(x) => Some((k.clone(), *x)),
                Value::Str(_) => None,
            })
            .collect();
        out.extend(self.privacy_values());
        out
    }

    /// The privacy parameters of the point's unit, by name.
    pub fn privacy_values(&self) -> Vec<(String, f64)> {
        self.privacy
            .values()
            .into_iter()
            .map(|(name, v)| (name.to_string(), v))
            .collect()
    }

    /// Appends the privacy parameters of the point's unit to a seed (`eps`
    /// then `delta`, or `rho`).
    fn push_privacy(&self, b: &mut SeedBuilder) {
        for (_, v) in self.privacy_values() {
            b.push_f64(v);
        }
    }
}

/// One unit of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Index of the study in the experiment.
    pub study: usize,
    /// Index of the grid point in the study.
    pub point: usize,
    /// Repetition number.
    pub repetition: usize,
    /// Seed of the data stream.
    pub data_seed: u64,
    /// Seed of the algorithm's noise stream.
    pub noise_seed: u64,
}

/// All grid points and cells of an experiment.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Grid points per study.
    pub points: Vec<Vec<GridPoint>>,
    /// Cells, ordered by study, point, repetition.
    pub cells: Vec<Cell>,
}

/// Expands the cartesian grid of a study.
pub fn grid_points(study: &Study) -> Vec<GridPoint> {
    let mut points = vec![GridPoint {
        index: 0,
        problem: study.problem.clone(),
        options: study.options.clone(),
        privacy: study.privacy,
        swept: Vec::new(),
    }];
    for axis in &study.axes {
        let mut next = Vec::with_capacity(points.len() * axis.values.len());
        for p in &points {
            for &v in &axis.values {
                let mut q = p.clone();
                match axis.target {
                    Target::Problem => {
                        q.problem.insert(axis.name.clone(), Value::Num(v));
                    }
                    Target::Algorithm => {
                        q.options.insert(axis.name.clone(), Value::Num(v));
                    }
                    Target::Privacy => q.privacy = q.privacy.with(&axis.name, v),
                }
                q.swept.push((axis.name.clone(), v));
                next.push(q);
            }
        }
        points = next;
    }
    for (i, p) in points.iter_mut().enumerate() {
        p.index = i;
    }
    points
}

fn push_values(b: &mut SeedBuilder, values: &Values, keep: impl Fn(&str) -> bool) {
    for (k, v) in values.iter().filter(|(k, _)| keep(k)) {
        b.push_str(k);
        match v {
            Value::Num(x) => b.push_f64(*x),
            Value::Str(s) => b.push_str(s),
        };
    }
}

/// Seed of the data stream of `point`, repetition `rep`.
pub fn data_seed(master: u64, study: &Study, point: &GridPoint, rep: usize) -> u64 {
    let mut b = SeedBuilder::new(master, "data");
    b.push_str(&study.name).push_str(study.family.name);
    let defining = |name: &str| {
        study
            .family
            .params
            .iter()
            .any(|d| d.name == name && d.role == ParamRole::Data)
    };
    push_values(&mut b, &point.problem, defining);
    if study.family.privacy_defines_data {
        point.push_privacy(&mut b);
    }
    b.push_u64(rep as u64).finish()
}

/// The values a family's constructor receives for `point`: the problem values,
/// plus the privacy parameters (`eps` and `delta`, or `rho`) when the
/// family's data depend on them
/// ([`crate::registry::FamilyDef::privacy_defines_data`]).
pub fn build_values(study: &Study, point: &GridPoint) -> Values {
    let mut values = point.problem.clone();
    if study.family.privacy_defines_data {
        for (name, v) in point.privacy_values() {
            values.insert(name, Value::Num(v));
        }
    }
    values
}

/// Seed of the noise stream of `point`, repetition `rep`.
pub fn noise_seed(master: u64, study: &Study, point: &GridPoint, rep: usize) -> u64 {
    let mut b = SeedBuilder::new(master, "noise");
    b.push_str(&study.name).push_str(study.algorithm.name);
    push_values(&mut b, &point.problem, |_| true);
    // Draw-scaling options never enter; late options only off their default
    // (registry::late_at_default), so adding either leaves every seed unchanged.
    let defs = study.algorithm.options;
    let seeds_noise = |name: &str| {
        let draw_scaling = defs
            .iter()
            .any(|d| d.name == name && d.role == ParamRole::DrawScaling);
        let late = point
            .options
            .get(name)
            .is_some_and(|v| crate::registry::late_at_default(defs, name, v));
        !draw_scaling && !late
    };
    push_values(&mut b, &point.options, seeds_noise);
    point.push_privacy(&mut b);
    b.push_u64(rep as u64).finish()
}

/// Expands `experiment` into its plan.
pub fn plan(experiment: &Experiment) -> Plan {
    let mut points = Vec::new();
    let mut cells = Vec::new();
    for (s, study) in experiment.studies.iter().enumerate() {
        let pts = grid_points(study);
        for p in &pts {
            for rep in 0..study.repetitions {
                cells.push(Cell {
                    study: s,
                    point: p.index,
                    repetition: rep,
                    data_seed: data_seed(experiment.seed, study, p, rep),
                    noise_seed: noise_seed(experiment.seed, study, p, rep),
                });
            }
        }
        points.push(pts);
    }
    Plan { points, cells }
}

/// How many values of an axis `runner plan` prints before eliding the middle.
const SHOWN_AXIS_VALUES: usize = 12;

/// A human-readable description of the plan (the dry run): per study its
/// grid, cells and estimated core-hours and peak memory per cell, then the
/// totals with the wall time and peak memory of a run on `threads` workers.
/// It reads the counts from `estimate`, never from expanded cells, so it
/// answers at once on any grid the validator admits.
pub fn describe(
    experiment: &Experiment,
    estimate: &crate::cost::PlanEstimate,
    threads: usize,
) -> String {
    use crate::format::{format_bytes, format_count, format_duration};
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "experiment {} (profile {}), master seed {}: {} studies, {} cells",
        experiment.name,
        experiment.profile.as_deref().unwrap_or("default"),
        experiment.seed,
        experiment.studies.len(),
        format_count(estimate.cells())
    );
    for (study, est) in experiment.studies.iter().zip(&estimate.studies) {
        let _ = writeln!(
            out,
            "\n  study {}: {} on {}, metric {}, {} grid points x {} repetitions = {} cells",
            study.name,
            study.algorithm.name,
            study.family.name,
            study.metric,
            format_count(est.points),
            study.repetitions,
            format_count(est.cells)
        );
        let _ = writeln!(
            out,
            "    estimate: {:.3} core-hours ({}), longest cell {}, peak memory per cell {}",
            est.core_seconds / 3600.0,
            format_duration(est.core_seconds),
            format_duration(est.max_cell_seconds),
            format_bytes(est.peak_cell_bytes)
        );
        for axis in &study.axes {
            let shown = |v: &[f64]| v.iter().map(|x| format!("{x}")).collect::<Vec<_>>();
            let vals = if axis.values.len() > SHOWN_AXIS_VALUES {
                let k = SHOWN_AXIS_VALUES / 2;
                format!(
                    "{}, ... ({} values) ..., {}",
                    shown(&axis.values[..k]).join(", "),
                    axis.values.len(),
                    shown(&axis.values[axis.values.len() - k..]).join(", ")
                )
            } else {
                shown(&axis.values).join(", ")
            };
            let _ = writeln!(out, "    {} = [{vals}]", axis.name);
        }
        for c in &study.slopes {
            let _ = writeln!(
                out,
                "    expect slope in {}: {} on [{}, {}]",
                c.param,
                c.claim_rule
                    .as_ref()
                    .map_or(c.side.describe(c.slope, c.tolerance), |r| r
                        .rule
                        .describe(c.slope, c.tolerance)),
                c.window.0,
                c.window.1
            );
        }
    }
    let core = estimate.core_seconds();
    let _ = writeln!(
        out,
        "\ntotal: {} cells, estimated {:.3} core-hours ({} of one core), {} wall on {threads} threads, peak memory {} (largest cell {})",
        format_count(estimate.cells()),
        core / 3600.0,
        format_duration(core),
        format_duration(estimate.wall_seconds(threads)),
        format_bytes(estimate.peak_bytes(threads)),
        format_bytes(estimate.peak_cell_bytes()),
    );
    let _ = writeln!(
        out,
        "(estimates from the cost model, calibrated on {}; see PERFORMANCE.md for how close they came)",
        crate::cost::constants::CALIBRATED_FROM
    );
    out
}
