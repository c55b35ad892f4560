//! Algorithm 2 of Lowy–Razaviyayn (digest §3, Algorithm 2): the projected
//! (stochastic) subgradient method with steps `eta_{t-1} = 2/(m t)` and the
//! weighted average `sum_t 2t/(T(T+1)) w_t` (\[Bub15, Thm 6.2\]; proof C.1.3),
//! run on `F_lambda` with `m = mu + lambda` and Lipschitz constant
//! `L_lambda = L + lambda R` (Section C.2).

use super::regularized::{check_finite, project_ball, Regularized};
use super::{Certificate, SolverOutput};
use dpcore::RunFailure;
use rand::{Rng, RngExt};

/// Largest iteration count the subgradient methods accept; beyond it the
/// target `alpha` is unreachable in practice (digest P19).
pub const MAX_ITERATIONS: u64 = 5_000_000_000;

/// `T = ceil(2 L_lambda^2 / (m alpha))` (at least 1), the count that makes the
/// Algorithm 2 bound `2 L_lambda^2 / (m (T+1))` at most `alpha` (digest
/// Algorithm 2, §3.8, P9: computed from the solver's own guarantee).
///
/// Errors: `InvalidParameters` from [`Regularized::check_target`], or when
/// `T > MAX_ITERATIONS`.
pub fn iteration_count(reg: &Regularized<'_>, alpha: f64) -> Result<u64, RunFailure> {
    reg.check_target(alpha)?;
    let lip = reg.lipschitz();
    let t = steps_for_accuracy(lip, reg.strong_convexity(), alpha).ceil();
    if t.is_nan() || t > MAX_ITERATIONS as f64 {
        return Err(RunFailure::InvalidParameters(format!(
            "the subgradient method needs T = ceil(2 L^2/(m alpha)) = {t:e} iterations \
             (L = {lip}, m = {}, alpha = {alpha}), more than the cap {MAX_ITERATIONS}",
            reg.strong_convexity()
        )));
    }
    Ok((t as u64).max(1))
}

/// `2 L^2 / (m alpha)`, the (unrounded) step count at which Algorithm 2's
/// bound reaches `alpha` for Lipschitz constant `L` and modulus `m`:
/// [`iteration_count`] rounds it up; the cost model prices a run with it
/// from public constants, without building the problem.
pub fn steps_for_accuracy(lipschitz: f64, modulus: f64, alpha: f64) -> f64 {
    2.0 * lipschitz * lipschitz / (modulus * alpha)
}

/// The Algorithm 2 bound `2 L_lambda^2 / (m (T+1))` after `T` iterations.
pub fn accuracy_bound(reg: &Regularized<'_>, iterations: u64) -> f64 {
    let lip = reg.lipschitz();
    2.0 * lip * lip / (reg.strong_convexity() * (iterations as f64 + 1.0))
}

/// Algorithm 2 on `F_lambda`: `w_0 = 0`; for `t = 1..T` draw `i ~ Unif[n]` with
/// replacement and set `w_t = Pi_{B(0,R)}[w_{t-1} - 2/(m t) (grad f_i(w_{t-1}) +
/// lambda w_{t-1})]`; return `sum_t 2t/(T(T+1)) w_t`.
///
/// `T` from [`iteration_count`]; certificate `InExpectation(2 L_lambda^2/(m(T+1)))`
/// (only in expectation, digest P1); `T` gradient evaluations.
/// Errors: `InvalidParameters` without a per-record oracle or as in
/// [`iteration_count`]; `NonFinite` if the output is not finite.
pub fn sgd<R: Rng + ?Sized>(
    reg: &Regularized<'_>,
    alpha: f64,
    rng: &mut R,
) -> Result<SolverOutput, RunFailure> {
    let records = reg.finite_sum().ok_or_else(|| {
        RunFailure::InvalidParameters(
            "SGD (Algorithm 2) needs a per-record oracle (finite_sum)".into(),
        )
    })?;
    let t = iteration_count(reg, alpha)?;
    let n = reg.num_records();
    let w = weighted_subgradient_method(reg, t, |w, g| {
        let i = rng.random_range(0..n);
        records.record_gradient(i, w, g);
    });
    check_finite(&w, "SGD")?;
    Ok(SolverOutput {
        w,
        gradient_evaluations: t,
        iterations: t,
        certificate: Certificate::InExpectation(accuracy_bound(reg, t)),
    })
}

/// Algorithm 2 with the full subgradient of `F_lambda` in place of the sampled
/// one: the same `T` and the same bound, now deterministic (digest Algorithm 2
/// and P1 (a)); `T n` gradient evaluations. Works without a per-record oracle.
///
/// Errors: as [`iteration_count`]; `NonFinite` if the output is not finite.
pub fn subgradient(reg: &Regularized<'_>, alpha: f64) -> Result<SolverOutput, RunFailure> {
    let t = iteration_count(reg, alpha)?;
    let w = weighted_subgradient_method(reg, t, |w, g| reg.gradient(w, g));
    check_finite(&w, "subgradient method")?;
    Ok(SolverOutput {
        w,
        gradient_evaluations: t.saturating_mul(reg.num_records() as u64),
        iterations: t,
        certificate: Certificate::Deterministic(accuracy_bound(reg, t)),
    })
}

/// The Algorithm 2 recursion with (sub)gradient oracle `grad(w, out)`, returning
/// the weighted average `sum_t 2t/(T(T+1)) w_t`, accumulated stably as the
/// running average `a_t = a_{t-1} + 2/(t+1) (w_t - a_{t-1})` (which gives
/// `w_s` the weight `2s/(t(t+1))` after step `t`).
fn weighted_subgradient_method<G: FnMut(&[f64], &mut [f64])>(
    reg: &Regularized<'_>,
    iterations: u64,
    mut grad: G,
) -> Vec<f64> {
    let d = reg.dim();
    let m = reg.strong_convexity();
    let radius = reg.radius();
    let mut w = vec![0.0; d];
    let mut g = vec![0.0; d];
    let mut avg = vec![0.0; d];
    for t in 1..=iterations {
        grad(&w, &mut g);
        let eta = 2.0 / (m * t as f64);
        for (wj, gj) in w.iter_mut().zip(&g) {
            *wj -= eta * gj;
        }
        project_ball(&mut w, radius);
        let weight = 2.0 / (t as f64 + 1.0);
        for (aj, wj) in avg.iter_mut().zip(&w) {
            *aj += weight * (wj - *aj);
        }
    }
    avg
}
