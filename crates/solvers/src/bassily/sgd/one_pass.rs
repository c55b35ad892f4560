//! One-pass projected SGD, the non-private reference of Bassily et al.
//! (digest §6 E1, "non-private references").
//!
//! `n` steps, record `t` at step `t` (in order, each used once):
//! `w_t = Pi_{B(0,M)}(w_{t-1} - eta g_t)`, `g_t` a (sub)gradient of record
//! `t`'s loss at `w_{t-1}`, `eta = M/(L sqrt n)`, `w_0 = 0`. Output
//! `w_bar = (1/n) sum_{t=0}^{n-1} w_t` (the points where gradients are taken).
//!
//! # Bound (proved here)
//! Online projected gradient descent has regret
//! `sum_t <g_t, w_{t-1} - w*> <= ||w_0 - w*||^2/(2 eta) + (eta/2) sum_t ||g_t||^2
//! <= M^2/(2 eta) + eta n L^2/2` against any `w*` in `B(0, M)`. Since `w_{t-1}`
//! depends on records `1..t-1` only, `E[l(w_{t-1}, z_t) - l(w*, z_t)] =
//! E[L(w_{t-1}) - L(w*)]` (population loss) and convexity bounds it by
//! `E<g_t, w_{t-1} - w*>`; Jensen on the average gives
//! `E[L(w_bar)] - min L <= M^2/(2 eta n) + eta L^2/2 = M L/sqrt(n)` for this
//! `eta` ([`one_pass_sgd_bound`]).

use crate::inner::project_ball;
use dpcore::{Objective, RunFailure};

/// The bound `E[L(w_bar)] - min_W L <= M L/sqrt(n)` of one-pass SGD (module doc).
pub fn one_pass_sgd_bound(radius: f64, lipschitz: f64, n: usize) -> f64 {
    radius * lipschitz / (n as f64).sqrt()
}

/// Runs one-pass projected SGD on `problem`'s records in order (module doc).
/// Deterministic given the data.
///
/// Errors: `InvalidParameters` without a `finite_sum`, for `n = 0` or
/// non-positive `L`, `M`; `NonFinite` for a non-finite output.
pub fn one_pass_sgd(problem: &dyn Objective) -> Result<Vec<f64>, RunFailure> {
    let records = problem.finite_sum().ok_or_else(|| {
        RunFailure::InvalidParameters("one-pass SGD needs a finite-sum objective".into())
    })?;
    let c = problem.constants();
    let (n, d) = (problem.num_records(), problem.dim());
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if n == 0 || !ok(c.lipschitz) || !ok(c.radius) {
        return Err(RunFailure::InvalidParameters(format!(
            "one-pass SGD needs n >= 1 and finite L, M > 0, got n = {n}, {c:?}"
        )));
    }
    let eta = c.radius / (c.lipschitz * (n as f64).sqrt());
    let (mut w, mut avg, mut g) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    for t in 0..n {
        // w = w_t enters the average before the step that uses record t.
        let mix = 1.0 / (t + 1) as f64;
        avg.iter_mut()
            .zip(&w)
            .for_each(|(a, wj)| *a += mix * (wj - *a));
        records.record_gradient(t, &w, &mut g);
        w.iter_mut().zip(&g).for_each(|(wj, gj)| *wj -= eta * gj);
        project_ball(&mut w, c.radius);
    }
    if avg.iter().any(|v| !v.is_finite()) {
        return Err(RunFailure::NonFinite(
            "one-pass SGD output is not finite".into(),
        ));
    }
    Ok(avg)
}
