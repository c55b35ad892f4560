//! The geometric stopping law (Liu & Talwar 2019) and its version capped at a
//! budget of runs.

use rand::Rng;
use rand_distr::{Distribution, Open01};

use super::checks::param;
use super::{Result, StoppingDistribution};

// Named only in doc links.
#[cfg(doc)]
use super::{liu_talwar_capped_dp, StoppingError, TruncatedGeometric};

/// `x` as `u64`, rounding up and clamping to `[1, u64::MAX]` (Rust's
/// float-to-int casts saturate).
pub(super) fn ceil_to_u64_at_least_one(x: f64) -> u64 {
    (x.ceil() as u64).max(1)
}

/// `K = ceil(ln U / ln q) >= 1`, `U ~ Uniform(0, 1)`: the number of trials up
/// to and including the first success when each trial *continues* with
/// probability `q`, i.e. `P(K > k) = q^k`. `ln_q` must be `< 0`.
pub(super) fn geometric_from_log_continue<R: Rng + ?Sized>(ln_q: f64, rng: &mut R) -> u64 {
    let u: f64 = Open01.sample(rng);
    ceil_to_u64_at_least_one(u.ln() / ln_q)
}

// ---------------------------------------------------------------------------
// Geometric
// ---------------------------------------------------------------------------

/// Geometric number of runs on `{1, 2, ...}`: `P(K = k) = gamma (1-gamma)^(k-1)`.
///
/// The random-stopping law of Liu & Talwar 2019 (Alg. 2: after every run, stop
/// with probability `gamma`) and the `eta = 1` member of the truncated negative
/// binomial family (Papernot & Steinke 2022, §3; Wang–Zhu–Wang Remark A.2,
/// `TNB_{1,r}`). `E K = 1/gamma`, `Var K = (1-gamma)/gamma^2`,
/// `P(K <= k) = 1 - (1-gamma)^k`, `PGF(x) = gamma x / (1 - (1-gamma) x)`.
///
/// Sampling: inversion, `K = ceil(ln U / ln(1 - gamma))` with `ln(1 - gamma)`
/// computed as `ln_1p(-gamma)`, which keeps full accuracy for the
/// `gamma ~ 1e-9` of Wang–Zhu–Wang (digest P13). `O(1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometric {
    gamma: f64,
    ln_continue: f64,
}

impl Geometric {
    /// Geometric law with stopping probability `gamma` in `(0, 1]`
    /// (`gamma = 1` is the point mass at 1).
    ///
    /// # Errors
    /// [`StoppingError::InvalidParameter`] unless `0 < gamma <= 1`.
    pub fn new(gamma: f64) -> Result<Self> {
        param("gamma", gamma, gamma > 0.0 && gamma <= 1.0, "(0, 1]")?;
        Ok(Self {
            gamma,
            ln_continue: (-gamma).ln_1p(),
        })
    }

    /// The stopping probability `gamma`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Distribution<u64> for Geometric {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.gamma == 1.0 {
            return 1;
        }
        geometric_from_log_continue(self.ln_continue, rng)
    }
}

impl StoppingDistribution for Geometric {
    fn support_min(&self) -> u64 {
        1
    }
    fn ln_pmf(&self, k: u64) -> f64 {
        if k == 0 {
            return f64::NEG_INFINITY;
        }
        if self.gamma == 1.0 {
            return if k == 1 { 0.0 } else { f64::NEG_INFINITY };
        }
        self.gamma.ln() + (k - 1) as f64 * self.ln_continue
    }
    fn cdf(&self, k: u64) -> f64 {
        if self.gamma == 1.0 {
            return if k >= 1 { 1.0 } else { 0.0 };
        }
        -(k as f64 * self.ln_continue).exp_m1()
    }
    fn mean(&self) -> f64 {
        1.0 / self.gamma
    }
    fn variance(&self) -> f64 {
        (1.0 - self.gamma) / (self.gamma * self.gamma)
    }
    fn pgf(&self, x: f64) -> f64 {
        // 1 - (1-gamma) x written as (1 - x) + gamma x: exact at x = 1.
        self.gamma * x / ((1.0 - x) + self.gamma * x)
    }
}

// ---------------------------------------------------------------------------
// Capped geometric (Liu-Talwar budget)
// ---------------------------------------------------------------------------

/// Geometric number of runs capped at a budget `T`: `K = min(G, T)` with
/// `G` ~ [`Geometric`]`(gamma)`, so
/// `P(K = k) = gamma (1-gamma)^(k-1)` for `1 <= k < T` and
/// `P(K = T) = (1-gamma)^(T-1)`.
///
/// This is the "truncated geometric" of Liu & Talwar 2019: random stopping
/// that also halts after at most `T` runs (their budgeted variant). Its
/// privacy cost is [`liu_talwar_capped_dp`]. `E K = (1 - (1-gamma)^T)/gamma`.
/// (For the *conditioned* truncation of González–Guzmán–Paquette, see
/// [`TruncatedGeometric`].)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CappedGeometric {
    geometric: Geometric,
    cap: u64,
}

impl CappedGeometric {
    /// Geometric(`gamma`) capped at `cap >= 1` runs.
    ///
    /// # Errors
    /// [`StoppingError::InvalidParameter`] unless `0 < gamma <= 1` and `cap >= 1`.
    pub fn new(gamma: f64, cap: u64) -> Result<Self> {
        let geometric = Geometric::new(gamma)?;
        param("cap", cap as f64, cap >= 1, "{1, 2, ...}")?;
        Ok(Self { geometric, cap })
    }

    /// `(1-gamma)^cap = P(G > cap)`: the probability that the uncapped
    /// geometric would have run longer (the `delta` of the coupling in
    /// [`liu_talwar_capped_dp`]).
    pub fn overflow_probability(&self) -> f64 {
        (self.cap as f64 * self.geometric.ln_continue).exp()
    }
}

impl Distribution<u64> for CappedGeometric {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        self.geometric.sample(rng).min(self.cap)
    }
}

impl StoppingDistribution for CappedGeometric {
    fn support_min(&self) -> u64 {
        1
    }
    fn ln_pmf(&self, k: u64) -> f64 {
        if k == 0 || k > self.cap {
            f64::NEG_INFINITY
        } else if k == self.cap {
            if self.geometric.gamma == 1.0 {
                return if k == 1 { 0.0 } else { f64::NEG_INFINITY };
            }
            (k - 1) as f64 * self.geometric.ln_continue
        } else {
            self.geometric.ln_pmf(k)
        }
    }
    fn cdf(&self, k: u64) -> f64 {
        if k >= self.cap {
            1.0
        } else {
            self.geometric.cdf(k)
        }
    }
    fn mean(&self) -> f64 {
        // sum_{k=1}^{T} P(K >= k) = sum_{k=0}^{T-1} (1-gamma)^k.
        -(self.cap as f64 * self.geometric.ln_continue).exp_m1() / self.geometric.gamma
    }
    fn variance(&self) -> f64 {
        // E K^2 = sum_{k=1}^{T} (2k - 1) P(K >= k); summed directly for
        // moderate T (no cancellation), closed form otherwise:
        // E K^2 = 2[(1 - q^T) - T gamma q^T]/gamma^2 - (1 - q^T)/gamma, q = 1-gamma.
        let g = self.geometric.gamma;
        let m = self.mean();
        let second = if self.cap <= 10_000_000 {
            let q = 1.0 - g;
            let mut tail = 1.0; // P(K >= k) = q^(k-1)
            let mut acc = 0.0;
            for k in 1..=self.cap {
                acc += (2 * k - 1) as f64 * tail;
                tail *= q;
            }
            acc
        } else {
            let qt = (self.cap as f64 * self.geometric.ln_continue).exp();
            let one_minus_qt = -(self.cap as f64 * self.geometric.ln_continue).exp_m1();
            2.0 * (one_minus_qt - self.cap as f64 * g * qt) / (g * g) - one_minus_qt / g
        };
        (second - m * m).max(0.0)
    }
    fn pgf(&self, x: f64) -> f64 {
        // sum_{k<T} g q^(k-1) x^k + q^(T-1) x^T
        //   = g x (1 - (q x)^(T-1)) / (1 - q x) + q^(T-1) x^T.
        if x <= 0.0 {
            return 0.0;
        }
        let g = self.geometric.gamma;
        if g == 1.0 {
            return x;
        }
        let t = self.cap as f64;
        let ln_q = self.geometric.ln_continue;
        let ln_qx = ln_q + x.ln();
        let one_minus_qx = (1.0 - x) + g * x;
        let head = g * x * -((t - 1.0) * ln_qx).exp_m1() / one_minus_qx;
        head + ((t - 1.0) * ln_q + t * x.ln()).exp()
    }
}
