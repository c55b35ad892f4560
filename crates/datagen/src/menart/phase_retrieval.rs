//! F-G (digest §4.3): phase retrieval `f(w; (a, y)) = 1/4 (<a, w>^2 - y)^2`,
//! `y = <a, w#>^2`, non-convex with `F* = 0` at `+-w#` and a stationary point
//! at `0`, so KL holds only locally (no certified `gamma`: estimate it on the
//! valley with [`super::kl_check`]).
//!
//! `a_i` uniform on the unit sphere, `||w#|| = 1`, `w0 = w# + R0 u`. The
//! reference minimizer is the one of `+-w#` closest to `w0` (digest P16). The
//! excess is `(1/4n) sum (<a_i, w - w#> <a_i, w + w#>)^2` (factorised
//! residuals, digest P17). Constants on `B_B(w0)`, `B = margin R0`, with
//! `W = ||w0|| + B`: `L0 = (W^2 + 1) W`, `L1 = max(3 W^2, 1)`, weak convexity
//! `1` (the record Hessian is `(3 <a,w>^2 - y) a a^T >= -I`),
//! `F0 = max(||w0||^2, 1)^2 / 4`. Oracles: the `O(n d)` defaults.

use super::common::{check_pos, no_sensitivity, point_at_distance, problem_constants};
use super::RecordLoss;
use crate::geometry::{push_unit_sphere, sample_unit_sphere};
use crate::numerics::{dist, dot, norm2};
use dpcore::menart::{KlConstants, KlObjective};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of an F-G instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseRetrievalParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Start distance `R0` from `w#` (local regime: below 1).
    pub start_distance: f64,
    /// Region radius factor, `B = margin R0`.
    pub margin: f64,
}

impl PhaseRetrievalParams {
    /// Defaults `R0 = 0.3`, margin 1.5.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            start_distance: 0.3,
            margin: 1.5,
        }
    }
}

/// An F-G instance (module docs).
#[derive(Debug, Clone)]
pub struct PhaseRetrieval {
    params: PhaseRetrievalParams,
    a: Vec<f64>,
    reference: Vec<f64>,
    start: Vec<f64>,
}

impl PhaseRetrieval {
    /// Samples the design, `w#` and `w0`.
    ///
    /// # Panics
    /// On invalid parameters.
    pub fn new<R: Rng + ?Sized>(params: PhaseRetrievalParams, rng: &mut R) -> Self {
        assert!(params.n >= 1 && params.d >= 1, "n, d must be >= 1");
        check_pos("start_distance", params.start_distance);
        assert!(params.margin >= 1.0, "margin must be >= 1");
        let truth = sample_unit_sphere(params.d, rng);
        let start = point_at_distance(&truth, params.start_distance, rng);
        let mut a = Vec::with_capacity(params.n * params.d);
        for _ in 0..params.n {
            push_unit_sphere(&mut a, params.d, rng);
        }
        let neg: Vec<f64> = truth.iter().map(|v| -v).collect();
        let reference = if dist(&start, &neg) < dist(&start, &truth) {
            neg
        } else {
            truth
        };
        Self {
            params,
            a,
            reference,
            start,
        }
    }

    /// `(<a_i, w - w#>, <a_i, w + w#>)` for the reference `w#`.
    fn factors(&self, i: usize, w: &[f64]) -> (f64, f64, &[f64]) {
        let d = self.params.d;
        let ai = &self.a[i * d..(i + 1) * d];
        let (mut m, mut p) = (0.0, 0.0);
        for (j, &x) in ai.iter().enumerate() {
            m += x * (w[j] - self.reference[j]);
            p += x * (w[j] + self.reference[j]);
        }
        (m, p, ai)
    }
}

impl Objective for PhaseRetrieval {
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
        out.iter_mut().for_each(|o| *o = 0.0);
        let n = self.params.n as f64;
        for i in 0..self.params.n {
            let (m, p, ai) = self.factors(i, w);
            let s = m * p * dot(ai, w) / n;
            out.iter_mut().zip(ai).for_each(|(o, a)| *o += s * a);
        }
    }
    fn constants(&self) -> ProblemConstants {
        problem_constants(&self.kl_constants())
    }
    fn minimizer(&self) -> &[f64] {
        &self.reference
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        (0..self.params.n)
            .map(|i| {
                let (m, p, _) = self.factors(i, w);
                (m * p).powi(2)
            })
            .sum::<f64>()
            / (4.0 * self.params.n as f64)
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for PhaseRetrieval {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        let (m, p, _) = self.factors(i, w);
        0.25 * (m * p).powi(2)
    }
}

impl FiniteSum for PhaseRetrieval {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let (m, p, ai) = self.factors(i, w);
        let s = m * p * dot(ai, w);
        out.iter_mut().zip(ai).for_each(|(o, a)| *o = s * a);
    }
}

impl KlObjective for PhaseRetrieval {
    fn kl_constants(&self) -> KlConstants {
        let b = self.params.margin * self.params.start_distance;
        let big_w = norm2(&self.start) + b;
        let w0 = norm2(&self.start);
        KlConstants {
            kl: None,
            lipschitz: (big_w * big_w + 1.0) * big_w,
            smoothness: (3.0 * big_w * big_w).max(1.0),
            weak_convexity: 1.0,
            region_radius: b,
            initial_gap: 0.25 * (w0 * w0).max(1.0).powi(2),
        }
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.start
    }
}
