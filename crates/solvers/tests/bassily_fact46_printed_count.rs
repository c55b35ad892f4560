//! Fact 4.6's printed inner count `ceil(8 M^2/xi^2)` (claim BFTT-F4.6), run
//! with the accuracy of every inner solve recorded against the exact prox.
//!
//! The harness runs the safe count `ceil(36 M^2/xi^2)` (digest P10: the
//! printed proof uses `2M` for the inner objective's Lipschitz constant and
//! drops the factor 2 of `||v - v*||^2 <= 2 (g - g*)`). Whether the printed
//! count is nevertheless enough is a question about the inner solver on its
//! hardest instance, so the first test runs it on the instance that attains
//! the first-order lower bound for 1-strongly convex problems: the record
//! loss `f(v) = L max_j v_j` at `w = 0`, with `beta = L/M` (Fact 4.6's
//! condition at equality, so the inner objective's nonsmooth part has the
//! largest gradient it may have, `L/beta = M`), in dimension `4 tau`. There
//! every coordinate ties, the subgradient oracle reveals one new coordinate
//! per call, and no method whose iterates lie in the span of the gradients
//! seen can be closer to the prox than `M sqrt((d - tau)/d^2)` after `tau`
//! calls (`0.43 M/sqrt(tau)` here). The second test runs the printed count on
//! the harness's own E3 instance (coordinate absolute deviation).
//!
//! What the tests can and cannot say: they look for a counterexample to the
//! printed count with the harness's solver (projected subgradient, steps
//! `2/(t+1)`, `t`-weighted average: `solvers::bassily::sgd::prox`) and find
//! none, so the printed statement is not refuted; they do not prove it for
//! every instance. They can fail: a count 16 times smaller misses `xi` on the
//! same instance (asserted below), and so would a solver that is worse.

mod bassily_sgd_common;

use bassily_sgd_common::{distance, e3_prox_setting};
use dpcore::{FiniteSum, Objective};
use solvers::bassily::sgd::prox::{InexactProx, ProxScratch};

/// One record with loss `f(v) = lipschitz * max_j v_j`; the subgradient is
/// `lipschitz * e_j` at the first maximising index (the resisting oracle of
/// the first-order lower bound: it reveals one coordinate at a time).
struct MaxLoss {
    lipschitz: f64,
}

impl FiniteSum for MaxLoss {
    fn record_gradient(&self, _i: usize, w: &[f64], out: &mut [f64]) {
        let j = w
            .iter()
            .enumerate()
            .fold(0, |best, (j, x)| if *x > w[best] { j } else { best });
        out.iter_mut().for_each(|o| *o = 0.0);
        out[j] = self.lipschitz;
    }
}

/// The exact prox of `gamma max_j v_j` at `w`: `v_j = min(w_j, t)` with
/// `sum_j (w_j - t)_+ = gamma` (water filling).
fn max_prox(w: &[f64], gamma: f64) -> Vec<f64> {
    let mut sorted = w.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut sum = 0.0;
    let mut level = f64::NAN;
    for k in 0..sorted.len() {
        sum += sorted[k];
        level = (sum - gamma) / (k + 1) as f64;
        if k + 1 == sorted.len() || level >= sorted[k + 1] {
            break;
        }
    }
    w.iter().map(|x| x.min(level)).collect()
}

/// Fact 4.6's printed count.
fn printed_count(radius: f64, accuracy: f64) -> u64 {
    (8.0 * radius * radius / (accuracy * accuracy)).ceil() as u64
}

/// `||v_bar - prox(w)||` after `tau` inner steps on the max loss at `w = 0`
/// in dimension `d`, with `M = L = beta = 1`.
fn max_loss_error(tau: u64, d: usize) -> f64 {
    let (lipschitz, beta) = (1.0, 1.0);
    let records = MaxLoss { lipschitz };
    let prox = InexactProx {
        records: &records,
        beta,
        lipschitz,
        iterations: tau,
    };
    let w = vec![0.0; d];
    let mut grad = vec![0.0; d];
    prox.envelope_gradient(0, &w, &mut grad, &mut ProxScratch::new(d));
    // envelope_gradient returns beta (w - v_bar).
    let v_bar: Vec<f64> = w.iter().zip(&grad).map(|(x, g)| x - g / beta).collect();
    distance(&v_bar, &max_prox(&w, lipschitz / beta))
}

#[test]
fn the_printed_inner_count_reaches_xi_on_the_first_order_lower_bound_instance() {
    let radius = 1.0;
    let mut worst: f64 = 0.0;
    for xi in [0.5, 0.2, 0.1, 0.05] {
        let tau = printed_count(radius, xi);
        let d = 4 * tau as usize;
        let err = max_loss_error(tau, d);
        // No span method does better than this after tau oracle calls.
        let floor = radius * ((d as f64 - tau as f64) / (d as f64).powi(2)).sqrt();
        assert!(
            err >= floor * (1.0 - 1e-9),
            "xi = {xi}: {err} below the lower bound {floor}"
        );
        assert!(err <= xi, "xi = {xi}, tau = {tau}, d = {d}: {err} > xi");
        worst = worst.max(err / xi);
    }
    // Measured 2026-11-30: 0.342 of xi at every xi (the lower bound's is 0.153).
    assert!(worst < 0.35, "largest error {worst} xi");
}

#[test]
fn a_count_sixteen_times_smaller_misses_xi_on_the_same_instance() {
    // The test above can fail: with tau/16 steps the same solver ends about
    // 1.5 xi from the prox (measured 1.33-1.53 xi at xi = 0.5, 0.2, 0.1).
    for xi in [0.5, 0.2, 0.1] {
        let tau = printed_count(1.0, xi);
        let err = max_loss_error(tau.div_ceil(16), 4 * tau as usize);
        assert!(err > xi, "xi = {xi}: {err} <= xi with tau/16 steps");
    }
}

#[test]
fn the_printed_inner_count_reaches_xi_on_the_harness_e3_instance() {
    // The bassily_sgd_moreau test's E3 setting, the plan's xi, the printed count.
    let (obj, plan) = e3_prox_setting();
    let (n, d) = (obj.num_records(), obj.dim());
    let beta = plan.envelope_smoothness.unwrap();
    let xi = plan.prox_accuracy.unwrap();
    let radius = obj.constants().radius;
    let printed = printed_count(radius, xi);
    assert!(printed < plan.inner_iterations.unwrap() / 4);
    let prox = InexactProx {
        records: &obj,
        beta,
        lipschitz: 1.0,
        iterations: printed,
    };
    let env = obj.envelope().unwrap();
    let mut scratch = ProxScratch::new(d);
    let (mut exact, mut approx) = (vec![0.0; d], vec![0.0; d]);
    let mut worst: f64 = 0.0;
    for k in 0..40 {
        let w = [0.9 * (k as f64 / 20.0 - 1.0), 0.025 * k as f64 - 0.4];
        for i in 0..n {
            env.record_envelope_gradient(i, beta, &w, &mut exact);
            prox.envelope_gradient(i, &w, &mut approx, &mut scratch);
            // Gradients differ by beta times the prox points' distance.
            let err = distance(&exact, &approx) / beta;
            assert!(err <= xi, "w = {w:?}, i = {i}: {err} > xi = {xi}");
            worst = worst.max(err / xi);
        }
    }
    // Measured 2026-11-30: at most 0.0074 xi on this instance.
    assert!(worst < 0.01, "largest error {worst} xi");
}
