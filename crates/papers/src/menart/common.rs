//! Options, theory inputs and the cell output shared by the Menart et al.
//! algorithm entries (digest §6.0 protocol).
//!
//! Every Menart et al. algorithm is `rho`-zCDP under the replace-one relation
//! ([`contract::PrivacyUnit::Zcdp`]); its run reports the `rho` its ledger summed
//! from the realised noise ([`MenartRun::rho_spent`]). For the metric
//! `realised_rho` the stored bound **and** reference are the target `rho`
//! (so `below_bound` certifies the spend, and `above_reference` shows a
//! paper-literal overspend, digest E5). Diagnostics always start with
//! [`BASE_DIAGNOSTICS`]; the `(eps, delta = 1e-6)` value is the digest's
//! conversion `eps = rho + 2 sqrt(rho log(1/delta))` of the realised `rho`.

use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use mechanisms::zcdp::classic_eps;
use solvers::menart::bounds::TheoryInputs;
use solvers::menart::{Calibration, MenartRun};

use contract::{CellOutput, Metric, ParamDef, Release, RunContext};

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

/// The `beta` option (failure probability of the w.h.p. guarantees).
pub const BETA: ParamDef = ParamDef::float(
    "beta",
    (0.0, 0.999, true),
    "failure probability beta of the theorem (digest §6.0: 0.1)",
)
.default("0.1")
.option();

/// `&'static [&str]` of [`BASE_DIAGNOSTICS`] followed by the given names: the
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

/// Diagnostics every Menart et al. entry stores first.
pub const BASE_DIAGNOSTICS: &[&str] = kl_diagnostics![];

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

/// The theorems' public inputs on `problem` at budget `rho` (`gamma`,
/// `kappa` NaN for a family without KL constants).
pub fn theory_inputs(problem: &dyn KlObjective, rho: f64, beta: f64) -> TheoryInputs {
    let k = problem.kl_constants();
    let (gamma, kappa) = k.kl.map_or((f64::NAN, f64::NAN), |p| (p.gamma, p.kappa));
    TheoryInputs {
        n: problem.num_records() as f64,
        d: problem.dim() as f64,
        rho,
        beta,
        gamma,
        kappa,
        l0: k.lipschitz,
        l1: k.smoothness,
        f0: k.initial_gap,
    }
}

/// The curves stored for a risk or stationarity metric, NaN where none
/// applies (turned into [`contract::Curves`] by [`output`]).
#[derive(Debug, Clone, Copy)]
pub struct KlCurves {
    /// The full theory expression (logs included).
    pub theory: f64,
    /// A certified (w.h.p.) bound, NaN when none.
    pub bound: f64,
    /// A comparison curve, NaN when none.
    pub reference: f64,
}

impl KlCurves {
    /// No curve.
    pub const NONE: KlCurves = KlCurves {
        theory: f64::NAN,
        bound: f64::NAN,
        reference: f64::NAN,
    };
}

/// The cell output of one run: the metric (measured on the family, or the
/// realised `rho` / cost from the run), the curves that apply to the metric,
/// and [`BASE_DIAGNOSTICS`] followed by `extra`.
///
/// `curves` is the pair (excess curves, gradient-norm curves).
pub fn output(
    ctx: &RunContext,
    run: &MenartRun,
    excess: KlCurves,
    gradient_norm: KlCurves,
    extra: &[f64],
) -> Result<CellOutput, RunFailure> {
    let evaluations = run.gradient_evaluations as f64;
    let curves = match ctx.metric {
        Metric::RealisedRho => KlCurves {
            theory: f64::NAN,
            bound: ctx.privacy.rho(),
            reference: ctx.privacy.rho(),
        },
        Metric::ExcessEmpiricalRisk => excess,
        Metric::GradientNorm => gradient_norm,
        _ => KlCurves::NONE,
    };
    let eps =
        classic_eps(run.rho_spent.max(f64::MIN_POSITIVE), DIAGNOSTIC_DELTA).unwrap_or(f64::NAN);
    let mut diagnostics = vec![
        run.rho_spent,
        eps,
        evaluations,
        run.iterations as f64,
        run.releases as f64,
        run.clipped_records as f64,
        f64::from(u8::from(run.trivial)),
    ];
    debug_assert_eq!(diagnostics.len(), BASE_DIAGNOSTICS.len());
    diagnostics.extend_from_slice(extra);
    Ok(CellOutput::from_nan_curves(
        Release::point(run.w.clone(), evaluations).with_realised_privacy(run.rho_spent),
        [curves.theory, curves.bound, curves.reference],
        diagnostics,
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn kl_diagnostics_start_with_the_base_diagnostics() {
        let names: &[&str] = kl_diagnostics!["extra"];
        assert_eq!(
            &names[..super::BASE_DIAGNOSTICS.len()],
            super::BASE_DIAGNOSTICS
        );
        assert_eq!(names.last(), Some(&"extra"));
    }
}
