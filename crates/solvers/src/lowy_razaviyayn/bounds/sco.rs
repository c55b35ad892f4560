//! Expected excess **population** loss bounds of Lowy–Razaviyayn (Section 4,
//! Appendix D; digest §4.3, Tables 3–4, §8 E3). Conventions: see [`super`].
//! Each bound is (generalization gap, by uniform stability) + (empirical
//! excess); all are **printed** forms (the digest lists no erratum in the
//! bounds themselves; P12 concerns only Cor D.2's prescribed `alpha` and
//! hypothesis, which these functions do not use).

use super::{l2_over_mu, pick, rho, smooth_convex_scale};
use dpcore::{PrivacyParams, ProblemConstants};

/// Non-private optimum for strongly convex SCO, `L^2/(mu n)` \[HK14\]
/// (digest §4.3).
pub fn non_private_strongly_convex(c: &ProblemConstants, n: usize) -> f64 {
    l2_over_mu(c) / n as f64
}

/// Non-private optimum for convex SCO, `LR/sqrt(n)` (digest §4.3).
pub fn non_private_convex(c: &ProblemConstants, n: usize) -> f64 {
    c.lipschitz * c.radius / (n as f64).sqrt()
}

/// Prop 4.1 (`f` mu-strongly convex, L-Lipschitz; conceptual `A'`):
/// `2 L^2/mu (1/n + rho)`, `rho = rho_0` or `rho_delta`.
pub fn prop_4_1(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    2.0 * l2_over_mu(c) * (1.0 / n as f64 + rho(n, d, privacy))
}

/// Cor 4.1 (Algorithm 1 + SGD): `L^2/mu (5/n + 9 rho_0)` (pure) and
/// `L^2/mu (5/n + 6 rho_delta)` (approximate).
pub fn cor_4_1(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    match pick(privacy, 9.0, 6.0) {
        None => f64::NAN,
        Some(k) => l2_over_mu(c) * (5.0 / n as f64 + k * rho(n, d, privacy)),
    }
}

/// Prop 4.2 (`f` also beta-smooth; conceptual `A`):
/// `L^2/mu (2/n + 4 kappa rho^2)`.
pub fn prop_4_2(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let r = rho(n, d, privacy);
    l2_over_mu(c) * (2.0 / n as f64 + 4.0 * c.condition_number() * r * r)
}

/// Cor 4.2 (Algorithm 1 + Katyusha): `L^2/mu (5/n + 26 kappa rho_0^2)` (pure)
/// and `L^2/mu (5/n + 13.5 kappa rho_delta^2)` (approximate).
pub fn cor_4_2(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let r = rho(n, d, privacy);
    match pick(privacy, 26.0, 13.5) {
        None => f64::NAN,
        Some(k) => l2_over_mu(c) * (5.0 / n as f64 + k * c.condition_number() * r * r),
    }
}

/// Prop D.1 (`f` convex, L-Lipschitz; Eq. 6 with the SCO lambda):
/// `LR (127 rho_0^{1/2} + 1/(2 sqrt n))` (pure) and
/// `LR (19 rho_delta^{1/2} + 1/(2 sqrt n))` (approximate).
pub fn prop_d_1(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    match pick(privacy, 127.0, 19.0) {
        None => f64::NAN,
        Some(k) => {
            c.lipschitz * c.radius * (k * rho(n, d, privacy).sqrt() + 0.5 / (n as f64).sqrt())
        }
    }
}

/// Cor D.1 (Algorithm 7 + SGD): `32 LR (rho^{1/2} + 1/sqrt n)` for both cases.
pub fn cor_d_1(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    32.0 * c.lipschitz * c.radius * (rho(n, d, privacy).sqrt() + 1.0 / (n as f64).sqrt())
}

/// Prop D.2 (`f` convex, L-Lipschitz, beta-smooth; Eq. 7,
/// `rho^2 <= L/(R beta)`): `B (11/sqrt n + 83 rho_0^{2/3})` (pure) and
/// `B (11/sqrt n + 43 rho_delta^{2/3})` (approximate),
/// `B = beta^{1/3} L^{2/3} R^{4/3}`.
pub fn prop_d_2(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    match pick(privacy, 83.0, 43.0) {
        None => f64::NAN,
        Some(k) => {
            smooth_convex_scale(c)
                * (11.0 / (n as f64).sqrt() + k * rho(n, d, privacy).powf(2.0 / 3.0))
        }
    }
}

/// Cor D.2 (Algorithm 7 + Katyusha): `128 B (1/sqrt n + rho^{2/3})` for both
/// cases. Use Cor C.2's `alpha` and the hypothesis `rho^2 <= L/(R beta)` (P12).
pub fn cor_d_2(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    128.0 * smooth_convex_scale(c) * (1.0 / (n as f64).sqrt() + rho(n, d, privacy).powf(2.0 / 3.0))
}
