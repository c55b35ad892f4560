//! Cancellation-free Bregman divergence of the softplus function, the building
//! block of the logistic family's empirical and population excesses (digest
//! §6 E2-Logit, P19).
//!
//! `D(v, e) = softplus(v + e) - softplus(v) - sigmoid(v) e >= 0`. Since
//! `(1 + e^(v+e)) / (1 + e^v) = 1 + p (e^e - 1)` with `p = sigmoid(v)`,
//! `D = ln(1 + x) - p e` with `x = p expm1(e)`, and
//! `D = [ln(1 + x) - x] + p [expm1(e) - e]`: two brackets of order `e^2`
//! evaluated by their Taylor series for small arguments, so the first-order
//! cancellation of the naive difference never happens. Because
//! `softplus(u) = softplus(-u) + u`, `D(v, e) = D(-v, -e)`; the form with
//! `p <= 1/2` is used, so the two brackets (of opposite sign,
//! `-x^2/2` and `p e^2/2`) cancel by at most a factor `1 - p >= 1/2`.

use crate::numerics::{sigmoid, softplus};

/// Arguments below this magnitude use the Taylor series of the brackets.
const SERIES_THRESHOLD: f64 = 0.1;
/// Terms of the Taylor series (`0.1^30` is far below one ulp).
const SERIES_TERMS: usize = 30;

/// `ln(1 + x) - x`, accurate to a few ulps for `x > -1`.
pub fn log1p_minus_x(x: f64) -> f64 {
    if x.abs() >= SERIES_THRESHOLD {
        return x.ln_1p() - x;
    }
    // sum_{k >= 2} (-1)^(k+1) x^k / k, smallest terms first.
    let mut powers = [0.0; SERIES_TERMS + 1];
    let mut p = x;
    for slot in powers.iter_mut().skip(2) {
        p *= x;
        *slot = p;
    }
    (2..=SERIES_TERMS)
        .rev()
        .map(|k| {
            let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
            sign * powers[k] / k as f64
        })
        .sum()
}

/// `expm1(e) - e = e^2/2 + e^3/6 + ...`, accurate to a few ulps.
pub fn expm1_minus_x(e: f64) -> f64 {
    if e.abs() >= SERIES_THRESHOLD {
        return e.exp_m1() - e;
    }
    let mut terms = [0.0; SERIES_TERMS + 1];
    let mut t = e;
    for (k, slot) in terms.iter_mut().enumerate().skip(2) {
        t *= e / k as f64;
        *slot = t;
    }
    terms.iter().rev().sum()
}

/// The softplus Bregman divergence `softplus(v + e) - softplus(v) - sigmoid(v) e`,
/// without cancellation (see the module docs). Large increments (`|e| > 1`)
/// have no cancellation problem and use the direct difference.
pub fn softplus_bregman(v: f64, e: f64) -> f64 {
    let (v, e) = if v > 0.0 { (-v, -e) } else { (v, e) };
    let p = sigmoid(v);
    if e.abs() > 1.0 {
        return (softplus(v + e) - softplus(v) - p * e).max(0.0);
    }
    let x = p * e.exp_m1();
    (log1p_minus_x(x) + p * expm1_minus_x(e)).max(0.0)
}
