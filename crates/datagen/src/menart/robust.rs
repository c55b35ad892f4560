//! F-H (digest §4.3): Geman–McClure robust regression, the non-KL family of
//! Theorem 5, `f(w; (a, b, z)) = phi(<a, w> - b) + <z, w - w#>` with
//! `phi(r) = r^2/(1 + r^2)`.
//!
//! Deviation from the digest (which puts outliers in `b`, leaving `F*`
//! unknown): the labels are clean, `b_i = <a_i, w#>`, and the data enter also
//! through zero-sum tilts `z_i` (digest §4.2 rule 3), so `F* = 0` at `w#` is
//! known exactly while `F` stays non-convex with flat regions
//! (`phi' -> 0` as `|r| -> inf`, so no KL inequality holds globally). The
//! metric of Theorem 5 is `||grad F(w)||` (exact, via [`Objective::gradient`]);
//! the excess `(1/n) sum phi(<a_i, w - w#>)` is also exact (digest P17).
//! `a_i` uniform on the unit sphere. Global constants:
//! `|phi'| <= 3 sqrt(3)/8`, `phi'' in [-1/2, 2]`, hence
//! `L0 = 3 sqrt(3)/8 + Z`, `L1 = 2`, weak convexity `1/2`, `F0 = 1` (`phi < 1`).
//! Default start: `||w0 - w#|| = 3 sqrt(d)`, so residuals are `O(3)`, in the
//! flat part of `phi`. Oracles: the `O(n d)` defaults.

use super::common::{
    check_pos, no_sensitivity, point_at_distance, problem_constants, zero_sum_tilts,
};
use super::RecordLoss;
use crate::geometry::{push_unit_sphere, sample_unit_sphere};
use dpcore::menart::{KlConstants, KlObjective};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// `phi(r) = r^2 / (1 + r^2)`.
fn phi(r: f64) -> f64 {
    let s = r * r;
    s / (1.0 + s)
}

/// `phi'(r) = 2 r / (1 + r^2)^2`.
fn phi_prime(r: f64) -> f64 {
    let t = 1.0 + r * r;
    2.0 * r / (t * t)
}

/// Parameters of an F-H instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GemanMcClureParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// `||w0 - w#||`.
    pub start_distance: f64,
    /// Tilt radius `Z >= 0`.
    pub tilt: f64,
}

impl GemanMcClureParams {
    /// Defaults: `||w0 - w#|| = 3 sqrt(d)`, `Z = 0.1`.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            start_distance: 3.0 * (d as f64).sqrt(),
            tilt: 0.1,
        }
    }
}

/// An F-H instance (module docs).
#[derive(Debug, Clone)]
pub struct GemanMcClure {
    params: GemanMcClureParams,
    a: Vec<f64>,
    tilts: Option<Vec<f64>>,
    truth: Vec<f64>,
    start: Vec<f64>,
}

impl GemanMcClure {
    /// Samples the design, tilts, `w#` and `w0`.
    ///
    /// # Panics
    /// On invalid parameters.
    pub fn new<R: Rng + ?Sized>(params: GemanMcClureParams, rng: &mut R) -> Self {
        let (n, d) = (params.n, params.d);
        assert!(n >= 1 && d >= 1, "n, d must be >= 1");
        check_pos("start_distance", params.start_distance);
        assert!(params.tilt >= 0.0, "tilt must be >= 0");
        let truth = sample_unit_sphere(d, rng);
        let start = point_at_distance(&truth, params.start_distance, rng);
        let mut a = Vec::with_capacity(n * d);
        for _ in 0..n {
            push_unit_sphere(&mut a, d, rng);
        }
        let tilts = (params.tilt > 0.0).then(|| zero_sum_tilts(n, d, params.tilt, rng).0);
        Self {
            params,
            a,
            tilts,
            truth,
            start,
        }
    }

    fn residual(&self, i: usize, w: &[f64]) -> f64 {
        let d = self.params.d;
        self.a[i * d..(i + 1) * d]
            .iter()
            .zip(w.iter().zip(&self.truth))
            .map(|(a, (u, v))| a * (u - v))
            .sum()
    }
}

impl Objective for GemanMcClure {
    fn dim(&self) -> usize {
        self.params.d
    }
    fn num_records(&self) -> usize {
        self.params.n
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.excess_risk(w)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let (n, d) = (self.params.n, self.params.d);
        out.iter_mut().for_each(|o| *o = 0.0);
        for i in 0..n {
            let s = phi_prime(self.residual(i, w)) / n as f64;
            out.iter_mut()
                .zip(&self.a[i * d..(i + 1) * d])
                .for_each(|(o, a)| *o += s * a);
        }
    }
    fn constants(&self) -> ProblemConstants {
        problem_constants(&self.kl_constants())
    }
    fn minimizer(&self) -> &[f64] {
        &self.truth
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        (0..self.params.n)
            .map(|i| phi(self.residual(i, w)))
            .sum::<f64>()
            / self.params.n as f64
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for GemanMcClure {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        let d = self.params.d;
        let tilt = match &self.tilts {
            Some(z) => z[i * d..(i + 1) * d]
                .iter()
                .zip(w.iter().zip(&self.truth))
                .map(|(t, (a, c))| t * (a - c))
                .sum::<f64>(),
            None => 0.0,
        };
        phi(self.residual(i, w)) + tilt
    }
}

impl FiniteSum for GemanMcClure {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let d = self.params.d;
        let s = phi_prime(self.residual(i, w));
        let ai = &self.a[i * d..(i + 1) * d];
        match &self.tilts {
            Some(z) => out
                .iter_mut()
                .zip(ai.iter().zip(&z[i * d..(i + 1) * d]))
                .for_each(|(o, (a, t))| *o = s * a + t),
            None => out.iter_mut().zip(ai).for_each(|(o, a)| *o = s * a),
        }
    }
}

impl KlObjective for GemanMcClure {
    fn kl_constants(&self) -> KlConstants {
        KlConstants {
            kl: None,
            lipschitz: 3.0 * 3f64.sqrt() / 8.0 + self.params.tilt,
            smoothness: 2.0,
            weak_convexity: 0.5,
            region_radius: f64::INFINITY,
            initial_gap: 1.0,
        }
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.start
    }
}
