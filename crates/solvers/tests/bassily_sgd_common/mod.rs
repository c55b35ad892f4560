//! Test objectives for the Bassily et al. SGD tests (digest §6): the linear
//! loss on the ball (E1, "LinBall") and the coordinate absolute-deviation
//! loss (E3) with its closed-form unconstrained Moreau envelope (§5.3).
#![allow(dead_code)]

mod coord_abs;
#[allow(unused_imports)]
pub use coord_abs::CoordAbs;

use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use mechanisms::noise::uniform_direction;
use rand::Rng;
use solvers::bassily::sgd::bounds::CurvePoint;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Euclidean distance between two points.
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The E3 setting the inexact-prox tests share: `n = 40`, `d = 2`, `r = 0.3`,
/// `rho = (1, -1)` drawn from seed 13, with A_ProxGD's plan at
/// `(eps, delta) = (1, 5e-4)` (the smallest `n` and `eps n` Fact 4.6's
/// `beta_env >= L/M` admits with room: `n >= 16`).
pub fn e3_prox_setting() -> (CoordAbs, solvers::bassily::sgd::NsgdPlan) {
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(13);
    let obj = CoordAbs::sample(40, 2, 0.3, vec![1.0, -1.0], &mut rng);
    let plan = solvers::bassily::sgd::Nsgd {
        variant: solvers::bassily::sgd::NsgdVariant::ProxGd,
        ..solvers::bassily::sgd::Nsgd::default()
    }
    .plan(&obj, dpcore::PrivacyParams::approx(1.0, 5e-4))
    .unwrap();
    (obj, plan)
}

/// E1: `z_i = r e_1 + (1 - r) u_i`, `u_i ~ Unif(S^{d-1})`, loss `-L <w, z>` on
/// `B(0, M)`; population excess `L r (M - w_1)`.
pub struct LinBall {
    pub records: Vec<Vec<f64>>,
    pub mean: Vec<f64>,
    pub minimizer: Vec<f64>,
    pub r: f64,
    pub lipschitz: f64,
    pub radius: f64,
}

impl LinBall {
    pub fn sample<R: Rng + ?Sized>(n: usize, d: usize, r: f64, rng: &mut R) -> Self {
        let records: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                let u = uniform_direction(d, rng);
                let mut z: Vec<f64> = u.iter().map(|v| (1.0 - r) * v).collect();
                z[0] += r;
                z
            })
            .collect();
        Self::from_records(records, r)
    }

    pub fn from_records(records: Vec<Vec<f64>>, r: f64) -> Self {
        let (n, d) = (records.len(), records[0].len());
        let mean: Vec<f64> = (0..d)
            .map(|j| records.iter().map(|z| z[j]).sum::<f64>() / n as f64)
            .collect();
        let norm = dot(&mean, &mean).sqrt();
        let minimizer = mean.iter().map(|v| v / norm).collect();
        Self {
            records,
            mean,
            minimizer,
            r,
            lipschitz: 1.0,
            radius: 1.0,
        }
    }
}

impl FiniteSum for LinBall {
    fn record_gradient(&self, i: usize, _w: &[f64], out: &mut [f64]) {
        out.iter_mut()
            .zip(&self.records[i])
            .for_each(|(o, z)| *o = -self.lipschitz * z);
    }
}

impl Objective for LinBall {
    fn dim(&self) -> usize {
        self.mean.len()
    }
    fn num_records(&self) -> usize {
        self.records.len()
    }
    fn value(&self, w: &[f64]) -> f64 {
        -self.lipschitz * dot(w, &self.mean)
    }
    fn gradient(&self, _w: &[f64], out: &mut [f64]) {
        out.iter_mut()
            .zip(&self.mean)
            .for_each(|(o, z)| *o = -self.lipschitz * z);
    }
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: self.lipschitz,
            smoothness: 0.0,
            strong_convexity: 0.0,
            radius: self.radius,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.minimizer
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.lipschitz * (self.radius * dot(&self.mean, &self.mean).sqrt() - dot(w, &self.mean))
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
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(self.lipschitz * self.r * (self.radius - w[0]))
    }
}

/// One-sided z quantile for a false-alarm rate of 1e-6 (normal approximation
/// of a mean of bounded i.i.d. excesses).
pub const Z_1E6: f64 = 4.753;

pub fn mean_and_se(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

pub fn point(n: usize, d: usize, eps: f64, delta: f64) -> CurvePoint {
    CurvePoint {
        n: n as f64,
        d: d as f64,
        eps,
        delta,
        radius: 1.0,
        lipschitz: 1.0,
    }
}
