//! `runner removal-margin <file>`: the removal-margin experiment of
//! Wang–Zhu–Wang (Appendix N, Figures 2–3; digest §5 reproduction recipe) on
//! any labelled feature matrix.
//!
//! Why a subcommand and not a study: the experiment is deterministic (no
//! seeds, no repetitions, no privacy parameters), its input is a user's file
//! rather than a generated family, and its output is one curve (removed %,
//! margin) rather than a metric per grid cell, so none of the study
//! machinery (grids, repetitions, slope checks) applies. The planted-twin
//! check (the curve is 0 for the first `m` removals and jumps to about
//! `gamma*` after exactly `m`) is a test of this subcommand on synthetic data
//! (`tests/wang_removal_margin.rs`).
//!
//! Input: HDF5 (`.h5`/`.hdf5`) with datasets `/features` (`n x d`, any
//! numeric type) and `/labels` (`n`, values `±1`), or CSV with a header
//! `label,f0,f1,...` and one record per line, as
//! `scripts/extract_cifar_features.py` writes. Rows are L2-normalised
//! (so the normalized margin of Definition N.1 is the geometric margin).
//! Output: a CSV `removed,removed_percent,svm_margin,exact_lower,exact_upper,
//! removed_index` and an SVG line figure (linear axes: the curve starts at 0).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::InputError;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use solvers::wang::{removal_margin_curve, RemovalOptions, RemovalPoint, SvmOptions};

/// Options of `runner removal-margin`.
#[derive(Debug, Args, Clone)]
pub struct RemovalMarginArgs {
    /// Labelled feature matrix: HDF5 (/features n x d, /labels ±1) or CSV (label,f0,f1,...).
    pub file: PathBuf,
    /// Output CSV (default: `results/removal-margin/<file stem>.csv`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output SVG figure (default: `figures/removal-margin/<file stem>.svg`).
    #[arg(long)]
    pub figure: Option<PathBuf>,
    /// Largest removed fraction in percent of n (digest §5: at least 1%).
    #[arg(long, default_value_t = 1.0)]
    pub max_percent: f64,
    /// Soft-margin SVM constant C (digest §5: 1, also try 0.1 and 10).
    #[arg(long, default_value_t = 1.0)]
    pub svm_c: f64,
    /// Skip the exact (certified) margin of the remainder once separable.
    #[arg(long)]
    pub no_exact: bool,
}

/// A labelled matrix read from disk: `n x d` row-major features and labels.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledMatrix {
    /// Dimension.
    pub d: usize,
    /// Features, row-major.
    pub features: Vec<f64>,
    /// Labels `±1`.
    pub labels: Vec<f64>,
}

/// Reads HDF5 (by extension `.h5`/`.hdf5`) or CSV.
pub fn read_labelled(path: &Path) -> Result<LabelledMatrix> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let m = if matches!(ext, "h5" | "hdf5") {
        read_hdf5(path)?
    } else {
        read_csv(path)?
    };
    if m.labels.is_empty() || m.d == 0 || m.features.len() != m.labels.len() * m.d {
        bail!(
            "{}: {} feature values for {} labels and d = {}",
            path.display(),
            m.features.len(),
            m.labels.len(),
            m.d
        );
    }
    Ok(m)
}

fn read_hdf5(path: &Path) -> Result<LabelledMatrix> {
    let file =
        hdf5_pure::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let features = file.dataset("features").context("reading /features")?;
    let shape = features.shape()?;
    let [n, d] = shape[..] else {
        bail!("/features must be 2-dimensional (n x d), has shape {shape:?}");
    };
    let labels = file
        .dataset("labels")
        .context("reading /labels")?
        .read_f64()?;
    if labels.len() as u64 != n {
        bail!("/labels has {} entries, /features {n} rows", labels.len());
    }
    Ok(LabelledMatrix {
        d: d as usize,
        features: features.read_f64()?,
        labels,
    })
}

fn read_csv(path: &Path) -> Result<LabelledMatrix> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines
        .next()
        .ok_or_else(|| anyhow!("{}: empty file", path.display()))?;
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    if columns.first() != Some(&"label") || columns.len() < 2 {
        bail!("{}: the header must be label,f0,f1,...", path.display());
    }
    let d = columns.len() - 1;
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    for (i, line) in lines.enumerate() {
        let values: Vec<f64> = line
            .split(',')
            .map(|v| v.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}: record {i} is not numeric", path.display()))?;
        if values.len() != d + 1 {
            bail!(
                "{}: record {i} has {} fields, expected {}",
                path.display(),
                values.len(),
                d + 1
            );
        }
        labels.push(values[0]);
        features.extend_from_slice(&values[1..]);
    }
    Ok(LabelledMatrix {
        d,
        features,
        labels,
    })
}

/// The curve of a matrix (digest §5 recipe; `max_removals = ceil(max_percent n/100)`).
pub fn curve(m: &LabelledMatrix, args: &RemovalMarginArgs) -> Result<Vec<RemovalPoint>> {
    let n = m.labels.len();
    let max_removals = ((args.max_percent / 100.0 * n as f64).ceil() as usize).min(n - 1);
    let opts = RemovalOptions {
        svm: SvmOptions {
            c: args.svm_c,
            ..SvmOptions::default()
        },
        max_removals: Some(max_removals),
        exact: !args.no_exact,
        ..RemovalOptions::default()
    };
    removal_margin_curve(&m.features, &m.labels, m.d, opts).map_err(|e| anyhow!("{e}"))
}

/// The CSV text of a curve.
pub fn curve_csv(points: &[RemovalPoint]) -> String {
    let mut s =
        String::from("removed,removed_percent,svm_margin,exact_lower,exact_upper,removed_index\n");
    for p in points {
        // The file writes "NaN" where the exact margin was not computed.
        let (lo, hi) = p.exact.as_ref().map_or_else(
            || ("NaN".to_string(), "NaN".to_string()),
            |c| (c.lower.max(0.0).to_string(), c.upper.to_string()),
        );
        let idx = p.removed_index.map_or(String::new(), |i| i.to_string());
        let _ = writeln!(
            s,
            "{},{},{},{},{},{}",
            p.removed, p.removed_percent, p.svm_margin, lo, hi, idx
        );
    }
    s
}

/// A self-contained SVG of the curve (linear axes): the SVM margin and, where
/// computed, the exact margin, against the removed percentage.
pub fn curve_svg(points: &[RemovalPoint], title: &str) -> String {
    let (w, h, left, right, top, bottom) = (900.0, 560.0, 80.0, 30.0, 50.0, 60.0);
    let x_max = points.last().map_or(1.0, |p| p.removed_percent).max(1e-12);
    let y_max = points
        .iter()
        .flat_map(|p| [p.svm_margin, p.exact.as_ref().map_or(0.0, |c| c.upper)])
        .fold(0.0_f64, f64::max)
        .max(1e-3)
        * 1.1;
    let px = |x: f64| left + (w - left - right) * x / x_max;
    let py = |y: f64| h - bottom - (h - top - bottom) * y / y_max;
    let line = |f: &dyn Fn(&RemovalPoint) -> Option<f64>| {
        points
            .iter()
            .filter_map(|p| f(p).map(|y| format!("{:.2},{:.2}", px(p.removed_percent), py(y))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let svm = line(&|p: &RemovalPoint| Some(p.svm_margin));
    let exact = line(&|p: &RemovalPoint| p.exact.as_ref().map(|c| c.lower.max(0.0)));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"28\" font-size=\"18\" text-anchor=\"middle\">{title}</text>\n\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>\n",
        w / 2.0,
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    for i in 0..=4 {
        let (xv, yv) = (x_max * i as f64 / 4.0, y_max * i as f64 / 4.0);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{xv:.3}</text>\
             <text x=\"{}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"end\">{yv:.3}</text>",
            px(xv),
            h - bottom + 18.0,
            left - 6.0,
            py(yv) + 4.0
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\">removed points (% of n)</text>\n\
         <text x=\"18\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">normalized margin</text>\n\
         <polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"{svm}\"/>\n\
         <polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 4\" points=\"{exact}\"/>\n\
         <text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#1f77b4\">SVM margin (Definition N.1)</text>\n\
         <text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#d62728\">exact margin of the remainder (certified lower end)</text>\n</svg>\n",
        (left + w - right) / 2.0,
        h - 15.0,
        (top + h - bottom) / 2.0,
        (top + h - bottom) / 2.0,
        left + 12.0,
        top + 16.0,
        left + 12.0,
        top + 34.0
    );
    s
}

fn default_output(dir: &str, file: &Path, ext: &str) -> PathBuf {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("data");
    Path::new(dir)
        .join("removal-margin")
        .join(format!("{stem}.{ext}"))
}

/// Runs the subcommand: reads, computes, writes the CSV and the figure.
pub fn run(args: &RemovalMarginArgs) -> Result<()> {
    let percent_ok = args.max_percent > 0.0 && args.max_percent < 100.0;
    let c_ok = args.svm_c.is_finite() && args.svm_c > 0.0;
    if !(percent_ok && c_ok) {
        return Err(
            InputError("--max-percent must be in (0, 100) and --svm-c positive".into()).into(),
        );
    }
    // An unreadable or malformed file is bad input (exit code 2), like a flag.
    let m = read_labelled(&args.file).map_err(|e| InputError(format!("{e:#}")))?;
    let points = curve(&m, args)?;
    let csv = args
        .out
        .clone()
        .unwrap_or_else(|| default_output("results", &args.file, "csv"));
    let svg = args
        .figure
        .clone()
        .unwrap_or_else(|| default_output("figures", &args.file, "svg"));
    for p in [&csv, &svg] {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
    }
    std::fs::write(&csv, curve_csv(&points))
        .with_context(|| format!("writing {}", csv.display()))?;
    let title = format!(
        "removal-margin: {} (n = {}, d = {})",
        args.file.display(),
        m.labels.len(),
        m.d
    );
    std::fs::write(&svg, curve_svg(&points, &title))
        .with_context(|| format!("writing {}", svg.display()))?;
    let first = points.iter().find(|p| p.svm_margin > 0.0);
    match first {
        Some(p) => println!(
            "separable after {} removals ({:.4}% of n); margin at the end {:.4}",
            p.removed,
            p.removed_percent,
            points.last().map_or(0.0, |p| p.svm_margin)
        ),
        None => println!("not separable within {} removals", points.len() - 1),
    }
    println!("wrote {} and {}", csv.display(), svg.display());
    Ok(())
}
