//! F-C (digest §4.3): realisable power regression
//! `f(w; (a, b)) = (1/p) |<a, w> - b|^p`, `b_i = <a_i, w#>`, `||a_i|| = 1`,
//! convex with `F* = 0` at `w#`; restricted to `p >= 2` (`kappa <= 2`, the
//! Algorithm 1/3 regime) where the KL constant can be certified.
//!
//! Residuals are computed as `<a_i, w - w#>` and the excess is
//! `(1/(n p)) sum |<a_i, w - w#>|^p` (digest P17). Growth
//! `F(w) >= (M_p/p) ||w - w#||^p` with `M_p = min_{||v||=1} (1/n) sum |<a_i, v>|^p
//! >= lambda_min(A^T A/n)^(p/2)` (power mean, `p >= 2`), so Lemma 6 gives
//! `(gamma, p/(p-1))`-KL with `gamma = p^(1/p) / sqrt(mu)` for any
//! `mu <= lambda_min`. Privacy needs `gamma` public (it sets Algorithm 1's
//! round count and every noise scale, digest P7), so `mu` is the public
//! [`super::public_min_eigenvalue`]`(n, d)` (`~ 1/d`: `gamma ~ sqrt d`, the
//! `d`-slope doubles, digest §4.2 rule 2), never the sampled design's. The
//! family's universe is the designs whose certified `lambda_min` is at least
//! that bound; a sample outside it (probability `<= 1e-6`) is refused, which
//! guards the utility claim only: the noise never reads the data. Constants on `B_R(w#)`,
//! `R = margin R0`: `L0 = R^(p-1)`, `L1 = (p-1) R^(p-2)`, `F0 = R0^p/p`.
//! Oracles: the `O(n d)` defaults.

use super::common::{
    check_pos, check_universe, no_sensitivity, point_at_distance, problem_constants,
};
use super::spectrum::{gram, min_eigenvalue_lower_bound, public_min_eigenvalue};
use super::RecordLoss;
use crate::geometry::{push_unit_sphere, sample_unit_sphere};
use dpcore::menart::{KlConstants, KlObjective, KlParameters};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of an F-C instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerRegressionParams {
    /// Number of records `n >= d`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Power `p >= 2`.
    pub p: f64,
    /// Start distance `R0 = ||w0 - w#||`.
    pub start_distance: f64,
    /// Region radius factor, `R = margin R0`.
    pub margin: f64,
}

impl PowerRegressionParams {
    /// Defaults `R0 = 1`, margin 1.5.
    pub fn new(n: usize, d: usize, p: f64) -> Self {
        Self {
            n,
            d,
            p,
            start_distance: 1.0,
            margin: 1.5,
        }
    }

    /// The public constants (module docs), a function of the parameters
    /// alone (`gamma` from the public [`public_min_eigenvalue`]`(n, d)`,
    /// never the design's): the instance reports these, and `runner plan`
    /// derives Algorithm 1's round count from them without drawing data.
    pub fn kl_constants(&self) -> KlConstants {
        self.constants_with_bound(public_min_eigenvalue(self.n, self.d))
    }

    /// [`Self::kl_constants`] with the public eigenvalue bound already
    /// computed.
    fn constants_with_bound(&self, public_lambda_min: f64) -> KlConstants {
        let p = self.p;
        let big_r = self.margin * self.start_distance;
        KlConstants {
            kl: Some(KlParameters {
                gamma: p.powf(1.0 / p) / public_lambda_min.sqrt(),
                kappa: p / (p - 1.0),
            }),
            lipschitz: big_r.powf(p - 1.0),
            smoothness: (p - 1.0) * big_r.powf(p - 2.0),
            weak_convexity: 0.0,
            region_radius: big_r,
            initial_gap: self.start_distance.powf(p) / p,
        }
    }
}

/// An F-C instance (module docs).
#[derive(Debug, Clone)]
pub struct PowerRegression {
    params: PowerRegressionParams,
    a: Vec<f64>,
    truth: Vec<f64>,
    start: Vec<f64>,
    lambda_min: f64,
    public_lambda_min: f64,
}

impl PowerRegression {
    /// Samples the design and the truth.
    ///
    /// # Panics
    /// On `p < 2`, `n < d`, or a design outside the family's universe
    /// ([`Self::try_new`]).
    pub fn new<R: Rng + ?Sized>(params: PowerRegressionParams, rng: &mut R) -> Self {
        Self::try_new(params, rng).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Samples the design and the truth; `Err` when the sampled design's
    /// certified `lambda_min` is below the public bound (module docs) or no
    /// public bound exists at this `(n, d)`.
    ///
    /// # Panics
    /// On `p < 2`, `n < d` or invalid distances.
    pub fn try_new<R: Rng + ?Sized>(
        params: PowerRegressionParams,
        rng: &mut R,
    ) -> Result<Self, String> {
        let (n, d) = (params.n, params.d);
        assert!(n >= d && d >= 1, "need n >= d >= 1");
        assert!(params.p >= 2.0 && params.p.is_finite(), "p must be >= 2");
        check_pos("start_distance", params.start_distance);
        assert!(params.margin >= 1.0, "margin must be >= 1");
        let truth = sample_unit_sphere(d, rng);
        let start = point_at_distance(&truth, params.start_distance, rng);
        let mut a = Vec::with_capacity(n * d);
        for _ in 0..n {
            push_unit_sphere(&mut a, d, rng);
        }
        Self::from_design(params, a, truth, start)
    }

    /// The instance on an explicit design (rows of `a` on the unit sphere).
    fn from_design(
        params: PowerRegressionParams,
        a: Vec<f64>,
        truth: Vec<f64>,
        start: Vec<f64>,
    ) -> Result<Self, String> {
        let d = params.d;
        let public_lambda_min = public_min_eigenvalue(params.n, d);
        let lambda_min = min_eigenvalue_lower_bound(&gram(&a, d), d);
        check_universe(params.n, d, lambda_min, public_lambda_min)?;
        Ok(Self {
            params,
            a,
            truth,
            start,
            lambda_min,
            public_lambda_min,
        })
    }

    /// The neighbouring data set with record `i` replaced by the unit vector
    /// `a` (label `<a, w#>`, still realisable); `Err` when the new design
    /// leaves the family's universe.
    ///
    /// # Panics
    /// On `i >= n` or `a` of the wrong length.
    pub fn with_record(&self, i: usize, a: &[f64]) -> Result<Self, String> {
        let d = self.params.d;
        assert!(i < self.params.n && a.len() == d, "record out of range");
        let mut design = self.a.clone();
        design[i * d..(i + 1) * d].copy_from_slice(a);
        Self::from_design(self.params, design, self.truth.clone(), self.start.clone())
    }

    /// Record `i`'s features `a_i` (its label is `<a_i, w#>`).
    pub fn row(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        &self.a[i * d..(i + 1) * d]
    }

    /// Certified `lambda_min(A^T A / n)` lower bound of the sampled design
    /// (a diagnostic: the KL constant uses [`Self::public_lambda_min`]).
    pub fn lambda_min(&self) -> f64 {
        self.lambda_min
    }

    /// The public bound `mu(n, d)` the KL constant is built from.
    pub fn public_lambda_min(&self) -> f64 {
        self.public_lambda_min
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

impl Objective for PowerRegression {
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
        let d = self.params.d;
        out.iter_mut().for_each(|o| *o = 0.0);
        for i in 0..self.params.n {
            let r = self.residual(i, w);
            let s = r.abs().powf(self.params.p - 2.0) * r / self.params.n as f64;
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
        let p = self.params.p;
        (0..self.params.n)
            .map(|i| self.residual(i, w).abs().powf(p))
            .sum::<f64>()
            / (p * self.params.n as f64)
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for PowerRegression {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        self.residual(i, w).abs().powf(self.params.p) / self.params.p
    }
}

impl FiniteSum for PowerRegression {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let d = self.params.d;
        let r = self.residual(i, w);
        let s = r.abs().powf(self.params.p - 2.0) * r;
        out.iter_mut()
            .zip(&self.a[i * d..(i + 1) * d])
            .for_each(|(o, a)| *o = s * a);
    }
}

impl KlObjective for PowerRegression {
    fn kl_constants(&self) -> KlConstants {
        self.params.constants_with_bound(self.public_lambda_min)
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.truth
    }
}
