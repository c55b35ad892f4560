//! The pseudo-Huber family of Lowy–Razaviyayn digest §8 E5: a
//! `J^ERM_{beta,L,R}` instance (convex, smooth) with `w* = w*_lambda = 0`.
//!
//! `f(w, x) = s (sqrt(1 + ||w - x||^2 / s^2) - 1)` on antipodally symmetric
//! [`SphereAtoms`] data plus a fraction `p` at `0`: the gradient at `0` is
//! `-(1/n) sum_i x_i / (s B_i) = 0` pair by pair, so `w* = 0`, and the
//! regularizer keeps it there. `beta = 1/s`, `L = 1`, `R = 1`. Near `0` the
//! excess is `1/2 w^T H w` with the Hessian of [`PseudoHuber::hessian_at_zero`]
//! ("measured excess ~ 1/2 E z^T Hess F(0) z", digest §8 E5).

use crate::numerics::dot;
use crate::sphere_atoms::{RadialLoss, SphereAtoms, SphereAtomsParams, SphereLayout};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// `psi(a) = s (A(a) - 1) = a^2 / (s (A + 1))`, `A(a) = sqrt(1 + a^2/s^2)`:
/// `K(a, b) = 1/(s (A + B))`, `J(a, a2, b) = 1/(s^3 (A + A2)(A + B)(A2 + B))`,
/// `psi'(a)/a = 1/(s A)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PhLoss {
    pub(crate) s: f64,
}

impl PhLoss {
    /// `A(a) = sqrt(1 + a^2/s^2)` (even in `a`).
    pub(crate) fn big_a(&self, a: f64) -> f64 {
        (a / self.s).hypot(1.0)
    }
}

impl RadialLoss for PhLoss {
    fn psi(&self, a: f64) -> f64 {
        a * a / (self.s * (self.big_a(a) + 1.0))
    }
    fn k(&self, a: f64, b: f64) -> f64 {
        1.0 / (self.s * (self.big_a(a) + self.big_a(b)))
    }
    fn j(&self, a: f64, a2: f64, b: f64) -> f64 {
        let (x, y, z) = (self.big_a(a), self.big_a(a2), self.big_a(b));
        1.0 / (self.s.powi(3) * (x + y) * (x + z) * (y + z))
    }
    fn grad_factor(&self, a: f64) -> f64 {
        1.0 / (self.s * self.big_a(a))
    }
}

/// Parameters of one pseudo-Huber instance (digest §8 E5; data always antipodal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PseudoHuberParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Scale `s > 0`; smoothness `beta = 1/s` (default 1).
    pub s: f64,
    /// Fraction of records at `0` (default 0.75), and the atom mass of the population `D`.
    pub p: f64,
}

impl PseudoHuberParams {
    /// The defaults `s = 1` (`beta = 1`) and `p = 0.75`.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            s: 1.0,
            p: 0.75,
        }
    }

    /// The data-generator parameters (antipodal layout: the uniform layout
    /// would move the smooth minimizer away from `0`).
    pub fn data_params(&self) -> SphereAtomsParams {
        SphereAtomsParams {
            n: self.n,
            d: self.d,
            p: self.p,
            layout: SphereLayout::Antipodal,
        }
    }

    /// Checks finite `s > 0` and [`SphereAtomsParams::validate`].
    pub fn validate(&self) -> Result<(), String> {
        if !(self.s.is_finite() && self.s > 0.0) {
            return Err(format!("s must be finite and > 0, got {}", self.s));
        }
        self.data_params().validate()
    }
}

/// A sampled pseudo-Huber ERM instance with `w* = 0`.
#[derive(Debug, Clone)]
pub struct PseudoHuber {
    params: PseudoHuberParams,
    loss: PhLoss,
    data: SphereAtoms,
}

impl PseudoHuber {
    /// Samples the data with [`SphereAtoms::generate`].
    ///
    /// # Panics
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(params: PseudoHuberParams, rng: &mut R) -> Self {
        if let Err(e) = params.validate() {
            panic!("invalid PseudoHuberParams: {e}");
        }
        Self {
            params,
            loss: PhLoss { s: params.s },
            data: SphereAtoms::generate(params.data_params(), rng),
        }
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &PseudoHuberParams {
        &self.params
    }

    /// The data set.
    pub fn data(&self) -> &SphereAtoms {
        &self.data
    }

    /// Per-record Hessian weights at `0`: `grad^2 f(0, x) = alpha I - gamma x x^T`
    /// with `alpha = 1/(s B)`, `gamma = 1/(s^3 B^3)`, `B = sqrt(1 + ||x||^2/s^2)`.
    fn weights(&self, x: &[f64]) -> (f64, f64) {
        let s = self.params.s;
        let b = (dot(x, x).sqrt() / s).hypot(1.0);
        (1.0 / (s * b), 1.0 / (s * b).powi(3))
    }

    /// `tr H`, `H = grad^2 F(0) = (1/n)[m I/s + sum_i (alpha_i I - gamma_i x_i x_i^T)]`
    /// (see [`PseudoHuber::hessian_at_zero`]). For isotropic noise `z`,
    /// `E z^T H z = tr(H) E||z||^2 / d`.
    pub fn hessian_trace_at_zero(&self) -> f64 {
        let (d, s) = (self.params.d as f64, self.params.s);
        let sum: f64 = self
            .sphere_rows()
            .map(|x| {
                let (al, ga) = self.weights(x);
                al * d - ga * dot(x, x)
            })
            .sum();
        (self.data.atom_count() as f64 * d / s + sum) / self.params.n as f64
    }

    /// `z^T H z` in O(nd).
    pub fn hessian_quadratic_form_at_zero(&self, z: &[f64]) -> f64 {
        let zz = dot(z, z);
        let sum: f64 = self
            .sphere_rows()
            .map(|x| {
                let (al, ga) = self.weights(x);
                let zx = dot(z, x);
                al * zz - ga * zx * zx
            })
            .sum();
        (self.data.atom_count() as f64 * zz / self.params.s + sum) / self.params.n as f64
    }

    /// The exact dense Hessian of `F` at `0`, row-major `d x d` (O(n d^2)):
    /// `grad^2 psi(||v||) = I/(s A) - v v^T/(s^3 A^3)`, `A = sqrt(1 + ||v||^2/s^2)`,
    /// at `v = -x_i`, averaged over the records (atoms give `I/s`).
    pub fn hessian_at_zero(&self) -> Vec<f64> {
        let d = self.params.d;
        let mut h = vec![0.0; d * d];
        let mut diag = self.data.atom_count() as f64 / self.params.s;
        for x in self.sphere_rows() {
            let (al, ga) = self.weights(x);
            diag += al;
            for j in 0..d {
                for k in 0..d {
                    h[j * d + k] -= ga * x[j] * x[k];
                }
            }
        }
        for j in 0..d {
            h[j * d + j] += diag;
        }
        let n = self.params.n as f64;
        h.iter_mut().for_each(|v| *v /= n);
        h
    }

    /// The population Hessian at `0` is `c I` with
    /// `c = p/s + (1 - p)(1/(s B) - 1/(d s^3 B^3))`, `B = sqrt(1 + 1/s^2)`
    /// (`E u u^T = I/d`); returns `c`.
    pub fn population_hessian_scale_at_zero(&self) -> f64 {
        let (s, p, d) = (self.params.s, self.params.p, self.params.d as f64);
        let b = (1.0 / s).hypot(1.0);
        p / s + (1.0 - p) * (1.0 / (s * b) - 1.0 / (d * (s * b).powi(3)))
    }

    fn sphere_rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.sphere_data().chunks_exact(self.params.d)
    }
}

impl Objective for PseudoHuber {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `F(w) = (1/n) sum_i s (sqrt(1 + ||w - x_i||^2/s^2) - 1)`.
    fn value(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "value: w has wrong length");
        self.data.radial_value(&self.loss, w)
    }

    /// `(1/n) sum_i (w - x_i)/(s sqrt(1 + ||w - x_i||^2/s^2))`; exactly `0` at `w = 0`.
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(w.len(), self.params.d, "gradient: w has wrong length");
        assert_eq!(out.len(), self.params.d, "gradient: out has wrong length");
        self.data.radial_gradient(&self.loss, w, out);
    }

    /// `L = 1` (`||grad f|| = a/sqrt(s^2 + a^2) < 1` on all of `R^d`),
    /// `beta = 1/s` (Hessian eigenvalues `1/(sA)` and `1/(sA^3)`), convex
    /// (`mu = 0`), `R = 1` (minimizer in the convex hull of data in `B(0, 1)`).
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 1.0,
            smoothness: 1.0 / self.params.s,
            strong_convexity: 0.0,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        self.data.origin()
    }

    /// `(1/n) sum_i (||w||^2 - 2 w.x_i)/(s (A_i + B_i))` with
    /// `A_i = sqrt(1 + ||w - x_i||^2/s^2)`, `B_i = sqrt(1 + ||x_i||^2/s^2)`,
    /// antipodal pairs summed in closed form (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "excess_risk: w has wrong length");
        self.data.radial_excess(&self.loss, w)
    }

    /// Undefined for merely convex `F`: both fields `inf` (Algorithm 7 uses
    /// `Delta_lambda = 2(L + lambda R)/(lambda n)`, digest §3).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: f64::INFINITY,
            paper: f64::INFINITY,
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `p psi(r) + (1 - p) E_t[psi(sqrt(r^2 - 2 r t + 1)) - psi(1)]`, `r = ||w||`,
    /// by deterministic quadrature (digest §8 E5 SCO, P20); minimizer `0`.
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(self.data.radial_population_excess(&self.loss, w))
    }

    /// `0`: every generated data set has `w* = 0`, the population minimizer
    /// (symmetrized sampling, see [`crate::geometric_median::GeometricMedian`]).
    fn expected_minimizer_population_excess(&self) -> Option<f64> {
        Some(0.0)
    }

    /// `0` for every `lambda >= 0` (`None` for negative or non-finite `lambda`).
    fn regularized_minimizer(&self, lambda: f64) -> Option<Vec<f64>> {
        self.data.zero_regularized_minimizer(lambda)
    }

    /// `lambda/2 ||w||^2 + (F(w) - F(0))`.
    fn regularized_excess(&self, lambda: f64, w: &[f64]) -> Option<f64> {
        self.regularized_minimizer(lambda)?;
        Some(0.5 * lambda * dot(w, w) + self.excess_risk(w))
    }
}

impl FiniteSum for PseudoHuber {
    /// `(w - x_i)/(s sqrt(1 + ||w - x_i||^2/s^2))`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        self.data.radial_record_gradient(&self.loss, i, w, out);
    }
}
