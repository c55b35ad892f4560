//! Option schemas of the Lowy–Razaviyayn registry entries (`inner`,
//! `calibration`, `mode`, `inflation`) and the readers that turn a validated
//! option value into the solver's setting. The shared `sensitivity` option
//! lives in `common`.

use solvers::inner::InnerSolver;
use solvers::lowy_razaviyayn::adversarial::Inflation;
use solvers::lowy_razaviyayn::regularized::Calibration;

use contract::{choice, ParamDef, Values};

/// The `inner` option: which inner solver reaches the prescribed accuracy.
pub(super) const INNER: ParamDef = ParamDef::choice(
    "inner",
    &["katyusha", "sgd", "subgradient", "agd"],
    "inner solver: Katyusha (Alg 3, certified), SGD (Alg 2, in expectation: flagged), \
     full-batch subgradient (deterministic), projected AGD (Alg 4)",
)
.default("\"katyusha\"")
.option();

/// The `calibration` option of `op_regularized`: Algorithm 7's Gaussian scale.
pub(super) const CALIBRATION: ParamDef = ParamDef::choice(
    "calibration",
    &["corrected", "paper"],
    "Gaussian scale of Algorithm 7: corrected (default) or the printed one, sqrt 2 too small (P2)",
)
.default("\"corrected\"")
.option();

/// The `mode` option of `op_regularized`: exact minimizer or black box.
pub(super) const MODE: ParamDef = ParamDef::choice(
    "mode",
    &["conceptual", "black_box"],
    "exact regularized minimizer (Eq. 6/7) or Algorithm 7 with an inner solver",
)
.default("\"conceptual\"")
.option();

/// The `inflation` option of `adversarial_black_box`: Algorithm 6's
/// sensitivity inflation.
pub(super) const INFLATION: ParamDef = ParamDef::choice(
    "inflation",
    &["corrected", "paper"],
    "Algorithm 6 sensitivity inflation: Delta + 2 sqrt(2 alpha/mu) (default) or the printed Delta + 2 alpha/mu (P3)",
)
.default("\"corrected\"")
.option();

/// Reads the `inner` option.
pub(super) fn inner_solver(options: &Values) -> InnerSolver {
    match choice(options, INNER.name) {
        "sgd" => InnerSolver::Sgd,
        "subgradient" => InnerSolver::Subgradient,
        "agd" => InnerSolver::Agd,
        _ => InnerSolver::Katyusha,
    }
}

/// Reads the `calibration` option.
pub(super) fn calibration_choice(options: &Values) -> Calibration {
    match choice(options, CALIBRATION.name) {
        "paper" => Calibration::Paper,
        _ => Calibration::Corrected,
    }
}

/// Reads the `mode` option: whether Algorithm 7 (black box) is selected.
pub(super) fn is_black_box_mode(options: &Values) -> bool {
    choice(options, MODE.name) == "black_box"
}

/// Reads the `inflation` option.
pub(super) fn inflation_choice(options: &Values) -> Inflation {
    match choice(options, INFLATION.name) {
        "paper" => Inflation::Paper,
        _ => Inflation::Corrected,
    }
}
