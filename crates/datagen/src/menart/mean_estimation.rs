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

    /// The public constants (module docs), a function of the parameters
    /// alone: the instance reports these, and `runner plan` derives
    /// Algorithm 1's round count from them without drawing data.
    pub fn kl_constants(&self) -> KlConstants {
        let rx = self.data_radius();
        let b = self.margin * rx;
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
        Self::with_points(params, points)
    }

    /// The instance on explicit records (row-major, `n x d`), e.g. an audit's
    /// neighbouring pair. The records may lie anywhere, also outside the
    /// ball of radius `R_x` the public constants describe: every oracle
    /// clips per record, so the privacy of an algorithm never rests on the
    /// records' norms, and a privacy audit places its canary where the clip
    /// binds. The constants (`L0`, `F0`, `gamma`) stay the parameters'
    /// public values whatever the records. With the records `new` sampled it
    /// rebuilds that instance bit for bit.
    pub fn from_records(params: MeanEstimationParams, points: Vec<f64>) -> Result<Self, String> {
        let (n, d) = (params.n, params.d);
        if n == 0 || d == 0 {
            return Err(format!("need n, d >= 1, got n = {n}, d = {d}"));
        }
        let valid = params.start_distance.is_finite()
            && params.start_distance > 0.0
            && params.spread.is_finite()
            && params.spread >= 0.0
            && params.margin.is_finite()
            && params.margin >= 1.0;
        if !valid {
            return Err(format!(
                "need start_distance > 0, spread >= 0, margin >= 1, got {params:?}"
            ));
        }
        if points.len() != n * d {
            return Err(format!(
                "{} coordinates for n = {n} records of dimension {d}",
                points.len()
            ));
        }
        if let Some(i) = points.iter().position(|v| !v.is_finite()) {
            return Err(format!("record {} has a non-finite coordinate", i / d));
        }
        Ok(Self::with_points(params, points))
    }

    /// The instance on stored records: their mean, largest deviation from
    /// it and `F*`.
    fn with_points(params: MeanEstimationParams, points: Vec<f64>) -> Self {
        let (n, d) = (params.n, params.d);
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

    /// The stored records, row-major (`None` for the virtual data set).
    pub fn records(&self) -> Option<&[f64]> {
        self.points.as_deref()
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
    fn record_radius(&self) -> Option<f64> {
        Some(self.params.data_radius())
    }
    fn kl_constants(&self) -> KlConstants {
        self.params.kl_constants()
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

#[cfg(test)]
mod from_records_tests {
    use super::*;
    use rand::SeedableRng;

    /// With a sampled instance's own records, `from_records` rebuilds it bit
    /// for bit; records outside the `R_x` ball are accepted (the oracles
    /// clip), a wrong length or a non-finite coordinate is refused.
    #[test]
    fn from_records_rebuilds_new_and_clips_far_records() {
        let params = MeanEstimationParams::new(5, 2);
        let q = MeanEstimation::new(params, &mut rand_pcg::Pcg64::seed_from_u64(7));
        let r = MeanEstimation::from_records(params, q.records().unwrap().to_vec()).unwrap();
        assert_eq!(r.minimizer(), q.minimizer());
        assert_eq!(r.min_value().to_bits(), q.min_value().to_bits());
        let w = [0.3, -0.1];
        assert_eq!(r.value(&w).to_bits(), q.value(&w).to_bits());
        // A record at distance 1e3 is clipped to norm L0 in the oracle: with
        // the other four at the origin, the clipped mean gradient at w = 0 is
        // (0 + 0 + 0 + 0 - L0 e1)/5.
        let mut far = vec![0.0; 10];
        far[0] = 1e3;
        let f = MeanEstimation::from_records(params, far).unwrap();
        let l0 = f.kl_constants().lipschitz;
        let mut g = [0.0; 2];
        let clipped = f.clipped_mean_gradient(&[0.0, 0.0], l0, &mut g);
        assert_eq!(clipped, 1);
        assert!((g[0] + l0 / 5.0).abs() < 1e-12 && g[1] == 0.0, "{g:?}");
        assert!(MeanEstimation::from_records(params, vec![0.0; 9]).is_err());
        let mut bad = vec![0.0; 10];
        bad[3] = f64::NAN;
        assert!(MeanEstimation::from_records(params, bad).is_err());
    }
}
