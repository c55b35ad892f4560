//! L2-regularized logistic regression, Lowy–Razaviyayn digest §8 E1b: an
//! `H^ERM_{beta, mu, L, R}` instance with a Newton-certified minimizer.
//!
//! `f(w, (x, y)) = softplus(-y w.x) + mu/2 ||w||^2` with `||x|| <= 1`, `y = ±1`.
//! The labelled-data generator ([`LabelledData`], defined in
//! [`crate::labelled`] and re-exported here) is shared with the adversarial
//! family ([`crate::adversarial`]); the stable softplus helpers live in
//! [`crate::numerics`].

use crate::lbfgs::lbfgs_minimize;
use crate::linalg::{add_outer_lower, average_lower_and_shift};
use crate::newton::{certify_minimizer_fused, CertifiedSolution, NewtonOptions, GROUND_TRUTH};
use crate::numerics::{
    compensated_glm_sum, difference_and_sum, dot, sigmoid, softplus, softplus_diff, CompensatedSum,
    CompensatedVec,
};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;
use rayon::prelude::*;

pub use crate::labelled::{FeatureModel, LabelledData};

/// Records per block of [`Logistic::value_and_gradient`]'s parallel pass:
/// 4096 rows are 3.3 MB at `d = 100`, enough work per task (about 0.5 ms)
/// to hide rayon's scheduling, and 25 blocks at `n = 1e5` to balance 2 cores.
pub const PASS_BLOCK_ROWS: usize = 4096;

/// `(softplus(-y u), -y sigmoid(-y u))` from one `exp(-|z|)`, `z = -y u`.
fn loss_and_coefficient(u: f64, y: f64) -> (f64, f64) {
    let z = -y * u;
    let e = (-z.abs()).exp();
    let sigmoid_z = if z >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    (z.max(0.0) + e.ln_1p(), -y * sigmoid_z)
}

/// One block's plain gradient sum and loss sum ([`Logistic::value_and_gradient_plain`])
/// at `level` ([`dpcore::rows::weighted_row_pass_at`]): compiled for AVX2
/// when the level and the CPU allow it, the baseline build otherwise (the
/// same bits; test `plain_pass_levels_agree`).
fn plain_block_at(
    level: dpcore::simd::SimdLevel,
    x: &[f64],
    y: &[f64],
    w: &[f64],
) -> (Vec<f64>, f64) {
    let (mut g, mut loss) = (vec![0.0; w.len()], 0.0);
    dpcore::rows::weighted_row_pass_at(level, x, w, &mut g, |first, coefs| {
        for (c, &yi) in coefs.iter_mut().zip(&y[first..]) {
            let (l, ck) = loss_and_coefficient(*c, yi);
            loss += l;
            *c = ck;
        }
    });
    (g, loss)
}

/// Default fraction of flipped labels (digest §8 E1b: "10% label flips").
pub const DEFAULT_LABEL_NOISE: f64 = 0.1;
/// Default `||w_true||` of the label model.
pub const DEFAULT_SIGNAL: f64 = 2.0;

/// Parameters of one logistic-regression instance (digest §8 E1b).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogisticParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Regularization / strong convexity `mu > 0`.
    pub mu: f64,
    /// Fraction of flipped labels, in `[0, 0.5)`.
    pub label_noise: f64,
    /// `||w_true||` with `w_true = signal * e_1`.
    pub signal: f64,
    /// Feature law; [`FeatureModel::UniformBall`] by default.
    pub features: FeatureModel,
}

impl LogisticParams {
    /// Defaults: `label_noise = 0.1`, `signal = 2`, uniform-ball features.
    pub fn new(n: usize, d: usize, mu: f64) -> Self {
        Self {
            n,
            d,
            mu,
            label_noise: DEFAULT_LABEL_NOISE,
            signal: DEFAULT_SIGNAL,
            features: FeatureModel::UniformBall,
        }
    }

    /// Checks the data parameters and finite `mu > 0`.
    pub fn validate(&self) -> Result<(), String> {
        LabelledData::validate(self.n, self.d, self.label_noise, self.signal)?;
        if !(self.mu.is_finite() && self.mu > 0.0) {
            return Err(format!("mu must be finite and > 0, got {}", self.mu));
        }
        Ok(())
    }
}

/// A sampled logistic-regression instance with its certified minimizer.
#[derive(Debug, Clone)]
pub struct Logistic {
    params: LogisticParams,
    data: LabelledData,
    w_star: Vec<f64>,
    grad_norm: f64,
}

impl Logistic {
    /// Samples the data and computes `w*` by damped Newton from 0.
    ///
    /// # Errors
    /// Invalid parameters, or Newton failing [`crate::newton::GROUND_TRUTH`].
    pub fn generate<R: Rng + ?Sized>(params: LogisticParams, rng: &mut R) -> Result<Self, String> {
        params.validate()?;
        let data = LabelledData::sample(
            params.n,
            params.d,
            params.label_noise,
            params.signal,
            params.features,
            rng,
        )?;
        Self::certified(params, data, &GROUND_TRUTH)
    }

    /// The family's objective on given records (e.g. read from a file) with
    /// regularization `mu`, and `w*` by the same certified damped Newton as
    /// [`Logistic::generate`]. `params()` then holds `n`, `d` and `mu`; its
    /// label-model fields keep their defaults and describe nothing about
    /// `data`.
    ///
    /// # Errors
    /// A non-finite or non-positive `mu`, or Newton failing
    /// [`crate::newton::GROUND_TRUTH`].
    pub fn from_data(data: LabelledData, mu: f64) -> Result<Self, String> {
        Self::from_data_certified_to(data, mu, &GROUND_TRUTH)
    }

    /// [`Logistic::from_data`] with the minimizer certified by `opts` instead
    /// of [`GROUND_TRUTH`]: `certified_gradient_norm() <= opts.tol`, or
    /// `<= opts.floor_tol` at a rounding-floor stall (e.g. a private
    /// release's solve to a public gradient target, whose widening
    /// `2 tol / mu` the release adds to the sensitivity).
    ///
    /// # Errors
    /// A non-finite or non-positive `mu`, or the solve failing `opts`.
    pub fn from_data_certified_to(
        data: LabelledData,
        mu: f64,
        opts: &NewtonOptions,
    ) -> Result<Self, String> {
        let params = LogisticParams::new(data.len(), data.dim(), mu);
        params.validate()?;
        Self::certified(params, data, opts)
    }

    /// The family on `data` with `w*` certified by [`Self::certify`].
    fn certified(
        params: LogisticParams,
        data: LabelledData,
        opts: &NewtonOptions,
    ) -> Result<Self, String> {
        let mut me = Self {
            params,
            data,
            w_star: vec![0.0; params.d],
            grad_norm: f64::INFINITY,
        };
        let sol = me.certify(opts)?;
        me.w_star = sol.point;
        me.grad_norm = sol.grad_norm;
        Ok(me)
    }

    /// `w*` and its certificate from 0 by
    /// `certify_minimizer_fused` (crate-private) (Newton or L-BFGS, whichever
    /// is cheaper at this `n`, `d`), L-BFGS on the fused pass of
    /// [`Logistic::value_and_gradient`].
    fn certify(&self, opts: &NewtonOptions) -> Result<CertifiedSolution, String> {
        certify_minimizer_fused(
            self,
            vec![0.0; self.params.d],
            opts,
            self.data.hessian_rows(),
            |w, h| self.hessian(w, h),
            |w, g| self.value_and_gradient(w, g),
        )
        .map_err(|e| format!("logistic ground truth: {e}"))
    }

    /// `F(w)` (returned) and `grad F(w)` (into `out`) in one pass over the
    /// records, for half the reads of [`Objective::value`] plus
    /// [`Objective::gradient`]: compensated sums over blocks of
    /// [`PASS_BLOCK_ROWS`] records, the blocks on rayon's pool, their totals
    /// added in block order with compensation. The result does not depend on
    /// the thread count; it differs from the sequential value and gradient
    /// only in the grouping of compensated sums (a few ulps).
    pub fn value_and_gradient(&self, w: &[f64], out: &mut [f64]) -> f64 {
        let block = |rows| {
            let mut loss = CompensatedSum::default();
            let acc = compensated_glm_sum(rows, w, |u, y| {
                loss.add(softplus(-y * u));
                -y * sigmoid(-y * u)
            });
            (acc.total(), loss.total())
        };
        let blocks: Vec<_> = self.data.blocks(PASS_BLOCK_ROWS).collect();
        let parts: Vec<(Vec<f64>, f64)> = if blocks.len() == 1 {
            blocks.into_iter().map(block).collect()
        } else {
            blocks.into_par_iter().map(block).collect()
        };
        let (mut grad, mut loss) = (CompensatedVec::zeros(w.len()), CompensatedSum::default());
        for (g, l) in &parts {
            grad.add_scaled(1.0, g);
            loss.add(*l);
        }
        let n = self.params.n as f64;
        for ((o, s), wj) in out.iter_mut().zip(grad.total()).zip(w) {
            *o = s / n + self.params.mu * wj;
        }
        loss.total() / n + 0.5 * self.params.mu * dot(w, w)
    }

    /// `F(w)` (returned) and `grad F(w)` (into `out`) in one pass with plain
    /// (uncompensated) sums in a fixed order: blocks of [`PASS_BLOCK_ROWS`]
    /// records on rayon's pool, each read once in the two phases of
    /// [`dpcore::rows::weighted_row_pass`] (per sub-block the margins, then one
    /// shared `exp(-|z|)` per row for the loss and the sigmoid, then the
    /// weighted rows tile by tile; the same bits at every vector level), block
    /// totals added in block order. Thread-count independent; its gradient
    /// differs from the exact one by at most
    /// [`Logistic::plain_gradient_error_bound`].
    ///
    /// Until 2026-12-01 it summed four rows at a time in `dot4`'s order:
    /// 10.7 ms a pass on the peer race's 80 MB on one thread (Intel Xeon VM),
    /// six passes of the race's output perturbation (0.75 times as fast as
    /// scipy's L-BFGS, `results/peers.md`). The two phases are the GD pass's.
    pub fn value_and_gradient_plain(&self, w: &[f64], out: &mut [f64]) -> f64 {
        let level = dpcore::simd::level();
        let block = |(x, y): (&[f64], &[f64])| plain_block_at(level, x, y, w);
        let blocks: Vec<_> = self.data.block_slices(PASS_BLOCK_ROWS).collect();
        let parts: Vec<(Vec<f64>, f64)> = if blocks.len() == 1 {
            blocks.into_iter().map(block).collect()
        } else {
            blocks.into_par_iter().map(block).collect()
        };
        out.fill(0.0);
        let mut loss = 0.0;
        for (g, l) in &parts {
            out.iter_mut().zip(g).for_each(|(o, gj)| *o += gj);
            loss += l;
        }
        let n = self.params.n as f64;
        for (o, wj) in out.iter_mut().zip(w) {
            *o = *o / n + self.params.mu * wj;
        }
        loss / n + 0.5 * self.params.mu * dot(w, w)
    }

    /// A bound on `||g - grad F(w)||` for the gradient `g` of
    /// [`Logistic::value_and_gradient_plain`] at any `w` with `||w|| <= norm_w`
    /// (unit roundoff `u = 2^-53`, `gamma_k = k u / (1 - k u)`, rows of norm at
    /// most 1 so `|c_i| <= 1`): the dot products err by `gamma_d ||w||`,
    /// moving each coefficient by a quarter of that (the sigmoid is
    /// 1/4-Lipschitz), its evaluation by `4u`; each coordinate's sum of
    /// `c_i x_ij` is a chain of at most `N = PASS_BLOCK_ROWS + blocks + 4`
    /// additions, off by `gamma_N sum_i |c_i x_ij|`; by Cauchy–Schwarz
    /// `sqrt(sum_j (sum_i |x_ij| / n)^2) <= 1`, so none of these grows with `d`;
    /// the division by `n` and the `mu w` term add `2u (1 + mu ||w||)`.
    /// Doubled for the second-order terms left out.
    pub fn plain_gradient_error_bound(&self, norm_w: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let gamma = |k: usize| k as f64 * u / (1.0 - k as f64 * u);
        let n = self.params.n;
        let chain = PASS_BLOCK_ROWS.min(n) + n.div_ceil(PASS_BLOCK_ROWS) + 4;
        let per = gamma(chain)
            + gamma(self.params.d) * norm_w / 4.0
            + 5.0 * u
            + 2.0 * u * (1.0 + self.params.mu * norm_w);
        2.0 * per
    }

    /// The family on `data` with a centre certified to `||grad F|| <= gtol`
    /// at first-order cost: L-BFGS on [`Logistic::value_and_gradient_plain`]
    /// to a computed norm of `0.9 gtol`, then the certificate
    /// `certified_gradient_norm() = ||g|| + plain_gradient_error_bound(||w||)`
    /// (rigorous without a compensated pass). Falls back to
    /// [`Logistic::from_data_certified_to`] (compensated, Newton fallback)
    /// when that certificate exceeds `gtol` (e.g. `gtol` near the rounding
    /// floor) or L-BFGS fails.
    ///
    /// # Errors
    /// A non-finite or non-positive `mu` or `gtol`, or the fallback failing.
    pub fn from_data_certified_fast(
        data: LabelledData,
        mu: f64,
        gtol: f64,
    ) -> Result<Self, String> {
        if !(gtol.is_finite() && gtol > 0.0) {
            return Err(format!("gtol must be finite and > 0, got {gtol}"));
        }
        let params = LogisticParams::new(data.len(), data.dim(), mu);
        params.validate()?;
        let mut me = Self {
            params,
            data,
            w_star: vec![0.0; params.d],
            grad_norm: f64::INFINITY,
        };
        let search = NewtonOptions {
            tol: 0.9 * gtol,
            floor_tol: 0.9 * gtol,
            max_iter: 1000,
        };
        let run = lbfgs_minimize(
            vec![0.0; params.d],
            &search,
            1.0 / me.constants().smoothness,
            |w, g| me.value_and_gradient_plain(w, g),
        );
        let certificate = run.best.grad_norm
            + me.plain_gradient_error_bound(dot(&run.best.point, &run.best.point).sqrt());
        if run.failure.is_some() || certificate > gtol {
            let opts = NewtonOptions {
                tol: gtol,
                floor_tol: gtol,
                max_iter: GROUND_TRUTH.max_iter,
            };
            return Self::from_data_certified_to(me.data, mu, &opts);
        }
        me.w_star = run.best.point;
        me.grad_norm = certificate;
        Ok(me)
    }

    /// `||grad F(w*)||` achieved by Newton: `||w* - w_exact|| <= this / mu`.
    pub fn certified_gradient_norm(&self) -> f64 {
        self.grad_norm
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &LogisticParams {
        &self.params
    }

    /// The labelled records.
    pub fn data(&self) -> &LabelledData {
        &self.data
    }

    /// `(1/m) sum_{sampled i} s_i (1 - s_i) x_i x_i^T + mu I`, `s_i = sigmoid(y_i w.x_i)`,
    /// over the strided subsample of [`LabelledData::hessian_stride`].
    pub fn hessian(&self, w: &[f64], h: &mut [f64]) {
        h.fill(0.0);
        let mut m = 0usize;
        for (x, _) in self.data.iter().step_by(self.data.hessian_stride()) {
            let s = sigmoid(dot(w, x));
            add_outer_lower(h, s * (1.0 - s), x);
            m += 1;
        }
        average_lower_and_shift(h, self.params.d, m as f64, self.params.mu);
    }
}

impl Objective for Logistic {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `(1/n) sum_i softplus(-y_i w.x_i) + mu/2 ||w||^2` (compensated sum), O(nd).
    fn value(&self, w: &[f64]) -> f64 {
        let mut s = CompensatedSum::default();
        self.data
            .iter()
            .for_each(|(x, y)| s.add(softplus(-y * dot(w, x))));
        s.total() / self.params.n as f64 + 0.5 * self.params.mu * dot(w, w)
    }

    /// `(1/n) sum_i -y_i sigmoid(-y_i w.x_i) x_i + mu w` (compensated), O(nd).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let acc = compensated_glm_sum(self.data.iter(), w, |u, y| -y * sigmoid(-y * u));
        let n = self.params.n as f64;
        for ((o, s), wj) in out.iter_mut().zip(acc.total()).zip(w) {
            *o = s / n + self.params.mu * wj;
        }
    }

    /// Digest §8 E1b: `beta = 1/4 + mu`; `R = min{1/mu, sqrt(2 ln2 / mu)}`
    /// (`mu w* = (1/n) sum y_i sigmoid(.) x_i`, and `mu/2 ||w*||^2 <= F(0) = ln 2`);
    /// `L = 1 + mu R` on `B(0, R)`. All analytic (P4).
    fn constants(&self) -> ProblemConstants {
        let mu = self.params.mu;
        let radius = (1.0 / mu).min((2.0 * std::f64::consts::LN_2 / mu).sqrt());
        ProblemConstants {
            lipschitz: 1.0 + mu * radius,
            smoothness: 0.25 + mu,
            strong_convexity: mu,
            radius,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `(1/n) sum_i [softplus(-y_i w.x_i) - softplus(-y_i w*.x_i)]` per record via
    /// [`softplus_diff`] with `delta_i = -y_i (w - w*).x_i`, plus
    /// `mu/2 (w - w*).(w + w*)` (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let (diff, sum) = difference_and_sum(w, &self.w_star);
        let mut s = CompensatedSum::default();
        for (x, y) in self.data.iter() {
            let (a, b) = (-y * dot(w, x), -y * dot(&self.w_star, x));
            s.add(softplus_diff(a, b, -y * dot(&diff, x)));
        }
        s.total() / self.params.n as f64 + 0.5 * self.params.mu * dot(&diff, &sum)
    }

    /// Tight `2/(mu n)`: the data part `softplus(-y w.x)` is 1-Lipschitz and the
    /// regularizer cancels (digest §1.4, P5). Paper `2L/(mu n)` (Prop 2.2).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let c = self.constants();
        let n = self.params.n as f64;
        MinimizerSensitivity {
            tight: 2.0 / (c.strong_convexity * n),
            paper: 2.0 * c.lipschitz / (c.strong_convexity * n),
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl FiniteSum for Logistic {
    /// `-y_i sigmoid(-y_i w.x_i) x_i + mu w`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let (x, y) = (self.data.features(i), self.data.label(i));
        let c = -y * sigmoid(-y * dot(w, x));
        for ((o, xj), wj) in out.iter_mut().zip(x).zip(w) {
            *o = c * xj + self.params.mu * wj;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{loss_and_coefficient, plain_block_at};
    use dpcore::rows::lane_dot;
    use dpcore::simd::supported_levels;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    /// Row by row: margin, loss and coefficient, then the weighted row.
    fn row_by_row(x: &[f64], y: &[f64], w: &[f64]) -> (Vec<f64>, f64) {
        let (mut g, mut loss) = (vec![0.0; w.len()], 0.0);
        for (row, &yi) in x.chunks_exact(w.len()).zip(y) {
            let (l, c) = loss_and_coefficient(lane_dot(row, w), yi);
            loss += l;
            g.iter_mut().zip(row).for_each(|(gj, xj)| *gj += c * xj);
        }
        (g, loss)
    }

    /// Every vector level gives the row-by-row loop's bits, for row counts
    /// below, at and above a sub-block (20 rows at d = 100) and dimensions
    /// below, at and between tiles of 32 and the prefetch threshold (64).
    #[test]
    fn plain_pass_levels_agree() {
        let levels = supported_levels();
        let mut rng = Pcg64::seed_from_u64(30);
        for (n, d) in [
            (1, 1),
            (7, 3),
            (40, 13),
            (19, 100),
            (20, 100),
            (61, 100),
            (300, 16),
            (9, 257),
            (41, 65),
        ] {
            let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f64> = (0..n)
                .map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 })
                .collect();
            let w: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
            let (g, loss) = row_by_row(&x, &y, &w);
            let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
            for &level in &levels {
                let (gl, ll) = plain_block_at(level, &x, &y, &w);
                assert_eq!(
                    (bits(&gl), ll.to_bits()),
                    (bits(&g), loss.to_bits()),
                    "{level:?}, n {n}, d {d}"
                );
            }
        }
    }
}
