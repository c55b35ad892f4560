//! Report-noisy-max with Laplace noise and Gaussian report-noisy-min.

use rand::Rng;
use rand_distr::{Distribution, Exp1, StandardNormal};

use super::checks::{check_eps, check_log_weight, check_noise_scale, check_sensitivity};
use super::{Result, ScoreKind, SelectionError};

// Named only in doc links.
#[cfg(doc)]
use super::exponential_mechanism;

/// Report-noisy-max with Laplace noise: `argmax_i u_i + Z_i`,
/// `Z_i ~ Lap(b)` i.i.d., with
///
/// * `b = Delta_u / eps` for [`ScoreKind::Monotone`] scores: eps-DP (Dwork &
///   Roth 2014, Claim 3.9, stated for counting queries, `Delta_u = 1`; the
///   proof only uses `u <= u' <= u + Delta_u` coordinatewise);
/// * `b = 2 Delta_u / eps` for [`ScoreKind::General`] scores: eps-DP, because
///   for neighbours `u' + Delta_u` lies coordinatewise in `[u, u + 2 Delta_u]`
///   and a common shift does not change the argmax, so the monotone case with
///   sensitivity `2 Delta_u` applies.
///
/// Unlike the Gumbel version this is **not** the exponential mechanism; its
/// exact law has no closed form beyond two candidates (for two, the winner is
/// `0` with probability `1 - P(Z_1 - Z_0 > u_0 - u_1)`, where
/// `P(Z_1 - Z_0 > t) = (1 + t/(2b)) e^{-t/b} / 2` for `t >= 0`). Ties have
/// probability zero; the first maximiser wins. `-inf` scores never win.
///
/// # Errors
/// As [`exponential_mechanism`].
pub fn report_noisy_max_laplace<R: Rng + ?Sized>(
    scores: &[f64],
    eps: f64,
    sensitivity: f64,
    kind: ScoreKind,
    rng: &mut R,
) -> Result<usize> {
    check_eps(eps)?;
    check_sensitivity(sensitivity)?;
    let b = sensitivity / (kind.exponent_factor() * eps);
    let laplace = |rng: &mut R| {
        let e: f64 = Exp1.sample(rng);
        if rng.next_u32() & 1 == 0 {
            b * e
        } else {
            -b * e
        }
    };
    noisy_argmax(scores.len(), |i| scores[i], rng, laplace)
}

/// `argmax_i score(i) + noise()`, skipping `-inf` scores (also the Gumbel-max
/// sampler of [`super::gumbel_max`]).
pub(super) fn noisy_argmax<R: Rng + ?Sized>(
    len: usize,
    score: impl Fn(usize) -> f64,
    rng: &mut R,
    mut noise: impl FnMut(&mut R) -> f64,
) -> Result<usize> {
    if len == 0 {
        return Err(SelectionError::Empty);
    }
    let mut best: Option<(usize, f64)> = None;
    for i in 0..len {
        let u = score(i);
        check_log_weight(i, u)?;
        if u == f64::NEG_INFINITY {
            continue;
        }
        let v = u + noise(rng);
        match best {
            Some((_, b)) if v <= b => {}
            _ => best = Some((i, v)),
        }
    }
    best.map(|(i, _)| i).ok_or(SelectionError::NoPositiveWeight)
}

/// Gaussian report-noisy-**min** (Wang–Zhu–Wang Alg. 2, `A_Iter`, digest
/// §2.3): `argmin_i u_i + N(0, sigma^2)` with fresh noise per candidate, for
/// losses `u` (lower is better). `+inf` losses never win (they play the role
/// of `-inf` scores); NaN and `-inf` losses are errors.
///
/// Privacy: each noisy loss is a Gaussian mechanism, `(Delta_u / sigma)`-GDP;
/// releasing all `m` noisy losses (hence their argmin) is
/// `sqrt(m) Delta_u / sigma`-GDP by GDP composition (Dong, Roth & Su 2022;
/// see [`gaussian_report_noisy_min_mu`]). For two candidates the law is
/// `P(0 wins) = Phi((u_1 - u_0) / (sigma sqrt 2))`.
///
/// # Errors
/// [`SelectionError::InvalidNoiseScale`] unless `sigma` is finite and `> 0`;
/// otherwise as [`exponential_mechanism`].
pub fn report_noisy_min_gaussian<R: Rng + ?Sized>(
    losses: &[f64],
    sigma: f64,
    rng: &mut R,
) -> Result<usize> {
    check_noise_scale(sigma)?;
    if losses.is_empty() {
        return Err(SelectionError::Empty);
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, &u) in losses.iter().enumerate() {
        // A loss of +inf is an excluded candidate; -inf would always win.
        if u.is_nan() || u == f64::NEG_INFINITY {
            return Err(SelectionError::InvalidLogWeight { index: i, value: u });
        }
        if u == f64::INFINITY {
            continue;
        }
        let g: f64 = StandardNormal.sample(rng);
        let v = u + sigma * g;
        match best {
            Some((_, b)) if v >= b => {}
            _ => best = Some((i, v)),
        }
    }
    best.map(|(i, _)| i).ok_or(SelectionError::NoPositiveWeight)
}

/// GDP parameter `mu = sqrt(m) Delta_u / sigma` of [`report_noisy_min_gaussian`]
/// over `m` candidates: the `m` noisy losses form one Gaussian mechanism with
/// L2 sensitivity `sqrt(m) Delta_u`, which is `(sqrt(m) Delta_u/sigma)`-GDP
/// (Dong, Roth & Su 2022; Wang–Zhu–Wang Remark 2.3).
/// Wang–Zhu–Wang (`A_Iter`) instead charge each score `mu/sqrt(2|Theta|)`
/// separately, which is the same total.
///
/// # Errors
/// [`SelectionError::Empty`] if `m == 0`; invalid sensitivity or `sigma`.
pub fn gaussian_report_noisy_min_mu(m: usize, sensitivity: f64, sigma: f64) -> Result<f64> {
    if m == 0 {
        return Err(SelectionError::Empty);
    }
    check_sensitivity(sensitivity)?;
    check_noise_scale(sigma)?;
    Ok((m as f64).sqrt() * sensitivity / sigma)
}
