//! "LinBall", the hard linear family of digest §6 E1 (Theorems 3.2, 5.3, 5.7).
//!
//! Data `z = r e_1 + (1 - r) u`, `u ~ Unif(S^(d-1))`, so `||z|| <= 1` and
//! `E z = r e_1`. Loss `l(w, z) = -L <w, z>` on `W = B(0, M)`: convex,
//! `L`-Lipschitz (`||grad|| = L ||z|| <= L`), Hessian `0` (so `beta_std = 0`
//! and Assumption 5.1 holds). Empirical loss `F(w) = -L <w, z_bar>`, minimized
//! over `W` at `w* = M z_bar / ||z_bar||` with `F* = -L M ||z_bar||`.
//! Population loss `-L r w_1`, minimizer `M e_1`, excess `L r (M - w_1)`.
//!
//! Objective perturbation (digest §5.2): `F + <b, w> + lambda ||w||^2` is
//! minimized over `W` at `Proj_W((L z_bar - b) / (2 lambda))`, in closed form.
//!
//! Minimizer sensitivity: `w*` is a direction, which one replaced record can
//! flip when `||z_bar||` is small, so only the diameter `2M` is valid.
//!
//! Moreau envelope (Bassily et al. §4, unconstrained over `v in R^d`): the
//! loss is linear, so `prox_{f_i/beta}(w) = w + L z_i/beta` and the
//! envelope `f_beta(w; z_i) = -L <w, z_i> - L^2 ||z_i||^2/(2 beta)` is the
//! loss shifted by a constant, with the loss's own gradient `-L z_i`. NSGD on
//! the envelope (Theorem 4.4) therefore takes A_NSGD's steps on this family:
//! the linear losses are the ones that attain the Lipschitz rate (the
//! construction of Bassily et al.'s lower bound), which is why Theorem 4.4's
//! d-rate is measured here and not only on AbsDeviation, whose excess
//! saturates as d grows (digest E3).

use super::{invalid, project_to_ball, require_positive};
use crate::geometry::push_unit_sphere;
use crate::numerics::{column_means, dist, dot, norm2};
use dpcore::{
    FiniteSum, MinimizerSensitivity, Objective, ProblemConstants, RecordEnvelope, RunFailure,
};
use rand::Rng;

const FAMILY: &str = "LinBall";

/// Parameters of one LinBall instance (digest §6 E1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinBallParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Signal `r` in `(0, 1)`: `E z = r e_1`.
    pub r: f64,
    /// Lipschitz constant `L > 0` (default 1).
    pub lipschitz: f64,
    /// Radius `M > 0` of the domain `W = B(0, M)` (default 1).
    pub radius: f64,
}

impl LinBallParams {
    /// Defaults `L = M = 1` (digest §6.0).
    pub fn new(n: usize, d: usize, r: f64) -> Self {
        Self {
            n,
            d,
            r,
            lipschitz: 1.0,
            radius: 1.0,
        }
    }

    /// Checks `n, d >= 1`, `0 < r < 1`, finite `L, M > 0`.
    pub fn validate(&self) -> Result<(), RunFailure> {
        if self.n == 0 || self.d == 0 {
            return Err(invalid(
                FAMILY,
                format!("n and d must be >= 1, got n = {}, d = {}", self.n, self.d),
            ));
        }
        if !(self.r > 0.0 && self.r < 1.0) {
            return Err(invalid(
                FAMILY,
                format!("r must lie in (0, 1), got {}", self.r),
            ));
        }
        require_positive(FAMILY, "lipschitz", self.lipschitz)?;
        require_positive(FAMILY, "radius", self.radius)
    }
}

/// A sampled LinBall data set (records stored densely, row-major `n x d`).
#[derive(Debug, Clone)]
pub struct LinBall {
    params: LinBallParams,
    data: Vec<f64>,
    mean: Vec<f64>,
    mean_norm: f64,
    w_star: Vec<f64>,
}

impl LinBall {
    /// Samples `z_i = r e_1 + (1 - r) u_i` from `rng` (a record whose computed
    /// norm exceeds 1 by rounding is rescaled onto the unit sphere, so
    /// `||z_i|| <= 1` holds exactly), and the compensated mean `z_bar`.
    ///
    /// The records go into this thread's recycled buffer when it is large
    /// enough (see [`Self::generate_into`] and the `Drop` impl): the same
    /// draws and values as into a fresh vector, without the kernel zeroing
    /// 1.31 GB of new pages per d-sweep cell at n = 2e4, d = 8 192.
    ///
    /// # Errors
    /// `InvalidParameters` when [`LinBallParams::validate`] fails.
    pub fn generate<R: Rng + ?Sized>(
        params: LinBallParams,
        rng: &mut R,
    ) -> Result<Self, RunFailure> {
        // Validated before the spare is taken: a refused request would
        // otherwise free it.
        params.validate()?;
        Self::generate_into(params, rng, crate::recycle::take(params.n * params.d))
    }

    /// [`Self::generate`] into the caller's `buffer`: only its capacity is
    /// used (it is cleared first, so its old values never reach the data);
    /// one with room for fewer than `n d` values is freed and a new
    /// [`dpcore::prefetch::huge_page_vec`] taken instead. The instance is
    /// bit for bit the one [`Self::generate`] draws from the same `rng`.
    ///
    /// # Errors
    /// `InvalidParameters` when [`LinBallParams::validate`] fails.
    pub fn generate_into<R: Rng + ?Sized>(
        params: LinBallParams,
        rng: &mut R,
        buffer: Vec<f64>,
    ) -> Result<Self, RunFailure> {
        params.validate()?;
        let (n, d, r) = (params.n, params.d, params.r);
        let mut data = if buffer.capacity() >= n * d {
            buffer
        } else {
            drop(buffer);
            dpcore::prefetch::huge_page_vec(n * d)
        };
        data.clear();
        for _ in 0..n {
            let z = push_unit_sphere(&mut data, d, rng);
            z.iter_mut().for_each(|v| *v *= 1.0 - r);
            z[0] += r;
            let nz = norm2(z);
            if nz > 1.0 {
                z.iter_mut().for_each(|v| *v /= nz);
            }
        }
        Ok(Self::with_data(params, data))
    }

    /// The instance with the caller's records (row-major `n x d`, each of
    /// norm at most 1, the data universe `L` holds on): the neighbouring
    /// pairs of the privacy audit. The same arithmetic as [`Self::generate`]
    /// from the records on, so a generated instance's own records rebuild it
    /// bit for bit.
    ///
    /// # Errors
    /// `InvalidParameters` when [`LinBallParams::validate`] fails, the data
    /// do not hold `n` records of dimension `d`, or a record lies outside
    /// the unit ball (by more than `1e-12` in squared norm, as
    /// `DiagonalQuadratic::from_records` allows).
    pub fn from_records(params: LinBallParams, data: Vec<f64>) -> Result<Self, RunFailure> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        if data.len() != n * d {
            return Err(invalid(
                FAMILY,
                format!(
                    "{} coordinates for n = {n} records of dimension {d}",
                    data.len()
                ),
            ));
        }
        if let Some(i) = data.chunks_exact(d).position(|row| {
            let squared: f64 = row.iter().map(|v| v * v).sum();
            squared.is_nan() || squared > 1.0 + 1e-12
        }) {
            return Err(invalid(
                FAMILY,
                format!("record {i} lies outside the unit ball"),
            ));
        }
        Ok(Self::with_data(params, data))
    }

    /// The mean and the empirical minimizer of `data`.
    fn with_data(params: LinBallParams, data: Vec<f64>) -> Self {
        let mean = column_means(&data, params.d);
        let mean_norm = norm2(&mean);
        let w_star = if mean_norm > 0.0 {
            mean.iter().map(|v| params.radius * v / mean_norm).collect()
        } else {
            vec![0.0; params.d]
        };
        Self {
            params,
            data,
            mean,
            mean_norm,
            w_star,
        }
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &LinBallParams {
        &self.params
    }

    /// Record `z_i`.
    pub fn record(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        &self.data[i * d..(i + 1) * d]
    }

    /// The sample mean `z_bar` (compensated sums).
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Population minimizer `M e_1`.
    pub fn population_minimizer(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.params.d];
        w[0] = self.params.radius;
        w
    }
}

/// Hands the records' memory back to this thread's spare buffer
/// (`crate::recycle`, at most one buffer per thread), so that the next
/// [`LinBall::generate`] on this thread, typically the rayon worker's next
/// cell, reuses pages already mapped instead of faulting in new ones.
impl Drop for LinBall {
    fn drop(&mut self) {
        crate::recycle::give(std::mem::take(&mut self.data));
    }
}

impl Objective for LinBall {
    // Linear loss: the Hessian is 0 (Assumption 5.1).
    fn rank_one_hessians(&self) -> bool {
        true
    }

    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `F(w) = -L <w, z_bar>`.
    fn value(&self, w: &[f64]) -> f64 {
        -self.params.lipschitz * dot(w, &self.mean)
    }

    /// `-L z_bar`.
    fn gradient(&self, _w: &[f64], out: &mut [f64]) {
        for (o, m) in out.iter_mut().zip(&self.mean) {
            *o = -self.params.lipschitz * m;
        }
    }

    /// `L`, smoothness 0 (linear), no strong convexity, radius `M`.
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: self.params.lipschitz,
            smoothness: 0.0,
            strong_convexity: 0.0,
            radius: self.params.radius,
        }
    }

    /// `M z_bar / ||z_bar||` (`0`, one of the minimizers, if `z_bar = 0`).
    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `L (M ||z_bar|| - <w, z_bar>) = L ||z_bar|| (||w - w*||^2 + M^2 - ||w||^2) / (2M)`,
    /// with `M^2 - ||w||^2 = (M - ||w||)(M + ||w||)`: both terms are `>= 0` on
    /// `W`, so nothing cancels (exact identity, valid for every `w`).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        // `||w*||` (= M up to rounding) in place of `M`, so that the identity
        // holds for the stored `w*` and the excess at `w*` is exactly 0.
        let m = norm2(&self.w_star);
        if self.mean_norm == 0.0 {
            return 0.0;
        }
        let nw = norm2(w);
        let gap = dist(w, &self.w_star).powi(2) + (m - nw) * (m + nw);
        self.params.lipschitz * self.mean_norm * gap / (2.0 * m)
    }

    /// Diameter `2M` for both (see the module docs).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let diam = 2.0 * self.params.radius;
        MinimizerSensitivity {
            tight: diam,
            paper: diam,
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `L r (M - w_1)` (digest §6 E1; the subtraction is exact near `w_1 = M`).
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(self.params.lipschitz * self.params.r * (self.params.radius - w[0]))
    }

    /// `-L r w_1`.
    fn population_loss(&self, w: &[f64]) -> Option<f64> {
        Some(-self.params.lipschitz * self.params.r * w[0])
    }

    fn envelope(&self) -> Option<&dyn RecordEnvelope> {
        Some(self)
    }

    /// `Proj_W((L z_bar - b) / (2 lambda))` for `lambda > 0`; for `lambda = 0`
    /// the linear objective is minimized at `M c / ||c||`, `c = L z_bar - b`
    /// (`0` if `c = 0`). `None` for `lambda < 0`, non-finite `lambda` or a
    /// `b` of the wrong length.
    fn perturbed_minimizer(&self, b: &[f64], lambda: f64) -> Option<Vec<f64>> {
        if b.len() != self.params.d || !(lambda.is_finite() && lambda >= 0.0) {
            return None;
        }
        let mut c: Vec<f64> = self
            .mean
            .iter()
            .zip(b)
            .map(|(m, bj)| self.params.lipschitz * m - bj)
            .collect();
        if lambda > 0.0 {
            c.iter_mut().for_each(|v| *v /= 2.0 * lambda);
            project_to_ball(&mut c, self.params.radius);
        } else {
            let nc = norm2(&c);
            if nc > 0.0 {
                c.iter_mut().for_each(|v| *v *= self.params.radius / nc);
            }
        }
        Some(c)
    }
}

impl FiniteSum for LinBall {
    /// `-L z_i`.
    fn record_gradient(&self, i: usize, _w: &[f64], out: &mut [f64]) {
        for (o, z) in out.iter_mut().zip(self.record(i)) {
            *o = -self.params.lipschitz * z;
        }
    }

    fn prefetch_record(&self, i: usize) {
        dpcore::prefetch::prefetch_slice(self.record(i));
    }
}

impl RecordEnvelope for LinBall {
    /// `beta (w - prox) = -L z_i`, whatever `beta` and `w` (linear loss).
    fn record_envelope_gradient(&self, i: usize, _beta: f64, w: &[f64], out: &mut [f64]) {
        self.record_gradient(i, w, out);
    }

    fn prefetch_record(&self, i: usize) {
        dpcore::prefetch::prefetch_slice(self.record(i));
    }

    /// `-L <w, z_bar> - L^2 (1/n) sum_i ||z_i||^2/(2 beta)`, O(n d): a
    /// check of the oracle, not on any run's path.
    fn envelope_value(&self, beta: f64, w: &[f64]) -> f64 {
        let l = self.params.lipschitz;
        let squares: f64 = self.data.iter().map(|v| v * v).sum();
        -l * dot(w, &self.mean) - l * l * squares / (2.0 * beta * self.params.n as f64)
    }
}

#[cfg(test)]
mod from_records_tests {
    use super::*;
    use rand::SeedableRng;

    /// A generated instance's own records rebuild it bit for bit; records
    /// outside the unit ball and a wrong length are refused.
    #[test]
    fn from_records_rebuilds_generate() {
        let params = LinBallParams::new(7, 3, 0.4);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
        let g = LinBall::generate(params, &mut rng).unwrap();
        let r = LinBall::from_records(params, g.data.clone()).unwrap();
        assert_eq!(r.mean(), g.mean());
        assert_eq!(r.minimizer(), g.minimizer());
        let w = [0.1, -0.2, 0.3];
        assert_eq!(r.value(&w).to_bits(), g.value(&w).to_bits());
        let mut bad = g.data.clone();
        bad[4] = 1.5;
        assert!(LinBall::from_records(params, bad).is_err());
        assert!(LinBall::from_records(params, vec![0.0; 20]).is_err());
        // The zero record (no gradient) is a valid record.
        let zeros = LinBall::from_records(params, vec![0.0; 21]).unwrap();
        assert_eq!(zeros.minimizer(), &[0.0; 3]);
    }
}

#[cfg(test)]
mod recycle_tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    /// Two (n, d, seed) in sequence, the second smaller so that the first's
    /// buffer has room for it.
    const CASES: [(usize, usize, f64, u64); 2] = [(50, 40, 0.3, 11), (30, 17, 0.6, 12)];

    fn params(case: (usize, usize, f64, u64)) -> LinBallParams {
        LinBallParams::new(case.0, case.1, case.2)
    }

    /// Every stored number bit for bit, and the stream left in the same state.
    fn assert_same(a: &LinBall, b: &LinBall, rng_a: &mut Pcg64, rng_b: &mut Pcg64) {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(a.data.len(), b.data.len());
        assert_eq!(bits(&a.data), bits(&b.data));
        assert_eq!(bits(&a.mean), bits(&b.mean));
        assert_eq!(bits(&a.w_star), bits(&b.w_star));
        assert_eq!(a.mean_norm.to_bits(), b.mean_norm.to_bits());
        assert_eq!(rng_a.random::<u64>(), rng_b.random::<u64>());
    }

    /// Generated into a dirty buffer (NaN everywhere, then the previous data
    /// set's records overwritten with NaN), each instance equals the one
    /// generated into a fresh vector, and the second reuses the first's memory.
    #[test]
    fn a_dirty_recycled_buffer_gives_the_fresh_instance() {
        let mut buffer = vec![f64::NAN; 50 * 40 + 100];
        let mut last_ptr = None;
        for case in CASES {
            let (mut rng_a, mut rng_b) =
                (Pcg64::seed_from_u64(case.3), Pcg64::seed_from_u64(case.3));
            let fresh = LinBall::generate_into(params(case), &mut rng_a, Vec::new()).unwrap();
            let ptr = buffer.as_ptr();
            let mut recycled = LinBall::generate_into(params(case), &mut rng_b, buffer).unwrap();
            assert_eq!(recycled.data.as_ptr(), ptr, "the buffer's memory is reused");
            assert_same(&fresh, &recycled, &mut rng_a, &mut rng_b);
            last_ptr = Some(ptr);
            buffer = std::mem::take(&mut recycled.data);
            buffer.iter_mut().for_each(|v| *v = f64::NAN);
        }
        assert_eq!(Some(buffer.as_ptr()), last_ptr);
    }

    /// Through `generate` and `Drop` (the runner's path): on one thread the
    /// second data set lands in the first's memory and equals a fresh one.
    #[test]
    fn generate_reuses_the_dropped_instance_memory_bit_for_bit() {
        // A fresh thread, so that no earlier test's spare is in the slot.
        std::thread::spawn(|| {
            let mut rng = Pcg64::seed_from_u64(CASES[0].3);
            let first = LinBall::generate(params(CASES[0]), &mut rng).unwrap();
            let ptr = first.data.as_ptr();
            drop(first);
            let (mut rng_a, mut rng_b) = (
                Pcg64::seed_from_u64(CASES[1].3),
                Pcg64::seed_from_u64(CASES[1].3),
            );
            let fresh = LinBall::generate_into(params(CASES[1]), &mut rng_a, Vec::new()).unwrap();
            let second = LinBall::generate(params(CASES[1]), &mut rng_b).unwrap();
            assert_eq!(
                second.data.as_ptr(),
                ptr,
                "the dropped data set's memory is reused"
            );
            assert_same(&fresh, &second, &mut rng_a, &mut rng_b);
        })
        .join()
        .unwrap();
    }
}
