//! RDP costs of truncated-negative-binomial and Poisson stopping (Papernot &
//! Steinke 2022, Thms 2 and 6), per order and on whole RDP curves.

use super::checks::{check_curve, check_eps, check_order, param};
use super::negative_binomial::tnb_mean;
use super::{Result, StoppingError};

// Named only in doc links.
#[cfg(doc)]
use super::{Poisson, TruncatedNegativeBinomial};

/// Papernot & Steinke 2022, **Thm 2** (truncated negative binomial
/// stopping). If one run `Q` is `(lambda, eps)`-RDP and
/// `(lambda_hat, eps_hat)`-RDP, with `lambda > 1`, `lambda_hat >= 1`, and
/// `K ~ TNB(eta, gamma)` ([`TruncatedNegativeBinomial`], `eta > -1`,
/// `0 < gamma < 1`), then releasing the best of `K` runs is
/// `(lambda, eps')`-RDP with
///
/// `eps' = eps + (1+eta)(1 - 1/lambda_hat) eps_hat + (1+eta) ln(1/gamma)/lambda_hat + ln(E K)/(lambda - 1)`,
///
/// `E K` from [`tnb_mean`]. Any `lambda_hat` may be used;
/// [`tnb_tuning_rdp_curve`] optimises it over a grid.
///
/// # Errors
/// [`StoppingError::InvalidParameter`] for orders, divergences, `eta` or
/// `gamma` out of range.
pub fn tnb_tuning_rdp(
    eps: f64,
    order: f64,
    eps_hat: f64,
    order_hat: f64,
    eta: f64,
    gamma: f64,
) -> Result<f64> {
    check_eps(eps)?;
    check_eps(eps_hat)?;
    check_order("order", order, false)?;
    check_order("order_hat", order_hat, true)?;
    let mean = tnb_mean(eta, gamma)?;
    let one_eta = 1.0 + eta;
    Ok(eps
        + one_eta * (1.0 - 1.0 / order_hat) * eps_hat
        + one_eta * (-gamma.ln()) / order_hat
        + mean.ln() / (order - 1.0))
}

/// RDP is non-decreasing in the order, so a bound at order `a_j` also bounds
/// every order `a_i <= a_j`: replace each value by the minimum over orders at
/// least as large.
fn monotone_envelope(orders: &[f64], values: &mut [f64]) {
    let raw = values.to_vec();
    for (i, v) in values.iter_mut().enumerate() {
        *v = orders
            .iter()
            .zip(&raw)
            .filter(|&(&a, _)| a >= orders[i])
            .map(|(_, &e)| e)
            .fold(f64::INFINITY, f64::min);
    }
}

/// Papernot & Steinke 2022, Thm 2 applied to a whole RDP curve of one run:
/// for each order `lambda_i > 1` of `orders`, returns
/// `eps'_i = eps_i + (1+eta) min_j [(1 - 1/lambda_j) eps_j + ln(1/gamma)/lambda_j] + ln(E K)/(lambda_i - 1)`
/// (the best `lambda_hat` from the same grid), then uses monotonicity of RDP
/// in the order (Mironov 2017, Prop. 9) to take, at each order, the minimum
/// over all orders at least as large. Orders equal to 1 are valid as
/// `lambda_hat` but give `+inf` as `lambda` (before the envelope).
///
/// # Errors
/// [`StoppingError::InvalidRdpCurve`] or invalid `eta`/`gamma`.
pub fn tnb_tuning_rdp_curve(
    orders: &[f64],
    base_rdp: &[f64],
    eta: f64,
    gamma: f64,
) -> Result<Vec<f64>> {
    check_curve(orders, base_rdp)?;
    let ln_mean = tnb_mean(eta, gamma)?.ln();
    let ln_inv_gamma = -gamma.ln();
    let hat = orders
        .iter()
        .zip(base_rdp)
        .filter(|(_, e)| e.is_finite())
        .map(|(&a, &e)| (1.0 - 1.0 / a) * e + ln_inv_gamma / a)
        .fold(f64::INFINITY, f64::min);
    let constant = (1.0 + eta) * hat;
    let mut out: Vec<f64> = orders
        .iter()
        .zip(base_rdp)
        .map(|(&a, &e)| {
            if a > 1.0 {
                e + constant + ln_mean / (a - 1.0)
            } else {
                f64::INFINITY
            }
        })
        .collect();
    monotone_envelope(orders, &mut out);
    Ok(out)
}

/// Pure-DP cost of `TNB(eta, gamma)` stopping with `eps`-DP runs:
/// `(2 + eta) eps`, for every `gamma`.
///
/// Derivation: an `eps`-DP run is `(lambda, eps)`-RDP at every order, so
/// [`tnb_tuning_rdp`] with `lambda_hat -> inf` gives
/// `(lambda, (2+eta) eps + ln(E K)/(lambda-1))`-RDP for all `lambda`, and
/// `D_inf = lim D_lambda` (van Erven & Harremoës 2014, Thm 6). At `eta = 1`
/// (geometric) this is Liu & Talwar's `3 eps`; the logarithmic law
/// (`eta = 0`) gives `2 eps` (Papernot & Steinke 2022, discussion of Thm 2).
///
/// # Errors
/// [`StoppingError::InvalidParameter`] for invalid `eps` or `eta <= -1`.
pub fn tnb_tuning_pure_dp(eps: f64, eta: f64) -> Result<f64> {
    check_eps(eps)?;
    param("eta", eta, eta.is_finite() && eta > -1.0, "(-1, inf)")?;
    Ok((2.0 + eta) * eps)
}

fn check_poisson_inputs(eps: f64, order: f64, eps_hat: f64, delta_hat: f64, mu: f64) -> Result<()> {
    check_eps(eps)?;
    check_eps(eps_hat)?;
    check_order("order", order, false)?;
    param(
        "delta_hat",
        delta_hat,
        (0.0..=1.0).contains(&delta_hat),
        "[0, 1]",
    )?;
    param("mu", mu, mu.is_finite() && mu > 0.0, "(0, inf)")?;
    if eps_hat > (1.0 / (order - 1.0)).ln_1p() {
        return Err(StoppingError::PoissonConditionViolated { eps_hat, order });
    }
    Ok(())
}

/// Papernot & Steinke 2022, **Thm 6** (Poisson stopping). If one run `Q` is
/// `(lambda, eps)`-RDP and `(eps_hat, delta_hat)`-DP with
/// `exp(eps_hat) <= 1 + 1/(lambda - 1)`, and `K ~ Poisson(mu)` ([`Poisson`];
/// `K = 0` releases a fixed default), then releasing the best of `K` runs is
/// `(lambda, eps')`-RDP with
///
/// `eps' = eps + mu delta_hat + ln(mu)/(lambda - 1)`.
///
/// **Restricted to `mu >= 1`.** For `mu < 1` the expression can be negative
/// (e.g. identical runs, `eps = delta_hat = 0`), which no divergence is; the
/// exact audit in `tests/selection.rs` finds violations at `mu = 0.5` when the
/// `K = 0` default is a separate output, and none for `mu >= 1` (also
/// Google's `dp_accounting` rejects means below 1). For any `mu > 0` use
/// [`poisson_tuning_rdp_any_mean`].
///
/// # Errors
/// [`StoppingError::PoissonConditionViolated`] if
/// `exp(eps_hat) > 1 + 1/(lambda - 1)`; [`StoppingError::InvalidParameter`]
/// for invalid inputs (`delta_hat` in `[0, 1]`, `mu >= 1`).
pub fn poisson_tuning_rdp(
    eps: f64,
    order: f64,
    eps_hat: f64,
    delta_hat: f64,
    mu: f64,
) -> Result<f64> {
    check_poisson_inputs(eps, order, eps_hat, delta_hat, mu)?;
    param("mu", mu, mu >= 1.0, "[1, inf) for Thm 6")?;
    Ok(eps + mu * delta_hat + mu.ln() / (order - 1.0))
}

/// Poisson-stopping RDP valid for **every** `mu > 0` (ours, from the proof
/// pattern of Papernot & Steinke Thm 6), same assumptions as
/// [`poisson_tuning_rdp`]:
///
/// `eps' = ln( e^{-mu} + mu exp((lambda-1)(eps + mu delta_hat)) ) / (lambda - 1)`.
///
/// Proof sketch: with `F` the cdf of one run and `f(x) = e^{mu(x-1)}` the
/// PGF of `K`, the best of `K` runs puts mass `f(F(y)) - f(F(y-))` on `y`
/// and `f(0) = e^{-mu}` on the default. Writing each mass as an average of
/// `Q(y) f'(t)` over `t` in `[F(y-), F(y)]`, joint convexity of
/// `(a, b) -> a^lambda b^(1-lambda)` gives
/// `sum_y A(y)^lambda A'(y)^(1-lambda) <= e^{(lambda-1) eps} sup f'(t)^lambda f'(t')^(1-lambda)`,
/// and `f'(t)^lambda f'(t')^(1-lambda) = mu exp(mu[(lambda-1)(1-t') - lambda(1-t)])
/// <= mu exp(mu (lambda-1) delta_hat)` by `(eps_hat, delta_hat)`-DP applied to
/// the (randomized) event of probability `1 - t` and
/// `(lambda-1) e^{eps_hat} <= lambda`. The default contributes `e^{-mu}`
/// (if it coincides with a candidate output, joint convexity again only
/// lowers the sum). For `mu >= 1` this exceeds [`poisson_tuning_rdp`] by at
/// most `ln(1 + e^{-mu}/mu)/(lambda-1)`.
///
/// # Errors
/// As [`poisson_tuning_rdp`], but any `mu > 0` is accepted.
pub fn poisson_tuning_rdp_any_mean(
    eps: f64,
    order: f64,
    eps_hat: f64,
    delta_hat: f64,
    mu: f64,
) -> Result<f64> {
    check_poisson_inputs(eps, order, eps_hat, delta_hat, mu)?;
    let a = -mu;
    let b = mu.ln() + (order - 1.0) * (eps + mu * delta_hat);
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    Ok((hi + (lo - hi).exp().ln_1p()) / (order - 1.0))
}

/// Papernot & Steinke 2022, Thm 6 applied to a whole RDP curve
/// ([`poisson_tuning_rdp`] for `mu >= 1`, [`poisson_tuning_rdp_any_mean`]
/// for `mu < 1`): at each order `lambda_i > 1` takes the largest admissible
/// `eps_hat = ln(1 + 1/(lambda_i - 1))` and `delta_hat = base_delta(eps_hat)`,
/// where `base_delta` is the privacy profile of one run (any valid
/// `(eps_hat, delta_hat)`-DP statement, e.g. the exact Gaussian profile
/// [`crate::calibration::exact_gaussian_delta`]), then applies the
/// monotone envelope in the order (as [`tnb_tuning_rdp_curve`]).
///
/// # Errors
/// [`StoppingError::InvalidRdpCurve`], invalid `mu`, or a `base_delta` value
/// outside `[0, 1]`.
pub fn poisson_tuning_rdp_curve(
    orders: &[f64],
    base_rdp: &[f64],
    base_delta: impl Fn(f64) -> f64,
    mu: f64,
) -> Result<Vec<f64>> {
    check_curve(orders, base_rdp)?;
    let mut out = Vec::with_capacity(orders.len());
    for (&a, &e) in orders.iter().zip(base_rdp) {
        if a > 1.0 && e.is_finite() {
            let eps_hat = (1.0 / (a - 1.0)).ln_1p();
            let delta_hat = base_delta(eps_hat);
            out.push(if mu >= 1.0 {
                poisson_tuning_rdp(e, a, eps_hat, delta_hat, mu)?
            } else {
                poisson_tuning_rdp_any_mean(e, a, eps_hat, delta_hat, mu)?
            });
        } else {
            out.push(f64::INFINITY);
        }
    }
    monotone_envelope(orders, &mut out);
    Ok(out)
}
