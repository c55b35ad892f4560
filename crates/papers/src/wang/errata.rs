//! Wang, Zhu & Wang, "Adapting to Linear Separable Subsets with Large-Margin".

use mechanisms::calibration::exact_gaussian_delta;

use crate::errata::erratum::Erratum;
use crate::errata::formulas::{log_inv, smallest_passing};
use crate::errata::number_format::{num, param, sig};
use crate::errata::row::{erratum, noise};
use crate::errata::row::{DELTA, EPS};

/// Wang §8 P4: `T = n^2 mu_p^2` is not an integer; rounding it up while
/// keeping `sigma = n Delta` overspends each JLGD call's GDP budget.
pub(crate) fn integer_t() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, gamma): (f64, f64) = (1000.0, 1.0);
    let lam = log_inv(delta);
    // Γ = {1/n, 2/n, ..., 2^floor(log2 n)/n, 1}: floor(log2 n) + 1 powers plus 1 (n not a power of 2).
    let grid = (n.log2().floor() + 1.0) + 1.0;
    let mu = eps / (2.0 * (2.0 * lam).sqrt());
    let mu_p = mu / (2.0 * grid).sqrt();
    let steps = (n * n * mu_p * mu_p).ceil();
    let sens = 12.0 / gamma;
    let printed = n * sens;
    let corrected = sens * steps.sqrt() / mu_p;
    // |Γ| JLGD calls at sqrt(T) Δ/σ-GDP each plus |Γ| scores at mu_p; GDP composes in quadrature.
    let total_mu = |sigma: f64| {
        let call = sens * steps.sqrt() / sigma;
        (grid * call * call + grid * mu_p * mu_p).sqrt()
    };
    // mu-GDP is the Gaussian mechanism with Δ/σ = mu: exact profile with sigma = 1, Delta = mu.
    let gdp_delta = |m: f64| exact_gaussian_delta(eps, 1.0, m);
    let exact_mu = smallest_passing(1e-3, 10.0, |m| gdp_delta(m) > delta);
    erratum(
        "WZW-P4",
        "Wang–Zhu–Wang",
        "§8 P4",
        "NGD noise σ with rounded T (JLGD call)",
        format!(
            "ε = {}, δ = {}, n = {}, |Γ| = {}, γ = {} (Δ = 12/γ): μ_p = {}, T = ⌈n²μ_p²⌉ = {}",
            param(eps),
            param(delta),
            param(n),
            param(grid),
            param(gamma),
            num(mu_p),
            param(steps)
        ),
        noise("σ", printed, corrected).exact_gdp(
            eps,
            delta,
            [total_mu(printed), total_mu(corrected)],
        ),
        format!(
            "σ = nΔ presumes T = n²μ_p² exactly (= {}); with T rounded up each call is √T Δ/σ = {}-GDP \
             instead of μ_p = {}, and the whole algorithm {}-GDP instead of μ = {}. Corrected σ = Δ√T/μ_p. \
             The (ε, δ) claim survives because Cor E.2's μ = ε/(2√(2 ln(1/δ))) is far below the exact \
             largest μ = {} for (ε, δ) (exact GDP profile, Dong–Roth–Su Cor 2.13).",
            num(n * n * mu_p * mu_p),
            sig(sens * steps.sqrt() / printed, 6),
            sig(mu_p, 6),
            sig(total_mu(printed), 6),
            sig(mu, 6),
            num(exact_mu)
        ),
    )
}
