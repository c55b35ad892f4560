//! The plan's work formulas of the Lowy–Razaviyayn entries (operations of one
//! run; see `contract::cost`). The exact-minimizer mechanisms keep the default
//! (one pass: a closed form or a certified L-BFGS / Newton solve of a few
//! passes, plus noise). The calibration absorbs constant factors.

use contract::{CostPoint, FamilyWork, Privacy};
use solvers::lowy_razaviyayn::prescriptions::privacy_scale;

/// Katyusha and AGD take about `sqrt(kappa) log n` passes (docs/papers/
/// lowy_razaviyayn.md E1/E6: cost slope +1 in n up to a log); SGD takes
/// `n^2` steps of `O(d)` (cost slope +2 in n); the full subgradient method
/// takes [`subgradient_iterations`] passes of `O(n d)`; the conceptual mode
/// solves exactly (`n d log n`).
fn inner_solver_work(v: &CostPoint, w: &FamilyWork, black_box: bool) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let nd = n * d;
    let log_n = n.max(2.0).log2();
    let kappa = v.num("kappa", 1.0).max(1.0);
    let ops = match (black_box, v.choice("inner")) {
        (false, _) => nd * log_n,
        (true, "sgd") => n * n * d,
        (true, "subgradient") => subgradient_iterations(v, n, d) * nd,
        (true, _) => nd * log_n * kappa.sqrt(),
    };
    (ops, 16.0 * d)
}

/// Full-gradient passes `T = 2 L^2/(mu alpha)` of Algorithm 1's subgradient
/// method at its prescribed accuracy (`solvers::lowy_razaviyayn::
/// prescriptions::accuracy`): Thm 3.1's `alpha = L^2/(mu n) min{1/n, s}` gives
/// `2 n max{n, 1/s}`; on the TERM families (a `tau` value) Thm 5.1's
/// `alpha = L^2 C_tau/(mu n) min{C_tau/n, s}` gives
/// `(2/C_tau) max{n^2/C_tau, n/s}`, `ln C_tau = tau (A_R - a_R)` with the
/// range `2 mu` (quadratic loss) or `mu/2 + 2` (non-smooth). `s = d/eps` for
/// pure DP, `sqrt(d) (c + sqrt(c^2 + eps))/eps` otherwise. Measured on the
/// sharp TERM study (8468 cells, 2026-11-29): the former `n^2 d` read 0.028
/// of its 3 943 core-seconds.
fn subgradient_iterations(v: &CostPoint, n: f64, d: f64) -> f64 {
    let s = match v.privacy {
        Privacy::Approx(p) => privacy_scale(d as usize, p).unwrap_or(d),
        Privacy::Zcdp(_) => d,
    };
    let tau = v.num("tau", 0.0);
    if tau > 0.0 {
        let mu = v.num("mu", 1.0);
        let range = if v.choice("loss") == "quadratic" {
            2.0 * mu
        } else {
            0.5 * mu + 2.0
        };
        // C_tau overflows for large tau; the cap keeps the estimate finite.
        let c_tau = (tau * range).min(700.0).exp();
        (2.0 / c_tau) * (n * n / c_tau).max(n / s)
    } else {
        2.0 * n * n.max(1.0 / s)
    }
    .max(1.0)
}

/// `op_black_box`: Algorithm 1 with its inner solver.
pub(crate) fn black_box(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    inner_solver_work(v, w, true)
}

/// `op_regularized`: exact (conceptual) or by the inner solver (black box).
pub(crate) fn regularized(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    inner_solver_work(v, w, v.choice("mode") == "black_box")
}

/// `adversarial_black_box`: certified gradient descent, about `(1/mu) log n`
/// passes.
pub(crate) fn adversarial(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let mu = v.num("mu", 0.1).max(1e-12);
    (w.n * w.d * w.n.max(2.0).log2() / mu, 16.0 * w.d)
}

/// \[ZZMW17\]: `T = ceil(kappa ln(...))` full gradients.
pub(crate) fn zzmw17(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let kappa = v.num("kappa", 1.0).max(1.0);
    (w.n * w.d * kappa * w.n.max(2.0).log2(), 16.0 * w.d)
}

/// \[BST14\]: `T = n^2` steps on Poisson batches of expected size `b`.
pub(crate) fn noisy_sgd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.n * v.num("expected_batch", 1.0) * w.d, 16.0 * w.d)
}

/// Noisy GD: one pass for the mean, then `T` closed-form gradients of `d`.
pub(crate) fn noisy_gd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.d + v.num("steps", 100.0) * w.d, 16.0 * w.d)
}
