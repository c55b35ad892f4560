//! The plan's work formulas of the Wang–Zhu–Wang entries (see
//! `contract::cost`).
//!
//! For every gamma of the grid {1/n, 2/n, 4/n, ..., 1} a Rademacher JL map to
//! `k_gamma = min(d, C_JL ln(|Gamma|(n+1)(n+2)/beta)/gamma^2)` (`n d k` to
//! project, identity when `k = d`) and `T` NGD steps of `n k` each, with `T =
//! n^2 mu_p^2` (`paper`) or `n^2 mu_p^2 / k` (`fast`), `mu_p =
//! mu/sqrt(2|Gamma|)`, `mu = eps/(2 sqrt(2 ln(1/delta)))` and `beta = 1/n^2`
//! (`solvers::wang`).

use contract::{CostPoint, FamilyWork};

/// Which Wang algorithm the formula prices.
#[derive(Clone, Copy, PartialEq)]
enum Method {
    MStar,
    MPrime,
    OracleJlgd,
    FullDimension,
    JlMarginCheck,
}

/// What one signed add of the Rademacher projection (`n d k` of them) costs
/// against one operation of an NGD step (`n k` a step: the row's dot
/// product, its clip and its share of the update). It was 0.23, fitted on
/// the oracle JLGD cells of E6 (d = 2000, n = 1024 to 8192, 2026-11-30),
/// before four data rows shared each sign lookup (`solvers::wang::jl`,
/// 2026-12-02). Now a signed add takes about 3.5e-11 s (65% of the
/// `wzw_mstar_d` cells at d = 3 162, 8.3e9 adds a cell) and an NGD
/// operation about 9.5e-10 s (E6's oracle cells at n = 8192, 6e9 NGD
/// operations and 1e10 adds in 6.0 s): 0.035 (Intel VM, dev profile). With
/// it, one constant per algorithm puts table 1's `wzw_mstar_d` and E6's
/// M* study within 10% of their measured core-seconds (0.23 put them at
/// 2.1 and 0.8 times).
const PROJECTION_WEIGHT: f64 = 0.035;

fn work(method: Method, v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let grid = n.max(1.0).log2().floor() + 1.0;
    // |Theta| = grid_copies |Gamma| (M* and M' only; 1 for the others).
    let copies = v.num("grid_copies", 1.0);
    let theta = grid * copies;
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let mu = eps / (2.0 * (2.0 * lambda).sqrt());
    let mu_p = mu / (2.0 * theta).sqrt();
    let c_jl = v.num("jl_constant", 1.0);
    let log_term = (theta * (n + 1.0) * (n + 2.0) * n * n).ln();
    let fast = v.choice("mode") == "fast";
    let full_dimension = method == Method::FullDimension;
    let k_of = |gamma: f64| {
        if full_dimension {
            d
        } else {
            (c_jl * log_term / (gamma * gamma)).ceil().clamp(1.0, d)
        }
    };
    // Projecting the n rows to k, weighted (identity maps project nothing).
    let project = |k: f64| {
        if k < d {
            PROJECTION_WEIGHT * n * d * k
        } else {
            0.0
        }
    };
    // A run's NGD steps at k.
    let descend = |k: f64, mu_run: f64| {
        let steps = (n * n * mu_run * mu_run / if fast { k } else { 1.0 }).max(1.0);
        steps * n * k
    };
    let candidate = |gamma: f64, mu_run: f64| -> (f64, f64) {
        let k = k_of(gamma);
        // Projected rows (n k numbers) and the sign matrix, one bit per entry.
        (project(k) + descend(k, mu_run), n * k + k * d / 64.0)
    };
    let gammas: Vec<f64> = (0..grid as usize)
        .map(|i| (2f64.powi(i as i32) / n).min(1.0))
        .collect();
    let over_grid = |mu_run: f64| {
        gammas
            .iter()
            .fold((0.0, 0.0), |(ops, mem): (f64, f64), &g| {
                let (o, m) = candidate(g, mu_run);
                (ops + o, mem.max(m))
            })
    };
    let planted = v.num("gamma", 0.5);
    let (ops, mem) = match method {
        Method::OracleJlgd => {
            let mu_run = if v.choice("budget") == "per_call" {
                mu_p
            } else {
                mu
            };
            candidate(planted, mu_run)
        }
        Method::FullDimension if v.choice("tuning") == "known" => candidate(planted, mu),
        // One JL map at the planted margin, no descent.
        Method::JlMarginCheck => {
            let k = k_of(planted);
            (n * d * k, n * k + k * d / 64.0)
        }
        // Random stopping: expected K = min(|Gamma| n^2 / r_factor, max_runs)
        // runs, each one candidate at a uniform gamma: its NGD steps, its
        // score (a pass over the n projected rows) and its back-projection
        // (d k). Each grid point's clipped projection (n d k to project, n d
        // and n k for the row norms) is computed once, at its first run
        // (`solvers::wang::privtune`); the formula charges it to every grid
        // point. With one NGD step a run (t71-gridsize: n = 128, d = k = 20)
        // the score is half of a run, which the steps alone did not count.
        Method::MPrime => {
            let runs = (theta * n * n / v.num("r_factor", 1.0)).min(v.num("max_runs", 1e6));
            let per_run = gammas.iter().fold(0.0, |acc, &g| {
                let k = k_of(g);
                acc + descend(k, mu_p) + n * k + d * k
            }) / grid;
            let once = gammas.iter().fold(0.0, |acc, &g| {
                let k = k_of(g);
                acc + project(k) + n * d + n * k
            }) * copies;
            let (_, mem) = over_grid(mu_p);
            // The cached projections: at most one n x k copy per grid point.
            (runs * per_run + once, mem * (1.0 + grid * copies))
        }
        Method::MStar => {
            let (ops, mem) = over_grid(mu_p);
            (ops * copies, mem)
        }
        Method::FullDimension => over_grid(mu_p),
    };
    (ops, mem + n * d + 16.0 * d)
}

/// `wang_m_star`.
pub(crate) fn m_star(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    work(Method::MStar, v, w)
}

/// `wang_m_prime`.
pub(crate) fn m_prime(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    work(Method::MPrime, v, w)
}

/// `wang_oracle_jlgd`.
pub(crate) fn oracle_jlgd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    work(Method::OracleJlgd, v, w)
}

/// `wang_full_dim_dpgd`.
pub(crate) fn full_dimension(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    work(Method::FullDimension, v, w)
}

/// `wang_jl_margin_check`.
pub(crate) fn jl_margin_check(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    work(Method::JlMarginCheck, v, w)
}

/// `wang_hard_margin_svm`: a certified min-norm point, about `sqrt(n)` passes.
pub(crate) fn hard_margin_svm(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let nd = w.n * w.d;
    (nd * w.n.sqrt(), 16.0 * w.d + nd)
}
