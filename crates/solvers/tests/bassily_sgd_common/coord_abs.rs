//! E3 test objective: coordinate absolute deviation with its closed-form
//! unconstrained Moreau envelope (digest §5.3, §6 E3).

use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants, RecordEnvelope};
use rand::{Rng, RngExt};

/// E3: `z = s e_j` (`j` uniform, `P(s = +1 | j) = (1 + rho_j r)/2`), loss
/// `L |<w, z> - tau|`, `tau = M/sqrt(d)`, on `B(0, M)`.
pub struct CoordAbs {
    /// `(j, s)` of each record.
    pub records: Vec<(usize, f64)>,
    pub rho: Vec<f64>,
    pub r: f64,
    pub d: usize,
    pub lipschitz: f64,
    pub radius: f64,
    pub minimizer: Vec<f64>,
}

impl CoordAbs {
    pub fn sample<R: Rng + ?Sized>(n: usize, d: usize, r: f64, rho: Vec<f64>, rng: &mut R) -> Self {
        let records = (0..n)
            .map(|_| {
                let j = rng.random_range(0..d);
                let plus = rng.random::<f64>() < 0.5 * (1.0 + rho[j] * r);
                (j, if plus { 1.0 } else { -1.0 })
            })
            .collect::<Vec<_>>();
        let tau = 1.0 / (d as f64).sqrt();
        // Empirical minimizer: per coordinate, the median of the targets s tau.
        let minimizer = (0..d)
            .map(|j| {
                let bal: f64 = records
                    .iter()
                    .filter(|(k, _)| *k == j)
                    .map(|(_, s)| s)
                    .sum();
                tau * bal.signum() * f64::from(u8::from(bal != 0.0))
            })
            .collect();
        Self {
            records,
            rho,
            r,
            d,
            lipschitz: 1.0,
            radius: 1.0,
            minimizer,
        }
    }

    pub fn tau(&self) -> f64 {
        self.radius / (self.d as f64).sqrt()
    }

    /// `a = <w, z_i> - tau` and `(j, s)`.
    fn residual(&self, i: usize, w: &[f64]) -> (usize, f64, f64) {
        let (j, s) = self.records[i];
        (j, s, s * w[j] - self.tau())
    }
}

impl FiniteSum for CoordAbs {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let (j, s, a) = self.residual(i, w);
        out.iter_mut().for_each(|o| *o = 0.0);
        out[j] = if a == 0.0 {
            0.0
        } else {
            self.lipschitz * a.signum() * s
        };
    }
}

impl RecordEnvelope for CoordAbs {
    fn record_envelope_gradient(&self, i: usize, beta: f64, w: &[f64], out: &mut [f64]) {
        let (j, s, a) = self.residual(i, w);
        out.iter_mut().for_each(|o| *o = 0.0);
        out[j] = (beta * a).clamp(-self.lipschitz, self.lipschitz) * s;
    }
    fn envelope_value(&self, beta: f64, w: &[f64]) -> f64 {
        let l = self.lipschitz;
        let total: f64 = (0..self.records.len())
            .map(|i| {
                let a = self.residual(i, w).2.abs();
                if a <= l / beta {
                    0.5 * beta * a * a
                } else {
                    l * a - l * l / (2.0 * beta)
                }
            })
            .sum();
        total / self.records.len() as f64
    }
}

impl Objective for CoordAbs {
    fn dim(&self) -> usize {
        self.d
    }
    fn num_records(&self) -> usize {
        self.records.len()
    }
    fn value(&self, w: &[f64]) -> f64 {
        let total: f64 = (0..self.records.len())
            .map(|i| self.residual(i, w).2.abs())
            .sum();
        self.lipschitz * total / self.records.len() as f64
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let mut g = vec![0.0; self.d];
        out.iter_mut().for_each(|o| *o = 0.0);
        for i in 0..self.records.len() {
            self.record_gradient(i, w, &mut g);
            out.iter_mut()
                .zip(&g)
                .for_each(|(o, v)| *o += v / self.records.len() as f64);
        }
    }
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: self.lipschitz,
            smoothness: f64::INFINITY,
            strong_convexity: 0.0,
            radius: self.radius,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.minimizer
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.value(w) - self.value(&self.minimizer)
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: f64::INFINITY,
            paper: f64::INFINITY,
        }
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
    fn envelope(&self) -> Option<&dyn RecordEnvelope> {
        Some(self)
    }
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        let (tau, r) = (self.tau(), self.r);
        let total: f64 = (0..self.d)
            .map(|j| {
                let p = self.rho[j] * r;
                (1.0 + p) * (w[j] - tau).abs() + (1.0 - p) * (w[j] + tau).abs()
                    - 2.0 * (1.0 - r) * tau
            })
            .sum();
        Some(self.lipschitz * total / (2.0 * self.d as f64))
    }
}
