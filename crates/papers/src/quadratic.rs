//! The E1 diagonal quadratic (Lowy–Razaviyayn digest §8 E1) and the
//! conceptual output-perturbation mechanism of Eq. (2).

use datagen::quadratic::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;

use crate::common::{run_output_perturbation_conceptual, OutputPerturbationOptions};
use contract::{num, AlgorithmDef, Build, FamilyDef, Metric, Options, ParamDef, Run, Values};

const DIAGONAL_QUADRATIC_PARAMS: &[ParamDef] = &[
    ParamDef::int("n", 2, "number of records").size(),
    ParamDef::int("d", 1, "dimension").size(),
    ParamDef::positive("beta", "largest Hessian eigenvalue (smoothness)").default("1.0"),
    ParamDef::float(
        "kappa",
        (1.0, f64::INFINITY, false),
        "condition number beta/mu; eigenvalues linearly spaced in [mu, beta]",
    )
    .default("1.0"),
];

fn build_diagonal_quadratic(
    values: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn Objective>, RunFailure> {
    let params = DiagonalQuadraticParams {
        n: num(values, "n") as usize,
        d: num(values, "d") as usize,
        beta: num(values, "beta"),
        kappa: num(values, "kappa"),
    };
    params.validate().map_err(RunFailure::InvalidParameters)?;
    Ok(Box::new(DiagonalQuadratic::generate(params, rng)))
}

/// Every registered problem family.
pub(crate) const FAMILIES: &[FamilyDef] = &[FamilyDef::new(
    "diagonal_quadratic",
    "Lowy–Razaviyayn digest §8 E1: f(w,x) = ½(w−x)ᵀH(w−x), H diagonal in [mu, beta], \
          x uniform in the unit ball; w* = mean (closed form), L = 2 beta, R = 1",
    DIAGONAL_QUADRATIC_PARAMS,
    &[Metric::ExcessEmpiricalRisk],
    Build::Objective(build_diagonal_quadratic),
)];

/// Every registered algorithm.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[AlgorithmDef::new(
    "output_perturbation_conceptual",
    "Lowy–Razaviyayn Eq. (2): exact minimizer plus noise; delta = 0: Gamma(d, Delta/eps) \
          radius x uniform direction; delta > 0: Gaussian with the ZWB c_delta calibration. \
          Bound: Cor 2.2 (with the digest's corrected Prop 2.4(b))",
    &[Metric::ExcessEmpiricalRisk, Metric::ExcessPopulationRisk],
    Run::Objective(run_output_perturbation_conceptual),
)
    .only_on(
        &["abs_deviation", "adversarial_logistic", "diagonal_quadratic", "least_squares_glm", "lin_ball", "logistic", "logistic_glm", "sco_quadratic", "sharp", "term"],
        "its noise is calibrated to the minimizer's sensitivity, infinite on the families without strong convexity or a bounded-minimizer argument",
    )
.with_options(OutputPerturbationOptions::PARAMS)
.delta_below(0.5)
.with_diagnostics(&["sensitivity", "noise_scale", "noise_norm_sq"])
.with_curves(
    "Cor 2.2 bound (corrected Prop 2.4(b))",
    "exact E[excess] (Prop 2.4, equality for H = βI)",
    "",
)
.audited(&crate::lowy_razaviyayn::audit::OUTPUT_PERTURBATION_CONCEPTUAL)];
