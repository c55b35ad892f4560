//! Privacy of Wang–Zhu–Wang's `A_PrivTune`: geometric stopping with `mu`-GDP
//! runs.

use super::checks::{check_gamma_open, param};
use super::{Result, StoppingError};

// Named only in doc links.
#[cfg(doc)]
use super::Geometric;

fn check_privtune(r: f64, delta: f64) -> Result<f64> {
    check_gamma_open(r)?;
    param("delta", delta, delta > 0.0 && delta < 1.0, "(0, 1)")?;
    Ok(-(r.ln() + delta.ln()))
}

/// Wang–Zhu–Wang **Lemma K.1** (from Koskela et al. 2024, Cor. 5.5; digest
/// §2.5): `A_PrivTune` with `K ~ TNB_{1,r}` = [`Geometric`]`(r)` and `mu`-GDP
/// runs (base at `mu/sqrt 2` plus Gaussian score at `mu/sqrt 2`) is
/// `(eps, delta)`-DP with
///
/// `eps = 3/2 mu^2 + 3 mu sqrt(2 ln(1/(r delta))) + delta`,
///
/// under replace-one neighbours. Returns that `eps`.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] unless `mu >= 0` is finite and
/// `r`, `delta` lie in `(0, 1)`.
pub fn privtune_gdp_epsilon(mu: f64, r: f64, delta: f64) -> Result<f64> {
    param("mu", mu, mu.is_finite() && mu >= 0.0, "[0, inf)")?;
    let l = check_privtune(r, delta)?;
    Ok(1.5 * mu * mu + 3.0 * mu * (2.0 * l).sqrt() + delta)
}

/// Wang–Zhu–Wang **Thm K.3** calibration: `mu = eps / (6 sqrt(2 ln(1/(r delta))))`
/// makes `A_PrivTune` (`K ~ Geometric(r)`, `mu`-GDP runs) `(eps + delta, delta)`-DP
/// for `eps <= 24 ln(1/(r delta))` (via Cor. K.2, valid when
/// `mu <= 2 sqrt(2 ln(1/(r delta)))`).
///
/// # Errors
/// [`StoppingError::EpsilonOutOfRange`] if `eps > 24 ln(1/(r delta))`;
/// [`StoppingError::InvalidParameter`] for invalid inputs.
pub fn privtune_mu(eps: f64, r: f64, delta: f64) -> Result<f64> {
    param("eps", eps, eps.is_finite() && eps > 0.0, "(0, inf)")?;
    let l = check_privtune(r, delta)?;
    if eps > 24.0 * l {
        return Err(StoppingError::EpsilonOutOfRange { eps, max: 24.0 * l });
    }
    Ok(eps / (6.0 * (2.0 * l).sqrt()))
}
