//! Lowy & Razaviyayn, "Output Perturbation for DP Convex Optimization".

use mechanisms::calibration::{lowy_c_delta, zwb_gaussian_sigma};

use crate::errata::erratum::Erratum;
use crate::errata::number_format::{num, param};
use crate::errata::row::{erratum, noise};
use crate::errata::row::{DELTA, EPS};

const LOWY: &str = "Lowy–Razaviyayn";

/// Lowy–Razaviyayn §9 P2: Algorithm 7's delta > 0 density has `2 eps^2` in the
/// exponent, i.e. `sigma = (c + sqrt(c^2 + eps)) Delta / (2 eps)`, a factor
/// sqrt 2 below Eq. (5).
pub(crate) fn alg7() -> Erratum {
    let (eps, delta, sens) = (EPS, DELTA, 1.0);
    let c = lowy_c_delta(delta).expect("delta in (0, 1/2)");
    // Printed density exp(-2 eps^2 |z|^2 / (Delta^2 (c + sqrt(c^2+eps))^2)) = exp(-|z|^2/(2 sigma^2)).
    let printed = (c + (c * c + eps).sqrt()) * sens / (2.0 * eps);
    let corrected = zwb_gaussian_sigma(eps, delta, sens).expect("valid parameters");
    erratum(
        "LR-P2",
        LOWY,
        "§9 P2",
        "Alg. 7 Gaussian noise σ (δ > 0)",
        format!("ε = {}, δ = {}, Δ_T = {}", param(eps), param(delta), param(sens)),
        noise("σ/Δ_T", printed / sens, corrected / sens).exact_gaussian(
            eps,
            delta,
            (printed, sens),
            (corrected, sens),
        ),
        format!(
            "printed density ∝ exp(−2ε²‖z‖²/(Δ_T²(c_δ+√(c_δ²+ε))²)), i.e. σ = (c_δ+√(c_δ²+ε))Δ_T/(2ε); \
             corrected σ = (c_δ+√(c_δ²+ε))Δ_T/(√2ε) (Eq. 5, ZWB+19 Thm 5) with c_δ = {}. \
             Realised δ from the exact Gaussian profile (Balle–Wang 2018, Thm 8); \
             the digest quotes 7.4e-5.",
            num(c)
        ),
    )
}

/// Lowy–Razaviyayn §9 P3: Algorithm 6 (delta > 0) inflates the sensitivity by
/// `2 alpha / mu` where the proof needs `2 sqrt(2 alpha / mu)`.
pub(crate) fn alg6() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, d, lip, mu, kappa): (f64, f64, f64, f64, f64) = (1000.0, 10.0, 1.0, 1.0, 1.0);
    let c = lowy_c_delta(delta).expect("delta in (0, 1/2)");
    // Thm 5.3 prescription alpha = L^2/(mu n^2) min{kappa s^2, 1}, s = s_delta (digest §3.8).
    let s = d.sqrt() * (c + (c * c + eps).sqrt()) / eps;
    let alpha = lip * lip / (mu * n * n) * (kappa * s * s).min(1.0);
    let sens = 2.0 * lip / (mu * n);
    let printed_sens = sens + 2.0 * alpha / mu;
    let true_sens = sens + 2.0 * (2.0 * alpha / mu).sqrt();
    let printed = zwb_gaussian_sigma(eps, delta, printed_sens).expect("valid parameters");
    let corrected = zwb_gaussian_sigma(eps, delta, true_sens).expect("valid parameters");
    erratum(
        "LR-P3",
        LOWY,
        "§9 P3",
        "Alg. 6 sensitivity inflation for σ (δ > 0)",
        format!(
            "ε = {}, δ = {}, n = {}, d = {}, L = μ = β = 1, Δ = 2L/(μn), α = {} (Thm 5.3)",
            param(eps),
            param(delta),
            param(n),
            param(d),
            num(alpha)
        ),
        noise("σ", printed, corrected).exact_gaussian(
            eps,
            delta,
            (printed, true_sens),
            (corrected, true_sens),
        ),
        format!(
            "printed Δ_T = Δ + 2α/μ = {}; the sensitivity of the α-saddle point is Δ + 2√(2α/μ) = {} \
             (strong convexity, ‖w_T − w*‖ ≤ √(2α/μ)). Both σ use the ZWB+19 constant. \
             Realised δ: exact Gaussian profile at the true sensitivity.",
            num(printed_sens),
            num(true_sens)
        ),
    )
}
