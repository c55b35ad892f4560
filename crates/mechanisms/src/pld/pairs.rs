//! The pairs `(P, Q)` of output distributions whose privacy loss
//! `L(y) = ln(p(y)/q(y))` (for `y ~ P`) the accountant discretises, each with
//! `L` non-increasing in the one-dimensional output `y`, and their exact
//! privacy profiles `delta(eps) = P(L > eps) - e^eps Q(L > eps)` (the
//! hockey-stick divergence `H_{e^eps}(P || Q)`, for every real `eps`).
//!
//! Units: the sensitivity under the relation is 1 and `sigma` (or the Laplace
//! `scale`) is the noise in units of it, as in [`crate::rdp`].
//!
//! | pair | `P` | `Q` |
//! |---|---|---|
//! | Gaussian | `N(0, s^2)` | `N(1, s^2)` |
//! | Laplace | `Lap(0, b)` | `Lap(1, b)` |
//! | subsampled, remove | `(1-q) N(0, s^2) + q N(-1, s^2)` | `N(0, s^2)` |
//! | subsampled, add | `N(0, s^2)` | `(1-q) N(0, s^2) + q N(1, s^2)` |
//! | subsampled, replace-one | `(1-q) N(0, s^2) + q N(-1/2, s^2)` | `(1-q) N(0, s^2) + q N(1/2, s^2)` |
//!
//! The first two are symmetric (`H(P||Q) = H(Q||P)` by the reflection
//! `y -> 1 - y`), and so is the replace-one pair (`y -> -y`). Under add/remove
//! the Poisson-subsampled Gaussian is not: the data set with the extra record
//! against the one without (remove) and the reverse (add) are two pairs, and
//! a guarantee must cover both.

use crate::calibration::exact_gaussian_delta;
use crate::normal::normal_cdf;

/// The continuous part of every Gaussian pair is integrated over its
/// components' means `+- TAIL_SIGMAS` standard deviations; the `P`-mass
/// beyond, at most `Phi(-12) = 1.8e-33` per side, is placed pessimistically
/// (at loss `+inf` above, at the lowest loss of the grid below).
const TAIL_SIGMAS: f64 = 12.0;

/// A pair `(P, Q)` on the real line with a non-increasing privacy loss.
/// `P` may have atoms of privacy loss ([`MonotonePair::atoms`], the flat
/// tails of the Laplace pair) besides a continuous part with density
/// [`MonotonePair::density`] on [`MonotonePair::support`].
pub(crate) trait MonotonePair {
    /// Density of the continuous part of `P` at `y`.
    fn density(&self, y: f64) -> f64;
    /// `L(y) = ln(p(y)/q(y))`, non-increasing in `y`.
    fn loss(&self, y: f64) -> f64;
    /// The `y` with `L(y) = l`: `+inf` if `l` is at or below the infimum of
    /// `L`, `-inf` if at or above its supremum.
    fn inverse_loss(&self, l: f64) -> f64;
    /// The interval `[lo, hi]` over which the continuous part is integrated.
    fn support(&self) -> (f64, f64);
    /// The continuous part's `P`-mass below and above [`MonotonePair::support`].
    fn tails(&self) -> (f64, f64);
    /// Length scale of the density (quadrature pieces are at most a quarter
    /// of it long).
    fn scale(&self) -> f64;
    /// Atoms of `P` as `(privacy loss, P-mass)`.
    fn atoms(&self) -> Vec<(f64, f64)> {
        Vec::new()
    }
}

/// `phi(y / s) / s`, the `N(0, s^2)` density.
fn gauss(y: f64, s: f64) -> f64 {
    let z = y / s;
    (-0.5 * z * z).exp() / (s * (2.0 * std::f64::consts::PI).sqrt())
}

/// `ln(1 - q + q e^a)`, without overflow for large `a` and with relative
/// accuracy for small `q (e^a - 1)`.
fn ln_mix(q: f64, a: f64) -> f64 {
    if a <= 0.0 {
        (q * a.exp_m1()).ln_1p()
    } else {
        a + (q + (1.0 - q) * (-a).exp()).ln()
    }
}

/// The Gaussian pair `N(0, s^2)` against `N(1, s^2)`: `L(y) = (1 - 2y)/(2 s^2)`.
pub(crate) struct GaussianPair {
    pub(crate) sigma: f64,
}

impl MonotonePair for GaussianPair {
    fn density(&self, y: f64) -> f64 {
        gauss(y, self.sigma)
    }
    fn loss(&self, y: f64) -> f64 {
        (1.0 - 2.0 * y) / (2.0 * self.sigma * self.sigma)
    }
    fn inverse_loss(&self, l: f64) -> f64 {
        0.5 - self.sigma * self.sigma * l
    }
    fn support(&self) -> (f64, f64) {
        (-TAIL_SIGMAS * self.sigma, TAIL_SIGMAS * self.sigma)
    }
    fn tails(&self) -> (f64, f64) {
        let t = normal_cdf(-TAIL_SIGMAS);
        (t, t)
    }
    fn scale(&self) -> f64 {
        self.sigma
    }
}

/// The Laplace pair `Lap(0, b)` against `Lap(1, b)`: `L = 1/b` on `y <= 0`
/// (an atom of `P`-mass 1/2), `(1 - 2y)/b` on `(0, 1)`, `-1/b` on `y >= 1`
/// (an atom of `P`-mass `e^{-1/b}/2`).
pub(crate) struct LaplacePair {
    pub(crate) scale: f64,
}

impl MonotonePair for LaplacePair {
    fn density(&self, y: f64) -> f64 {
        (-y.abs() / self.scale).exp() / (2.0 * self.scale)
    }
    fn loss(&self, y: f64) -> f64 {
        ((y - 1.0).abs() - y.abs()) / self.scale
    }
    fn inverse_loss(&self, l: f64) -> f64 {
        let eps0 = 1.0 / self.scale;
        if l >= eps0 {
            f64::NEG_INFINITY
        } else if l <= -eps0 {
            f64::INFINITY
        } else {
            0.5 * (1.0 - self.scale * l)
        }
    }
    fn support(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn tails(&self) -> (f64, f64) {
        (0.0, 0.0) // the flat tails are the atoms
    }
    fn scale(&self) -> f64 {
        self.scale
    }
    fn atoms(&self) -> Vec<(f64, f64)> {
        let eps0 = 1.0 / self.scale;
        vec![(eps0, 0.5), (-eps0, 0.5 * (-eps0).exp())]
    }
}

/// Which pair of a Poisson-subsampled Gaussian (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subsampled {
    /// `P` = output with the record, `Q` = without (add/remove).
    Remove,
    /// `P` = output without the record, `Q` = with (add/remove).
    Add,
    /// The record replaced by its mirror image (replace-one).
    Replace,
}

/// A Poisson-subsampled Gaussian pair (rate `q` in `(0, 1]`, noise `sigma`).
pub(crate) struct SubsampledGaussianPair {
    pub(crate) q: f64,
    pub(crate) sigma: f64,
    pub(crate) kind: Subsampled,
}

impl SubsampledGaussianPair {
    /// The means of the shifted components of `P` and `Q` (0 when absent).
    fn shifts(&self) -> (f64, f64) {
        match self.kind {
            Subsampled::Remove => (-1.0, 0.0),
            Subsampled::Add => (0.0, 1.0),
            Subsampled::Replace => (-0.5, 0.5),
        }
    }

    /// `ln(phi_s(y - m)/phi_s(y)) = (2 y m - m^2)/(2 s^2)`.
    fn log_ratio(&self, y: f64, m: f64) -> f64 {
        (2.0 * y * m - m * m) / (2.0 * self.sigma * self.sigma)
    }

    /// The mixture `(1-q) N(0) + q N(m)` evaluated as CDF at `y`.
    fn mixture_cdf(&self, y: f64, m: f64) -> f64 {
        let s = self.sigma;
        if m == 0.0 {
            normal_cdf(y / s)
        } else {
            (1.0 - self.q) * normal_cdf(y / s) + self.q * normal_cdf((y - m) / s)
        }
    }
}

impl MonotonePair for SubsampledGaussianPair {
    fn density(&self, y: f64) -> f64 {
        let (mp, _) = self.shifts();
        if mp == 0.0 {
            gauss(y, self.sigma)
        } else {
            (1.0 - self.q) * gauss(y, self.sigma) + self.q * gauss(y - mp, self.sigma)
        }
    }

    fn loss(&self, y: f64) -> f64 {
        let (mp, mq) = self.shifts();
        let part = |m: f64| {
            if m == 0.0 {
                0.0
            } else {
                ln_mix(self.q, self.log_ratio(y, m))
            }
        };
        part(mp) - part(mq)
    }

    fn inverse_loss(&self, l: f64) -> f64 {
        let (q, s2) = (self.q, self.sigma * self.sigma);
        match self.kind {
            // e^l = 1 - q + q e^a with a = -(2y + 1)/(2 s^2).
            Subsampled::Remove => {
                let t = l.exp_m1() + q;
                if t <= 0.0 {
                    return f64::INFINITY;
                }
                let a = (t / q).ln();
                if a == f64::INFINITY {
                    return f64::NEG_INFINITY;
                }
                -(2.0 * s2 * a + 1.0) / 2.0
            }
            // e^{-l} = 1 - q + q e^b with b = (2y - 1)/(2 s^2).
            Subsampled::Add => {
                let t = (-l).exp_m1() + q;
                if t <= 0.0 {
                    return f64::NEG_INFINITY;
                }
                let b = (t / q).ln();
                if b == f64::INFINITY {
                    return f64::INFINITY;
                }
                (2.0 * s2 * b + 1.0) / 2.0
            }
            // With t = e^{y/(2 s^2)} and c = e^{-1/(8 s^2)}:
            // e^l = (1 - q + q c/t)/(1 - q + q c t), i.e.
            // e^l q c t^2 + (1 - q)(e^l - 1) t - q c = 0; divided by e^l
            // when l > 0 so that nothing overflows.
            Subsampled::Replace => {
                let c = (-1.0 / (8.0 * s2)).exp();
                let (a2, b1, c0) = if l > 0.0 {
                    (q * c, -(1.0 - q) * (-l).exp_m1(), -q * c * (-l).exp())
                } else {
                    (l.exp() * q * c, (1.0 - q) * l.exp_m1(), -q * c)
                };
                let disc = (b1 * b1 - 4.0 * a2 * c0).sqrt();
                let t = if b1 >= 0.0 {
                    -2.0 * c0 / (b1 + disc)
                } else {
                    (disc - b1) / (2.0 * a2)
                };
                2.0 * s2 * t.ln()
            }
        }
    }

    fn support(&self) -> (f64, f64) {
        let (mp, _) = self.shifts();
        let w = TAIL_SIGMAS * self.sigma;
        (mp.min(0.0) - w, mp.max(0.0) + w)
    }

    fn tails(&self) -> (f64, f64) {
        let (lo, hi) = self.support();
        let (mp, _) = self.shifts();
        (
            self.mixture_cdf(lo, mp),
            self.mixture_cdf(-hi, -mp), // P(y > hi) by reflection
        )
    }

    fn scale(&self) -> f64 {
        self.sigma
    }
}

/// `H_{e^eps}(N(0, s^2) || N(1, s^2))` for every real `eps`: the exact
/// Gaussian profile for `eps >= 0`, and for `eps < 0` the identity
/// `H_x(P||Q) = 1 - x + x H_{1/x}(Q||P)` with the symmetric pair.
pub(crate) fn gaussian_profile(eps: f64, sigma: f64) -> f64 {
    if eps >= 0.0 {
        exact_gaussian_delta(eps, sigma, 1.0)
    } else {
        (-eps.exp_m1() + eps.exp() * exact_gaussian_delta(-eps, sigma, 1.0)).min(1.0)
    }
}

/// The exact profile of the Laplace pair with `eps0 = 1/scale`:
/// `1 - e^{(eps - eps0)/2}` for `|eps| <= eps0`, 0 above, `1 - e^eps` below.
pub(crate) fn laplace_profile(eps: f64, scale: f64) -> f64 {
    let eps0 = 1.0 / scale;
    if eps >= eps0 {
        0.0
    } else if eps >= -eps0 {
        -(0.5 * (eps - eps0)).exp_m1()
    } else {
        -eps.exp_m1()
    }
}

/// The exact profile of one subsampled pair.
///
/// * remove: `delta(eps) = q H_{e^a}(N(-1)||N(0))` with
///   `e^a = 1 + (e^eps - 1)/q` (the pair's loss is `ln(1 - q + q e^{a(y)})`,
///   so `{L > eps} = {a(y) > a}` and the `(1-q) N(0)` parts cancel), and
///   `1 - e^eps` where `e^eps <= 1 - q`;
/// * add: `delta(eps) = q e^{eps + b} H_{e^{-b}}(N(0)||N(1))` with
///   `e^b = (e^{-eps} - 1 + q)/q`, and 0 where `e^{-eps} <= 1 - q`;
/// * replace-one: `P(y < y*) - e^eps Q(y < y*)` at `y* = L^{-1}(eps)`, from
///   the mixtures' CDFs.
pub(crate) fn subsampled_profile(pair: &SubsampledGaussianPair, eps: f64) -> f64 {
    let (q, sigma) = (pair.q, pair.sigma);
    match pair.kind {
        Subsampled::Remove => {
            let t = eps.exp_m1() + q;
            if t <= 0.0 {
                return -eps.exp_m1();
            }
            q * gaussian_profile((t / q).ln(), sigma)
        }
        Subsampled::Add => {
            let t = (-eps).exp_m1() + q;
            if t <= 0.0 {
                return 0.0;
            }
            let b = (t / q).ln();
            q * (eps + b).exp() * gaussian_profile(-b, sigma)
        }
        Subsampled::Replace => {
            let y = pair.inverse_loss(eps);
            let p = pair.mixture_cdf(y, -0.5);
            let qq = pair.mixture_cdf(y, 0.5);
            (p - eps.exp() * qq).clamp(0.0, 1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs() -> Vec<Box<dyn MonotonePair>> {
        let mut v: Vec<Box<dyn MonotonePair>> = vec![
            Box::new(GaussianPair { sigma: 0.7 }),
            Box::new(LaplacePair { scale: 1.3 }),
        ];
        for kind in [Subsampled::Remove, Subsampled::Add, Subsampled::Replace] {
            for (q, sigma) in [(0.01, 0.8), (0.3, 2.0), (1.0, 1.5)] {
                v.push(Box::new(SubsampledGaussianPair { q, sigma, kind }));
            }
        }
        v
    }

    /// `inverse_loss` inverts `loss` (to 1e-9 in y, relative to the scale)
    /// and `loss` is non-increasing, on every pair.
    #[test]
    fn inverse_loss_inverts_loss() {
        for pair in pairs() {
            let (lo, hi) = pair.support();
            let mut prev = f64::INFINITY;
            for i in 0..=200 {
                let y = lo + (hi - lo) * f64::from(i) / 200.0;
                let l = pair.loss(y);
                assert!(l <= prev + 1e-12, "loss increases at {y}");
                prev = l;
                let back = pair.inverse_loss(l);
                // Where L is locally flat (the subsampled tails) the inverse is
                // ill-conditioned: compare losses there instead; where it is
                // constant (the Laplace atoms) the inverse is infinite.
                let flat = |dy: f64| pair.loss(y + dy) == l;
                let ok = (back - y).abs() < 1e-9 * pair.scale().max(1.0)
                    || (back.is_finite() && (pair.loss(back) - l).abs() < 1e-12 * l.abs().max(1.0))
                    || (back.is_infinite() && (flat(-0.5) || flat(0.5)));
                assert!(ok, "y = {y}: L = {l}, inverse {back}");
            }
        }
    }

    /// The remove/add closed forms of the subsampled profile agree with the
    /// direct `P(y < y*) - e^eps Q(y < y*)`, and at q = 1 every pair is the
    /// Gaussian.
    #[test]
    fn subsampled_profiles_are_consistent() {
        for kind in [Subsampled::Remove, Subsampled::Add] {
            let pair = SubsampledGaussianPair {
                q: 0.2,
                sigma: 1.1,
                kind,
            };
            let (mp, mq) = pair.shifts();
            for eps in [-0.1, 0.0, 0.05, 0.3, 1.0, 2.0] {
                let y = pair.inverse_loss(eps);
                let direct = pair.mixture_cdf(y, mp) - eps.exp() * pair.mixture_cdf(y, mq);
                let closed = subsampled_profile(&pair, eps);
                assert!(
                    (direct - closed).abs() < 1e-10 * closed.max(1e-6),
                    "{kind:?} eps {eps}: {direct} vs {closed}"
                );
            }
        }
        for kind in [Subsampled::Remove, Subsampled::Add, Subsampled::Replace] {
            let pair = SubsampledGaussianPair {
                q: 1.0,
                sigma: 0.9,
                kind,
            };
            for eps in [-0.5, 0.0, 0.7, 3.0] {
                let (got, want) = (subsampled_profile(&pair, eps), gaussian_profile(eps, 0.9));
                assert!((got - want).abs() < 1e-10 * want, "{kind:?} {eps}");
            }
        }
    }
}
