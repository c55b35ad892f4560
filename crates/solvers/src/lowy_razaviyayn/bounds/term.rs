//! Section 5 bounds of Lowy–Razaviyayn: tilted ERM (digest §4.4, §5.1,
//! Tables 1–2, §8 E6, erratum P7) and DP adversarial training (digest §4.5,
//! §5.2, §8 E7, errata P3, P11). Conventions: see [`super`].
//!
//! TERM bounds take `log_c_tau = ln C_tau = tau (A_R - a_R)` instead of
//! `C_tau`, which overflows for large `tau` (P16). They use
//! `C = min{C_tau, n}`: Lemma 5.2's sensitivity is
//! `2L/mu min{1, C_tau/n} = 2L C/(mu n)`, so `C` equals the printed `C_tau` in
//! the regime `C_tau <= n` the theorems assume, and caps at the non-ERM
//! sensitivity `2L/mu` beyond it.

use super::{l2_over_mu, noise, pick, rho, s_factor, unprojected_black_box, Noise};
use dpcore::{PrivacyParams, ProblemConstants};

/// Which smoothness constant of `F_tau` (Lemma 5.3) defines `kappa_tau`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermSmoothness {
    /// `beta_tau = beta + tau L^2`: Lemma 5.3's statement, Thm 5.2's
    /// `kappa_tau`, and valid for twice-differentiable `f` (digest §4.4).
    Statement,
    /// `beta_tau = beta + 2 tau L^2`: Lemma 5.3's proof.
    Proof,
}

/// `kappa_tau = beta_tau/mu` for the chosen [`TermSmoothness`].
pub fn kappa_tau(c: &ProblemConstants, tau: f64, choice: TermSmoothness) -> f64 {
    let factor = match choice {
        TermSmoothness::Statement => 1.0,
        TermSmoothness::Proof => 2.0,
    };
    (c.smoothness + factor * tau * c.lipschitz * c.lipschitz) / c.strong_convexity
}

/// `C = min{C_tau, n}` from `ln C_tau` (module doc).
fn c_eff(log_c_tau: f64, n: usize) -> f64 {
    log_c_tau.min((n as f64).ln()).exp()
}

/// Conceptual TERM, bounded `f` (text before Thm 5.1), **printed**:
/// `2 L^2 C_tau/mu d/(eps n)` (pure) and `sqrt2 L^2 C_tau/mu rho_delta`
/// (approximate); Cor 2.1 with Lemma 5.2's sensitivity.
pub fn term_conceptual(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
) -> f64 {
    pick(privacy, 2.0, std::f64::consts::SQRT_2).map_or(f64::NAN, |k| {
        k * l2_over_mu(c) * c_eff(log_c_tau, n) * rho(n, d, privacy)
    })
}

/// Conceptual smooth TERM, bounded `f`, **printed** (P7): `4 kappa_tau L^2
/// C_tau/mu rho^2` with `rho = rho_0` or `rho_delta`.
pub fn term_conceptual_smooth_printed(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
    kappa_tau: f64,
) -> f64 {
    let r = rho(n, d, privacy);
    4.0 * kappa_tau * l2_over_mu(c) * c_eff(log_c_tau, n) * r * r
}

/// Conceptual smooth TERM, bounded `f`, **corrected** (P7: Prop 2.4 squares
/// the sensitivity): `4 kappa_tau L^2 C_tau^2/mu rho^2`.
pub fn term_conceptual_smooth(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
    kappa_tau: f64,
) -> f64 {
    term_conceptual_smooth_printed(c, n, d, privacy, log_c_tau, kappa_tau) * c_eff(log_c_tau, n)
}

/// Conceptual smooth TERM for **unbounded** `f` (sensitivity `2L/mu`, no
/// `n`), printed: `4 kappa_tau L^2/mu s^2` with `s = d/eps` or `s_delta`.
pub fn term_conceptual_smooth_unbounded(
    c: &ProblemConstants,
    d: usize,
    privacy: PrivacyParams,
    kappa_tau: f64,
) -> f64 {
    let s = s_factor(d, privacy);
    4.0 * kappa_tau * l2_over_mu(c) * s * s
}

/// Thm 5.1 (Algorithm 1 + full-gradient subgradient method), **printed**:
/// `9 L^2 C_tau/mu rho`, `rho = rho_0` or `rho_delta`.
pub fn thm_5_1(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
) -> f64 {
    9.0 * l2_over_mu(c) * c_eff(log_c_tau, n) * rho(n, d, privacy)
}

/// Thm 5.2 (Algorithm 1 + AGD), **printed** (P7): `26 kappa_tau L^2 C_tau/mu
/// rho_0^2` (pure) and `13.5 kappa_tau L^2 C_tau/mu rho_delta^2` (approximate).
pub fn thm_5_2_printed(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
    kappa_tau: f64,
) -> f64 {
    let r = rho(n, d, privacy);
    pick(privacy, 26.0, 13.5).map_or(f64::NAN, |k| {
        k * kappa_tau * l2_over_mu(c) * c_eff(log_c_tau, n) * r * r
    })
}

/// Thm 5.2 **corrected** (P7): the printed bound with `C_tau^2` for `C_tau`.
pub fn thm_5_2(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
    kappa_tau: f64,
) -> f64 {
    thm_5_2_printed(c, n, d, privacy, log_c_tau, kappa_tau) * c_eff(log_c_tau, n)
}

/// Strong-convexity **lower** bound of P7 on the conceptual smooth TERM
/// mechanism `w* + z` (no projection) with paper calibration
/// `Delta = 2 L C_tau/(mu n)`: `E F_tau(w* + z) - F* >= mu/2 E||z||^2`, i.e.
/// `2 L^2 C_tau^2/mu d(d+1)/(eps n)^2` (pure) and `L^2 C_tau^2/mu
/// rho_delta^2` (approximate). Algorithm 1 adds at least this much noise, so
/// it also lower-bounds Thm 5.2's algorithm.
pub fn term_strong_convexity_lower_bound(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    log_c_tau: f64,
) -> f64 {
    let ce = c_eff(log_c_tau, n);
    let scale = l2_over_mu(c) * ce * ce;
    let (df, en) = (d as f64, privacy.eps * n as f64);
    match noise(privacy) {
        None => f64::NAN,
        Some(Noise::Pure) => 2.0 * scale * df * (df + 1.0) / (en * en),
        Some(Noise::Gaussian(_)) => scale * rho(n, d, privacy).powi(2),
    }
}

/// Prop 5.1 (Algorithm 5, conceptual adversarial training), **printed**:
/// `4 kappa L^2/mu rho^2`, `rho = rho_0` or `rho_delta`.
pub fn prop_5_1(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let r = rho(n, d, privacy);
    4.0 * c.condition_number() * l2_over_mu(c) * r * r
}

/// Thm 5.3 (Algorithm 6), generic `alpha`, **corrected** (P3: the inflation is
/// `2 sqrt(2 alpha/mu)`): `4 beta (L/(mu n) + sqrt(2 alpha/mu))^2 (d/eps)^2 +
/// alpha` (pure), `2 beta (.)^2 s_delta^2 + alpha` (approximate).
pub fn thm_5_3(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    alpha: f64,
) -> f64 {
    unprojected_black_box(c, n, s_factor(d, privacy), privacy, alpha, 2.0)
}

/// Thm 5.3 as **printed**, with `sqrt(alpha/mu)` in place of `sqrt(2 alpha/mu)`.
pub fn thm_5_3_printed(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    alpha: f64,
) -> f64 {
    unprojected_black_box(c, n, s_factor(d, privacy), privacy, alpha, 1.0)
}

/// Thm 5.3 / Cor 5.1 with `alpha = L^2/(mu n^2) min{kappa s^2, 1}`,
/// **printed**: `26 L^2/mu kappa rho_0^2` and `13.5 L^2/mu kappa rho_delta^2`.
pub fn thm_5_3_prescribed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    super::erm::thm_3_2_prescribed(c, n, d, privacy)
}

/// Prop 5.3 (population, Algorithm 5), **printed**:
/// `L^2/mu (2/n + 4 kappa rho^2)`.
pub fn prop_5_3(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    l2_over_mu(c) * 2.0 / n as f64 + prop_5_1(c, n, d, privacy)
}

/// Cor 5.2 (population, Algorithm 6), **corrected** (P11):
/// `L^2/mu (5/n + 26 kappa rho_0^2)` and `L^2/mu (5/n + 13.5 kappa rho_delta^2)`.
pub fn cor_5_2(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    l2_over_mu(c) * 5.0 / n as f64 + thm_5_3_prescribed(c, n, d, privacy)
}

/// Cor 5.2 as **printed**: part (b) carries a stray `L^2/mu` inside the
/// bracket, `L^2/mu (5/n + 13.5 kappa L^2/mu rho_delta^2)` (P11); part (a) is
/// as in [`cor_5_2`].
pub fn cor_5_2_printed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    match noise(privacy) {
        Some(Noise::Gaussian(_)) => {
            l2_over_mu(c) * 5.0 / n as f64 + l2_over_mu(c) * thm_5_3_prescribed(c, n, d, privacy)
        }
        _ => cor_5_2(c, n, d, privacy),
    }
}
