//! The plan's work formulas of the Lowy–Razaviyayn entries (operations of one
//! run; see `contract::cost`). The exact-minimizer mechanisms keep the default
//! (one pass: a closed form or a certified L-BFGS / Newton solve of a few
//! passes, plus noise). The calibration absorbs constant factors.

use contract::{CostPoint, FamilyWork};

/// Katyusha and AGD take about `sqrt(kappa) log n` passes (docs/papers/
/// lowy_razaviyayn.md E1/E6: cost slope +1 in n up to a log), SGD and the
/// subgradient method `n^2` steps (cost slope +2 in n); the conceptual mode
/// solves exactly (`n d log n`).
fn inner_solver_work(v: &CostPoint, w: &FamilyWork, black_box: bool) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let nd = n * d;
    let log_n = n.max(2.0).log2();
    let kappa = v.num("kappa", 1.0).max(1.0);
    let ops = match (black_box, v.choice("inner")) {
        (false, _) => nd * log_n,
        (true, "sgd" | "subgradient") => n * n * d,
        (true, _) => nd * log_n * kappa.sqrt(),
    };
    (ops, 16.0 * d)
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
