//! The truncated negative binomial stopping law `TNB(eta, gamma)` of Papernot
//! & Steinke (2022) and its exact samplers.

use rand::Rng;
use rand_distr::{Beta, Distribution, Gamma, Open01};
use statrs::function::gamma::ln_gamma;

use super::checks::{check_gamma_open, param};
use super::geometric::geometric_from_log_continue;
use super::{Result, StoppingDistribution};

// Named only in doc links.
#[cfg(doc)]
use super::{Geometric, StoppingError};

/// `h = eta / (1 - gamma^eta)`, continuous at `eta = 0` (`1/ln(1/gamma)`),
/// from `ln gamma`.
fn tnb_h(eta: f64, ln_gamma_param: f64) -> f64 {
    if eta == 0.0 {
        -1.0 / ln_gamma_param
    } else {
        eta / -(eta * ln_gamma_param).exp_m1()
    }
}

/// `E K` of `TNB(eta, gamma)`: `eta (1-gamma) / (gamma (1 - gamma^eta))`, or
/// `(1/gamma - 1)/ln(1/gamma)` at `eta = 0` (Papernot & Steinke 2022, §3;
/// Wang–Zhu–Wang Def. A.1). Valid for every `gamma` in `(0, 1)`, also below
/// the sampler's `1e-15` floor.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `eta > -1` and `0 < gamma < 1`.
pub fn tnb_mean(eta: f64, gamma: f64) -> Result<f64> {
    param("eta", eta, eta.is_finite() && eta > -1.0, "(-1, inf)")?;
    check_gamma_open(gamma)?;
    Ok(tnb_h(eta, gamma.ln()) * (1.0 - gamma) / gamma)
}

/// Sampling strategy of a [`TruncatedNegativeBinomial`], fixed at
/// construction from `(eta, gamma)`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TnbMethod {
    /// `eta = 0`: the logarithmic law as a mixture of geometrics.
    Logarithmic,
    /// `eta = 1`: the geometric law.
    Geometric,
    /// `eta > 0`, `gamma^eta <= 1/2`: `K | L ~ Poisson(L)`,
    /// `L ~ Gamma(eta, scale (1-gamma)/gamma)`, rejecting `K = 0`.
    GammaPoisson,
    /// `eta > 0`, `gamma^eta > 1/2`: a zero-truncated Poisson(`eta ln(1/gamma)`)
    /// sum of logarithmic variables.
    CompoundPoisson,
    /// `-1 < eta < 0`, rejection from a Beta mixture of geometrics.
    BetaMixture,
    /// Sequential inversion from `k = 1` (used when `E K` is small).
    Sequential,
}

/// Truncated negative binomial number of runs `TNB(eta, gamma)` on
/// `{1, 2, ...}` (Papernot & Steinke 2022, §3, Def. of `D_{eta,gamma}`;
/// Wang–Zhu–Wang Def. A.1 with `r = gamma`), for `eta > -1`, `0 < gamma < 1`:
///
/// * `eta != 0`: `P(K = k) = (1-gamma)^k / (gamma^(-eta) - 1) * prod_{l=0}^{k-1} (l + eta)/(l + 1)`,
///   `E K = eta (1-gamma) / (gamma (1 - gamma^eta))`;
/// * `eta = 0` (logarithmic law): `P(K = k) = (1-gamma)^k / (k ln(1/gamma))`,
///   `E K = (1/gamma - 1)/ln(1/gamma)`;
/// * `eta = 1` is [`Geometric`]`(gamma)`.
///
/// With `h = eta/(1 - gamma^eta)` (`= 1/ln(1/gamma)` at `eta = 0`) and
/// `q = 1 - gamma`: `E K = h q / gamma`, `E K^2 = h q (gamma + (eta+1) q)/gamma^2`,
/// `PGF(x) = ((1 - q x)^(-eta) - 1)/(gamma^(-eta) - 1)` (`ln(1-qx)/ln gamma` at
/// `eta = 0`). For `eta > 0` it is the negative binomial `NB(eta, gamma)`
/// (failures before the `eta`-th success) conditioned on `K >= 1`.
///
/// Sampling is exact (no truncation of the support) and chosen per regime:
/// * `eta = 0`: `K | Q ~ Geometric` with continue probability
///   `Q = 1 - gamma^V`, `V ~ U(0,1)` (the logarithmic law is this mixture;
///   Kemp 1981), `O(1)`;
/// * `eta = 1`: [`Geometric`], `O(1)`;
/// * `eta > 0`, `gamma^eta <= 1/2`: Gamma–Poisson mixture with the zero
///   rejected (acceptance `1 - gamma^eta >= 1/2`), `O(1)` expected;
/// * `eta > 0`, `gamma^eta > 1/2`: `NB(eta, gamma)` is compound Poisson
///   (Quenouille 1949), `sum_{i<=N} L_i` with `N ~ Poisson(eta ln(1/gamma))`
///   and logarithmic `L_i` (check: the PGFs agree); `K >= 1` iff `N >= 1`, so `N` is drawn zero-truncated
///   (mean `< 1.45`), `O(1)` expected;
/// * `-1 < eta < 0` (`a = -eta`): `TNB` is the Sibuya(`a`) law tilted by
///   `(1-gamma)^k`; Sibuya is Geometric(`P`) with `P ~ Beta(a, 1-a)`, so the
///   tilt gives `K | P ~ Geometric(1 - (1-gamma)(1-P))` with `P` drawn from
///   `Beta(a, 1-a)` accepted with probability `P/(gamma + (1-gamma)P)`;
///   acceptance `(1 - gamma^a)/(1-gamma)`. When `E K` is smaller than the
///   expected rejection cost, sequential inversion from `k = 1` is used.
///
/// `gamma` must be at least `1e-15` and `eta (1-gamma)/gamma <= 1e17`
/// (to keep the Poisson rates of the mixture representable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedNegativeBinomial {
    eta: f64,
    gamma: f64,
    ln_gamma_param: f64,
    /// `ln(1 - gamma)`.
    ln_q: f64,
    method: TnbMethod,
}

impl TruncatedNegativeBinomial {
    /// `TNB(eta, gamma)` with shape `eta > -1` and `gamma` in `[1e-15, 1)`.
    ///
    /// # Errors
    /// [`StoppingError::InvalidParameter`] outside that range or if
    /// `eta (1-gamma)/gamma > 1e17`.
    pub fn new(eta: f64, gamma: f64) -> Result<Self> {
        param("eta", eta, eta.is_finite() && eta > -1.0, "(-1, inf)")?;
        param("gamma", gamma, (1e-15..1.0).contains(&gamma), "[1e-15, 1)")?;
        param(
            "eta (1 - gamma) / gamma",
            eta * (1.0 - gamma) / gamma,
            eta * (1.0 - gamma) / gamma <= 1e17,
            "<= 1e17",
        )?;
        let ln_gamma_param = gamma.ln();
        let mut tnb = Self {
            eta,
            gamma,
            ln_gamma_param,
            ln_q: (-gamma).ln_1p(),
            method: TnbMethod::Sequential,
        };
        tnb.method = if eta == 0.0 {
            TnbMethod::Logarithmic
        } else if eta == 1.0 {
            TnbMethod::Geometric
        } else if eta > 0.0 {
            if eta * ln_gamma_param <= -std::f64::consts::LN_2 {
                TnbMethod::GammaPoisson
            } else {
                TnbMethod::CompoundPoisson
            }
        } else {
            let a = -eta;
            let acceptance = -(a * ln_gamma_param).exp_m1() / (1.0 - gamma);
            if tnb.mean() <= 4.0 / acceptance {
                TnbMethod::Sequential
            } else {
                TnbMethod::BetaMixture
            }
        };
        Ok(tnb)
    }

    /// The shape `eta`.
    pub fn eta(&self) -> f64 {
        self.eta
    }

    /// The parameter `gamma`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    fn h(&self) -> f64 {
        tnb_h(self.eta, self.ln_gamma_param)
    }

    fn sample_logarithmic<R: Rng + ?Sized>(ln_gamma_param: f64, rng: &mut R) -> u64 {
        // Q = 1 - gamma^V; ln Q accurately whether gamma^V is small or not.
        let v: f64 = Open01.sample(rng);
        let gv = (v * ln_gamma_param).exp();
        let ln_q = if gv < 0.5 {
            (-gv).ln_1p()
        } else {
            (-(v * ln_gamma_param).exp_m1()).ln()
        };
        if ln_q == f64::NEG_INFINITY {
            return 1;
        }
        geometric_from_log_continue(ln_q, rng)
    }

    fn sample_sequential<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let u: f64 = Open01.sample(rng);
        let q = 1.0 - self.gamma;
        let mut k = 1u64;
        let mut pk = self.pmf(1);
        let mut cum = pk;
        while cum < u {
            pk *= q * (k as f64 + self.eta) / (k as f64 + 1.0);
            k += 1;
            cum += pk;
            if pk == 0.0 {
                break;
            }
        }
        k
    }
}

impl Distribution<u64> for TruncatedNegativeBinomial {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        match self.method {
            TnbMethod::Logarithmic => Self::sample_logarithmic(self.ln_gamma_param, rng),
            TnbMethod::Geometric => geometric_from_log_continue(self.ln_q, rng),
            TnbMethod::GammaPoisson => {
                let scale = (1.0 - self.gamma) / self.gamma;
                let mixing = Gamma::new(self.eta, scale).expect("eta > 0 and scale > 0");
                loop {
                    let lambda: f64 = mixing.sample(rng);
                    if lambda.is_nan() || lambda <= 0.0 {
                        continue; // Poisson(0) = 0 is rejected anyway.
                    }
                    // lambda <= MAX_LAMBDA except with probability far below
                    // 1e-300 given the constructor's bound on eta (1-gamma)/gamma.
                    let Ok(poisson) = rand_distr::Poisson::new(lambda) else {
                        continue;
                    };
                    let k: f64 = poisson.sample(rng);
                    if k >= 1.0 {
                        return k as u64;
                    }
                }
            }
            TnbMethod::CompoundPoisson => {
                let rate = -self.eta * self.ln_gamma_param;
                // Zero-truncated Poisson(rate) by sequential inversion.
                let u: f64 = Open01.sample(rng);
                let mut n = 1u64;
                let mut pn = rate / rate.exp_m1();
                let mut cum = pn;
                while cum < u && pn > 0.0 {
                    n += 1;
                    pn *= rate / n as f64;
                    cum += pn;
                }
                (0..n)
                    .map(|_| Self::sample_logarithmic(self.ln_gamma_param, rng))
                    .fold(0u64, u64::saturating_add)
            }
            TnbMethod::BetaMixture => {
                let a = -self.eta;
                let mixing = Beta::new(a, 1.0 - a).expect("0 < a < 1");
                loop {
                    let p: f64 = mixing.sample(rng);
                    let u: f64 = Open01.sample(rng);
                    if u * (self.gamma + (1.0 - self.gamma) * p) < p {
                        // Continue probability (1 - gamma)(1 - p).
                        let ln_continue = self.ln_q + (-p).ln_1p();
                        return geometric_from_log_continue(ln_continue, rng);
                    }
                }
            }
            TnbMethod::Sequential => self.sample_sequential(rng),
        }
    }
}

impl StoppingDistribution for TruncatedNegativeBinomial {
    fn support_min(&self) -> u64 {
        1
    }
    /// `k ln(1-gamma) + ln|prod_{l<k}(l+eta)/(l+1)| - ln|gamma^(-eta) - 1|`,
    /// with `ln|prod| = ln Gamma(k+eta) - ln|Gamma(eta)| - ln Gamma(k+1)` and
    /// `ln|Gamma(eta)| = ln Gamma(eta+1) - ln|eta|` (valid for `eta > -1`).
    fn ln_pmf(&self, k: u64) -> f64 {
        if k == 0 {
            return f64::NEG_INFINITY;
        }
        let kf = k as f64;
        if self.eta == 0.0 {
            return kf * self.ln_q - kf.ln() - (-self.ln_gamma_param).ln();
        }
        let ln_abs_gamma_eta = ln_gamma(self.eta + 1.0) - self.eta.abs().ln();
        let ln_abs_prod = ln_gamma(kf + self.eta) - ln_abs_gamma_eta - ln_gamma(kf + 1.0);
        let ln_abs_norm = (-self.eta * self.ln_gamma_param).exp_m1().abs().ln();
        kf * self.ln_q + ln_abs_prod - ln_abs_norm
    }
    fn mean(&self) -> f64 {
        self.h() * (1.0 - self.gamma) / self.gamma
    }
    fn variance(&self) -> f64 {
        let q = 1.0 - self.gamma;
        let second = self.h() * q * (self.gamma + (self.eta + 1.0) * q) / (self.gamma * self.gamma);
        let m = self.mean();
        (second - m * m).max(0.0)
    }
    fn pgf(&self, x: f64) -> f64 {
        // ln(1 - (1-gamma) x), accurate also near x = 1 for tiny gamma.
        let y = (1.0 - x) + self.gamma * x;
        let ln_1m_qx = if y < 0.5 {
            y.ln()
        } else {
            (-(1.0 - self.gamma) * x).ln_1p()
        };
        if self.eta == 0.0 {
            ln_1m_qx / self.ln_gamma_param
        } else {
            (-self.eta * ln_1m_qx).exp_m1() / (-self.eta * self.ln_gamma_param).exp_m1()
        }
    }
}
