//! One audit's outcome: its claim as `(eps, delta)`, the estimator its
//! entry declares, the assessment of its stored runs and, once measured,
//! its power ([`Power`]); what the report renders and the power search
//! reads.

use audit::{assess, Assessment, Method};

use super::spec::{Audit, AuditPlan, Observe};
use super::store::AuditRuns;
use crate::registry::{Estimator, Privacy};

/// One audit's outcome.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The audit.
    pub audit: Audit,
    /// The pair's relation and description (from the entry).
    pub relation: &'static str,
    /// What the pair is.
    pub pair: String,
    /// The claim as `(eps, delta)` (a zCDP claim converted).
    pub claimed: (f64, f64),
    /// The estimator.
    pub estimator: Estimator,
    /// The assessment; `None` when runs failed (then `failure` says why).
    pub assessment: Option<Assessment>,
    /// Failed runs and the first error.
    pub failure: Option<(usize, String)>,
    /// Runs a side a typical Gaussian-DP audit needs to flag the realised
    /// `eps` the spec gives (errata), when it gives one.
    pub runs_to_flag: Option<usize>,
    /// Thread-seconds the runs took (not in the CSV, which is deterministic).
    pub seconds: f64,
    /// The audit's power for its own statistic ([`super::power`]); `None`
    /// until measured, or when the runs failed.
    pub power: Option<Power>,
}

impl Outcome {
    /// `violation`, `consistent` or `not measured`.
    pub fn verdict(&self) -> &'static str {
        match &self.assessment {
            Some(a) => a.verdict.name(),
            None => "not measured",
        }
    }

    /// Whether the verdict is the one the theory expects.
    pub fn as_expected(&self) -> bool {
        self.assessment
            .as_ref()
            .is_some_and(|a| a.verdict == self.audit.row.expect.verdict())
    }
}

/// The claim as `(eps, delta)`: a zCDP `rho` converted at `zcdp_delta`
/// with the Canonne–Kamath–Steinke conversion (the tightest in the harness
/// for a generic rho-zCDP mechanism).
pub fn claimed_eps_delta(claim: Privacy, zcdp_delta: f64) -> (f64, f64) {
    match claim {
        Privacy::Approx(p) => (p.eps, p.delta),
        Privacy::Zcdp(rho) => (audit::assess::zcdp_eps(rho, zcdp_delta), zcdp_delta),
    }
}

/// Assesses one audit's stored runs.
pub fn outcome(
    plan: &AuditPlan,
    audit: &Audit,
    runs: &AuditRuns,
    relation: &'static str,
    pair: String,
) -> Outcome {
    let claimed = claimed_eps_delta(audit.claim, audit.zcdp_delta);
    let failed = runs
        .d
        .iter()
        .chain(&runs.d_prime)
        .filter(|x| !x.is_finite())
        .count();
    let method = declared_method(audit, claimed);
    let estimator = match method {
        Method::GaussianDp => Estimator::GaussianDp,
        Method::Threshold => Estimator::Threshold,
    };
    let (assessment, failure): (Option<Assessment>, _) = if failed > 0 {
        (None, Some((failed, runs.first_error.clone())))
    } else if runs.d.len() < audit.runs {
        (
            None,
            Some((
                0,
                format!(
                    "{} of {} runs done (interrupted: rerun to resume)",
                    runs.d.len(),
                    audit.runs
                ),
            )),
        )
    } else {
        (
            Some(assess(
                &runs.d,
                &runs.d_prime,
                method,
                claimed.0,
                claimed.1,
                plan.file.alpha,
            )),
            None,
        )
    };
    let runs_to_flag = audit.row.realised_eps.and_then(|eps| {
        let mu = mechanisms_mu(eps, claimed.1)?;
        audit::gdp::gdp_runs_to_flag(mu, claimed.0, claimed.1, plan.file.alpha)
    });
    // The estimator actually used: a refused Gaussian-DP fit is a threshold audit.
    let estimator = match &assessment {
        Some(a) if a.method == Method::Threshold => Estimator::Threshold,
        _ => estimator,
    };
    Outcome {
        audit: audit.clone(),
        relation,
        pair,
        claimed,
        estimator,
        assessment,
        failure,
        runs_to_flag,
        seconds: runs.seconds,
        power: None,
    }
}

/// The estimator an audit's entry declares for a claim `(eps, delta)`: its
/// Gaussian-DP fit only for the final release at `delta > 0` (a pure-DP
/// claim has no Gaussian trade-off to fit, and a transcript's privacy loss
/// under an adaptive noise schedule is a mixture); the runs may still
/// refuse the fit.
pub fn declared_method(audit: &Audit, claimed: (f64, f64)) -> Method {
    let declared = audit.algorithm.audit.expect("validated").estimator;
    match (declared, audit.row.observe) {
        (Estimator::GaussianDp, Observe::Release) if claimed.1 > 0.0 => Method::GaussianDp,
        _ => Method::Threshold,
    }
}

fn mechanisms_mu(eps: f64, delta: f64) -> Option<f64> {
    audit::assess::gdp_mu_of(eps, delta)
}

/// The power of one row for its statistic.
#[derive(Debug, Clone, PartialEq)]
pub struct Power {
    /// The smallest `eps` found that an audit of the row's size flags with
    /// probability at least 0.95 on this statistic (see the module docs);
    /// `None` when none was found.
    pub detectable_eps_95: Option<f64>,
    /// The bootstrap's flag rate on the row's own runs (violation rows only:
    /// a consistent row's power comes from its probes).
    pub own_rate: Option<f64>,
    /// Each probe: its `eps'` and bootstrap flag rate (empty for a
    /// violation row, or when the reference power is out of reach).
    pub probes: Vec<(f64, f64)>,
    /// What limited the search, when it found nothing.
    pub note: String,
}
