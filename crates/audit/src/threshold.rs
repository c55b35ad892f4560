//! The threshold audit: an event chosen on selection runs, its `eps` lower
//! bound evaluated on independent estimation runs.

use crate::clopper_pearson::ClopperPearson;
use mechanisms::normal::normal_cdf;

/// Which tail of the statistic the event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// `{s >= t}`.
    Upper,
    /// `{s <= t}`.
    Lower,
}

/// The event an audit tests: `{s >= t}` or `{s <= t}`, and which data set
/// it should be more likely under (`swapped = false`: `D`, the first one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// Tail of the statistic.
    pub tail: Tail,
    /// Threshold `t`.
    pub threshold: f64,
    /// `false`: `P[M(D) in S] <= e^eps P[M(D') in S] + delta` is tested;
    /// `true`: the same with `D` and `D'` exchanged (the relation is
    /// symmetric, so both directions must hold).
    pub swapped: bool,
    /// Values within `tolerance` of the threshold count as equal to it
    /// ([`near_tie_tolerance`]): the event is `{s >= t - tolerance}` or
    /// `{s <= t + tolerance}`.
    pub tolerance: f64,
}

/// Relative width under which two values of a statistic are one value.
///
/// A statistic that takes a few exact values (a transcript's log likelihood
/// ratio is a sum of a few per-draw terms, so it has atoms) is computed by
/// each side in its own floating-point order, so one atom arrives as values
/// a few ulps apart, systematically higher on one side: on González et al.'s
/// Algorithm 1 transcript row the atom 0.2021476759839634 arrived as
/// ...6340964, ...6343740, ...6346515 from `D` and ...6357617, ...6360393,
/// ...6365944 from `D'` (2e6 runs a side). A threshold between them splits
/// one event by side and reads a violation that no mechanism has (eps_lb
/// above 1 on a pair whose atoms' frequencies follow the exact likelihood
/// ratio). Rounding differences are about 1e-16 relative, long sums with
/// cancellation perhaps 1e-13; 1e-9 leaves six orders of margin and merges
/// only values that no threshold should separate.
pub const NEAR_TIE_RELATIVE: f64 = 1e-9;

/// [`NEAR_TIE_RELATIVE`] times the largest magnitude of the ascending
/// `sorted` values (0 for an empty slice).
pub fn near_tie_tolerance(sorted: &[f64]) -> f64 {
    match (sorted.first(), sorted.last()) {
        (Some(a), Some(b)) => NEAR_TIE_RELATIVE * a.abs().max(b.abs()),
        _ => 0.0,
    }
}

impl Event {
    /// How many of the ascending-sorted `samples` fall in the event.
    pub(crate) fn hits(&self, sorted: &[f64]) -> usize {
        let t = self.threshold;
        let tol = self.tolerance;
        match self.tail {
            Tail::Upper => sorted.len() - sorted.partition_point(|&x| x < t - tol),
            Tail::Lower => sorted.partition_point(|&x| x <= t + tol),
        }
    }

    /// `(hits under the favoured data set, hits under the other)`.
    pub(crate) fn counts(&self, d: &[f64], d_prime: &[f64]) -> (usize, usize) {
        let (a, b) = (self.hits(d), self.hits(d_prime));
        if self.swapped {
            (b, a)
        } else {
            (a, b)
        }
    }
}

/// One audit's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Audit {
    /// Lower confidence bound on `eps` at the audit's `delta`, holding with
    /// probability at least `1 - alpha`; `-inf` when the favoured
    /// probability's lower bound does not exceed `delta`.
    pub eps_lower: f64,
    /// The event, chosen on the selection runs.
    pub event: Event,
    /// Hits on the estimation runs: `(favoured data set, the other)`.
    pub counts: (usize, usize),
    /// Estimation runs per data set.
    pub runs: usize,
    /// False-alarm rate: the probability that `eps_lower` exceeds the `eps`
    /// of a mechanism that is `(eps, delta)`-DP.
    pub alpha: f64,
}

/// `ln((p_lo(a) - delta) / p_hi(b))` with both bounds at level `alpha / 2`.
fn bound(cp: &ClopperPearson, (a, b): (usize, usize), delta: f64, alpha: f64) -> f64 {
    let p_lo = cp.lower(a, alpha / 2.0);
    let p_hi = cp.upper(b, alpha / 2.0);
    if p_lo > delta {
        ((p_lo - delta) / p_hi).ln()
    } else {
        f64::NEG_INFINITY
    }
}

/// The standard normal quantile at `1 - a/2` (bisection on the CDF).
pub(crate) fn two_sided_z(a: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 40.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if normal_cdf(-mid) > a / 2.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Factor on the Wilson quantile of the selection scores (threshold audit
/// and Gaussian-DP fit). The event is chosen on the selection runs and
/// bounded on the estimation runs, so a selection score at the estimation's
/// own quantile favours events whose selection counts were lucky (a handful
/// of hits in an extreme tail): the winner's curse, which the estimation
/// runs do not repeat. Doubling the quantile makes the score ask for the
/// margin that both halves' noise needs; over 400 seeded audits at 1e3 and
/// 1e4 estimation runs (tests/estimators.rs) it turned 10–30% of misses at
/// a mechanism the best fixed event flags with probability 0.95 into at most
/// 1.5% (threshold audit, Gaussian and Laplace releases). Selection never
/// affects soundness: the false-alarm rate comes from the estimation runs.
pub(crate) const SELECTION_Z_FACTOR: f64 = 2.0;

/// The selection score: the same bound with Wilson score intervals at
/// quantile `z` in place of Clopper–Pearson. Selection only ranks events
/// (soundness comes from the estimation runs), and Wilson is closed-form,
/// where exact Clopper–Pearson costs a bisection over binomial tails per
/// candidate: four per pooled selection run.
fn selection_score((a, b): (usize, usize), n: usize, z: f64, delta: f64) -> f64 {
    let n = n as f64;
    let wilson = |k: usize, sign: f64| {
        let p = k as f64 / n;
        let z2 = z * z;
        let centre = p + z2 / (2.0 * n);
        let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        ((centre + sign * half) / (1.0 + z2 / n)).clamp(0.0, 1.0)
    };
    let (p_lo, p_hi) = (wilson(a, -1.0), wilson(b, 1.0));
    if p_lo > delta && p_hi > 0.0 {
        ((p_lo - delta) / p_hi).ln()
    } else {
        f64::NEG_INFINITY
    }
}

pub(crate) fn sorted(samples: &[f64]) -> Vec<f64> {
    assert!(
        samples.iter().all(|s| !s.is_nan()),
        "a statistic of NaN cannot be audited"
    );
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// The two release sets of an audit, each pair sorted and checked to be
/// non-empty and equal in number on `D` and `D'`: `[s(D), s(D')]` of the
/// selection runs, then of the estimation runs.
pub(crate) fn prepared(selection: (&[f64], &[f64]), estimation: (&[f64], &[f64])) -> [Vec<f64>; 4] {
    let (sel_d, sel_dp) = (sorted(selection.0), sorted(selection.1));
    let (est_d, est_dp) = (sorted(estimation.0), sorted(estimation.1));
    assert!(
        !sel_d.is_empty() && sel_d.len() == sel_dp.len(),
        "selection runs must be non-empty and equal in number on D and D'"
    );
    assert!(
        !est_d.is_empty() && est_d.len() == est_dp.len(),
        "estimation runs must be non-empty and equal in number on D and D'"
    );
    [sel_d, sel_dp, est_d, est_dp]
}

/// The event maximising `score` of its selection counts over `thresholds`,
/// both tails and both directions (the first best in that order; `initial`
/// is the threshold kept when no event scores above `-inf`), every event
/// with the near-tie `tolerance`.
pub(crate) fn best_event(
    (sel_d, sel_dp): (&[f64], &[f64]),
    thresholds: impl Iterator<Item = f64>,
    (initial, tolerance): (f64, f64),
    score: impl Fn((usize, usize)) -> f64,
) -> Event {
    let mut best = (
        f64::NEG_INFINITY,
        Event {
            tail: Tail::Upper,
            threshold: initial,
            swapped: false,
            tolerance,
        },
    );
    for threshold in thresholds {
        for tail in [Tail::Upper, Tail::Lower] {
            for swapped in [false, true] {
                let event = Event {
                    tail,
                    threshold,
                    swapped,
                    tolerance,
                };
                let s = score(event.counts(sel_d, sel_dp));
                if s > best.0 {
                    best = (s, event);
                }
            }
        }
    }
    best.1
}

/// Audits a mechanism from its statistic on a neighbouring pair.
///
/// `selection = (s(D), s(D'))` and `estimation = (s(D), s(D'))` are two
/// independent sets of releases (each pair of equal length). The event
/// maximising the bound on the selection runs (over both tails, both
/// directions and every pooled selection value as threshold) is then evaluated once on the
/// estimation runs, so the false-alarm rate is `alpha` exactly: no
/// multiplicity correction is needed for the search.
pub fn audit(
    selection: (&[f64], &[f64]),
    estimation: (&[f64], &[f64]),
    delta: f64,
    alpha: f64,
) -> Audit {
    assert!(
        alpha > 0.0 && alpha < 1.0,
        "alpha = {alpha} must lie in (0, 1)"
    );
    assert!(
        (0.0..1.0).contains(&delta),
        "delta = {delta} must lie in [0, 1)"
    );
    let [sel_d, sel_dp, est_d, est_dp] = prepared(selection, estimation);
    let mut pooled: Vec<f64> = sel_d.iter().chain(&sel_dp).copied().collect();
    pooled.sort_by(f64::total_cmp);
    let z = SELECTION_Z_FACTOR * two_sided_z(alpha);
    let initial = pooled[pooled.len() / 2];
    let tolerance = near_tie_tolerance(&pooled);
    // Every distinct pooled value is a candidate: the best event of a tight
    // mechanism sits in the extreme tail (a handful of D' hits), which a
    // quantile grid would step over; counting by binary search keeps the
    // whole search O(n log n).
    pooled.dedup();
    let event = best_event(
        (&sel_d, &sel_dp),
        pooled.iter().copied(),
        (initial, tolerance),
        |counts| selection_score(counts, sel_d.len(), z, delta),
    );
    let counts = event.counts(&est_d, &est_dp);
    let cp_est = ClopperPearson::new(est_d.len());
    Audit {
        eps_lower: bound(&cp_est, counts, delta, alpha),
        event,
        counts,
        runs: est_d.len(),
        alpha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_outputs_give_the_counts_ceiling() {
        // D always releases 1, D' always 0: every run lands in {s >= t} for
        // some t in (0, 1] under D and none under D'.
        let d = vec![1.0; 1000];
        let dp = vec![0.0; 1000];
        let a = audit((&d, &dp), (&d, &dp), 0.0, 0.05);
        assert_eq!(a.counts, (1000, 0));
        let cp = ClopperPearson::new(1000);
        let ceiling = (cp.lower(1000, 0.025) / cp.upper(0, 0.025)).ln();
        assert!((a.eps_lower - ceiling).abs() < 1e-12, "{a:?}");
    }

    #[test]
    fn the_direction_is_found_either_way() {
        let d = vec![0.0; 500];
        let dp = vec![1.0; 500];
        let a = audit((&d, &dp), (&d, &dp), 0.0, 0.05);
        assert!(a.eps_lower > 4.0, "{a:?}");
        assert_eq!(a.counts, (500, 0));
    }

    #[test]
    fn identical_distributions_certify_nothing_positive() {
        let d: Vec<f64> = (0..2000).map(|i| i as f64).collect();
        let a = audit((&d, &d), (&d, &d), 1e-5, 0.05);
        assert!(a.eps_lower <= 0.0, "{a:?}");
    }

    #[test]
    #[should_panic(expected = "equal in number")]
    fn unequal_run_counts_are_refused() {
        audit((&[1.0, 2.0], &[1.0]), (&[1.0], &[1.0]), 0.0, 0.05);
    }
}
