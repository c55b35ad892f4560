//! Execution: rayon over the pending cells, one writer appending finished cells
//! to the results file in batches, a progress bar on a terminal.

use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use dpcore::RunFailure;
use indicatif::{ProgressBar, ProgressStyle};

use crate::plan::{Cell, GridPoint, Plan};
use crate::registry::{Curves, RunContext};
use crate::seeds::rng_from_seed;
use crate::store::{CellRecord, ResultsStore};
use crate::validate::{Experiment, Study};

// The interrupt flag and the flush policy live with the run loop they
// govern; these paths stay for the rest of the crate.
pub use crate::run_loop::{flush_interval, interrupted, FLUSH_COST_FACTOR, INTERRUPTED};

/// How to execute.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Flush the results file at least this often.
    pub flush_every: Duration,
    /// Show a progress bar (only honoured on a terminal).
    pub progress: bool,
}

/// What an execution did.
#[derive(Debug, Clone, Default)]
pub struct ExecSummary {
    /// Cells already in the results file.
    pub resumed: usize,
    /// Cells run now.
    pub ran: usize,
    /// Cells run now that failed.
    pub failed: usize,
    /// Data sets generated for the cells run now: one per (study, data seed)
    /// group, shared by reference by every cell of the group.
    pub datasets: usize,
    /// Wall time.
    pub seconds: f64,
    /// Whether the run stopped early on SIGINT/SIGTERM (finished cells are saved).
    pub interrupted: bool,
}

/// Turns a caught panic payload into a message.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("panic: {msg}")
}

/// Runs the cells of one data group: they share the study and the data seed, so
/// the problem is generated once from the data stream and every cell runs the
/// algorithm on it with its own noise stream (common random numbers without a
/// per-cell copy of the data). Panics, non-finite metrics and solver failures
/// become failed records; they never stop the sweep. Each cell's wall time is
/// its own run plus an equal share of the generation.
pub fn run_group(study: &Study, points: &[GridPoint], cells: &[Cell]) -> Vec<CellRecord> {
    let start = Instant::now();
    let first = &cells[0];
    let problem = catch_unwind(AssertUnwindSafe(|| {
        let mut data_rng = rng_from_seed(first.data_seed);
        let values = crate::plan::build_values(study, &points[first.point]);
        study.family.build.build(&values, &mut data_rng)
    }));
    let share = start.elapsed().as_secs_f64() / cells.len() as f64;
    // The group's cells share this instance: a Python worker receives its
    // arrays once.
    let instance_key = crate::python::next_instance_key();
    let problem = match problem {
        Ok(Ok(p)) => Ok(p),
        Ok(Err(failure)) => Err(failure.to_string()),
        Err(payload) => Err(panic_message(payload)),
    };
    cells
        .iter()
        .map(|cell| {
            let t = Instant::now();
            let outcome = match &problem {
                Err(e) => Err(format!("problem generation failed: {e}")),
                Ok(problem) => {
                    let point = &points[cell.point];
                    match catch_unwind(AssertUnwindSafe(|| {
                        let mut noise_rng = rng_from_seed(cell.noise_seed);
                        let ctx = RunContext {
                            options: &point.options,
                            problem: &point.problem,
                            privacy: point.privacy,
                            metric: study.metric_kind,
                        };
                        let mut out = match crate::python::entry_of(study.algorithm) {
                            Some(py) => {
                                crate::python::run_cell(
                                    py,
                                    study.family.name,
                                    &ctx,
                                    problem,
                                    &mut noise_rng,
                                    instance_key,
                                )?
                                .0
                            }
                            None => study.algorithm.run.run(&ctx, problem, &mut noise_rng)?,
                        };
                        // The runner, not the entry, measures the release.
                        let metric = problem.measure(study.metric_kind, &out.release)?;
                        if !metric.is_finite() {
                            return Err(RunFailure::NonFinite(format!("metric = {metric}")));
                        }
                        if let Some(derive) = study.algorithm.derive_diagnostics {
                            derive(metric, &mut out.diagnostics);
                        }
                        // Panics (a failed cell) on a name the entry does not declare.
                        let diagnostics = study.algorithm.diagnostic_columns(&out.diagnostics);
                        Ok((metric, out.curves, diagnostics))
                    })) {
                        Ok(Ok(out)) => Ok(out),
                        Ok(Err(failure)) => Err(failure.to_string()),
                        Err(payload) => Err(panic_message(payload)),
                    }
                }
            };
            record(study, cell, outcome, share + t.elapsed().as_secs_f64())
        })
        .collect()
}

fn record(
    study: &Study,
    cell: &Cell,
    outcome: Result<(f64, Curves, Vec<Option<f64>>), String>,
    wall_seconds: f64,
) -> CellRecord {
    let nan = f64::NAN;
    let (error, metric, out) = match outcome {
        Ok((metric, curves, diagnostics)) => (String::new(), metric, Some((curves, diagnostics))),
        Err(e) => (e, nan, None),
    };
    CellRecord {
        study: cell.study,
        point: cell.point,
        repetition: cell.repetition,
        data_seed: cell.data_seed,
        noise_seed: cell.noise_seed,
        error,
        metric,
        // The store's columns keep NaN for "no curve", for a diagnostic the
        // run did not set, and for every column of a failed cell.
        theory: out.as_ref().and_then(|(c, _)| c.theory).unwrap_or(nan),
        bound: out.as_ref().and_then(|(c, _)| c.bound).unwrap_or(nan),
        reference: out.as_ref().and_then(|(c, _)| c.reference).unwrap_or(nan),
        diagnostics: out.map_or_else(
            || vec![nan; study.algorithm.diagnostics.len()],
            |(_, d)| d.into_iter().map(|x| x.unwrap_or(nan)).collect(),
        ),
        wall_seconds,
        segment: 0,
    }
}

/// Groups cells by (study, data seed), keeping plan order within and across groups.
pub fn data_groups(cells: &[Cell]) -> Vec<Vec<Cell>> {
    let mut index: std::collections::HashMap<(usize, u64), usize> = Default::default();
    let mut groups: Vec<Vec<Cell>> = Vec::new();
    for c in cells {
        let i = *index.entry((c.study, c.data_seed)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push(*c);
    }
    groups
}

/// Runs every planned cell not yet in `store`, flushing finished cells in batches.
pub fn execute(
    experiment: &Experiment,
    plan: &Plan,
    store: &mut ResultsStore,
    options: &ExecOptions,
) -> Result<ExecSummary> {
    let start = Instant::now();
    let pending: Vec<Cell> = plan
        .cells
        .iter()
        .filter(|c| {
            !store
                .records
                .contains_key(&(c.study, c.point, c.repetition))
        })
        .copied()
        .collect();
    let mut summary = ExecSummary {
        resumed: plan.cells.len() - pending.len(),
        ..Default::default()
    };
    if pending.is_empty() {
        return Ok(summary);
    }
    let mut groups = data_groups(&pending);
    summary.datasets = groups.len();
    // The bar advances by each finished cell's estimated milliseconds
    // (crate::cost), so its ETA weighs a 50 s cell 1000 times a 50 ms one
    // instead of counting cells: table 1's default run has both.
    let estimate = crate::cost::estimate(experiment);
    let cell_ms = |c: &Cell| -> u64 {
        let s = estimate.studies[c.study].point_seconds[c.point];
        (s * 1000.0).ceil().clamp(1.0, 1e15) as u64
    };
    let total_ms: u64 = pending.iter().map(cell_ms).sum();
    // Costliest groups first (by the same estimate; ties keep the plan's
    // order): the run loop hands jobs out in order, and a 50 s group taken
    // last would leave the other threads idle while it runs. The stored
    // results do not depend on the order.
    groups.sort_by_cached_key(|g| std::cmp::Reverse(g.iter().map(cell_ms).sum::<u64>()));
    let bar = progress_bar(
        total_ms,
        options.progress,
        "",
        " (weighted by the cost estimate)",
    );
    let cells_total = pending.len();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .context("building the thread pool")?;
    // Panics inside cells are caught and recorded; keep the default hook from
    // printing them over the progress bar.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    // One job per data group: group costs differ by 1000x, and rayon's
    // default splitting into contiguous ranges left a worker idle for 20% of
    // table 1's default run (1.63x on 2 threads; 1.99x with one group a task).
    let mut writer = SweepWriter {
        experiment,
        plan,
        store,
        batch: Vec::new(),
        summary: &mut summary,
        bar: &bar,
        cell_ms: &cell_ms,
        cells_total,
    };
    let result = crate::run_loop::run_jobs(
        &pool,
        &groups,
        |group: &Vec<Cell>| {
            let s = group[0].study;
            run_group(&experiment.studies[s], &plan.points[s], group)
        },
        &mut writer,
        options.flush_every,
    );
    std::panic::set_hook(previous_hook);
    bar.finish_and_clear();
    summary.interrupted = result?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// The sweep's writer: counts and shows each finished group's cells, and
/// adds them to the results file at each flush.
struct SweepWriter<'a, F: Fn(&Cell) -> u64> {
    experiment: &'a Experiment,
    plan: &'a Plan,
    store: &'a mut ResultsStore,
    batch: Vec<CellRecord>,
    summary: &'a mut ExecSummary,
    bar: &'a ProgressBar,
    cell_ms: &'a F,
    cells_total: usize,
}

impl<F: Fn(&Cell) -> u64> crate::run_loop::Writer<Vec<CellRecord>> for SweepWriter<'_, F> {
    fn absorb(&mut self, records: Vec<CellRecord>) -> Result<()> {
        for record in records {
            self.summary.ran += 1;
            if !record.ok() {
                self.summary.failed += 1;
            }
            self.bar.inc((self.cell_ms)(&Cell {
                study: record.study,
                point: record.point,
                repetition: record.repetition,
                data_seed: record.data_seed,
                noise_seed: record.noise_seed,
            }));
            self.batch.push(record);
        }
        self.bar
            .set_message(format!("{}/{} cells", self.summary.ran, self.cells_total));
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.store.add_computed(self.batch.drain(..));
        self.store.flush(self.experiment, self.plan)
    }
}

/// The progress bar of both pipelines (the sweep's and the audit's): hidden
/// unless wanted on a terminal; `counter` is the part of its template
/// between the bar and `{msg}` (e.g. `"{pos}/{len} runs, "`), `note` what
/// follows the ETA.
pub fn progress_bar(len: u64, wanted: bool, counter: &str, note: &str) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() || len == 0 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:30.cyan/blue}}] {counter}{{msg}}, ETA {{eta}}{note}"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flush_interval_grows_with_the_cost_of_a_flush() {
        let requested = Duration::from_secs(2);
        assert_eq!(
            flush_interval(requested, Duration::from_millis(10)),
            requested
        );
        assert_eq!(
            flush_interval(requested, Duration::from_millis(500)),
            Duration::from_secs(10)
        );
    }
}
