//! The theorems' expressions of Menart et al., with their logs (digest §3,
//! §3.6 "theory-curve recipes"), so that slopes are compared with the slope of
//! the full expression (digest §6.0). All depend on `(n, rho)` only through
//! `x = n sqrt(rho)` (digest §1.7), except where the paper writes `n` alone
//! (`A_2`'s `sqrt(n) rho^(1/4) = sqrt(x)` too).

use super::spider::{KlSpider, SpiderInputs};
use dpcore::RunFailure;

/// The public constants of the expressions that need no KL constant
/// (Theorem 4's side condition, Theorem 5's explicit bound), so that they
/// apply to a family without KL constants (F-G phase retrieval, F-H
/// Geman–McClure) too.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoothInputs {
    /// Number of records `n` (real: virtual sweeps are allowed).
    pub n: f64,
    /// Dimension `d`.
    pub d: f64,
    /// zCDP budget `rho`.
    pub rho: f64,
    /// Failure probability `beta`.
    pub beta: f64,
    /// Lipschitz constant `L0`.
    pub l0: f64,
    /// Smoothness `L1`.
    pub l1: f64,
    /// Initial gap `F0`.
    pub f0: f64,
}

impl SmoothInputs {
    /// `x = n sqrt(rho)`.
    pub fn x(&self) -> f64 {
        self.n * self.rho.sqrt()
    }

    /// The same constants with the KL constant `gamma` and exponent `kappa`.
    pub fn with_kl(&self, gamma: f64, kappa: f64) -> TheoryInputs {
        let &SmoothInputs {
            n,
            d,
            rho,
            beta,
            l0,
            l1,
            f0,
        } = self;
        TheoryInputs {
            n,
            d,
            rho,
            beta,
            gamma,
            kappa,
            l0,
            l1,
            f0,
        }
    }
}

/// Public constants shared by the theory expressions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TheoryInputs {
    /// Number of records `n` (real: virtual sweeps are allowed).
    pub n: f64,
    /// Dimension `d`.
    pub d: f64,
    /// zCDP budget `rho`.
    pub rho: f64,
    /// Failure probability `beta`.
    pub beta: f64,
    /// KL constant `gamma`.
    pub gamma: f64,
    /// KL exponent `kappa`.
    pub kappa: f64,
    /// Lipschitz constant `L0`.
    pub l0: f64,
    /// Smoothness `L1` (or the prox weight `Lt1` for Theorem 2).
    pub l1: f64,
    /// Initial gap `F0`.
    pub f0: f64,
}

impl TheoryInputs {
    /// `x = n sqrt(rho)`.
    pub fn x(&self) -> f64 {
        self.n * self.rho.sqrt()
    }

    /// The constants without `gamma` and `kappa`.
    pub fn smooth(&self) -> SmoothInputs {
        SmoothInputs {
            n: self.n,
            d: self.d,
            rho: self.rho,
            beta: self.beta,
            l0: self.l0,
            l1: self.l1,
            f0: self.f0,
        }
    }

    /// `u = gamma L0 sqrt(d)/x`, the base of the nominal rate.
    pub fn base(&self) -> f64 {
        self.gamma * self.l0 * self.d.sqrt() / self.x()
    }
}

/// Theorem 1's deterministic w.h.p. bound for Algorithm 1: `Phi_K` of the
/// schedule the configuration would run (`F0` when the rate is trivial).
pub fn spider_theory(spider: &KlSpider, inputs: SpiderInputs) -> Result<f64, RunFailure> {
    Ok(match spider.schedule(inputs)? {
        Some(s) => s.theory_bound(),
        None => inputs.f0,
    })
}

/// The nominal rate `(gamma L0 sqrt(d)/(n sqrt rho))^kappa` (Theorems 1, 2).
pub fn nominal_rate(t: &TheoryInputs) -> f64 {
    t.base().powf(t.kappa)
}

/// Corollary 1's lower-bound shape `[kappa/(kappa-1)]^(1-kappa) u^kappa`
/// (`1 < kappa <= 2`; up to constants and polylogs).
pub fn corollary1_lower_bound(t: &TheoryInputs) -> f64 {
    (t.kappa / (t.kappa - 1.0)).powf(1.0 - t.kappa) * nominal_rate(t)
}

/// Theorem 2's proof bound for Algorithm 2 with prox weight `t.l1 = Lt1` and
/// the unspecified Lemma 3 constant `a` (fitted, digest §3.3):
/// `max(F0 c^-T, min((a gamma L0 sqrt(T d log(x^2 log^2(1/beta')/(d beta')))/x)^kappa, F0))`,
/// `c = 1 + F0^((2-k)/k)/(32 gamma^2 Lt1)`, `T` and `beta' = beta/T` as in
/// Algorithm 2. The log's `n^2` is read as `n^2 rho = x^2` (Theorem 9's
/// `T_in`; the digest §1.7 invariance). A non-positive bracket gives `F0`.
pub fn proximal_theory(t: &TheoryInputs, a: f64) -> f64 {
    let (k, g, f0, lt1) = (t.kappa, t.gamma, t.f0, t.l1);
    let bracket = f0.ln() + k * (1.0 / t.base()).ln();
    if bracket <= 0.0 {
        return f0;
    }
    let rounds = ((1.0 + 32.0 * f0.powf((k - 2.0) / k) * g * g * lt1) * bracket).ceil();
    let beta_p = t.beta / rounds;
    let x = t.x();
    let log = (x * x * (1.0 / beta_p).ln().powi(2) / (t.d * beta_p)).ln();
    let rate = (a * g * t.l0 * (rounds * t.d * log).sqrt() / x)
        .powf(k)
        .min(f0);
    let decay = (f0.powf((2.0 - k) / k) / (32.0 * g * g * lt1)).ln_1p();
    (f0.ln() - rounds * decay).exp().max(rate)
}

/// The three terms of Theorem 4 (Algorithm 3), unit constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveTerms {
    /// `A1 = (gamma L0 sqrt(d l p_max)/x)^(2k/(4-k))` (the adaptive rate).
    pub a1: f64,
    /// `A2 = (max(gamma^2, 1) L0^2 l/(min(L1, 1) x))^(k/2)` (norm-noise term).
    pub a2: f64,
    /// `A3 = (p_max/x)^(k/(2-k))` (iteration budget term; 0 at `kappa = 2`).
    pub a3: f64,
    /// `p_max = (1 + 8 gamma^2 L1)[log F0 + 2k/(4-k) log(x/(gamma L0))]`,
    /// clamped at 0 (P10).
    pub p_max: f64,
}

impl AdaptiveTerms {
    /// `A1 + A2 + A3`.
    pub fn total(&self) -> f64 {
        self.a1 + self.a2 + self.a3
    }
}

/// Theorem 4's terms with `l = log(x/beta)` (digest §3.4).
pub fn adaptive_theory(t: &TheoryInputs) -> AdaptiveTerms {
    let (k, g, x) = (t.kappa, t.gamma, t.x());
    let ell = (x / t.beta).ln();
    let p_max = ((1.0 + 8.0 * g * g * t.l1)
        * (t.f0.ln() + 2.0 * k / (4.0 - k) * (x / (g * t.l0)).ln()))
    .max(0.0);
    let a1 = (g * t.l0 * (t.d * ell * p_max).sqrt() / x).powf(2.0 * k / (4.0 - k));
    let a2 = ((g * g).max(1.0) * t.l0 * t.l0 * ell / (t.l1.min(1.0) * x)).powf(k / 2.0);
    let a3 = if k < 2.0 {
        (p_max / x).powf(k / (2.0 - k))
    } else {
        0.0
    };
    AdaptiveTerms { a1, a2, a3, p_max }
}

/// Theorem 4's side condition `L0^2 log(x/beta)/(L1 n) <= sqrt(rho)` (digest P10).
pub fn theorem4_condition_holds(t: &SmoothInputs) -> bool {
    t.l0 * t.l0 * (t.x() / t.beta).ln() / (t.l1 * t.n) <= t.rho.sqrt()
}

/// Whether `A1` dominates `A2` up to constants and logs, i.e.
/// `d >= (n sqrt(rho))^(kappa/2)` (regime R1 of digest §3.4, P13).
pub fn adaptive_regime_r1(t: &TheoryInputs) -> bool {
    t.d >= t.x().powf(t.kappa / 2.0)
}

/// Theorem 5's stated minimum number of steps of Algorithm 3 (D.6),
/// `T >= (1/2) min(x^2 N*^2/(L0^2 d l), x)` with `x = n sqrt(rho)`,
/// `l = log(x/beta)` and `N* = min_t ||grad F(w_t)||` over the query points
/// (`min_norm`). The proof counts it under D.3's stopping rule (charges
/// summing past `rho`); each step is charged at most `L0^2 d l/(n^2 N_t^2) +
/// sqrt(rho)/n`, so a run whose norm estimates stay at least `N*` takes at
/// least `rho` over twice the larger of the two terms.
pub fn theorem5_step_count(t: &SmoothInputs, min_norm: f64) -> f64 {
    let x = t.x();
    let ell = (x / t.beta).ln();
    0.5 * (x * x * min_norm * min_norm / (t.l0 * t.l0 * t.d * ell)).min(x)
}

/// Theorem 5's explicit bound on `||grad F(w_t*)||` (end of D.6) with the
/// realised number of steps `steps` and the budget `t.rho` of Algorithm 3:
/// `min(sqrt(8 F0 L1/T) + L0 sqrt(l)/sqrt(x),
///      (6 L0 sqrt(F0 L1 d l)/x)^(1/2) + 3 L0 l/sqrt(x) + 4 L0 l/x)`
/// (`sqrt(n) rho^(1/4) = sqrt(x)`); no KL constant enters.
pub fn stationarity_theory(t: &SmoothInputs, steps: f64) -> f64 {
    let x = t.x();
    let ell = (x / t.beta).ln();
    let first = (8.0 * t.f0 * t.l1 / steps).sqrt() + t.l0 * ell.sqrt() / x.sqrt();
    let second = (6.0 * t.l0 * (t.f0 * t.l1 * t.d * ell).sqrt() / x).sqrt()
        + 3.0 * t.l0 * ell / x.sqrt()
        + 4.0 * t.l0 * ell / x;
    first.min(second)
}
