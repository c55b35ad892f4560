//! DP-SCO and synthetic-data algorithms of González, Guzmán & Paquette
//! (Algorithms 4 and 5) and their baselines (digest §7.4 items 5–6), as
//! registry entries.
//!
//! Stored per metric:
//! - `excess_population_risk` (exact): Alg. 4's `theory` is Thm 5.1's rate
//!   for the regime (as printed, constant 1); every SCO algorithm's
//!   `reference` is the optimal polyhedral rate
//!   `sqrt(l_x/n) + (l_x/(n eps))^{2/3}` (Asi et al. 2021b, Table 1), which
//!   DP Frank–Wolfe attains and Alg. 4 does not.
//! - `max_query_error` (exact): Alg. 5's `bound` is Thm G.1 with its
//!   explicit constants (an upper bound on the expected error).
//! - `realised_eps`: the accountant's eps, with the target as `bound`.

use dpcore::saddle::{QueryRelease, SimplexSco};
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::gonzalez::alg4::{alg4_schedule, private_sco_smd_with, ScoRegime};
use solvers::gonzalez::alg5::{mwem, private_synthetic_data, SyntheticRelease};
use solvers::gonzalez::dp_fw::dp_frank_wolfe;
use solvers::gonzalez::rates::{
    alg4_first_order_rate, alg4_second_order_rate, alg5_bound, asi_frank_wolfe_rate,
};
use solvers::gonzalez::sco_baselines::euclidean_dp_sgd_simplex;
use solvers::gonzalez::ScoRelease;

use super::options::Alg4EntryOptions;
use contract::{AlgorithmDef, CellOutput, Curves, Metric, Options, Release, Run, RunContext};

/// The output of an SCO release with `theory` (Alg. 4's rate, `None` for
/// the baselines) on a risk metric.
fn sco_measured(
    ctx: &RunContext,
    problem: &dyn SimplexSco,
    r: &ScoRelease,
    theory: Option<f64>,
) -> Result<CellOutput, RunFailure> {
    let spent = r.privacy.as_ref().map_or(0.0, |p| p.eps());
    let p = ctx.privacy.approx();
    let n = problem.num_records() as f64;
    let curves = match ctx.metric {
        Metric::RealisedEps => Curves::new(None, Some(p.eps), None),
        Metric::GradientEvaluations => Curves::NONE,
        _ => Curves::new(
            theory,
            None,
            Some(asi_frank_wolfe_rate(n, p.eps, problem.dim())),
        ),
    };
    let d = &r.diagnostics;
    Ok(CellOutput::new(
        Release::point(r.w.clone(), r.gradient_evaluations as f64).with_realised_privacy(spent),
        curves,
        [
            ("steps", d.steps as f64),
            ("batch", d.batch as f64),
            ("k", d.k as f64),
            ("q", d.q as f64),
            ("tau", d.tau),
            ("realised_eps", spent),
        ],
    ))
}

fn run_alg4(
    ctx: &RunContext,
    problem: &dyn SimplexSco,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let options = Alg4EntryOptions::read(ctx.options)?;
    let regime: ScoRegime = options.regime.into();
    let p = ctx.privacy.approx();
    let s = alg4_schedule(problem, p, regime, options.release_count.into())?;
    let r = private_sco_smd_with(problem, p, s, rng)?;
    let (c, n, d) = (
        problem.constants(),
        problem.num_records() as f64,
        problem.dim(),
    );
    let theory = match regime {
        ScoRegime::FirstOrder => alg4_first_order_rate(c, n, p.eps, p.delta, d),
        ScoRegime::SecondOrder => alg4_second_order_rate(c, n, p.eps, p.delta, d),
    };
    sco_measured(ctx, problem, &r, Some(theory))
}

fn run_dp_frank_wolfe(
    ctx: &RunContext,
    problem: &dyn SimplexSco,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let r = dp_frank_wolfe(problem, ctx.privacy.approx(), None, rng)?;
    sco_measured(ctx, problem, &r, None)
}

fn run_dp_sgd_simplex(
    ctx: &RunContext,
    problem: &dyn SimplexSco,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let r = euclidean_dp_sgd_simplex(problem, ctx.privacy.approx(), rng)?;
    sco_measured(ctx, problem, &r, None)
}

/// The output of a synthetic-data release with `bound` (Alg. 5's Thm G.1,
/// `None` for MWEM) on the query-error metric.
fn query_output(
    ctx: &RunContext,
    r: &SyntheticRelease,
    bound: Option<f64>,
) -> Result<CellOutput, RunFailure> {
    let spent = r.account.eps_spent;
    let bound = match ctx.metric {
        Metric::RealisedEps => Some(ctx.privacy.approx().eps),
        _ => bound,
    };
    Ok(CellOutput::new(
        // Query release spends no gradient.
        Release::histogram(r.histogram.clone(), 0.0).with_realised_privacy(spent),
        Curves::new(None, bound, None),
        [("steps", r.steps as f64), ("realised_eps", spent)],
    ))
}

fn run_alg5(
    ctx: &RunContext,
    problem: &dyn QueryRelease,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let p = ctx.privacy.approx();
    let r = private_synthetic_data(problem, p, rng)?;
    let n = problem.num_records() as f64;
    let bound = alg5_bound(
        n,
        p.eps,
        p.delta,
        problem.domain_size(),
        problem.num_queries(),
    );
    query_output(ctx, &r, Some(bound))
}

fn run_mwem(
    ctx: &RunContext,
    problem: &dyn QueryRelease,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let r = mwem(problem, ctx.privacy.approx().eps, None, rng)?;
    query_output(ctx, &r, None)
}

const SCO_METRICS: &[Metric] = &[
    Metric::ExcessPopulationRisk,
    Metric::RealisedEps,
    Metric::GradientEvaluations,
];
const SCO_DIAGNOSTICS: &[&str] = &["steps", "batch", "k", "q", "tau", "realised_eps"];
const QUERY_METRICS: &[Metric] = &[Metric::MaxQueryError, Metric::RealisedEps];
const OPTIMAL_RATE: &str = "optimal rate sqrt(l_x/n) + (l_x/(n eps))^(2/3) (Asi et al. 2021b)";

/// Algorithms of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "ggp_alg4",
        "González et al. Algorithm 4 (Thm 5.1): private SMD for polyhedral DP-SCO with anytime online-to-batch, \
              gradients at a K-vertex Maurey sample of the Cesàro average refreshed every q steps; (q+1)K release \
              count and stability cap 1/(8 L0 q) by default (§3.4 errata)",
        SCO_METRICS,
        Run::SimplexSco(run_alg4),
    )
    .with_options(Alg4EntryOptions::PARAMS)
    .with_work(super::cost::alg4)
    .requiring_delta()
    .with_diagnostics(SCO_DIAGNOSTICS)
    .with_curves("", "Thm 5.1 rate (as printed), constant 1", OPTIMAL_RATE)
    .audited(&super::audit::ALG4),
    AlgorithmDef::new(
        "ggp_dp_frank_wolfe",
        "DP Frank–Wolfe on the simplex (Talwar–Thakurta–Zhang 2015, digest §7.4 item 5): T full-batch steps, \
              vertex by the exponential mechanism (sensitivity 2 L0/n), T derived in solvers::gonzalez::dp_fw; O(T n d)",
        SCO_METRICS,
        Run::SimplexSco(run_dp_frank_wolfe),
    )
    .requiring_delta()
    .with_diagnostics(SCO_DIAGNOSTICS)
    .with_curves("", "", OPTIMAL_RATE)
    .audited(&super::audit::DP_FRANK_WOLFE),
    AlgorithmDef::new(
        "ggp_dp_sgd_simplex",
        "Euclidean DP-SGD projected onto the simplex (digest §7.4 item 5): L2 sensitivity 2 L0 sqrt(d)/B, Gaussian noise; \
              polynomial in d",
        SCO_METRICS,
        Run::SimplexSco(run_dp_sgd_simplex),
    )
    .requiring_delta()
    .with_diagnostics(SCO_DIAGNOSTICS)
    .with_curves("", "", OPTIMAL_RATE)
    .audited(&super::audit::DP_SGD_SIMPLEX),
    AlgorithmDef::new(
        "ggp_alg5",
        "González et al. Algorithm 5 (Thm G.1): DP synthetic data by DP-SMD on the query game, one sampled query per \
              step, n draws from the averaged histogram; queries closed under negation; exact 2/n sensitivity in the spend",
        QUERY_METRICS,
        Run::QueryRelease(run_alg5),
    )
.with_work(super::cost::alg5)
    .requiring_delta()
    .with_diagnostics(&["steps", "realised_eps"])
    .with_curves("Thm G.1 with its explicit constants", "", "")
    .audited(&super::audit::ALG5),
    AlgorithmDef::new(
        "ggp_mwem",
        "MWEM (Hardt–Ligett–McSherry 2012), the reference mechanism of Alg. 5 (digest §7.4 item 6): pure eps-DP, \
              T = (n eps sqrt(ln|Z|)/(5 ln|Q|))^(2/3) rounds",
        QUERY_METRICS,
        Run::QueryRelease(run_mwem),
    )
.with_work(super::cost::mwem)
    .with_diagnostics(&["steps", "realised_eps"])
    .audited(&super::audit::MWEM),
];
