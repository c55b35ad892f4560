//! The diagonal quadratic family of Lowy–Razaviyayn digest §8 E1: an
//! `H^ERM_{beta, mu, L, R}` instance with exact ground truth.
//!
//! `f(w, x) = 1/2 (w - x)^T H (w - x)` with `H = diag(h_1, ..., h_d)`,
//! `h_j` linearly spaced in `[mu, beta]`, `mu = beta / kappa`, and data `x_i`
//! uniform in the unit ball. Then `F(w) = (1/n) sum_i f(w, x_i)` has
//! minimizer `w* = x_bar` (the sample mean) and
//! `F(w) - F(w*) = 1/2 (w - x_bar)^T H (w - x_bar)` exactly.

use crate::geometry::fill_unit_ball;
use crate::numerics::column_means;
use dpcore::{DataArray, FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of one diagonal-quadratic instance (digest §8 E1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiagonalQuadraticParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Smoothness `beta > 0` (the largest Hessian eigenvalue).
    pub beta: f64,
    /// Condition number `kappa = beta / mu >= 1`.
    pub kappa: f64,
}

impl DiagonalQuadraticParams {
    /// Checks `n >= 1`, `d >= 1`, finite `beta > 0`, finite `kappa >= 1`.
    /// [`DiagonalQuadratic::generate`] panics on exactly these conditions, so
    /// callers that take parameters from configuration should call this first.
    pub fn validate(&self) -> Result<(), String> {
        if self.n == 0 {
            return Err("n must be >= 1".into());
        }
        if self.d == 0 {
            return Err("d must be >= 1".into());
        }
        if !(self.beta.is_finite() && self.beta > 0.0) {
            return Err(format!("beta must be finite and > 0, got {}", self.beta));
        }
        if !(self.kappa.is_finite() && self.kappa >= 1.0) {
            return Err(format!("kappa must be finite and >= 1, got {}", self.kappa));
        }
        Ok(())
    }

    /// Strong-convexity modulus `mu = beta / kappa`.
    pub fn mu(&self) -> f64 {
        self.beta / self.kappa
    }

    /// Hessian diagonal: `h_j = mu + (beta - mu) j / (d - 1)`, `j = 0..d-1`,
    /// with `h_{d-1} = beta` exactly; all `beta` when `kappa = 1` or `d = 1`.
    pub fn hessian_diagonal(&self) -> Vec<f64> {
        let (beta, mu, d) = (self.beta, self.mu(), self.d);
        if d == 1 || self.kappa == 1.0 {
            return vec![beta; d];
        }
        let mut h: Vec<f64> = (0..d)
            .map(|j| mu + (beta - mu) * (j as f64 / (d - 1) as f64))
            .collect();
        h[d - 1] = beta;
        h
    }
}

/// A sampled diagonal-quadratic ERM instance with its exact minimizer.
#[derive(Debug, Clone)]
pub struct DiagonalQuadratic {
    params: DiagonalQuadraticParams,
    /// Hessian diagonal `h_j`.
    h: Vec<f64>,
    /// Data, row-major `n x d`: record `i` is `data[i*d .. (i+1)*d]`.
    data: Vec<f64>,
    /// Exact minimizer `w* = x_bar`.
    mean: Vec<f64>,
}

impl DiagonalQuadratic {
    /// Samples `n` points uniformly in the unit ball of `R^d`
    /// ([`crate::geometry::sample_unit_ball`]) and computes `w* = x_bar` once, with compensated
    /// (Neumaier) summation so the ground truth carries no accumulated rounding.
    ///
    /// # Panics
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(params: DiagonalQuadraticParams, rng: &mut R) -> Self {
        if let Err(e) = params.validate() {
            panic!("invalid DiagonalQuadraticParams: {e}");
        }
        let (n, d) = (params.n, params.d);
        // This thread's spare record buffer (crate::recycle): at n = 1e6,
        // d = 10 a fresh 80 MB vector per cell made the kernel zero its
        // pages, 25% of an `lr_e1_n_pure` cell.
        let mut data = crate::recycle::take(n * d);
        let mut record = vec![0.0; d];
        for _ in 0..n {
            fill_unit_ball(&mut record, rng);
            data.extend_from_slice(&record);
        }
        let mean = column_means(&data, d);
        Self {
            params,
            h: params.hessian_diagonal(),
            data,
            mean,
        }
    }

    /// The instance with the caller's records (row-major `n x d`, each in the
    /// unit ball, the data universe the constants hold on): the neighbouring
    /// pairs of the privacy audit. The same arithmetic as [`Self::generate`]
    /// from the records on.
    pub fn from_records(params: DiagonalQuadraticParams, data: Vec<f64>) -> Result<Self, String> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        if data.len() != n * d {
            return Err(format!(
                "{} coordinates for n = {n} records of dimension {d}",
                data.len()
            ));
        }
        if let Some(i) = data
            .chunks_exact(d)
            .position(|row| row.iter().map(|v| v * v).sum::<f64>() > 1.0 + 1e-12)
        {
            return Err(format!("record {i} lies outside the unit ball"));
        }
        let mean = column_means(&data, d);
        Ok(Self {
            params,
            h: params.hessian_diagonal(),
            data,
            mean,
        })
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &DiagonalQuadraticParams {
        &self.params
    }

    /// Hessian diagonal `h_j`.
    pub fn hessian_diagonal(&self) -> &[f64] {
        &self.h
    }

    /// Record `i` (a point of the unit ball).
    pub fn record(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        &self.data[i * d..(i + 1) * d]
    }

    /// All records, row-major `n x d`.
    pub fn data(&self) -> &[f64] {
        &self.data
    }
}

/// `out = H (w - c)` for the diagonal Hessian `H = diag(h)` (shared with the
/// SCO quadratic, [`crate::sco_quadratic`]).
pub(crate) fn diagonal_gradient(h: &[f64], w: &[f64], c: &[f64], out: &mut [f64]) {
    for ((o, hj), (wj, cj)) in out.iter_mut().zip(h).zip(w.iter().zip(c)) {
        *o = hj * (wj - cj);
    }
}

/// `1/2 (w - c)^T H (w - c)` for the diagonal Hessian `H = diag(h)`.
pub(crate) fn half_diagonal_norm(h: &[f64], w: &[f64], c: &[f64]) -> f64 {
    0.5 * h
        .iter()
        .zip(w.iter().zip(c))
        .map(|(hj, (wj, cj))| hj * (wj - cj) * (wj - cj))
        .sum::<f64>()
}

/// Hands the records' memory back to this thread's spare buffer
/// (`crate::recycle`), for the next generation on this thread (the rayon
/// worker's next cell) to reuse pages already mapped.
impl Drop for DiagonalQuadratic {
    fn drop(&mut self) {
        crate::recycle::give(std::mem::take(&mut self.data));
    }
}

impl Objective for DiagonalQuadratic {
    fn dim(&self) -> usize {
        self.params.d
    }

    /// `records` (`n x d`, the `x_i`) and `hessian_diagonal` (`d`, the `h_j`):
    /// with them `f(w, x) = 1/2 sum_j h_j (w_j - x_j)^2` is computable.
    fn data_arrays(&self) -> Vec<DataArray<'_>> {
        let (n, d) = (self.params.n, self.params.d);
        vec![
            DataArray {
                name: "records",
                rows: n,
                cols: d,
                vector: false,
                values: &self.data,
            },
            DataArray {
                name: "hessian_diagonal",
                rows: d,
                cols: 1,
                vector: true,
                values: &self.h,
            },
        ]
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    fn constant_diagonal_hessian(&self) -> Option<&[f64]> {
        Some(&self.h)
    }

    /// `F(w) = (1/n) sum_i 1/2 sum_j h_j (w_j - x_ij)^2`, O(nd).
    fn value(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "value: w has wrong length");
        let total: f64 = self
            .data
            .chunks_exact(self.params.d)
            .map(|x| {
                self.h
                    .iter()
                    .zip(w.iter().zip(x))
                    .map(|(h, (wj, xj))| h * (wj - xj) * (wj - xj))
                    .sum::<f64>()
            })
            .sum();
        0.5 * total / self.params.n as f64
    }

    /// `grad F(w) = H (w - x_bar)` (exact: the average of `H (w - x_i)`).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(w.len(), self.params.d, "gradient: w has wrong length");
        assert_eq!(out.len(), self.params.d, "gradient: out has wrong length");
        diagonal_gradient(&self.h, w, &self.mean, out);
    }

    /// `L = 2 beta` (`||H (w - x)|| <= beta ||w - x|| <= 2 beta` on the unit
    /// ball), smoothness `beta`, strong convexity `mu = beta/kappa`, and
    /// `R = 1` (the mean of points in the unit ball lies in it). All analytic.
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 2.0 * self.params.beta,
            smoothness: self.params.beta,
            strong_convexity: self.params.mu(),
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.mean
    }

    /// `F(w) - F(w*) = 1/2 sum_j h_j (w_j - x_bar_j)^2`, exact for a quadratic
    /// and free of the cancellation in `F(w) - F*` (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "excess_risk: w has wrong length");
        half_diagonal_norm(&self.h, w, &self.mean)
    }

    /// Tight: replacing one point of the unit ball moves the mean by at most
    /// `||x - x'|| / n <= 2/n`. Paper (Prop 2.2): `2L/(mu n) = 4 kappa / n`.
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let c = self.constants();
        let n = self.params.n as f64;
        MinimizerSensitivity {
            tight: 2.0 / n,
            paper: 2.0 * c.lipschitz / (c.strong_convexity * n),
        }
    }

    /// `tr(H) = sum_j h_j`.
    fn hessian_trace(&self) -> Option<f64> {
        Some(self.h.iter().sum())
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl FiniteSum for DiagonalQuadratic {
    /// `grad f(w, x_i) = H (w - x_i)`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        diagonal_gradient(&self.h, w, self.record(i), out);
    }
}

#[cfg(test)]
mod from_records_tests {
    use super::*;
    use rand::SeedableRng;

    /// With a generated instance's own records, `from_records` rebuilds it
    /// bit for bit; a record outside the unit ball or a wrong length is refused.
    #[test]
    fn from_records_rebuilds_generate() {
        let params = DiagonalQuadraticParams {
            n: 7,
            d: 3,
            beta: 1.0,
            kappa: 2.0,
        };
        let q = DiagonalQuadratic::generate(params, &mut rand_pcg::Pcg64::seed_from_u64(3));
        let r = DiagonalQuadratic::from_records(params, q.data().to_vec()).unwrap();
        assert_eq!(r.minimizer(), q.minimizer());
        assert_eq!(r.hessian_diagonal(), q.hessian_diagonal());
        let w = [0.1, -0.2, 0.3];
        assert_eq!(r.value(&w).to_bits(), q.value(&w).to_bits());
        let mut bad = q.data().to_vec();
        bad[0] = 2.0;
        assert!(DiagonalQuadratic::from_records(params, bad).is_err());
        assert!(DiagonalQuadratic::from_records(params, vec![0.0; 20]).is_err());
    }

    /// Through `generate` and `Drop` (the runner's path): on one thread a
    /// second data set lands in the first one's memory, with the records and
    /// minimizer a generation in fresh memory gives (a larger first data set,
    /// so its spare holds leftover values beyond the second's records).
    #[test]
    fn generate_reuses_the_dropped_instance_memory_bit_for_bit() {
        std::thread::spawn(|| {
            let p = |n| DiagonalQuadraticParams {
                n,
                d: 4,
                beta: 1.0,
                kappa: 3.0,
            };
            let first = DiagonalQuadratic::generate(p(50), &mut rand_pcg::Pcg64::seed_from_u64(1));
            let ptr = first.data().as_ptr();
            drop(first);
            let second = DiagonalQuadratic::generate(p(30), &mut rand_pcg::Pcg64::seed_from_u64(2));
            assert_eq!(second.data().as_ptr(), ptr, "the memory is reused");
            // Another thread has no spare: fresh memory.
            let fresh = std::thread::spawn(move || {
                let q = DiagonalQuadratic::generate(p(30), &mut rand_pcg::Pcg64::seed_from_u64(2));
                (q.data().to_vec(), q.minimizer().to_vec())
            })
            .join()
            .unwrap();
            assert_eq!(second.data().len(), fresh.0.len());
            let same =
                |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same(second.data(), &fresh.0) && same(second.minimizer(), &fresh.1));
        })
        .join()
        .unwrap();
    }
}
