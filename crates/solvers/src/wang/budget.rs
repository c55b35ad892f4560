//! The privacy budget chain of Algorithm 3 (digest §1.3, P2, P15, P16) and
//! the margin grid `Gamma`.
//!
//! Total GDP budget `mu = eps/(2 sqrt(2 Lambda))`, `Lambda = ln(1/delta)`
//! (Corollary E.2, valid for `eps < 8 Lambda`; **paper** conversion), or the
//! largest `mu` whose exact GDP curve (Dong–Roth–Su Cor 2.13) meets
//! `(eps, delta)` (**tight**, (ours), an option only). The spent privacy is
//! reported by both conversions from the realised composed `mu`.

use dpcore::{PrivacyParams, RunFailure};
use mechanisms::gdp::{gdp_epsilon, gdp_mu};
use mechanisms::Neighbouring;

/// How `(eps, delta)` becomes a GDP budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetConversion {
    /// `mu = eps/(2 sqrt(2 ln(1/delta)))` (Lemma E.3 / Corollary E.2).
    Paper,
    /// `mu` from the exact GDP curve (digest §1.3 (ours)).
    Tight,
}

/// `Lambda = ln(1/delta)`.
pub fn log_inv_delta(delta: f64) -> f64 {
    -delta.ln()
}

/// The total GDP budget `mu` for `(eps, delta)`.
///
/// # Errors
/// `InvalidParameters` unless `eps > 0`, `delta in (0, 1)`, and (paper
/// conversion) `eps < 8 ln(1/delta)` (P2).
pub fn total_mu(privacy: PrivacyParams, conversion: BudgetConversion) -> Result<f64, RunFailure> {
    let (eps, delta) = (privacy.eps, privacy.delta);
    if !(eps.is_finite() && eps > 0.0 && delta > 0.0 && delta < 1.0) {
        return Err(RunFailure::InvalidParameters(format!(
            "need eps > 0 and delta in (0, 1), got ({eps}, {delta})"
        )));
    }
    let lambda = log_inv_delta(delta);
    match conversion {
        BudgetConversion::Paper => {
            if eps >= 8.0 * lambda {
                return Err(RunFailure::InvalidParameters(format!(
                    "paper conversion needs eps < 8 ln(1/delta) = {}",
                    8.0 * lambda
                )));
            }
            Ok(eps / (2.0 * (2.0 * lambda).sqrt()))
        }
        BudgetConversion::Tight => {
            gdp_mu(eps, delta).map_err(|e| RunFailure::InvalidParameters(e.to_string()))
        }
    }
}

/// Lemma E.1: `mu`-GDP implies `(mu^2/2 + mu sqrt(2 Lambda), delta)`-DP.
pub fn paper_gdp_epsilon(mu: f64, delta: f64) -> f64 {
    mu * mu / 2.0 + mu * (2.0 * log_inv_delta(delta)).sqrt()
}

/// Privacy actually spent, from the realised composed GDP parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivacySpent {
    /// The neighbouring relation: always replace-one (digest P1; every
    /// sensitivity here is a replacement sensitivity).
    pub relation: Neighbouring,
    /// Composed `mu` under replace-one neighbours.
    pub mu: f64,
    /// The `delta` the epsilons are stated at.
    pub delta: f64,
    /// Exact conversion (Dong–Roth–Su Cor 2.13, `mechanisms::gdp`).
    pub eps: f64,
    /// The paper's Lemma E.1 conversion (larger).
    pub eps_paper: f64,
}

/// [`PrivacySpent`] for a composed `mu` at `delta`.
pub fn privacy_spent(mu: f64, delta: f64) -> Result<PrivacySpent, RunFailure> {
    let eps = gdp_epsilon(mu, delta).map_err(|e| RunFailure::InvalidParameters(e.to_string()))?;
    Ok(PrivacySpent {
        relation: Neighbouring::ReplaceOne,
        mu,
        delta,
        eps,
        eps_paper: paper_gdp_epsilon(mu, delta),
    })
}

/// `grid` with every candidate repeated `copies` times, in place: the
/// candidate set `Theta` of size `copies |grid|` that the grid-size sweep
/// (WZW-C-T7.1-gridsize) tunes over. Each copy is its own configuration (its
/// own JL map and noise), so `|Theta|` enters the privacy split (`M*`'s
/// `mu/sqrt(2|Theta|)`, `M'`'s `r = 1/(|Theta|(n^2 - 1))`) and the JL union
/// bound exactly as a grid of that size would. `copies = 1` is `grid`.
pub fn replicate_grid(grid: Vec<f64>, copies: usize) -> Vec<f64> {
    assert!(copies >= 1, "replicate_grid: copies >= 1");
    if copies == 1 {
        return grid;
    }
    grid.iter()
        .flat_map(|&g| std::iter::repeat_n(g, copies))
        .collect()
}

/// The doubling grid `Gamma = {b/n, 2b/n, 4b/n, ..., 2^floor(log2 n) b/n, b}`
/// (Algorithm 3, Corollary G.2), de-duplicated when `n` is a power of 2
/// (P15): `|Gamma| = ceil(log2 n) + 1`. Increasing order.
pub fn margin_grid(n: usize, b: f64) -> Vec<f64> {
    assert!(n >= 1, "margin_grid: n >= 1");
    let mut grid = Vec::new();
    let mut p = 1usize;
    while p <= n {
        grid.push(b * p as f64 / n as f64);
        if p > n / 2 {
            break;
        }
        p *= 2;
    }
    if !n.is_power_of_two() {
        grid.push(b);
    }
    grid
}
