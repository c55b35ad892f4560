//! One-run auditing of a whole trade-off curve (Mahloujifar, Melis &
//! Chaudhuri, "Auditing f-Differential Privacy in One Run", ICML 2025): the
//! game of [`crate::one_run`], tested against an `f`-DP hypothesis instead
//! of one `(eps, delta)` pair.
//!
//! # Why a curve
//! [`crate::one_run::eps_lower`] asks whether the guesses are consistent
//! with `(eps, delta)`-DP, whose trade-off `f_(eps, delta)` is the weakest
//! curve through that one point. An accountant certifies more: a privacy
//! profile `delta(eps)` for every `eps`, i.e. the trade-off
//! `f = sup_eps f_(eps, delta(eps))`. A Gaussian-like mechanism at
//! `eps = 1, delta = 1e-12` has `f` far above `f_(1, 1e-12)` where the
//! one-run game looks (type I and II errors near 1/2), so a run with half
//! the noise violates the certified curve by a margin one run can see,
//! while it violates `(1, 1e-12)` only in a tail no run reaches:
//! `docs/audit.md` (one-run audits) has the numbers.
//!
//! # The test
//! `m` slots, `r` guesses, `v` correct (as in [`crate::one_run`]). Write
//! `b(x) = 1 - f(x)` for the blow-up of `f` and `g = b^-1` for its inverse.
//! The paper bounds how likely `v` correct guesses are under any `f`-DP
//! mechanism: suppose `P[W >= v] >= alpha`; start from `r_v = alpha v / m`,
//! `h_v = alpha (r - v) / m` and go down, for `i = v - 1, ..., 0`,
//!
//! `h_i = max(h_(i+1), g(r_(i+1)))`, `r_i = r_(i+1) + i/(r - i) (h_i - h_(i+1))`;
//!
//! the `f`-DP constraints on each guessed slot then need a total mass
//! `r_0 + h_0` of at most `r/m` (the fraction of slots guessed). When
//! `r_0 + h_0 > r/m` the supposition is impossible: `P[W >= v] < alpha`
//! for every `f`-DP mechanism, and observing `v` rejects `f`-DP at level
//! `alpha` ([`rejects`]). The two-letter alphabet (in / out) gives the
//! paper's factor `k - 1 = 1` in front of `g`.
//!
//! # Which curves
//! [`Tradeoff::Gaussian`] is `mu`-GDP, `g(y) = Phi(Phi^-1(y) - mu)`;
//! [`gdp_mu_lower`] reports the largest `mu` the guesses reject (a smaller
//! `g` lowers every `h_i` and `r_i`, so rejection is monotone in `mu` and a
//! bisection finds its edge). [`Tradeoff::Profile`] is the curve of a
//! privacy profile sampled at points `(eps_j, delta_j)`: the mechanism is
//! `(eps_j, delta_j)`-DP for every `j`, so it is `f_j`-DP for every `j` and
//! hence `sup_j f_j`-DP, whose inverse blow-up is `max_j g_j` with
//! `g_j(y) = max((y - delta_j) e^-eps_j, 1 - delta_j - e^eps_j (1 - y))`
//! clamped to `[0, 1]`. Sampling fewer points gives a lower curve, a
//! weaker hypothesis: a profile from a pessimistic accountant (an upper
//! bound on `delta(eps)`) or on a coarse grid stays sound, only less
//! powerful.

use mechanisms::normal::normal_cdf;

use crate::clopper_pearson::bisect;
use crate::gdp::normal_quantile;

/// An `f`-DP hypothesis, through the inverse of its blow-up `1 - f`.
#[derive(Debug, Clone, PartialEq)]
pub enum Tradeoff {
    /// `mu`-Gaussian DP: `f(x) = Phi(Phi^-1(1 - x) - mu)`.
    Gaussian {
        /// `mu > 0`.
        mu: f64,
    },
    /// The curve `sup_j f_(eps_j, delta_j)` of a sampled privacy profile
    /// (module doc); `eps_j >= 0`, `delta_j` in `[0, 1]`.
    Profile {
        /// The `(eps_j, delta_j)` points.
        points: Vec<(f64, f64)>,
    },
}

impl Tradeoff {
    /// `g(y) = b^-1(y)`, the smallest type I error whose power under `f`
    /// can reach `y`; 0 at `y <= 0`, 1 at `y >= 1`.
    pub fn inverse_blow_up(&self, y: f64) -> f64 {
        if y <= 0.0 {
            return 0.0;
        }
        if y >= 1.0 {
            return 1.0;
        }
        match self {
            Tradeoff::Gaussian { mu } => normal_cdf(normal_quantile(y) - mu),
            Tradeoff::Profile { points } => points
                .iter()
                .map(|&(eps, delta)| {
                    ((y - delta) * (-eps).exp()).max(1.0 - delta - eps.exp() * (1.0 - y))
                })
                .fold(0.0_f64, f64::max)
                .clamp(0.0, 1.0),
        }
    }

    fn check(&self) {
        match self {
            Tradeoff::Gaussian { mu } => assert!(*mu > 0.0 && mu.is_finite(), "mu = {mu}"),
            Tradeoff::Profile { points } => {
                assert!(!points.is_empty(), "an empty privacy profile");
                for &(eps, delta) in points {
                    assert!(
                        eps >= 0.0 && eps.is_finite() && (0.0..=1.0).contains(&delta),
                        "profile point ({eps}, {delta})"
                    );
                }
            }
        }
    }
}

/// Whether `v` correct of `r` guesses over `m` slots reject `f`-DP at level
/// `alpha` (module doc): for an `f`-DP mechanism this happens with
/// probability below `alpha`.
///
/// # Panics
/// Unless `v <= r <= m`, `r >= 1`, `alpha` lies in `(0, 1)` and the
/// trade-off's parameters are valid.
pub fn rejects(f: &Tradeoff, m: usize, r: usize, v: usize, alpha: f64) -> bool {
    assert!(
        v <= r && r <= m && r >= 1,
        "need v <= r <= m, r >= 1, got {v}, {r}, {m}"
    );
    assert!(alpha > 0.0 && alpha < 1.0, "alpha = {alpha}");
    f.check();
    let (mf, rf) = (m as f64, r as f64);
    let mut h = alpha * (r - v) as f64 / mf;
    let mut mass = alpha * v as f64 / mf;
    for i in (0..v).rev() {
        let h_next = h;
        h = h.max(f.inverse_blow_up(mass));
        mass += i as f64 / (rf - i as f64) * (h - h_next);
    }
    mass + h > rf / mf
}

/// The largest `mu` (to adjacent `f64`s) such that every smaller `mu`-GDP
/// hypothesis is rejected by `v` correct of `r` guesses over `m` slots at
/// level `alpha`; 0 when none is. For a `mu*`-GDP mechanism,
/// `P[gdp_mu_lower > mu*] <= alpha`.
///
/// # Panics
/// As [`rejects`].
pub fn gdp_mu_lower(m: usize, r: usize, v: usize, alpha: f64) -> f64 {
    let rejected = |mu: f64| rejects(&Tradeoff::Gaussian { mu }, m, r, v, alpha);
    // Below 1e-9 no count of guesses a machine holds can tell mu from 0.
    if !rejected(1e-9) {
        return 0.0;
    }
    // Large mu sends g to 0, leaving r_0 + h_0 = alpha r / m < r / m: the
    // doubling stops.
    let mut hi = 1.0;
    while rejected(hi) {
        hi *= 2.0;
    }
    bisect(1e-9, hi, rejected).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_inverse_blow_up_inverts_one_minus_f() {
        for mu in [0.1, 1.0, 3.0] {
            for x in [1e-6, 0.01, 0.3, 0.9] {
                // 1 - f(x) = Phi(Phi^-1(x) + mu).
                let y = normal_cdf(normal_quantile(x) + mu);
                let back = Tradeoff::Gaussian { mu }.inverse_blow_up(y);
                assert!((back / x - 1.0).abs() < 1e-8, "mu {mu}, x {x}: {back}");
            }
        }
    }

    /// A one-point profile is `f_(eps, delta)`: `g` inverts
    /// `b(x) = min(1, delta + e^eps x, 1 - e^-eps (1 - delta - x))`.
    #[test]
    fn profile_inverse_blow_up_inverts_the_eps_delta_blow_up() {
        let (eps, delta) = (0.7f64, 1e-3);
        let b = |x: f64| {
            (delta + eps.exp() * x)
                .min(1.0 - (-eps).exp() * (1.0 - delta - x))
                .min(1.0)
        };
        let f = Tradeoff::Profile {
            points: vec![(eps, delta)],
        };
        for x in [0.0, 0.01, 0.2, 0.45, 0.8, 0.99] {
            let y = b(x);
            if y < 1.0 {
                assert!((f.inverse_blow_up(y) - x).abs() < 1e-12, "x {x}");
            }
        }
    }

    /// Perfect guessing rejects any fixed `mu` once there are enough
    /// guesses, and chance-level guessing rejects nothing.
    #[test]
    fn extremes() {
        assert!(rejects(
            &Tradeoff::Gaussian { mu: 1.0 },
            1000,
            400,
            400,
            0.05
        ));
        assert!(!rejects(
            &Tradeoff::Gaussian { mu: 1.0 },
            1000,
            400,
            200,
            0.05
        ));
        assert_eq!(gdp_mu_lower(1000, 400, 200, 0.05), 0.0);
        // 1.873 by a separate Python transcription of the recursion.
        let perfect = gdp_mu_lower(1000, 400, 400, 0.05);
        assert!((perfect - 1.873).abs() < 1e-3, "{perfect}");
    }
}
