//! What an audit with a given number of runs can detect.

use crate::clopper_pearson::ClopperPearson;
use mechanisms::gdp::{gdp_epsilon, gdp_mu};
use mechanisms::normal::normal_cdf;

/// The largest `eps` lower bound any threshold audit with `runs` estimation
/// runs per data set can certify at `(delta, alpha)`: every run in the event
/// under `D`, none under `D'`. A claim above it cannot be contradicted by
/// these runs at all.
pub fn ceiling(runs: usize, delta: f64, alpha: f64) -> f64 {
    let cp = ClopperPearson::new(runs);
    let p_lo = cp.lower(runs, alpha / 2.0);
    if p_lo <= delta {
        return f64::NEG_INFINITY;
    }
    ((p_lo - delta) / cp.upper(0, alpha / 2.0)).ln()
}

/// The bound a threshold audit gets, at the best threshold, when its counts
/// equal their expectations on the Gaussian pair `N(mu, 1)` vs `N(0, 1)`
/// (a `mu`-GDP mechanism at its worst-case pair, Dong, Roth & Su 2019): the
/// typical audit's `eps` lower bound for that mechanism.
pub fn gaussian_typical_eps_lower(mu: f64, runs: usize, delta: f64, alpha: f64) -> f64 {
    gaussian_eps_lower_at(mu, runs, delta, alpha, 0.0)
}

/// `z` of the one-sided 0.975 normal quantile: a count taken `Z_95`
/// standard deviations to its adverse side is passed with probability at
/// least 0.975, so a fixed event whose bound still exceeds the claim at both
/// adverse counts flags it with probability at least 0.95 (union bound over
/// the two counts; normal approximation of each binomial quantile).
pub const Z_95: f64 = 1.959_963_984_540_054;

/// The counts of a fixed event with probabilities `p_a` (favoured side) and
/// `p_b` in `runs` runs: their expectations rounded at `spread = 0` (the
/// typical audit), else each `spread` standard deviations to its adverse
/// side (favoured count down, rounded down; the other up, rounded up).
pub(crate) fn adverse_counts(runs: usize, p_a: f64, p_b: f64, spread: f64) -> (usize, usize) {
    let n = runs as f64;
    if spread == 0.0 {
        return (
            ((n * p_a).round() as usize).min(runs),
            ((n * p_b).round() as usize).min(runs),
        );
    }
    let level = normal_cdf(spread);
    // The favoured count's lower quantile is runs minus the upper quantile
    // of its complement.
    let k_a = runs - upper_quantile(runs, 1.0 - p_a, level, spread);
    let k_b = upper_quantile(runs, p_b, level, spread);
    (k_a, k_b)
}

/// An upper `level` quantile of `Bin(runs, p)` (the smallest `k` with
/// `P[X <= k] >= level`), exactly from the probability function when the
/// mean is below 50 (where the normal approximation misplaces the tail: at
/// a mean of 0.001 the quantile is 0, not 1), else `spread` standard
/// deviations above the mean, rounded up.
fn upper_quantile(runs: usize, p: f64, level: f64, spread: f64) -> usize {
    let n = runs as f64;
    let p = p.clamp(0.0, 1.0);
    if n * p >= 50.0 {
        let k = (n * p + spread * (n * p * (1.0 - p)).sqrt()).ceil();
        return (k.max(0.0) as usize).min(runs);
    }
    if p == 0.0 {
        return 0;
    }
    // pmf(0) = (1 - p)^n, pmf(k + 1) = pmf(k) (n - k)/(k + 1) p/(1 - p).
    let mut pmf = (n * (-p).ln_1p()).exp();
    let (mut cdf, mut k) = (pmf, 0usize);
    while cdf < level && k < runs {
        pmf *= (n - k as f64) / (k as f64 + 1.0) * p / (1.0 - p);
        k += 1;
        cdf += pmf;
    }
    k
}

/// As [`gaussian_typical_eps_lower`] with the counts `spread` standard
/// deviations to their adverse sides (each count at its exact or normal-approximation quantile): at
/// `spread = `[`Z_95`], the bound an audit that knows the best event beats
/// with probability at least 0.95.
pub fn gaussian_eps_lower_at(mu: f64, runs: usize, delta: f64, alpha: f64, spread: f64) -> f64 {
    let cp = ClopperPearson::new(runs);
    let mut best = f64::NEG_INFINITY;
    // Thresholds every 0.02 from the D' mean to 8 above the D mean (past
    // that the D' tail holds no expected run for runs <= 1e15). Below the D'
    // mean nothing is lost: the tail ratio Phi(mu - t)/Phi(-t) increases with
    // t (monotone likelihood ratio) while both tails are large. Counts repeat
    // between neighbouring thresholds, so each pair is bounded once.
    let steps = ((mu + 8.0) / 0.02).ceil() as usize;
    let mut seen = std::collections::HashSet::new();
    for i in 0..=steps {
        let t = 0.02 * i as f64;
        let (k_a, k_b) = adverse_counts(runs, normal_cdf(mu - t), normal_cdf(-t), spread);
        if !seen.insert((k_a, k_b)) {
            continue;
        }
        let p_lo = cp.lower(k_a, alpha / 2.0);
        if p_lo > delta {
            best = best.max(((p_lo - delta) / cp.upper(k_b, alpha / 2.0)).ln());
        }
    }
    best
}

/// The smallest `eps` (at `delta`) of a Gaussian mechanism that a typical
/// threshold audit with `runs` runs flags against the claim `claimed_eps`
/// (its [`gaussian_typical_eps_lower`] exceeds the claim): the audit's power
/// in the units of the claim. `None` when no Gaussian mechanism is flagged,
/// because the [`ceiling`] of these runs is below the claim.
pub fn smallest_detectable_gaussian_eps(
    claimed_eps: f64,
    runs: usize,
    delta: f64,
    alpha: f64,
) -> Option<f64> {
    gaussian_detectable_at(claimed_eps, runs, delta, alpha, 0.0)
}

/// The smallest `eps` (at `delta`) of a Gaussian mechanism that a threshold
/// audit with `runs` estimation runs flags against `claimed_eps` with
/// probability at least 0.95 (its bound at the adverse counts,
/// [`gaussian_eps_lower_at`] at [`Z_95`], exceeds the claim); `None` when
/// none is within reach of these runs.
pub fn smallest_detectable_gaussian_eps_95(
    claimed_eps: f64,
    runs: usize,
    delta: f64,
    alpha: f64,
) -> Option<f64> {
    gaussian_detectable_at(claimed_eps, runs, delta, alpha, Z_95)
}

/// [`smallest_detectable_gaussian_eps`] with the counts `spread` standard
/// deviations to their adverse sides (0: the typical audit).
pub fn gaussian_detectable_at(
    claimed_eps: f64,
    runs: usize,
    delta: f64,
    alpha: f64,
    spread: f64,
) -> Option<f64> {
    if ceiling(runs, delta, alpha) <= claimed_eps {
        return None;
    }
    let flagged = |mu: f64| gaussian_eps_lower_at(mu, runs, delta, alpha, spread) > claimed_eps;
    let lo = gdp_mu(claimed_eps, delta).ok()?;
    // The typical bound is a step function of mu (rounded counts): 25
    // halvings resolve mu to 3e-8 of the bracket, far below any step.
    let mu = smallest_flagged(lo, 2.0 * lo, 1e3, 25, flagged)?;
    gdp_epsilon(mu, delta).ok()
}

/// The bound a threshold audit gets, at the best threshold, when its counts
/// equal their expectations on the Laplace pair `Lap(eps, 1)` vs `Lap(0, 1)`
/// (an `eps`-DP mechanism at its worst-case pair: every tail event
/// `{s >= t}`, `t >= eps`, has likelihood ratio exactly `e^eps`).
pub fn laplace_typical_eps_lower(eps: f64, runs: usize, alpha: f64) -> f64 {
    laplace_eps_lower_at(eps, runs, alpha, 0.0)
}

/// As [`laplace_typical_eps_lower`] with the counts `spread` standard
/// deviations to their adverse sides (each count at its exact or normal-approximation quantile).
pub fn laplace_eps_lower_at(eps: f64, runs: usize, alpha: f64, spread: f64) -> f64 {
    let cp = ClopperPearson::new(runs);
    let n = runs as f64;
    let mut best = f64::NEG_INFINITY;
    // Tail of Lap(m, 1) above t >= m: exp(-(t - m))/2. Thresholds every 0.02
    // from the D mean until the D' tail holds no expected run.
    let mut t = eps;
    while 0.5 * (-t).exp() * n >= 0.5 || t <= eps + 1.0 {
        let (k_a, k_b) = adverse_counts(runs, 0.5 * (-(t - eps)).exp(), 0.5 * (-t).exp(), spread);
        let p_lo = cp.lower(k_a, alpha / 2.0);
        if p_lo > 0.0 {
            best = best.max((p_lo / cp.upper(k_b, alpha / 2.0)).ln());
        }
        t += 0.02;
    }
    best
}

/// The smallest `eps` of a Laplace mechanism that a typical threshold audit
/// with `runs` runs flags against the pure-DP claim `claimed_eps`: the
/// audit's power at `delta = 0`. `None` when none below `eps = 50` is.
pub fn smallest_detectable_laplace_eps(claimed_eps: f64, runs: usize, alpha: f64) -> Option<f64> {
    let flagged = |eps: f64| laplace_typical_eps_lower(eps, runs, alpha) > claimed_eps;
    smallest_flagged(claimed_eps, 2.0 * claimed_eps, 50.0, 30, flagged)
}

/// The smallest `eps` of a Laplace mechanism that a threshold audit with
/// `runs` estimation runs flags against the pure-DP claim `claimed_eps`
/// with probability at least 0.95 ([`laplace_eps_lower_at`] at [`Z_95`]);
/// `None` when none below `eps = 50` is.
pub fn smallest_detectable_laplace_eps_95(
    claimed_eps: f64,
    runs: usize,
    alpha: f64,
) -> Option<f64> {
    laplace_detectable_at(claimed_eps, runs, alpha, Z_95)
}

/// [`smallest_detectable_laplace_eps`] with the counts `spread` standard
/// deviations to their adverse sides (0: the typical audit).
pub fn laplace_detectable_at(
    claimed_eps: f64,
    runs: usize,
    alpha: f64,
    spread: f64,
) -> Option<f64> {
    let flagged = |eps: f64| laplace_eps_lower_at(eps, runs, alpha, spread) > claimed_eps;
    smallest_flagged(claimed_eps, 2.0 * claimed_eps, 50.0, 30, flagged)
}

/// The smallest value in `[lo, limit]` that `flagged` accepts, for a
/// `flagged` that is monotone (false below some point, true above): `hi`
/// doubles from its start until flagged (`None` once it passes `limit`),
/// then `halvings` bisections of `[lo, hi]` return the flagged end. The
/// shared search of every "smallest detectable eps" here and in
/// [`crate::assess`].
pub(crate) fn smallest_flagged(
    mut lo: f64,
    mut hi: f64,
    limit: f64,
    halvings: usize,
    flagged: impl Fn(f64) -> bool,
) -> Option<f64> {
    while !flagged(hi) {
        hi *= 2.0;
        if hi > limit {
            return None;
        }
    }
    for _ in 0..halvings {
        let mid = 0.5 * (lo + hi);
        if flagged(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_grows_with_the_runs_as_ln_runs() {
        let (c1, c2) = (ceiling(1_000, 0.0, 0.05), ceiling(100_000, 0.0, 0.05));
        // p_hi(0) = 1 - (alpha/2)^(1/n) ~ ln(2/alpha)/n, so the ceiling is
        // about ln(n / ln(40)): +ln(100) = 4.6 between the two.
        assert!((c2 - c1 - 100f64.ln()).abs() < 0.01, "{c1} {c2}");
        assert!(ceiling(10, 0.5, 0.05) < 0.0);
    }

    #[test]
    fn a_stronger_mechanism_is_harder_to_catch() {
        let weak = gaussian_typical_eps_lower(4.0, 100_000, 1e-5, 0.05);
        let strong = gaussian_typical_eps_lower(1.0, 100_000, 1e-5, 0.05);
        assert!(weak > strong + 1.0, "{weak} {strong}");
        // Never above the mechanism's own eps at delta: the bound is sound.
        assert!(weak < gdp_epsilon(4.0, 1e-5).unwrap());
        assert!(strong < gdp_epsilon(1.0, 1e-5).unwrap());
    }

    #[test]
    fn laplace_power_lies_above_the_claim_and_the_bound_below_the_truth() {
        let few = smallest_detectable_laplace_eps(1.0, 10_000, 1e-3).unwrap();
        let many = smallest_detectable_laplace_eps(1.0, 1_000_000, 1e-3).unwrap();
        assert!(few > many && many > 1.0, "{few} {many}");
        for eps in [0.5, 1.0, 2.0] {
            let lb = laplace_typical_eps_lower(eps, 1_000_000, 1e-3);
            assert!(lb < eps && lb > 0.9 * eps, "{eps} {lb}");
        }
    }

    #[test]
    fn detectable_violation_lies_above_the_claim_and_shrinks_with_runs() {
        let few = smallest_detectable_gaussian_eps(1.0, 10_000, 1e-5, 0.05).unwrap();
        let many = smallest_detectable_gaussian_eps(1.0, 200_000, 1e-5, 0.05).unwrap();
        assert!(few > many && many > 1.0, "{few} {many}");
        assert!(smallest_detectable_gaussian_eps(20.0, 1_000, 1e-5, 0.05).is_none());
    }
}
