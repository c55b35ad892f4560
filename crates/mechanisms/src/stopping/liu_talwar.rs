//! Pure-DP costs of geometric random stopping (Liu & Talwar 2019), also with a
//! budget of runs.

use super::checks::{check_eps, check_gamma_open, param};
use super::geometric::{ceil_to_u64_at_least_one, CappedGeometric};
use super::Result;

// Named only in doc links.
#[cfg(doc)]
use super::{tnb_tuning_pure_dp, Geometric, StoppingError};

/// Liu & Talwar 2019, Thm 3.2 (random stopping without a threshold,
/// Alg. 2; stated in the introduction as Thm 1.3): if every candidate run is
/// `eps`-DP and the number of runs is [`Geometric`] with **any**
/// `gamma` in `(0, 1]`, releasing the best candidate is `3 eps`-DP.
/// Equals [`tnb_tuning_pure_dp`] at `eta = 1`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `eps` is finite and `>= 0`.
pub fn liu_talwar_random_stop_epsilon(eps: f64) -> Result<f64> {
    check_eps(eps)?;
    Ok(3.0 * eps)
}

/// Liu & Talwar 2019, Thm 3.1 (known threshold `tau`, Alg. 1: run until a
/// candidate scores at least `tau`, stopping with probability `gamma` after
/// each failure and then releasing nothing): `eps`-DP runs give a
/// `2 eps`-DP release.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `eps` is finite and `>= 0`.
pub fn liu_talwar_threshold_epsilon(eps: f64) -> Result<f64> {
    check_eps(eps)?;
    Ok(2.0 * eps)
}

/// `(eps', delta')` of random stopping with a **budget**: `eps`-DP runs,
/// `K = min(G, cap)` with `G ~ Geometric(gamma)` ([`CappedGeometric`]):
///
/// `eps' = 3 eps`, `delta' = (1 + e^{3 eps}) (1 - gamma)^cap`.
///
/// Proof (ours; Liu & Talwar 2019 §3 state a budgeted variant of the same
/// shape, `T = ln(1/delta_2)/gamma` runs for an additive `~delta_2`): run the
/// capped and uncapped procedures on the same randomness; they release the
/// same candidate unless `G > cap`, an event of probability
/// `p = (1-gamma)^cap` for every data set. Hence for every event `E`,
/// `P[A_cap(S) in E] <= P[A(S) in E] + p <= e^{3 eps} P[A(S') in E] + p
/// <= e^{3 eps} (P[A_cap(S') in E] + p) + p` by the 3 eps-DP of the uncapped
/// procedure ([`liu_talwar_random_stop_epsilon`]). Use
/// [`cap_for_overflow`] to pick `cap` for a target `p`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] for invalid `eps`, `gamma` or `cap`.
pub fn liu_talwar_capped_dp(eps: f64, gamma: f64, cap: u64) -> Result<(f64, f64)> {
    check_eps(eps)?;
    let capped = CappedGeometric::new(gamma, cap)?;
    let p = capped.overflow_probability();
    Ok((3.0 * eps, ((1.0 + (3.0 * eps).exp()) * p).min(1.0)))
}

/// Smallest budget `cap` with `(1 - gamma)^cap <= overflow`, i.e.
/// `ceil(ln(overflow) / ln(1 - gamma))` (at least 1); `ln(1-gamma)` via
/// `ln_1p`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `gamma` and `overflow` lie in
/// `(0, 1)`.
pub fn cap_for_overflow(gamma: f64, overflow: f64) -> Result<u64> {
    check_gamma_open(gamma)?;
    param(
        "overflow",
        overflow,
        overflow > 0.0 && overflow < 1.0,
        "(0, 1)",
    )?;
    Ok(ceil_to_u64_at_least_one(overflow.ln() / (-gamma).ln_1p()))
}
