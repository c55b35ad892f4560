//! Certified minimization of a smooth convex finite sum over `B(0, M)`, the
//! ground truth of [`super::LogisticGlm`] (digest §6 E2-Logit, P19).
//!
//! 1. **Multiplier search.** If the constraint is active, the minimizer is
//!    `w(mu) = argmin F + mu/2 ||w||^2` for the multiplier `mu > 0` with
//!    `||w(mu)|| = M`. `||w(mu)||` decreases in `mu` (its derivative is
//!    `-w^T (H + mu I)^{-1} w / ||w||`), and `||w(mu)|| <= ||grad F(0)||/mu`
//!    (strong convexity of the regularized objective), so the root lies in
//!    `(0, ||grad F(0)|| / M]`. It is found by the Moré–Sorensen Newton step
//!    on `1/||w(mu)|| - 1/M` (the Hessian only shapes the step) with a
//!    bisection safeguard, each `w(mu)` certified by Newton and warm-started.
//! 2. **Interior case.** When the search drives `mu` towards `0` (a Newton
//!    candidate `<= 0`, or `mu < 1e-8` of its start) with `||w(mu)|| < M`, a
//!    damped Newton ([`crate::newton::newton_minimize`]) on `F` itself is
//!    tried once from the current `w(mu)`, with `F` set to `+inf` outside
//!    `B(0, 2M)` so that the iterates stay bounded when no unconstrained
//!    minimizer exists (separable data). Success with `||w|| <= M`
//!    certifies an interior minimizer by `||grad F(w)||`.
//!
//! On the active branch the final `w(mu)` (with `||w(mu)|| = M` to `1e-10`
//! relative at worst, `1e-14` typically) is scaled onto the sphere and the
//! multiplier is re-estimated from the radial part of the gradient,
//! `mu = max(0, -<grad F(w*), w*>/M^2)`.
//!
//! Certificate (KKT residual): the stationarity residual
//! `||grad F(w*) + mu w*||` must be `<=` [`STATIONARITY_TOL`]; feasibility
//! and complementary slackness hold by construction (`||w*|| = M` when
//! `mu > 0`, `mu = 0` when interior).

use crate::linalg::{cholesky_solve, forward_substitute_lower};
use crate::newton::{newton_minimize, NewtonOptions};
use crate::numerics::{dot, norm2};

/// Largest accepted stationarity residual `||grad F(w) + mu w||`.
pub const STATIONARITY_TOL: f64 = 1e-12;
/// Inner Newton stopping rule: `1e-15` (so that `||w(mu)||` is accurate to
/// `1e-15/mu`), or `1e-12` on a rounding-floor stall.
const INNER: NewtonOptions = NewtonOptions {
    tol: 1e-15,
    floor_tol: STATIONARITY_TOL,
    max_iter: 100,
};
/// Inner rule while `||w(mu)||` is still far (`> 1e-6` relative) from `M`.
const LOOSE: NewtonOptions = NewtonOptions {
    tol: 1e-9,
    floor_tol: 1e-9,
    max_iter: 100,
};
/// Outer (multiplier) iteration cap.
const MAX_OUTER: usize = 200;

/// A smooth convex objective with an (possibly approximate) Hessian.
pub trait SmoothConvex {
    /// Dimension.
    fn dim(&self) -> usize;
    /// `F(w)`.
    fn value(&self, w: &[f64]) -> f64;
    /// `grad F(w)` (accurate: it is the certificate).
    fn gradient(&self, w: &[f64], out: &mut [f64]);
    /// Row-major `d x d` Hessian (may be subsampled; shapes steps only).
    fn hessian(&self, w: &[f64], out: &mut [f64]);
}

/// A certified constrained minimizer.
#[derive(Debug, Clone, PartialEq)]
pub struct BallMinimizer {
    /// `w*`, `||w*|| <= M`.
    pub point: Vec<f64>,
    /// Multiplier `mu >= 0` (`0` when interior).
    pub multiplier: f64,
    /// `||grad F(w*) + mu w*||`.
    pub stationarity: f64,
}

fn regularized_solve<P: SmoothConvex>(
    p: &P,
    mu: f64,
    start: Vec<f64>,
    bound: f64,
    opts: &NewtonOptions,
) -> Result<Vec<f64>, String> {
    let d = p.dim();
    newton_minimize(
        start,
        opts,
        |w| {
            if norm2(w) > bound {
                f64::INFINITY
            } else {
                p.value(w) + 0.5 * mu * dot(w, w)
            }
        },
        |w, g| {
            p.gradient(w, g);
            g.iter_mut().zip(w).for_each(|(gj, wj)| *gj += mu * wj);
        },
        |w, h| {
            p.hessian(w, h);
            (0..d).for_each(|j| h[j * d + j] += mu);
        },
    )
    .map(|s| s.point)
}

/// Newton on `F` itself (no multiplier) from `start`, with `F = +inf`
/// outside `B(0, 2M)` and at most 30 iterations; the interior minimizer
/// when it converges inside the ball.
fn interior_attempt<P: SmoothConvex>(p: &P, start: &[f64], radius: f64) -> Option<BallMinimizer> {
    let opts = NewtonOptions {
        max_iter: 30,
        ..INNER
    };
    let w = regularized_solve(p, 0.0, start.to_vec(), 2.0 * radius, &opts).ok()?;
    if norm2(&w) > radius {
        return None;
    }
    let st = stationarity(p, &w, 0.0);
    Some(BallMinimizer {
        point: w,
        multiplier: 0.0,
        stationarity: st,
    })
}

fn stationarity<P: SmoothConvex>(p: &P, w: &[f64], mu: f64) -> f64 {
    let mut g = vec![0.0; w.len()];
    p.gradient(w, &mut g);
    g.iter_mut().zip(w).for_each(|(gj, wj)| *gj += mu * wj);
    norm2(&g)
}

/// Minimizes `p` over `B(0, radius)` with a KKT certificate (module docs).
///
/// # Errors
/// When no iterate meets the certificate.
pub fn minimize_on_ball<P: SmoothConvex>(p: &P, radius: f64) -> Result<BallMinimizer, String> {
    let d = p.dim();
    let mut w = vec![0.0; d];
    p.gradient(&vec![0.0; d], &mut w);
    let hi0 = norm2(&w) / radius;
    w.fill(0.0);
    if hi0 == 0.0 {
        return Ok(BallMinimizer {
            point: w,
            multiplier: 0.0,
            stationarity: 0.0,
        });
    }
    let (mut lo, mut hi) = (0.0_f64, hi0);
    let mut mu = hi;
    let mut h = vec![0.0; d * d];
    let mut mu_used = mu;
    let mut tried_interior = false;
    let mut near = false;
    for _ in 0..MAX_OUTER {
        mu_used = mu;
        // Far from the root a loose inner tolerance suffices (warm starts
        // make the final tight solves cheap).
        let opts = if near { INNER } else { LOOSE };
        w = regularized_solve(p, mu, w, f64::INFINITY, &opts)
            .map_err(|e| format!("ball Newton at mu = {mu}: {e}"))?;
        let nw = norm2(&w);
        if nw > radius {
            lo = lo.max(mu);
        } else {
            hi = hi.min(mu);
        }
        if near && ((nw - radius).abs() <= 1e-14 * radius || hi - lo <= 4.0 * f64::EPSILON * hi) {
            break;
        }
        near = near || (nw - radius).abs() <= 1e-6 * radius;
        p.hessian(&w, &mut h);
        (0..d).for_each(|j| h[j * d + j] += mu);
        let mut scratch = w.clone();
        let candidate = match cholesky_solve(&mut h, &mut scratch) {
            Ok(()) => {
                let mut q = w.clone();
                forward_substitute_lower(&h, &mut q);
                mu + nw * nw / dot(&q, &q) * (nw - radius) / radius
            }
            Err(_) => f64::NAN,
        };
        // The multiplier heads for 0: try the interior (mu = 0) solution once,
        // warm-started from the current w(mu).
        if lo == 0.0 && !tried_interior && (candidate <= 0.0 || hi <= 1e-8 * hi0) {
            tried_interior = true;
            if let Some(found) = interior_attempt(p, &w, radius) {
                return Ok(found);
            }
        }
        // Moré–Sorensen from the right (||w|| < M) can overshoot far to the
        // left; never go below a tenth of the current multiplier in one step.
        let candidate = if nw < radius {
            candidate.max(0.1 * mu)
        } else {
            candidate
        };
        mu = if candidate > lo && candidate < hi && candidate != mu {
            candidate
        } else {
            0.5 * (lo + hi)
        };
    }
    let nw = norm2(&w);
    if (nw - radius).abs() > 1e-10 * radius {
        return Err(format!(
            "ball Newton: multiplier search unresolved (||w|| = {nw}, M = {radius}, mu = {mu_used})"
        ));
    }
    // Put w on the sphere and re-estimate the multiplier from the radial
    // component of the gradient; the tangential remainder is the residual.
    w.iter_mut().for_each(|v| *v *= radius / nw);
    let mut g = vec![0.0; d];
    p.gradient(&w, &mut g);
    let mu = (-dot(&g, &w) / (radius * radius)).max(0.0);
    let st = stationarity(p, &w, mu);
    if st > STATIONARITY_TOL {
        return Err(format!(
            "ball Newton: KKT residual {st:.3e} > {STATIONARITY_TOL:.0e}"
        ));
    }
    Ok(BallMinimizer {
        point: w,
        multiplier: mu,
        stationarity: st,
    })
}
