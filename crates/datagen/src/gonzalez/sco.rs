//! DP-SCO instances over the simplex for Algorithm 4 and DP Frank–Wolfe
//! (digest §6.3 G4), with the exact population excess risk.
//!
//! - [`LeastSquaresSimplex`] (G4(a)): `f(x; z) = (a^T x - b)^2 / 2`,
//!   `a` Rademacher, `b = a^T e_* + eta`, `eta ~ U[-s, s]`; `F(x) =
//!   ||x - e_*||^2/2 + s^2/6`, so the excess is `||x - e_*||^2 / 2` exactly,
//!   computed as `(sum_{j != *} x_j^2 + (sum_{j != *} x_j)^2) / 2` (no
//!   cancellation). `L0 = 2 + s`, `L1 = 1`, `L2 = 0`.
//! - [`SeparableSco`]: `f(x; z) = <g_bar + sigma xi(z), x> + c phi(x_{k(z)})`
//!   with `xi` Rademacher and `k ~ p`; `F(x) = <g_bar, x> + psi(x)`, whose
//!   minimum over the simplex is exact by water-filling
//!   ([`super::separable`]). Huber `phi` gives a first-order-smooth-only
//!   instance, log-cosh a second-order-smooth one (the two regimes of
//!   Thm 5.1). `L0 = max|g_bar| + sigma + c phi'(1)`, `L1 = c sup phi''`,
//!   `L2 = c sup |phi'''|`.
//!
//! - [`VertexLinearSco`]: `f(x; z) = <g_bar + sigma xi(z), x>` with
//!   `g_bar = gap (1 - e_*)`, a planted vertex a `gap` below every other;
//!   `F(x) = gap (1 - x_*)`, minimum 0 at `e_*`. Linear, so
//!   `L0 = gap + sigma`, `L1 = L2 = 0` (both regimes of Thm 5.1), and
//!   mirror descent from the uniform point pays its full regret
//!   `ln d/(tau T)` there: the instance on which Algorithm 4's private term
//!   (its privacy-capped step) shows at its own rate.
//!
//! Records are generated lazily from `(seed, record, coordinate)`.

use dpcore::saddle::{SimplexConstants, SimplexPoint, SimplexSco};
use rand::{Rng, RngExt};

use super::counter::{uniform3, SignWords};
use super::separable::{max_linear_minus_penalty, SeparablePenalty};

/// G4(a): least squares with a planted vertex optimum (module docs).
#[derive(Debug, Clone)]
pub struct LeastSquaresSimplex {
    d: usize,
    n: usize,
    vertex: usize,
    noise: f64,
    seed: u64,
}

impl LeastSquaresSimplex {
    /// `n` records in dimension `d` with optimum `e_vertex` and label noise
    /// `U[-noise, noise]`; the record seed is drawn from `rng`.
    pub fn sample<R: Rng + ?Sized>(
        d: usize,
        vertex: usize,
        noise: f64,
        n: usize,
        rng: &mut R,
    ) -> Self {
        assert!(vertex < d && n > 0 && noise >= 0.0);
        Self {
            d,
            n,
            vertex,
            noise,
            seed: rng.random(),
        }
    }
}

impl LeastSquaresSimplex {
    /// The label `b = a_vertex + eta` of record `i`, from its sign words.
    #[inline]
    fn label(&self, i: usize, words: &SignWords) -> f64 {
        let eta = self.noise * (2.0 * uniform3(self.seed ^ 0x5EED, i as u64, 0) - 1.0);
        words.sign(self.vertex) + eta
    }
}

impl SimplexSco for LeastSquaresSimplex {
    fn dim(&self) -> usize {
        self.d
    }
    fn num_records(&self) -> usize {
        self.n
    }
    fn constants(&self) -> SimplexConstants {
        SimplexConstants {
            l0: 2.0 + self.noise,
            l1: 1.0,
            l2: 0.0,
            affine_gradient: true,
        }
    }
    fn accumulate_record_gradient(
        &self,
        i: usize,
        w: SimplexPoint<'_>,
        weight: f64,
        g: &mut [f64],
    ) {
        let mut words = SignWords::default();
        words.fill(self.seed, i as u64, self.d);
        let aw = words.signed_dot(w);
        words.add_scaled(weight * (aw - self.label(i, &words)), g);
    }
    /// The default's records in its order, bit for bit, with each record's
    /// sign words hashed once ([`SignWords`]) and the products `a^T w` of
    /// four records summed side by side ([`SignWords::signed_dot4`]): at
    /// `d = 256` the per-coordinate hashes took 89% of `ggp_alg4_n`.
    fn batch_gradient(&self, records: std::ops::Range<usize>, w: SimplexPoint<'_>, g: &mut [f64]) {
        g.fill(0.0);
        let weight = 1.0 / records.len() as f64;
        let mut words: [SignWords; 4] = Default::default();
        let mut start = records.start;
        while start + 4 <= records.end {
            for (r, wr) in words.iter_mut().enumerate() {
                wr.fill(self.seed, (start + r) as u64, self.d);
            }
            let aw = SignWords::signed_dot4([&words[0], &words[1], &words[2], &words[3]], w);
            for (r, wr) in words.iter().enumerate() {
                wr.add_scaled(weight * (aw[r] - self.label(start + r, wr)), g);
            }
            start += 4;
        }
        for i in start..records.end {
            let wr = &mut words[0];
            wr.fill(self.seed, i as u64, self.d);
            let aw = wr.signed_dot(w);
            wr.add_scaled(weight * (aw - self.label(i, wr)), g);
        }
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let (mut sq, mut rest) = (0.0, 0.0);
        for (j, &v) in w.iter().enumerate() {
            if j != self.vertex {
                sq += v * v;
                rest += v;
            }
        }
        0.5 * (sq + rest * rest)
    }
}

/// Separable linear-plus-penalty SCO instance (module docs).
#[derive(Debug, Clone)]
pub struct SeparableSco {
    mean_linear: Vec<f64>,
    sigma: f64,
    penalty: SeparablePenalty,
    k: Vec<u32>,
    seed: u64,
    min_value: f64,
}

impl SeparableSco {
    /// `n` records with linear mean `mean_linear`, Rademacher noise scale
    /// `sigma` and penalty `penalty`; coordinates and seed drawn from `rng`.
    pub fn sample<R: Rng + ?Sized>(
        mean_linear: Vec<f64>,
        sigma: f64,
        penalty: SeparablePenalty,
        n: usize,
        rng: &mut R,
    ) -> Self {
        assert!(n > 0 && penalty.weights.len() == mean_linear.len() && sigma >= 0.0);
        let mut acc = 0.0;
        let cumulative: Vec<f64> = penalty
            .weights
            .iter()
            .map(|p| {
                acc += p;
                acc
            })
            .collect();
        let k = (0..n)
            .map(|_| {
                let u = rng.random::<f64>() * acc;
                cumulative
                    .partition_point(|&c| c <= u)
                    .min(cumulative.len() - 1) as u32
            })
            .collect();
        let neg: Vec<f64> = mean_linear.iter().map(|g| -g).collect();
        let min_value = -max_linear_minus_penalty(&neg, Some(&penalty));
        Self {
            mean_linear,
            sigma,
            penalty,
            k,
            seed: rng.random(),
            min_value,
        }
    }

    /// `min_{Delta} F_D` (water-filling, exact to rounding).
    pub fn min_value(&self) -> f64 {
        self.min_value
    }
}

impl SimplexSco for SeparableSco {
    fn dim(&self) -> usize {
        self.mean_linear.len()
    }
    fn num_records(&self) -> usize {
        self.k.len()
    }
    fn constants(&self) -> SimplexConstants {
        let gmax = self.mean_linear.iter().fold(0.0f64, |m, g| m.max(g.abs()));
        let c = self.penalty.coefficient;
        let phi = self.penalty.potential;
        SimplexConstants {
            l0: gmax + self.sigma + c * phi.derivative_bound(),
            l1: c * phi.second_derivative_bound(),
            l2: c * phi.third_derivative_bound(),
            affine_gradient: phi.third_derivative_bound() == 0.0,
        }
    }
    fn accumulate_record_gradient(
        &self,
        i: usize,
        w: SimplexPoint<'_>,
        weight: f64,
        g: &mut [f64],
    ) {
        g.iter_mut()
            .zip(&self.mean_linear)
            .for_each(|(o, m)| *o += weight * m);
        if self.sigma > 0.0 {
            let mut words = SignWords::default();
            words.fill(self.seed, i as u64, g.len());
            words.add_scaled(weight * self.sigma, g);
        }
        let k = self.k[i] as usize;
        g[k] +=
            weight * self.penalty.coefficient * self.penalty.potential.derivative(w.coordinate(k));
    }
    fn batch_gradient(&self, records: std::ops::Range<usize>, w: SimplexPoint<'_>, g: &mut [f64]) {
        g.copy_from_slice(&self.mean_linear);
        let weight = 1.0 / records.len() as f64;
        let mut words = SignWords::default();
        for i in records {
            if self.sigma > 0.0 {
                words.fill(self.seed, i as u64, g.len());
                words.add_scaled(weight * self.sigma, g);
            }
            let k = self.k[i] as usize;
            g[k] += weight
                * self.penalty.coefficient
                * self.penalty.potential.derivative(w.coordinate(k));
        }
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let lin: f64 = w.iter().zip(&self.mean_linear).map(|(a, b)| a * b).sum();
        lin + self.penalty.value(w) - self.min_value
    }
}

/// A linear SCO instance with a planted vertex (module docs).
#[derive(Debug, Clone)]
pub struct VertexLinearSco {
    d: usize,
    n: usize,
    vertex: usize,
    gap: f64,
    sigma: f64,
    seed: u64,
}

impl VertexLinearSco {
    /// `n` records in dimension `d >= 2` whose mean gradient is `gap` on
    /// every coordinate but `vertex` (0 there), plus Rademacher noise of
    /// scale `sigma`; the record seed is drawn from `rng`.
    pub fn sample<R: Rng + ?Sized>(
        d: usize,
        vertex: usize,
        gap: f64,
        sigma: f64,
        n: usize,
        rng: &mut R,
    ) -> Self {
        assert!(d >= 2 && vertex < d && n > 0 && gap > 0.0 && sigma >= 0.0);
        Self {
            d,
            n,
            vertex,
            gap,
            sigma,
            seed: rng.random(),
        }
    }

    fn add_mean(&self, weight: f64, g: &mut [f64]) {
        g.iter_mut().for_each(|o| *o += weight * self.gap);
        g[self.vertex] -= weight * self.gap;
    }
}

impl SimplexSco for VertexLinearSco {
    fn dim(&self) -> usize {
        self.d
    }
    fn num_records(&self) -> usize {
        self.n
    }
    fn constants(&self) -> SimplexConstants {
        SimplexConstants {
            l0: self.gap + self.sigma,
            l1: 0.0,
            l2: 0.0,
            affine_gradient: true,
        }
    }
    fn accumulate_record_gradient(
        &self,
        i: usize,
        _w: SimplexPoint<'_>,
        weight: f64,
        g: &mut [f64],
    ) {
        self.add_mean(weight, g);
        if self.sigma > 0.0 {
            let mut words = SignWords::default();
            words.fill(self.seed, i as u64, self.d);
            words.add_scaled(weight * self.sigma, g);
        }
    }
    /// The mean gradient once, then each record's noise: without noise a
    /// batch costs `O(d)`, not `O(B d)`.
    fn batch_gradient(&self, records: std::ops::Range<usize>, _w: SimplexPoint<'_>, g: &mut [f64]) {
        g.fill(0.0);
        self.add_mean(1.0, g);
        if self.sigma > 0.0 {
            let weight = 1.0 / records.len() as f64;
            let mut words = SignWords::default();
            for i in records {
                words.fill(self.seed, i as u64, self.d);
                words.add_scaled(weight * self.sigma, g);
            }
        }
    }
    /// `gap (1 - w_*)`, summed over the other coordinates (no cancellation).
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let rest: f64 = w
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != self.vertex)
            .map(|(_, x)| x)
            .sum();
        self.gap * rest
    }
}
