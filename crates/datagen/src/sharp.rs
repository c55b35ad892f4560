//! The sharp family of Lowy–Razaviyayn digest §8 E2: an `F^ERM_{mu,L,R}`
//! instance (non-smooth, strongly convex) whose excess risk has a linear kink
//! at the exact minimizer `w* = 0`.
//!
//! `f(w, x) = mu/2 ||w||^2 + ||w - x||` on the [`SphereAtoms`] data (a
//! fraction `p` at `0`, the rest on the unit sphere). Then `0` lies in
//! `dF(0)` (see [`crate::geometric_median`]) and, for antipodal data,
//! `(m/n) ||w|| + mu/2 ||w||^2 <= F(w) - F(0) <= ||w|| + mu/2 ||w||^2`
//! (each pair has `||w - x|| + ||w + x|| >= 2`), so `L E||z||` is tight up to
//! the factor `m/n` (digest §8 E2 states `2p - 1`, the uniform-layout bound).
//!
//! The *benign* control (digest P17) has no atom (`p = 0`, antipodal, `n`
//! even): `w* = 0` by symmetry and `F` is smooth near `0` with Hessian
//! `H = mu I + (1/n) sum_i (I - x_i x_i^T/||x_i||^2)/||x_i||`
//! (`= mu I + (1/n) sum_i (I - x_i x_i^T)` on the unit sphere), so the excess is
//! locally `1/2 w^T H w` and the measured rate is the smooth one.

use crate::numerics::dot;
use crate::sphere_atoms::{NormLoss, SphereAtoms, SphereAtomsParams, SphereLayout};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of one sharp instance (digest §8 E2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharpParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Strong-convexity modulus `mu > 0` (digest default 0.1).
    pub mu: f64,
    /// Fraction of records at `0` (default 0.75), and the atom mass of the population `D`.
    pub p: f64,
    /// Placement of the sphere records (default antipodal; uniform needs `p >= 1/2`).
    pub layout: SphereLayout,
}

impl SharpParams {
    /// The digest defaults `mu = 0.1`, `p = 0.75`, antipodal pairs.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            mu: 0.1,
            p: 0.75,
            layout: SphereLayout::Antipodal,
        }
    }

    /// The benign control (digest P17): `mu = 0.1`, `p = 0`, antipodal pairs
    /// only (requires even `n`).
    pub fn benign(n: usize, d: usize) -> Self {
        Self {
            p: 0.0,
            ..Self::new(n, d)
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

    /// Checks finite `mu > 0`, the data parameters
    /// ([`SphereAtomsParams::validate`]) and, for `p = 0`, an even `n` (an odd
    /// leftover record would become an atom and break the benign control).
    pub fn validate(&self) -> Result<(), String> {
        if !(self.mu.is_finite() && self.mu > 0.0) {
            return Err(format!("mu must be finite and > 0, got {}", self.mu));
        }
        if self.p == 0.0 && self.n % 2 == 1 {
            return Err(format!(
                "p = 0 (benign control) needs an even n, got {}",
                self.n
            ));
        }
        self.data_params().validate()
    }
}

/// A sampled sharp ERM instance with `w* = 0`.
#[derive(Debug, Clone)]
pub struct Sharp {
    params: SharpParams,
    data: SphereAtoms,
}

impl Sharp {
    /// Samples the data with [`SphereAtoms::generate`].
    ///
    /// # Panics
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(params: SharpParams, rng: &mut R) -> Self {
        if let Err(e) = params.validate() {
            panic!("invalid SharpParams: {e}");
        }
        Self {
            params,
            data: SphereAtoms::generate(params.data_params(), rng),
        }
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &SharpParams {
        &self.params
    }

    /// The data set.
    pub fn data(&self) -> &SphereAtoms {
        &self.data
    }

    /// True when no record sits at `0`, i.e. `F` is twice differentiable at
    /// `w* = 0` (the benign control of digest P17).
    pub fn is_benign(&self) -> bool {
        self.data.atom_count() == 0
    }

    /// `tr H = mu d + (1/n) sum_i (d - 1)/||x_i||` for the benign instance
    /// (`= mu d + d - 1` on the unit sphere); `None` when an atom makes `F`
    /// non-differentiable at `0`. For small isotropic `z`,
    /// `E[F(z) - F(0)] ~ tr(H) E||z||^2 / (2d)`.
    pub fn hessian_trace_at_zero(&self) -> Option<f64> {
        if !self.is_benign() {
            return None;
        }
        let d = self.params.d as f64;
        let s: f64 = self
            .sphere_rows()
            .map(|x| (d - 1.0) / dot(x, x).sqrt())
            .sum();
        Some(self.params.mu * d + s / self.params.n as f64)
    }

    /// `z^T H z = mu ||z||^2 + (1/n) sum_i (||z||^2 - (z.x_i)^2/||x_i||^2)/||x_i||`
    /// in O(nd) for the benign instance; `None` otherwise.
    pub fn hessian_quadratic_form_at_zero(&self, z: &[f64]) -> Option<f64> {
        if !self.is_benign() {
            return None;
        }
        let zz = dot(z, z);
        let s: f64 = self
            .sphere_rows()
            .map(|x| {
                let (xx, zx) = (dot(x, x), dot(z, x));
                (zz - zx * zx / xx) / xx.sqrt()
            })
            .sum();
        Some(self.params.mu * zz + s / self.params.n as f64)
    }

    /// The dense Hessian `H` at `0` (row-major `d x d`, O(n d^2)) for the
    /// benign instance; `None` otherwise.
    pub fn hessian_at_zero(&self) -> Option<Vec<f64>> {
        if !self.is_benign() {
            return None;
        }
        let (d, n) = (self.params.d, self.params.n as f64);
        let mut h = vec![0.0; d * d];
        for x in self.sphere_rows() {
            let xx = dot(x, x);
            let inv = 1.0 / xx.sqrt();
            for j in 0..d {
                h[j * d + j] += inv;
                for k in 0..d {
                    h[j * d + k] -= x[j] * x[k] / xx * inv;
                }
            }
        }
        for (j, v) in h.iter_mut().enumerate() {
            *v /= n;
            if j % (d + 1) == 0 {
                *v += self.params.mu;
            }
        }
        Some(h)
    }

    fn sphere_rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.sphere_data().chunks_exact(self.params.d)
    }

    /// `(mu + lambda)/2 ||w||^2 + (1/n) sum_i (||w - x_i|| - ||x_i||)`, stably.
    fn excess_with(&self, lambda: f64, w: &[f64]) -> f64 {
        0.5 * (self.params.mu + lambda) * dot(w, w) + self.data.radial_excess(&NormLoss, w)
    }
}

impl Objective for Sharp {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `F(w) = mu/2 ||w||^2 + (1/n) sum_i ||w - x_i||`.
    fn value(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "value: w has wrong length");
        0.5 * self.params.mu * dot(w, w) + self.data.radial_value(&NormLoss, w)
    }

    /// `mu w + (1/n) sum_i (w - x_i)/||w - x_i||` (`0` for records at `w`);
    /// `0` at `w = 0`, which lies in `dF(0)`.
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(w.len(), self.params.d, "gradient: w has wrong length");
        assert_eq!(out.len(), self.params.d, "gradient: out has wrong length");
        self.data.radial_gradient(&NormLoss, w, out);
        for (o, wj) in out.iter_mut().zip(w) {
            *o += self.params.mu * wj;
        }
    }

    /// `L = 1 + mu R` on `B(0, R)`, non-smooth, strong convexity `mu`, and
    /// `R = 1`: projecting onto `B(0, 1)` shrinks `||w||` and every
    /// `||w - x_i||` for data in the unit ball, so `||w*|| <= 1` for every data
    /// set of the universe (digest §8 E2, P4).
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 1.0 + self.params.mu,
            smoothness: f64::INFINITY,
            strong_convexity: self.params.mu,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        self.data.origin()
    }

    /// `mu/2 ||w||^2 + (1/n) sum_i (||w||^2 - 2 w.x_i)/(||w - x_i|| + ||x_i||)`,
    /// antipodal pairs summed in closed form (digest P15).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "excess_risk: w has wrong length");
        self.excess_with(0.0, w)
    }

    /// Tight `2/(mu n)` (only the data-dependent part `||w - x||`, 1-Lipschitz,
    /// changes; digest §1.4, P5); paper (Prop 2.2) `2L/(mu n)`, `L = 1 + mu`.
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity::strongly_convex_unit_lipschitz(
            self.params.mu,
            self.params.n,
            self.constants().lipschitz,
        )
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `mu/2 r^2 + p r + (1 - p) E_t[sqrt(r^2 - 2 r t + 1) - 1]`, `r = ||w||`,
    /// by deterministic quadrature (digest §8 E3 last bullet, P20). The
    /// population minimizer is `0` for every `p` in `[0, 1]` (`E u = 0`).
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        Some(0.5 * self.params.mu * dot(w, w) + self.data.radial_population_excess(&NormLoss, w))
    }

    /// `0`: every generated data set has `w* = 0`, the population minimizer
    /// (see [`crate::geometric_median::GeometricMedian`]'s method for the
    /// symmetrized-sampling caveat).
    fn expected_minimizer_population_excess(&self) -> Option<f64> {
        Some(0.0)
    }

    /// `0` for every `lambda >= 0`: the data keep `0` in `dF_lambda(0)`.
    fn regularized_minimizer(&self, lambda: f64) -> Option<Vec<f64>> {
        self.data.zero_regularized_minimizer(lambda)
    }

    /// The excess formula with `mu + lambda` in place of `mu` (exact).
    fn regularized_excess(&self, lambda: f64, w: &[f64]) -> Option<f64> {
        self.regularized_minimizer(lambda)?;
        Some(self.excess_with(lambda, w))
    }
}

impl FiniteSum for Sharp {
    /// `mu w + (w - x_i)/||w - x_i||` (`mu w` when `w = x_i`).
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        self.data.radial_record_gradient(&NormLoss, i, w, out);
        for (o, wj) in out.iter_mut().zip(w) {
            *o += self.params.mu * wj;
        }
    }
}
