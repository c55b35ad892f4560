//! Options, theory inputs and the cell output shared by the Menart et al.
//! algorithm entries (digest §6.0 protocol).
//!
//! Every Menart et al. algorithm is `rho`-zCDP under the replace-one relation
//! ([`contract::PrivacyUnit::Zcdp`]); its run reports the `rho` its ledger summed
//! from the realised noise ([`MenartRun::rho_spent`]). For the metric
//! `realised_rho` the stored bound **and** reference are the target `rho`
//! (so `below_bound` certifies the spend, and `above_reference` shows a
//! paper-literal overspend, digest E5). Diagnostics always start with
//! the base names of [`kl_diagnostics!`], which [`output`] sets; the `(eps, delta = 1e-6)` value is the digest's
//! conversion `eps = rho + 2 sqrt(rho log(1/delta))` of the realised `rho`.

use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use mechanisms::zcdp::classic_eps;
use solvers::menart::bounds::{SmoothInputs, TheoryInputs};
use solvers::menart::{Calibration, MenartRun};

use contract::{CellOutput, Curves, Diagnostics, Metric, ParamDef, Release, RunContext};

/// The `delta` of the diagnostic `(eps, delta)` conversion (digest §6.0).
pub const DIAGNOSTIC_DELTA: f64 = 1e-6;

/// The `calibration` option: the digest's replace-one recalibration or the
/// paper's printed noise (named variant, digest §2, P1–P8).
pub const CALIBRATION: ParamDef = ParamDef::choice(
    "calibration",
    CalibrationOption::NAMES,
    "noise calibration: \"recommended\" (digest §2 replace-one recalibration, spend <= rho) or the \
          paper-literal \"paper\" (printed scales and loops; its true spend is reported and may exceed rho)",
)
.default("\"recommended\"")
.option();

/// The Menart families with a finite smoothness `L1`, on which the entries
/// that step `1/(2 L1)` (Algorithm 3, the Theorem 5 selection, DP-GD, the
/// step-count measurement) run.
pub const FINITE_L1_FAMILIES: &[&str] = &[
    "kl_geman_mcclure",
    "kl_kns_pl",
    "kl_least_squares",
    "kl_mean_estimation",
    "kl_phase_retrieval",
    "kl_power_regression",
    "kl_power_tilt",
];

/// Why those entries refuse the other families.
pub const FINITE_L1_WHY: &str = "it needs a finite smoothness L1 (kl_theorem8's is infinite)";

/// The `beta` option (failure probability of the w.h.p. guarantees).
pub const BETA: ParamDef = ParamDef::float(
    "beta",
    (0.0, 0.999, true),
    "failure probability beta of the theorem (digest §6.0: 0.1)",
)
.default("0.1")
.option();

/// `&'static [&str]` of the base diagnostics every Menart et al. entry
/// stores first (set by [`output`]) followed by the given names: the
/// `diagnostics` of a Menart et al. registry entry.
macro_rules! kl_diagnostics {
    ($($extra:literal),* $(,)?) => {
        &[
            "rho_spent",
            "eps_at_delta_1e-6",
            "gradient_evaluations",
            "iterations",
            "releases",
            "clipped_records",
            "trivial",
            $($extra),*
        ]
    };
}
pub(super) use kl_diagnostics;

contract::choices! {
    /// The `calibration` option's values.
    pub enum CalibrationOption {
        /// The digest's replace-one recalibration (spend <= rho).
        Recommended = "recommended",
        /// The paper-literal noise (its true spend may exceed rho).
        Paper = "paper",
    }
}

impl From<CalibrationOption> for Calibration {
    fn from(c: CalibrationOption) -> Self {
        match c {
            CalibrationOption::Recommended => Calibration::Recommended,
            CalibrationOption::Paper => Calibration::PaperLiteral,
        }
    }
}

contract::options! {
    /// Options of the entries with only the shared `calibration` and `beta`
    /// (`kl_adaptive_gd`, `kl_stationary_selection`).
    pub struct KlOptions {
        /// The noise calibration.
        pub calibration: CalibrationOption = CALIBRATION,
        /// Failure probability of the w.h.p. guarantees.
        pub beta: f64 = BETA,
    }
}

/// The public inputs of the expressions that need no KL constant on
/// `problem` at budget `rho`.
pub fn smooth_inputs(problem: &dyn KlObjective, rho: f64, beta: f64) -> SmoothInputs {
    let k = problem.kl_constants();
    SmoothInputs {
        n: problem.num_records() as f64,
        d: problem.dim() as f64,
        rho,
        beta,
        l0: k.lipschitz,
        l1: k.smoothness,
        f0: k.initial_gap,
    }
}

/// The theorems' public inputs on `problem` at budget `rho`; `None` for a
/// family without KL constants (F-G, F-H).
pub fn theory_inputs(problem: &dyn KlObjective, rho: f64, beta: f64) -> Option<TheoryInputs> {
    let kl = problem.kl_constants().kl?;
    Some(smooth_inputs(problem, rho, beta).with_kl(kl.gamma, kl.kappa))
}

/// The cell output of one run: the metric (measured on the family, or the
/// realised `rho` / cost from the run), the curves that apply to the metric
/// (`excess` for the excess risk, `gradient_norm` for the gradient norm), and
/// the base diagnostics of [`kl_diagnostics!`] set beside the entry's own
/// `extra`.
pub fn output(
    ctx: &RunContext,
    run: &MenartRun,
    excess: Curves,
    gradient_norm: Curves,
    mut extra: Diagnostics,
) -> Result<CellOutput, RunFailure> {
    let evaluations = run.gradient_evaluations as f64;
    let curves = match ctx.metric {
        Metric::RealisedRho => Curves::new(None, Some(ctx.privacy.rho()), Some(ctx.privacy.rho())),
        Metric::ExcessEmpiricalRisk => excess,
        Metric::GradientNorm => gradient_norm,
        _ => Curves::NONE,
    };
    // Absent only if the conversion refuses its inputs (it never does at a
    // positive rho and delta = 1e-6).
    let eps = classic_eps(run.rho_spent.max(f64::MIN_POSITIVE), DIAGNOSTIC_DELTA).ok();
    extra
        .set("rho_spent", run.rho_spent)
        .set_opt("eps_at_delta_1e-6", eps)
        .set("gradient_evaluations", evaluations)
        .set("iterations", run.iterations as f64)
        .set("releases", run.releases as f64)
        .set("clipped_records", run.clipped_records as f64)
        .set("trivial", f64::from(u8::from(run.trivial)));
    Ok(CellOutput::new(
        Release::point(run.w.clone(), evaluations).with_realised_privacy(run.rho_spent),
        curves,
        extra,
    ))
}
