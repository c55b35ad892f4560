//! F-A (digest §4.3): mean estimation, `f(w; x) = 1/2 ||w - x||^2`, the PL
//! (`kappa = 2`) hard instance of Theorem 7.
//!
//! `F(w) = 1/2 ||w - xbar||^2 + F*`, `F* = (1/2n) sum ||x_i - xbar||^2`, excess
//! `1/2 ||w - xbar||^2` (computed this way, digest P17), and the KL inequality
//! holds with **equality** for `gamma = 1/sqrt 2`. Data: `x_i = m + s u_i`,
//! `||m|| = R0` (random direction), `u_i` uniform in the unit ball, so
//! `||x_i|| <= R_x = R0 + s`; start `w0 = 0`. Public constants on `B_B(0)`,
//! `B = margin R_x`: `L0 = B + R_x`, `L1 = 1`, `F0 = R_x^2 / 2`
//! (`1/2 (||w0|| + R_x)^2`, digest P7).
//!
//! With `s = 0` every record equals `m`: the data set is virtual (nothing
//! stored, `F* = 0`), so `n` is only a count and any `n` is free.
//!
//! Oracles are `O(d)`: full gradients while `||w - xbar|| + max_i ||x_i - xbar|| <= C`
//! (clipping provably inactive), and differences always (every record's
//! difference is `w_new - w_old`).

use super::common::{check_pos, clip_shared, no_sensitivity};
use super::RecordLoss;
use crate::geometry::{sample_unit_ball, sample_unit_sphere};
use crate::numerics::{column_means, dist, norm2};
use dpcore::menart::{clipped_mean_by_records, KlConstants, KlObjective, KlParameters};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of an F-A instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanEstimationParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Norm `R0 > 0` of the data centre `m` (the start is `0`).
    pub start_distance: f64,
    /// Spread `s >= 0` of the records around `m`.
    pub spread: f64,
    /// Region radius factor: `B = margin R_x`.
    pub margin: f64,
}

impl MeanEstimationParams {
    /// Defaults: `R0 = 1`, spread 0.5, margin 1.5.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            start_distance: 1.0,
            spread: 0.5,
            margin: 1.5,
        }
    }

    /// The public data radius `R_x = R0 + s`.
    pub fn data_radius(&self) -> f64 {
        self.start_distance + self.spread
    }
}

/// An F-A instance (module docs).
#[derive(Debug, Clone)]
pub struct MeanEstimation {
    params: MeanEstimationParams,
    /// Row-major records; `None` for the virtual (`s = 0`) data set.
    points: Option<Vec<f64>>,
    mean: Vec<f64>,
    max_deviation: f64,
    min_value: f64,
    start: Vec<f64>,
}

impl MeanEstimation {
    /// Samples the records (module docs).
    ///
    /// # Panics
    /// On `n == 0`, `d == 0`, `R0 <= 0`, `s < 0` or `margin < 1`.
    pub fn new<R: Rng + ?Sized>(params: MeanEstimationParams, rng: &mut R) -> Self {
        let (n, d) = (params.n, params.d);
        assert!(n >= 1 && d >= 1, "n, d must be >= 1");
        check_pos("start_distance", params.start_distance);
        assert!(
            params.spread >= 0.0 && params.margin >= 1.0,
            "spread >= 0, margin >= 1"
        );
        let m: Vec<f64> = sample_unit_sphere(d, rng)
            .into_iter()
            .map(|v| params.start_distance * v)
            .collect();
        if params.spread == 0.0 {
            return Self {
                params,
                points: None,
                mean: m,
                max_deviation: 0.0,
                min_value: 0.0,
                start: vec![0.0; d],
            };
        }
        let mut points = Vec::with_capacity(n * d);
        for _ in 0..n {
            let u = sample_unit_ball(d, rng);
            points.extend(m.iter().zip(&u).map(|(a, b)| a + params.spread * b));
        }
        let mean = column_means(&points, d);
        let (mut max_deviation, mut sq): (f64, f64) = (0.0, 0.0);
        for x in points.chunks(d) {
            let dev = dist(x, &mean);
            max_deviation = max_deviation.max(dev);
            sq += dev * dev;
        }
        Self {
            params,
            points: Some(points),
            mean,
            max_deviation,
            min_value: 0.5 * sq / n as f64,
            start: vec![0.0; d],
        }
    }

    /// The parameters.
    pub fn params(&self) -> &MeanEstimationParams {
        &self.params
    }

    /// Record `i` (the shared centre `m` for the virtual data set).
    fn record(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        match &self.points {
            Some(p) => &p[i * d..(i + 1) * d],
            None => &self.mean,
        }
    }

    /// `F* = (1/2n) sum ||x_i - xbar||^2`.
    pub fn min_value(&self) -> f64 {
        self.min_value
    }
}

impl Objective for MeanEstimation {
    fn dim(&self) -> usize {
        self.params.d
    }
    fn num_records(&self) -> usize {
        self.params.n
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.excess_risk(w) + self.min_value
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        out.iter_mut()
            .zip(w.iter().zip(&self.mean))
            .for_each(|(o, (a, m))| *o = a - m);
    }
    fn constants(&self) -> ProblemConstants {
        let k = self.kl_constants();
        ProblemConstants {
            lipschitz: k.lipschitz,
            smoothness: 1.0,
            strong_convexity: 1.0,
            radius: k.region_radius,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.mean
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let r = dist(w, &self.mean);
        0.5 * r * r
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn hessian_trace(&self) -> Option<f64> {
        Some(self.params.d as f64)
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for MeanEstimation {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        let r = dist(w, self.record(i));
        0.5 * r * r
    }
}

impl FiniteSum for MeanEstimation {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        out.iter_mut()
            .zip(w.iter().zip(self.record(i)))
            .for_each(|(o, (a, x))| *o = a - x);
    }
}

impl KlObjective for MeanEstimation {
    fn kl_constants(&self) -> KlConstants {
        let rx = self.params.data_radius();
        let b = self.params.margin * rx;
        KlConstants {
            kl: Some(KlParameters {
                gamma: std::f64::consts::FRAC_1_SQRT_2,
                kappa: 2.0,
            }),
            lipschitz: b + rx,
            smoothness: 1.0,
            weak_convexity: 0.0,
            region_radius: b,
            initial_gap: 0.5 * rx * rx,
        }
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.start
    }
    fn clipped_mean_gradient(&self, w: &[f64], clip: f64, out: &mut [f64]) -> usize {
        self.gradient(w, out);
        if norm2(out) + self.max_deviation <= clip {
            0
        } else if self.points.is_none() {
            clip_shared(out, clip, self.params.n)
        } else {
            clipped_mean_by_records(self, self.params.n, w, clip, out)
        }
    }
    fn clipped_mean_gradient_difference(
        &self,
        w_new: &[f64],
        w_old: &[f64],
        clip: f64,
        out: &mut [f64],
    ) -> usize {
        out.iter_mut()
            .zip(w_new.iter().zip(w_old))
            .for_each(|(o, (a, b))| *o = a - b);
        clip_shared(out, clip, self.params.n)
    }
}
