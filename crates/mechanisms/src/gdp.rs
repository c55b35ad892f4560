//! Gaussian differential privacy (Dong, Roth & Su 2019, "Gaussian
//! Differential Privacy", J. R. Stat. Soc. B 2022).
//!
//! A mechanism is mu-GDP (Def 2.6) if distinguishing `M(X)` from `M(X')` is at
//! least as hard as distinguishing `N(0, 1)` from `N(mu, 1)`, for every pair
//! of neighbours. Facts used here: the Gaussian mechanism with sensitivity
//! `Delta` and noise `N(0, sigma^2 I)` is exactly `Delta/sigma`-GDP (Thm 2.7),
//! mu-GDP is equivalent to (eps, delta(eps))-DP for all `eps >= 0` with
//!
//! `delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)` (Cor 2.13),
//!
//! adaptive composition gives `sqrt(mu_1^2 + ... + mu_k^2)`-GDP (Cor 3.3), and
//! groups of size `k` are `k mu`-GDP (Thm 2.14).
//!
//! The curve `delta(eps)` is **the same curve** as the exact privacy profile of
//! the Gaussian mechanism of Balle & Wang (2018, Thm 8) with `mu = Delta/sigma`:
//! there `a = Delta/(2 sigma) = mu/2` and `b = eps sigma / Delta = eps/mu`. It
//! is therefore evaluated by [`crate::calibration::exact_gaussian_delta`] with
//! `sigma = 1` and `Delta = mu`, which is exactly the GDP arithmetic (no
//! rounding from forming `1/mu`) and inherits its log-space stability.
//!
//! Neighbouring relation: as for every definition here, mu-GDP is stated per
//! relation; `Delta` must be the L2 sensitivity under the relation claimed.
//! [`Gdp`] carries it explicitly.

use crate::calibration::exact_gaussian_delta;
use crate::composition::{
    check_delta_open, check_eps_nonneg, check_eps_pos, common_relation, AccountingError, ApproxDp,
    Result,
};
use crate::numeric::bisect;
use crate::Neighbouring;

fn check_mu(mu: f64) -> Result<()> {
    if mu.is_finite() && mu >= 0.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidMu(mu))
    }
}

/// The (eps, delta) curve of mu-GDP (Dong, Roth & Su 2019, Cor 2.13):
/// `delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`.
///
/// A mu-GDP mechanism is (eps, delta)-DP iff `delta >= gdp_delta(mu, eps)`.
/// Evaluated as `exact_gaussian_delta(eps, 1, mu)` (module docs), so it is
/// stable for huge `eps` and in the far tails. `mu = 0` gives 0; `eps = 0`
/// gives the total-variation distance `2 Phi(mu/2) - 1`.
pub fn gdp_delta(mu: f64, eps: f64) -> Result<f64> {
    check_mu(mu)?;
    check_eps_nonneg(eps)?;
    Ok(exact_gaussian_delta(eps, 1.0, mu))
}

/// The smallest `eps >= 0` for which mu-GDP implies (eps, delta)-DP, i.e. the
/// inverse of [`gdp_delta`] in `eps` (strictly decreasing while positive).
///
/// Returns 0 when `gdp_delta(mu, 0) <= delta`. Otherwise the bracket is grown
/// by doubling from `eps = 1` and halved to adjacent `f64`s; the upper end is
/// returned, so `gdp_delta(mu, result) <= delta` holds as evaluated. Applied to
/// `mu = Delta/sigma` this is the exact `eps` of the Gaussian mechanism at
/// `delta`. `delta` in `(0, 1)`.
pub fn gdp_epsilon(mu: f64, delta: f64) -> Result<f64> {
    check_mu(mu)?;
    check_delta_open(delta)?;
    let curve = |eps: f64| exact_gaussian_delta(eps, 1.0, mu);
    if curve(0.0) <= delta {
        return Ok(0.0);
    }
    let mut hi = 1.0;
    while curve(hi) > delta {
        hi *= 2.0;
    }
    // (last eps that is not private, first eps that is): return the latter.
    Ok(bisect(0.0, hi, |eps| curve(eps) > delta).1)
}

/// The largest `mu` for which mu-GDP implies (eps, delta)-DP: the unique root
/// of `gdp_delta(mu, eps) = delta` (the curve increases strictly in `mu`).
///
/// This is the GDP budget that certifies the target (eps, delta), and
/// `Delta / gdp_mu(eps, delta)` is the analytic Gaussian noise scale
/// ([`crate::calibration::analytic_gaussian_sigma`]). Bisection: bracket grown
/// by doubling from `mu = 1`, halved to adjacent `f64`s, lower end returned
/// (`gdp_delta(result, eps) <= delta` as evaluated). `eps > 0`,
/// `delta` in `(0, 1)`.
pub fn gdp_mu(eps: f64, delta: f64) -> Result<f64> {
    check_eps_pos(eps)?;
    check_delta_open(delta)?;
    let private = |mu: f64| exact_gaussian_delta(eps, 1.0, mu) <= delta;
    let mut hi = 1.0;
    while private(hi) {
        hi *= 2.0;
    }
    Ok(bisect(0.0, hi, private).0)
}

/// `mu = Delta / sigma`: the Gaussian mechanism `N(0, sigma^2 I)` on a function
/// of L2 sensitivity `Delta` is exactly mu-GDP (Dong, Roth & Su 2019, Thm 2.7),
/// for the relation under which `Delta` is the sensitivity. `sigma = inf`
/// gives 0.
pub fn gaussian_mu(sigma: f64, sensitivity: f64) -> Result<f64> {
    if sigma.is_nan() || sigma <= 0.0 {
        return Err(AccountingError::InvalidSigma(sigma));
    }
    if !(sensitivity.is_finite() && sensitivity >= 0.0) {
        return Err(AccountingError::InvalidSensitivity(sensitivity));
    }
    Ok(sensitivity / sigma)
}

/// Adaptive composition of `mu_i`-GDP mechanisms is
/// `sqrt(mu_1^2 + ... + mu_k^2)`-GDP (Dong, Roth & Su 2019, Cor 3.3),
/// for a common relation. Accumulated with `hypot` (no overflow). An empty
/// slice gives 0.
pub fn compose_mu(mus: &[f64]) -> Result<f64> {
    let mut acc = 0.0f64;
    for &m in mus {
        check_mu(m)?;
        acc = acc.hypot(m);
    }
    Ok(acc)
}

/// A mu-GDP guarantee for a stated neighbouring relation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gdp {
    /// The GDP parameter `mu >= 0`.
    pub mu: f64,
    /// The relation it holds for.
    pub relation: Neighbouring,
}

impl Gdp {
    /// Validated constructor (`mu` finite and `>= 0`).
    pub fn new(mu: f64, relation: Neighbouring) -> Result<Self> {
        check_mu(mu)?;
        Ok(Self { mu, relation })
    }

    /// The Gaussian mechanism on a function whose L2 sensitivity under
    /// `relation` is `Delta`: `Delta/sigma`-GDP ([`gaussian_mu`]).
    pub fn gaussian(sigma: f64, sensitivity: f64, relation: Neighbouring) -> Result<Self> {
        Self::new(gaussian_mu(sigma, sensitivity)?, relation)
    }

    /// Composition ([`compose_mu`]); errors when empty or mixing relations.
    pub fn compose(parts: &[Gdp]) -> Result<Self> {
        let relation = common_relation(parts.iter().map(|p| p.relation))?;
        let mus: Vec<f64> = parts.iter().map(|p| p.mu).collect();
        Self::new(compose_mu(&mus)?, relation)
    }

    /// The replace-one guarantee implied by this one: groups of size 2 are
    /// `2 mu`-GDP (Dong, Roth & Su 2019, Thm 2.14) and a replace-one neighbour
    /// is two add/remove steps away. Replace-one is returned unchanged.
    pub fn to_replace_one(self) -> Self {
        match self.relation {
            Neighbouring::ReplaceOne => self,
            Neighbouring::AddRemove => Self {
                mu: 2.0 * self.mu,
                relation: Neighbouring::ReplaceOne,
            },
        }
    }

    /// The (eps, delta)-DP guarantee at `delta` ([`gdp_epsilon`]), same
    /// relation.
    pub fn to_approx_dp(self, delta: f64) -> Result<ApproxDp> {
        ApproxDp::new(gdp_epsilon(self.mu, delta)?, delta, self.relation)
    }
}
