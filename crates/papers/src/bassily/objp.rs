//! Objective perturbation of Bassily et al. (Algorithms 2 and 3) and the
//! non-private exact ERM reference, as registry entries.
//!
//! Bounds stored per metric (digest §2.3–§2.4, §3):
//! - `excess_population_risk`: `A_ObjP` the corrected Theorem 5.3 bound
//!   `4 M L sqrt(2/n + 4 d Lambda/(eps n)^2)` (erratum P13), with the printed
//!   `2 M L sqrt(...)` as the reference curve; `A_ObjP-App` the derived
//!   explicit curve `B_ObjP-App`. Both capped at the trivial `2 M L`.
//! - `excess_empirical_risk`: the derived `d sigma_G^2/(4 lambda n^2) +
//!   lambda M^2` (tighter than Lemma 5.4, which is the reference curve).
//! - `generalization_gap`: the uniform-stability bound of Lemma 5.5 averaged
//!   over `G` (Eq. 2 of the proof).
//! - `gradient_evaluations` (`objp_app`): theory `tau (n + 2k)` of Theorem 5.8.

use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;
use solvers::bassily::objp::{run_objp, HessianRank, ObjPApp, ObjPRelease, ObjPSetting};

use super::options::ObjPAppOptions;
use contract::{
    AlgorithmDef, CellOutput, Curves, Diagnostics, Metric, Options, Release, Run, RunContext,
};

fn hessian_rank(problem: &dyn Objective) -> HessianRank {
    if problem.rank_one_hessians() {
        HessianRank::AtMostOne
    } else {
        HessianRank::Unknown
    }
}

/// The curves of one release for each risk metric (bound and reference).
fn risk_bounds(ctx: &RunContext, s: &ObjPSetting, r: &ObjPRelease, exact: bool) -> Curves {
    let trivial = s.trivial_bound();
    let (bound, reference) = match ctx.metric {
        Metric::ExcessPopulationRisk if exact => (
            s.theorem_5_3().min(trivial),
            Some(s.theorem_5_3_printed().min(trivial)),
        ),
        Metric::ExcessPopulationRisk => (
            s.objp_app_bound(r.lambda, r.sigma_g, r.alpha, r.sigma_h)
                .min(trivial),
            None,
        ),
        Metric::ExcessEmpiricalRisk if exact => (
            s.empirical_bound(r.lambda, r.sigma_g),
            Some(s.lemma_5_4(r.lambda)),
        ),
        Metric::GeneralizationGap if exact => (s.stability_bound(r.lambda, r.sigma_g), None),
        _ => return Curves::NONE,
    };
    Curves::new(None, Some(bound), reference)
}

fn objp_output(
    ctx: &RunContext,
    problem: &dyn Objective,
    r: &ObjPRelease,
    exact: bool,
) -> Result<CellOutput, RunFailure> {
    let s = ObjPSetting::from_problem(problem, ctx.privacy.approx());
    let evaluations = r.svrg.map_or(0.0, |v| v.gradient_evaluations as f64);
    let curves = match ctx.metric {
        Metric::GradientEvaluations => {
            Curves::new(r.svrg.map(|v| v.theory_gradient_evaluations), None, None)
        }
        _ => risk_bounds(ctx, &s, r, exact),
    };
    let mut diagnostics = Diagnostics::from([
        ("lambda", r.lambda),
        ("sigma_g", r.sigma_g),
        ("sigma_h", r.sigma_h),
        ("alpha", r.alpha),
    ]);
    // The exact A_ObjP runs no SVRG: no certificate, no epochs.
    diagnostics
        .set_opt("certificate", r.svrg.map(|v| v.certificate))
        .set_opt("epochs", r.svrg.map(|v| v.epochs as f64))
        .set("gradient_evaluations", evaluations);
    Ok(CellOutput::new(
        Release::point(r.w.clone(), evaluations),
        curves,
        diagnostics,
    ))
}

/// `A_ObjP` (Algorithm 2): exact minimizer of the perturbed, regularized
/// objective, only on families that compute it exactly (digest P11).
fn run_objp_exact(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let release = run_objp(problem, ctx.privacy.approx(), hessian_rank(problem), rng)?;
    objp_output(ctx, problem, &release, true)
}

/// `A_ObjP-App` (Algorithm 3): certified SVRG plus output noise.
fn run_objp_app(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let algorithm = ObjPApp {
        variant: ObjPAppOptions::read(ctx.options)?.constants.into(),
        ..ObjPApp::default()
    };
    let release = algorithm.run(problem, ctx.privacy.approx(), hessian_rank(problem), rng)?;
    objp_output(ctx, problem, &release, false)
}

/// Non-private exact ERM: the family's certified empirical minimizer over
/// `W` (the reference of digest E1). No bound.
fn run_erm(
    _ctx: &RunContext,
    problem: &dyn Objective,
    _rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    Ok(CellOutput::new(
        Release::point(problem.minimizer().to_vec(), 0.0),
        Curves::NONE,
        Diagnostics::new(),
    ))
}

const OBJP_DIAGNOSTICS: &[&str] = &[
    "lambda",
    "sigma_g",
    "sigma_h",
    "alpha",
    "certificate",
    "epochs",
    "gradient_evaluations",
];

const RISKS: &[Metric] = &[
    Metric::ExcessPopulationRisk,
    Metric::ExcessEmpiricalRisk,
    Metric::GeneralizationGap,
];

/// Algorithms 2-3 take `delta <= 1/n^2` as input: a grid point above it is
/// refused before any cell runs (every cell there would fail).
fn delta_at_most_inverse_n_squared(v: &contract::CostPoint) -> Result<(), (&'static str, String)> {
    let n = v.num("n", f64::NAN);
    let contract::Privacy::Approx(p) = v.privacy else {
        return Ok(());
    };
    if n.is_finite() && n >= 1.0 && p.delta > 1.0 / (n * n) {
        return Err((
            "n",
            format!(
                "objective perturbation takes delta <= 1/n^2 (Algorithms 2-3 input): delta = {:e} is above 1/n^2 = {:e} at n = {n}",
                p.delta,
                1.0 / (n * n)
            ),
        ));
    }
    Ok(())
}

/// Algorithms of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "objp",
        "Bassily et al. A_ObjP (Algorithm 2, Thm 5.3): exact argmin over B(0, M) of F + <G, w>/n + lambda||w||^2, \
              G ~ N(0, 10 L^2 ln(1/delta)/eps^2 I), lambda = (2L/M) sqrt(2/n + 4 d Lambda/(eps n)^2). Needs rank-1 \
              Hessians (Assumption 5.1), beta <= eps n lambda, eps <= 1, delta <= 1/n^2 and a family that solves \
              exactly (lin_ball, least_squares_glm). Bound: the corrected 4 M L sqrt(...) (P13)",
        RISKS,
        Run::Objective(run_objp_exact),
    )
    .only_on(
        &["least_squares_glm", "lin_ball"],
        "it needs rank-one Hessians (Assumption 5.1) and the family's exact perturbed minimizer",
    )
.with_work(super::cost::objp)
    .audited(&super::audit::OBJP)
    .requiring_delta()
    .checking_points(delta_at_most_inverse_n_squared)
    .with_diagnostics(OBJP_DIAGNOSTICS)
    .with_curves("Thm 5.3 bound, corrected constant 4 (P13)", "", "Thm 5.3 as printed (constant 2)"),
    AlgorithmDef::new(
        "objp_app",
        "Bassily et al. A_ObjP-App (Algorithm 3, Thms 5.6-5.8): SVRG on the perturbed objective until a \
              deterministic certificate proves J(w2) - J* <= alpha = M^2 lambda/n^2 (P12: accuracy with certainty), \
              then Proj(w2 + H). Bound: the derived explicit curve B_ObjP-App (digest §2.4)",
        &[
            Metric::ExcessPopulationRisk,
            Metric::ExcessEmpiricalRisk,
            Metric::GeneralizationGap,
            Metric::GradientEvaluations,
        ],
        Run::Objective(run_objp_app),
    )
    .only_on(
        &["least_squares_glm", "lin_ball", "logistic_glm"],
        "it needs rank-one Hessians (Assumption 5.1)",
    )
.with_work(super::cost::objp_app)
    .audited(&super::audit::OBJP_APP)
    .with_options(ObjPAppOptions::PARAMS)
    .requiring_delta()
    .checking_points(delta_at_most_inverse_n_squared)
    .with_diagnostics(OBJP_DIAGNOSTICS)
    .with_curves("B_ObjP-App (derived from Thm 5.7's proof)", "tau (n + 2k) gradient evaluations (Thm 5.8)", ""),
    AlgorithmDef::new(
        "erm",
        "Non-private exact empirical risk minimizer over W (reference of Bassily et al. digest E1)",
        RISKS,
        Run::Objective(run_erm),
    )
    .not_private(),
];
