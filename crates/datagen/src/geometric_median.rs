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

/// The geometric-median loss `f(w, x) = ||w - x||` (L = 1, non-smooth, merely
/// convex, R = 1, as [`GeometricMedian`]) on caller-chosen records that all
/// lie on the `e_1` axis, `x_i = a_i e_1` with `|a_i| <= 1`: the neighbouring
/// pairs of the privacy audit of the regularized mechanisms (Eq. 6,
/// Algorithm 7).
///
/// On the axis every minimizer is known exactly: `||w - a e_1|| >= |w_1 - a|`
/// and `||w||^2 >= w_1^2`, with equality iff `w_2 = .. = w_d = 0`, so the
/// minimizers of `F` and of `F_lambda = F + lambda/2 ||w||^2` are `t e_1`
/// with `t` the minimizer of the 1-D `(1/n) sum_i |t - a_i| (+ lambda/2 t^2)`,
/// found exactly from the sorted `a_i` (a median; for `lambda > 0` the root
/// of the piecewise-linear derivative). Both lie in `[min a_i, max a_i]`,
/// inside `B(0, 1)`, so they are also the minimizers over the ball.
#[derive(Debug, Clone)]
pub struct AxisGeometricMedian {
    d: usize,
    /// Records, row-major `n x d` (zero beyond the first coordinate).
    data: Vec<f64>,
    /// The first coordinates `a_i`, ascending.
    sorted: Vec<f64>,
    /// `w* = t e_1` with `t` the midpoint of the median interval.
    w_star: Vec<f64>,
}

impl AxisGeometricMedian {
    /// The instance on `data` (row-major `n x d`, `n >= 1`, `d >= 1`); every
    /// record must be `a e_1` with finite `|a| <= 1`.
    ///
    /// # Errors
    /// A wrong length, or a record off the axis or outside the unit ball (the
    /// message names it).
    pub fn from_records(d: usize, data: Vec<f64>) -> Result<Self, String> {
        if d == 0 || data.is_empty() || !data.len().is_multiple_of(d) {
            return Err(format!(
                "{} coordinates are not n >= 1 records of dimension d = {d} >= 1",
                data.len()
            ));
        }
        for (i, row) in data.chunks_exact(d).enumerate() {
            if !(row[0].is_finite() && row[0].abs() <= 1.0) || row[1..].iter().any(|v| *v != 0.0) {
                return Err(format!("record {i} is not a e_1 with |a| <= 1: {row:?}"));
            }
        }
        let mut sorted: Vec<f64> = data.chunks_exact(d).map(|row| row[0]).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let t = 0.5 * (sorted[(n - 1) / 2] + sorted[n / 2]);
        let mut w_star = vec![0.0; d];
        w_star[0] = t;
        Ok(Self {
            d,
            data,
            sorted,
            w_star,
        })
    }

    /// Record `i`.
    pub fn record(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// The minimizer `t` of `(1/n) sum_i |t - a_i| + lambda/2 t^2` for
    /// `lambda > 0`: on the open interval with `k` of the `a_i` below `t` the
    /// derivative is `(2k - n)/n + lambda t`, at a value `v` held by `e`
    /// records with `k` below it the subdifferential is
    /// `[(2k - n)/n, (2k + 2e - n)/n] + lambda v`; the function is strictly
    /// convex, so exactly one interval root or kink qualifies.
    fn regularized_coordinate(&self, lambda: f64) -> f64 {
        let n = self.sorted.len();
        let nf = n as f64;
        let mut below = 0usize;
        let mut i = 0usize;
        loop {
            // Open interval (a_(below), next value): root of (2k - n)/n + lambda t.
            let t = (nf - 2.0 * below as f64) / (nf * lambda);
            let lower_ok = below == 0 || t > self.sorted[below - 1];
            let upper_ok = i == n || t < self.sorted[i];
            if lower_ok && upper_ok {
                return t;
            }
            if i == n {
                // Unreachable for lambda > 0 (the derivative is 1 + lambda t
                // > 0 beyond the largest value); the largest value is then
                // the only candidate left.
                return self.sorted[n - 1];
            }
            let v = self.sorted[i];
            let mut e = 0usize;
            while i + e < n && self.sorted[i + e] == v {
                e += 1;
            }
            let lo = (2.0 * below as f64 - nf) / nf + lambda * v;
            let hi = (2.0 * (below + e) as f64 - nf) / nf + lambda * v;
            if lo <= 0.0 && 0.0 <= hi {
                return v;
            }
            below += e;
            i += e;
        }
    }

    /// `sum_i (||w - x_i|| - ||c - x_i||)` for `c = t e_1`, each term as
    /// `(||w - x_i||^2 - (t - a_i)^2)/(||w - x_i|| + |t - a_i|)` with the
    /// numerator `(w_1 - t)(w_1 + t - 2 a_i) + rho^2`, `rho^2 = sum_{j>1} w_j^2`
    /// (no cancellation, digest P15).
    fn sum_of_differences(&self, w: &[f64], t: f64) -> f64 {
        let rho_sq: f64 = w[1..].iter().map(|v| v * v).sum();
        let mut s = crate::numerics::CompensatedSum::default();
        for row in self.data.chunks_exact(self.d) {
            let a = row[0];
            let num = (w[0] - t) * (w[0] + t - 2.0 * a) + rho_sq;
            let den = ((w[0] - a) * (w[0] - a) + rho_sq).sqrt() + (t - a).abs();
            if den > 0.0 {
                s.add(num / den);
            }
        }
        s.total()
    }
}

impl Objective for AxisGeometricMedian {
    fn dim(&self) -> usize {
        self.d
    }

    fn num_records(&self) -> usize {
        self.sorted.len()
    }

    /// `F(w) = (1/n) sum_i ||w - x_i||`.
    fn value(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.d, "value: w has wrong length");
        let mut s = crate::numerics::CompensatedSum::default();
        for row in self.data.chunks_exact(self.d) {
            s.add(crate::numerics::dist(w, row));
        }
        s.total() / self.sorted.len() as f64
    }

    /// `(1/n) sum_i (w - x_i)/||w - x_i||`, with `0` for records at `w`.
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(w.len(), self.d, "gradient: w has wrong length");
        assert_eq!(out.len(), self.d, "gradient: out has wrong length");
        out.fill(0.0);
        let mut g = vec![0.0; self.d];
        for i in 0..self.sorted.len() {
            self.record_gradient(i, w, &mut g);
            out.iter_mut().zip(&g).for_each(|(o, gj)| *o += gj);
        }
        let n = self.sorted.len() as f64;
        out.iter_mut().for_each(|o| *o /= n);
    }

    /// As [`GeometricMedian`]: `L = 1`, `beta = inf`, `mu = 0`, `R = 1`.
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 1.0,
            smoothness: f64::INFINITY,
            strong_convexity: 0.0,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `F(w) - F(w*)` term by term without cancellation.
    fn excess_risk(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.d, "excess_risk: w has wrong length");
        self.sum_of_differences(w, self.w_star[0]) / self.sorted.len() as f64
    }

    /// As [`GeometricMedian`]: undefined for merely convex `F` (both `inf`).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: f64::INFINITY,
            paper: f64::INFINITY,
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `t e_1` with `t` the exact 1-D minimizer (type docs); `w*` for
    /// `lambda = 0`, `None` for negative or non-finite `lambda`.
    fn regularized_minimizer(&self, lambda: f64) -> Option<Vec<f64>> {
        if !(lambda.is_finite() && lambda >= 0.0) {
            return None;
        }
        if lambda == 0.0 {
            return Some(self.w_star.clone());
        }
        let mut w = vec![0.0; self.d];
        w[0] = self.regularized_coordinate(lambda);
        Some(w)
    }

    /// `lambda/2 (||w||^2 - t^2) + (F(w) - F(t e_1))`, the second term
    /// without cancellation.
    fn regularized_excess(&self, lambda: f64, w: &[f64]) -> Option<f64> {
        let c = self.regularized_minimizer(lambda)?;
        let t = c[0];
        let sq = (w[0] - t) * (w[0] + t) + w[1..].iter().map(|v| v * v).sum::<f64>();
        Some(0.5 * lambda * sq + self.sum_of_differences(w, t) / self.sorted.len() as f64)
    }
}

impl FiniteSum for AxisGeometricMedian {
    /// `(w - x_i)/||w - x_i||`, and `0` when `w = x_i`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let x = self.record(i);
        let r = crate::numerics::dist(w, x);
        for ((o, wj), xj) in out.iter_mut().zip(w).zip(x) {
            *o = if r > 0.0 { (wj - xj) / r } else { 0.0 };
        }
    }
}

#[cfg(test)]
mod axis_tests {
    use super::*;

    fn axis(d: usize, a: &[f64]) -> AxisGeometricMedian {
        let data = a
            .iter()
            .flat_map(|&v| {
                let mut row = vec![0.0; d];
                row[0] = v;
                row
            })
            .collect();
        AxisGeometricMedian::from_records(d, data).unwrap()
    }

    /// The exact regularized minimizer satisfies `0 in dF_lambda(t)` and beats
    /// a fine grid; on the audit layout (`k` records at `+e_1`, `k` at `-e_1`,
    /// one canary at `+-e_1`) it is `+-1/(lambda n)`, so the canary moves it by
    /// exactly `2/(lambda n)`, the tight `Delta_lambda` with `L = 1`.
    #[test]
    fn regularized_minimizer_is_exact() {
        let q = axis(2, &[-1.0, -0.3, -0.3, 0.2, 0.9, 1.0, 0.5]);
        let n = 7.0;
        for lambda in [1e-3, 0.05, 0.4, 3.0, 50.0] {
            let t = q.regularized_minimizer(lambda).unwrap()[0];
            let f = |s: f64| q.value(&[s, 0.0]) + 0.5 * lambda * s * s;
            let grid = (0..=20_000)
                .map(|i| -1.0 + 2.0 * i as f64 / 20_000.0)
                .map(f)
                .fold(f64::INFINITY, f64::min);
            assert!(f(t) <= grid + 1e-15, "lambda {lambda}: {t}");
            let below = q.sorted.iter().filter(|a| **a < t).count() as f64;
            let at = q.sorted.iter().filter(|a| **a == t).count() as f64;
            let lo = (2.0 * below - n) / n + lambda * t;
            let hi = (2.0 * (below + at) - n) / n + lambda * t;
            assert!(lo <= 1e-14 && hi >= -1e-14, "lambda {lambda}: [{lo}, {hi}]");
            assert!(q.regularized_excess(lambda, &[t, 0.0]).unwrap().abs() < 1e-15);
            assert!(q.regularized_excess(lambda, &[t + 0.1, 0.2]).unwrap() > 0.0);
        }
        for (k, lambda) in [(10usize, 0.3), (500, 0.01)] {
            let mut a = vec![1.0; k];
            a.extend(vec![-1.0; k]);
            let n = (2 * k + 1) as f64;
            for canary in [1.0, -1.0] {
                let mut with = a.clone();
                with.push(canary);
                let t = axis(3, &with).regularized_minimizer(lambda).unwrap();
                assert!((t[0] - canary / (lambda * n)).abs() < 1e-15, "{t:?}");
                assert_eq!(&t[1..], &[0.0, 0.0]);
            }
        }
    }

    /// `w*` is a median, the excess is exact and non-negative, the gradient is
    /// the mean of the record gradients, and records off the axis or outside
    /// the ball are refused.
    #[test]
    fn objective_and_validation() {
        let q = axis(2, &[-1.0, 0.25, 0.5, 1.0]);
        assert_eq!(q.minimizer(), &[0.375, 0.0]);
        let w = [0.1, -0.4];
        let direct = q.value(&w) - q.value(q.minimizer());
        assert!((q.excess_risk(&w) - direct).abs() < 1e-15);
        assert!(q.excess_risk(&[0.3, 0.0]).abs() < 1e-15);
        let mut g = [0.0; 2];
        q.gradient(&w, &mut g);
        let h = 1e-7;
        let fd = (q.value(&[w[0] + h, w[1]]) - q.value(&[w[0] - h, w[1]])) / (2.0 * h);
        assert!((g[0] - fd).abs() < 1e-7, "{g:?} {fd}");
        assert!(AxisGeometricMedian::from_records(2, vec![0.5, 0.1]).is_err());
        assert!(AxisGeometricMedian::from_records(1, vec![1.5]).is_err());
        assert!(AxisGeometricMedian::from_records(2, vec![0.5]).is_err());
    }
}
