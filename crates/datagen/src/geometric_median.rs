//! The geometric-median family of Lowy–Razaviyayn digest §8 E4: a
//! `G^ERM_{L,R}` instance (convex, non-smooth) with `w* = w*_lambda = 0` exactly.
//!
//! `f(w, x) = ||w - x||` on the [`SphereAtoms`] data (a fraction `p` at `0`,
//! the rest on the unit sphere). `0` lies in `dF(0)`: the atoms contribute
//! the ball `(m/n) B(0, 1)` and the sphere records `-(1/n) sum x_i`, which is
//! `0` for antipodal pairs and has norm `<= (n - m)/n <= m/n` for the uniform
//! layout with `m >= n - m`. The regularizer `lambda/2 ||w||^2` has gradient
//! `0` at `0`, so there is no regularization bias (digest §8 E4).

use crate::numerics::dot;
use crate::sphere_atoms::{NormLoss, SphereAtoms, SphereAtomsParams, SphereLayout};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of one geometric-median instance (digest §8 E4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeometricMedianParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Fraction of records at `0` (default 0.75), and the atom mass of the population `D`.
    pub p: f64,
    /// Placement of the sphere records (default antipodal; uniform needs `p >= 1/2`).
    pub layout: SphereLayout,
}

impl GeometricMedianParams {
    /// The digest defaults `p = 0.75`, antipodal pairs.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            p: 0.75,
            layout: SphereLayout::Antipodal,
        }
    }

    /// The data-generator parameters.
    pub fn data_params(&self) -> SphereAtomsParams {
        SphereAtomsParams {
            n: self.n,
            d: self.d,
            p: self.p,
            layout: self.layout,
        }
    }

    /// Same checks as [`SphereAtomsParams::validate`].
    pub fn validate(&self) -> Result<(), String> {
        self.data_params().validate()
    }
}

/// A sampled geometric-median ERM instance with `w* = 0`.
#[derive(Debug, Clone)]
pub struct GeometricMedian {
    params: GeometricMedianParams,
    data: SphereAtoms,
}

impl GeometricMedian {
    /// Samples the data with [`SphereAtoms::generate`].
    ///
    /// # Panics
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(params: GeometricMedianParams, rng: &mut R) -> Self {
        if let Err(e) = params.validate() {
            panic!("invalid GeometricMedianParams: {e}");
        }
        Self {
            params,
            data: SphereAtoms::generate(params.data_params(), rng),
        }
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &GeometricMedianParams {
        &self.params
    }

    /// The data set.
    pub fn data(&self) -> &SphereAtoms {
        &self.data
    }
}

impl Objective for GeometricMedian {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `F(w) = (1/n) sum_i ||w - x_i||`.
    fn value(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "value: w has wrong length");
        self.data.radial_value(&NormLoss, w)
    }

    /// `(1/n) sum_i (w - x_i)/||w - x_i||` with `0` for records at `w`; `0` at `w = 0`.
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(w.len(), self.params.d, "gradient: w has wrong length");
        assert_eq!(out.len(), self.params.d, "gradient: out has wrong length");
        self.data.radial_gradient(&NormLoss, w, out);
    }

    /// `L = 1`, non-smooth (`beta = inf`), merely convex (`mu = 0`), and `R = 1`
    /// (the geometric median lies in the convex hull of the data, inside
    /// `B(0, 1)` for every data set of the universe; digest P4).
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 1.0,
            smoothness: f64::INFINITY,
            strong_convexity: 0.0,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        self.data.origin()
    }

    /// `F(w) - F(0) = (1/n) sum_i (||w||^2 - 2 w.x_i)/(||w - x_i|| + ||x_i||)`,
    /// antipodal pairs summed in closed form (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "excess_risk: w has wrong length");
        self.data.radial_excess(&NormLoss, w)
    }

    /// Undefined for merely convex `F` (Prop 2.2 needs `mu > 0`): both fields
    /// are `inf`. Algorithm 7 uses `Delta_lambda = 2(L + lambda R)/(lambda n)`
    /// of the regularized problem instead (digest §3, Algorithm 7).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: f64::INFINITY,
            paper: f64::INFINITY,
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `p r + (1 - p) E_t[sqrt(r^2 - 2 r t + 1) - 1]`, `r = ||w||`, by
    /// deterministic quadrature with the pair-symmetrized stable integrand
    /// (digest §8 E3 last bullet, P20). Population minimizer `0` for every `p`.
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(self.data.radial_population_excess(&NormLoss, w))
    }

    /// `0`: every data set this generator produces has `w* = 0`, the
    /// population minimizer, so the statistical term vanishes. (The
    /// generator is a symmetrized draw, not i.i.d. from `D`: each sphere
    /// record is marginally uniform and the atom count is fixed to `m`.)
    fn expected_minimizer_population_excess(&self) -> Option<f64> {
        Some(0.0)
    }

    /// `0` for every `lambda >= 0` (`None` for negative or non-finite `lambda`).
    fn regularized_minimizer(&self, lambda: f64) -> Option<Vec<f64>> {
        self.data.zero_regularized_minimizer(lambda)
    }

    /// `lambda/2 ||w||^2 + (F(w) - F(0))`, both terms non-negative.
    fn regularized_excess(&self, lambda: f64, w: &[f64]) -> Option<f64> {
        self.regularized_minimizer(lambda)?;
        Some(0.5 * lambda * dot(w, w) + self.excess_risk(w))
    }
}

impl FiniteSum for GeometricMedian {
    /// `(w - x_i)/||w - x_i||`, and `0` when `w = x_i`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        self.data.radial_record_gradient(&NormLoss, i, w, out);
    }
}
