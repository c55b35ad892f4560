//! Baselines of Wang–Zhu–Wang (digest §7): B2 oracle JLGD at the true
//! margin, B1 full-dimension DP-GD (tuned over `M*`'s grid or at the known
//! margin), and B0 the non-private hard-margin SVM, as registry entries.
//!
//! Bounds (`zero_one_error`, averaged iterate, planted `(gamma*, m)`):
//! - B2: Lemma D.1 explicit, `48 sqrt(C_JL L)/(gamma*^2 n mu) + 23 m/(5 gamma* n)`
//!   at the run's GDP `mu` ([`jlgd_bound`]).
//! - B1 known: Lemma C.1 with `Phi = I`, `4 Delta sqrt(d)/(n mu) + (1 + 3/gamma*) m/n`
//!   ([`full_dimension_bound`], `Delta` the run's sensitivity).
//! - B1 tuned: the minimum of that bound over the candidates `gamma~ <= gamma*`
//!   at `mu_p`, plus the selection term of Lemma F.1 (as `B_proof` for `M*`).
//!
//! All capped at 1. `realised_eps` is bounded by the target `eps`.

use dpcore::halfspace::HalfspaceProblem;
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::wang::bounds::{full_dimension_bound, jlgd_bound, selection_expected_excess};
use solvers::wang::{hard_margin_svm, known_margin, m_star, KnownMarginBudget, MarginOptions};

use super::mstar::{halfspace_release, planted, require_unit_rows, shape_reference, METRICS};
use super::options::{FullDimOptions, OracleJlgdOptions, Tuning};
use contract::{AlgorithmDef, CellOutput, Curves, Metric, Options, Release, Run, RunContext};

fn run_oracle_jlgd(
    ctx: &RunContext,
    problem: &dyn HalfspaceProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    require_unit_rows(problem, "wang_oracle_jlgd")?;
    let (gamma, m) = planted(problem);
    let Some(gamma) = gamma.filter(|g| g.is_finite()) else {
        return Err(RunFailure::InvalidParameters(
            "oracle JLGD needs a family with a planted margin".into(),
        ));
    };
    let options = OracleJlgdOptions::read(ctx.options)?;
    let opts = options.m_star();
    let budget = options.budget.into();
    let r = known_margin(problem, gamma, ctx.privacy.approx(), opts, budget, rng)?;
    let n = problem.num_records();
    let nf = n as f64;
    let len = solvers::wang::margin_grid(n, 1.0).len();
    let bound = match ctx.metric {
        Metric::ZeroOneError if !opts.last_iterate => Some(
            jlgd_bound(
                nf,
                gamma,
                m as f64,
                r.mu,
                options.jl_constant,
                len,
                1.0 / (nf * nf),
                1.0,
            )
            .min(1.0),
        ),
        Metric::RealisedEps => Some(ctx.privacy.approx().eps),
        _ => None,
    };
    Ok(CellOutput::new(
        halfspace_release(&r.run.w, r.run.gradient_evaluations, r.privacy.eps),
        Curves::new(None, bound, shape_reference(ctx, problem)),
        [
            ("k", r.run.plan.k as f64),
            ("steps", r.run.plan.steps as f64),
            ("sigma", r.run.plan.sigma),
            ("mu", r.mu),
            ("realised_mu", r.privacy.mu),
        ],
    ))
}

fn run_full_dimension(
    ctx: &RunContext,
    problem: &dyn HalfspaceProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    require_unit_rows(problem, "wang_full_dim_dpgd")?;
    let (gamma, m) = planted(problem);
    let gamma = gamma.filter(|g| g.is_finite());
    let options = FullDimOptions::read(ctx.options)?;
    let opts = options.m_star();
    let (n, d) = (problem.num_records() as f64, problem.dim() as f64);
    let radius = options.radius_factor;
    // Delta = 2 (clip radius)/(gamma/3) = 6 radius_factor b/gamma.
    let sensitivity = |g: f64| 6.0 * radius / g;
    let known = match options.tuning {
        Tuning::Known => true,
        Tuning::Tuned => false,
    };
    let (w, evals, eps, mu_p, selected, gamma_bound) = if known {
        let Some(gamma) = gamma else {
            return Err(RunFailure::InvalidParameters(
                "known-margin DP-GD needs a family with a planted margin".into(),
            ));
        };
        let r = known_margin(
            problem,
            gamma,
            ctx.privacy.approx(),
            opts,
            KnownMarginBudget::Total,
            rng,
        )?;
        let b = full_dimension_bound(n, d, gamma, m as f64, r.mu, r.run.plan.sensitivity, 1.0);
        let evals = r.run.gradient_evaluations;
        (r.run.w, evals, r.privacy.eps, r.mu, gamma, b)
    } else {
        let r = m_star(problem, ctx.privacy.approx(), opts, rng)?;
        let score_sigma = 1.0 / (n * r.mu_per_call);
        // Without a planted margin no candidate qualifies (and no bound is
        // stored below).
        let best = r
            .candidates
            .iter()
            .filter(|c| gamma.is_some_and(|g| c.gamma <= g))
            .map(|c| {
                full_dimension_bound(
                    n,
                    d,
                    c.gamma,
                    m as f64,
                    r.mu_per_call,
                    sensitivity(c.gamma),
                    1.0,
                )
            })
            .fold(f64::INFINITY, f64::min);
        let b = best + selection_expected_excess(score_sigma, r.candidates.len());
        let evals = r.gradient_evaluations;
        (
            r.w,
            evals,
            r.privacy.eps,
            r.mu_per_call,
            r.selected_gamma,
            b,
        )
    };
    let bound = match ctx.metric {
        Metric::ZeroOneError if !opts.last_iterate && gamma.is_some() => Some(gamma_bound.min(1.0)),
        Metric::RealisedEps => Some(ctx.privacy.approx().eps),
        _ => None,
    };
    Ok(CellOutput::new(
        halfspace_release(&w, evals, eps),
        Curves::new(None, bound, shape_reference(ctx, problem)),
        [
            ("selected_gamma", selected),
            ("mu_per_run", mu_p),
            ("gradient_evaluations", evals as f64),
        ],
    ))
}

fn run_hard_margin_svm(
    ctx: &RunContext,
    problem: &dyn HalfspaceProblem,
    _rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    require_unit_rows(problem, "wang_hard_margin_svm")?;
    if matches!(
        ctx.metric,
        Metric::RealisedEps | Metric::GradientEvaluations
    ) {
        return Err(RunFailure::InvalidParameters(
            "the non-private SVM reports only zero-one errors".into(),
        ));
    }
    let cert = hard_margin_svm(problem, MarginOptions::default());
    Ok(CellOutput::new(
        Release::point(cert.direction, 0.0),
        Curves::NONE,
        [
            ("margin_lower", cert.lower),
            ("margin_upper", cert.upper),
            ("iterations", cert.iterations as f64),
        ],
    ))
}

pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "wang_oracle_jlgd",
        "Wang–Zhu–Wang baseline B2: JLGD (Algorithm 1) at the planted margin gamma*, k_gamma* as M*'s \
              candidate, hinge gamma*/3, with the whole mu or M*'s per-call mu_p (E6)",
        METRICS,
        Run::Halfspace(run_oracle_jlgd),
    )
.with_work(super::cost::oracle_jlgd)
    .with_options(OracleJlgdOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&["k", "steps", "sigma", "mu", "realised_mu"])
    .with_curves("Lemma D.1 (explicit constants) at mu", "", "B_shape = 1/(gamma^2 n eps) + m/(gamma n)")
    .audited(&super::audit::ORACLE_JLGD_AUDIT),
    AlgorithmDef::new(
        "wang_full_dim_dpgd",
        "Wang–Zhu–Wang baseline B1: full-dimension DP-GD (Algorithm 5 with Phi = I, same hinge gamma/3, \
              clip and budget), tuned by A_Iter over M*'s grid or at the known gamma*; its bound grows as sqrt(d)",
        METRICS,
        Run::Halfspace(run_full_dimension),
    )
.with_work(super::cost::full_dimension)
    .with_options(FullDimOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&["selected_gamma", "mu_per_run", "gradient_evaluations"])
    .with_curves("Lemma C.1 with Phi = I (4 Delta sqrt(d)/(n mu) + outliers)", "", "B_shape = 1/(gamma^2 n eps) + m/(gamma n)")
    .audited(&super::audit::FULL_DIM_AUDIT),
    AlgorithmDef::new(
        "wang_hard_margin_svm",
        "Wang–Zhu–Wang baseline B0: the non-private hard-margin SVM without bias (certified min-norm \
              point, digest §6.2); the floor",
        &[Metric::ZeroOneError, Metric::PopulationZeroOneError],
        Run::Halfspace(run_hard_margin_svm),
    )
    .not_private()
.with_work(super::cost::hard_margin_svm)
    .with_diagnostics(&["margin_lower", "margin_upper", "iterations"]),
];
