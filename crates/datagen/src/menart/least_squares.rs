//! F-F (digest §4.3): least squares `f(w; (x, y)) = 1/2 (<x, w> - y)^2`, PL and
//! convex.
//!
//! Data: `x_i` uniform on the unit sphere, `y_i = <x_i, w#> + s u_i` with
//! `||w#|| = 1` and `u_i` uniform on `[-1, 1]`. `H = X^T X / n`, `w^ = H^-1 X^T y / n`
//! (Cholesky; needs full rank, i.e. `n >= d` in practice). Excess
//! `1/2 (w - w^)^T H (w - w^) = (1/2n) ||X (w - w^)||^2` (digest P17, no
//! cancellation). PL with any `mu <= lambda_min(H)`, so `(1/sqrt(2 mu), 2)`-KL.
//! `gamma` sets Algorithm 1's round count and every noise scale, so `mu` is
//! the public [`super::public_min_eigenvalue`]`(n, d)` (digest P7), never
//! the sampled `H`'s; the family's universe is the data sets whose certified
//! `lambda_min(H)` ([`super::min_eigenvalue_lower_bound`]) is at least that
//! bound, and a sample outside it (probability `<= 1e-6`) is refused (a
//! utility guard: the noise never reads the data).
//! Public constants (`||x_i|| = 1`, `|y_i| <= 1 + s`) on `B_B(0)`, start
//! `w0 = 0`: `L1 = 1`, `L0 = B + 1 + s`, `F0 = (1 + s)^2 / 2 >= F(0)`.
//! Oracles: the `O(n d)` defaults.

use super::common::{check_pos, check_universe, no_sensitivity};
use super::spectrum::{gram, min_eigenvalue_lower_bound, public_min_eigenvalue};
use super::RecordLoss;
use crate::geometry::sample_unit_sphere;
use crate::linalg::cholesky_solve;
use crate::numerics::{dot, dot4, PREFETCH_MIN_LEN, PREFETCH_ROWS};
use dpcore::menart::{KlConstants, KlObjective, KlParameters};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::{Rng, RngExt};

/// Parameters of an F-F instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeastSquaresParams {
    /// Number of records `n >= d`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Label noise amplitude `s >= 0`.
    pub noise: f64,
    /// Region radius `B` around `w0 = 0`.
    pub region_radius: f64,
}

impl LeastSquaresParams {
    /// Defaults: noise 0.1, `B = 2.5`.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            noise: 0.1,
            region_radius: 2.5,
        }
    }

    /// The public constants (module docs), a function of the parameters
    /// alone (the PL constant is the public [`public_min_eigenvalue`]`(n,
    /// d)`, never the sample's): the instance reports these, and `runner
    /// plan` derives Algorithm 1's round count from them without drawing
    /// data.
    pub fn kl_constants(&self) -> KlConstants {
        self.constants_with_mu(public_min_eigenvalue(self.n, self.d))
    }

    /// [`Self::kl_constants`] with `mu` already computed.
    fn constants_with_mu(&self, public_mu: f64) -> KlConstants {
        let s = self.noise;
        let b = self.region_radius;
        KlConstants {
            kl: Some(KlParameters {
                gamma: 1.0 / (2.0 * public_mu).sqrt(),
                kappa: 2.0,
            }),
            lipschitz: b + 1.0 + s,
            smoothness: 1.0,
            weak_convexity: 0.0,
            region_radius: b,
            initial_gap: 0.5 * (1.0 + s) * (1.0 + s),
        }
    }
}

/// An F-F instance (module docs).
#[derive(Debug, Clone)]
pub struct LeastSquares {
    params: LeastSquaresParams,
    x: Vec<f64>,
    y: Vec<f64>,
    solution: Vec<f64>,
    mu: f64,
    public_mu: f64,
    start: Vec<f64>,
    min_value: f64,
}

impl LeastSquares {
    /// Samples the data and solves the normal equations.
    ///
    /// # Panics
    /// On invalid parameters or a data set outside the family's universe
    /// ([`Self::try_new`]).
    pub fn new<R: Rng + ?Sized>(params: LeastSquaresParams, rng: &mut R) -> Self {
        Self::try_new(params, rng).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Samples the data and solves the normal equations; `Err` when the
    /// certified `lambda_min(H)` is below the public bound (module docs).
    ///
    /// # Panics
    /// On invalid parameters.
    pub fn try_new<R: Rng + ?Sized>(
        params: LeastSquaresParams,
        rng: &mut R,
    ) -> Result<Self, String> {
        let (n, d) = (params.n, params.d);
        assert!(n >= d && d >= 1, "need n >= d >= 1");
        check_pos("region_radius", params.region_radius);
        assert!(params.noise >= 0.0, "noise must be >= 0");
        let truth = sample_unit_sphere(d, rng);
        let mut x = Vec::with_capacity(n * d);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let xi = sample_unit_sphere(d, rng);
            let u: f64 = rng.random_range(-1.0..=1.0);
            y.push(dot(&xi, &truth) + params.noise * u);
            x.extend(xi);
        }
        Self::from_data(params, x, y)
    }

    /// The instance on explicit records (`x_i` on the unit sphere,
    /// `|y_i| <= 1 + s`).
    fn from_data(params: LeastSquaresParams, x: Vec<f64>, y: Vec<f64>) -> Result<Self, String> {
        let (n, d) = (params.n, params.d);
        let h = gram(&x, d);
        let mu = min_eigenvalue_lower_bound(&h, d);
        let public_mu = public_min_eigenvalue(n, d);
        check_universe(n, d, mu, public_mu)?;
        let mut rhs = vec![0.0; d];
        for (xi, yi) in x.chunks(d).zip(&y) {
            rhs.iter_mut()
                .zip(xi)
                .for_each(|(r, v)| *r += yi * v / n as f64);
        }
        let mut a = h;
        cholesky_solve(&mut a, &mut rhs).expect("H is positive definite");
        let min_value = x
            .chunks(d)
            .zip(&y)
            .map(|(xi, yi)| 0.5 * (dot(xi, &rhs) - yi).powi(2))
            .sum::<f64>()
            / n as f64;
        Ok(Self {
            params,
            x,
            y,
            solution: rhs,
            mu,
            public_mu,
            start: vec![0.0; d],
            min_value,
        })
    }

    /// The neighbouring data set with record `i` replaced by `(x, y)` (`x`
    /// a unit vector, `|y| <= 1 + s`); `Err` when it leaves the universe.
    ///
    /// # Panics
    /// On `i >= n`, `x` of the wrong length or `|y| > 1 + s`.
    pub fn with_record(&self, i: usize, x: &[f64], y: f64) -> Result<Self, String> {
        let d = self.params.d;
        assert!(i < self.params.n && x.len() == d, "record out of range");
        assert!(y.abs() <= 1.0 + self.params.noise, "|y| must be <= 1 + s");
        let mut xs = self.x.clone();
        xs[i * d..(i + 1) * d].copy_from_slice(x);
        let mut ys = self.y.clone();
        ys[i] = y;
        Self::from_data(self.params, xs, ys)
    }

    /// Record `i`: features `x_i` and label `y_i`.
    pub fn record(&self, i: usize) -> (&[f64], f64) {
        let d = self.params.d;
        (&self.x[i * d..(i + 1) * d], self.y[i])
    }

    /// Certified `mu <= lambda_min(H)` of the sampled data (a diagnostic:
    /// the KL constant uses [`Self::public_pl_constant`]).
    pub fn pl_constant(&self) -> f64 {
        self.mu
    }

    /// The public PL constant `mu(n, d)` the KL constant is built from.
    pub fn public_pl_constant(&self) -> f64 {
        self.public_mu
    }
}

impl Objective for LeastSquares {
    fn dim(&self) -> usize {
        self.params.d
    }
    fn num_records(&self) -> usize {
        self.params.n
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.min_value + self.excess_risk(w)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let d = self.params.d;
        out.iter_mut().for_each(|o| *o = 0.0);
        // w - w^ once, not once per record (the same differences, so the
        // same result bit for bit).
        let diff: Vec<f64> = w.iter().zip(&self.solution).map(|(u, v)| u - v).collect();
        // <x_i, w - w^>: the normal equations make sum_i x_i (<x_i, w^> - y_i) = 0.
        // Four records at a time (`dot4`, then each coordinate updated in
        // record order): the same operations in the same order as one
        // record at a time, without waiting on one dot product per record;
        // long rows PREFETCH_ROWS records ahead are hinted to the cache (see
        // `compensated_glm_sum`), which never changes a result.
        let hint = d >= PREFETCH_MIN_LEN;
        let mut blocks = self.x.chunks_exact(4 * d);
        for (b, block) in (&mut blocks).enumerate() {
            let ahead = 4 * b + PREFETCH_ROWS;
            if let Some(rows) = self.x.get(ahead * d..(ahead + 4) * d).filter(|_| hint) {
                dpcore::prefetch::prefetch_slice(rows);
            }
            let x: [&[f64]; 4] = std::array::from_fn(|k| &block[k * d..(k + 1) * d]);
            let r = dot4(&diff, x);
            let rows = x[0].iter().zip(x[1]).zip(x[2]).zip(x[3]);
            for (o, (((a0, a1), a2), a3)) in out.iter_mut().zip(rows) {
                *o = *o + r[0] * a0 + r[1] * a1 + r[2] * a2 + r[3] * a3;
            }
        }
        for xi in blocks.remainder().chunks_exact(d) {
            let r: f64 = xi.iter().zip(&diff).map(|(a, e)| a * e).sum();
            out.iter_mut().zip(xi).for_each(|(o, a)| *o += r * a);
        }
        out.iter_mut().for_each(|o| *o /= self.params.n as f64);
    }
    fn constants(&self) -> ProblemConstants {
        let k = self.kl_constants();
        ProblemConstants {
            lipschitz: k.lipschitz,
            smoothness: 1.0,
            strong_convexity: self.public_mu,
            radius: k.region_radius,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.solution
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let d = self.params.d;
        let s: f64 = self
            .x
            .chunks(d)
            .map(|xi| {
                let r: f64 = xi
                    .iter()
                    .zip(w.iter().zip(&self.solution))
                    .map(|(a, (u, v))| a * (u - v))
                    .sum();
                r * r
            })
            .sum();
        0.5 * s / self.params.n as f64
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for LeastSquares {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        let d = self.params.d;
        0.5 * (dot(&self.x[i * d..(i + 1) * d], w) - self.y[i]).powi(2)
    }
}

impl FiniteSum for LeastSquares {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let d = self.params.d;
        let xi = &self.x[i * d..(i + 1) * d];
        let r = dot(xi, w) - self.y[i];
        out.iter_mut().zip(xi).for_each(|(o, a)| *o = r * a);
    }
}

impl KlObjective for LeastSquares {
    fn kl_constants(&self) -> KlConstants {
        self.params.constants_with_mu(self.public_mu)
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.start
    }
}
