//! Limited-memory BFGS with the certificate of [`crate::newton`]: the
//! first-order driver of the families' certified ground truth (issue 27).
//!
//! A damped Newton step on a finite sum of `n` records in dimension `d` forms
//! a (subsampled) Hessian of `m` rows, `m d (d + 1) / 2` multiply-adds, plus a
//! `d^3 / 6` Cholesky factorisation: at `n = 1e5, d = 100` (the peer race's
//! logistic data, `m = 33 334`) one Hessian is about 17 gradient passes. On
//! strongly convex objectives whose condition number is moderate, L-BFGS
//! reaches the same certificate in a handful more iterations than Newton, each
//! costing one gradient and one value pass.
//!
//! The certificate is unchanged: the gradient norm of the returned point, as
//! evaluated by the caller's (accurate) gradient closure, with
//! `||w - w*|| <= ||grad F(w)|| / mu`. The stopping rule is the same
//! [`NewtonOptions`]: `tol`, or `floor_tol` once the gradient norm stops
//! improving (rounding floor).

#[cfg(doc)]
use crate::certified::STALL_PATIENCE;
use crate::certified::{finish_on_stall, BestPoint, CertifiedSolution, NewtonOptions};
use crate::numerics::{dot, norm2};

/// Curvature pairs kept by [`lbfgs_minimize`]: 10, the common default
/// (Nocedal & Wright, §7.2: 3..20 pairs; more rarely pays on moderately
/// conditioned problems).
pub const MEMORY: usize = 10;

/// Iterations without a new best gradient norm while `F` is flat at rounding
/// level after which [`lbfgs_minimize`] declares a stall: L-BFGS's gradient
/// norm oscillates where Newton's falls monotonically. Measured on the
/// logistic instance of `tests/certified_solver.rs` (condition number at
/// least 2.0e5): Newton's [`STALL_PATIENCE`] of 6 stopped L-BFGS at 1.6e-9, a
/// patience of 50 at 4.6e-10, 200 let it reach 9.1e-14 (4 350 iterations).
pub const FLAT_PATIENCE: usize = 200;

/// What [`lbfgs_minimize`] ended with: the best point seen and, when it did
/// not meet the certificate, why (the caller may then fall back to Newton from
/// the best point).
#[derive(Debug, Clone, PartialEq)]
pub struct LbfgsRun {
    /// The point with the smallest gradient norm seen.
    pub best: CertifiedSolution,
    /// `None` when `best` meets `tol` or, at a stall, `floor_tol`.
    pub failure: Option<String>,
}

/// L-BFGS (two-loop recursion, [`MEMORY`] pairs) with Armijo backtracking
/// from the unit step, the same slack `4 eps (1 + |F|)` as
/// [`crate::newton::newton_minimize`] (so the iteration continues once `F`
/// differences are at rounding level, where only the gradient norm
/// certifies), and the same stopping rules.
///
/// `value_and_gradient(w, g)` writes `grad F(w)` into `g` and returns `F(w)`
/// (one fused pass where the caller has one); every trial point of the line
/// search is evaluated by it, so an accepted unit step costs one pass.
///
/// `initial_scale` is the inverse-Hessian scale of the first step
/// (`1 / smoothness` when known); later steps use the Barzilai–Borwein scale
/// `s.y / y.y` of the newest pair. A pair with `s.y <= 0` (impossible for a
/// strongly convex `F` in exact arithmetic; possible at the rounding floor) is
/// not stored.
pub fn lbfgs_minimize<FG>(
    start: Vec<f64>,
    opts: &NewtonOptions,
    initial_scale: f64,
    mut value_and_gradient: FG,
) -> LbfgsRun
where
    FG: FnMut(&[f64], &mut [f64]) -> f64,
{
    let d = start.len();
    let mut w = start;
    let mut g = vec![0.0; d];
    let mut f = value_and_gradient(&w, &mut g);
    let gn = norm2(&g);
    let mut track = BestPoint::new(&w, gn);
    if !f.is_finite() || !gn.is_finite() {
        let why = format!("lbfgs: non-finite start (F = {f}, |g| = {gn})");
        return LbfgsRun {
            best: track.best,
            failure: Some(why),
        };
    }
    let scale0 = if initial_scale.is_finite() && initial_scale > 0.0 {
        initial_scale
    } else {
        1.0
    };
    let mut pairs = Pairs::default();
    let (mut trial, mut g_new) = (vec![0.0; d], vec![0.0; d]);
    for it in 1..=opts.max_iter {
        if track.best.grad_norm <= opts.tol {
            return LbfgsRun {
                best: track.best,
                failure: None,
            };
        }
        let p = pairs.direction(&g, scale0);
        let slope = dot(&g, &p);
        let slack = 4.0 * f64::EPSILON * (1.0 + f.abs());
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            for ((tr, wj), pj) in trial.iter_mut().zip(&w).zip(&p) {
                *tr = wj + t * pj;
            }
            let ft = value_and_gradient(&trial, &mut g_new);
            let armijo = ft <= f + 1e-4 * t * slope;
            // At the rounding floor F cannot see the decrease: accept the
            // step by the approximate Wolfe test of Hager & Zhang (2005),
            // phi'(t) <= (2 delta - 1) phi'(0) with delta = 0.1, read off
            // the gradient, which stays accurate there.
            let flat = ft <= f + slack && dot(&g_new, &p) <= -0.8 * slope;
            if ft.is_finite() && (armijo || flat) {
                accepted = Some(ft);
                break;
            }
            t *= 0.5;
        }
        let Some(ft) = accepted else {
            return stalled(track.best, opts, "no acceptable step");
        };
        let gn = norm2(&g_new);
        if !gn.is_finite() {
            let why = format!("lbfgs: non-finite gradient at iteration {it}");
            return LbfgsRun {
                best: track.best,
                failure: Some(why),
            };
        }
        let s: Vec<f64> = trial.iter().zip(&w).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        pairs.push(s, y);
        std::mem::swap(&mut w, &mut trial);
        std::mem::swap(&mut g, &mut g_new);
        // Unlike Newton's near the optimum, L-BFGS's gradient norm is not
        // monotone: it may rise for many iterations while F falls. Only an
        // iteration that improves neither (F within the rounding slack)
        // counts towards the stall.
        let f_progress = ft < f - slack;
        f = ft;
        if track.observe(&w, gn, it, f_progress) >= FLAT_PATIENCE {
            return stalled(track.best, opts, "gradient norm stalled");
        }
    }
    if track.best.grad_norm <= opts.tol {
        return LbfgsRun {
            best: track.best,
            failure: None,
        };
    }
    stalled(track.best, opts, "iteration cap reached")
}

fn stalled(best: CertifiedSolution, opts: &NewtonOptions, why: &str) -> LbfgsRun {
    match finish_on_stall(best.clone(), opts, why) {
        Ok(best) => LbfgsRun {
            best,
            failure: None,
        },
        Err(e) => LbfgsRun {
            best,
            failure: Some(e.replacen("newton", "lbfgs", 1)),
        },
    }
}

/// The newest [`MEMORY`] curvature pairs `(s, y, 1 / s.y)`, oldest first.
#[derive(Debug, Default)]
struct Pairs {
    s: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    rho: Vec<f64>,
}

impl Pairs {
    fn push(&mut self, s: Vec<f64>, y: Vec<f64>) {
        let sy = dot(&s, &y);
        if !(sy > 0.0 && sy.is_finite()) {
            return;
        }
        if self.s.len() == MEMORY {
            self.s.remove(0);
            self.y.remove(0);
            self.rho.remove(0);
        }
        self.s.push(s);
        self.y.push(y);
        self.rho.push(1.0 / sy);
    }

    /// `-H g` by the two-loop recursion (Nocedal & Wright, Algorithm 7.4).
    fn direction(&self, g: &[f64], scale0: f64) -> Vec<f64> {
        let k = self.s.len();
        let mut q = g.to_vec();
        let mut alpha = vec![0.0; k];
        for i in (0..k).rev() {
            alpha[i] = self.rho[i] * dot(&self.s[i], &q);
            axpy(-alpha[i], &self.y[i], &mut q);
        }
        let gamma = match k {
            0 => scale0,
            _ => dot(&self.s[k - 1], &self.y[k - 1]) / dot(&self.y[k - 1], &self.y[k - 1]),
        };
        q.iter_mut().for_each(|v| *v *= gamma);
        for (((s, y), rho), a) in self.s.iter().zip(&self.y).zip(&self.rho).zip(&alpha) {
            let beta = rho * dot(y, &q);
            axpy(a - beta, s, &mut q);
        }
        q.iter_mut().for_each(|v| *v = -*v);
        q
    }
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(yi, xi)| *yi += a * xi);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `F(w) = 1/2 sum_j c_j w_j^2 - sum_j w_j` with `c_j` spread over
    /// `[1, kappa]`: `w*_j = 1 / c_j`.
    fn diagonal(kappa: f64, d: usize) -> impl FnMut(&[f64], &mut [f64]) -> f64 {
        let c: Vec<f64> = (0..d)
            .map(|j| kappa.powf(j as f64 / (d - 1) as f64))
            .collect();
        move |w: &[f64], g: &mut [f64]| {
            for ((gj, x), cj) in g.iter_mut().zip(w).zip(&c) {
                *gj = cj * x - 1.0;
            }
            w.iter()
                .zip(&c)
                .map(|(x, cj)| 0.5 * cj * x * x - x)
                .sum::<f64>()
        }
    }

    #[test]
    fn reaches_the_certificate_on_a_quadratic_of_condition_1e4() {
        let opts = NewtonOptions {
            tol: 1e-12,
            floor_tol: 1e-10,
            max_iter: 2000,
        };
        let run = lbfgs_minimize(vec![0.0; 50], &opts, 1e-4, diagonal(1e4, 50));
        assert!(run.failure.is_none(), "{:?}", run.failure);
        assert!(run.best.grad_norm <= 1e-12);
        // The certificate's distance bound (mu = min c_j = 1) holds.
        let err = (0..50)
            .map(|j| run.best.point[j] - 1e4f64.powf(-(j as f64) / 49.0))
            .map(|e| e * e)
            .sum::<f64>()
            .sqrt();
        assert!(err <= run.best.grad_norm + 1e-15, "{err}");
    }

    #[test]
    fn reports_a_failure_with_its_best_point_at_the_iteration_cap() {
        let opts = NewtonOptions {
            tol: 1e-13,
            floor_tol: 1e-13,
            max_iter: 3,
        };
        let run = lbfgs_minimize(vec![0.0; 50], &opts, 1.0, diagonal(1e4, 50));
        assert!(run.failure.unwrap().contains("iteration cap"));
        // The best point seen (the start has ||grad F(0)|| = sqrt(50)), not the last.
        assert!(run.best.grad_norm <= 50f64.sqrt() && run.best.iterations <= 3);
    }
}
