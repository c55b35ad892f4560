//! One audit's verdict from its runs: the lower bound on `eps` (by the
//! estimator the algorithm declares), the verdict against the claim and the
//! audit's power (the smallest violation it could have detected).

use mechanisms::gdp::gdp_epsilon;

use crate::gdp::{gaussian_fit_refusal, gdp_audit, gdp_mu_lower_at};
use crate::power::{
    smallest_detectable_gaussian_eps, smallest_detectable_gaussian_eps_95,
    smallest_detectable_laplace_eps, smallest_detectable_laplace_eps_95, smallest_flagged, Z_95,
};
use crate::threshold::audit;

/// How the statistics become a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Clopper–Pearson on the best threshold event ([`crate::threshold`]).
    Threshold,
    /// The Gaussian-DP fit ([`crate::gdp`]); needs `delta > 0`.
    GaussianDp,
}

/// The verdict of one audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `eps_lb <= claimed eps`: the runs are consistent with the claim.
    Consistent,
    /// `eps_lb > claimed eps`: the claim is false (with probability at least
    /// `1 - alpha` over the audit's runs).
    Violation,
}

impl Verdict {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Consistent => "consistent",
            Verdict::Violation => "violation",
        }
    }
}

/// What one audit shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// Lower confidence bound on `eps` at the claimed `delta` (level
    /// `1 - alpha`); `-inf` when the runs certify nothing.
    pub eps_lower: f64,
    /// The Gaussian-DP fit's bound on `mu` (`None` for the threshold audit).
    pub mu_lower: Option<f64>,
    /// Estimation runs per data set (the other half selected the event).
    pub estimation_runs: usize,
    /// Verdict against the claimed `eps`.
    pub verdict: Verdict,
    /// The smallest `eps` (at the claimed `delta`) of a Gaussian mechanism
    /// that an audit of this size and method typically flags against the
    /// claim (with probability about one half); `None` when no violation is
    /// within reach of these runs.
    pub smallest_detectable_eps: Option<f64>,
    /// The smallest `eps` of the reference release for the estimator used
    /// (a Gaussian mechanism at the claimed `delta > 0`, a Laplace
    /// mechanism at `delta = 0`) that an audit of this size flags against
    /// the claim with probability at least 0.95; `None` when none is within
    /// reach. A consistent verdict rules out, at that confidence, a
    /// mechanism of that kind at or above this `eps` on the audited pair.
    pub detectable_eps_95: Option<f64>,
    /// The estimator actually used (the Gaussian-DP fit falls back to the
    /// threshold audit when the runs refuse it).
    pub method: Method,
    /// Why the declared Gaussian-DP fit was refused
    /// ([`crate::gdp::gaussian_fit_refusal`]), when it was.
    pub fit_refused: Option<String>,
}

/// Assesses the statistics `on_d`, `on_d_prime` (run order, the first half
/// of each selects the event, the second half estimates) against the claim
/// `claimed_eps` at `delta` with false-alarm rate `alpha`.
///
/// `Method::GaussianDp` is applied only where the runs show nothing against
/// a Gaussian trade-off ([`crate::gdp::gaussian_fit_refusal`]: no atoms in
/// the statistic); otherwise the threshold audit is used and
/// [`Assessment::fit_refused`] says why.
///
/// # Panics
/// If either side has fewer than 4 runs, a statistic is not finite, or
/// `Method::GaussianDp` is asked at `delta = 0`.
pub fn assess(
    on_d: &[f64],
    on_d_prime: &[f64],
    method: Method,
    claimed_eps: f64,
    delta: f64,
    alpha: f64,
) -> Assessment {
    let runs = on_d.len().min(on_d_prime.len());
    assert!(
        runs >= 4,
        "an audit needs at least 4 runs a side, not {runs}"
    );
    let estimation_runs = runs - runs / 2;
    let bound = estimate(on_d, on_d_prime, method, delta, alpha);
    let (method, fit_refused) = (bound.method, bound.fit_refused);
    let (eps_lower, mu_lower, detectable, detectable_95) = match method {
        Method::Threshold => {
            // A pure-DP claim's worst case is a Laplace release, an
            // approximate one's a Gaussian release.
            let (power, power_95) = if delta == 0.0 {
                (
                    smallest_detectable_laplace_eps(claimed_eps, estimation_runs, alpha),
                    smallest_detectable_laplace_eps_95(claimed_eps, estimation_runs, alpha),
                )
            } else {
                (
                    smallest_detectable_gaussian_eps(claimed_eps, estimation_runs, delta, alpha),
                    smallest_detectable_gaussian_eps_95(claimed_eps, estimation_runs, delta, alpha),
                )
            };
            (bound.eps_lower, None, power, power_95)
        }
        Method::GaussianDp => {
            let power = smallest_detectable_gdp_eps(claimed_eps, estimation_runs, delta, alpha);
            let power_95 =
                smallest_detectable_gdp_eps_95(claimed_eps, estimation_runs, delta, alpha);
            (bound.eps_lower, bound.mu_lower, power, power_95)
        }
    };
    Assessment {
        eps_lower,
        mu_lower,
        estimation_runs,
        verdict: if eps_lower > claimed_eps {
            Verdict::Violation
        } else {
            Verdict::Consistent
        },
        smallest_detectable_eps: detectable,
        detectable_eps_95: detectable_95,
        method,
        fit_refused,
    }
}

/// The bound of one audit, without its power (what [`assess`] computes
/// before the power, and what the estimator tests repeat many times).
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// Lower confidence bound on `eps` at `delta` (level `1 - alpha`).
    pub eps_lower: f64,
    /// The Gaussian-DP fit's bound on `mu`, when the fit was used.
    pub mu_lower: Option<f64>,
    /// The estimator used.
    pub method: Method,
    /// Why the Gaussian-DP fit was refused, when it was asked and refused.
    pub fit_refused: Option<String>,
}

/// The bound of `method` on the runs, as [`assess`] computes it: the first
/// half of each side selects the event, the second half estimates, and the
/// Gaussian-DP fit falls back to the threshold audit when
/// [`crate::gdp::gaussian_fit_refusal`] refuses the runs.
///
/// # Panics
/// As [`assess`].
pub fn estimate(on_d: &[f64], on_d_prime: &[f64], method: Method, delta: f64, alpha: f64) -> Bound {
    let runs = on_d.len().min(on_d_prime.len());
    assert!(
        runs >= 4,
        "an audit needs at least 4 runs a side, not {runs}"
    );
    let half = runs / 2;
    let selection = (&on_d[..half], &on_d_prime[..half]);
    let estimation = (&on_d[half..runs], &on_d_prime[half..runs]);
    let fit_refused = match method {
        Method::GaussianDp => gaussian_fit_refusal(&on_d[..runs], &on_d_prime[..runs]),
        Method::Threshold => None,
    };
    match (method, &fit_refused) {
        (Method::GaussianDp, None) => {
            let a = gdp_audit(selection, estimation, delta, alpha);
            Bound {
                eps_lower: a.eps_lower,
                mu_lower: Some(a.mu_lower),
                method,
                fit_refused,
            }
        }
        _ => Bound {
            eps_lower: audit(selection, estimation, delta, alpha).eps_lower,
            mu_lower: None,
            method: Method::Threshold,
            fit_refused,
        },
    }
}

/// `eps` at `delta` of a `rho`-zCDP claim by the Canonne–Kamath–Steinke
/// conversion (the tightest the harness has for a generic zCDP mechanism).
///
/// # Panics
/// If `rho <= 0` or `delta` is outside `(0, 1)`.
pub fn zcdp_eps(rho: f64, delta: f64) -> f64 {
    mechanisms::zcdp::cks_eps(rho, delta).expect("rho > 0 and delta in (0, 1)")
}

/// The `mu` of the Gaussian mechanism whose `eps` at `delta` is `eps`.
pub fn gdp_mu_of(eps: f64, delta: f64) -> Option<f64> {
    mechanisms::gdp::gdp_mu(eps, delta).ok()
}

/// The smallest `eps` (at `delta`) of a Gaussian mechanism that a typical
/// Gaussian-DP audit with `runs` estimation runs flags against
/// `claimed_eps` ([`crate::gdp::gdp_typical_mu_lower`] above the claim's `mu`); `None`
/// when none below `mu = 50` is.
pub fn smallest_detectable_gdp_eps(
    claimed_eps: f64,
    runs: usize,
    delta: f64,
    alpha: f64,
) -> Option<f64> {
    gdp_detectable_at(claimed_eps, runs, delta, alpha, 0.0)
}

/// The smallest `eps` (at `delta`) of a Gaussian mechanism that a
/// Gaussian-DP audit with `runs` estimation runs flags against
/// `claimed_eps` with probability at least 0.95 (its `mu` bound at the
/// adverse rates, [`gdp_mu_lower_at`] at [`Z_95`], above the claim's `mu`);
/// `None` when none below `mu = 50` is.
pub fn smallest_detectable_gdp_eps_95(
    claimed_eps: f64,
    runs: usize,
    delta: f64,
    alpha: f64,
) -> Option<f64> {
    gdp_detectable_at(claimed_eps, runs, delta, alpha, Z_95)
}

/// [`smallest_detectable_gdp_eps`] with the rates `spread` standard errors
/// to their adverse sides (0: the typical audit).
pub fn gdp_detectable_at(
    claimed_eps: f64,
    runs: usize,
    delta: f64,
    alpha: f64,
    spread: f64,
) -> Option<f64> {
    let claim = mechanisms::gdp::gdp_mu(claimed_eps, delta).ok()?;
    let flagged = |mu: f64| gdp_mu_lower_at(mu, runs, alpha, spread) > claim;
    // 40 halvings resolve mu far below the grid step of the typical bound.
    let mu = smallest_flagged(claim, 2.0 * claim.max(0.01), 50.0, 40, flagged)?;
    gdp_epsilon(mu, delta).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic standard-normal quantiles at evenly spaced levels: a
    /// "perfect sample" of N(m, 1), so the test needs no random numbers.
    fn normal_sample(m: f64, runs: usize) -> Vec<f64> {
        (0..runs)
            .map(|i| m + crate::gdp::normal_quantile((i as f64 + 0.5) / runs as f64))
            .collect()
    }

    #[test]
    fn a_wide_shift_is_a_violation_and_a_narrow_one_is_not() {
        // mu = 3 is eps ~ 10 at delta 1e-5; mu = 0.1 is eps ~ 0.3.
        let mix = |v: Vec<f64>| {
            // Interleave so that both halves are perfect samples too.
            let (a, b): (Vec<_>, Vec<_>) = v.iter().enumerate().partition(|(i, _)| i % 2 == 0);
            a.into_iter()
                .chain(b)
                .map(|(_, x)| *x)
                .collect::<Vec<f64>>()
        };
        for method in [Method::Threshold, Method::GaussianDp] {
            let wide = assess(
                &mix(normal_sample(3.0, 20_000)),
                &mix(normal_sample(0.0, 20_000)),
                method,
                1.0,
                1e-5,
                1e-3,
            );
            assert_eq!(wide.verdict, Verdict::Violation, "{method:?} {wide:?}");
            let narrow = assess(
                &mix(normal_sample(0.1, 20_000)),
                &mix(normal_sample(0.0, 20_000)),
                method,
                1.0,
                1e-5,
                1e-3,
            );
            assert_eq!(narrow.verdict, Verdict::Consistent, "{method:?} {narrow:?}");
            assert!(narrow.eps_lower < gdp_epsilon(0.1, 1e-5).unwrap());
            let power = narrow.smallest_detectable_eps.unwrap();
            assert!(power > 1.0 && power < 10.0, "{method:?} {power}");
        }
    }

    #[test]
    fn gdp_power_beats_threshold_power() {
        let gdp = smallest_detectable_gdp_eps(1.0, 10_000, 1e-5, 1e-3).unwrap();
        let thr = smallest_detectable_gaussian_eps(1.0, 10_000, 1e-5, 1e-3).unwrap();
        assert!(gdp < thr && gdp > 1.0, "{gdp} {thr}");
    }
}
