//! Composition of (eps, delta)-DP mechanisms: basic composition, the advanced
//! composition theorem of Dwork, Rothblum & Vadhan (2010), the simplified form
//! used by the saddle-point paper (González, Guzmán & Paquette, Thm A.1), and
//! the inverses that calibrate the per-step budget of a `k`-step algorithm.
//!
//! Also home of [`AccountingError`], the error type shared by every accountant
//! of this crate ([`crate::zcdp`], [`crate::gdp`] and this module).
//!
//! Neighbouring relation: composition theorems hold for whatever relation the
//! composed guarantees are stated for, provided **all** of them are stated for
//! the same one. The typed entry points ([`ApproxDp`], [`basic_composition`],
//! [`advanced_composition`]) carry a [`Neighbouring`] and refuse to mix
//! relations; the `f64` entry points leave that bookkeeping to the caller.

use crate::numeric::bisect;
use crate::Neighbouring;

/// Why an accountant could not produce a guarantee.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum AccountingError {
    /// `eps` outside its admissible range (finite and `>= 0`; `> 0` for a
    /// target budget).
    #[error("eps must be finite and {requirement}, got {eps}")]
    InvalidEpsilon {
        /// The offending `eps`.
        eps: f64,
        /// The range required, e.g. `"> 0"`.
        requirement: &'static str,
    },
    /// `delta` outside its admissible range.
    #[error("delta must lie in {requirement}, got {delta}")]
    InvalidDelta {
        /// The offending `delta`.
        delta: f64,
        /// The range required, e.g. `"(0, 1)"`.
        requirement: &'static str,
    },
    /// A zCDP parameter `rho` that is negative, NaN or infinite (or zero where
    /// a positive budget is required).
    #[error("rho must be finite and {requirement}, got {rho}")]
    InvalidRho {
        /// The offending `rho`.
        rho: f64,
        /// The range required.
        requirement: &'static str,
    },
    /// A GDP parameter `mu` that is negative, NaN or infinite.
    #[error("mu must be finite and >= 0, got {0}")]
    InvalidMu(f64),
    /// A Gaussian noise scale that is not `> 0` (infinity is allowed).
    #[error("sigma must be > 0 (or +inf), got {0}")]
    InvalidSigma(f64),
    /// A sensitivity that is negative, NaN or infinite.
    #[error("sensitivity must be finite and >= 0, got {0}")]
    InvalidSensitivity(f64),
    /// A Rényi order `alpha` that is not in `(1, inf)`.
    #[error("Renyi order alpha must be finite and > 1, got {0}")]
    InvalidOrder(f64),
    /// A composition of zero steps where at least one is required.
    #[error("the number of composed mechanisms must be >= 1")]
    NoSteps,
    /// Guarantees stated for different neighbouring relations cannot be
    /// composed (convert one first, e.g. with `to_replace_one`).
    #[error("cannot compose a {0} guarantee with a {1} guarantee")]
    MixedRelations(Neighbouring, Neighbouring),
    /// A quantity exceeds the largest value for which the invoked theorem is
    /// proven (e.g. Thm A.1 of the saddle-point paper needs total `eps < 1`).
    #[error("{what} = {value} is outside the range where the theorem is proven ({requirement})")]
    OutOfRange {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: f64,
        /// The condition it violates.
        requirement: &'static str,
    },
}

/// Convenience alias for accountant results.
pub type Result<T> = std::result::Result<T, AccountingError>;

pub(crate) fn check_eps_nonneg(eps: f64) -> Result<()> {
    if eps.is_finite() && eps >= 0.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidEpsilon {
            eps,
            requirement: ">= 0",
        })
    }
}

pub(crate) fn check_eps_pos(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidEpsilon {
            eps,
            requirement: "> 0",
        })
    }
}

/// `delta` in the open interval `(0, 1)`.
pub(crate) fn check_delta_open(delta: f64) -> Result<()> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(AccountingError::InvalidDelta {
            delta,
            requirement: "(0, 1)",
        })
    }
}

/// `delta` in the closed interval `[0, 1]`.
fn check_delta_closed(delta: f64) -> Result<()> {
    if (0.0..=1.0).contains(&delta) {
        Ok(())
    } else {
        Err(AccountingError::InvalidDelta {
            delta,
            requirement: "[0, 1]",
        })
    }
}

fn check_steps(k: usize) -> Result<()> {
    if k >= 1 {
        Ok(())
    } else {
        Err(AccountingError::NoSteps)
    }
}

/// The common relation of `relations`, or [`AccountingError::NoSteps`] /
/// [`AccountingError::MixedRelations`].
pub(crate) fn common_relation(
    mut relations: impl Iterator<Item = Neighbouring>,
) -> Result<Neighbouring> {
    let first = relations.next().ok_or(AccountingError::NoSteps)?;
    for r in relations {
        if r != first {
            return Err(AccountingError::MixedRelations(first, r));
        }
    }
    Ok(first)
}

/// An (eps, delta)-DP guarantee (Dwork & Roth 2014, Def 2.4):
/// `P[M(X) in S] <= e^eps P[M(X') in S] + delta` for every event `S` and every
/// pair `X ~ X'` of neighbours under `relation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApproxDp {
    /// Privacy-loss bound `eps >= 0`.
    pub eps: f64,
    /// Failure probability `delta` in `[0, 1]`; 0 means pure DP.
    pub delta: f64,
    /// The neighbouring relation the guarantee holds for.
    pub relation: Neighbouring,
}

impl ApproxDp {
    /// Validated constructor: finite `eps >= 0`, `delta` in `[0, 1]`.
    pub fn new(eps: f64, delta: f64, relation: Neighbouring) -> Result<Self> {
        check_eps_nonneg(eps)?;
        check_delta_closed(delta)?;
        Ok(Self {
            eps,
            delta,
            relation,
        })
    }

    /// The guarantee for replace-one neighbours implied by this one.
    ///
    /// A replace-one neighbour is reached by two add/remove steps (remove the
    /// record, then add its replacement), so group privacy for groups of size 2
    /// (Dwork & Roth 2014, Thm 2.2 and its (eps, delta) form) turns an
    /// add/remove `(eps, delta)` into replace-one
    /// `(2 eps, (1 + e^eps) delta)`, from
    /// `P <= e^eps (e^eps P'' + delta) + delta`. `delta` is capped at 1.
    /// A replace-one guarantee is returned unchanged. (The converse direction
    /// does not hold in general: replace-one neighbours have equal sizes.)
    pub fn to_replace_one(self) -> Self {
        match self.relation {
            Neighbouring::ReplaceOne => self,
            Neighbouring::AddRemove => Self {
                eps: 2.0 * self.eps,
                delta: ((1.0 + self.eps.exp()) * self.delta).min(1.0),
                relation: Neighbouring::ReplaceOne,
            },
        }
    }
}

/// Basic (sequential) composition (Dwork & Roth 2014, Thm 3.16): the adaptive
/// composition of `(eps_i, delta_i)`-DP mechanisms is
/// `(sum eps_i, sum delta_i)`-DP (`delta` capped at 1).
///
/// All parts must be stated for the same neighbouring relation; the result
/// holds for it. Errors: no parts, or mixed relations.
pub fn basic_composition(parts: &[ApproxDp]) -> Result<ApproxDp> {
    let relation = common_relation(parts.iter().map(|p| p.relation))?;
    let eps = parts.iter().map(|p| p.eps).sum();
    let delta = parts.iter().map(|p| p.delta).sum::<f64>().min(1.0);
    ApproxDp::new(eps, delta, relation)
}

/// The `eps'` of the advanced composition theorem of Dwork, Rothblum & Vadhan
/// (2010) (Dwork & Roth 2014, Thm 3.20): the `k`-fold adaptive composition of
/// (eps, delta)-DP mechanisms is `(eps', k delta + delta')`-DP for every
/// `delta' > 0`, with
///
/// `eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)`.
///
/// Valid for every `eps >= 0`, `k >= 1`, `delta'` in `(0, 1)`; the per-step
/// `delta` only enters the total `delta` (see [`advanced_composition`]).
/// `e^eps - 1` is evaluated with `exp_m1`. It beats the basic `k eps` exactly
/// when `eps < ln 2` and `k > 2 ln(1/delta') / (2 - e^eps)^2` (divide
/// `eps' < k eps` by `k eps`); take the minimum of the two, both are valid.
pub fn advanced_composition_eps(eps: f64, k: usize, delta_prime: f64) -> Result<f64> {
    check_eps_nonneg(eps)?;
    check_steps(k)?;
    check_delta_open(delta_prime)?;
    let kf = k as f64;
    Ok((2.0 * kf * (1.0 / delta_prime).ln()).sqrt() * eps + kf * eps * eps.exp_m1())
}

/// Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014,
/// Thm 3.20) of `k` adaptively chosen mechanisms, each `step`-DP:
/// `(eps', k delta + delta')`-DP with `eps'` from [`advanced_composition_eps`]
/// (`delta` capped at 1). The result holds for `step.relation`.
pub fn advanced_composition(step: ApproxDp, k: usize, delta_prime: f64) -> Result<ApproxDp> {
    let eps = advanced_composition_eps(step.eps, k, delta_prime)?;
    let delta = (k as f64 * step.delta + delta_prime).min(1.0);
    ApproxDp::new(eps, delta, step.relation)
}

/// Inverse of [`advanced_composition_eps`]: the largest per-step `eps` whose
/// `k`-fold advanced composition is at most `total_eps`, i.e. the root of
/// `sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1) = total_eps`.
///
/// The left side is strictly increasing from 0, so the root is unique; it lies
/// below both `total_eps / sqrt(2 k ln(1/delta'))` (first term alone) and
/// `sqrt(total_eps / k)` (second term alone, `e^x - 1 >= x`). Found by
/// bisection to adjacent `f64`s, returning the end whose composition does not
/// exceed `total_eps`. Used to calibrate `k`-step algorithms: a per-step
/// (eps, delta)-DP mechanism run `k` times is then
/// `(total_eps, k delta + delta')`-DP. Same relation as the per-step guarantee.
pub fn advanced_per_step_eps(total_eps: f64, k: usize, delta_prime: f64) -> Result<f64> {
    check_eps_pos(total_eps)?;
    check_steps(k)?;
    check_delta_open(delta_prime)?;
    let kf = k as f64;
    let hi =
        (total_eps / (2.0 * kf * (1.0 / delta_prime).ln()).sqrt()).min((total_eps / kf).sqrt());
    let fits =
        |e: f64| advanced_composition_eps(e, k, delta_prime).is_ok_and(|total| total <= total_eps);
    if fits(hi) {
        // Only possible through rounding at the bracket end.
        return Ok(hi);
    }
    Ok(bisect(0.0, hi, fits).0)
}

/// Per-step `eps` for a `k`-step algorithm with total budget `total_eps`: the
/// larger of the basic share `total_eps / k` and [`advanced_per_step_eps`].
///
/// Both are valid, so the composition of `k` mechanisms that are each
/// (result, delta)-DP is `(total_eps, k delta + delta')`-DP (when the basic
/// share is the larger one, `delta'` is not even needed). Same relation as the
/// per-step guarantee.
pub fn per_step_eps(total_eps: f64, k: usize, delta_prime: f64) -> Result<f64> {
    let advanced = advanced_per_step_eps(total_eps, k, delta_prime)?;
    Ok(advanced.max(total_eps / k as f64))
}

/// `ln(1/delta')` must be at least this for [`theorem_a1_per_step_eps`]'s
/// simplification to be implied by the exact advanced composition bound.
const THEOREM_A1_MIN_LOG_INV_DELTA: f64 = 0.5;

/// Checks the hypotheses of the saddle-point paper's Thm A.1.
fn check_theorem_a1(total_eps: f64, k: usize, delta_prime: f64) -> Result<()> {
    check_eps_pos(total_eps)?;
    check_steps(k)?;
    check_delta_open(delta_prime)?;
    if total_eps >= 1.0 {
        return Err(AccountingError::OutOfRange {
            what: "total eps'",
            value: total_eps,
            requirement: "Thm A.1 (Dwork-Roth Cor 3.21) needs eps' < 1",
        });
    }
    if (1.0 / delta_prime).ln() < THEOREM_A1_MIN_LOG_INV_DELTA {
        return Err(AccountingError::OutOfRange {
            what: "delta'",
            value: delta_prime,
            requirement: "Thm A.1's simplification needs delta' <= e^(-1/2)",
        });
    }
    Ok(())
}

/// Per-step `eps_0` of the saddle-point paper's Thm A.1 (González, Guzmán &
/// Paquette; = Dwork & Roth 2014, Cor 3.21; digest §1.3):
///
/// `eps_0 = eps' / (2 sqrt(2 k ln(1/delta')))`,
///
/// for which the `k`-fold adaptive composition of (eps_0, delta_0)-DP
/// mechanisms is `(eps', k delta_0 + delta')`-DP, **provided `eps' < 1`**.
///
/// Difference from [`advanced_per_step_eps`] (the exact inverse of the DRV
/// bound): this is a closed-form sufficient condition, not the same curve.
/// With this `eps_0` the DRV bound's first term is `eps'/2`, and its second
/// term is `k eps_0 (e^eps_0 - 1) <= 2 k eps_0^2 = eps'^2 / (4 ln(1/delta'))`
/// (using `e^x - 1 <= 2x` for `x <= 1`), which is `<= eps'/2` when
/// `eps' <= 2 ln(1/delta')`. Hence the theorem needs `eps' < 1` **and**
/// `ln(1/delta') >= 1/2` (`delta' <= e^(-1/2)`, implicit in the paper: any
/// practical `delta'` satisfies it); both are checked and give
/// [`AccountingError::OutOfRange`]. The result is therefore always at most
/// [`advanced_per_step_eps`] (it spends at most `eps'` by DRV), i.e. it is
/// more conservative; for `eps' >= 1` use [`advanced_per_step_eps`], which
/// is valid for every `eps'` (digest §8 item 4).
///
/// **Release count (digest §3.1 erratum):** `k` must count every released
/// object. For the paper's Algorithm 1 that is `2 T (K + 1)` (x- and
/// y-vertices are separate releases; see [`saddle_alg1_releases`]), not the
/// printed `T (K + 1)`, which is looser by a factor `sqrt 2` in `eps_0`.
///
/// Neighbouring relation: the paper's is replace-one (digest §1.3); the
/// theorem itself holds for any relation shared by all `k` mechanisms.
pub fn theorem_a1_per_step_eps(total_eps: f64, k: usize, delta_prime: f64) -> Result<f64> {
    check_theorem_a1(total_eps, k, delta_prime)?;
    Ok(total_eps / (2.0 * (2.0 * k as f64 * (1.0 / delta_prime).ln()).sqrt()))
}

/// Total `eps' = 2 sqrt(2 k ln(1/delta')) eps_0` that the saddle-point
/// paper's Thm A.1 certifies for `k` mechanisms that are each `eps_0`-DP (the
/// forward reading of [`theorem_a1_per_step_eps`]); the total `delta` is
/// `k delta_0 + delta'`. Errors with [`AccountingError::OutOfRange`] when the
/// resulting `eps' >= 1` or `delta' > e^(-1/2)`, where the theorem is not
/// proven. Where valid it is never below [`advanced_composition_eps`].
pub fn theorem_a1_total_eps(eps0: f64, k: usize, delta_prime: f64) -> Result<f64> {
    check_eps_nonneg(eps0)?;
    check_steps(k)?;
    check_delta_open(delta_prime)?;
    let total = 2.0 * (2.0 * k as f64 * (1.0 / delta_prime).ln()).sqrt() * eps0;
    if total > 0.0 {
        check_theorem_a1(total, k, delta_prime)?;
    }
    Ok(total)
}

/// Number of separately released objects of the saddle-point paper's
/// Algorithm 1 with `t` steps and `k` gradient samples per step:
/// `2 t (k + 1)` (per step and per player, `k` gradient vertices plus one
/// output vertex). The paper's Prop 4.1 composes over `t (k + 1)`, an erratum
/// (digest §3.1); this is the count to feed to [`theorem_a1_per_step_eps`].
/// Saturates instead of overflowing.
pub fn saddle_alg1_releases(t: usize, k: usize) -> usize {
    t.saturating_mul(k.saturating_add(1)).saturating_mul(2)
}
