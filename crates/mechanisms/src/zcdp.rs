//! Zero-concentrated differential privacy (Bun & Steinke 2016, "Concentrated
//! Differential Privacy: Simplifications, Extensions, and Lower Bounds").
//!
//! A mechanism `M` is rho-zCDP (Def 1.1) if `D_alpha(M(X) || M(X')) <= rho alpha`
//! for every Rényi order `alpha > 1` and every pair of neighbours `X ~ X'`.
//! Facts used here: the Gaussian mechanism costs `Delta^2 / (2 sigma^2)`
//! (Prop 1.6), costs add under adaptive composition (Lemma 1.7), pure eps-DP
//! implies `eps^2/2`-zCDP (Prop 1.4), and rho-zCDP implies (eps, delta)-DP by
//! the classic bound `rho + 2 sqrt(rho ln(1/delta))` (Prop 1.3) or by the
//! tighter bound of Canonne, Kamath & Steinke (2020, "The Discrete Gaussian
//! for Differential Privacy", Prop 12 / Cor 13).
//!
//! Neighbouring relation (Menart et al. digest §1.6): the definition is stated
//! per relation. A Gaussian cost computed from a sensitivity `Delta` holds for
//! the relation under which `Delta` is the L2 sensitivity; e.g. the mean of
//! `L0`-bounded gradients has `Delta = 2 L0 / n` under replace-one and `L0 / n`
//! under add/remove, so the same noise costs 4 times more under replace-one.
//! [`Zcdp`] carries the relation explicitly.

use crate::composition::{
    check_delta_open, check_eps_nonneg, check_eps_pos, common_relation, AccountingError, ApproxDp,
    Result,
};
use crate::numeric::{bisect, geometric_root};
use crate::Neighbouring;

/// Relative width at which the geometric bisections for the optimal Rényi order
/// stop. The objective is flat at its minimiser, so this is far more than
/// enough for the value.
const ORDER_RELATIVE_TOLERANCE: f64 = 1e-15;

fn check_rho(rho: f64) -> Result<()> {
    if rho.is_finite() && rho >= 0.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidRho {
            rho,
            requirement: ">= 0",
        })
    }
}

fn check_rho_pos(rho: f64) -> Result<()> {
    if rho.is_finite() && rho > 0.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidRho {
            rho,
            requirement: "> 0",
        })
    }
}

fn check_sensitivity(sensitivity: f64) -> Result<()> {
    if sensitivity.is_finite() && sensitivity >= 0.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidSensitivity(sensitivity))
    }
}

fn check_order(alpha: f64) -> Result<()> {
    if alpha.is_finite() && alpha > 1.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidOrder(alpha))
    }
}

/// zCDP cost `rho = Delta^2 / (2 sigma^2)` of adding `N(0, sigma^2 I)` to a
/// function of L2-sensitivity `Delta` (Bun & Steinke 2016, Prop 1.6).
///
/// Holds for the relation under which `Delta` is the sensitivity (module docs).
/// `sigma = inf` gives 0. Errors: `sigma <= 0` or NaN, invalid `Delta`.
pub fn gaussian_rho(sigma: f64, sensitivity: f64) -> Result<f64> {
    if sigma.is_nan() || sigma <= 0.0 {
        return Err(AccountingError::InvalidSigma(sigma));
    }
    check_sensitivity(sensitivity)?;
    let ratio = sensitivity / sigma;
    Ok(0.5 * ratio * ratio)
}

/// Gaussian noise scale `sigma = Delta / sqrt(2 rho)` whose cost
/// ([`gaussian_rho`]) is exactly `rho` (Bun & Steinke 2016, Prop 1.6 solved for
/// `sigma`); `rho > 0`. Same relation as `Delta`.
pub fn gaussian_sigma_for_rho(rho: f64, sensitivity: f64) -> Result<f64> {
    check_rho_pos(rho)?;
    check_sensitivity(sensitivity)?;
    Ok(sensitivity / (2.0 * rho).sqrt())
}

/// Pure eps-DP implies `eps^2 / 2`-zCDP (Bun & Steinke 2016, Prop 1.4; Menart
/// et al. Lemma 14), for the same neighbouring relation. `eps >= 0`.
pub fn pure_dp_rho(eps: f64) -> Result<f64> {
    check_eps_nonneg(eps)?;
    Ok(0.5 * eps * eps)
}

/// Adaptive composition: the sum of the `rho_i` (Bun & Steinke 2016,
/// Lemma 1.7). All costs must refer to the same relation ([`Zcdp::compose`]
/// checks that). An empty slice gives 0.
pub fn compose_rho(rhos: &[f64]) -> Result<f64> {
    for &r in rhos {
        check_rho(r)?;
    }
    Ok(rhos.iter().sum())
}

/// Which zCDP to (eps, delta)-DP conversion to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZcdpConversion {
    /// `eps = rho + 2 sqrt(rho ln(1/delta))` (Bun & Steinke 2016, Prop 1.3):
    /// [`classic_eps`].
    Classic,
    /// The Canonne–Kamath–Steinke (2020) bound, Cor 13: [`cks_eps`]; never
    /// larger than `Classic`.
    Cks,
}

/// The classic conversion (Bun & Steinke 2016, Prop 1.3): rho-zCDP implies
/// `(rho + 2 sqrt(rho ln(1/delta)), delta)`-DP for every `delta` in `(0, 1)`,
/// for the same relation.
pub fn classic_eps(rho: f64, delta: f64) -> Result<f64> {
    check_rho(rho)?;
    check_delta_open(delta)?;
    Ok(rho + 2.0 * (rho * (1.0 / delta).ln()).sqrt())
}

/// `ln(u / (1 + u))` for `u > 0` without cancellation for large `u`.
fn ln_u_over_1pu(u: f64) -> f64 {
    if u > 1.0 {
        -(1.0 / u).ln_1p()
    } else {
        u.ln() - u.ln_1p()
    }
}

/// The CKS `eps` at order `alpha = 1 + u` with `L = ln(1/delta)`:
/// `(1 + u) rho + (L + u ln(u/(1+u)) - ln(1+u)) / u`.
fn cks_eps_u(rho: f64, log_inv_delta: f64, u: f64) -> f64 {
    (1.0 + u) * rho + log_inv_delta / u + ln_u_over_1pu(u) - u.ln_1p() / u
}

/// `ln delta` of the CKS bound at order `alpha = 1 + u`:
/// `u ((1 + u) rho - eps) - ln u + (1 + u) ln(u / (1 + u))`.
fn cks_log_delta_u(rho: f64, eps: f64, u: f64) -> f64 {
    u * ((1.0 + u) * rho - eps) - u.ln() + (1.0 + u) * ln_u_over_1pu(u)
}

/// The Canonne–Kamath–Steinke bound at a fixed order `alpha > 1`
/// (CKS 2020, Prop 12 applied to the Rényi bound `D_alpha <= alpha rho` of
/// rho-zCDP): rho-zCDP implies (eps, delta)-DP with
///
/// `eps = alpha rho + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln alpha) / (alpha - 1)`,
///
/// the `eps`-form of `delta = exp((alpha-1)(alpha rho - eps)) / (alpha-1) * (1 - 1/alpha)^alpha`
/// ([`cks_delta_at_order`]). Every `alpha > 1` gives a valid guarantee; the
/// best is [`cks_eps`]. May be negative for large `delta` (then `(0, delta)`
/// holds; [`cks_eps`] clamps at 0). Same relation as the zCDP guarantee.
pub fn cks_eps_at_order(rho: f64, delta: f64, alpha: f64) -> Result<f64> {
    check_rho(rho)?;
    check_delta_open(delta)?;
    check_order(alpha)?;
    Ok(cks_eps_u(rho, (1.0 / delta).ln(), alpha - 1.0))
}

/// The `delta`-form of the CKS bound at order `alpha > 1` (CKS 2020, Prop 12
/// with `D_alpha <= alpha rho`):
///
/// `delta = exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) * (1 - 1/alpha)^alpha`,
///
/// evaluated in log space and capped at 1. Same relation as the guarantee.
pub fn cks_delta_at_order(rho: f64, eps: f64, alpha: f64) -> Result<f64> {
    check_rho(rho)?;
    check_eps_nonneg(eps)?;
    check_order(alpha)?;
    Ok(cks_log_delta_u(rho, eps, alpha - 1.0).exp().min(1.0))
}

/// The order `alpha* = 1 + u*` minimising [`cks_eps_at_order`] for `rho > 0`.
///
/// With `u = alpha - 1` and `L = ln(1/delta)` the objective is
/// `g(u) = (1 + u) rho + L/u + ln(u/(1+u)) - ln(1+u)/u`, whose derivative is
/// `g'(u) = (rho u^2 + ln(1 + u) - L) / u^2`. The numerator is strictly
/// increasing in `u`, negative at `0+` and unbounded, so `g` is unimodal and
/// `u*` is the unique root of `rho u^2 + ln(1 + u) = L`. The root is bracketed
/// in closed form: `ln(1+u) <= u` gives the lower end `2L / (1 + sqrt(1 + 4 rho L))`
/// (root of `rho u^2 + u = L`), and the upper end is
/// `min(sqrt(L/rho), e^L - 1)` (either term alone reaches `L`); geometric
/// bisection then converges for every `rho > 0`, `delta` in `(0, 1)` without
/// any starting guess. (The classic bound's optimum `u = sqrt(L/rho)` is the
/// upper end.)
pub fn cks_optimal_order(rho: f64, delta: f64) -> Result<f64> {
    check_rho_pos(rho)?;
    check_delta_open(delta)?;
    let l = (1.0 / delta).ln();
    let lo = 2.0 * l / (1.0 + (1.0 + 4.0 * rho * l).sqrt());
    let hi = (l / rho).sqrt().min(l.exp_m1()).max(lo);
    let numerator = |u: f64| rho * u * u + u.ln_1p() - l;
    let u = geometric_root(lo, hi, ORDER_RELATIVE_TOLERANCE, numerator);
    Ok(1.0 + u)
}

/// The Canonne–Kamath–Steinke (2020) conversion, Cor 13: rho-zCDP implies
/// (eps, delta)-DP with `eps = min over alpha > 1` of [`cks_eps_at_order`].
///
/// The minimum is found robustly by [`cks_optimal_order`] (unimodal objective,
/// closed-form bracket, bisection on the sign of the derivative). The value
/// returned is the objective at an explicit order (the better of `alpha*` and
/// the classic optimum `1 + sqrt(L/rho)`), so it is a valid guarantee whatever
/// the quality of the minimisation, and it never exceeds [`classic_eps`]: at
/// every order the CKS objective is the classic one
/// `alpha rho + L/(alpha-1)` plus `ln(1 - 1/alpha) - ln(alpha)/(alpha-1) < 0`.
/// Clamped at 0; `rho = 0` gives 0. Same relation as the zCDP guarantee.
pub fn cks_eps(rho: f64, delta: f64) -> Result<f64> {
    check_rho(rho)?;
    check_delta_open(delta)?;
    if rho == 0.0 {
        return Ok(0.0);
    }
    let l = (1.0 / delta).ln();
    let u_star = cks_optimal_order(rho, delta)? - 1.0;
    let u_classic = (l / rho).sqrt();
    let eps = cks_eps_u(rho, l, u_star).min(cks_eps_u(rho, l, u_classic));
    Ok(eps.max(0.0))
}

/// The smallest `delta` the CKS bound (CKS 2020, Prop 12 / Cor 13) certifies
/// for rho-zCDP at a given `eps >= 0`: the minimum over `alpha > 1` of
/// [`cks_delta_at_order`], i.e. the privacy profile implied by rho-zCDP.
///
/// With `u = alpha - 1`, `d/du ln delta = (1 + 2u) rho - eps + ln(u/(1+u))`,
/// strictly increasing from `-inf` to `+inf` (for `rho > 0`): unimodal again,
/// minimised by bracketing the sign change (doubling / halving from `u = 1`)
/// and bisection. `rho = 0` gives 0. Capped at 1. Same relation.
pub fn cks_delta(rho: f64, eps: f64) -> Result<f64> {
    check_rho(rho)?;
    check_eps_nonneg(eps)?;
    if rho == 0.0 {
        return Ok(0.0);
    }
    let slope = |u: f64| (1.0 + 2.0 * u) * rho - eps + ln_u_over_1pu(u);
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    while slope(hi) < 0.0 && hi < f64::MAX / 4.0 {
        hi *= 2.0;
    }
    while slope(lo) > 0.0 && lo > f64::MIN_POSITIVE * 4.0 {
        lo *= 0.5;
    }
    let u = geometric_root(lo, hi, ORDER_RELATIVE_TOLERANCE, slope);
    Ok(cks_log_delta_u(rho, eps, u).exp().min(1.0))
}

/// rho-zCDP to (eps, delta)-DP with the chosen conversion ([`classic_eps`] or
/// [`cks_eps`]); same relation.
pub fn rho_to_eps(rho: f64, delta: f64, conversion: ZcdpConversion) -> Result<f64> {
    match conversion {
        ZcdpConversion::Classic => classic_eps(rho, delta),
        ZcdpConversion::Cks => cks_eps(rho, delta),
    }
}

/// The exact inverse of [`classic_eps`]: the largest `rho` with
/// `rho + 2 sqrt(rho ln(1/delta)) <= eps`, i.e.
/// `rho = (sqrt(L + eps) - sqrt(L))^2` with `L = ln(1/delta)` (Menart et al.
/// digest §1.6), evaluated without cancellation as
/// `eps^2 / (sqrt(L + eps) + sqrt(L))^2`.
pub fn classic_rho_for_eps(eps: f64, delta: f64) -> Result<f64> {
    check_eps_pos(eps)?;
    check_delta_open(delta)?;
    let l = (1.0 / delta).ln();
    let s = (l + eps).sqrt() + l.sqrt();
    Ok(eps * eps / (s * s))
}

/// The largest zCDP budget `rho` whose conversion ([`rho_to_eps`]) at `delta`
/// is at most `eps`: the budget to give a zCDP algorithm so that it is
/// (eps, delta)-DP. Same relation as the target.
///
/// Both conversions are increasing in `rho`. Bisection on `rho`: the classic
/// closed form [`classic_rho_for_eps`] is a lower end (CKS never exceeds
/// classic), the upper end is found by doubling, and the bracket is halved to
/// adjacent `f64`s; the end whose conversion does not exceed `eps` is returned.
/// For [`ZcdpConversion::Classic`] this reproduces the closed form.
pub fn rho_for_eps(eps: f64, delta: f64, conversion: ZcdpConversion) -> Result<f64> {
    let lo = classic_rho_for_eps(eps, delta)?;
    let fits = |rho: f64| rho_to_eps(rho, delta, conversion).is_ok_and(|e| e <= eps);
    if !fits(lo) {
        // Rounding in the closed form; step down to a certified value.
        let mut r = lo;
        while r > 0.0 && !fits(r) {
            r *= 1.0 - 1e-12;
        }
        return Ok(r);
    }
    let mut hi = 2.0 * lo;
    while fits(hi) {
        hi *= 2.0;
        if !hi.is_finite() {
            return Err(AccountingError::InvalidEpsilon {
                eps,
                requirement: "small enough for a finite rho",
            });
        }
    }
    Ok(bisect(lo, hi, fits).0)
}

/// A rho-zCDP guarantee for a stated neighbouring relation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zcdp {
    /// The zCDP parameter `rho >= 0`.
    pub rho: f64,
    /// The relation it holds for.
    pub relation: Neighbouring,
}

impl Zcdp {
    /// Validated constructor (`rho` finite and `>= 0`).
    pub fn new(rho: f64, relation: Neighbouring) -> Result<Self> {
        check_rho(rho)?;
        Ok(Self { rho, relation })
    }

    /// The Gaussian mechanism `N(0, sigma^2 I)` on a function whose L2
    /// sensitivity under `relation` is `Delta`: `Delta^2/(2 sigma^2)`-zCDP
    /// ([`gaussian_rho`]).
    pub fn gaussian(sigma: f64, sensitivity: f64, relation: Neighbouring) -> Result<Self> {
        Self::new(gaussian_rho(sigma, sensitivity)?, relation)
    }

    /// An eps-DP mechanism (for `relation`) is `eps^2/2`-zCDP for the same
    /// relation ([`pure_dp_rho`]).
    pub fn from_pure_dp(eps: f64, relation: Neighbouring) -> Result<Self> {
        Self::new(pure_dp_rho(eps)?, relation)
    }

    /// Adaptive composition (sum of `rho`, [`compose_rho`]). Errors when
    /// `parts` is empty or mixes relations.
    pub fn compose(parts: &[Zcdp]) -> Result<Self> {
        let relation = common_relation(parts.iter().map(|p| p.relation))?;
        let rhos: Vec<f64> = parts.iter().map(|p| p.rho).collect();
        Self::new(compose_rho(&rhos)?, relation)
    }

    /// The replace-one guarantee implied by this one: group privacy for groups
    /// of size `k` multiplies `rho` by `k^2` (Bun & Steinke 2016, Prop 1.9),
    /// and a replace-one neighbour is two add/remove steps away, so an
    /// add/remove `rho` becomes `4 rho`. (For the Gaussian mechanism this is
    /// exactly the sensitivity doubling of the module docs.) Replace-one is
    /// returned unchanged; the converse does not hold in general.
    pub fn to_replace_one(self) -> Self {
        match self.relation {
            Neighbouring::ReplaceOne => self,
            Neighbouring::AddRemove => Self {
                rho: 4.0 * self.rho,
                relation: Neighbouring::ReplaceOne,
            },
        }
    }

    /// The (eps, delta)-DP guarantee implied at `delta` by the chosen
    /// conversion, for the same relation.
    pub fn to_approx_dp(self, delta: f64, conversion: ZcdpConversion) -> Result<ApproxDp> {
        ApproxDp::new(
            rho_to_eps(self.rho, delta, conversion)?,
            delta,
            self.relation,
        )
    }
}
