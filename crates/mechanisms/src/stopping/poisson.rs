//! The Poisson stopping law of Papernot & Steinke (2022).

use rand::Rng;
use rand_distr::Distribution;
use statrs::function::gamma::{gamma_ur, ln_gamma};

use super::checks::param;
use super::{Result, StoppingDistribution};

// Named only in doc links.
#[cfg(doc)]
use super::StoppingError;

/// Poisson number of runs, `P(K = k) = e^-mu mu^k / k!` on `{0, 1, ...}`
/// (Papernot & Steinke 2022, Thm 6; with `K = 0` the procedure outputs a
/// fixed, data-independent default). `E K = Var K = mu`,
/// `PGF(x) = exp(mu (x - 1))`, `P(K <= k) = Q(k+1, mu)` (regularized upper
/// incomplete gamma, statrs `gamma_ur`).
///
/// Sampling: `rand_distr::Poisson` (Knuth's product method for `mu < 12`,
/// Ahrens–Dieter 1982 rejection above; both exact), `mu <= 1.8e19`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Poisson {
    mu: f64,
    sampler: rand_distr::Poisson<f64>,
}

impl Poisson {
    /// Poisson law with mean `mu` in `(0, 1.8e19]`.
    ///
    /// # Errors
    /// [`StoppingError::InvalidParameter`] outside that range.
    pub fn new(mu: f64) -> Result<Self> {
        let ok = mu.is_finite() && mu > 0.0 && mu <= rand_distr::Poisson::<f64>::MAX_LAMBDA;
        param("mu", mu, ok, "(0, 1.8e19]")?;
        let sampler = rand_distr::Poisson::new(mu).expect("mu checked above");
        Ok(Self { mu, sampler })
    }

    /// The mean `mu`.
    pub fn mu(&self) -> f64 {
        self.mu
    }
}

impl Distribution<u64> for Poisson {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let k: f64 = self.sampler.sample(rng);
        k as u64
    }
}

impl StoppingDistribution for Poisson {
    fn support_min(&self) -> u64 {
        0
    }
    fn ln_pmf(&self, k: u64) -> f64 {
        let kf = k as f64;
        kf * self.mu.ln() - self.mu - ln_gamma(kf + 1.0)
    }
    fn cdf(&self, k: u64) -> f64 {
        gamma_ur(k as f64 + 1.0, self.mu)
    }
    fn mean(&self) -> f64 {
        self.mu
    }
    fn variance(&self) -> f64 {
        self.mu
    }
    fn pgf(&self, x: f64) -> f64 {
        (self.mu * (x - 1.0)).exp()
    }
}
