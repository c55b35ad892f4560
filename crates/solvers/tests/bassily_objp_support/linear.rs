//! Digest E1, the linear loss on the ball ("LinBall").

use super::{dot, norm, project};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use mechanisms::noise::uniform_direction;
use rand::Rng;

/// Digest E1: `l(w, z) = -L <w, z>` on `B(0, M)` with
/// `z = r e_1 + (1 - r) u`, `u` uniform on the sphere; population
/// excess `L r (M - w_1)`.
pub struct LinearBall {
    pub z: Vec<Vec<f64>>,
    pub zbar: Vec<f64>,
    pub lipschitz: f64,
    pub radius: f64,
    pub signal: f64,
    /// The `beta` reported in `constants()` (0 is the truth; larger values
    /// are valid upper bounds, used to trigger the smoothness refusal).
    pub claimed_smoothness: f64,
    /// Whether `perturbed_minimizer` answers (false: as a family without
    /// a closed form).
    pub exact: bool,
    minimizer: Vec<f64>,
}

impl LinearBall {
    pub fn generate<R: Rng + ?Sized>(
        n: usize,
        d: usize,
        signal: f64,
        lipschitz: f64,
        radius: f64,
        rng: &mut R,
    ) -> Self {
        let z: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                let mut u = uniform_direction(d, rng);
                u.iter_mut().for_each(|v| *v *= 1.0 - signal);
                u[0] += signal;
                u
            })
            .collect();
        let mut zbar = vec![0.0; d];
        for zi in &z {
            zbar.iter_mut()
                .zip(zi)
                .for_each(|(a, b)| *a += b / n as f64);
        }
        let nz = norm(&zbar);
        let minimizer = zbar.iter().map(|v| radius * v / nz).collect();
        Self {
            z,
            zbar,
            lipschitz,
            radius,
            signal,
            claimed_smoothness: 0.0,
            exact: true,
            minimizer,
        }
    }

    /// Empirical excess `L (M ||zbar|| - <w, zbar>)`.
    pub fn empirical_excess(&self, w: &[f64]) -> f64 {
        self.lipschitz * (self.radius * norm(&self.zbar) - dot(w, &self.zbar))
    }
}

impl FiniteSum for LinearBall {
    fn record_gradient(&self, i: usize, _w: &[f64], out: &mut [f64]) {
        out.iter_mut()
            .zip(&self.z[i])
            .for_each(|(o, z)| *o = -self.lipschitz * z);
    }
}

impl Objective for LinearBall {
    fn dim(&self) -> usize {
        self.zbar.len()
    }
    fn num_records(&self) -> usize {
        self.z.len()
    }
    fn value(&self, w: &[f64]) -> f64 {
        -self.lipschitz * dot(w, &self.zbar)
    }
    fn gradient(&self, _w: &[f64], out: &mut [f64]) {
        out.iter_mut()
            .zip(&self.zbar)
            .for_each(|(o, z)| *o = -self.lipschitz * z);
    }
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: self.lipschitz,
            smoothness: self.claimed_smoothness,
            strong_convexity: 0.0,
            radius: self.radius,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.minimizer
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.empirical_excess(w)
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let diameter = 2.0 * self.radius;
        MinimizerSensitivity {
            tight: diameter,
            paper: diameter,
        }
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(self.lipschitz * self.signal * (self.radius - w[0]))
    }
    /// `Proj_{B(0,M)}((L zbar - b)/(2 lambda))`: the objective
    /// `lambda ||w - c||^2 + const` with `c = (L zbar - b)/(2 lambda)` is
    /// isotropic, so its ball-constrained minimizer is the projection of `c`.
    fn perturbed_minimizer(&self, b: &[f64], lambda: f64) -> Option<Vec<f64>> {
        if !self.exact {
            return None;
        }
        let mut w: Vec<f64> = self
            .zbar
            .iter()
            .zip(b)
            .map(|(z, bj)| (self.lipschitz * z - bj) / (2.0 * lambda))
            .collect();
        project(&mut w, self.radius);
        Some(w)
    }
}
