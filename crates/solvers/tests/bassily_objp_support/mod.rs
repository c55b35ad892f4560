//! Small `dpcore::Objective` families with exact perturbed minimizers, for
//! the objective-perturbation tests (the datagen families are written
//! elsewhere): the linear loss on the ball (digest E1, "LinBall") and least
//! squares on the ball (digest E2-LS).

#![allow(dead_code, clippy::needless_range_loop)]

use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use mechanisms::noise::uniform_direction;
use rand::{Rng, RngExt};

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

pub fn project(w: &mut [f64], radius: f64) {
    let nrm = norm(w);
    if nrm > radius {
        w.iter_mut().for_each(|v| *v *= radius / nrm);
    }
}

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
