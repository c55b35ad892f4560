//! Tilted ERM (TERM), Lowy–Razaviyayn digest §5.1, §4.4, §8 E6: a non-ERM
//! objective `F_tau(w) = (1/tau) log((1/n) sum_i exp(tau f(w, x_i)))`, `tau > 0`,
//! with a Newton-certified minimizer `w*_tau`.
//!
//! Losses ([`TermLoss`]): the smooth `f = mu/2 ||w - x||^2`, `x` uniform in
//! `B(0, 1)` (Thm 5.2), and the non-smooth `f = mu/2 ||w||^2 + ||w - x||`, `x`
//! uniform on the unit sphere (Thm 5.1). For both, `R = 1`: projecting `w`
//! onto `B(0, 1)` decreases every `f(., x_i)` and `F_tau` is increasing in each.
//!
//! **Sharp variant** ([`TermParams::atom_fraction`] `> 0`, non-smooth loss
//! only): a fraction of the records sit at the origin and the others come in
//! antipodal pairs `+-x` on the sphere. Then `w*_tau = 0` exactly and `F_tau`
//! grows linearly away from it: at `0` every pair has equal tilted weight and
//! opposite directional derivatives `-+<x, u>`, and each atom adds `||u||`, so
//! the directional derivative along any unit `u` is the atoms' total tilted
//! weight `c = k/(k + (n - k) e^tau) > 0` (`k` atoms), and `F_tau` (convex) has
//! its unique minimum at `0` with `F_tau(w) - F_tau(0) >= c ||w||`. Output
//! perturbation's excess is then linear in the noise, the instance on which
//! Theorem 5.1's `d/(eps n)` is attained (claim LR-Thm5.1-n).

mod ground_truth;
mod record_loss;

use crate::geometry::{sample_unit_ball, sample_unit_sphere};
use crate::newton::certify_minimizer;
use crate::numerics::{difference_and_sum, CompensatedSum, CompensatedVec};
use dpcore::{MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// The per-record loss of a TERM instance (digest §8 E6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermLoss {
    /// `f(w, x) = mu/2 ||w - x||^2`, `x` uniform in the unit ball.
    Quadratic,
    /// `f(w, x) = mu/2 ||w||^2 + ||w - x||`, `x` uniform on the unit sphere.
    NonSmooth,
}

/// Parameters of one TERM instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Strong convexity `mu > 0` of each loss (default 1).
    pub mu: f64,
    /// Tilt `tau > 0`.
    pub tau: f64,
    /// The per-record loss.
    pub loss: TermLoss,
    /// Fraction of records at the origin, the rest in antipodal pairs (the
    /// sharp variant, module docs); `0` (default) samples every record. Only
    /// with [`TermLoss::NonSmooth`], in `[0, 1)`.
    pub atom_fraction: f64,
}

impl TermParams {
    /// Default `mu = 1` (digest §8 E6).
    pub fn new(n: usize, d: usize, tau: f64, loss: TermLoss) -> Self {
        Self {
            n,
            d,
            mu: 1.0,
            tau,
            loss,
            atom_fraction: 0.0,
        }
    }

    /// Checks `n, d >= 1` and finite `mu, tau > 0`.
    pub fn validate(&self) -> Result<(), String> {
        if self.n == 0 || self.d == 0 {
            return Err(format!(
                "n and d must be >= 1, got n={}, d={}",
                self.n, self.d
            ));
        }
        for (name, v) in [("mu", self.mu), ("tau", self.tau)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} must be finite and > 0, got {v}"));
            }
        }
        if !(0.0..1.0).contains(&self.atom_fraction) {
            return Err(format!(
                "atom_fraction must lie in [0, 1), got {}",
                self.atom_fraction
            ));
        }
        if self.atom_fraction > 0.0 && self.loss != TermLoss::NonSmooth {
            return Err("atom_fraction > 0 (the sharp variant) needs the non-smooth loss".into());
        }
        Ok(())
    }
}

/// A sampled TERM instance with its certified minimizer `w*_tau`.
#[derive(Debug, Clone)]
pub struct Term {
    params: TermParams,
    /// Row-major `n x d` data.
    data: Vec<f64>,
    w_star: Vec<f64>,
    /// `log v*_i`, the log tilted weights at `w*`.
    log_v_star: Vec<f64>,
    grad_norm: f64,
}

impl Term {
    /// Samples the data and computes `w*_tau` by damped Newton (start: the
    /// sample mean for `Quadratic`, 0 for `NonSmooth`) with the Hessian of
    /// digest §5.1. Each Hessian costs `O(n d^2)`.
    ///
    /// # Errors
    /// Invalid parameters or a Newton failure (e.g. `w*` at a data point of the
    /// non-smooth loss, where `F_tau` has a kink).
    pub fn generate<R: Rng + ?Sized>(params: TermParams, rng: &mut R) -> Result<Self, String> {
        params.validate()?;
        if params.atom_fraction > 0.0 {
            return Ok(Self::sharp(params, rng));
        }
        let (n, d) = (params.n, params.d);
        let mut data = Vec::with_capacity(n * d);
        for _ in 0..n {
            data.extend(match params.loss {
                TermLoss::Quadratic => sample_unit_ball(d, rng),
                TermLoss::NonSmooth => sample_unit_sphere(d, rng),
            });
        }
        Self::solved(params, data)
    }

    /// The instance on the caller's records (row-major `n x d`, each of norm
    /// at most 1 up to rounding, `1e-12`: a sphere point's computed norm can
    /// be `1 + ulp`; where the constants `L`, `R` and `A_R - a_R` hold), with
    /// `w*_tau` computed as in [`Self::generate`]: neighbouring data sets for
    /// checking Lemma 5.2's sensitivity. Not the sharp variant (its `w* = 0`
    /// rests on the antipodal layout).
    ///
    /// # Errors
    /// Invalid parameters, `atom_fraction > 0`, records of the wrong count or
    /// outside the unit ball, or a Newton failure.
    pub fn from_records(params: TermParams, data: Vec<f64>) -> Result<Self, String> {
        params.validate()?;
        if params.atom_fraction > 0.0 {
            return Err("from_records builds the sampled variant only (atom_fraction = 0)".into());
        }
        if data.len() != params.n * params.d {
            return Err(format!(
                "{} values for n = {} records of d = {}",
                data.len(),
                params.n,
                params.d
            ));
        }
        if let Some(i) = data.chunks_exact(params.d).position(|x| {
            let norm = crate::numerics::norm2(x);
            norm.is_nan() || norm > 1.0 + 1e-12
        }) {
            return Err(format!("record {i} lies outside the unit ball"));
        }
        Self::solved(params, data)
    }

    /// `w*_tau` on `data` by damped Newton, certified.
    fn solved(params: TermParams, data: Vec<f64>) -> Result<Self, String> {
        let (n, d) = (params.n, params.d);
        let mut me = Self {
            params,
            data,
            w_star: vec![0.0; d],
            log_v_star: Vec::new(),
            grad_norm: f64::INFINITY,
        };
        let sol = certify_minimizer(&me, me.newton_start(), n, |w, h| me.hessian(w, h))
            .map_err(|e| format!("TERM ground truth (tau = {}): {e}", params.tau))?;
        me.log_v_star = me.log_weights(&sol.point);
        me.w_star = sol.point;
        me.grad_norm = sol.grad_norm;
        Ok(me)
    }

    /// The sharp variant (module docs): `k = ceil(atom_fraction n)` atoms at
    /// the origin (one more if `n - k` is odd), then `(n - k)/2` antipodal
    /// pairs of uniform sphere points; `w* = 0` exactly (certified by the
    /// directional-derivative argument, no solver: gradient norm 0).
    fn sharp<R: Rng + ?Sized>(params: TermParams, rng: &mut R) -> Self {
        let (n, d) = (params.n, params.d);
        let mut atoms = ((params.atom_fraction * n as f64).ceil() as usize).min(n);
        if (n - atoms) % 2 == 1 {
            atoms += 1;
        }
        let mut data = vec![0.0; atoms * d];
        for _ in 0..(n - atoms) / 2 {
            let x = sample_unit_sphere(d, rng);
            data.extend(x.iter().copied());
            data.extend(x.iter().map(|v| -v));
        }
        let mut me = Self {
            params,
            data,
            w_star: vec![0.0; d],
            log_v_star: Vec::new(),
            grad_norm: 0.0,
        };
        me.log_v_star = me.log_weights(&me.w_star);
        me
    }

    /// The sharpness `c` of the sharp variant: `F_tau(w) - F_tau(0) >= c ||w||`,
    /// the atoms' total tilted weight at `0` (`None` without atoms).
    pub fn sharpness(&self) -> Option<f64> {
        (self.params.atom_fraction > 0.0).then(|| {
            self.records()
                .zip(&self.log_v_star)
                .filter(|(x, _)| x.iter().all(|v| *v == 0.0))
                .map(|(_, lv)| lv.exp())
                .sum()
        })
    }

    /// `||grad F_tau(w*)||` achieved by Newton (`||w* - w_exact|| <= this / mu`).
    pub fn certified_gradient_norm(&self) -> f64 {
        self.grad_norm
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &TermParams {
        &self.params
    }

    /// Record `i`.
    pub fn record(&self, i: usize) -> &[f64] {
        &self.data[i * self.params.d..(i + 1) * self.params.d]
    }

    /// All records, in order.
    fn records(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.chunks_exact(self.params.d)
    }

    /// `A_R - a_R` (digest §8 E6): `2 mu` (Quadratic: `f in [0, mu/2 (1+1)^2]`)
    /// or `mu/2 + 2` (NonSmooth: max at `w = -x`, min 0 at `w = x`).
    pub fn loss_range(&self) -> f64 {
        match self.params.loss {
            TermLoss::Quadratic => 2.0 * self.params.mu,
            TermLoss::NonSmooth => 0.5 * self.params.mu + 2.0,
        }
    }

    /// `log C_tau = tau (A_R - a_R)` (Lemma 5.2; kept in log form, digest P16).
    pub fn log_c_tau(&self) -> f64 {
        self.params.tau * self.loss_range()
    }

    /// `kappa_tau = beta_tau / mu` (`1 + 4 mu tau` for Quadratic; infinite for NonSmooth).
    pub fn kappa_tau(&self) -> f64 {
        self.constants().condition_number()
    }

    /// `log v_i(w)`, `v = softmax(tau f(w, .))` with max subtraction (digest P16).
    pub fn log_weights(&self, w: &[f64]) -> Vec<f64> {
        let tau = self.params.tau;
        let mut lv: Vec<f64> = self.records().map(|x| tau * self.loss(w, x)).collect();
        let m = lv.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut s = CompensatedSum::default();
        lv.iter().for_each(|u| s.add((u - m).exp()));
        let shift = m + s.total().ln();
        lv.iter_mut().for_each(|u| *u -= shift);
        lv
    }
}

impl Objective for Term {
    fn tilted_log_c(&self) -> Option<f64> {
        Some(self.log_c_tau())
    }
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// Digest P16: `F_tau = f_bar + (1/tau) log mean exp(u_i)`,
    /// `u_i = tau (f_i - f_bar)`, as `log1p(mean expm1(u_i))` when `max u_i <= 1`
    /// (tiny tau) and `m + log(sum e^{u_i - m}) - log n`, `m = max u_i`, otherwise.
    fn value(&self, w: &[f64]) -> f64 {
        let (n, tau) = (self.params.n as f64, self.params.tau);
        let f: Vec<f64> = self.records().map(|x| self.loss(w, x)).collect();
        let mut s = CompensatedSum::default();
        f.iter().for_each(|v| s.add(*v));
        let fbar = s.total() / n;
        let m = f
            .iter()
            .map(|v| tau * (v - fbar))
            .fold(f64::NEG_INFINITY, f64::max);
        let mut e = CompensatedSum::default();
        let lse = if m <= 1.0 {
            f.iter().for_each(|v| e.add((tau * (v - fbar)).exp_m1()));
            (e.total() / n).ln_1p()
        } else {
            f.iter().for_each(|v| e.add((tau * (v - fbar) - m).exp()));
            m + e.total().ln() - n.ln()
        };
        fbar + lse / tau
    }

    /// Eq. 9: `sum_i v_i grad f(w, x_i)` (compensated), O(nd).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let mut acc = CompensatedVec::zeros(self.params.d);
        let mut gi = vec![0.0; self.params.d];
        for (x, lv) in self.records().zip(self.log_weights(w)) {
            self.loss_gradient(w, x, &mut gi);
            acc.add_scaled(lv.exp(), &gi);
        }
        out.copy_from_slice(&acc.total());
    }

    /// Digest §8 E6 / §4.4. Quadratic: `L = 2 mu`, smoothness
    /// `beta_tau = mu + tau L^2` (the valid bound of Lemma 5.3's Hessian form).
    /// NonSmooth: `L = mu + 1`, smoothness `inf`. Both: strong convexity `mu`
    /// (Lemma 5.1), `R = 1`.
    fn constants(&self) -> ProblemConstants {
        let mu = self.params.mu;
        let (lipschitz, smoothness) = match self.params.loss {
            TermLoss::Quadratic => (2.0 * mu, mu + self.params.tau * 4.0 * mu * mu),
            TermLoss::NonSmooth => (mu + 1.0, f64::INFINITY),
        };
        ProblemConstants {
            lipschitz,
            smoothness,
            strong_convexity: mu,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `(1/tau) log(sum_i v*_i e^{tau delta_i})`, `delta_i = f_i(w) - f_i(w*)`
    /// per record without cancellation, as `log1p(sum v*_i expm1(tau delta_i))`
    /// when `max tau delta_i <= 50`, by log-sum-exp of `tau delta_i + log v*_i` otherwise.
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let tau = self.params.tau;
        let (diff, sum) = difference_and_sum(w, &self.w_star);
        let t: Vec<f64> = self
            .records()
            .map(|x| tau * self.loss_delta(&diff, &sum, w, x))
            .collect();
        let tmax = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut s = CompensatedSum::default();
        if tmax <= 50.0 {
            t.iter()
                .zip(&self.log_v_star)
                .for_each(|(ti, lv)| s.add(lv.exp() * ti.exp_m1()));
            s.total().ln_1p() / tau
        } else {
            let m = t
                .iter()
                .zip(&self.log_v_star)
                .map(|(a, b)| a + b)
                .fold(f64::NEG_INFINITY, f64::max);
            t.iter()
                .zip(&self.log_v_star)
                .for_each(|(a, b)| s.add((a + b - m).exp()));
            (m + s.total().ln()) / tau
        }
    }

    /// Lemma 5.2: `(2L/mu) min{1, C_tau/n}`, the min taken in log space; paper = tight.
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        let c = self.constants();
        let log_ratio = (self.log_c_tau() - (self.params.n as f64).ln()).min(0.0);
        let s = 2.0 * c.lipschitz / c.strong_convexity * log_ratio.exp();
        MinimizerSensitivity { tight: s, paper: s }
    }
}
