//! Digest E2-LS, least squares on the ball.

use super::{dot, norm};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use mechanisms::noise::uniform_direction;
use rand::{Rng, RngExt};

/// Digest E2-LS: `l = (<w, x> - y)^2/2` on `B(0, M)`, `x` uniform on the unit
/// sphere, `y = <theta, x> + xi`, `xi ~ U[-noise, noise]`; `L = M + ||theta||
/// + noise`, `beta = 1`, population excess `||w - theta||^2/(2d)`.
pub struct LeastSquaresBall {
    pub x: Vec<Vec<f64>>,
    pub y: Vec<f64>,
    pub theta: Vec<f64>,
    pub noise: f64,
    pub radius: f64,
    /// `X^T X / n` (row-major `d x d`) and `X^T y / n`.
    pub gram: Vec<f64>,
    pub xty: Vec<f64>,
    minimizer: Vec<f64>,
}

impl LeastSquaresBall {
    pub fn generate<R: Rng + ?Sized>(
        n: usize,
        theta: Vec<f64>,
        noise: f64,
        radius: f64,
        rng: &mut R,
    ) -> Self {
        let d = theta.len();
        let x: Vec<Vec<f64>> = (0..n).map(|_| uniform_direction(d, rng)).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|xi| dot(xi, &theta) + noise * (2.0 * rng.random::<f64>() - 1.0))
            .collect();
        let mut gram = vec![0.0; d * d];
        let mut xty = vec![0.0; d];
        for (xi, yi) in x.iter().zip(&y) {
            for j in 0..d {
                xty[j] += xi[j] * yi / n as f64;
                for k in 0..d {
                    gram[j * d + k] += xi[j] * xi[k] / n as f64;
                }
            }
        }
        let mut ls = Self {
            x,
            y,
            theta,
            noise,
            radius,
            gram,
            xty,
            minimizer: Vec::new(),
        };
        ls.minimizer = ls.constrained_solve(&vec![0.0; d], 0.0);
        ls
    }

    /// `argmin_{||w|| <= M} F(w) + <b, w> + lambda ||w||^2`: the KKT system
    /// `(gram + 2 (lambda + nu) I) w = xty - b` with `nu >= 0`, `nu = 0`
    /// if that solution is inside the ball, else bisection on
    /// `||w(nu)|| = M` (decreasing in `nu`) to the last bit.
    pub fn constrained_solve(&self, b: &[f64], lambda: f64) -> Vec<f64> {
        let rhs: Vec<f64> = self.xty.iter().zip(b).map(|(a, bj)| a - bj).collect();
        let inside = self.solve_shifted(&rhs, 2.0 * lambda);
        if norm(&inside) <= self.radius {
            return inside;
        }
        let (mut lo, mut hi) = (0.0, norm(&rhs) / (2.0 * self.radius) + 1.0);
        for _ in 0..400 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if norm(&self.solve_shifted(&rhs, 2.0 * (lambda + mid))) > self.radius {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        self.solve_shifted(&rhs, 2.0 * (lambda + hi))
    }

    /// Solves `(gram + shift I) w = rhs` by Cholesky.
    fn solve_shifted(&self, rhs: &[f64], shift: f64) -> Vec<f64> {
        let d = rhs.len();
        let mut a = self.gram.clone();
        (0..d).for_each(|j| a[j * d + j] += shift);
        let mut l = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..=i {
                let s: f64 =
                    a[i * d + j] - (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum::<f64>();
                l[i * d + j] = if i == j { s.sqrt() } else { s / l[j * d + j] };
            }
        }
        let mut z = vec![0.0; d];
        for i in 0..d {
            z[i] = (rhs[i] - (0..i).map(|k| l[i * d + k] * z[k]).sum::<f64>()) / l[i * d + i];
        }
        let mut w = vec![0.0; d];
        for i in (0..d).rev() {
            w[i] = (z[i] - (i + 1..d).map(|k| l[k * d + i] * w[k]).sum::<f64>()) / l[i * d + i];
        }
        w
    }
}

impl FiniteSum for LeastSquaresBall {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let r = dot(w, &self.x[i]) - self.y[i];
        out.iter_mut()
            .zip(&self.x[i])
            .for_each(|(o, xj)| *o = r * xj);
    }
}

impl Objective for LeastSquaresBall {
    fn dim(&self) -> usize {
        self.theta.len()
    }
    fn num_records(&self) -> usize {
        self.x.len()
    }
    fn value(&self, w: &[f64]) -> f64 {
        let n = self.x.len() as f64;
        self.x
            .iter()
            .zip(&self.y)
            .map(|(xi, yi)| 0.5 * (dot(w, xi) - yi).powi(2))
            .sum::<f64>()
            / n
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let d = w.len();
        for j in 0..d {
            out[j] = (0..d).map(|k| self.gram[j * d + k] * w[k]).sum::<f64>() - self.xty[j];
        }
    }
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: self.radius + norm(&self.theta) + self.noise,
            smoothness: 1.0,
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
        let diff: Vec<f64> = w.iter().zip(&self.theta).map(|(a, b)| a - b).collect();
        Some(dot(&diff, &diff) / (2.0 * w.len() as f64))
    }
    fn perturbed_minimizer(&self, b: &[f64], lambda: f64) -> Option<Vec<f64>> {
        Some(self.constrained_solve(b, lambda))
    }
}
