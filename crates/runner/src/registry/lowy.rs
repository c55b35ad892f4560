//! Lowy–Razaviyayn algorithms as registry entries: the projected conceptual
//! mechanism (Eq. 3, Algorithm 5), Algorithm 1 with its inner solvers, the
//! regularized mechanisms (Eq. 6/7, Algorithm 7) and Algorithm 6. Each run
//! reports the metric with the bound of the theorem it implements.

use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};
use rand_pcg::Pcg64;
use solvers::inner::InnerSolver;
use solvers::lowy_razaviyayn::adversarial::{AdversarialOutputPerturbation, Inflation};
use solvers::lowy_razaviyayn::black_box::{
    BlackBoxOutputPerturbation, BlackBoxRelease, ConceptualProjectedOutputPerturbation, Projection,
};
use solvers::lowy_razaviyayn::bounds::{self, erm, sco, term};
use solvers::lowy_razaviyayn::prescriptions::{Setting, Theorem};
use solvers::lowy_razaviyayn::regularized::{
    prescribed_alpha, Calibration, RegularizedOutputPerturbation,
};

use super::common::{sensitivity_choice, SENSITIVITY};
use super::{choice, num, AlgorithmDef, CellOutput, Metric, ParamDef, ParamKind, RunContext};

pub(super) use super::lowy_families::FAMILIES;

const INNER: ParamDef = ParamDef {
    name: "inner",
    kind: ParamKind::Choice(&["katyusha", "sgd", "subgradient", "agd"]),
    default: Some("\"katyusha\""),
    data_defining: false,
    doc: "inner solver: Katyusha (Alg 3, certified), SGD (Alg 2, in expectation: flagged), \
          full-batch subgradient (deterministic), projected AGD (Alg 4)",
};

const CALIBRATION: ParamDef = ParamDef {
    name: "calibration",
    kind: ParamKind::Choice(&["corrected", "paper"]),
    default: Some("\"corrected\""),
    data_defining: false,
    doc: "Gaussian scale of Algorithm 7: corrected (default) or the printed one, sqrt 2 too small (P2)",
};

const MODE: ParamDef = ParamDef {
    name: "mode",
    kind: ParamKind::Choice(&["conceptual", "black_box"]),
    default: Some("\"conceptual\""),
    data_defining: false,
    doc: "exact regularized minimizer (Eq. 6/7) or Algorithm 7 with an inner solver",
};

const INFLATION: ParamDef = ParamDef {
    name: "inflation",
    kind: ParamKind::Choice(&["corrected", "paper"]),
    default: Some("\"corrected\""),
    data_defining: false,
    doc: "Algorithm 6 sensitivity inflation: Delta + 2 sqrt(2 alpha/mu) (default) or the printed Delta + 2 alpha/mu (P3)",
};

fn inner_solver(name: &str) -> InnerSolver {
    match name {
        "sgd" => InnerSolver::Sgd,
        "subgradient" => InnerSolver::Subgradient,
        "agd" => InnerSolver::Agd,
        _ => InnerSolver::Katyusha,
    }
}

/// Tilted-ERM quantities from the family values: `ln C_tau` and `kappa_tau`.
fn term_constants(ctx: &RunContext, c: &ProblemConstants) -> Option<(f64, f64)> {
    let tau = match ctx.problem.get("tau") {
        Some(super::Value::Num(t)) => *t,
        _ => return None,
    };
    let mu = num(ctx.problem, "mu");
    let range = match choice(ctx.problem, "loss") {
        "nonsmooth" => mu / 2.0 + 2.0,
        _ => 2.0 * mu,
    };
    let kappa = term::kappa_tau(c, tau, term::TermSmoothness::Statement);
    Some((tau * range, kappa))
}

/// The implemented-mechanism diagnostics shared by the black-box entries.
fn black_box_diagnostics(r: &BlackBoxRelease) -> Vec<f64> {
    vec![
        r.sensitivity,
        r.inflated_sensitivity,
        r.noise_scale,
        r.noise_norm_sq,
        r.alpha,
        r.gradient_evaluations as f64,
        if r.accuracy_holds_for_every_data_set {
            1.0
        } else {
            0.0
        },
    ]
}

const BLACK_BOX_DIAGNOSTICS: &[&str] = &[
    "sensitivity",
    "inflated_sensitivity",
    "noise_scale",
    "noise_norm_sq",
    "alpha",
    "gradient_evaluations",
    "accuracy_certified_for_every_data_set",
];

fn output(metric: f64, theory: f64, bound: f64, reference: f64, diag: Vec<f64>) -> CellOutput {
    CellOutput {
        metric,
        theory,
        bound,
        reference,
        diagnostics: diag,
    }
}

fn dims(problem: &dyn Objective) -> (ProblemConstants, usize, usize) {
    (problem.constants(), problem.num_records(), problem.dim())
}

fn run_conceptual_projected(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let mech = ConceptualProjectedOutputPerturbation {
        sensitivity: sensitivity_choice(ctx.options),
    };
    let r = mech.run(problem, ctx.privacy, rng)?;
    let (c, n, d) = dims(problem);
    let p = ctx.privacy;
    let (bound, reference) = match (ctx.metric, term_constants(ctx, &c)) {
        (Metric::ExcessPopulationRisk, _) => (sco::prop_4_1(&c, n, d, p), f64::NAN),
        (_, Some((log_c, _))) => (term::term_conceptual(&c, n, d, p, log_c), f64::NAN),
        _ => (erm::cor_2_1(&c, n, d, p), f64::NAN),
    };
    let metric = ctx.metric.measure(problem, &r.w, 0.0)?;
    Ok(output(
        metric,
        f64::NAN,
        bound,
        reference,
        vec![r.sensitivity, r.noise_scale, r.noise_norm_sq],
    ))
}

fn black_box_bound(ctx: &RunContext, problem: &dyn Objective, p: PrivacyParams) -> (f64, f64) {
    let (c, n, d) = dims(problem);
    if let Some((log_c, kappa)) = term_constants(ctx, &c) {
        return if c.smoothness.is_finite() {
            (
                term::thm_5_2(&c, n, d, p, log_c, kappa),
                term::thm_5_2_printed(&c, n, d, p, log_c, kappa),
            )
        } else {
            (term::thm_5_1(&c, n, d, p, log_c), f64::NAN)
        };
    }
    let smooth = c.smoothness.is_finite();
    let bound = match (ctx.metric, smooth) {
        (Metric::ExcessPopulationRisk, true) => sco::cor_4_2(&c, n, d, p),
        (Metric::ExcessPopulationRisk, false) => sco::cor_4_1(&c, n, d, p),
        (_, true) => erm::thm_3_2_prescribed(&c, n, d, p),
        (_, false) => erm::thm_3_1_prescribed(&c, n, d, p),
    };
    (bound, f64::NAN)
}

/// The gradient evaluations each solver's guarantee prescribes (P9): SGD's
/// `T = ceil(2L^2/(mu alpha))`, Katyusha's `O((n + sqrt(n kappa)) log(LR/alpha))`
/// with the constant of `bounds::katyusha_gradient_evaluations`, AGD's
/// iteration count times `n`, the subgradient method's `T n`.
fn solver_cost(problem: &dyn Objective, solver: InnerSolver, alpha: f64) -> f64 {
    let (c, n, _) = dims(problem);
    match solver {
        InnerSolver::Sgd => bounds::sgd_gradient_evaluations(&c, alpha),
        InnerSolver::Subgradient => bounds::sgd_gradient_evaluations(&c, alpha) * n as f64,
        InnerSolver::Katyusha => bounds::katyusha_gradient_evaluations(&c, n, alpha),
        InnerSolver::Agd => bounds::agd_iterations(&c, alpha) * n as f64,
    }
}

fn run_black_box(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let (c, _, _) = dims(problem);
    let theorem = match term_constants(ctx, &c) {
        Some((log_c_tau, kappa_tau)) if c.smoothness.is_finite() => Theorem::Thm5_2 {
            log_c_tau,
            kappa_tau,
        },
        Some((log_c_tau, _)) => Theorem::Thm5_1 { log_c_tau },
        None if c.smoothness.is_finite() => Theorem::Thm3_2,
        None => Theorem::Thm3_1,
    };
    let alpha = theorem.alpha(&c, &Setting::of(problem, ctx.privacy))?;
    let mech = BlackBoxOutputPerturbation {
        sensitivity: sensitivity_choice(ctx.options),
        solver: inner_solver(choice(ctx.options, "inner")),
        alpha,
        projection: Projection::Auto,
    };
    let r = mech.run(problem, ctx.privacy, rng)?;
    let (bound, reference) = black_box_bound(ctx, problem, ctx.privacy);
    let metric = ctx
        .metric
        .measure(problem, &r.w, r.gradient_evaluations as f64)?;
    let (theory, bound, reference) = match ctx.metric {
        Metric::GradientEvaluations => {
            (solver_cost(problem, mech.solver, alpha), f64::NAN, f64::NAN)
        }
        _ => (f64::NAN, bound, reference),
    };
    Ok(output(
        metric,
        theory,
        bound,
        reference,
        black_box_diagnostics(&r),
    ))
}

fn run_regularized(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let calibration = match choice(ctx.options, "calibration") {
        "paper" => Calibration::Paper,
        _ => Calibration::Corrected,
    };
    let p = ctx.privacy;
    let mech = RegularizedOutputPerturbation::prescribed(
        problem,
        p,
        sensitivity_choice(ctx.options),
        calibration,
    )?;
    let (c, n, d) = dims(problem);
    let smooth = c.smoothness.is_finite();
    let black_box = choice(ctx.options, "mode") == "black_box";
    let r = if black_box {
        let alpha = prescribed_alpha(problem, p)?;
        mech.run_black_box(
            problem,
            p,
            inner_solver(choice(ctx.options, "inner")),
            alpha,
            rng,
        )?
    } else {
        mech.run_conceptual(problem, p, rng)?
    };
    let bound = match (ctx.metric, smooth, black_box) {
        (Metric::ExcessPopulationRisk, false, false) => sco::prop_d_1(&c, n, d, p),
        (Metric::ExcessPopulationRisk, true, false) => sco::prop_d_2(&c, n, d, p),
        (Metric::ExcessPopulationRisk, false, true) => sco::cor_d_1(&c, n, d, p),
        (Metric::ExcessPopulationRisk, true, true) => sco::cor_d_2(&c, n, d, p),
        (Metric::GradientEvaluations, _, _) => f64::NAN,
        (_, false, false) => erm::prop_2_7(&c, n, d, p),
        (_, true, false) => erm::prop_2_8(&c, n, d, p),
        (_, false, true) => erm::thm_c_1_prescribed(&c, n, d, p),
        (_, true, true) => erm::thm_c_2_prescribed(&c, n, d, p),
    };
    let rel = &r.release;
    let metric = ctx
        .metric
        .measure(problem, &rel.w, rel.gradient_evaluations as f64)?;
    let mut diag = black_box_diagnostics(rel);
    diag.push(r.lambda);
    Ok(output(metric, f64::NAN, bound, f64::NAN, diag))
}

fn run_adversarial(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let p = ctx.privacy;
    let mut mech =
        AdversarialOutputPerturbation::prescribed(problem, p, sensitivity_choice(ctx.options))?;
    mech.inflation = match choice(ctx.options, "inflation") {
        "paper" => Inflation::Paper,
        _ => Inflation::Corrected,
    };
    let r = mech.run(problem, p, rng)?;
    let (c, n, d) = dims(problem);
    let bound = match ctx.metric {
        Metric::GradientEvaluations => f64::NAN,
        // G_D is strongly convex and Lipschitz but not globally smooth: the
        // guaranteed rate is the F-class one of Thm 3.1 (Lemma 5.4).
        _ => erm::thm_3_1_prescribed(&c, n, d, p),
    };
    let metric = ctx
        .metric
        .measure(problem, &r.w, r.gradient_evaluations as f64)?;
    Ok(output(
        metric,
        f64::NAN,
        bound,
        f64::NAN,
        black_box_diagnostics(&r),
    ))
}

/// Algorithms of this module.
pub(super) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef {
        name: "op_conceptual_projected",
        doc: "Lowy–Razaviyayn Eq. (3) A' (= Algorithm 5 on the adversarial objective): exact \
              minimizer plus noise, projected onto B(0,R). Bound: Cor 2.1 (F^ERM), Prop 4.1 \
              (population), the conceptual TERM bound (tilted ERM)",
        options: &[SENSITIVITY],
        delta_max: 0.5,
        needs_delta: false,
        metrics: &["excess_empirical_risk", "excess_population_risk"],
        diagnostics: &["sensitivity", "noise_scale", "noise_norm_sq"],
        bound_name: "Cor 2.1 / Prop 4.1 bound",
        theory_name: "",
        reference_name: "",
        run: run_conceptual_projected,
    },
    AlgorithmDef {
        name: "op_black_box",
        doc: "Lowy–Razaviyayn Algorithm 1: inner solver to the prescribed accuracy alpha, noise \
              calibrated to Delta + 2 sqrt(2 alpha/mu); projected for non-smooth problems. Bound: \
              Thm 3.2 (smooth), Thm 3.1 (non-smooth), Cor 4.2/4.1 (population), Thm 5.2 corrected \
              with C_tau^2 and the printed C_tau form as reference (tilted ERM, P7), Thm 5.1",
        options: &[SENSITIVITY, INNER],
        delta_max: 0.5,
        needs_delta: false,
        metrics: &[
            "excess_empirical_risk",
            "excess_population_risk",
            "gradient_evaluations",
        ],
        diagnostics: BLACK_BOX_DIAGNOSTICS,
        bound_name: "theorem bound (Thm 3.1/3.2/5.1/5.2 corrected)",
        theory_name: "solver's prescribed gradient evaluations",
        reference_name: "printed Thm 5.2 bound (C_tau, erratum P7)",
        run: run_black_box,
    },
    AlgorithmDef {
        name: "op_regularized",
        doc: "Lowy–Razaviyayn Eq. (6)/(7) (conceptual) and Algorithm 7 (black box) for the convex \
              classes G (projected) and J (smooth); lambda from Prop 2.7/2.8, alpha from Thm C.1/C.2. \
              Bound: Prop 2.7/2.8, Thm C.1/C.2, Prop/Cor D.1/D.2 (population)",
        options: &[SENSITIVITY, MODE, INNER, CALIBRATION],
        delta_max: 0.5,
        needs_delta: false,
        metrics: &[
            "excess_empirical_risk",
            "excess_population_risk",
            "gradient_evaluations",
        ],
        diagnostics: &[
            "sensitivity",
            "inflated_sensitivity",
            "noise_scale",
            "noise_norm_sq",
            "alpha",
            "gradient_evaluations",
            "accuracy_certified_for_every_data_set",
            "lambda",
        ],
        bound_name: "Prop 2.7/2.8 (conceptual) or Thm C.1/C.2 bound",
        theory_name: "",
        reference_name: "",
        run: run_regularized,
    },
    AlgorithmDef {
        name: "adversarial_black_box",
        doc: "Lowy–Razaviyayn Algorithm 6 on the closed-form adversarial objective: certified \
              gradient descent to the Thm 5.3 accuracy, inflation corrected (P3) or printed, \
              projected output. Bound: Thm 3.1 (G_D is strongly convex and Lipschitz, Lemma 5.4)",
        options: &[SENSITIVITY, INFLATION],
        delta_max: 0.5,
        needs_delta: false,
        metrics: &["excess_empirical_risk", "gradient_evaluations"],
        diagnostics: BLACK_BOX_DIAGNOSTICS,
        bound_name: "Thm 3.1 bound",
        theory_name: "",
        reference_name: "",
        run: run_adversarial,
    },
];
