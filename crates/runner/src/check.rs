//! The check stage: expectations (slopes, bounds, theory match) and regression
//! against a committed baseline summary.
//!
//! Baseline comparison: a grid point regresses when its mean is worse (larger)
//! than the baseline's by more than `z * sqrt(se² + se_baseline²)`, with `z`
//! the one-sided normal quantile at a family-wise false-alarm rate of
//! [`BASELINE_FAMILY_ALPHA`] split over all compared points (Bonferroni). With
//! unchanged code and seeds the numbers are identical, so this tolerance only
//! matters for changes that alter random streams but not distributions.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use polars::prelude::*;
use statrs::distribution::{ContinuousCDF, Normal};

use crate::analyze::StudyAnalysis;
use crate::report::{describe_values, point_key, sig, summary_frame};
use crate::validate::Experiment;

/// Family-wise false-alarm rate of the baseline regression check.
pub const BASELINE_FAMILY_ALPHA: f64 = 0.001;

/// One baseline row.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselinePoint {
    /// Mean.
    pub mean: f64,
    /// Standard error.
    pub se: f64,
}

/// Baseline keyed by (study, swept description).
pub type Baseline = BTreeMap<(String, String), BaselinePoint>;

/// Writes the baseline summary (the per-point CSV columns the check needs).
pub fn write_baseline(
    path: &Path,
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
) -> Result<()> {
    let df = summary_frame(experiment, analyses)?;
    let mut df = df.select(["study", "swept", "count", "mean", "se"])?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    CsvWriter::new(&mut file).finish(&mut df)?;
    Ok(())
}

/// Reads a baseline written by [`write_baseline`].
pub fn read_baseline(path: &Path) -> Result<Baseline> {
    let df = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(path.to_path_buf()))?
        .finish()
        .map_err(|e| anyhow::anyhow!("reading baseline {}: {e}", path.display()))?;
    let study = df.column("study")?.str()?.clone();
    let swept = df.column("swept")?.str()?.clone();
    let mean = df.column("mean")?.cast(&DataType::Float64)?;
    let se = df.column("se")?.cast(&DataType::Float64)?;
    let (mean, se) = (mean.f64()?, se.f64()?);
    let mut out = Baseline::new();
    for i in 0..df.height() {
        let (Some(st), Some(sw)) = (study.get(i), swept.get(i)) else {
            bail!("baseline {} row {i} lacks study or swept", path.display());
        };
        out.insert(
            (st.to_string(), sw.to_string()),
            BaselinePoint {
                mean: mean.get(i).unwrap_or(f64::NAN),
                se: se.get(i).unwrap_or(f64::NAN),
            },
        );
    }
    Ok(out)
}

/// The outcome of the check stage.
#[derive(Debug, Clone, Default)]
pub struct CheckOutcome {
    /// Human-readable lines, one per problem found.
    pub problems: Vec<String>,
    /// Informational lines.
    pub notes: Vec<String>,
}

impl CheckOutcome {
    /// Whether everything holds.
    pub fn pass(&self) -> bool {
        self.problems.is_empty()
    }

    /// Printable report.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            let _ = writeln!(out, "  note: {n}");
        }
        for p in &self.problems {
            let _ = writeln!(out, "  FAIL: {p}");
        }
        let _ = writeln!(
            out,
            "check: {}",
            if self.pass() {
                "all expectations hold"
            } else {
                "FAILED"
            }
        );
        out
    }
}

/// Checks every expectation, and the baseline when given.
pub fn check(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    baseline: Option<&Baseline>,
) -> CheckOutcome {
    let mut outcome = CheckOutcome::default();
    for (study, a) in experiment.studies.iter().zip(analyses) {
        for s in &a.slopes {
            if !s.pass {
                outcome.problems.push(format!(
                    "{}: slope in {} at [{}] is {:+.3} ± {:.3}, expected {}",
                    study.name,
                    s.param,
                    describe_values(&s.at),
                    s.fitted,
                    s.ci_half_width,
                    s.side.describe(s.theory_slope, s.tolerance)
                ));
            }
        }
        if a.bound_check == Some(false) {
            for p in a
                .points
                .iter()
                .filter(|p| !(p.bound.is_finite() && p.mean <= p.bound))
            {
                outcome.problems.push(format!(
                    "{}: mean {} exceeds the theorem bound {} at {}",
                    study.name,
                    sig(p.mean),
                    sig(p.bound),
                    describe_values(&p.swept)
                ));
            }
        }
        if let Some(m) = &a.reference_failures {
            for &i in m {
                let p = &a.points[i];
                outcome.problems.push(format!(
                    "{}: mean {} (CI low {}) does not exceed the reference curve {} ({}) at {}",
                    study.name,
                    sig(p.mean),
                    sig(p.ci_low),
                    sig(p.reference),
                    study.algorithm.reference_name,
                    describe_values(&p.swept)
                ));
            }
        }
        if let Some(m) = &a.theory_mismatches {
            for &i in m {
                let p = &a.points[i];
                outcome.problems.push(format!(
                    "{}: mean {} ± {} (x{:.2} se) misses the exact expectation {} at {}",
                    study.name,
                    sig(p.mean),
                    sig(p.se),
                    a.theory_match_quantile,
                    sig(p.theory),
                    describe_values(&p.swept)
                ));
            }
        }
        if a.failed_cells > 0 {
            outcome.problems.push(format!(
                "{}: {} cells failed, e.g. {}",
                study.name,
                a.failed_cells,
                a.failures.first().cloned().unwrap_or_default()
            ));
        }
        if a.missing_cells > 0 {
            outcome.problems.push(format!(
                "{}: {} planned cells are missing from the results file",
                study.name, a.missing_cells
            ));
        }
    }
    if let Some(base) = baseline {
        compare_baseline(experiment, analyses, base, &mut outcome);
    }
    outcome
}

fn compare_baseline(
    experiment: &Experiment,
    analyses: &[StudyAnalysis],
    base: &Baseline,
    outcome: &mut CheckOutcome,
) {
    let pairs: Vec<_> = experiment
        .studies
        .iter()
        .zip(analyses)
        .flat_map(|(s, a)| {
            a.points.iter().filter_map(move |p| {
                base.get(&(s.name.clone(), point_key(&p.swept)))
                    .map(|b| (s, p, b))
            })
        })
        .collect();
    if pairs.is_empty() {
        outcome
            .notes
            .push("the baseline shares no grid point with this run; nothing compared".into());
        return;
    }
    let z = Normal::standard().inverse_cdf(1.0 - BASELINE_FAMILY_ALPHA / pairs.len() as f64);
    let mut worse = 0;
    for (s, p, b) in &pairs {
        let tol = z * (p.se.powi(2) + b.se.powi(2)).sqrt();
        let within_noise = p.mean - b.mean <= tol;
        if !within_noise {
            worse += 1;
            outcome.problems.push(format!(
                "{}: mean {} at {} is worse than the baseline {} by more than its noise ({})",
                s.name,
                sig(p.mean),
                describe_values(&p.swept),
                sig(b.mean),
                sig(tol)
            ));
        }
    }
    outcome.notes.push(format!(
        "baseline: {} grid points compared at z = {z:.2} (family-wise false-alarm rate {BASELINE_FAMILY_ALPHA}), {worse} worse",
        pairs.len()
    ));
}
