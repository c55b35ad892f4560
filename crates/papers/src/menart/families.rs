//! Problem families of Menart et al. (digest §4.3, F-A to F-H) as registry
//! entries of kind [`Build::KlObjective`].
//!
//! Every family carries public, data-independent KL constants (digest P7)
//! and an analytic excess (P17). F-A with `spread = 0` and F-B / F-D with
//! `tilt = 0` are **virtual** data sets (nothing stored, `O(d)` oracles), so
//! `n` is only a count and `x = n sqrt(rho)` can reach `1e8` for free
//! (digest §1.7, §6 E1). All constructors panic on out-of-range values; the
//! declared ranges below keep them in range.

use datagen::menart::{
    GemanMcClure, GemanMcClureParams, KnsPl, KnsPlParams, LeastSquares, LeastSquaresParams,
    MeanEstimation, MeanEstimationParams, PhaseRetrieval, PhaseRetrievalParams, PowerRegression,
    PowerRegressionParams, PowerTilt, PowerTiltParams, Theorem8Instance, Theorem8Params,
};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand_pcg::Pcg64;

use contract::{num, Build, FamilyDef, Metric, ParamDef, Values};

const INF: f64 = f64::INFINITY;
const N: ParamDef = ParamDef::int(
    "n",
    1,
    "number of records (a count only for the virtual data sets)",
)
.size();
const N_DESIGN: ParamDef =
    ParamDef::int("n", 1, "number of records (n >= d for a full-rank design)").size();
const D: ParamDef = ParamDef::int("d", 1, "dimension").size();
const START: ParamDef = ParamDef::float(
    "start_distance",
    (0.0, INF, true),
    "R0 = ||w0 - w*|| (digest §6.0: 1)",
)
.default("1.0");
const MARGIN: ParamDef = ParamDef::float(
    "margin",
    (1.0, INF, false),
    "region radius factor R = margin R0 on which L0, L1, gamma hold (digest §6.0: 1.5)",
)
.default("1.5");
const TILT: ParamDef = ParamDef::float(
    "tilt",
    (0.0, INF, false),
    "radius Z of the zero-sum tilts z_i; 0 = virtual data set (any n, O(d) oracles)",
)
.default("0.0");

fn n(v: &Values) -> usize {
    num(v, "n") as usize
}

fn d(v: &Values) -> usize {
    num(v, "d") as usize
}

// Each family's parameters from its values, shared by its builder and by
// its work formula (`runner plan` reads the public constants from them).

pub(super) fn mean_params(v: &Values) -> MeanEstimationParams {
    MeanEstimationParams {
        start_distance: num(v, "start_distance"),
        spread: num(v, "spread"),
        margin: num(v, "margin"),
        ..MeanEstimationParams::new(n(v), d(v))
    }
}

pub(super) fn power_tilt_params(v: &Values) -> PowerTiltParams {
    PowerTiltParams {
        start_distance: num(v, "start_distance"),
        margin: num(v, "margin"),
        tilt: num(v, "tilt"),
        ..PowerTiltParams::new(n(v), d(v), num(v, "p"))
    }
}

pub(super) fn power_regression_params(v: &Values) -> PowerRegressionParams {
    PowerRegressionParams {
        start_distance: num(v, "start_distance"),
        margin: num(v, "margin"),
        ..PowerRegressionParams::new(n(v), d(v), num(v, "p"))
    }
}

pub(super) fn kns_params(v: &Values) -> KnsPlParams {
    KnsPlParams {
        start_distance: num(v, "start_distance"),
        margin: num(v, "margin"),
        tilt: num(v, "tilt"),
        ..KnsPlParams::new(n(v), d(v))
    }
}

pub(super) fn least_squares_params(v: &Values) -> LeastSquaresParams {
    LeastSquaresParams {
        noise: num(v, "noise"),
        region_radius: num(v, "region_radius"),
        ..LeastSquaresParams::new(n(v), d(v))
    }
}

fn build_mean(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    Ok(Box::new(MeanEstimation::new(mean_params(v), rng)))
}

fn build_power_tilt(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    Ok(Box::new(PowerTilt::new(power_tilt_params(v), rng)))
}

fn build_power_regression(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    let problem = PowerRegression::try_new(power_regression_params(v), rng)
        .map_err(RunFailure::InvalidParameters)?;
    Ok(Box::new(problem))
}

fn build_kns(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    Ok(Box::new(KnsPl::new(kns_params(v), rng)))
}

fn build_theorem8(v: &Values, _rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    if n(v) < 2 {
        return Err(RunFailure::InvalidParameters(
            "the Theorem 8 instance needs n >= 2".into(),
        ));
    }
    let params = Theorem8Params {
        start_distance: num(v, "start_distance"),
        margin: num(v, "margin"),
        ..Theorem8Params::new(n(v), num(v, "tau"), num(v, "imbalance"))
    };
    Ok(Box::new(Theorem8Instance::new(params)))
}

fn build_least_squares(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    let problem = LeastSquares::try_new(least_squares_params(v), rng)
        .map_err(RunFailure::InvalidParameters)?;
    Ok(Box::new(problem))
}

fn build_phase_retrieval(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    let params = PhaseRetrievalParams {
        start_distance: num(v, "start_distance"),
        margin: num(v, "margin"),
        ..PhaseRetrievalParams::new(n(v), d(v))
    };
    Ok(Box::new(PhaseRetrieval::new(params, rng)))
}

fn build_geman_mcclure(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn KlObjective>, RunFailure> {
    let base = GemanMcClureParams::new(n(v), d(v));
    let params = GemanMcClureParams {
        start_distance: num(v, "start_factor") * (d(v) as f64).sqrt(),
        tilt: num(v, "tilt"),
        ..base
    };
    Ok(Box::new(GemanMcClure::new(params, rng)))
}

/// Metrics every KL family measures exactly (analytic excess; exact gradient).
const KL_METRICS: &[Metric] = &[Metric::ExcessEmpiricalRisk, Metric::GradientNorm];

pub(crate) const FAMILIES: &[FamilyDef] = &[
    FamilyDef::new(
        "kl_mean_estimation",
        "Menart et al. F-A: f(w; x) = ||w - x||^2/2, x_i = m + s u_i, ||m|| = R0, w0 = 0; PL (kappa = 2) with \
              gamma = 1/sqrt2 exactly, L1 = 1, L0 = B + R_x, F0 = R_x^2/2; analytic excess ||w - xbar||^2/2. \
              spread = 0 is a virtual data set (any n)",
        &[
            N,
            D,
            START,
            ParamDef::float(
                "spread",
                (0.0, INF, false),
                "spread s of the records around m (0 = virtual data set)",
            )
            .default("0.0"),
            MARGIN,
        ],
        KL_METRICS,
        Build::KlObjective(build_mean),
    )
.with_work(super::cost::mean_estimation),
    FamilyDef::new(
        "kl_power_tilt",
        "Menart et al. F-B: f(w; z) = ||w - c||^p/p + <z, w - c>, zero-sum tilts; (gamma, kappa)-KL with equality, \
              kappa = p/(p-1), gamma = p^(-1/kappa); L0 = R^(p-1) + Z, L1 = (p-1) R^(p-2) (p >= 2), F0 = R0^p/p; \
              excess r^p/p. tilt = 0 is a virtual data set (any n)",
        &[
            N,
            D,
            ParamDef::float(
                "p",
                (1.0, INF, true),
                "power p > 1 (kappa = p/(p-1); p < 2 only for Algorithm 2)",
            )
            .default("3.0"),
            START,
            MARGIN,
            TILT,
        ],
        KL_METRICS,
        Build::KlObjective(build_power_tilt),
    )
.with_work(super::cost::power_tilt),
    FamilyDef::new(
        "kl_power_regression",
        "Menart et al. F-C: realisable power regression |<a, w> - b|^p/p, ||a_i|| = 1, p >= 2; public \
              gamma = p^(1/p)/sqrt(mu(n, d)) ~ sqrt(d) (the d-slope doubles), mu the matrix-Chernoff bound on \
              lambda_min at failure 1e-6 (a design below it is refused); O(n d) oracles",
        &[
            N_DESIGN,
            D,
            ParamDef::float(
                "p",
                (2.0, INF, false),
                "power p >= 2 (kappa = p/(p-1) <= 2)",
            )
            .default("3.0"),
            START,
            MARGIN,
        ],
        KL_METRICS,
        Build::KlObjective(build_power_regression),
    )
.with_work(super::cost::power_regression),
    FamilyDef::new(
        "kl_kns_pl",
        "Menart et al. F-D: non-convex PL example sum_j h(w_j - c_j) + <z, w - c>, h(s) = s^2 + 3 sin^2 s; \
              L1 = 8, weak convexity 4, L0 = 8R + Z, gamma = 1/sqrt(2 mu_R) (1.688 globally); tilt = 0 is virtual",
        &[N, D, START, MARGIN, TILT],
        KL_METRICS,
        Build::KlObjective(build_kns),
    )
.with_work(super::cost::kns),
    FamilyDef::new(
        "kl_theorem8",
        "Menart et al. F-E: the d = 1 instance of Theorem 8 (kappa = tau/(tau-1) >= 2), convex, non-smooth; \
              gamma computed on the working region; deterministic data",
        &[
            ParamDef::int(
                "n",
                2,
                "number of records",
            ).size(),
            ParamDef::float(
                "tau",
                (1.0, 2.0, true),
                "growth exponent tau in (1, 2] (kappa = tau/(tau-1))",
            )
            .default("1.5"),
            ParamDef::float(
                "imbalance",
                (0.0, 0.999, true),
                "label imbalance r in (0, 1) (not the privacy rho)",
            )
            .default("0.1"),
            START,
            MARGIN,
        ],
        KL_METRICS,
        Build::KlObjective(build_theorem8),
    )
.with_work(super::cost::theorem8),
    FamilyDef::new(
        "kl_least_squares",
        "Menart et al. F-F: least squares (<x, w> - y)^2/2, x_i on the unit sphere; PL with the public \
              mu(n, d) <= lambda_min(H) (matrix Chernoff at failure 1e-6; a sample below it is refused); \
              excess (w - w^)^T H (w - w^)/2; O(n d) oracles",
        &[
            N_DESIGN,
            D,
            ParamDef::float(
                "noise",
                (0.0, INF, false),
                "label noise amplitude s",
            )
            .default("0.1"),
            ParamDef::float(
                "region_radius",
                (0.0, INF, true),
                "region radius B around w0 = 0",
            )
            .default("2.5"),
        ],
        KL_METRICS,
        Build::KlObjective(build_least_squares),
    )
.with_work(super::cost::least_squares),
    FamilyDef::new(
        "kl_phase_retrieval",
        "Menart et al. F-G: phase retrieval (<a, w>^2 - y)^2/4; non-convex, KL only locally (no certified \
              gamma: Algorithm 3 and Theorem 5 only); excess against the closer of +-w#",
        &[
            N_DESIGN,
            D,
            ParamDef::float(
                "start_distance",
                (0.0, INF, true),
                "R0 = ||w0 - w#|| (local regime: < 1)",
            )
            .default("0.3"),
            MARGIN,
        ],
        KL_METRICS,
        Build::KlObjective(build_phase_retrieval),
    ),
    FamilyDef::new(
        "kl_geman_mcclure",
        "Menart et al. F-H: Geman-McClure robust regression with clean labels and zero-sum tilts (F* = 0), \
              non-convex, not KL: the Theorem 5 (stationarity) family; L0 = 3 sqrt3/8 + Z, L1 = 2, F0 = 1",
        &[
            N,
            D,
            ParamDef::float(
                "start_factor",
                (0.0, INF, true),
                "||w0 - w#|| = start_factor sqrt(d) (flat part of phi)",
            )
            .default("3.0"),
            ParamDef::float(
                "tilt",
                (0.0, INF, false),
                "radius Z of the zero-sum tilts",
            )
            .default("0.1"),
        ],
        KL_METRICS,
        Build::KlObjective(build_geman_mcclure),
    ),
];
