//! A coordinate-separable SCO family whose population statistical term is
//! not zero (issue 39 item 5), for the Lowy–Razaviyayn SCO rows of E2
//! (strongly convex, non-smooth), E4 (convex Lipschitz, non-smooth) and E5
//! (convex, smooth).
//!
//! The sphere-with-atom families (`sharp`, `geometric_median`,
//! `pseudo_huber`) make every sample's minimizer the population minimizer 0,
//! so their SCO rows see the privacy term only. Here every sample's
//! minimizer differs from the population's, and both are known exactly:
//!
//! `f(w, x) = mu/2 ||w||^2 + c sum_j psi(w_j - x_j)`, `c = 1/sqrt(d)`, with
//! `psi(t) = |t|` ([`CoordinateLoss::Abs`]) or `s (sqrt(1 + t^2/s^2) - 1)`
//! ([`CoordinateLoss::PseudoHuber`]), and records with i.i.d. coordinates
//! `x_j ~ Unif[-a, a]`, `a = 1/sqrt(d)` (so `||x|| <= 1`).
//!
//! - **Constants.** `L = 1 + mu` on `B(0, 1)` (`||c psi'|| <= c sqrt(d) = 1`),
//!   `R = 1` (each coordinate's minimizer lies in `[-a, a]`, and
//!   `||(a, ..., a)|| = 1`), `beta = c/s + mu` for pseudo-Huber (`psi'' <=
//!   1/s`), infinite for `|t|`, strong convexity `mu`.
//! - **Empirical minimizer.** Coordinate by coordinate, a one-dimensional
//!   convex problem: for `|t|` the (shrunk) sample median, found exactly on
//!   the sorted column from the one-sided derivatives; for pseudo-Huber the
//!   root of the strictly increasing derivative by bracketed Newton steps,
//!   to a few ulps (an error `delta` moves the excess by about `delta^2`,
//!   far below 1e-30).
//! - **Population.** Every coordinate of `D` is symmetric about 0 and the
//!   population loss is strictly convex, so its minimizer is `0`. With
//!   `G(w) = E psi(w - U)`, `U ~ Unif[-a, a]`: for `|t|`,
//!   `G(w) - G(0) = w^2/(2a)` on `[-a, a]` and `|w| - a/2` outside (closed
//!   form); for pseudo-Huber `G'(t) = (psi(t + a) - psi(t - a))/(2a) =
//!   2t/(s (A(t + a) + A(t - a)))`, `A(v) = sqrt(1 + v^2/s^2)`, so
//!   `G(w) - G(0) = w^2 int_0^1 2u/(s (A(wu + a) + A(wu - a))) du`
//!   (deterministic adaptive Gauss–Legendre; positive integrand, no
//!   cancellation).
//! - **Statistical term.** For `|t|` with `mu = 0` the population Hessian at
//!   0 is `c/a = 1` per coordinate and the sample median's variance is about
//!   `a^2/n`, so the exact ERM's population excess is about `d a^2/(2n) =
//!   1/(2n)` (tested in `tests/coordinate_sco.rs`).

use crate::numerics::{dot, CompensatedSum};
use crate::pseudo_huber::PhLoss;
use crate::quadrature::integrate_adaptive;
use crate::sphere_atoms::{NormLoss, RadialLoss};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::{Rng, RngExt};

/// The per-coordinate loss `psi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CoordinateLoss {
    /// `psi(t) = |t|`: non-smooth, 1-Lipschitz.
    Abs,
    /// `psi(t) = s (sqrt(1 + t^2/s^2) - 1)`: smooth (`psi'' <= 1/s`), 1-Lipschitz.
    PseudoHuber {
        /// Scale `s > 0`.
        s: f64,
    },
}

impl CoordinateLoss {
    /// `psi(t) = psi(|t|)` of the radial loss the sphere families already
    /// use ([`NormLoss`], [`PhLoss`]): the same formulas, bit for bit.
    fn value(self, t: f64) -> f64 {
        match self {
            CoordinateLoss::Abs => NormLoss.psi(t.abs()),
            CoordinateLoss::PseudoHuber { s } => PhLoss { s }.psi(t.abs()),
        }
    }

    /// `psi'(t)` (the subgradient 0 of `|t|` at 0). Written for a signed `t`,
    /// not as `t` times the radial loss's `psi'(a)/a`, whose product rounds
    /// (`49 * (1/49) != 1`).
    fn derivative(self, t: f64) -> f64 {
        match self {
            CoordinateLoss::Abs => {
                if t > 0.0 {
                    1.0
                } else if t < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            CoordinateLoss::PseudoHuber { s } => t / (s * big_a(s, t)),
        }
    }

    /// `psi(p) - psi(r)` without subtracting two close numbers:
    /// `(p - r)(p + r) K(|p|, |r|)` with the radial loss's `K` (`psi` is even).
    fn difference(self, p: f64, r: f64) -> f64 {
        if p == r {
            return 0.0;
        }
        let (a, b) = (p.abs(), r.abs());
        let k = match self {
            CoordinateLoss::Abs => NormLoss.k(a, b),
            CoordinateLoss::PseudoHuber { s } => PhLoss { s }.k(a, b),
        };
        (p - r) * (p + r) * k
    }
}

/// `A(v) = sqrt(1 + v^2/s^2)`, the pseudo-Huber family's own.
fn big_a(s: f64, v: f64) -> f64 {
    PhLoss { s }.big_a(v)
}

/// Parameters of one coordinate-separable SCO instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoordinateScoParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// The per-coordinate loss.
    pub loss: CoordinateLoss,
    /// Strong convexity `mu >= 0` (the `mu/2 ||w||^2` term of E2; 0 for E4, E5).
    pub mu: f64,
}

impl CoordinateScoParams {
    /// Checks `n, d >= 1`, finite `mu >= 0` and finite `s > 0`.
    pub fn validate(&self) -> Result<(), String> {
        if self.n == 0 {
            return Err("n must be >= 1".into());
        }
        if self.d == 0 {
            return Err("d must be >= 1".into());
        }
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return Err(format!("mu must be finite and >= 0, got {}", self.mu));
        }
        if let CoordinateLoss::PseudoHuber { s } = self.loss {
            if !(s.is_finite() && s > 0.0) {
                return Err(format!("s must be finite and > 0, got {s}"));
            }
        }
        Ok(())
    }

    /// Half-width `a = 1/sqrt(d)` of the coordinates' support.
    pub fn half_width(&self) -> f64 {
        1.0 / (self.d as f64).sqrt()
    }
}

/// A sampled coordinate-separable SCO instance with its exact empirical
/// minimizer.
#[derive(Debug, Clone)]
pub struct CoordinateSco {
    params: CoordinateScoParams,
    /// `c = 1/sqrt(d)`, the weight of each coordinate's loss.
    c: f64,
    /// Row-major `n x d` records.
    data: Vec<f64>,
    /// Each column sorted ascending (`d` columns of `n`).
    sorted: Vec<Vec<f64>>,
    minimizer: Vec<f64>,
}

impl CoordinateSco {
    /// Samples `x_ij = a (2 u - 1)`, `u ~ Unif[0, 1)`, record by record, and
    /// computes the exact minimizer.
    ///
    /// # Errors
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(
        params: CoordinateScoParams,
        rng: &mut R,
    ) -> Result<Self, String> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        let a = params.half_width();
        let data: Vec<f64> = (0..n * d)
            .map(|_| a * (2.0 * rng.random::<f64>() - 1.0))
            .collect();
        let sorted = (0..d)
            .map(|j| {
                let mut col: Vec<f64> = data.iter().skip(j).step_by(d).copied().collect();
                col.sort_by(f64::total_cmp);
                col
            })
            .collect();
        let mut out = Self {
            params,
            c: a,
            data,
            sorted,
            minimizer: Vec::new(),
        };
        out.minimizer = out.minimizer_with(params.mu);
        Ok(out)
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &CoordinateScoParams {
        &self.params
    }

    /// Record `i`.
    pub fn record(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        &self.data[i * d..(i + 1) * d]
    }

    /// The neighbouring data set with record `i` replaced by `x` (whose
    /// coordinates must lie in `[-a, a]`), its minimizer recomputed: what a
    /// sensitivity test or a privacy audit compares.
    ///
    /// # Panics
    /// If `i >= n`, `x.len() != d` or a coordinate of `x` leaves `[-a, a]`.
    pub fn with_record_replaced(&self, i: usize, x: &[f64]) -> Self {
        let (n, d) = (self.params.n, self.params.d);
        assert!(i < n && x.len() == d, "with_record_replaced: bad record");
        let a = self.params.half_width();
        assert!(x.iter().all(|v| v.abs() <= a), "record outside [-a, a]^d");
        let mut data = self.data.clone();
        data[i * d..(i + 1) * d].copy_from_slice(x);
        let mut sorted = self.sorted.clone();
        for (j, col) in sorted.iter_mut().enumerate() {
            let old = self.data[i * d + j];
            let at = col.partition_point(|&v| v < old);
            col.remove(at);
            let to = col.partition_point(|&v| v < x[j]);
            col.insert(to, x[j]);
        }
        let mut out = Self {
            data,
            sorted,
            ..self.clone()
        };
        out.minimizer = out.minimizer_with(self.params.mu);
        out
    }

    /// Minimizer of `c (1/n) sum_i psi(w_j - x_ij) + q/2 w_j^2` in every
    /// coordinate `j` (`q = mu` for `F`, `mu + lambda` for `F_lambda`).
    fn minimizer_with(&self, q: f64) -> Vec<f64> {
        self.sorted
            .iter()
            .map(|col| match self.params.loss {
                CoordinateLoss::Abs => shrunk_median(col, self.c, q),
                CoordinateLoss::PseudoHuber { s } => {
                    pseudo_huber_root(col, self.c, q, s, self.params.half_width())
                }
            })
            .collect()
    }

    /// `F_q(w) - F_q(v)` with `F_q = c (1/n) sum psi + q/2 ||.||^2`, summed
    /// coordinate by coordinate as `(w_j - v_j)` times a compensated sum of
    /// `(p + r) K(p, r)`, so no two large numbers are subtracted.
    fn excess_between(&self, q: f64, w: &[f64], v: &[f64]) -> f64 {
        let n = self.params.n as f64;
        let loss = self.params.loss;
        let mut total = CompensatedSum::default();
        for (j, col) in self.sorted.iter().enumerate() {
            let (wj, vj) = (w[j], v[j]);
            if wj == vj {
                continue;
            }
            let mut sum = CompensatedSum::default();
            for &x in col {
                sum.add(loss.difference(wj - x, vj - x));
            }
            total.add(self.c * sum.total() / n);
            total.add(0.5 * q * (wj - vj) * (wj + vj));
        }
        total.total()
    }

    /// `G(w) - G(0)`, `G(w) = E psi(w - U)`, `U ~ Unif[-a, a]`.
    fn population_gap(&self, w: f64) -> f64 {
        let a = self.params.half_width();
        match self.params.loss {
            CoordinateLoss::Abs => {
                if w.abs() <= a {
                    w * w / (2.0 * a)
                } else {
                    w.abs() - 0.5 * a
                }
            }
            CoordinateLoss::PseudoHuber { s } => {
                if w == 0.0 {
                    return 0.0;
                }
                // The integrand lies in (0, 1/s]; 1e-15/s is about 5 ulps of it.
                let integral = integrate_adaptive(
                    |u| 2.0 * u / (s * (big_a(s, w * u + a) + big_a(s, w * u - a))),
                    0.0,
                    1.0,
                    1e-15 / s,
                );
                w * w * integral.value
            }
        }
    }

    /// `G(0) = E psi(U)`: `a/2` for `|t|`; `Psi(a)/a` for pseudo-Huber with
    /// `Psi(x) = int_0^x psi = s (x A(x)/2 + s asinh(x/s)/2) - s x`.
    fn population_at_zero(&self) -> f64 {
        let a = self.params.half_width();
        match self.params.loss {
            CoordinateLoss::Abs => 0.5 * a,
            CoordinateLoss::PseudoHuber { s } => {
                let big_psi = s * (0.5 * a * big_a(s, a) + 0.5 * s * (a / s).asinh()) - s * a;
                big_psi / a
            }
        }
    }
}

/// Exact minimizer of `h(w) = (c/n) sum_i |w - x_i| + q/2 w^2` on the sorted
/// column `x`: the point where the left derivative is `<= 0` and the right
/// one `>= 0`. `q = 0` gives the lower median.
fn shrunk_median(x: &[f64], c: f64, q: f64) -> f64 {
    let n = x.len();
    let scale = c / n as f64;
    // One-sided derivatives at w: q w + (c/n)(#{x <= w} - #{x > w}) (right)
    // and q w + (c/n)(#{x < w} - #{x >= w}) (left).
    let right = |w: f64| {
        let le = x.partition_point(|&v| v <= w) as f64;
        q * w + scale * (2.0 * le - n as f64)
    };
    let left = |w: f64| {
        let lt = x.partition_point(|&v| v < w) as f64;
        q * w + scale * (2.0 * lt - n as f64)
    };
    // The right derivative is nondecreasing along the sorted column.
    let k = x.partition_point(|&v| right(v) < 0.0);
    if k < n && left(x[k]) <= 0.0 {
        return x[k];
    }
    // Otherwise the root lies strictly between x[k - 1] and x[k] (or beyond
    // an end), where the derivative is q w + (c/n)(2k - n); q > 0 there,
    // since with q = 0 the derivative cannot change sign between kinks.
    let w = scale * (n as f64 - 2.0 * k as f64) / q;
    let lo = if k == 0 { f64::NEG_INFINITY } else { x[k - 1] };
    let hi = if k == n { f64::INFINITY } else { x[k] };
    w.clamp(lo, hi)
}

/// Root of `g(w) = (c/n) sum_i psi'(w - x_i) + q w` for the pseudo-Huber
/// `psi` (strictly increasing): Newton steps kept inside a sign-change
/// bracket, from `[-a, a]` (where `g(-a) <= 0 <= g(a)`), until `g` is at
/// its rounding level or the bracket or the step is a few ulps of `a` wide.
fn pseudo_huber_root(x: &[f64], c: f64, q: f64, s: f64, a: f64) -> f64 {
    let n = x.len() as f64;
    // g(w), g'(w) and the rounding level of g's sum (64 ulps of sum |terms|).
    let evaluate = |w: f64| {
        let (mut g, mut h, mut size) = (0.0, 0.0, 0.0);
        for &v in x {
            let t = w - v;
            let big = big_a(s, t);
            let term = t / (s * big);
            g += term;
            size += term.abs();
            h += 1.0 / (s * big * big * big);
        }
        let noise = 64.0 * f64::EPSILON * (c * size / n + q * w.abs());
        (c * g / n + q * w, c * h / n + q, noise)
    };
    // A root error of 8 ulps of a moves the excess by about 1e-30.
    let tol = 8.0 * f64::EPSILON * a;
    let (mut lo, mut hi) = (-a, a);
    let mut w = 0.0;
    for _ in 0..200 {
        let (g, slope, noise) = evaluate(w);
        if g.abs() <= noise {
            return w;
        }
        if g < 0.0 {
            lo = w;
        } else {
            hi = w;
        }
        let mut next = w - g / slope;
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - w).abs() <= tol || hi - lo <= tol {
            return next;
        }
        w = next;
    }
    w
}

impl Objective for CoordinateSco {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `mu/2 ||w||^2 + (c/n) sum_i sum_j psi(w_j - x_ij)`.
    fn value(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "value: w has wrong length");
        let loss = self.params.loss;
        let sum: f64 = self
            .data
            .chunks_exact(self.params.d)
            .map(|x| {
                x.iter()
                    .zip(w)
                    .map(|(xj, wj)| loss.value(wj - xj))
                    .sum::<f64>()
            })
            .sum();
        0.5 * self.params.mu * dot(w, w) + self.c * sum / self.params.n as f64
    }

    /// `mu w + (c/n) sum_i psi'(w - x_i)` (coordinate-wise).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(w.len(), self.params.d, "gradient: w has wrong length");
        assert_eq!(out.len(), self.params.d, "gradient: out has wrong length");
        out.iter_mut().for_each(|o| *o = 0.0);
        let loss = self.params.loss;
        for x in self.data.chunks_exact(self.params.d) {
            for ((o, xj), wj) in out.iter_mut().zip(x).zip(w) {
                *o += loss.derivative(wj - xj);
            }
        }
        let scale = self.c / self.params.n as f64;
        for (o, wj) in out.iter_mut().zip(w) {
            *o = self.params.mu * wj + scale * *o;
        }
    }

    /// `L = 1 + mu`, `beta = c/s + mu` (pseudo-Huber; infinite for `|t|`),
    /// strong convexity `mu`, `R = 1` (module docs).
    fn constants(&self) -> ProblemConstants {
        let mu = self.params.mu;
        ProblemConstants {
            lipschitz: 1.0 + mu,
            smoothness: match self.params.loss {
                CoordinateLoss::Abs => f64::INFINITY,
                CoordinateLoss::PseudoHuber { s } => self.c / s + mu,
            },
            strong_convexity: mu,
            radius: 1.0,
        }
    }

    fn minimizer(&self) -> &[f64] {
        &self.minimizer
    }

    /// `F(w) - F(w*)`, coordinate by coordinate (no large cancellation).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        assert_eq!(w.len(), self.params.d, "excess_risk: w has wrong length");
        self.excess_between(self.params.mu, w, &self.minimizer)
    }

    /// For `mu > 0`: one record moves each coordinate's derivative by at most
    /// `2c/n`, so the minimizer moves by at most `2c/(mu n)` per coordinate,
    /// `2/(mu n)` in norm (tight; the paper's `2L/(mu n)` with `L = 1 + mu`).
    /// Infinite for merely convex `F` (`mu = 0`).
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        if self.params.mu == 0.0 {
            return MinimizerSensitivity {
                tight: f64::INFINITY,
                paper: f64::INFINITY,
            };
        }
        MinimizerSensitivity::strongly_convex_unit_lipschitz(
            self.params.mu,
            self.params.n,
            self.constants().lipschitz,
        )
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `mu/2 ||w||^2 + c sum_j (G(w_j) - G(0))` (minimizer 0; module docs).
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        assert_eq!(
            w.len(),
            self.params.d,
            "population_excess: w has wrong length"
        );
        let gaps: f64 = w.iter().map(|&wj| self.population_gap(wj)).sum();
        Some(0.5 * self.params.mu * dot(w, w) + self.c * gaps)
    }

    /// `mu/2 ||w||^2 + c sum_j G(w_j)`.
    fn population_loss(&self, w: &[f64]) -> Option<f64> {
        let at_zero = self.params.d as f64 * self.c * self.population_at_zero();
        Some(at_zero + self.population_excess(w)?)
    }

    /// The exact minimizer of `F + lambda/2 ||.||^2` (inside `B(0, 1)`, as
    /// every coordinate lies in `[-a, a]`); `None` for negative or
    /// non-finite `lambda`.
    fn regularized_minimizer(&self, lambda: f64) -> Option<Vec<f64>> {
        (lambda.is_finite() && lambda >= 0.0).then(|| self.minimizer_with(self.params.mu + lambda))
    }

    /// `F_lambda(w) - F_lambda(w*_lambda)`, coordinate by coordinate.
    fn regularized_excess(&self, lambda: f64, w: &[f64]) -> Option<f64> {
        let v = self.regularized_minimizer(lambda)?;
        Some(self.excess_between(self.params.mu + lambda, w, &v))
    }
}

impl FiniteSum for CoordinateSco {
    /// `mu w + c psi'(w - x_i)`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let loss = self.params.loss;
        for ((o, xj), wj) in out.iter_mut().zip(self.record(i)).zip(w) {
            *o = self.params.mu * wj + self.c * loss.derivative(wj - xj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrunk_median_meets_its_optimality_condition() {
        let x = [-0.4, -0.1, 0.05, 0.2, 0.3];
        // q = 0: the median itself.
        assert_eq!(shrunk_median(&x, 1.0, 0.0), 0.05);
        // Even n, q = 0: the lower median (any point between the middle two is optimal).
        assert_eq!(shrunk_median(&x[..4], 1.0, 0.0), -0.1);
        // Large q: the root between kinks, c (n - 2k)/(n q), here k = 2 points below.
        let w = shrunk_median(&x, 1.0, 100.0);
        assert!((w - 1.0 / (5.0 * 100.0)).abs() < 1e-15, "{w}");
        // Every q: left derivative <= 0 <= right derivative.
        for q in [0.0, 0.1, 1.0, 3.0, 30.0, 1e4] {
            let w = shrunk_median(&x, 0.7, q);
            let le = x.iter().filter(|&&v| v <= w).count() as f64;
            let lt = x.iter().filter(|&&v| v < w).count() as f64;
            let scale = 0.7 / 5.0;
            assert!(q * w + scale * (2.0 * lt - 5.0) <= 1e-15, "q {q}");
            assert!(q * w + scale * (2.0 * le - 5.0) >= -1e-15, "q {q}");
        }
    }

    #[test]
    fn pseudo_huber_root_zeroes_the_derivative() {
        let x = [-0.4, -0.1, 0.05, 0.2, 0.3, 0.31];
        for (q, s) in [(0.0, 1.0), (0.5, 0.1), (2.0, 3.0)] {
            let w = pseudo_huber_root(&x, 0.5, q, s, 0.5);
            let g = |w: f64| {
                0.5 * x
                    .iter()
                    .map(|v| (w - v) / (s * big_a(s, w - v)))
                    .sum::<f64>()
                    / 6.0
                    + q * w
            };
            assert!(g(w).abs() < 1e-15, "q {q} s {s}: g = {}", g(w));
            assert!(g(w - 1e-9) < 0.0 && g(w + 1e-9) > 0.0);
        }
    }
}
