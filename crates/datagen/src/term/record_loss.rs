//! The per-record loss `f(w, x)` of a TERM instance ([`TermLoss`]): its value,
//! (sub)gradient, and the cancellation-free difference `f(w, x) - f(w*, x)`
//! behind [`Term`]'s excess risk (digest P15).

use super::{Term, TermLoss};
use crate::numerics::{dist, dot};

impl Term {
    /// Per-record loss `f(w, x)`.
    pub fn loss(&self, w: &[f64], x: &[f64]) -> f64 {
        let mu = self.params.mu;
        let r2: f64 = w.iter().zip(x).map(|(a, b)| (a - b) * (a - b)).sum();
        match self.params.loss {
            TermLoss::Quadratic => 0.5 * mu * r2,
            TermLoss::NonSmooth => 0.5 * mu * dot(w, w) + r2.sqrt(),
        }
    }

    /// `grad f(w, x)` into `out`, returning `||w - x||` (NonSmooth subgradient
    /// `mu w` at `w = x`).
    pub(super) fn loss_gradient(&self, w: &[f64], x: &[f64], out: &mut [f64]) -> f64 {
        let mu = self.params.mu;
        let r = dist(w, x);
        for ((o, a), b) in out.iter_mut().zip(w).zip(x) {
            *o = match self.params.loss {
                TermLoss::Quadratic => mu * (a - b),
                TermLoss::NonSmooth if r > 0.0 => mu * a + (a - b) / r,
                TermLoss::NonSmooth => mu * a,
            };
        }
        r
    }

    /// `f(w, x) - f(w*, x)` without cancellation: `(w - w*).(w + w* - 2x) mu/2`
    /// for Quadratic; NonSmooth adds `mu/2 (w - w*).(w + w*)` and
    /// `||a|| - ||b|| = (a - b).(a + b)/(||a|| + ||b||)`, `a = w - x`, `b = w* - x`.
    pub(super) fn loss_delta(&self, diff: &[f64], sum: &[f64], w: &[f64], x: &[f64]) -> f64 {
        let mu = self.params.mu;
        let lin: f64 = diff
            .iter()
            .zip(sum.iter().zip(x))
            .map(|(a, (s, xj))| a * (s - 2.0 * xj))
            .sum();
        match self.params.loss {
            TermLoss::Quadratic => 0.5 * mu * lin,
            TermLoss::NonSmooth => {
                let na = dist(w, x);
                let nb = dist(&self.w_star, x);
                let dn = if na + nb > 0.0 { lin / (na + nb) } else { 0.0 };
                0.5 * mu * dot(diff, sum) + dn
            }
        }
    }
}
