//! Baselines of digest §7: B0 the non-private hard-margin SVM (the exact
//! max-margin direction), and the known-margin runs B1 (full-dimension DP-GD,
//! Algorithm 5 with `Phi = I`, same loss `l_{gamma/3}`, clip and budget
//! rules as the private learner) and B2 (oracle JLGD at the true `gamma`).
//! The tuned B1 is [`super::m_star`] with [`Projection::FullDimension`].
//!
//! Privacy of the known-margin runs: one NGD run at GDP budget `mu`
//! (the whole budget) or `mu_p = mu/sqrt(2|Gamma|)` (the per-call budget of
//! `M*`, for the cost-of-adaptivity experiment E6); the spent privacy is the
//! realised NGD GDP ([`super::ngd::NgdPlan::realised_mu`]).

use super::budget::{privacy_spent, total_mu, PrivacySpent};
use super::jl::{jl_dimension, JlMap};
use super::jlgd::{projected_ngd_observed, JlgdOptions, JlgdRun};
use super::margin::{exact_margin, MarginCertificate, MarginOptions};
use super::mstar::{candidate_grid, MStarOptions, Projection};
use super::ngd::IterateChoice;
use crate::transcript::{Transcript, Unobserved};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::{PrivacyParams, RunFailure};
use rand::{Rng, RngExt};

// Named only in doc links.
#[cfg(doc)]
use super::m_star;

/// B0: the hard-margin SVM without bias, i.e. the certified max-margin
/// direction `certificate.direction` ([`exact_margin`]).
pub fn hard_margin_svm(problem: &dyn HalfspaceProblem, opts: MarginOptions) -> MarginCertificate {
    exact_margin(
        problem.features(),
        problem.labels(),
        problem.dim(),
        None,
        opts,
    )
}

/// The budget a known-margin run gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownMarginBudget {
    /// The whole GDP budget `mu`.
    Total,
    /// `M*`'s per-call budget `mu/sqrt(2|Gamma|)`.
    PerCall,
}

/// A known-margin release.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownMarginRun {
    /// The run (its `w` in `R^d`, plan, error on `S`).
    pub run: JlgdRun,
    /// The GDP budget given to NGD.
    pub mu: f64,
    /// Privacy spent.
    pub privacy: PrivacySpent,
}

/// B2 (`Projection::Jl`, `k_gamma` exactly as `M*`'s candidate at `gamma`)
/// or B1 (`Projection::FullDimension`) at the known margin `gamma`, hinge
/// `gamma/3`. `opts` supplies the mode, iterate, conversion, `beta` and `b`
/// (its criterion is unused).
///
/// # Errors
/// As [`m_star`].
pub fn known_margin<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    gamma: f64,
    privacy: PrivacyParams,
    opts: MStarOptions,
    budget: KnownMarginBudget,
    rng: &mut R,
) -> Result<KnownMarginRun, RunFailure> {
    known_margin_observed(problem, gamma, privacy, opts, budget, &mut Unobserved, rng)
}

/// [`known_margin`], handing `transcript` the run's NGD steps
/// ([`projected_ngd_observed`]). Same random stream and release.
///
/// # Errors
/// As [`known_margin`].
pub fn known_margin_observed<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    gamma: f64,
    privacy: PrivacyParams,
    opts: MStarOptions,
    budget: KnownMarginBudget,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<KnownMarginRun, RunFailure> {
    let (n, d) = (problem.num_records(), problem.dim());
    let b = opts.data_bound;
    let total = total_mu(privacy, opts.conversion)?;
    let len = candidate_grid(n, privacy.eps, &opts).len();
    let mu = match budget {
        KnownMarginBudget::Total => total,
        KnownMarginBudget::PerCall => total / (2.0 * len as f64).sqrt(),
    };
    let beta = opts.beta.unwrap_or(1.0 / (n as f64 * n as f64));
    let iterate = if opts.last_iterate {
        IterateChoice::Last {
            beta: beta / len as f64,
        }
    } else {
        IterateChoice::Averaged
    };
    let (map, radius) = match opts.projection {
        Projection::Jl { constant } => {
            let k = jl_dimension(n, len, gamma, beta, b, constant);
            (JlMap::with_dimension(k, d, rng.random::<u64>()), 2.0 * b)
        }
        Projection::FullDimension { radius_factor } => (JlMap::Identity { d }, radius_factor * b),
    };
    let ngd_opts = JlgdOptions {
        mode: opts.mode,
        iterate,
        data_bound: b,
    };
    let run = projected_ngd_observed(
        problem,
        &map,
        gamma / 3.0,
        radius,
        mu,
        ngd_opts,
        transcript,
        rng,
    )?;
    let privacy = privacy_spent(run.mu_spent, privacy.delta)?;
    Ok(KnownMarginRun { run, mu, privacy })
}
