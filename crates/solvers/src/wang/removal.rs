//! The removal-margin procedure of the paper's only experiment (Appendix N,
//! Figures 2–3; digest §5 reproduction recipe), over any labelled matrix.
//!
//! Rows are L2-normalised (so the normalized margin of Definition N.1 is the
//! geometric margin of Eq. 1). For `r = 0, 1, ..., max_removals`: fit the
//! bias-free soft-margin SVM ([`fit_svm`], warm-started from the previous
//! fit), compute `m_i = y_i <w, x_i> / (||x_i|| ||w||)`, record
//! `(100 r / n, max(min_i m_i, 0))` and, once `min_i m_i > 0`, the exact
//! margin of the remainder with its certificate ([`exact_margin_warm`],
//! warm-started from the previous hull weights; the SVM's margin is only a
//! lower bound); then remove `argmin_i m_i` (the smallest **signed** value).

use super::margin::{exact_margin_warm, MarginCertificate, MarginOptions};
use super::svm::{fit_svm, SvmOptions};
use dpcore::RunFailure;

/// Options of [`removal_margin_curve`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemovalOptions {
    /// The SVM (default `C = 1`).
    pub svm: SvmOptions,
    /// Number of removals; `None` means `ceil(0.01 n)` (1%, digest §5).
    pub max_removals: Option<usize>,
    /// Whether to compute the exact margin once the SVM separates.
    pub exact: bool,
    /// Tolerances of the exact solver.
    pub margin: MarginOptions,
}

impl Default for RemovalOptions {
    fn default() -> Self {
        Self {
            svm: SvmOptions::default(),
            max_removals: None,
            exact: true,
            margin: MarginOptions::default(),
        }
    }
}

/// One point of the curve.
#[derive(Debug, Clone, PartialEq)]
pub struct RemovalPoint {
    /// Points removed so far, `r`.
    pub removed: usize,
    /// `100 r / n`.
    pub removed_percent: f64,
    /// `max(min_i m_i, 0)` for the SVM direction (Definition N.1).
    pub svm_margin: f64,
    /// The exact margin of the remainder, once the SVM separates it.
    pub exact: Option<MarginCertificate>,
    /// The record removed after this point (`None` at the last point).
    pub removed_index: Option<usize>,
    /// Whether the SVM met its tolerance.
    pub svm_converged: bool,
}

/// The curve of the module docs for an `n x d` row-major matrix with labels
/// `±1`.
///
/// # Errors
/// `InvalidParameters` for inconsistent shapes, labels other than `±1`, zero
/// or non-finite rows, or more removals than records minus one.
pub fn removal_margin_curve(
    features: &[f64],
    labels: &[f64],
    d: usize,
    opts: RemovalOptions,
) -> Result<Vec<RemovalPoint>, RunFailure> {
    let invalid = |m: String| RunFailure::InvalidParameters(m);
    let n = labels.len();
    let sample =
        dpcore::halfspace::LabelledSample::normalized(d, features.to_vec(), labels.to_vec())
            .map_err(invalid)?;
    let x = dpcore::halfspace::HalfspaceProblem::features(&sample);
    let removals = opts.max_removals.unwrap_or(n.div_ceil(100));
    if removals >= n {
        return Err(invalid(format!("{removals} removals of {n} records")));
    }
    let mut active: Vec<usize> = (0..n).collect();
    let mut alpha = vec![0.0; n];
    let mut hull_weight = vec![0.0; n];
    let mut curve = Vec::with_capacity(removals + 1);
    for r in 0..=removals {
        let fit = fit_svm(x, labels, d, &active, alpha, opts.svm);
        let wn = fit.w.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (pos, min) = active
            .iter()
            .enumerate()
            .map(|(pos, &i)| {
                let m = if wn > 0.0 {
                    labels[i]
                        * x[i * d..(i + 1) * d]
                            .iter()
                            .zip(&fit.w)
                            .map(|(a, b)| a * b)
                            .sum::<f64>()
                        / wn
                } else {
                    0.0
                };
                (pos, m)
            })
            .fold((0, f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b });
        let exact = (opts.exact && min > 0.0).then(|| {
            // Warm start from the previous hull weights (the removed record's dropped).
            let start: Vec<f64> = active.iter().map(|&i| hull_weight[i]).collect();
            let c = exact_margin_warm(x, labels, d, Some(&active), Some(&start), opts.margin);
            active
                .iter()
                .zip(&c.weights)
                .for_each(|(&i, &w)| hull_weight[i] = w);
            c
        });
        let removed_index = (r < removals).then(|| active[pos]);
        curve.push(RemovalPoint {
            removed: r,
            removed_percent: 100.0 * r as f64 / n as f64,
            svm_margin: min.max(0.0),
            exact,
            removed_index,
            svm_converged: fit.converged,
        });
        alpha = fit.alpha;
        if r < removals {
            hull_weight[active[pos]] = 0.0;
            active.swap_remove(pos);
        }
    }
    Ok(curve)
}
