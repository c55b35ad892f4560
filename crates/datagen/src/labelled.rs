//! Labelled records `(x_i, y_i)` with `||x_i|| <= 1` and `y_i = ±1` drawn
//! from a logistic label model with flipped labels (digest §8 E1b), shared by
//! the logistic ([`crate::logistic`]) and adversarial ([`crate::adversarial`])
//! families.

use crate::geometry::sample_unit_ball;
use crate::numerics::{norm2, sigmoid};
use rand::{Rng, RngExt};

/// Law of the features `x` (each keeps `||x|| <= 1`, so the analytic constants
/// hold for every data set).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FeatureModel {
    /// Uniform in the unit ball (digest §8 E1b). In high `d` the signal
    /// coordinate is small (`E x_1^2 = 1/(d+2)`).
    UniformBall,
    /// `x_1 ~ Uniform[-1, 1]` and `(x_2..x_d) = sqrt(1 - x_1^2) z`, `z` uniform
    /// in the unit ball of `R^{d-1}`: a dimension-free signal coordinate, so
    /// `||E[y x]||` stays well above an adversary radius `r <= 0.2` (§8 E7).
    SignalSlab,
    /// [`FeatureModel::UniformBall`] with the signal coordinate shrunk to
    /// `sigma x_1` after the label is drawn from the unscaled `x_1`: the
    /// label model is unchanged, but the data's curvature along `e_1`
    /// shrinks by `sigma^2`, and the regularized optimum moves out along it
    /// (to about `signal/sigma` when `mu` is far below that curvature, to
    /// about `g_1/mu` with `g_1 ~ sigma E[y x_1]/2` when `mu` dominates it):
    /// a low-curvature direction that carries the signal, which a first-order
    /// method has to travel (the runtime instance of issue 39 item 5).
    ScaledSignal {
        /// Scale `sigma` in `(0, 1]` of the signal coordinate.
        sigma: f64,
    },
}

/// Labelled records `(x_i, y_i)`: `w_true = signal * e_1`,
/// `P(y = 1 | x) = sigmoid(w_true.x)`, then each label flipped with
/// probability `label_noise` (digest §8 E1b).
#[derive(Debug, Clone)]
pub struct LabelledData {
    d: usize,
    /// Row-major `n x d` features.
    x: Vec<f64>,
    /// Labels `±1`.
    y: Vec<f64>,
}

impl LabelledData {
    /// Checks `n, d >= 1`, `label_noise in [0, 0.5)`, finite `signal >= 0`.
    pub fn validate(n: usize, d: usize, label_noise: f64, signal: f64) -> Result<(), String> {
        if n == 0 || d == 0 {
            return Err(format!("n and d must be >= 1, got n={n}, d={d}"));
        }
        if !(0.0..0.5).contains(&label_noise) {
            return Err(format!(
                "label_noise must be in [0, 0.5), got {label_noise}"
            ));
        }
        if !(signal.is_finite() && signal >= 0.0) {
            return Err(format!("signal must be finite and >= 0, got {signal}"));
        }
        Ok(())
    }

    /// Samples `n` records (see the type docs). Errors as [`Self::validate`].
    pub fn sample<R: Rng + ?Sized>(
        n: usize,
        d: usize,
        label_noise: f64,
        signal: f64,
        features: FeatureModel,
        rng: &mut R,
    ) -> Result<Self, String> {
        Self::validate(n, d, label_noise, signal)?;
        if let FeatureModel::ScaledSignal { sigma } = features {
            if !(sigma > 0.0 && sigma <= 1.0) {
                return Err(format!("sigma must lie in (0, 1], got {sigma}"));
            }
        }
        let mut x = Vec::with_capacity(n * d);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let mut xi = match features {
                FeatureModel::UniformBall | FeatureModel::ScaledSignal { .. } => {
                    sample_unit_ball(d, rng)
                }
                FeatureModel::SignalSlab => {
                    let x1: f64 = rng.random_range(-1.0..=1.0);
                    let s = (1.0 - x1 * x1).max(0.0).sqrt();
                    let mut v = vec![x1];
                    if d > 1 {
                        v.extend(sample_unit_ball(d - 1, rng).into_iter().map(|z| s * z));
                    }
                    v
                }
            };
            let nx = norm2(&xi);
            if nx > 1.0 {
                xi.iter_mut().for_each(|v| *v /= nx);
            }
            let u: f64 = rng.random();
            let mut label = if u < sigmoid(signal * xi[0]) {
                1.0
            } else {
                -1.0
            };
            if rng.random::<f64>() < label_noise {
                label = -label;
            }
            if let FeatureModel::ScaledSignal { sigma } = features {
                xi[0] *= sigma;
            }
            x.extend(xi);
            y.push(label);
        }
        Ok(Self { d, x, y })
    }

    /// Wraps records read from elsewhere (e.g. a file): `x` row-major `n x d`,
    /// `y` the `n` labels. Rows must have `||x_i|| <= 1` (up to a relative
    /// `1e-12` for rounding) so that the logistic family's analytic constants
    /// hold, and labels must be exactly `±1`.
    ///
    /// # Errors
    /// Empty input, mismatched lengths, non-finite features, a row of norm
    /// above 1 or a label other than `±1` (the message names the first
    /// offending record).
    pub fn from_rows(d: usize, x: Vec<f64>, y: Vec<f64>) -> Result<Self, String> {
        if d == 0 || y.is_empty() || x.len() != y.len() * d {
            return Err(format!(
                "expected n >= 1 rows of d >= 1 features, got {} features for {} labels and d = {d}",
                x.len(),
                y.len()
            ));
        }
        for (i, (row, &label)) in x.chunks_exact(d).zip(&y).enumerate() {
            let norm = norm2(row);
            if !norm.is_finite() || norm > 1.0 + 1e-12 {
                return Err(format!(
                    "record {i}: ||x|| = {norm} (rows must be finite with norm <= 1; rescale them)"
                ));
            }
            if label != 1.0 && label != -1.0 {
                return Err(format!("record {i}: label {label} is not +1 or -1"));
            }
        }
        Ok(Self { d, x, y })
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True when there are no records (never for sampled data).
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// Features of record `i`.
    pub fn features(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// Label `y_i = ±1`.
    pub fn label(&self, i: usize) -> f64 {
        self.y[i]
    }

    /// Consecutive blocks of `rows` records as `(features, labels)` slices
    /// (row-major features; the last block may be shorter), in record order.
    pub fn block_slices(&self, rows: usize) -> impl Iterator<Item = (&[f64], &[f64])> {
        let rows = rows.max(1);
        self.x.chunks(rows * self.d).zip(self.y.chunks(rows))
    }

    /// Iterators over `(x_i, y_i)` for consecutive blocks of `rows` records
    /// (the last block may be shorter), in record order.
    pub fn blocks(
        &self,
        rows: usize,
    ) -> impl Iterator<Item = impl Iterator<Item = (&[f64], f64)> + Clone> {
        let d = self.d;
        self.block_slices(rows)
            .map(move |(x, y)| x.chunks_exact(d).zip(y.iter().copied()))
    }

    /// Iterator over `(x_i, y_i)`.
    pub fn iter(&self) -> impl Iterator<Item = (&[f64], f64)> + Clone {
        self.x.chunks_exact(self.d).zip(self.y.iter().copied())
    }

    /// Stride `k` of the Hessian subsample (rows `0, k, 2k, ...`): the Newton
    /// direction uses at most `max(20_000, 4e8 / d^2)` i.i.d. rows so that a
    /// Hessian costs `O(min(n, m) d^2)`, not `O(n d^2)`; the certificate is the
    /// exact full gradient, so this only affects the convergence speed.
    pub fn hessian_stride(&self) -> usize {
        let m = 20_000usize.max(400_000_000 / (self.d * self.d));
        self.len().div_ceil(m).max(1)
    }

    /// Rows a strided Hessian visits: `ceil(len / hessian_stride)`.
    pub fn hessian_rows(&self) -> usize {
        self.len().div_ceil(self.hessian_stride())
    }
}
