//! Stable evaluators of a radial loss `f(w, x) = psi(||w - x||)` on
//! [`SphereAtoms`] data: value, excess, gradients and population excess, with
//! antipodal pairs summed in closed form (digest P15, §8 E3).

use super::{SphereAtoms, SphereLayout};
use crate::numerics::{dist, dot, norm2};
use crate::quadrature::sphere_expectation;

/// A radial loss `f(w, x) = psi(||w - x||)` with the stable pieces the
/// evaluators need (digest P15).
pub(crate) trait RadialLoss {
    /// `psi(a)`.
    fn psi(&self, a: f64) -> f64;
    /// `K(a, b) = (psi(a) - psi(b)) / (a^2 - b^2)`, continuously extended.
    fn k(&self, a: f64, b: f64) -> f64;
    /// `J(a, a2, b) = (K(a, b) - K(a2, b)) / (a2^2 - a^2)`, continuously extended.
    fn j(&self, a: f64, a2: f64, b: f64) -> f64;
    /// `psi'(a) / a` (a subgradient convention at `a = 0` for kinks).
    fn grad_factor(&self, a: f64) -> f64;
}

/// The Euclidean norm as a radial loss, `psi(a) = a` (the sharp family E2 and
/// the geometric-median family E4): `K(a, b) = 1/(a + b)`,
/// `J(a, a2, b) = 1/((a + a2)(a + b)(a2 + b))`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NormLoss;

impl RadialLoss for NormLoss {
    fn psi(&self, a: f64) -> f64 {
        a
    }
    fn k(&self, a: f64, b: f64) -> f64 {
        1.0 / (a + b)
    }
    fn j(&self, a: f64, a2: f64, b: f64) -> f64 {
        1.0 / ((a + a2) * (a + b) * (a2 + b))
    }
    /// `1/a`, and `0` at the kink `a = 0` (a valid subgradient of `||.||`).
    fn grad_factor(&self, a: f64) -> f64 {
        if a > 0.0 {
            1.0 / a
        } else {
            0.0
        }
    }
}

/// `sum_k psi(||w - x_k||) - psi(||x_k||)` over an antipodal pair `x_k = +-x`
/// with `q = ||w||^2`, `c = w.x`, `a = ||w - x||`, `a2 = ||w + x||`, `b = ||x||`:
/// `q (K(a,b) + K(a2,b)) - 8 c^2 J(a, a2, b)`, since `a2^2 - a^2 = 4c`.
pub(crate) fn pair_excess<L: RadialLoss>(loss: &L, q: f64, c: f64, a: f64, a2: f64, b: f64) -> f64 {
    if q == 0.0 {
        return 0.0;
    }
    q * (loss.k(a, b) + loss.k(a2, b)) - 8.0 * c * c * loss.j(a, a2, b)
}

/// `(||w - x||^2, ||w + x||^2, w.x, ||x||^2)` in one pass.
fn moments(w: &[f64], x: &[f64]) -> (f64, f64, f64, f64) {
    w.iter()
        .zip(x)
        .fold((0.0, 0.0, 0.0, 0.0), |(m, p, c, b), (wj, xj)| {
            (
                m + (wj - xj) * (wj - xj),
                p + (wj + xj) * (wj + xj),
                c + wj * xj,
                b + xj * xj,
            )
        })
}

impl SphereAtoms {
    /// `(1/n) sum_i psi(||w - x_i||)`, with the `m` atoms in O(d).
    pub(crate) fn radial_value<L: RadialLoss>(&self, loss: &L, w: &[f64]) -> f64 {
        let r = norm2(w);
        let sphere: f64 = self
            .sphere
            .chunks_exact(self.params.d)
            .map(|x| loss.psi(dist(w, x)))
            .sum();
        (self.atoms as f64 * loss.psi(r) + sphere) / self.params.n as f64
    }

    /// `(1/n) sum_i [psi(||w - x_i||) - psi(||x_i||)]` without cancellation:
    /// atoms give `q K(||w||, 0)`, antipodal pairs [`pair_excess`], unpaired
    /// records `(q - 2 w.x) K(a, b)`.
    pub(crate) fn radial_excess<L: RadialLoss>(&self, loss: &L, w: &[f64]) -> f64 {
        let q = dot(w, w);
        if q == 0.0 {
            return 0.0;
        }
        let d = self.params.d;
        let atom = self.atoms as f64 * q * loss.k(q.sqrt(), 0.0);
        let sphere: f64 = match self.params.layout {
            SphereLayout::Antipodal => self
                .sphere
                .chunks_exact(2 * d)
                .map(|pair| {
                    let (am, ap, c, b) = moments(w, &pair[..d]);
                    pair_excess(loss, q, c, am.sqrt(), ap.sqrt(), b.sqrt())
                })
                .sum(),
            SphereLayout::Uniform => self
                .sphere
                .chunks_exact(d)
                .map(|x| {
                    let (am, _, c, b) = moments(w, x);
                    (q - 2.0 * c) * loss.k(am.sqrt(), b.sqrt())
                })
                .sum(),
        };
        (atom + sphere) / self.params.n as f64
    }

    /// Writes `(1/n) sum_i grad_factor(||w - x_i||) (w - x_i)` into `out`. At
    /// `w = 0` it writes `0`, which lies in `dF(0)` for every family built on
    /// this generator (digest §8 E2/E4/E5: `w* = 0`).
    pub(crate) fn radial_gradient<L: RadialLoss>(&self, loss: &L, w: &[f64], out: &mut [f64]) {
        let n = self.params.n as f64;
        out.fill(0.0);
        if w.iter().all(|v| *v == 0.0) {
            return;
        }
        let ga = self.atoms as f64 * loss.grad_factor(norm2(w));
        for (o, wj) in out.iter_mut().zip(w) {
            *o = ga * wj;
        }
        for x in self.sphere.chunks_exact(self.params.d) {
            let g = loss.grad_factor(dist(w, x));
            for ((o, wj), xj) in out.iter_mut().zip(w).zip(x) {
                *o += g * (wj - xj);
            }
        }
        for o in out.iter_mut() {
            *o /= n;
        }
    }

    /// Writes `grad_factor(||w - x_i||) (w - x_i)` (record `i`) into `out`.
    pub(crate) fn radial_record_gradient<L: RadialLoss>(
        &self,
        loss: &L,
        i: usize,
        w: &[f64],
        out: &mut [f64],
    ) {
        let x = self.record(i);
        let g = loss.grad_factor(dist(w, x));
        for ((o, wj), xj) in out.iter_mut().zip(w).zip(x) {
            *o = g * (wj - xj);
        }
    }

    /// Population excess `E_D[psi(||w - x||) - psi(||x||)]` at `w` under the
    /// law `D = p delta_0 + (1-p) Unif(S^(d-1))` of this generator's
    /// parameters; see [`population_excess_at_radius`].
    pub(crate) fn radial_population_excess<L: RadialLoss>(&self, loss: &L, w: &[f64]) -> f64 {
        population_excess_at_radius(loss, self.params.p, self.params.d, norm2(w))
    }
}

/// Population excess of a radial loss under `D = p delta_0 + (1-p) Unif(S^(d-1))`
/// at `||w|| = r`: `p (psi(r) - psi(0)) + (1-p) E_t[h(t)]` where `h` is half the
/// antipodal pair excess ([`pair_excess`] with `q = r^2`, `c = r t`, `b = 1`) and
/// `t = u.e` is integrated by [`sphere_expectation`] (digest §8 E3 last bullet).
/// The population minimizer is `0` for every `p` in `[0, 1]`: `E u = 0` by
/// symmetry, so `0` lies in the subdifferential of the convex `F(., D)`.
fn population_excess_at_radius<L: RadialLoss>(loss: &L, p: f64, d: usize, r: f64) -> f64 {
    if r == 0.0 {
        return 0.0;
    }
    let q = r * r;
    let atom = q * loss.k(r, 0.0);
    let sphere = sphere_expectation(d, |t| {
        let s2 = (1.0 - t) * (1.0 + t);
        let a = ((r - t) * (r - t) + s2).sqrt();
        let a2 = ((r + t) * (r + t) + s2).sqrt();
        0.5 * pair_excess(loss, q, r * t, a, a2, 1.0)
    });
    p * atom + (1.0 - p) * sphere
}
