//! How often an audit of the same size would flag the claim: a bootstrap of
//! one audit's runs.
//!
//! The power figures of [`crate::power`] are computed for a reference
//! release (a Gaussian or Laplace mechanism whose whole privacy loss shows
//! in the statistic). A real statistic can show much less: a clip, a
//! projection or a norm can hide most of the loss, and then an audit of the
//! same size flags far less often than the reference promises. The
//! bootstrap measures the audit on the statistic it actually has: each
//! replicate redraws, on each side, the selection half from the selection
//! runs and the estimation half from the estimation runs (with
//! replacement, the audit's own sizes), applies the estimator
//! the audit used, and asks whether the bound exceeds the claim.
//!
//! The estimator is the one chosen on the original runs: the Gaussian-DP
//! fit's atom check ([`crate::gdp::gaussian_fit_refusal`]) is not repeated
//! on the replicates, whose repeated draws are ties by construction.
//!
//! The bootstrap approximates the sampling distribution of the audit; it is
//! least accurate in the extreme tail, where the runs on `D'` hold only a
//! handful of values (the empirical tail has no mass past its largest
//! value). `tests/estimators.rs` compares its rate with the rate of
//! independent audits on a Gaussian, a clipped Gaussian and a Laplace
//! release.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use crate::assess::Method;
use crate::gdp::{gaussian_fit_refusal, gdp_audit};
use crate::threshold::audit;

/// How many of `replicates` bootstrap audits flagged the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reflag {
    /// Replicates whose bound exceeded the claim.
    pub flagged: usize,
    /// Replicates drawn.
    pub replicates: usize,
}

impl Reflag {
    /// The fraction of replicates that flagged.
    pub fn rate(&self) -> f64 {
        self.flagged as f64 / self.replicates.max(1) as f64
    }

    /// Whether at least 95% of the replicates flagged: the audit's size
    /// detects this release with probability about 0.95 or more.
    pub fn at_least_95(&self) -> bool {
        self.replicates > 0 && 100 * self.flagged >= 95 * self.replicates
    }
}

/// Bootstraps the audit of the runs `on_d`, `on_d_prime` (as
/// [`crate::assess::assess`] takes them) against `claimed_eps` at `delta`:
/// `replicates` resampled audits of the same sizes with the estimator the
/// original runs allow (`method`, or the threshold audit when the runs refuse
/// the Gaussian-DP fit), counting those whose bound exceeds the claim.
/// Deterministic in `seed`.
///
/// # Panics
/// If either side has fewer than 4 runs, a statistic is NaN, or
/// `Method::GaussianDp` is asked at `delta = 0`.
#[allow(clippy::too_many_arguments)]
pub fn reflag(
    on_d: &[f64],
    on_d_prime: &[f64],
    method: Method,
    claimed_eps: f64,
    delta: f64,
    alpha: f64,
    replicates: usize,
    seed: u64,
) -> Reflag {
    let runs = on_d.len().min(on_d_prime.len());
    assert!(
        runs >= 4,
        "an audit needs at least 4 runs a side, not {runs}"
    );
    let method = match method {
        Method::GaussianDp
            if gaussian_fit_refusal(&on_d[..runs], &on_d_prime[..runs]).is_some() =>
        {
            Method::Threshold
        }
        m => m,
    };
    let half = runs / 2;
    // Selection replicates are drawn from the selection half only and
    // estimation replicates from the estimation half only: drawn from one
    // pool, the two would share the sample's chance fluctuations, the
    // selected event would carry them into the estimate, and the rate would
    // be optimistic (on a Gaussian release at 1 000 estimation runs, 0.51
    // against 0.36 for independent audits of the Gaussian-DP fit).
    let sorted = |s: &[f64]| {
        let mut v = s.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    let (sel_d, sel_dp) = (sorted(&on_d[..half]), sorted(&on_d_prime[..half]));
    let (est_d, est_dp) = (sorted(&on_d[half..runs]), sorted(&on_d_prime[half..runs]));
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut counts = vec![0u32; runs];
    let mut flagged = 0;
    for _ in 0..replicates {
        let mut draw = |from: &[f64]| resample_sorted(from, from.len(), &mut counts, &mut rng);
        let (sel_d, sel_dp) = (draw(&sel_d), draw(&sel_dp));
        let (est_d, est_dp) = (draw(&est_d), draw(&est_dp));
        let eps_lower = match method {
            Method::GaussianDp => {
                gdp_audit((&sel_d, &sel_dp), (&est_d, &est_dp), delta, alpha).eps_lower
            }
            Method::Threshold => {
                audit((&sel_d, &sel_dp), (&est_d, &est_dp), delta, alpha).eps_lower
            }
        };
        if eps_lower > claimed_eps {
            flagged += 1;
        }
    }
    Reflag {
        flagged,
        replicates,
    }
}

/// `size` draws with replacement from the ascending `from`, returned in
/// ascending order (counting the drawn indices instead of sorting the draws:
/// the estimators sort their inputs, which is linear on sorted data).
fn resample_sorted(from: &[f64], size: usize, counts: &mut [u32], rng: &mut Pcg64) -> Vec<f64> {
    let counts = &mut counts[..from.len()];
    counts.fill(0);
    for _ in 0..size {
        counts[rng.random_range(0..from.len())] += 1;
    }
    let mut out = Vec::with_capacity(size);
    for (&x, &c) in from.iter().zip(counts.iter()) {
        out.extend(std::iter::repeat_n(x, c as usize));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resample_has_its_size_its_order_and_only_values_of_the_sample() {
        let from: Vec<f64> = (0..100).map(|i| i as f64 * 0.5).collect();
        let mut counts = vec![0u32; from.len()];
        let mut rng = Pcg64::seed_from_u64(7);
        let r = resample_sorted(&from, 60, &mut counts, &mut rng);
        assert_eq!(r.len(), 60);
        assert!(r.windows(2).all(|w| w[0] <= w[1]));
        assert!(r.iter().all(|x| from.contains(x)));
        // 60 draws from 100 values repeat one with probability 1 - 100!/(40! 100^60) > 0.99999.
        assert!(r.windows(2).any(|w| w[0] == w[1]));
    }

    #[test]
    fn disjoint_sides_always_reflag_and_identical_sides_never_do() {
        // D above every D' value: every replicate certifies the ceiling of
        // 500 estimation runs at alpha 0.1 (about ln(500 / ln 20) = 5.1).
        let d: Vec<f64> = (0..1000).map(|i| 10.0 + i as f64).collect();
        let dp: Vec<f64> = (0..1000).map(|i| -(i as f64)).collect();
        let r = reflag(&d, &dp, Method::Threshold, 2.0, 0.0, 0.1, 50, 1);
        assert_eq!(r.flagged, 50);
        assert!(r.at_least_95());
        // Both sides the same sample: a bound above eps = 1 needs counts e
        // times apart on the same values, which no replicate of 1 000 runs
        // reaches at alpha 0.1.
        let r = reflag(&d, &d, Method::Threshold, 1.0, 0.0, 0.1, 50, 1);
        assert_eq!(r.flagged, 0);
        assert!(!r.at_least_95());
    }
}
