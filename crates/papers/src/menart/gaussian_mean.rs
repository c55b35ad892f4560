//! The oracle baseline of the mean-estimation family F-A as a registry entry:
//! the Gaussian mechanism on the clipped mean
//! ([`solvers::menart::gaussian_mean`]; digest §4.3 F-A).
//!
//! It accepts only `kl_mean_estimation` (declared, so a study on another
//! family is refused before anything runs): the clip is the instance's public
//! record radius `R_x = start_distance + spread`
//! ([`KlObjective::record_radius`], checked against the public constant
//! `F0 = R_x^2/2`); an instance without one is refused with
//! [`RunFailure::InvalidParameters`].
//!
//! Curves: `excess_empirical_risk` theory = the exact expectation
//! `d sigma^2/2`, `gradient_norm` theory = the exact chi mean; no bound (the
//! expectation is exact, not bounded) and no reference.

use contract::{AlgorithmDef, CellOutput, Curves, Diagnostics, Metric, Run, RunContext};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::menart::gaussian_mean::GaussianMean;

use super::common::{kl_diagnostics, output};

/// The Gaussian mechanism on the clipped mean (F-A only).
fn run_gaussian_mean(
    ctx: &RunContext,
    problem: &dyn KlObjective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let f0 = problem.kl_constants().initial_gap;
    let rx = problem
        .record_radius()
        .filter(|rx| (0.5 * rx * rx - f0).abs() <= 1e-12 * f0)
        .ok_or_else(|| {
            RunFailure::InvalidParameters(
                "kl_gaussian_mean runs on kl_mean_estimation only (the clip is its record \
                 radius start_distance + spread)"
                    .into(),
            )
        })?;
    let out = GaussianMean { data_radius: rx }.run(problem, ctx.privacy.rho(), rng)?;
    let d = problem.dim();
    let excess = Curves::new(
        Some(GaussianMean::expected_excess(d, out.sigma)),
        None,
        None,
    );
    let gradient_norm = Curves::new(
        Some(GaussianMean::expected_gradient_norm(d, out.sigma)),
        None,
        None,
    );
    let extra = Diagnostics::from([("sigma", out.sigma), ("sensitivity", out.sensitivity)]);
    output(ctx, &out.run, excess, gradient_norm, extra)
}

/// The algorithm of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[AlgorithmDef::new(
    "kl_gaussian_mean",
    "Menart et al. digest §4.3 F-A oracle baseline: the Gaussian mechanism on the clipped mean, \
          clip = record radius R_x = start_distance + spread, sigma = (2 R_x/n)/sqrt(2 rho) (Bun-Steinke \
          Prop 1.6, replace-one). kl_mean_estimation only. Theory: the exact E excess = d sigma^2/2 = \
          R_x^2 d/(n^2 rho) and the chi mean of ||grad F||",
    &[
        Metric::ExcessEmpiricalRisk,
        Metric::GradientNorm,
        Metric::GradientEvaluations,
        Metric::RealisedRho,
    ],
    Run::KlObjective(run_gaussian_mean),
)
.with_work(super::cost::gaussian_mean)
.only_on(
    &["kl_mean_estimation"],
    "its clip is the record radius R_x = start_distance + spread, which only kl_mean_estimation declares",
)
.zcdp()
.with_diagnostics(kl_diagnostics!["sigma", "sensitivity"])
.with_curves("", "exact expectation (chi-square)", "")
    .audited(&super::audit::GAUSSIAN_MEAN)];
