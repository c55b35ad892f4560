//! The Gaussian-DP fit (Nasr et al. 2023, "Tight auditing of differentially
//! private machine learning"): a lower confidence bound on the `mu` of a
//! mechanism whose trade-off curve is Gaussian, converted to `eps` at the
//! claimed `delta`.
//!
//! A `mu`-GDP mechanism satisfies, for every event `S` (Dong, Roth & Su 2022,
//! Def. 2.1 and Prop. 2.3), `TPR <= Phi(Phi^-1(FPR) + mu)` with `TPR = P[M(D)
//! in S]` and `FPR = P[M(D') in S]`, i.e. `Phi^-1(TPR) - Phi^-1(FPR) <= mu`.
//! With a one-sided Clopper–Pearson lower bound on `TPR` and upper bound on
//! `FPR`, each at level `alpha / 2`,
//!
//! `mu_lb = Phi^-1(TPR_lo) - Phi^-1(FPR_hi)`
//!
//! exceeds the true `mu` with probability at most `alpha`, and the `eps` of
//! `mu_lb`-GDP at `delta` (the exact curve, [`gdp_epsilon`]) is a lower bound
//! on the mechanism's `eps` at `delta`.
//!
//! Where it applies: the bound is valid for mechanisms whose privacy is
//! exactly a Gaussian trade-off (a Gaussian release of a statistic with
//! bounded sensitivity, DP-SGD's Gaussian steps by the CLT of Dong et al.);
//! for them it is far tighter than the threshold audit, which certifies only
//! one point of the curve. For a Laplace or an exponential mechanism it is
//! not a bound, and [`crate::threshold::audit`] is the estimator to use.
//! Event selection and estimation use independent runs, as in the threshold
//! audit, so the search over events costs no multiplicity correction.

use mechanisms::gdp::gdp_epsilon;
use mechanisms::normal::normal_cdf;

use crate::clopper_pearson::ClopperPearson;
use crate::threshold::{
    best_event, near_tie_tolerance, prepared, two_sided_z, Event, SELECTION_Z_FACTOR,
};

/// Candidate thresholds of the event search (pooled selection quantiles).
const SELECTION_THRESHOLDS: usize = 2000;

/// Runs that may repeat another run's statistic by chance before the
/// statistic is taken to have atoms. A continuous statistic repeats a value
/// only when two of its `f64`s coincide, about `N^2 / (2 K)` times for `N`
/// runs spread over `K` representable values (`K` is above 1e15 for any
/// statistic of order 1e-3 or more, so far below one repeat at the
/// harness's 4e6 runs); a clip or projection boundary, a discrete release or
/// an underflow to an exact value repeats one value in a fixed fraction of
/// the runs.
pub const MAX_CHANCE_REPEATS: usize = 2;

/// The atoms of a statistic: values taken by more than one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Atoms {
    /// Runs examined (both data sets, both halves).
    pub runs: usize,
    /// Runs whose value another run also takes (every run at an atom).
    pub runs_on_atoms: usize,
    /// Runs beyond the first at each atom (what a chance coincidence adds one of).
    pub repeats: usize,
    /// The atom holding the most runs: `(value, runs)`.
    pub largest: Option<(f64, usize)>,
}

impl Atoms {
    /// Fraction of the runs lying on an atom.
    pub fn fraction(&self) -> f64 {
        self.runs_on_atoms as f64 / self.runs.max(1) as f64
    }
}

/// The atoms of the pooled statistic of `on_d` and `on_d_prime`.
pub fn atoms(on_d: &[f64], on_d_prime: &[f64]) -> Atoms {
    let mut v: Vec<f64> = on_d.iter().chain(on_d_prime).copied().collect();
    v.sort_by(f64::total_cmp);
    let mut out = Atoms {
        runs: v.len(),
        runs_on_atoms: 0,
        repeats: 0,
        largest: None,
    };
    let mut i = 0;
    while i < v.len() {
        let j = i + v[i..].partition_point(|x| x.to_bits() == v[i].to_bits());
        let count = j - i;
        if count > 1 {
            out.runs_on_atoms += count;
            out.repeats += count - 1;
            if out.largest.is_none_or(|(_, c)| count > c) {
                out.largest = Some((v[i], count));
            }
        }
        i = j;
    }
    out
}

/// Why the Gaussian-DP fit may not be applied to these runs, or `None` when
/// the runs show nothing against it.
///
/// The fit converts a bound on `mu` into one on `eps` through the Gaussian
/// trade-off curve, which holds only if the statistic's whole trade-off is
/// Gaussian: a strictly monotone transform of a Gaussian mean shift. A
/// transform that is constant on a region (a clip or a projection that
/// binds, a rounding, an underflow) turns that region into an atom, where
/// the privacy loss is capped, and the mechanism's `eps` at `delta` can lie
/// far below the `eps` of the `mu` its central events show (a release
/// clipped to `[0, 1]` in half of its runs is pure DP). On the runs an atom
/// is a value that several runs take; more than [`MAX_CHANCE_REPEATS`]
/// repeats refuse the fit. The check sees what the statistic shows: that
/// the unclipped release is a Gaussian mean shift at all is the entry's
/// declaration (`contract::audit::Estimator::GaussianDp`).
pub fn gaussian_fit_refusal(on_d: &[f64], on_d_prime: &[f64]) -> Option<String> {
    let a = atoms(on_d, on_d_prime);
    if a.repeats <= MAX_CHANCE_REPEATS {
        return None;
    }
    let (value, count) = a.largest.expect("repeats imply an atom");
    Some(format!(
        "Gaussian-DP fit refused: {:.3}% of the {} runs lie on atoms of the statistic (tied \
         values; the largest: {value} in {:.3}% of the runs: a clip or projection boundary or a \
         discrete release) so its trade-off is not Gaussian; threshold audit",
        100.0 * a.fraction(),
        a.runs,
        100.0 * count as f64 / a.runs as f64
    ))
}

/// One Gaussian-DP audit's result.
#[derive(Debug, Clone, PartialEq)]
pub struct GdpAudit {
    /// Lower confidence bound on `mu` (level `1 - alpha`); `-inf` when the
    /// event certifies nothing (`TPR_lo = 0` or `FPR_hi = 1`).
    pub mu_lower: f64,
    /// `eps` of `mu_lower`-GDP at the audit's `delta`: a lower bound on the
    /// mechanism's `eps` at that `delta` (0 when `mu_lower`-GDP is already
    /// `(0, delta)`-DP, `-inf` when `mu_lower` is).
    pub eps_lower: f64,
    /// The event, chosen on the selection runs.
    pub event: Event,
    /// Hits on the estimation runs: `(favoured data set, the other)`.
    pub counts: (usize, usize),
    /// Estimation runs per data set.
    pub runs: usize,
    /// False-alarm rate for a mechanism with a Gaussian trade-off.
    pub alpha: f64,
}

/// `Phi^-1(p)` for `p` in `(0, 1)`: Acklam's rational approximation
/// (relative error about 1e-9) refined by two Halley steps on the CDF, so
/// as accurate as the CDF (about 1e-11 relative: far below any
/// Clopper–Pearson width) at the cost of two CDF evaluations (a bisection
/// took 64, and the Gaussian-DP event search evaluates two quantiles per
/// candidate event).
pub fn normal_quantile(p: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0, "quantile of p = {p} outside (0, 1)");
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let mut x = if p < 0.024_25 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.024_25 {
        -tail((-2.0 * (-p).ln_1p()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    for _ in 0..2 {
        // Halley's step on Phi(x) - p (Acklam's refinement).
        let (e, upper) = if p > 0.5 {
            // Work with the upper tail where it is the accurate one.
            (normal_cdf(-x) - (1.0 - p), true)
        } else {
            (normal_cdf(x) - p, false)
        };
        let u = e * (2.0 * std::f64::consts::PI).sqrt() * (0.5 * x * x).exp();
        let u = if upper { -u } else { u };
        x -= u / (1.0 + 0.5 * x * u);
    }
    x
}

/// `Phi^-1(tpr) - Phi^-1(fpr)`, `-inf` when either end is degenerate.
fn mu_of(tpr: f64, fpr: f64) -> f64 {
    if tpr <= 0.0 || fpr >= 1.0 {
        return f64::NEG_INFINITY;
    }
    let hi = if tpr >= 1.0 {
        40.0
    } else {
        normal_quantile(tpr)
    };
    let lo = if fpr <= 0.0 {
        -40.0
    } else {
        normal_quantile(fpr)
    };
    hi - lo
}

/// The selection score: `mu` from Wilson score intervals at quantile `z`
/// (selection only ranks events; soundness comes from the estimation runs).
fn selection_score((a, b): (usize, usize), n: usize, z: f64) -> f64 {
    let n = n as f64;
    let wilson = |k: usize, sign: f64| {
        let p = k as f64 / n;
        let z2 = z * z;
        let centre = p + z2 / (2.0 * n);
        let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        ((centre + sign * half) / (1.0 + z2 / n)).clamp(0.0, 1.0)
    };
    mu_of(wilson(a, -1.0), wilson(b, 1.0))
}

/// Audits a mechanism with a Gaussian trade-off from its statistic on a
/// neighbouring pair, as [`crate::threshold::audit`] does (two independent
/// sets of releases, `(s(D), s(D'))` each), with the Gaussian-DP bound.
pub fn gdp_audit(
    selection: (&[f64], &[f64]),
    estimation: (&[f64], &[f64]),
    delta: f64,
    alpha: f64,
) -> GdpAudit {
    assert!(
        alpha > 0.0 && alpha < 1.0,
        "alpha = {alpha} must lie in (0, 1)"
    );
    assert!(
        delta > 0.0 && delta < 1.0,
        "delta = {delta} must lie in (0, 1): a Gaussian trade-off is never pure DP"
    );
    let [sel_d, sel_dp, est_d, est_dp] = prepared(selection, estimation);
    let mut pooled: Vec<f64> = sel_d.iter().chain(&sel_dp).copied().collect();
    pooled.sort_by(f64::total_cmp);
    let tolerance = near_tie_tolerance(&pooled);
    pooled.dedup();
    let z = SELECTION_Z_FACTOR * two_sided_z(alpha);
    let initial = pooled[pooled.len() / 2];
    // Unlike the threshold audit, the best Gaussian-fit event is not in the
    // extreme tail (it needs both rates estimated well), so a grid of about
    // `SELECTION_THRESHOLDS` pooled quantiles keeps the search short: the 141
    // audits of tests/gdp_fit.rs (2e4 runs a side) took 372 s with every
    // pooled value and a 200-step bisection, 5.7 s with this grid and 64
    // steps, with the same verdicts and bounds within 0.001. Soundness does
    // not depend on the grid.
    // The grid spans the central 98% of the pooled values: Phi^-1 of a rate
    // near 0 or 1 has a wide interval, so an extreme event is never the best
    // in expectation, and searching the tails only gives selection noise more
    // chances to win.
    let (first, last) = (pooled.len() / 100, pooled.len() - pooled.len() / 100);
    let central = &pooled[first..last.max(first + 1)];
    let step = (central.len() / SELECTION_THRESHOLDS).max(1);
    let thresholds = central.iter().step_by(step).copied();
    let event = best_event(
        (&sel_d, &sel_dp),
        thresholds,
        (initial, tolerance),
        |counts| selection_score(counts, sel_d.len(), z),
    );
    let counts = event.counts(&est_d, &est_dp);
    let cp = ClopperPearson::new(est_d.len());
    let mu_lower = mu_of(
        cp.lower(counts.0, alpha / 2.0),
        cp.upper(counts.1, alpha / 2.0),
    );
    let eps_lower = if mu_lower > 0.0 {
        gdp_epsilon(mu_lower, delta).expect("mu > 0 and delta in (0, 1)")
    } else {
        f64::NEG_INFINITY
    };
    GdpAudit {
        mu_lower,
        eps_lower,
        event,
        counts,
        runs: est_d.len(),
        alpha,
    }
}

/// The `mu` lower bound a Gaussian-DP audit with `runs` estimation runs per
/// data set typically gets on the Gaussian pair `N(mu, 1)` vs `N(0, 1)` (a
/// `mu`-GDP mechanism at its worst-case pair): counts equal to their
/// expectations, the best threshold on a 0.02 grid, and Wilson score bounds
/// in place of Clopper–Pearson (closed form at any `runs`; at the counts
/// that matter, about `runs/2`, the two agree to a fraction of their width).
/// A planning number, not a bound.
pub fn gdp_typical_mu_lower(mu: f64, runs: usize, alpha: f64) -> f64 {
    gdp_mu_lower_at(mu, runs, alpha, 0.0)
}

/// As [`gdp_typical_mu_lower`], with each rate moved `spread` standard
/// errors to its adverse side (`TPR` down, `FPR` up) before the Wilson
/// bounds: at `spread = `[`crate::power::Z_95`] a fixed event's bound
/// exceeds this value with probability at least 0.95 (each rate beyond its
/// quantile with probability 0.025, by the normal approximation).
pub fn gdp_mu_lower_at(mu: f64, runs: usize, alpha: f64, spread: f64) -> f64 {
    let z = one_sided_z(alpha / 2.0);
    let n = runs as f64;
    let adverse =
        |p: f64, sign: f64| (p + sign * spread * (p * (1.0 - p) / n).sqrt()).clamp(0.0, 1.0);
    let wilson = |p: f64, sign: f64| {
        let z2 = z * z;
        let centre = p + z2 / (2.0 * n);
        let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        ((centre + sign * half) / (1.0 + z2 / n)).clamp(0.0, 1.0)
    };
    let steps = ((mu + 16.0) / 0.02).ceil() as usize;
    (0..=steps)
        .map(|i| -8.0 + 0.02 * i as f64)
        .map(|t| {
            mu_of(
                wilson(adverse(normal_cdf(mu - t), -1.0), -1.0),
                wilson(adverse(normal_cdf(-t), 1.0), 1.0),
            )
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The smallest number of runs per data set (in each of the selection and
/// estimation halves) at which a typical Gaussian-DP audit flags a `mu`-GDP
/// mechanism against the claim `(claimed_eps, delta)`: its
/// [`gdp_typical_mu_lower`] exceeds the `mu` whose GDP curve passes through
/// the claim. `None` when the mechanism meets the claim (nothing to detect)
/// or above 1e12 runs.
pub fn gdp_runs_to_flag(mu: f64, claimed_eps: f64, delta: f64, alpha: f64) -> Option<usize> {
    let claim = mechanisms::gdp::gdp_mu(claimed_eps, delta).ok()?;
    if mu <= claim {
        return None;
    }
    let flagged = |runs: usize| gdp_typical_mu_lower(mu, runs, alpha) > claim;
    let mut hi = 16usize;
    while !flagged(hi) {
        hi = hi.checked_mul(2)?;
        if hi > 1_000_000_000_000 {
            return None;
        }
    }
    let mut lo = hi / 2;
    while hi - lo > (lo / 100).max(1) {
        let mid = lo + (hi - lo) / 2;
        if flagged(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The standard normal quantile at `1 - a`.
fn one_sided_z(a: f64) -> f64 {
    -normal_quantile(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quantile_inverts_the_cdf() {
        for p in [1e-12, 1e-5, 0.025, 0.5, 0.9, 1.0 - 1e-9] {
            let x = normal_quantile(p);
            assert!((normal_cdf(x) / p - 1.0).abs() < 1e-9, "p {p}: x {x}");
        }
        // statrs' erfc is accurate to about 1e-11 relative, so the quantile
        // to about 1e-11 * Phi/phi = 2e-10 at 0.975.
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-9);
    }

    #[test]
    fn identical_distributions_certify_nothing_positive() {
        let d: Vec<f64> = (0..2000).map(|i| i as f64).collect();
        let a = gdp_audit((&d, &d), (&d, &d), 1e-5, 0.05);
        assert!(
            a.mu_lower <= 0.0 && a.eps_lower == f64::NEG_INFINITY,
            "{a:?}"
        );
    }

    #[test]
    fn separated_outputs_are_capped_by_the_counts() {
        // Every D run above every D' run: TPR_lo and FPR_hi are the
        // Clopper–Pearson ends at (n, 0), a finite mu.
        let d = vec![1.0; 1000];
        let dp = vec![0.0; 1000];
        let a = gdp_audit((&d, &dp), (&d, &dp), 1e-5, 0.05);
        let cp = ClopperPearson::new(1000);
        let want = normal_quantile(cp.lower(1000, 0.025)) - normal_quantile(cp.upper(0, 0.025));
        assert!((a.mu_lower - want).abs() < 1e-12, "{a:?}");
        assert_eq!(a.counts, (1000, 0));
    }
}
