//! Pearson chi-square goodness-of-fit helpers for discrete samplers.
//!
//! Included with `#[path = "common/chisq.rs"] mod chisq;` (the shared
//! `common/mod.rs` is left untouched). Cells are merged so that every
//! expected count is at least [`MIN_EXPECTED`]; the p-value is the upper tail
//! of statrs' `ChiSquared(cells - 1)` (no parameter is estimated).
#![allow(dead_code)]

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// Per-test false-alarm rate of every chi-square test.
pub const CHI2_ALPHA: f64 = 1e-4;

/// Minimum expected count per (merged) cell.
pub const MIN_EXPECTED: f64 = 10.0;

/// Result of a Pearson chi-square test.
#[derive(Debug, Clone, Copy)]
pub struct ChiSquare {
    /// `sum (O - E)^2 / E`.
    pub statistic: f64,
    /// Degrees of freedom (`cells - 1`).
    pub df: usize,
    /// `P(ChiSquared(df) >= statistic)`.
    pub p_value: f64,
}

/// Pearson statistic of `observed` counts against cell probabilities `probs`
/// (summing to 1 up to rounding). A cell with zero probability but a positive
/// count gives an infinite statistic (p-value 0).
pub fn pearson(observed: &[u64], probs: &[f64]) -> ChiSquare {
    assert_eq!(observed.len(), probs.len());
    let n: u64 = observed.iter().sum();
    let n = n as f64;
    let mut statistic = 0.0;
    for (&o, &p) in observed.iter().zip(probs) {
        let e = n * p;
        let o = o as f64;
        if e > 0.0 {
            statistic += (o - e) * (o - e) / e;
        } else if o > 0.0 {
            statistic = f64::INFINITY;
        }
    }
    let df = observed.len().saturating_sub(1);
    let p_value = if df == 0 {
        if statistic.is_finite() {
            1.0
        } else {
            0.0
        }
    } else if statistic.is_finite() {
        ChiSquared::new(df as f64).unwrap().sf(statistic)
    } else {
        0.0
    };
    ChiSquare {
        statistic,
        df,
        p_value,
    }
}

/// Merges adjacent cells (left to right) until each expected count
/// `n * p` is at least [`MIN_EXPECTED`]; a too-small remainder is merged into
/// the last full cell.
pub fn merge_cells(observed: &[u64], probs: &[f64]) -> (Vec<u64>, Vec<f64>) {
    let n: u64 = observed.iter().sum();
    let n = n as f64;
    let mut obs = Vec::new();
    let mut pr = Vec::new();
    let (mut o_acc, mut p_acc) = (0u64, 0.0f64);
    for (&o, &p) in observed.iter().zip(probs) {
        o_acc += o;
        p_acc += p;
        if n * p_acc >= MIN_EXPECTED {
            obs.push(o_acc);
            pr.push(p_acc);
            o_acc = 0;
            p_acc = 0.0;
        }
    }
    if o_acc > 0 || p_acc > 0.0 {
        if let (Some(lo), Some(lp)) = (obs.last_mut(), pr.last_mut()) {
            *lo += o_acc;
            *lp += p_acc;
        } else {
            obs.push(o_acc);
            pr.push(p_acc);
        }
    }
    (obs, pr)
}

/// Chi-square test of integer samples against a pmf on `{start, start+1, ...}`.
///
/// Cells are `{k}` for consecutive `k`, merged greedily so each expected count
/// is at least [`MIN_EXPECTED`]; the walk stops when the remaining mass
/// `1 - sum pmf` has expected count below `2 MIN_EXPECTED`, and that tail
/// `[k, inf)` is the last cell (merged into the previous one if it is too
/// small). Samples below `start` fall into a zero-probability cell and make
/// the test fail. `max_k` bounds the walk (a safety net for a wrong pmf).
pub fn discrete_chi_square(
    samples: &[u64],
    start: u64,
    pmf: impl Fn(u64) -> f64,
    max_k: u64,
) -> ChiSquare {
    let n = samples.len() as f64;
    // Cell j covers [lower[j], lower[j+1]); the last one is unbounded.
    let mut lower: Vec<u64> = Vec::new();
    let mut probs: Vec<f64> = Vec::new();
    let mut cum = 0.0f64;
    let mut cell_start = start;
    let mut cell_mass = 0.0f64;
    let mut k = start;
    loop {
        assert!(
            k <= max_k,
            "pmf walk passed max_k = {max_k} (cum = {cum}); wrong pmf?"
        );
        let p = pmf(k);
        cell_mass += p;
        cum += p;
        k += 1;
        if n * cell_mass >= MIN_EXPECTED {
            lower.push(cell_start);
            probs.push(cell_mass);
            cell_start = k;
            cell_mass = 0.0;
        }
        if n * (1.0 - cum) < 2.0 * MIN_EXPECTED {
            break;
        }
    }
    // The tail [cell_start, inf) carries everything not yet assigned.
    let tail = (1.0 - cum).max(0.0) + cell_mass;
    lower.push(cell_start);
    probs.push(tail);
    let mut observed = vec![0u64; lower.len()];
    let mut below = 0u64;
    for &x in samples {
        if x < start {
            below += 1;
            continue;
        }
        let j = lower.partition_point(|&l| l <= x) - 1;
        observed[j] += 1;
    }
    let (mut obs, mut pr) = merge_cells(&observed, &probs);
    obs.push(below);
    pr.push(0.0);
    if below == 0 {
        obs.pop();
        pr.pop();
    }
    pearson(&obs, &pr)
}

/// Chi-square test with explicit cells `[edges[j], edges[j+1])`, plus
/// `[0, edges[0])` and `[edges.last(), inf)`, whose probabilities come from
/// `cdf(k) = P(K <= k)`. Use when the support is too wide to walk.
pub fn interval_chi_square(samples: &[u64], edges: &[u64], cdf: impl Fn(u64) -> f64) -> ChiSquare {
    assert!(edges.windows(2).all(|w| w[0] < w[1]));
    let at = |e: u64| if e == 0 { 0.0 } else { cdf(e - 1) };
    let mut probs = vec![at(edges[0])];
    for w in edges.windows(2) {
        probs.push(at(w[1]) - at(w[0]));
    }
    probs.push(1.0 - at(*edges.last().unwrap()));
    let mut observed = vec![0u64; probs.len()];
    for &x in samples {
        observed[edges.partition_point(|&e| e <= x)] += 1;
    }
    let (obs, pr) = merge_cells(&observed, &probs);
    pearson(&obs, &pr)
}

/// Chi-square test of category labels `0..probs.len()` against `probs`.
pub fn categorical_chi_square(samples: &[usize], probs: &[f64]) -> ChiSquare {
    let mut observed = vec![0u64; probs.len()];
    for &x in samples {
        observed[x] += 1;
    }
    let (obs, pr) = merge_cells(&observed, probs);
    pearson(&obs, &pr)
}

/// Asserts that a chi-square test passes at [`CHI2_ALPHA`].
pub fn assert_chi_square(result: ChiSquare, what: &str) {
    assert!(
        result.p_value >= CHI2_ALPHA,
        "{what}: chi-square = {} on {} df, p = {:e} < alpha = {CHI2_ALPHA}",
        result.statistic,
        result.df,
        result.p_value
    );
}

/// Asserts that a chi-square test *rejects* at [`CHI2_ALPHA`] (power check).
pub fn assert_chi_square_rejects(result: ChiSquare, what: &str) {
    assert!(
        result.p_value < CHI2_ALPHA,
        "{what}: chi-square failed to reject, statistic = {} on {} df, p = {:e}",
        result.statistic,
        result.df,
        result.p_value
    );
}
