//! Certified ground truth of the logistic (digest §8 E1b), tilted-ERM (§5.1,
//! §8 E6) and adversarial (§8 E7) families: the damped Newton driver, and
//! `certify_minimizer`, which picks Newton or L-BFGS ([`crate::lbfgs`]) by
//! cost ([`newton_is_cheaper`]) under the same certificate. The
//! stable scalar helpers and compensated accumulators they share live in
//! [`crate::numerics`], the dense lower-triangle kernels in [`crate::linalg`];
//! both are re-exported here.
//!
//! The certificate is the gradient norm: for a `mu`-strongly convex `F`,
//! `||w - w*|| <= ||grad F(w)|| / mu` and `F(w) - F* <= ||grad F(w)||^2 / (2 mu)`
//! (digest P1(b), P15). The Hessian closure may be inexact (e.g. subsampled):
//! it only shapes the search direction, never the certificate.

use crate::linalg::cholesky_solve;
use dpcore::Objective;

use crate::certified::{finish_on_stall, BestPoint};
pub use crate::certified::{CertifiedSolution, NewtonOptions, GROUND_TRUTH, STALL_PATIENCE};
pub use crate::linalg::{add_outer_lower, symmetrize_lower};
pub use crate::numerics::{
    difference_and_sum, dist, dot, norm2, sigmoid, softplus, softplus_diff, CompensatedSum,
    CompensatedVec,
};

/// The earlier name of [`CertifiedSolution`], kept for callers of [`newton_minimize`].
pub type NewtonSolution = CertifiedSolution;

/// Hessian budget, in gradient passes, up to which `certify_minimizer` uses
/// damped Newton rather than L-BFGS ([`newton_is_cheaper`]). Measured by
/// `examples/certified_crossover.rs` on the logistic family on one thread
/// (2026-11-26; n = 1e4, 1e5, mu = 0.1, 0.01, to the 1e-13 certificate):
/// where a Hessian costs 1.5 to 2.5 passes (d = 2, 4) Newton took 0.82 to
/// 1.41 (median 0.89) times L-BFGS's time, at 4.5 passes (d = 8) 1.01 to
/// 1.24 times; from 6.5 passes (d >= 12) L-BFGS was faster in 20 of 24
/// settings, 3.8 to 5.4 times faster at d = 64, 100 and n = 1e5.
pub const NEWTON_HESSIAN_BUDGET: f64 = 4.0;

/// L-BFGS's iteration cap in `certify_minimizer_fused`, per Newton
/// iteration allowed by the stopping rule: its rate is linear in the
/// condition number where Newton's is quadratic (a condition number of at
/// least 2.0e5 took 4 350 iterations to 1e-13 in `tests/certified_solver.rs`),
/// and an iteration costs one pass, not a Hessian: 50 x the 200 Newton
/// iterations of [`GROUND_TRUTH`].
pub const LBFGS_ITERATIONS_PER_NEWTON: usize = 50;

/// Whether one damped Newton step, a Hessian of `hessian_rows` rows
/// (`m d (d + 1) / 2` multiply-adds) and its Cholesky factorisation
/// (`d^3 / 6`), costs at most [`NEWTON_HESSIAN_BUDGET`] gradient passes
/// (`n d` each). Newton then wins by needing fewer iterations; beyond it,
/// L-BFGS reaches the same certificate for less work.
pub fn newton_is_cheaper(num_records: usize, hessian_rows: usize, d: usize) -> bool {
    let (n, m, d) = (num_records as f64, hessian_rows as f64, d as f64);
    let hessian = m * d * (d + 1.0) / 2.0 + d * d * d / 6.0;
    hessian <= NEWTON_HESSIAN_BUDGET * n * d
}

/// The certified ground truth of a family, stopped by the [`GROUND_TRUTH`]
/// rule on `problem`'s own value and gradient: damped Newton
/// ([`newton_minimize`]) where [`newton_is_cheaper`], else L-BFGS
/// ([`crate::lbfgs::lbfgs_minimize`], first step scaled by `1 / smoothness`),
/// falling back to Newton from L-BFGS's best point if L-BFGS does not reach
/// the certificate. `hessian` (over `hessian_rows` records) only shapes
/// Newton's search direction, never the certificate.
///
/// # Errors
/// As [`newton_minimize`].
pub(crate) fn certify_minimizer<F, H>(
    problem: &F,
    start: Vec<f64>,
    hessian_rows: usize,
    hessian: H,
) -> Result<CertifiedSolution, String>
where
    F: Objective + ?Sized,
    H: Fn(&[f64], &mut [f64]),
{
    let value_and_gradient = |w: &[f64], g: &mut [f64]| {
        problem.gradient(w, g);
        problem.value(w)
    };
    certify_minimizer_fused(
        problem,
        start,
        &GROUND_TRUTH,
        hessian_rows,
        hessian,
        value_and_gradient,
    )
}

/// `certify_minimizer` with stopping rule `opts` and the caller's fused
/// `value_and_gradient` pass for L-BFGS (it must agree with `problem`'s value
/// and gradient: the certificate is the gradient norm it returns).
///
/// # Errors
/// As [`newton_minimize`].
pub(crate) fn certify_minimizer_fused<F, H, FG>(
    problem: &F,
    start: Vec<f64>,
    opts: &NewtonOptions,
    hessian_rows: usize,
    hessian: H,
    value_and_gradient: FG,
) -> Result<CertifiedSolution, String>
where
    F: Objective + ?Sized,
    H: Fn(&[f64], &mut [f64]),
    FG: FnMut(&[f64], &mut [f64]) -> f64,
{
    let (n, d) = (problem.num_records(), problem.dim());
    let newton = |start| {
        newton_minimize(
            start,
            opts,
            |w| problem.value(w),
            |w, g| problem.gradient(w, g),
            &hessian,
        )
    };
    if newton_is_cheaper(n, hessian_rows, d) {
        return newton(start);
    }
    let lbfgs_opts = NewtonOptions {
        max_iter: opts.max_iter.saturating_mul(LBFGS_ITERATIONS_PER_NEWTON),
        ..*opts
    };
    let run = crate::lbfgs::lbfgs_minimize(
        start,
        &lbfgs_opts,
        1.0 / problem.constants().smoothness,
        value_and_gradient,
    );
    match run.failure {
        None => Ok(run.best),
        Some(why) => newton(run.best.point).map_err(|e| format!("{why}; then {e}")),
    }
}

/// Damped Newton with Armijo backtracking: `p = -H^{-1} g` by Cholesky
/// ([`cholesky_solve`]), step `t` halved from 1 until
/// `F(w + t p) <= F(w) + 1e-4 t g.p + slack`, where the slack `4 eps (1 + |F(w)|)`
/// lets the iteration continue once `F` differences reach rounding level
/// (the gradient norm, not `F`, certifies the result).
///
/// `hessian(w, h)` writes the row-major `d x d` Hessian (only the lower
/// triangle and diagonal are read) and may be inexact; `gradient(w, g)` must
/// be accurate, since its norm is the certificate.
///
/// # Errors
/// Non-finite values, a Hessian that is not positive definite, or failure to
/// reach `tol` (or `floor_tol` on a stall) within `max_iter` iterations.
pub fn newton_minimize<V, G, H>(
    start: Vec<f64>,
    opts: &NewtonOptions,
    value: V,
    gradient: G,
    hessian: H,
) -> Result<NewtonSolution, String>
where
    V: Fn(&[f64]) -> f64,
    G: Fn(&[f64], &mut [f64]),
    H: Fn(&[f64], &mut [f64]),
{
    let d = start.len();
    let mut w = start;
    let mut g = vec![0.0; d];
    let mut f = value(&w);
    gradient(&w, &mut g);
    let mut gn = norm2(&g);
    if !f.is_finite() || !gn.is_finite() {
        return Err(format!("newton: non-finite start (F = {f}, |g| = {gn})"));
    }
    let mut track = BestPoint::new(&w, gn);
    let mut h = vec![0.0; d * d];
    let mut trial = vec![0.0; d];
    for it in 1..=opts.max_iter {
        if track.best.grad_norm <= opts.tol {
            return Ok(track.best);
        }
        hessian(&w, &mut h);
        let mut p: Vec<f64> = g.iter().map(|v| -v).collect();
        cholesky_solve(&mut h, &mut p)
            .map_err(|e| format!("newton: Hessian at iteration {it}: {e}"))?;
        let slope: f64 = g.iter().zip(&p).map(|(a, b)| a * b).sum();
        let slack = 4.0 * f64::EPSILON * (1.0 + f.abs());
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            for ((tr, wj), pj) in trial.iter_mut().zip(&w).zip(&p) {
                *tr = wj + t * pj;
            }
            let ft = value(&trial);
            if ft.is_finite() && ft <= f + 1e-4 * t * slope + slack {
                accepted = Some(ft);
                break;
            }
            t *= 0.5;
        }
        let Some(ft) = accepted else {
            return finish_on_stall(track.best, opts, "no acceptable step");
        };
        std::mem::swap(&mut w, &mut trial);
        f = ft;
        gradient(&w, &mut g);
        gn = norm2(&g);
        if !gn.is_finite() {
            return Err(format!("newton: non-finite gradient at iteration {it}"));
        }
        if track.observe(&w, gn, it, false) >= STALL_PATIENCE {
            return finish_on_stall(track.best, opts, "gradient norm stalled");
        }
    }
    if track.best.grad_norm <= opts.tol {
        return Ok(track.best);
    }
    finish_on_stall(track.best, opts, "iteration cap reached")
}
