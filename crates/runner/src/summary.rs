//! The per-point summary (`results/<name>.csv`, or `results/<name>-points.csv`
//! for a spec with headline rows) as data: the table of the analyses
//! ([`summary_frame`], keyed by [`point_key`]; [`crate::report`] writes it and
//! [`crate::check`] compares a selection of it with the baseline), and a
//! committed summary read back into analyses, so verdicts, reports and the
//! claims ledger can be re-derived without rerunning hours of cells. The
//! summary holds every number the fits and checks use (count, mean, se, CI,
//! theory, bound; reference and the worst-case value in summaries written
//! since they gained those columns); the failed cells' messages are not in
//! it, only their count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::analyze::{judge_study, PointSummary, StudyAnalysis};
use crate::csv::{read_csv, Column, Table};
use crate::validate::Experiment;

/// The summary file of `experiment` in `results_dir`: `<name>-points.csv`
/// when the spec has headline rows (its `<name>.csv` is the headline table),
/// else `<name>.csv`.
pub fn summary_path(results_dir: &Path, experiment: &Experiment) -> PathBuf {
    let name = experiment.output_name();
    if experiment.studies.iter().any(|s| s.headline.is_some()) {
        results_dir.join(format!("{name}-points.csv"))
    } else {
        results_dir.join(format!("{name}.csv"))
    }
}

/// `a=1, b=0.0316227766017` with every value at full (round-trip) precision:
/// the key of a grid point in CSV summaries and baselines.
pub fn point_key(values: &[(String, f64)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The per-point summary as a table (one row per study and grid point): the
/// columns of `results/<name>.csv`, and of the baseline (a selection).
pub fn summary_frame(experiment: &Experiment, analyses: &[StudyAnalysis]) -> Table {
    let mut study = Vec::new();
    let mut point = Vec::new();
    let mut swept = Vec::new();
    let mut worst = Vec::new();
    let mut cols: [Vec<f64>; 12] = Default::default();
    for (s, a) in experiment.studies.iter().zip(analyses) {
        for p in &a.points {
            study.push(s.name.clone());
            point.push(p.point as u64);
            swept.push(point_key(&p.swept));
            worst.push(
                p.worst_case_at
                    .as_ref()
                    .map_or(String::new(), |(k, v)| point_key(&[(k.clone(), *v)])),
            );
            let vals = [
                p.count as f64,
                p.failed as f64,
                p.mean,
                p.se,
                p.ci_low,
                p.ci_high,
                p.median,
                p.q10,
                p.q90,
                p.theory,
                p.bound,
                p.reference,
            ];
            for (c, v) in cols.iter_mut().zip(vals) {
                c.push(v);
            }
        }
    }
    let names = [
        "count",
        "failed",
        "mean",
        "se",
        "ci_low",
        "ci_high",
        "median",
        "q10",
        "q90",
        "theory",
        "bound",
        "reference",
    ];
    // Counts are written as floats (`20.0`), as the committed files have them.
    let mut table = Table::new()
        .with("study", Column::Text(study))
        .with("point", Column::UInt(point))
        .with("swept", Column::Text(swept));
    for (name, c) in names.iter().zip(cols) {
        table.push(name, Column::Float(c));
    }
    table.with("worst_case_at", Column::Text(worst))
}

/// Parses a point key `a=1, b=0.5` (see [`point_key`]).
pub fn parse_point_key(key: &str) -> Result<Vec<(String, f64)>> {
    if key.trim().is_empty() {
        return Ok(Vec::new());
    }
    key.split(", ")
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("`{kv}` is not name=value"))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("`{v}` is not a number"))?;
            Ok((k.trim().to_string(), v))
        })
        .collect()
}

/// Reads the per-point summaries of every study, by study name, in file order.
pub fn read_summary(path: &Path) -> Result<BTreeMap<String, Vec<PointSummary>>> {
    let csv = read_csv(path).with_context(|| format!("reading summary {}", path.display()))?;
    let required = |name: &str| -> Result<usize> {
        csv.index(name)
            .with_context(|| format!("{} has no column `{name}`", path.display()))
    };
    let study = required("study")?;
    let point = required("point")?;
    let swept = required("swept")?;
    let numeric = [
        "count", "failed", "mean", "se", "ci_low", "ci_high", "median", "q10", "q90", "theory",
        "bound",
    ];
    let mut cols = BTreeMap::new();
    for name in numeric {
        cols.insert(name, required(name)?);
    }
    // Older summaries lack these two columns.
    let reference = csv.index("reference");
    let worst = csv.index("worst_case_at");
    let mut out: BTreeMap<String, Vec<PointSummary>> = BTreeMap::new();
    for i in 0..csv.rows.len() {
        let (Some(st), Some(sw)) = (csv.get(i, study), csv.get(i, swept)) else {
            bail!("{} row {i} lacks study or swept", path.display());
        };
        let get = |name: &str| csv.float(i, cols[name]);
        let worst_case_at = match worst.and_then(|w| csv.get(i, w)) {
            Some(w) if !w.trim().is_empty() => parse_point_key(w)?.into_iter().next(),
            _ => None,
        };
        out.entry(st.to_string()).or_default().push(PointSummary {
            point: csv.float(i, point) as usize,
            swept: parse_point_key(sw)
                .with_context(|| format!("{} row {i}: swept `{sw}`", path.display()))?,
            count: get("count") as usize,
            failed: get("failed") as usize,
            mean: get("mean"),
            median: get("median"),
            q10: get("q10"),
            q90: get("q90"),
            se: get("se"),
            ci_low: get("ci_low"),
            ci_high: get("ci_high"),
            theory: get("theory"),
            bound: get("bound"),
            reference: reference.map_or(f64::NAN, |r| csv.float(i, r)),
            worst_case_at,
        });
    }
    Ok(out)
}

/// Analyses of every study of `experiment` from its committed summary: the
/// same fits and verdicts as from the stored cells ([`judge_study`]). A
/// study absent from the summary gets no points (all its cells missing).
/// For a worst-case study the summary holds the maxima only, so its bound
/// is checked at those points.
pub fn analyses_from_summary(experiment: &Experiment, path: &Path) -> Result<Vec<StudyAnalysis>> {
    let mut by_study = read_summary(path)?;
    Ok(experiment
        .studies
        .iter()
        .map(|study| {
            let points = by_study.remove(&study.name).unwrap_or_default();
            let planned: usize =
                study.axes.iter().map(|a| a.values.len()).product::<usize>() * study.repetitions;
            let failed: usize = points.iter().map(|p| p.failed).sum();
            let done: usize = points.iter().map(|p| p.count + p.failed).sum();
            // The summary of a worst-case study keeps one point per group.
            let missing = if study.worst_case_over.is_some() {
                usize::from(points.is_empty()) * planned
            } else {
                planned.saturating_sub(done)
            };
            match &study.worst_case_over {
                // Already maximized: judge the maxima as they are.
                Some(_) => {
                    let mut s = study.clone();
                    s.worst_case_over = None;
                    judge_study(&s, points, Vec::new(), failed, missing)
                }
                None => judge_study(study, points, Vec::new(), failed, missing),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_keys_round_trip() {
        let v = vec![
            ("n".to_string(), 1000.0),
            ("eps".to_string(), 0.0316227766017),
        ];
        let key = point_key(&v);
        assert_eq!(parse_point_key(&key).unwrap(), v);
        assert!(parse_point_key("").unwrap().is_empty());
        assert!(parse_point_key("n=abc").is_err());
    }
}
