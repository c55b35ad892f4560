//! Random stopping for private selection from private candidates, and the
//! privacy costs of the resulting hyperparameter-tuning procedures.
//!
//! # The procedure
//! [`repeat_and_select`]: draw a number of runs `K` from a stopping
//! distribution, run a randomized candidate procedure `Q` (e.g. train with a
//! random hyperparameter and score the result) `K` times, and release only the
//! best candidate. `K` itself, the other candidates and their scores stay
//! secret. If each run of `Q` is DP, the selection costs a **constant** factor
//! more than one run, instead of the `K`-fold cost of composition:
//!
//! | stopping law | candidate runs | selection | source |
//! |---|---|---|---|
//! | geometric, [`Geometric`] | eps-DP | 3 eps-DP | Liu & Talwar 2019 ([`liu_talwar_random_stop_epsilon`]) |
//! | geometric capped at `T`, [`CappedGeometric`] | eps-DP | (3 eps, delta_T)-DP | coupling, [`liu_talwar_capped_dp`] |
//! | truncated negative binomial, [`TruncatedNegativeBinomial`] | RDP | RDP | Papernot & Steinke 2022, Thm 2 ([`tnb_tuning_rdp`]) |
//! | Poisson, [`Poisson`] | RDP and approx-DP | RDP | Papernot & Steinke 2022, Thm 6 ([`poisson_tuning_rdp`], `mu >= 1`); ours for any `mu` ([`poisson_tuning_rdp_any_mean`]) |
//! | geometric, `mu`-GDP runs | mu-GDP | (eps, delta)-DP | Wang–Zhu–Wang Lemma K.1 / Thm K.3 ([`privtune_gdp_epsilon`]) |
//!
//! Approximate-DP statements follow from the RDP curves by
//! [`rdp_curve_to_dp`] ([`tnb_tuning_dp`], [`poisson_tuning_dp`]).
//!
//! Theorem numbers of Papernot & Steinke refer to arXiv:2110.03620v2 (the
//! numbering used by Google's `dp_accounting` library); of Liu & Talwar to
//! arXiv:1811.07971 (taken from secondary sources; the statements are
//! re-checked by exact audits in `tests/selection.rs`).
//!
//! # Neighbouring relation
//! These theorems are relation-agnostic: if every run of `Q` satisfies the
//! stated guarantee for a neighbouring relation, the selection satisfies the
//! output guarantee for **the same** relation. The harness uses replace-one
//! ([`crate::Neighbouring::ReplaceOne`]), as do Wang–Zhu–Wang (digest P1).
//! What must hold is that the *whole* run (training and scoring) is DP, that
//! the distribution of `K` is data-independent, and that only the winner is
//! released (not `K`, not the losing scores).
//!
//! # Samplers
//! Every stopping law implements [`rand_distr::Distribution<u64>`] with an
//! exact sampler (exact up to floating-point rounding; no truncation of the
//! support and no normal approximations) and [`StoppingDistribution`], which
//! exposes the exact pmf, cdf, mean, variance and probability-generating
//! function used by the tests and by the privacy/utility formulas
//! (e.g. Wang–Zhu–Wang Lemma K.4 needs `PGF(1 - 1/|Theta|)`).

use rand::Rng;
use rand_distr::{Beta, Distribution, Gamma, Open01};
use statrs::function::gamma::{gamma_ur, ln_gamma};

/// Why a stopping distribution or a privacy cost could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum StoppingError {
    /// A probability parameter lies outside its admissible interval.
    #[error("parameter {name} = {value} is outside its admissible range {range}")]
    InvalidParameter {
        /// Name of the parameter (`gamma`, `eta`, `p`, `mu`, ...).
        name: &'static str,
        /// The offending value.
        value: f64,
        /// Human-readable admissible range.
        range: &'static str,
    },
    /// An RDP curve is empty, has mismatched lengths, or contains an order
    /// below 1, a NaN, or a negative divergence.
    #[error("invalid RDP curve: {0}")]
    InvalidRdpCurve(&'static str),
    /// Papernot & Steinke Thm 6 needs `exp(eps_hat) <= 1 + 1/(order - 1)`.
    #[error(
        "Poisson tuning (Papernot-Steinke Thm 6) needs exp(eps_hat) <= 1 + 1/(order - 1); \
         got eps_hat = {eps_hat}, order = {order}"
    )]
    PoissonConditionViolated {
        /// The approximate-DP epsilon of one run.
        eps_hat: f64,
        /// The Renyi order.
        order: f64,
    },
    /// `eps` is outside the range where the cited theorem is proven.
    #[error("eps = {eps} exceeds {max}, the largest value for which this bound is proven")]
    EpsilonOutOfRange {
        /// The offending `eps`.
        eps: f64,
        /// The largest admissible `eps`.
        max: f64,
    },
}

/// Convenience alias for stopping results.
pub type Result<T> = std::result::Result<T, StoppingError>;

fn param(name: &'static str, value: f64, ok: bool, range: &'static str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(StoppingError::InvalidParameter { name, value, range })
    }
}

/// `x` as `u64`, rounding up and clamping to `[1, u64::MAX]` (Rust's
/// float-to-int casts saturate).
fn ceil_to_u64_at_least_one(x: f64) -> u64 {
    (x.ceil() as u64).max(1)
}

/// `K = ceil(ln U / ln q) >= 1`, `U ~ Uniform(0, 1)`: the number of trials up
/// to and including the first success when each trial *continues* with
/// probability `q`, i.e. `P(K > k) = q^k`. `ln_q` must be `< 0`.
fn geometric_from_log_continue<R: Rng + ?Sized>(ln_q: f64, rng: &mut R) -> u64 {
    let u: f64 = Open01.sample(rng);
    ceil_to_u64_at_least_one(u.ln() / ln_q)
}

/// Exact law of a number of runs: pmf, cdf, moments and generating function.
///
/// All implementors are also `rand_distr::Distribution<u64>` samplers of the
/// same law.
pub trait StoppingDistribution: Distribution<u64> {
    /// Smallest value with positive probability.
    fn support_min(&self) -> u64;
    /// `ln P(K = k)`; `-inf` outside the support.
    fn ln_pmf(&self, k: u64) -> f64;
    /// `P(K = k)`.
    fn pmf(&self, k: u64) -> f64 {
        self.ln_pmf(k).exp()
    }
    /// `P(K <= k)`. The default sums the pmf from [`Self::support_min`]
    /// (`O(k)`); closed forms override it.
    fn cdf(&self, k: u64) -> f64 {
        let lo = self.support_min();
        if k < lo {
            return 0.0;
        }
        (lo..=k).map(|j| self.pmf(j)).sum::<f64>().min(1.0)
    }
    /// `E[K]`.
    fn mean(&self) -> f64;
    /// `Var[K]`.
    fn variance(&self) -> f64;
    /// Probability-generating function `E[x^K]` for `x` in `[0, 1]`.
    fn pgf(&self, x: f64) -> f64;
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

// ---------------------------------------------------------------------------
// Truncated geometric TG(p, M) (González-Guzmán-Paquette)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Truncated negative binomial (Papernot-Steinke)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Poisson (Papernot-Steinke)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// The procedure
// ---------------------------------------------------------------------------

/// The winner of [`repeat_and_select`].
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<T> {
    /// The released candidate.
    pub candidate: T,
    /// Its score (releasable only if the score is part of the run's DP output).
    pub score: f64,
    /// 1-based index of the winning run. **Not** covered by the privacy
    /// guarantee: diagnostics only.
    pub run: u64,
    /// The realised number of runs `K`. **Not** covered by the privacy
    /// guarantee: diagnostics only.
    pub runs: u64,
}

/// Private selection from private candidates with random stopping
/// (Liu & Talwar 2019, Alg. 2; Papernot & Steinke 2022, §3): draws `K` from
/// `stopping`, calls `run` `K` times and returns the run with the highest
/// score (the first one on ties; NaN scores never win against a number).
/// Returns `None` if `K = 0` (possible for [`Poisson`]); the caller must then
/// release a fixed default.
///
/// Privacy is that of the stopping law, see the module table: e.g. eps-DP
/// runs with [`Geometric`] stopping give a 3 eps-DP selection
/// ([`liu_talwar_random_stop_epsilon`]). `run` must draw its randomness (e.g.
/// a fresh random hyperparameter, as in Wang–Zhu–Wang `A_PrivTune`) from the
/// RNG it is given, and must be DP on its own.
pub fn repeat_and_select<T, R, D, F>(stopping: &D, rng: &mut R, mut run: F) -> Option<Selected<T>>
where
    R: Rng + ?Sized,
    D: Distribution<u64> + ?Sized,
    F: FnMut(&mut R) -> (f64, T),
{
    let runs = stopping.sample(rng);
    let mut best: Option<Selected<T>> = None;
    for i in 1..=runs {
        let (score, candidate) = run(rng);
        let better = match &best {
            None => true,
            Some(b) => score > b.score || (b.score.is_nan() && !score.is_nan()),
        };
        if better {
            best = Some(Selected {
                candidate,
                score,
                run: i,
                runs,
            });
        }
    }
    best
}

// ---------------------------------------------------------------------------
// Privacy costs
// ---------------------------------------------------------------------------

fn check_eps(eps: f64) -> Result<()> {
    param("eps", eps, eps.is_finite() && eps >= 0.0, "[0, inf)")
}

fn check_gamma_open(gamma: f64) -> Result<()> {
    param("gamma", gamma, gamma > 0.0 && gamma < 1.0, "(0, 1)")
}

/// Liu & Talwar 2019, Thm 3.2 (random stopping without a threshold,
/// Alg. 2; stated in the introduction as Thm 1.3): if every candidate run is
/// `eps`-DP and the number of runs is [`Geometric`] with **any**
/// `gamma` in `(0, 1]`, releasing the best candidate is `3 eps`-DP.
/// Equals [`tnb_tuning_pure_dp`] at `eta = 1`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `eps` is finite and `>= 0`.
pub fn liu_talwar_random_stop_epsilon(eps: f64) -> Result<f64> {
    check_eps(eps)?;
    Ok(3.0 * eps)
}

/// Liu & Talwar 2019, Thm 3.1 (known threshold `tau`, Alg. 1: run until a
/// candidate scores at least `tau`, stopping with probability `gamma` after
/// each failure and then releasing nothing): `eps`-DP runs give a
/// `2 eps`-DP release.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `eps` is finite and `>= 0`.
pub fn liu_talwar_threshold_epsilon(eps: f64) -> Result<f64> {
    check_eps(eps)?;
    Ok(2.0 * eps)
}

/// `(eps', delta')` of random stopping with a **budget**: `eps`-DP runs,
/// `K = min(G, cap)` with `G ~ Geometric(gamma)` ([`CappedGeometric`]):
///
/// `eps' = 3 eps`, `delta' = (1 + e^{3 eps}) (1 - gamma)^cap`.
///
/// Proof (ours; Liu & Talwar 2019 §3 state a budgeted variant of the same
/// shape, `T = ln(1/delta_2)/gamma` runs for an additive `~delta_2`): run the
/// capped and uncapped procedures on the same randomness; they release the
/// same candidate unless `G > cap`, an event of probability
/// `p = (1-gamma)^cap` for every data set. Hence for every event `E`,
/// `P[A_cap(S) in E] <= P[A(S) in E] + p <= e^{3 eps} P[A(S') in E] + p
/// <= e^{3 eps} (P[A_cap(S') in E] + p) + p` by the 3 eps-DP of the uncapped
/// procedure ([`liu_talwar_random_stop_epsilon`]). Use
/// [`cap_for_overflow`] to pick `cap` for a target `p`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] for invalid `eps`, `gamma` or `cap`.
pub fn liu_talwar_capped_dp(eps: f64, gamma: f64, cap: u64) -> Result<(f64, f64)> {
    check_eps(eps)?;
    let capped = CappedGeometric::new(gamma, cap)?;
    let p = capped.overflow_probability();
    Ok((3.0 * eps, ((1.0 + (3.0 * eps).exp()) * p).min(1.0)))
}

/// Smallest budget `cap` with `(1 - gamma)^cap <= overflow`, i.e.
/// `ceil(ln(overflow) / ln(1 - gamma))` (at least 1); `ln(1-gamma)` via
/// `ln_1p`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `gamma` and `overflow` lie in
/// `(0, 1)`.
pub fn cap_for_overflow(gamma: f64, overflow: f64) -> Result<u64> {
    check_gamma_open(gamma)?;
    param(
        "overflow",
        overflow,
        overflow > 0.0 && overflow < 1.0,
        "(0, 1)",
    )?;
    Ok(ceil_to_u64_at_least_one(overflow.ln() / (-gamma).ln_1p()))
}

fn check_order(name: &'static str, order: f64, min_inclusive: bool) -> Result<()> {
    let ok = order.is_finite()
        && if min_inclusive {
            order >= 1.0
        } else {
            order > 1.0
        };
    param(
        name,
        order,
        ok,
        if min_inclusive {
            "[1, inf)"
        } else {
            "(1, inf)"
        },
    )
}

/// Papernot & Steinke 2022, **Thm 2** (truncated negative binomial
/// stopping). If one run `Q` is `(lambda, eps)`-RDP and
/// `(lambda_hat, eps_hat)`-RDP, with `lambda > 1`, `lambda_hat >= 1`, and
/// `K ~ TNB(eta, gamma)` ([`TruncatedNegativeBinomial`], `eta > -1`,
/// `0 < gamma < 1`), then releasing the best of `K` runs is
/// `(lambda, eps')`-RDP with
///
/// `eps' = eps + (1+eta)(1 - 1/lambda_hat) eps_hat + (1+eta) ln(1/gamma)/lambda_hat + ln(E K)/(lambda - 1)`,
///
/// `E K` from [`tnb_mean`]. Any `lambda_hat` may be used;
/// [`tnb_tuning_rdp_curve`] optimises it over a grid.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] for orders, divergences, `eta` or
/// `gamma` out of range.
pub fn tnb_tuning_rdp(
    eps: f64,
    order: f64,
    eps_hat: f64,
    order_hat: f64,
    eta: f64,
    gamma: f64,
) -> Result<f64> {
    check_eps(eps)?;
    check_eps(eps_hat)?;
    check_order("order", order, false)?;
    check_order("order_hat", order_hat, true)?;
    let mean = tnb_mean(eta, gamma)?;
    let one_eta = 1.0 + eta;
    Ok(eps
        + one_eta * (1.0 - 1.0 / order_hat) * eps_hat
        + one_eta * (-gamma.ln()) / order_hat
        + mean.ln() / (order - 1.0))
}

fn check_curve(orders: &[f64], rdp: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return Err(StoppingError::InvalidRdpCurve("no orders"));
    }
    if orders.len() != rdp.len() {
        return Err(StoppingError::InvalidRdpCurve(
            "orders and divergences differ in length",
        ));
    }
    if orders
        .iter()
        .any(|&a| a.is_nan() || a < 1.0 || a.is_infinite())
    {
        return Err(StoppingError::InvalidRdpCurve(
            "orders must be finite and >= 1",
        ));
    }
    if rdp.iter().any(|&e| e.is_nan() || e < 0.0) {
        return Err(StoppingError::InvalidRdpCurve(
            "divergences must be >= 0 (inf allowed, NaN not)",
        ));
    }
    Ok(())
}

/// RDP is non-decreasing in the order, so a bound at order `a_j` also bounds
/// every order `a_i <= a_j`: replace each value by the minimum over orders at
/// least as large.
fn monotone_envelope(orders: &[f64], values: &mut [f64]) {
    let raw = values.to_vec();
    for (i, v) in values.iter_mut().enumerate() {
        *v = orders
            .iter()
            .zip(&raw)
            .filter(|&(&a, _)| a >= orders[i])
            .map(|(_, &e)| e)
            .fold(f64::INFINITY, f64::min);
    }
}

/// Papernot & Steinke 2022, Thm 2 applied to a whole RDP curve of one run:
/// for each order `lambda_i > 1` of `orders`, returns
/// `eps'_i = eps_i + (1+eta) min_j [(1 - 1/lambda_j) eps_j + ln(1/gamma)/lambda_j] + ln(E K)/(lambda_i - 1)`
/// (the best `lambda_hat` from the same grid), then uses monotonicity of RDP
/// in the order (Mironov 2017, Prop. 9) to take, at each order, the minimum
/// over all orders at least as large. Orders equal to 1 are valid as
/// `lambda_hat` but give `+inf` as `lambda` (before the envelope).
///
/// # Errors
/// [`StoppingError::InvalidRdpCurve`] or invalid `eta`/`gamma`.
pub fn tnb_tuning_rdp_curve(
    orders: &[f64],
    base_rdp: &[f64],
    eta: f64,
    gamma: f64,
) -> Result<Vec<f64>> {
    check_curve(orders, base_rdp)?;
    let ln_mean = tnb_mean(eta, gamma)?.ln();
    let ln_inv_gamma = -gamma.ln();
    let hat = orders
        .iter()
        .zip(base_rdp)
        .filter(|(_, e)| e.is_finite())
        .map(|(&a, &e)| (1.0 - 1.0 / a) * e + ln_inv_gamma / a)
        .fold(f64::INFINITY, f64::min);
    let constant = (1.0 + eta) * hat;
    let mut out: Vec<f64> = orders
        .iter()
        .zip(base_rdp)
        .map(|(&a, &e)| {
            if a > 1.0 {
                e + constant + ln_mean / (a - 1.0)
            } else {
                f64::INFINITY
            }
        })
        .collect();
    monotone_envelope(orders, &mut out);
    Ok(out)
}

/// Pure-DP cost of `TNB(eta, gamma)` stopping with `eps`-DP runs:
/// `(2 + eta) eps`, for every `gamma`.
///
/// Derivation: an `eps`-DP run is `(lambda, eps)`-RDP at every order, so
/// [`tnb_tuning_rdp`] with `lambda_hat -> inf` gives
/// `(lambda, (2+eta) eps + ln(E K)/(lambda-1))`-RDP for all `lambda`, and
/// `D_inf = lim D_lambda` (van Erven & Harremoës 2014, Thm 6). At `eta = 1`
/// (geometric) this is Liu & Talwar's `3 eps`; the logarithmic law
/// (`eta = 0`) gives `2 eps` (Papernot & Steinke 2022, discussion of Thm 2).
///
/// # Errors
/// [`StoppingError::InvalidParameter`] for invalid `eps` or `eta <= -1`.
pub fn tnb_tuning_pure_dp(eps: f64, eta: f64) -> Result<f64> {
    check_eps(eps)?;
    param("eta", eta, eta.is_finite() && eta > -1.0, "(-1, inf)")?;
    Ok((2.0 + eta) * eps)
}

fn check_poisson_inputs(eps: f64, order: f64, eps_hat: f64, delta_hat: f64, mu: f64) -> Result<()> {
    check_eps(eps)?;
    check_eps(eps_hat)?;
    check_order("order", order, false)?;
    param(
        "delta_hat",
        delta_hat,
        (0.0..=1.0).contains(&delta_hat),
        "[0, 1]",
    )?;
    param("mu", mu, mu.is_finite() && mu > 0.0, "(0, inf)")?;
    if eps_hat > (1.0 / (order - 1.0)).ln_1p() {
        return Err(StoppingError::PoissonConditionViolated { eps_hat, order });
    }
    Ok(())
}

/// Papernot & Steinke 2022, **Thm 6** (Poisson stopping). If one run `Q` is
/// `(lambda, eps)`-RDP and `(eps_hat, delta_hat)`-DP with
/// `exp(eps_hat) <= 1 + 1/(lambda - 1)`, and `K ~ Poisson(mu)` ([`Poisson`];
/// `K = 0` releases a fixed default), then releasing the best of `K` runs is
/// `(lambda, eps')`-RDP with
///
/// `eps' = eps + mu delta_hat + ln(mu)/(lambda - 1)`.
///
/// **Restricted to `mu >= 1`.** For `mu < 1` the expression can be negative
/// (e.g. identical runs, `eps = delta_hat = 0`), which no divergence is; the
/// exact audit in `tests/selection.rs` finds violations at `mu = 0.5` when the
/// `K = 0` default is a separate output, and none for `mu >= 1` (also
/// Google's `dp_accounting` rejects means below 1). For any `mu > 0` use
/// [`poisson_tuning_rdp_any_mean`].
///
/// # Errors
/// [`StoppingError::PoissonConditionViolated`] if
/// `exp(eps_hat) > 1 + 1/(lambda - 1)`; [`StoppingError::InvalidParameter`]
/// for invalid inputs (`delta_hat` in `[0, 1]`, `mu >= 1`).
pub fn poisson_tuning_rdp(
    eps: f64,
    order: f64,
    eps_hat: f64,
    delta_hat: f64,
    mu: f64,
) -> Result<f64> {
    check_poisson_inputs(eps, order, eps_hat, delta_hat, mu)?;
    param("mu", mu, mu >= 1.0, "[1, inf) for Thm 6")?;
    Ok(eps + mu * delta_hat + mu.ln() / (order - 1.0))
}

/// Poisson-stopping RDP valid for **every** `mu > 0` (ours, from the proof
/// pattern of Papernot & Steinke Thm 6), same assumptions as
/// [`poisson_tuning_rdp`]:
///
/// `eps' = ln( e^{-mu} + mu exp((lambda-1)(eps + mu delta_hat)) ) / (lambda - 1)`.
///
/// Proof sketch: with `F` the cdf of one run and `f(x) = e^{mu(x-1)}` the
/// PGF of `K`, the best of `K` runs puts mass `f(F(y)) - f(F(y-))` on `y`
/// and `f(0) = e^{-mu}` on the default. Writing each mass as an average of
/// `Q(y) f'(t)` over `t` in `[F(y-), F(y)]`, joint convexity of
/// `(a, b) -> a^lambda b^(1-lambda)` gives
/// `sum_y A(y)^lambda A'(y)^(1-lambda) <= e^{(lambda-1) eps} sup f'(t)^lambda f'(t')^(1-lambda)`,
/// and `f'(t)^lambda f'(t')^(1-lambda) = mu exp(mu[(lambda-1)(1-t') - lambda(1-t)])
/// <= mu exp(mu (lambda-1) delta_hat)` by `(eps_hat, delta_hat)`-DP applied to
/// the (randomized) event of probability `1 - t` and
/// `(lambda-1) e^{eps_hat} <= lambda`. The default contributes `e^{-mu}`
/// (if it coincides with a candidate output, joint convexity again only
/// lowers the sum). For `mu >= 1` this exceeds [`poisson_tuning_rdp`] by at
/// most `ln(1 + e^{-mu}/mu)/(lambda-1)`.
///
/// # Errors
/// As [`poisson_tuning_rdp`], but any `mu > 0` is accepted.
pub fn poisson_tuning_rdp_any_mean(
    eps: f64,
    order: f64,
    eps_hat: f64,
    delta_hat: f64,
    mu: f64,
) -> Result<f64> {
    check_poisson_inputs(eps, order, eps_hat, delta_hat, mu)?;
    let a = -mu;
    let b = mu.ln() + (order - 1.0) * (eps + mu * delta_hat);
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    Ok((hi + (lo - hi).exp().ln_1p()) / (order - 1.0))
}

/// Papernot & Steinke 2022, Thm 6 applied to a whole RDP curve
/// ([`poisson_tuning_rdp`] for `mu >= 1`, [`poisson_tuning_rdp_any_mean`]
/// for `mu < 1`): at each order `lambda_i > 1` takes the largest admissible
/// `eps_hat = ln(1 + 1/(lambda_i - 1))` and `delta_hat = base_delta(eps_hat)`,
/// where `base_delta` is the privacy profile of one run (any valid
/// `(eps_hat, delta_hat)`-DP statement, e.g. the exact Gaussian profile
/// [`crate::calibration::exact_gaussian_delta`]), then applies the
/// monotone envelope in the order (as [`tnb_tuning_rdp_curve`]).
///
/// # Errors
/// [`StoppingError::InvalidRdpCurve`], invalid `mu`, or a `base_delta` value
/// outside `[0, 1]`.
pub fn poisson_tuning_rdp_curve(
    orders: &[f64],
    base_rdp: &[f64],
    base_delta: impl Fn(f64) -> f64,
    mu: f64,
) -> Result<Vec<f64>> {
    check_curve(orders, base_rdp)?;
    let mut out = Vec::with_capacity(orders.len());
    for (&a, &e) in orders.iter().zip(base_rdp) {
        if a > 1.0 && e.is_finite() {
            let eps_hat = (1.0 / (a - 1.0)).ln_1p();
            let delta_hat = base_delta(eps_hat);
            out.push(if mu >= 1.0 {
                poisson_tuning_rdp(e, a, eps_hat, delta_hat, mu)?
            } else {
                poisson_tuning_rdp_any_mean(e, a, eps_hat, delta_hat, mu)?
            });
        } else {
            out.push(f64::INFINITY);
        }
    }
    monotone_envelope(orders, &mut out);
    Ok(out)
}

/// An `(eps, delta)`-DP statement and the Renyi order it was obtained from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpCost {
    /// The `eps` of the statement.
    pub eps: f64,
    /// The `delta` of the statement.
    pub delta: f64,
    /// The Renyi order that minimised `eps`.
    pub order: f64,
}

/// `(lambda, eps)`-RDP implies `(eps + ln(1/delta)/(lambda - 1), delta)`-DP
/// (Mironov 2017, Prop. 3); returns the best `eps` over the grid. (Tighter
/// conversions, e.g. Canonne–Kamath–Steinke 2020, live in [`crate::rdp`].)
///
/// # Errors
/// [`StoppingError::InvalidRdpCurve`] if no order exceeds 1 with a finite
/// divergence; [`StoppingError::InvalidParameter`] unless `0 < delta < 1`.
pub fn rdp_curve_to_dp(orders: &[f64], rdp: &[f64], delta: f64) -> Result<DpCost> {
    check_curve(orders, rdp)?;
    param("delta", delta, delta > 0.0 && delta < 1.0, "(0, 1)")?;
    let ln_inv_delta = -delta.ln();
    orders
        .iter()
        .zip(rdp)
        .filter(|&(&a, &e)| a > 1.0 && e.is_finite())
        .map(|(&a, &e)| DpCost {
            eps: e + ln_inv_delta / (a - 1.0),
            delta,
            order: a,
        })
        .min_by(|x, y| x.eps.total_cmp(&y.eps))
        .ok_or(StoppingError::InvalidRdpCurve(
            "no order > 1 with a finite divergence",
        ))
}

/// Approximate-DP cost of `TNB(eta, gamma)` tuning: [`tnb_tuning_rdp_curve`]
/// (Papernot & Steinke Thm 2) followed by [`rdp_curve_to_dp`].
///
/// # Errors
/// As the two functions.
pub fn tnb_tuning_dp(
    orders: &[f64],
    base_rdp: &[f64],
    eta: f64,
    gamma: f64,
    delta: f64,
) -> Result<DpCost> {
    let curve = tnb_tuning_rdp_curve(orders, base_rdp, eta, gamma)?;
    rdp_curve_to_dp(orders, &curve, delta)
}

/// Approximate-DP cost of `Poisson(mu)` tuning: [`poisson_tuning_rdp_curve`]
/// (Papernot & Steinke Thm 6) followed by [`rdp_curve_to_dp`].
///
/// # Errors
/// As the two functions.
pub fn poisson_tuning_dp(
    orders: &[f64],
    base_rdp: &[f64],
    base_delta: impl Fn(f64) -> f64,
    mu: f64,
    delta: f64,
) -> Result<DpCost> {
    let curve = poisson_tuning_rdp_curve(orders, base_rdp, base_delta, mu)?;
    rdp_curve_to_dp(orders, &curve, delta)
}

fn check_privtune(r: f64, delta: f64) -> Result<f64> {
    check_gamma_open(r)?;
    param("delta", delta, delta > 0.0 && delta < 1.0, "(0, 1)")?;
    Ok(-(r.ln() + delta.ln()))
}

/// Wang–Zhu–Wang **Lemma K.1** (from Koskela et al. 2024, Cor. 5.5; digest
/// §2.5): `A_PrivTune` with `K ~ TNB_{1,r}` = [`Geometric`]`(r)` and `mu`-GDP
/// runs (base at `mu/sqrt 2` plus Gaussian score at `mu/sqrt 2`) is
/// `(eps, delta)`-DP with
///
/// `eps = 3/2 mu^2 + 3 mu sqrt(2 ln(1/(r delta))) + delta`,
///
/// under replace-one neighbours. Returns that `eps`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `mu >= 0` is finite and
/// `r`, `delta` lie in `(0, 1)`.
pub fn privtune_gdp_epsilon(mu: f64, r: f64, delta: f64) -> Result<f64> {
    param("mu", mu, mu.is_finite() && mu >= 0.0, "[0, inf)")?;
    let l = check_privtune(r, delta)?;
    Ok(1.5 * mu * mu + 3.0 * mu * (2.0 * l).sqrt() + delta)
}

/// Wang–Zhu–Wang **Thm K.3** calibration: `mu = eps / (6 sqrt(2 ln(1/(r delta))))`
/// makes `A_PrivTune` (`K ~ Geometric(r)`, `mu`-GDP runs) `(eps + delta, delta)`-DP
/// for `eps <= 24 ln(1/(r delta))` (via Cor. K.2, valid when
/// `mu <= 2 sqrt(2 ln(1/(r delta)))`).
///
/// # Errors
/// [`StoppingError::EpsilonOutOfRange`] if `eps > 24 ln(1/(r delta))`;
/// [`StoppingError::InvalidParameter`] for invalid inputs.
pub fn privtune_mu(eps: f64, r: f64, delta: f64) -> Result<f64> {
    param("eps", eps, eps.is_finite() && eps > 0.0, "(0, inf)")?;
    let l = check_privtune(r, delta)?;
    if eps > 24.0 * l {
        return Err(StoppingError::EpsilonOutOfRange { eps, max: 24.0 * l });
    }
    Ok(eps / (6.0 * (2.0 * l).sqrt()))
}
