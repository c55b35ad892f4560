//! The geometric law conditioned on `{0, ..., M}`, TG(p, M) of
//! González–Guzmán–Paquette.

use rand::Rng;
use rand_distr::{Distribution, Open01};

use super::checks::param;
use super::{Result, StoppingDistribution};

// Named only in doc links.
#[cfg(doc)]
use super::StoppingError;

/// Geometric law **conditioned** on `{0, ..., M}`:
/// `P(N = k) = p^k / C_M` with `C_M = sum_{k=0}^{M} p^k = (1 - p^(M+1))/(1 - p)`.
///
/// This is TG(p, M) of González–Guzmán–Paquette Alg. 2–3 (digest §3.2), used
/// with `p = 1/2` for multilevel (bias-reduced) gradients. **Erratum** (digest
/// §3.2): the paper's text says `p <= C_M <= 1`, but its bias proof needs the
/// true normaliser `C_M = 2 - 2^-M` for `p = 1/2` (weights `1/P(N=k) = C_M 2^k`);
/// that is what is implemented, and it gives `E[2^N] = (M+1)/C_M`.
///
/// `E N = p/(1-p) - (M+1) p^(M+1)/(1 - p^(M+1))`,
/// `Var N = p/(1-p)^2 - (M+1)^2 p^(M+1)/(1 - p^(M+1))^2`
/// (derivatives of `ln C_M` in `-ln p`).
///
/// Sampling: inversion of `P(N <= k) = (1 - p^(k+1))/(1 - p^(M+1))`,
/// `N = ceil(ln(1 - U (1 - p^(M+1))) / ln p) - 1` clamped to `[0, M]`, with
/// `ln_1p`/`expm1` throughout (digest pitfall 22). `O(1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedGeometric {
    p: f64,
    m: u64,
    ln_p: f64,
    /// `1 - p^(M+1)`.
    mass: f64,
}

impl TruncatedGeometric {
    /// TG(`p`, `m`) on `{0, ..., m}` with ratio `p` in `(0, 1)`.
    ///
    /// # Errors
    /// [`StoppingError::InvalidParameter`] unless `0 < p < 1`.
    pub fn new(p: f64, m: u64) -> Result<Self> {
        param("p", p, p > 0.0 && p < 1.0, "(0, 1)")?;
        let ln_p = p.ln();
        Ok(Self {
            p,
            m,
            ln_p,
            mass: -((m as f64 + 1.0) * ln_p).exp_m1(),
        })
    }

    /// The normaliser `C_M = (1 - p^(M+1))/(1 - p)` (`2 - 2^-M` for `p = 1/2`).
    pub fn normalizer(&self) -> f64 {
        self.mass / (1.0 - self.p)
    }
}

impl Distribution<u64> for TruncatedGeometric {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let u: f64 = Open01.sample(rng);
        let x = (-u * self.mass).ln_1p() / self.ln_p;
        let k = x.ceil() - 1.0;
        if k <= 0.0 {
            0
        } else {
            (k as u64).min(self.m)
        }
    }
}

impl StoppingDistribution for TruncatedGeometric {
    fn support_min(&self) -> u64 {
        0
    }
    fn ln_pmf(&self, k: u64) -> f64 {
        if k > self.m {
            f64::NEG_INFINITY
        } else {
            k as f64 * self.ln_p - self.normalizer().ln()
        }
    }
    fn cdf(&self, k: u64) -> f64 {
        if k >= self.m {
            1.0
        } else {
            -((k as f64 + 1.0) * self.ln_p).exp_m1() / self.mass
        }
    }
    fn mean(&self) -> f64 {
        let p = self.p;
        let m1 = self.m as f64 + 1.0;
        let pm = (m1 * self.ln_p).exp();
        p / (1.0 - p) - m1 * pm / self.mass
    }
    fn variance(&self) -> f64 {
        let p = self.p;
        let m1 = self.m as f64 + 1.0;
        let pm = (m1 * self.ln_p).exp();
        p / ((1.0 - p) * (1.0 - p)) - m1 * m1 * pm / (self.mass * self.mass)
    }
    fn pgf(&self, x: f64) -> f64 {
        // sum_{k<=M} (p x)^k / C_M = (1 - (p x)^(M+1)) / ((1 - p x) C_M).
        let px = self.p * x;
        if px <= 0.0 {
            return 1.0 / self.normalizer();
        }
        let numerator = -((self.m as f64 + 1.0) * px.ln()).exp_m1();
        numerator / ((1.0 - px) * self.normalizer())
    }
}
