//! Excess **empirical** risk bounds of Lowy–Razaviyayn (digest §4.1–§4.2,
//! Tables 5–6): the conceptual mechanisms (Section 2) and the black-box
//! algorithms (Section 3, Appendix C). Conventions: see [`super`]. Every
//! function is the raw expression (no `min{LR, .}`) and `NaN` for invalid
//! privacy parameters.

use super::{noise, pick, rho, smooth_convex_scale, unprojected_black_box, Noise};
use dpcore::{PrivacyParams, ProblemConstants};

/// Prop 2.3 (`F^ERM`, projected conceptual `A'`), **printed** (digest §4.1):
/// `L Delta d/eps` (pure) and `L sqrt(d) (c_delta + sqrt(c_delta^2 + eps))
/// Delta/(sqrt 2 eps)` (approximate), for a sensitivity bound `Delta`.
pub fn prop_2_3(c: &ProblemConstants, d: usize, privacy: PrivacyParams, sensitivity: f64) -> f64 {
    let (df, eps, l) = (d as f64, privacy.eps, c.lipschitz);
    match noise(privacy) {
        None => f64::NAN,
        Some(Noise::Pure) => l * sensitivity * df / eps,
        Some(Noise::Gaussian(k)) => {
            l * df.sqrt() * k * sensitivity / (std::f64::consts::SQRT_2 * eps)
        }
    }
}

/// Cor 2.1 (`F^ERM`), **printed**: `2 L^2 d/(mu eps n)` (pure) and
/// `sqrt(2) L^2/mu rho_delta` (approximate); Prop 2.3 at `Delta = 2L/(mu n)`.
pub fn cor_2_1(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let (l, mu) = (c.lipschitz, c.strong_convexity);
    let r = rho(n, d, privacy);
    pick(privacy, 2.0, std::f64::consts::SQRT_2).map_or(f64::NAN, |k| k * l * l / mu * r)
}

/// Prop 2.4 (beta-smooth `F`, conceptual `A` without projection),
/// **corrected** (erratum P8): `beta/2 d(d+1) Delta^2/eps^2` (pure) and
/// `beta/2 d sigma^2 = beta d/4 ((c_delta + sqrt(c_delta^2 + eps))/eps)^2
/// Delta^2` (approximate). Exact (an equality) for a quadratic with Hessian
/// `beta I` (digest §4.1).
pub fn prop_2_4(c: &ProblemConstants, d: usize, privacy: PrivacyParams, sensitivity: f64) -> f64 {
    let (df, eps, beta) = (d as f64, privacy.eps, c.smoothness);
    let s2 = sensitivity * sensitivity;
    match noise(privacy) {
        None => f64::NAN,
        Some(Noise::Pure) => 0.5 * beta * df * (df + 1.0) * s2 / (eps * eps),
        Some(Noise::Gaussian(k)) => 0.25 * beta * df * (k / eps).powi(2) * s2,
    }
}

/// Prop 2.4 as **printed**: the approximate-DP case lacks the factor `d`
/// (erratum P8); the pure case is as in [`prop_2_4`].
pub fn prop_2_4_printed(
    c: &ProblemConstants,
    d: usize,
    privacy: PrivacyParams,
    sensitivity: f64,
) -> f64 {
    match noise(privacy) {
        Some(Noise::Gaussian(_)) => prop_2_4(c, d, privacy, sensitivity) / d as f64,
        _ => prop_2_4(c, d, privacy, sensitivity),
    }
}

/// Corrected Prop 2.4 at the paper's `Delta = 2L/(mu n)`:
/// `2 kappa L^2/mu d(d+1)/(eps n)^2` (pure) and `kappa L^2/mu rho_delta^2`
/// (approximate). The sharp form behind Cor 2.2 (digest §4.1: "constant 1
/// instead of 4").
pub fn prop_2_4_at_paper_sensitivity(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
) -> f64 {
    let delta_f = 2.0 * c.lipschitz / (c.strong_convexity * n as f64);
    prop_2_4(c, d, privacy, delta_f)
}

/// Cor 2.2 (`H^ERM`), with the factor `d` of erratum P8 (this is what
/// `ConceptualOutputPerturbation::theorem_bound` returns):
/// `4 kappa L^2/mu rho^2` with `rho = rho_0` or `rho_delta`, i.e.
/// `4 kappa L^2/mu d (c_delta + sqrt(c_delta^2 + eps))^2/(eps n)^2`.
pub fn cor_2_2(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let r = rho(n, d, privacy);
    4.0 * c.condition_number() * c.lipschitz * c.lipschitz / c.strong_convexity * r * r
}

/// Cor 2.2 as **printed**: the approximate case writes `(c_delta +
/// sqrt(eps))^2` for `(c_delta + sqrt(c_delta^2 + eps))^2` (valid only thanks
/// to the constant 4, P8); the pure case is as in [`cor_2_2`].
pub fn cor_2_2_printed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    match noise(privacy) {
        Some(Noise::Gaussian(_)) => {
            let cd = match mechanisms::calibration::lowy_c_delta(privacy.delta) {
                Ok(v) => v,
                Err(_) => return f64::NAN,
            };
            let en = privacy.eps * n as f64;
            let k = cd + privacy.eps.sqrt();
            4.0 * c.condition_number() * c.lipschitz * c.lipschitz / c.strong_convexity
                * d as f64
                * k
                * k
                / (en * en)
        }
        _ => cor_2_2(c, n, d, privacy),
    }
}

/// Remark 2.3 (`H^ERM`, min form) with the explicit constants of Cor 2.1 and
/// Cor 2.2 (the remark itself is stated up to constants):
/// `min{LR, cor_2_1, cor_2_2}`. The `LR` cap is part of the remark.
pub fn remark_2_3(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let a = cor_2_1(c, n, d, privacy);
    let b = cor_2_2(c, n, d, privacy);
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    (c.lipschitz * c.radius).min(a).min(b)
}

/// Prop 2.7 (`G^ERM`, Eq. 6, prescribed lambda), **printed**:
/// `8.5 L R rho^{1/2}`, assuming `rho <= 1` (marginally optimistic at
/// `rho = 1`, where the skeleton gives about `8.6 LR`, P11).
pub fn prop_2_7(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    8.5 * c.lipschitz * c.radius * rho(n, d, privacy).sqrt()
}

/// The un-simplified skeleton of Prop 2.7's proof (B.3.1), valid for any
/// `lambda > 0`: `lambda R^2/2 + 2 (L + lambda R)^2 rho/lambda`.
pub fn prop_2_7_skeleton(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    lambda: f64,
) -> f64 {
    let (l, r) = (c.lipschitz, c.radius);
    0.5 * lambda * r * r + 2.0 * (l + lambda * r).powi(2) * rho(n, d, privacy) / lambda
}

/// Prop 2.8 (`J^ERM`, Eq. 7, prescribed lambda), **printed**:
/// `48.5 beta^{1/3} L^{2/3} R^{4/3} rho^{2/3}`, assuming `rho^2 <= L/(R beta)`.
pub fn prop_2_8(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    48.5 * smooth_convex_scale(c) * rho(n, d, privacy).powf(2.0 / 3.0)
}

/// The skeleton of Prop 2.8's proof, for any `lambda > 0`:
/// `lambda R^2/2 + 4 (beta + lambda) (L + lambda R)^2 rho^2/lambda^2`.
pub fn prop_2_8_skeleton(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    lambda: f64,
) -> f64 {
    let (l, r, beta) = (c.lipschitz, c.radius, c.smoothness);
    let rh = rho(n, d, privacy);
    0.5 * lambda * r * r
        + 4.0 * (beta + lambda) * (l + lambda * r).powi(2) * rh * rh / lambda.powi(2)
}

/// Thm 3.1 (`F^ERM`, Algorithm 1 + projection), generic accuracy `alpha`,
/// **printed**: `2 sqrt2 (L^2/(mu n) + L sqrt(2 alpha/mu)) d/eps + alpha`
/// (pure) and `2 (L^2/(mu n) + L sqrt(2 alpha/mu)) sqrt(d) (c_delta +
/// sqrt(c_delta^2 + eps))/eps + alpha` (approximate).
pub fn thm_3_1(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    alpha: f64,
) -> f64 {
    let (l, mu) = (c.lipschitz, c.strong_convexity);
    let inner = l * l / (mu * n as f64) + l * (2.0 * alpha / mu).sqrt();
    let s = rho(n, d, privacy) * n as f64;
    pick(privacy, 2.0 * std::f64::consts::SQRT_2, 2.0).map_or(f64::NAN, |k| k * inner * s + alpha)
}

/// Thm 3.1 with its prescribed `alpha` (digest §3.8), **printed**:
/// `9 L^2/mu d/(eps n)` (pure) and `6 L^2/mu rho_delta` (approximate).
pub fn thm_3_1_prescribed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    pick(privacy, 9.0, 6.0).map_or(f64::NAN, |k| {
        k * c.lipschitz * c.lipschitz / c.strong_convexity * rho(n, d, privacy)
    })
}

/// Thm 3.2 (`H^ERM`, Algorithm 1, no projection), generic `alpha`,
/// **printed**: `4 beta (L/(mu n) + sqrt(2 alpha/mu))^2 (d/eps)^2 + alpha`
/// (pure) and `2 beta (L/(mu n) + sqrt(2 alpha/mu))^2 d (c_delta +
/// sqrt(c_delta^2 + eps))^2/eps^2 + alpha` (approximate).
pub fn thm_3_2(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    alpha: f64,
) -> f64 {
    let s = rho(n, d, privacy) * n as f64;
    unprojected_black_box(c, n, s, privacy, alpha, 2.0)
}

/// Thm 3.2 with its prescribed `alpha = L^2/(mu n^2) min{kappa s^2, 1}`,
/// **printed**: `26 L^2/mu kappa rho_0^2` and `13.5 L^2/mu kappa rho_delta^2`.
pub fn thm_3_2_prescribed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    let r = rho(n, d, privacy);
    pick(privacy, 26.0, 13.5).map_or(f64::NAN, |k| {
        k * c.lipschitz * c.lipschitz / c.strong_convexity * c.condition_number() * r * r
    })
}

/// Thm C.1 (`G^ERM`, Algorithm 7 + projection, lambda of Prop 2.7), generic
/// `alpha`, **printed**: `16.5 LR rho_0^{1/2} + 32 sqrt(alpha LR) (eps n/d)^{1/4}
/// (1 + d/eps)` (pure) and `13 LR rho_delta^{1/2} + 12 sqrt(alpha LR)
/// rho_delta^{-1/4}` (approximate).
pub fn thm_c_1(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    alpha: f64,
) -> f64 {
    let lr = c.lipschitz * c.radius;
    let r = rho(n, d, privacy);
    let root = (alpha * lr).sqrt();
    match noise(privacy) {
        None => f64::NAN,
        Some(Noise::Pure) => {
            16.5 * lr * r.sqrt() + 32.0 * root * r.powf(-0.25) * (1.0 + d as f64 / privacy.eps)
        }
        Some(Noise::Gaussian(_)) => 13.0 * lr * r.sqrt() + 12.0 * root * r.powf(-0.25),
    }
}

/// Thm C.1 / Cor C.1 with the prescribed `alpha`, **printed**:
/// `49 LR rho_0^{1/2}` and `25 LR rho_delta^{1/2}`.
pub fn thm_c_1_prescribed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    pick(privacy, 49.0, 25.0).map_or(f64::NAN, |k| {
        k * c.lipschitz * c.radius * rho(n, d, privacy).sqrt()
    })
}

/// Thm C.2 (`J^ERM`, Algorithm 7, lambda of Prop 2.8, `rho^2 <= L/(R beta)`),
/// generic `alpha`, **printed**, with `B = beta^{1/3} L^{2/3} R^{4/3}`:
///
/// * pure: `48.5 B rho_0^{2/3} + alpha [3 (R beta/L)^{2/3} d^{4/3}
///   n^{2/3}/eps^{4/3} + 1] + 12 sqrt(alpha) R sqrt(beta) d/eps`;
/// * approximate: `48.5 B rho_delta^{2/3} + alpha [1 + 8 n^{2/3}
///   (beta R/L)^{2/3} s_delta^{4/3}] + 69 sqrt(alpha) R sqrt(beta) s_delta`
///   (`s_delta^{4/3} = (d k^2)^{2/3}/eps^{4/3}`).
pub fn thm_c_2(
    c: &ProblemConstants,
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    alpha: f64,
) -> f64 {
    let (l, r, beta) = (c.lipschitz, c.radius, c.smoothness);
    let nf = n as f64;
    let rh = rho(n, d, privacy);
    let s = rh * nf;
    let base = 48.5 * smooth_convex_scale(c) * rh.powf(2.0 / 3.0);
    let ratio = (r * beta / l).powf(2.0 / 3.0);
    let cross = alpha.sqrt() * r * beta.sqrt() * s;
    match noise(privacy) {
        None => f64::NAN,
        Some(Noise::Pure) => {
            base + alpha * (3.0 * ratio * s.powf(4.0 / 3.0) * nf.powf(2.0 / 3.0) + 1.0)
                + 12.0 * cross
        }
        Some(Noise::Gaussian(_)) => {
            base + alpha * (1.0 + 8.0 * nf.powf(2.0 / 3.0) * ratio * s.powf(4.0 / 3.0))
                + 69.0 * cross
        }
    }
}

/// Thm C.2 / Cor C.2 with the prescribed `alpha`, **printed**:
/// `65 B rho_0^{2/3}` and `127 B rho_delta^{2/3}`, `B = beta^{1/3} L^{2/3} R^{4/3}`.
pub fn thm_c_2_prescribed(c: &ProblemConstants, n: usize, d: usize, privacy: PrivacyParams) -> f64 {
    pick(privacy, 65.0, 127.0).map_or(f64::NAN, |k| {
        k * smooth_convex_scale(c) * rho(n, d, privacy).powf(2.0 / 3.0)
    })
}
