//! Problem families of Bassily et al. digest §6 (E1–E3), as registry entries.
//!
//! LinBall and AbsDeviation are the worst-case families: their signal `r` is
//! set relative to the private-SCO rate, `r = min(r_factor R(n, d, eps,
//! delta), 0.95)`, so a study sweeps `r_factor` over the digest's grid
//! `{1/4, ..., 16}` and takes the worst case (`worst_case_over = "r_factor"`).
//! Their data therefore depend on the privacy parameters
//! (`privacy_defines_data`).

use datagen::bassily::{
    AbsDeviation, AbsDeviationParams, LeastSquaresGlm, LeastSquaresGlmParams, LinBall,
    LinBallParams, LogisticGlm, LogisticGlmParams,
};
use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;
use solvers::bassily::rate::rate;

use contract::{num, Build, FamilyDef, Metric, ParamDef, Values};

/// The largest signal a worst-case family uses (digest E3: `r in (0, 0.95]`).
pub const MAX_SIGNAL: f64 = 0.95;

const N: ParamDef = ParamDef::int("n", 2, "number of records").size();
const D: ParamDef = ParamDef::int("d", 1, "dimension").size();
const D4: ParamDef = ParamDef::int(
    "d",
    4,
    "dimension (at least 4: the feature design x = (s, v)/sqrt2 with v on S^(d-2), quadrature)",
)
.size();
const R_FACTOR: ParamDef = ParamDef::positive(
    "r_factor",
    "signal r = min(r_factor R(n, d, eps, delta), 0.95), R = max(1/sqrt n, sqrt(d ln(1/delta))/(eps n)); sweep {0.25, ..., 16} and set worst_case_over = \"r_factor\" (digest E1)",
)
.default("1.0");
const LIPSCHITZ: ParamDef =
    ParamDef::positive("lipschitz", "Lipschitz constant L of the loss").default("1.0");
const RADIUS_1: ParamDef =
    ParamDef::positive("radius", "radius M of the domain W = B(0, M)").default("1.0");
const RADIUS_2: ParamDef =
    ParamDef::positive("radius", "radius M of the domain W = B(0, M)").default("2.0");

fn signal(v: &Values) -> f64 {
    let (n, d) = (num(v, "n"), num(v, "d"));
    let r = num(v, "r_factor") * rate(n, d, num(v, "eps"), num(v, "delta"));
    r.min(MAX_SIGNAL)
}

fn build_lin_ball(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let params = LinBallParams {
        lipschitz: num(v, "lipschitz"),
        radius: num(v, "radius"),
        ..LinBallParams::new(num(v, "n") as usize, num(v, "d") as usize, signal(v))
    };
    Ok(Box::new(LinBall::generate(params, rng)?))
}

fn build_abs_deviation(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let params = AbsDeviationParams {
        lipschitz: num(v, "lipschitz"),
        radius: num(v, "radius"),
        ..AbsDeviationParams::new(num(v, "n") as usize, num(v, "d") as usize, signal(v))
    };
    Ok(Box::new(AbsDeviation::generate(params, rng)?))
}

fn build_least_squares(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let params = LeastSquaresGlmParams {
        signal: num(v, "signal"),
        noise: num(v, "noise"),
        radius: num(v, "radius"),
        ..LeastSquaresGlmParams::new(num(v, "n") as usize, num(v, "d") as usize)
    };
    Ok(Box::new(LeastSquaresGlm::generate(params, rng)?))
}

fn build_logistic(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let params = LogisticGlmParams {
        radius: num(v, "radius"),
        ..LogisticGlmParams::new(num(v, "n") as usize, num(v, "d") as usize, num(v, "signal"))
    };
    Ok(Box::new(LogisticGlm::generate(params, rng)?))
}

const RISKS: &[Metric] = &[
    Metric::ExcessEmpiricalRisk,
    Metric::ExcessPopulationRisk,
    Metric::GeneralizationGap,
];

pub(crate) const FAMILIES: &[FamilyDef] = &[
    FamilyDef::new(
        "lin_ball",
        "Bassily et al. digest E1 (LinBall): z = r e_1 + (1-r) u, u uniform on S^(d-1), loss -L<w,z> on \
              W = B(0, M); population excess L r (M - w_1) exactly; beta = 0, rank-0 Hessians; Moreau \
              envelope in closed form (the loss shifted by a constant). The hard instance of the private-SCO rate: take the worst case over r_factor",
        &[N, D, R_FACTOR, LIPSCHITZ, RADIUS_1],
        RISKS,
        Build::Objective(build_lin_ball),
    )
    .with_work(super::cost::lin_ball)
    .privacy_defines_data(),
    FamilyDef::new(
        "abs_deviation",
        "Bassily et al. digest E3: atoms z = ±e_j, loss L|<w,z> - M/sqrt d| on B(0, M), non-smooth; \
              exact population loss and empirical minimizer from counts; closed-form Moreau envelope \
              (Huber gradients). Take the worst case over r_factor",
        &[N, D, R_FACTOR, LIPSCHITZ, RADIUS_1],
        RISKS,
        Build::Objective(build_abs_deviation),
    )
    .with_work(super::cost::abs_deviation)
    .privacy_defines_data(),
    FamilyDef::new(
        "least_squares_glm",
        "Bassily et al. digest E2-LS: x = (s, v)/sqrt2, y = <a e_1, x> + U[-b, b], loss (<w,x> - y)^2/2 on \
              B(0, M); closed-form population loss, exact minimizer and exact objective-perturbation solve",
        &[
            N,
            D4,
            ParamDef::positive(
                "signal",
                "a = ||theta*|| (0 <= a <= M)",
            )
            .default("0.5"),
            ParamDef::positive(
                "noise",
                "half-width b of the uniform label noise",
            )
            .default("0.5"),
            RADIUS_1,
        ],
        RISKS,
        Build::Objective(build_least_squares),
    )
    .with_work(super::cost::least_squares),
    FamilyDef::new(
        "logistic_glm",
        "Bassily et al. digest E2-Logit: x = (s, v)/sqrt2, P(y = 1 | x) = sigmoid(<a e_1, x>), logistic loss on \
              B(0, M); population loss by deterministic quadrature, minimizer by certified Newton",
        &[
            N,
            D4,
            ParamDef::positive(
                "signal",
                "a = ||theta*|| (digest: 1 or 2; a <= M)",
            )
            .default("1.0"),
            RADIUS_2,
        ],
        RISKS,
        Build::Objective(build_logistic),
    ),
];
