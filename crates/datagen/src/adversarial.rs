//! DP adversarial training with an L2-ball adversary, Lowy–Razaviyayn digest
//! §5.2, §4.5, §8 E7: the closed-form robust logistic objective
//! `G_D(w) = (1/n) sum_i softplus(-(y_i w.x_i - r ||w||)) + mu/2 ||w||^2`,
//! where `max_{||v|| <= r} softplus(-y w.(x + v))` is attained at
//! `v* = -y r w/||w||`.
//!
//! `G_D` is `mu`-strongly convex (Lemma 5.4) and smooth away from `w = 0`; at
//! `w = 0` the `r ||w||` term has a kink, so the reported smoothness is `inf`
//! and the generator refuses instances whose minimizer is near 0.

use crate::labelled::{FeatureModel, LabelledData};
use crate::linalg::{add_outer_lower, average_lower_and_shift};
use crate::logistic::DEFAULT_LABEL_NOISE;
use crate::newton::certify_minimizer;
use crate::numerics::{
    difference_and_sum, dot, norm2, sigmoid, softplus, softplus_diff, CompensatedSum,
    CompensatedVec,
};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Default `||w_true||` for E7: with [`FeatureModel::SignalSlab`] features and
/// 10% label noise, `||E[y x]|| ≈ 0.8 E[u tanh(4u)] ≈ 0.38 > r = 0.2` (`u ~ U[-1, 1]`), keeping `w*` away from the kink.
pub const DEFAULT_ADVERSARIAL_SIGNAL: f64 = 8.0;

/// Smallest accepted `||w*||` (the kink of `G_D` is at 0).
pub const MIN_MINIMIZER_NORM: f64 = 1e-3;

/// Parameters of one adversarial-training instance (digest §8 E7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdversarialParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Regularization / strong convexity `mu > 0`.
    pub mu: f64,
    /// Adversary radius `r in [0, 1)` (perturbation set `B(0, r)`, diameter `2r`).
    pub r: f64,
    /// Fraction of flipped labels, in `[0, 0.5)`.
    pub label_noise: f64,
    /// `||w_true||` with `w_true = signal * e_1`.
    pub signal: f64,
    /// Feature law; [`FeatureModel::SignalSlab`] by default (see the constant docs).
    pub features: FeatureModel,
}

impl AdversarialParams {
    /// Defaults: `label_noise = 0.1`, `signal = 8`, slab features.
    pub fn new(n: usize, d: usize, mu: f64, r: f64) -> Self {
        Self {
            n,
            d,
            mu,
            r,
            label_noise: DEFAULT_LABEL_NOISE,
            signal: DEFAULT_ADVERSARIAL_SIGNAL,
            features: FeatureModel::SignalSlab,
        }
    }

    /// Checks the data parameters, finite `mu > 0` and `r in [0, 1)`.
    pub fn validate(&self) -> Result<(), String> {
        LabelledData::validate(self.n, self.d, self.label_noise, self.signal)?;
        if !(self.mu.is_finite() && self.mu > 0.0) {
            return Err(format!("mu must be finite and > 0, got {}", self.mu));
        }
        if !(0.0..1.0).contains(&self.r) {
            return Err(format!("r must be in [0, 1), got {}", self.r));
        }
        Ok(())
    }
}

/// A sampled adversarial-training instance with its certified minimizer.
#[derive(Debug, Clone)]
pub struct Adversarial {
    params: AdversarialParams,
    data: LabelledData,
    w_star: Vec<f64>,
    grad_norm: f64,
}

impl Adversarial {
    /// Samples the data ([`LabelledData::sample`], shared with the logistic
    /// family) and computes `w*` by damped Newton started at `e_1` (away from
    /// the kink at 0).
    ///
    /// # Errors
    /// Invalid parameters, a Newton failure, or `||w*|| < 1e-3` (the kink).
    pub fn generate<R: Rng + ?Sized>(
        params: AdversarialParams,
        rng: &mut R,
    ) -> Result<Self, String> {
        params.validate()?;
        let data = LabelledData::sample(
            params.n,
            params.d,
            params.label_noise,
            params.signal,
            params.features,
            rng,
        )?;
        Self::with_data(params, data)
    }

    /// The instance on the caller's records (features in the unit ball,
    /// labels `±1`, [`LabelledData::from_rows`]): the neighbouring pairs of
    /// the privacy audit. `label_noise`, `signal` and `features` of `params`
    /// describe only how [`Self::generate`] samples, so they are validated
    /// and otherwise unused; from the records on, the arithmetic is that of
    /// [`Self::generate`].
    ///
    /// # Errors
    /// Invalid parameters, records whose size or dimension differ from
    /// `params`, a Newton failure, or `||w*|| < 1e-3` (the kink).
    pub fn from_records(params: AdversarialParams, data: LabelledData) -> Result<Self, String> {
        params.validate()?;
        if data.len() != params.n || data.dim() != params.d {
            return Err(format!(
                "{} records of dimension {} for n = {}, d = {}",
                data.len(),
                data.dim(),
                params.n,
                params.d
            ));
        }
        Self::with_data(params, data)
    }

    /// Certifies `w*` on `data` by damped Newton from `e_1` (shared by
    /// [`Self::generate`] and [`Self::from_records`]).
    fn with_data(params: AdversarialParams, data: LabelledData) -> Result<Self, String> {
        let mut me = Self {
            params,
            data,
            w_star: vec![0.0; params.d],
            grad_norm: f64::INFINITY,
        };
        let mut start = vec![0.0; params.d];
        start[0] = 1.0;
        let sol = certify_minimizer(&me, start, me.data.hessian_rows(), |w, h| me.hessian(w, h))
            .map_err(|e| format!("adversarial ground truth: {e}"))?;
        let nw = norm2(&sol.point);
        if nw < MIN_MINIMIZER_NORM {
            return Err(format!(
                "adversarial ground truth: ||w*|| = {nw:.3e} < {MIN_MINIMIZER_NORM} (kink at 0); \
                 increase signal or decrease r"
            ));
        }
        me.w_star = sol.point;
        me.grad_norm = sol.grad_norm;
        Ok(me)
    }

    /// `||grad G_D(w*)||` achieved by Newton (`||w* - w_exact|| <= this / mu`).
    pub fn certified_gradient_norm(&self) -> f64 {
        self.grad_norm
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &AdversarialParams {
        &self.params
    }

    /// The labelled records.
    pub fn data(&self) -> &LabelledData {
        &self.data
    }

    /// The worst-case perturbed input `x_i + v*` with `v* = -y_i r w/||w||`
    /// (digest §8 E7); `x_i` itself at `w = 0`, where every `v` attains the max.
    pub fn inner_max_point(&self, w: &[f64], i: usize) -> Vec<f64> {
        let (x, y) = (self.data.features(i), self.data.label(i));
        let nw = norm2(w);
        let c = if nw > 0.0 {
            -y * self.params.r / nw
        } else {
            0.0
        };
        x.iter().zip(w).map(|(xj, wj)| xj + c * wj).collect()
    }

    /// Robust margin `m_i(w) = y_i w.x_i - r ||w||`.
    fn margin(&self, w: &[f64], x: &[f64], y: f64, nw: f64) -> f64 {
        y * dot(w, x) - self.params.r * nw
    }

    /// `(1/m) sum s_i (1 - s_i) g_i g_i^T + r (1/m) sum sigmoid(-m_i) (I - u u^T)/||w|| + mu I`
    /// with `g_i = y_i x_i - r u`, `u = w/||w||`, `s_i = sigmoid(-m_i)`, over the
    /// strided subsample of [`LabelledData::hessian_stride`].
    fn hessian(&self, w: &[f64], h: &mut [f64]) {
        let (d, r) = (self.params.d, self.params.r);
        let nw = norm2(w);
        let u: Vec<f64> = w
            .iter()
            .map(|v| if nw > 0.0 { v / nw } else { 0.0 })
            .collect();
        h.fill(0.0);
        let (mut m, mut curv) = (0usize, 0.0);
        let mut g = vec![0.0; d];
        for (x, y) in self.data.iter().step_by(self.data.hessian_stride()) {
            let s = sigmoid(-self.margin(w, x, y, nw));
            g.iter_mut()
                .zip(x.iter().zip(&u))
                .for_each(|(gj, (xj, uj))| *gj = y * xj - r * uj);
            add_outer_lower(h, s * (1.0 - s), &g);
            curv += s;
            m += 1;
        }
        let c = if nw > 0.0 {
            r * curv / (m as f64 * nw)
        } else {
            0.0
        };
        add_outer_lower(h, -c * m as f64, &u);
        average_lower_and_shift(h, d, m as f64, self.params.mu + c);
    }
}

impl Objective for Adversarial {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `(1/n) sum_i softplus(-m_i(w)) + mu/2 ||w||^2` (compensated), O(nd).
    fn value(&self, w: &[f64]) -> f64 {
        let nw = norm2(w);
        let mut s = CompensatedSum::default();
        self.data
            .iter()
            .for_each(|(x, y)| s.add(softplus(-self.margin(w, x, y, nw))));
        s.total() / self.params.n as f64 + 0.5 * self.params.mu * nw * nw
    }

    /// `(1/n) sum_i -sigmoid(-m_i) (y_i x_i - r u) + mu w`, `u = w/||w||`
    /// (`u = 0`, a subgradient, at `w = 0`).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let nw = norm2(w);
        let mut acc = CompensatedVec::zeros(self.params.d);
        let mut sig = CompensatedSum::default();
        for (x, y) in self.data.iter() {
            let s = sigmoid(-self.margin(w, x, y, nw));
            acc.add_scaled(-s * y, x);
            sig.add(s);
        }
        let n = self.params.n as f64;
        let c = if nw > 0.0 {
            self.params.r * sig.total() / (n * nw)
        } else {
            0.0
        };
        for ((o, a), wj) in out.iter_mut().zip(acc.total()).zip(w) {
            *o = a / n + c * wj + self.params.mu * wj;
        }
    }

    /// Digest §8 E7: `R = sqrt(2 ln2 / mu)` (`mu/2 ||w*||^2 <= G_D(0) = ln 2`),
    /// `L = 1 + r + mu R` (`||y x - r u|| <= 1 + r`), strong convexity `mu`
    /// (Lemma 5.4), smoothness `inf` (kink at `w = 0`).
    fn constants(&self) -> ProblemConstants {
        let mu = self.params.mu;
        let radius = (2.0 * std::f64::consts::LN_2 / mu).sqrt();
        ProblemConstants {
            lipschitz: 1.0 + self.params.r + mu * radius,
            smoothness: f64::INFINITY,
            strong_convexity: mu,
            radius,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// Per-record [`softplus_diff`] with `delta_i = -[y_i (w - w*).x_i - r (||w|| - ||w*||)]`,
    /// `||w|| - ||w*|| = (w - w*).(w + w*)/(||w|| + ||w*||)`, plus
    /// `mu/2 (w - w*).(w + w*)` (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let (diff, sum) = difference_and_sum(w, &self.w_star);
        let (nw, ns) = (norm2(w), norm2(&self.w_star));
        let dq = dot(&diff, &sum);
        let dnorm = if nw + ns > 0.0 { dq / (nw + ns) } else { 0.0 };
        let mut s = CompensatedSum::default();
        for (x, y) in self.data.iter() {
            let (a, b) = (
                -self.margin(w, x, y, nw),
                -self.margin(&self.w_star, x, y, ns),
            );
            let delta = -(y * dot(&diff, x) - self.params.r * dnorm);
            s.add(softplus_diff(a, b, delta));
        }
        s.total() / self.params.n as f64 + 0.5 * self.params.mu * dq
    }

    /// Tight `2(1 + r)/(mu n)` (the data term is `(1+r)`-Lipschitz, the
    /// regularizer cancels, digest P5); paper `2L/(mu n)` (Lemma 5.4 + Prop 2.2).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let c = self.constants();
        let n = self.params.n as f64;
        MinimizerSensitivity {
            tight: 2.0 * (1.0 + self.params.r) / (self.params.mu * n),
            paper: 2.0 * c.lipschitz / (c.strong_convexity * n),
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl FiniteSum for Adversarial {
    /// `-sigmoid(-m_i) (y_i x_i - r u) + mu w` (`u = 0` at `w = 0`).
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let (x, y) = (self.data.features(i), self.data.label(i));
        let nw = norm2(w);
        let s = sigmoid(-self.margin(w, x, y, nw));
        let ru = if nw > 0.0 { self.params.r / nw } else { 0.0 };
        for ((o, xj), wj) in out.iter_mut().zip(x).zip(w) {
            *o = -s * (y * xj - ru * wj) + self.params.mu * wj;
        }
    }
}

#[cfg(test)]
mod from_records_tests {
    use super::*;
    use rand::SeedableRng;

    /// With a generated instance's own records, `from_records` rebuilds it
    /// bit for bit (same certified `w*`, same values); a record count other
    /// than `n` is refused.
    #[test]
    fn from_records_rebuilds_generate() {
        let params = AdversarialParams::new(40, 3, 0.1, 0.1);
        let a = Adversarial::generate(params, &mut rand_pcg::Pcg64::seed_from_u64(5)).unwrap();
        let rows = |m: usize| {
            let x: Vec<f64> = (0..m).flat_map(|i| a.data().features(i).to_vec()).collect();
            let y: Vec<f64> = (0..m).map(|i| a.data().label(i)).collect();
            LabelledData::from_rows(3, x, y).unwrap()
        };
        let b = Adversarial::from_records(params, rows(40)).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(b.minimizer()), bits(a.minimizer()));
        let w = [0.3, -0.1, 0.2];
        assert_eq!(b.value(&w).to_bits(), a.value(&w).to_bits());
        assert!(Adversarial::from_records(params, rows(39)).is_err());
    }
}
