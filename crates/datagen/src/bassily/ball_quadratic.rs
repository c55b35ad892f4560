//! Exact minimization of a convex quadratic over a Euclidean ball, the ground
//! truth of the least-squares GLM (digest §6 E2-LS) and of its exact
//! objective perturbation (Algorithm 2, digest §2.3, P11).
//!
//! Problem: `min 1/2 w^T A w - c^T w` subject to `||w|| <= R`, `A` symmetric
//! positive semi-definite. KKT: `(A + mu I) w = c`, `mu >= 0`,
//! `mu (R - ||w||) = 0`. If `A` is positive definite and `||A^{-1} c|| <= R`
//! the solution is interior (`mu = 0`). Otherwise `mu > 0` solves the secular
//! equation `||w(mu)|| = R`, `w(mu) = (A + mu I)^{-1} c`, which has a root in
//! `(0, ||c||/R]` because `||w(mu)|| <= ||c||/mu`. The root is found by the
//! Moré–Sorensen Newton iteration on the concave increasing function
//! `phi(mu) = 1/||w(mu)|| - 1/R`:
//! `mu <- mu + (||w|| / ||q||)^2 (||w|| - R)/R`, `q = L^{-1} w`,
//! `L L^T = A + mu I`, safeguarded by bisection inside a bracket that is
//! maintained throughout, until `||w(mu)||` equals `R` to a few ulps or the
//! bracket collapses to machine precision.
//!
//! Singular `A` (possible only when `n < d`) is supported when the
//! constraint is active; when `A` is singular and `c` lies in its range with
//! a short minimum-norm solution, the minimizer is not unique and an error is
//! returned.

use crate::linalg::{cholesky_solve, forward_substitute_lower};
use crate::numerics::{dot, norm2};

/// Iteration cap of the secular-equation solver (Newton converges in about
/// ten steps; bisection alone needs at most about 1100 halvings of a
/// positive `f64` bracket, and is only a safeguard here).
const MAX_ITER: usize = 400;

/// The minimizer and its Lagrange multiplier.
#[derive(Debug, Clone, PartialEq)]
pub struct BallQuadraticSolution {
    /// The minimizer `w*`, `||w*|| <= R`.
    pub point: Vec<f64>,
    /// The multiplier `mu >= 0` with `(A + mu I) w* = c`.
    pub multiplier: f64,
}

/// `(A + mu I)^{-1} c` and the Cholesky factor of `A + mu I` (lower
/// triangle), or `None` when `A + mu I` is not numerically positive definite.
fn shifted_solve(a: &[f64], c: &[f64], mu: f64) -> Option<(Vec<f64>, Vec<f64>)> {
    let d = c.len();
    let mut factor = a.to_vec();
    for j in 0..d {
        factor[j * d + j] += mu;
    }
    let mut w = c.to_vec();
    cholesky_solve(&mut factor, &mut w).ok()?;
    Some((w, factor))
}

/// Minimizes `1/2 w^T A w - c^T w` over `||w|| <= radius` exactly (see the
/// module docs); `a` is row-major `d x d` with `d = c.len()`.
///
/// # Errors
/// Mismatched dimensions, a non-positive radius, non-finite input, or a
/// singular `A` with a non-unique interior minimizer.
pub fn minimize_quadratic_on_ball(
    a: &[f64],
    c: &[f64],
    radius: f64,
) -> Result<BallQuadraticSolution, String> {
    let d = c.len();
    if a.len() != d * d {
        return Err(format!(
            "ball quadratic: A has {} entries, expected {}",
            a.len(),
            d * d
        ));
    }
    if !(radius.is_finite() && radius > 0.0) {
        return Err(format!("ball quadratic: radius must be > 0, got {radius}"));
    }
    let c_norm = norm2(c);
    if !c_norm.is_finite() || a.iter().any(|v| !v.is_finite()) {
        return Err("ball quadratic: non-finite input".into());
    }
    if c_norm == 0.0 {
        return Ok(BallQuadraticSolution {
            point: vec![0.0; d],
            multiplier: 0.0,
        });
    }
    let interior = shifted_solve(a, c, 0.0);
    if let Some((w, _)) = &interior {
        if norm2(w) <= radius {
            return Ok(BallQuadraticSolution {
                point: w.clone(),
                multiplier: 0.0,
            });
        }
    }
    let (mut lo, mut hi) = (0.0_f64, c_norm / radius);
    // From the left of the root Newton on the concave phi is monotone.
    let mut mu = if interior.is_some() { 0.0 } else { hi };
    let mut last: Option<(Vec<f64>, f64)> = None;
    for _ in 0..MAX_ITER {
        let Some((w, factor)) = shifted_solve(a, c, mu) else {
            lo = lo.max(mu);
            mu = 0.5 * (lo + hi);
            continue;
        };
        let nw = norm2(&w);
        if nw > radius {
            lo = lo.max(mu);
        } else {
            hi = hi.min(mu);
        }
        let converged = (nw - radius).abs() <= 4.0 * f64::EPSILON * radius
            || hi - lo <= 4.0 * f64::EPSILON * hi;
        last = Some((w, mu));
        if converged {
            break;
        }
        let (w, _) = last.as_ref().expect("just set");
        let mut q = w.clone();
        forward_substitute_lower(&factor, &mut q);
        let ratio = nw * nw / dot(&q, &q);
        let candidate = mu + ratio * (nw - radius) / radius;
        mu = if candidate > lo && candidate < hi && candidate != mu {
            candidate
        } else {
            0.5 * (lo + hi)
        };
    }
    let Some((mut w, mu)) = last else {
        return Err("ball quadratic: A + mu I never positive definite".into());
    };
    let nw = norm2(&w);
    if (nw - radius).abs() > 1e-12 * radius {
        return Err(format!(
            "ball quadratic: secular equation unresolved (||w|| = {nw}, R = {radius}, mu = {mu}); \
             singular A with a non-unique minimizer?"
        ));
    }
    if nw > radius {
        w.iter_mut().for_each(|v| *v *= radius / nw);
    }
    Ok(BallQuadraticSolution {
        point: w,
        multiplier: mu,
    })
}
