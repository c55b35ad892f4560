//! The SCO diagonal quadratic of Lowy–Razaviyayn digest §8 E3 (Prop 4.1/4.2):
//! an `H_{beta, mu, L, R}` instance with a closed-form population loss.
//!
//! `f(w, x) = 1/2 (w - x)^T H (w - x)` with `H` as in the E1 family
//! ([`DiagonalQuadraticParams::hessian_diagonal`]) and `x` uniform in the ball
//! `B(m, r0)`, `m = center e_1`, `center + r0 <= 1` (so every record lies in
//! the unit ball). Population: `F(w, D) - min F(., D) = 1/2 (w - m)^T H (w - m)`,
//! `Sigma = Cov(x) = r0^2/(d+2) I`.

use crate::geometry::fill_unit_ball;
use crate::numerics::{column_means, norm2};
use crate::quadratic::{diagonal_gradient, half_diagonal_norm, DiagonalQuadraticParams};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Default first coordinate of the population mean `m = center e_1` (digest §8 E3).
pub const DEFAULT_CENTER: f64 = 0.3;
/// Default radius `r0` of the data ball (digest §8 E3).
pub const DEFAULT_RADIUS: f64 = 0.5;

/// Parameters of one SCO-quadratic instance (digest §8 E3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoQuadraticParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Smoothness `beta > 0` (largest Hessian eigenvalue).
    pub beta: f64,
    /// Condition number `kappa = beta / mu >= 1`.
    pub kappa: f64,
    /// `m = center e_1`, `center >= 0`.
    pub center: f64,
    /// Radius `r0 > 0` of the data ball `B(m, r0)`.
    pub r0: f64,
}

impl ScoQuadraticParams {
    /// Defaults `center = 0.3`, `r0 = 0.5`.
    pub fn new(n: usize, d: usize, beta: f64, kappa: f64) -> Self {
        Self {
            n,
            d,
            beta,
            kappa,
            center: DEFAULT_CENTER,
            r0: DEFAULT_RADIUS,
        }
    }

    fn hessian_params(&self) -> DiagonalQuadraticParams {
        DiagonalQuadraticParams {
            n: self.n,
            d: self.d,
            beta: self.beta,
            kappa: self.kappa,
        }
    }

    /// Checks the E1 conditions (`n, d >= 1`, `beta > 0`, `kappa >= 1`) and
    /// `center >= 0`, `r0 > 0`, `center + r0 <= 1` (data in the unit ball, so
    /// `R = 1` and `L = 2 beta` hold, digest P4).
    pub fn validate(&self) -> Result<(), String> {
        self.hessian_params().validate()?;
        if !(self.center.is_finite() && self.center >= 0.0) {
            return Err(format!(
                "center must be finite and >= 0, got {}",
                self.center
            ));
        }
        if !(self.r0.is_finite() && self.r0 > 0.0) {
            return Err(format!("r0 must be finite and > 0, got {}", self.r0));
        }
        if self.center + self.r0 > 1.0 {
            return Err(format!(
                "center + r0 must be <= 1, got {} + {}",
                self.center, self.r0
            ));
        }
        Ok(())
    }
}

/// A sampled SCO-quadratic instance with its exact empirical minimizer `x_bar`.
#[derive(Debug, Clone)]
pub struct ScoQuadratic {
    params: ScoQuadraticParams,
    h: Vec<f64>,
    /// Row-major `n x d` data.
    data: Vec<f64>,
    mean: Vec<f64>,
    /// Population minimizer `m = center e_1`.
    m: Vec<f64>,
}

impl ScoQuadratic {
    /// Samples `x_i = m + r0 u_i`, `u_i` uniform in the unit ball, and the
    /// sample mean with compensated sums. A record whose computed norm exceeds
    /// 1 by rounding (possible only when `center + r0 = 1`) is rescaled onto
    /// the unit sphere.
    ///
    /// # Errors
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(
        params: ScoQuadraticParams,
        rng: &mut R,
    ) -> Result<Self, String> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        let mut m = vec![0.0; d];
        m[0] = params.center;
        // Each record is drawn into its own slice of one buffer: a vector per
        // record made allocation about 40% of a cell at n = 1e6, d = 2
        // (perf, 2026-11-30). The same draws and arithmetic, bit for bit.
        let mut data = vec![0.0; n * d];
        for x in data.chunks_exact_mut(d) {
            fill_unit_ball(x, rng);
            for (v, mj) in x.iter_mut().zip(&m) {
                *v = mj + params.r0 * *v;
            }
            let nx = norm2(x);
            if nx > 1.0 {
                x.iter_mut().for_each(|v| *v /= nx);
            }
        }
        let mean = column_means(&data, d);
        Ok(Self {
            params,
            h: params.hessian_params().hessian_diagonal(),
            data,
            mean,
            m,
        })
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &ScoQuadraticParams {
        &self.params
    }

    /// Hessian diagonal `h_j`.
    pub fn hessian_diagonal(&self) -> &[f64] {
        &self.h
    }

    /// Record `i`.
    pub fn record(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        &self.data[i * d..(i + 1) * d]
    }

    /// Population minimizer `m = center e_1`.
    pub fn population_minimizer(&self) -> &[f64] {
        &self.m
    }

    /// Population covariance per coordinate, `r0^2 / (d + 2)` (uniform ball of radius r0).
    pub fn population_variance(&self) -> f64 {
        self.params.r0 * self.params.r0 / (self.params.d as f64 + 2.0)
    }
}

impl Objective for ScoQuadratic {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `F(w) = (1/n) sum_i 1/2 (w - x_i)^T H (w - x_i)`, O(nd).
    fn value(&self, w: &[f64]) -> f64 {
        let total: f64 = self
            .data
            .chunks_exact(self.params.d)
            .map(|x| half_diagonal_norm(&self.h, w, x))
            .sum();
        total / self.params.n as f64
    }

    /// `H (w - x_bar)`.
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        diagonal_gradient(&self.h, w, &self.mean, out);
    }

    /// As E1: `L = 2 beta`, smoothness `beta`, `mu = beta/kappa`, `R = 1`
    /// (data and hence `x_bar` in the unit ball), digest §8 E1/E3.
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 2.0 * self.params.beta,
            smoothness: self.params.beta,
            strong_convexity: self.params.beta / self.params.kappa,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.mean
    }

    /// `1/2 (w - x_bar)^T H (w - x_bar)`, exact (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        half_diagonal_norm(&self.h, w, &self.mean)
    }

    /// Tight `2 r0 / n` (the data ball has diameter `2 r0`); paper `2L/(mu n)`.
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let c = self.constants();
        let n = self.params.n as f64;
        MinimizerSensitivity {
            tight: 2.0 * self.params.r0 / n,
            paper: 2.0 * c.lipschitz / (c.strong_convexity * n),
        }
    }

    /// `tr(H)`.
    fn hessian_trace(&self) -> Option<f64> {
        Some(self.h.iter().sum())
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `F(w, D) - F(m, D) = 1/2 (w - m)^T H (w - m)` (digest §8 E3; the
    /// `1/2 tr(H Sigma)` noise floor cancels).
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(half_diagonal_norm(&self.h, w, &self.m))
    }

    /// `E 1/2 (x_bar - m)^T H (x_bar - m) = tr(H Sigma)/(2n)` with
    /// `Sigma = r0^2/(d+2) I` (digest §8 E3).
    fn expected_minimizer_population_excess(&self) -> Option<f64> {
        let tr: f64 = self.h.iter().sum();
        Some(tr * self.population_variance() / (2.0 * self.params.n as f64))
    }
}

impl FiniteSum for ScoQuadratic {
    /// `H (w - x_i)`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        diagonal_gradient(&self.h, w, self.record(i), out);
    }
}
