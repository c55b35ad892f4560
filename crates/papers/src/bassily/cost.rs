//! The plan's work formulas of the Bassily et al. entries (operations of one
//! run; see `contract::cost`). `erm` and `one_pass_sgd` keep the default (one
//! pass).

use contract::{CostPoint, FamilyWork};

/// Operations the RDP accountant's calibration of A_NSGD's noise multiplier
/// counts as (about 0.15 s at the calibrated 7e-9 s per operation).
const ACCOUNTANT_OPS: f64 = 2e7;

/// A_NSGD (Thm 3.2, `solvers::bassily::sgd::schedule`): `T = min(n/8,
/// (eps n)^2/(32 d Lambda))` steps on batches of `m = n sqrt(eps/(4T))`;
/// A_ProxGD computes each prox by an inner subgradient method (36x).
fn nsgd_work(v: &CostPoint, w: &FamilyWork, prox: bool) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let nd = n * d;
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let vectors = 16.0 * d;
    let steps = (n / 8.0)
        .min(eps * eps * n * n / (32.0 * d * lambda))
        .max(1.0);
    let batch = (n * (eps / (4.0 * steps)).sqrt()).clamp(1.0, n);
    let inner = if prox { 36.0 } else { 1.0 };
    // The RDP accountant bisects the noise multiplier over T compositions: a
    // fixed 0.15-0.2 s a cell, measured on the smallest Bassily cells
    // (n = 2000) and table 1's eps-sweep.
    let accountant = if v.choice("calibration") == "paper" {
        0.0
    } else {
        ACCOUNTANT_OPS
    };
    (steps * batch * d * inner + nd + accountant, vectors + batch)
}

/// `nsgd` and `nsgd_moreau`.
pub(crate) fn nsgd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    nsgd_work(v, w, false)
}

/// `prox_gd`.
pub(crate) fn prox_gd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    nsgd_work(v, w, true)
}

/// `objp`: an exact (Newton) solve with a `d x d` Hessian.
pub(crate) fn objp(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let d = w.d;
    (w.n * d * w.n.max(2.0).log2() + d * d * d, 16.0 * d + d * d)
}

/// `objp_app`: certified SVRG.
pub(crate) fn objp_app(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.d * w.n.max(2.0).log2() * 4.0, 16.0 * w.d)
}

/// `theory_curve`: a formula, no data pass.
pub(crate) fn theory_curve(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (1.0, 16.0 * w.d)
}

/// `svrg_theorem58`: `epochs` SVRG epochs of `n + 2k` gradient evaluations
/// each (`k = ceil(20 beta_f/mu_f)` grows like `beta/lambda ~ eps n`, so an
/// epoch is about `3n` evaluations), plus the exact minimizer (a `d x d`
/// solve).
pub(crate) fn svrg_theorem58(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let epochs = v.num("epochs", 1.0).max(1.0);
    (
        epochs * 3.0 * w.n * w.d + w.d * w.d * w.d,
        16.0 * w.d + w.d * w.d,
    )
}
