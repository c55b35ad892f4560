//! Labelled halfspace problems (Wang–Zhu–Wang, "Adapting to linear separable
//! subsets with large margin in DP learning", digest §1).
//!
//! Classification is not the minimisation of a known objective, so these
//! problems do **not** go through [`crate::Objective`]. A problem is a sample
//! `S = {(x_i, y_i)}` with `||x_i|| <= 1` (unit norm for the synthetic
//! families) and `y_i = ±1`, judged by the zero-one error of a homogeneous
//! halfspace `x -> sign(<w, x>)`.
//!
//! **Ties count as errors** (digest P9): `y <w, x> <= 0` is a mistake, so the
//! zero vector has error 1, not 0 as the paper's strict `<` would give.

/// Zero-one error `(1/n) #{i : y_i <w, x_i> <= 0}` of `w` on an `n x d`
/// row-major feature matrix with labels `±1` (digest P9: ties are errors).
///
/// # Panics
/// If `features.len() != labels.len() * w.len()`.
pub fn zero_one_error(features: &[f64], labels: &[f64], w: &[f64]) -> f64 {
    let d = w.len();
    assert_eq!(features.len(), labels.len() * d, "zero_one_error: shape");
    if labels.is_empty() {
        return 0.0;
    }
    let errors = features
        .chunks_exact(d)
        .zip(labels)
        .filter(|(x, &y)| y * dot(x, w) <= 0.0)
        .count();
    errors as f64 / labels.len() as f64
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// Population zero-one error of a predictor, estimated by a population
/// sampler with a stated accuracy (or exact, with `standard_error = 0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PopulationError {
    /// `R_D(w) = P(y <w, x> <= 0)` over the full distribution (outliers
    /// included at their planted rate).
    pub error: f64,
    /// The error on the clean (inlier) subpopulation only.
    pub clean_error: f64,
    /// Standard error of `error` (`sqrt(p (1 - p) / N)` for `N` Monte-Carlo
    /// draws; 0 when exact).
    pub standard_error: f64,
    /// Number of Monte-Carlo draws (0 when exact).
    pub samples: usize,
}

/// A labelled halfspace problem handed by the runner to the Wang–Zhu–Wang
/// algorithms (`solvers::wang`). Object safe; algorithms take
/// `&dyn HalfspaceProblem`.
pub trait HalfspaceProblem: Send + Sync {
    /// Dimension `d`.
    fn dim(&self) -> usize;
    /// Number of records `n`.
    fn num_records(&self) -> usize;
    /// The `n x d` row-major features, each row of norm `<= data_bound()`.
    fn features(&self) -> &[f64];
    /// The public bound `b` on the row norms, `||x_i|| <= b` (Wang–Zhu–Wang
    /// Appendix L): a property of the data domain, declared by the family
    /// before any record is drawn, so an algorithm may calibrate its noise
    /// to it. 1 (unit-norm rows) unless the problem says otherwise.
    fn data_bound(&self) -> f64 {
        1.0
    }
    /// The labels `y_i = ±1`.
    fn labels(&self) -> &[f64];
    /// The planted margin `gamma*` of the inlier set (`gamma(S \ S_out)`),
    /// when the family knows it exactly; `None` for user data.
    fn true_margin(&self) -> Option<f64>;
    /// The number `m` of planted outliers (0 for user data).
    fn outlier_count(&self) -> usize;
    /// The indices of the planted inliers `S \ S_out`, when the family knows
    /// them (the default: `None`, as for user data).
    fn inlier_rows(&self) -> Option<Vec<usize>> {
        None
    }
    /// Empirical zero-one error `R~_S(w)` (ties are errors, digest P9).
    fn zero_one_error(&self, w: &[f64]) -> f64 {
        zero_one_error(self.features(), self.labels(), w)
    }
    /// Population zero-one error `R_D(w)`; `None` when the problem has no
    /// population model.
    fn population_error(&self, _w: &[f64]) -> Option<PopulationError> {
        None
    }
}

/// A user-supplied labelled sample (e.g. CIFAR features read by the runner):
/// rows are L2-normalised on construction so that `||x_i|| = 1` and the
/// normalized margin of digest Definition N.1 equals the geometric margin.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledSample {
    d: usize,
    x: Vec<f64>,
    y: Vec<f64>,
}

impl LabelledSample {
    /// Builds from an `n x d` row-major matrix and labels `±1`, normalising
    /// every row to unit norm.
    ///
    /// # Errors
    /// If the shape is inconsistent, `d == 0`, a label is not `±1`, a value
    /// is not finite, or a row is zero.
    pub fn normalized(d: usize, mut x: Vec<f64>, y: Vec<f64>) -> Result<Self, String> {
        if d == 0 || x.len() != y.len() * d {
            return Err(format!(
                "shape: {} values for {} labels and d = {d}",
                x.len(),
                y.len()
            ));
        }
        if let Some(i) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
            return Err(format!("label {i} is {}, not ±1", y[i]));
        }
        for (i, row) in x.chunks_exact_mut(d).enumerate() {
            let norm = dot(row, row).sqrt();
            if !norm.is_finite() || norm == 0.0 {
                return Err(format!("row {i} has norm {norm}"));
            }
            row.iter_mut().for_each(|v| *v /= norm);
        }
        Ok(Self { d, x, y })
    }
}

impl HalfspaceProblem for LabelledSample {
    fn dim(&self) -> usize {
        self.d
    }
    fn num_records(&self) -> usize {
        self.y.len()
    }
    fn features(&self) -> &[f64] {
        &self.x
    }
    fn labels(&self) -> &[f64] {
        &self.y
    }
    fn true_margin(&self) -> Option<f64> {
        None
    }
    fn outlier_count(&self) -> usize {
        0
    }
}
