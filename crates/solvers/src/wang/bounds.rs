//! Theory curves of Wang–Zhu–Wang (digest §3, §3.9): the explicit-constant
//! envelope `B_proof`, the shape curve `B_shape`, the JLGD utility bound
//! (Lemma D.1), Theorem 6.5 in its explicit Lemma H.2 form, Theorem 7.1
//! (PrivTune, Eq. 26), the full-dimension DP-GD bound (Lemma C.1 with
//! `Phi = I`), and the selection terms (Lemma F.1, F.2 with erratum E-c
//! corrected). Hidden `O(.)` constants are set to 1 and named as such.
//! Natural logs throughout except `log2` in `|Gamma|` (P16); all capped at 1
//! where stated (a 0-1 error never exceeds 1).

use super::budget::{log_inv_delta, margin_grid};

/// `mu_p = eps/(4 sqrt(|Gamma| Lambda))`, the per-call GDP of `M*` (Lemma H.2).
pub fn per_call_mu(eps: f64, delta: f64, grid_len: usize) -> f64 {
    eps / (4.0 * (grid_len as f64 * log_inv_delta(delta)).sqrt())
}

/// `ln(|Gamma| (n+1)(n+2)/beta)` (the JL log term; `beta = 1/n^2` gives
/// digest §3.9's `L`).
pub fn jl_log_term(n: f64, grid_len: usize, beta: f64) -> f64 {
    (grid_len as f64).ln() + (n + 1.0).ln() + (n + 2.0).ln() - beta.ln()
}

/// Lemma D.1, explicit form: `48 b^2 sqrt(C_JL L)/(gamma^2 n mu) + 23 b m/(5 gamma n)`,
/// an upper bound on the expected average hinge `l_{gamma/3}` (hence 0-1
/// error) of averaged JLGD at GDP `mu`, `L` = [`jl_log_term`].
#[allow(clippy::too_many_arguments)]
pub fn jlgd_bound(
    n: f64,
    gamma: f64,
    outliers: f64,
    mu: f64,
    c_jl: f64,
    grid_len: usize,
    beta: f64,
    b: f64,
) -> f64 {
    let l = jl_log_term(n, grid_len, beta);
    48.0 * b * b * (c_jl * l).sqrt() / (gamma * gamma * n * mu)
        + 23.0 * b * outliers / (5.0 * gamma * n)
}

/// `B_proof` (digest §3.9): for a planted instance with margin `gamma*`
/// after removing `m` outliers, the minimum over grid points
/// `gamma~ <= gamma*` of Lemma D.1 at `mu_p`, plus the selection term
/// `2 sqrt(2 ln|Gamma|)/(n mu_p)` and `1/n^2`, capped at 1. `b = 1`,
/// `beta = 1/n^2`.
pub fn b_proof(n: usize, gamma_star: f64, outliers: usize, eps: f64, delta: f64, c_jl: f64) -> f64 {
    let (grid, len) = certified_grid(n, gamma_star);
    let nf = n as f64;
    let mu_p = per_call_mu(eps, delta, len);
    let beta = 1.0 / (nf * nf);
    let best = grid
        .iter()
        .map(|&g| jlgd_bound(nf, g, outliers as f64, mu_p, c_jl, len, beta, 1.0))
        .fold(f64::INFINITY, f64::min);
    let selection = 2.0 * (2.0 * (len as f64).ln()).sqrt() / (nf * mu_p);
    (best + selection + 1.0 / (nf * nf)).min(1.0)
}

/// `B_shape = A l(n)/(gamma^2 n e) + B m/(gamma n)` (digest §3.9) with
/// `e = eps` for the empirical risk (Theorem 6.5) and `e = min(eps, 1)` for
/// the population risk (Theorem 6.7), and `l(n) = sqrt(|Gamma| L Lambda)`
/// (`with_log`) or 1. Not capped (a shape, for slopes).
#[allow(clippy::too_many_arguments)]
pub fn b_shape(
    n: usize,
    gamma: f64,
    eps: f64,
    delta: f64,
    outliers: usize,
    a: f64,
    b: f64,
    population: bool,
    with_log: bool,
) -> f64 {
    let nf = n as f64;
    let e = if population { eps.min(1.0) } else { eps };
    let ell = if with_log {
        let len = margin_grid(n, 1.0).len();
        (len as f64 * jl_log_term(nf, len, 1.0 / (nf * nf)) * log_inv_delta(delta)).sqrt()
    } else {
        1.0
    };
    a * ell / (gamma * gamma * nf * e) + b * outliers as f64 / (gamma * nf)
}

/// Full-dimension DP-GD (B1), Lemma C.1 with `Phi = I`, hinge `gamma/3`:
/// `4 Delta sqrt(d)/(n mu) + (1 + 3b/gamma) m/n` on the average hinge, with
/// `Delta` the run's sensitivity (`6b/gamma` exact, `12b/gamma` conservative).
pub fn full_dimension_bound(
    n: f64,
    d: f64,
    gamma: f64,
    outliers: f64,
    mu: f64,
    sensitivity: f64,
    b: f64,
) -> f64 {
    4.0 * sensitivity * d.sqrt() / (n * mu) + (1.0 + 3.0 * b / gamma) * outliers / n
}

/// Lemma F.1: `E[U_out] - min U <= 2 sigma sqrt(2 ln |Theta|)` for Gaussian
/// report-noisy-min with score-noise std `sigma`.
pub fn selection_expected_excess(score_sigma: f64, count: usize) -> f64 {
    2.0 * score_sigma * (2.0 * (count as f64).ln()).sqrt()
}

/// Lemma F.2 with erratum E-c corrected: with probability `>= 1 - beta`,
/// `U_out - min U <= 2 sigma sqrt(2 ln(2|Theta|)) + 2 sigma sqrt(2 ln(2/beta))`.
pub fn selection_high_probability_excess(score_sigma: f64, count: usize, beta: f64) -> f64 {
    2.0 * score_sigma
        * ((2.0 * (2.0 * count as f64).ln()).sqrt() + (2.0 * (2.0 / beta).ln()).sqrt())
}

/// Grid points `gamma~ <= gamma*` (certified for a planted instance:
/// `|S_out(gamma~)| <= m`, digest §3.9).
fn certified_grid(n: usize, gamma_star: f64) -> (Vec<f64>, usize) {
    let grid = margin_grid(n, 1.0);
    let len = grid.len();
    (grid.into_iter().filter(|&g| g <= gamma_star).collect(), len)
}

/// Theorem 6.5(1) in the explicit pre-`O~` form of Lemma H.2 / Eqs. 16–17
/// (digest §3.6, `b = 1`), with the hidden `O` constant set to 1 and the
/// minimum over grid points `gamma~ <= gamma*` of a planted instance:
/// `8 log2^{1/2}(n) ln^{1/2}(4 n^2 (n+2)(n+1) log2 n) Lambda^{1/2}/(n gamma~^2 eps)
/// + m/(gamma~ n) + 16 sqrt2 log2^{1/2}(n) Lambda^{1/2} ln^{1/2}(4 log2 n)/(n eps) + 1/n^2`,
/// capped at 1 (`n >= 2`).
pub fn theorem_6_5_explicit(
    n: usize,
    gamma_star: f64,
    outliers: usize,
    eps: f64,
    delta: f64,
) -> f64 {
    let nf = n as f64;
    let (lg, lam) = (nf.log2(), log_inv_delta(delta));
    let jl = (4.0 * nf * nf * (nf + 2.0) * (nf + 1.0) * lg).ln();
    let (grid, _) = certified_grid(n, gamma_star);
    let best = grid
        .iter()
        .map(|&g| 8.0 * (lg * jl * lam).sqrt() / (nf * g * g * eps) + outliers as f64 / (g * nf))
        .fold(f64::INFINITY, f64::min);
    let selection = 16.0 * 2f64.sqrt() * (lg * lam * (4.0 * lg).ln()).sqrt() / (nf * eps);
    (best + selection + 1.0 / (nf * nf)).min(1.0)
}

/// Theorem 7.1 / K.6 (Eq. 26) for `M'` (PrivTune), `O` constant 1,
/// `beta = 1/n^2`, minimum over grid points `gamma~ <= gamma*`:
/// `ln^{1/2}(|Gamma|(n+2)(n+1)/beta) ln^{1/2}(|Gamma|(n^2-1)/delta)/(gamma~^2 eps n)
/// + m/(n gamma~) + 12 ln(n^2 |Gamma|/delta)/(n eps)`, capped at 1 (`n >= 2`).
pub fn privtune_bound(n: usize, gamma_star: f64, outliers: usize, eps: f64, delta: f64) -> f64 {
    let nf = n as f64;
    let (grid, len) = certified_grid(n, gamma_star);
    let lf = len as f64;
    let jl = jl_log_term(nf, len, 1.0 / (nf * nf));
    let tune = (lf * (nf * nf - 1.0) / delta).ln();
    let best = grid
        .iter()
        .map(|&g| (jl * tune).sqrt() / (g * g * eps * nf) + outliers as f64 / (nf * g))
        .fold(f64::INFINITY, f64::min);
    (best + 12.0 * (nf * nf * lf / delta).ln() / (nf * eps)).min(1.0)
}
