//! Options of the Lowy–Razaviyayn registry entries, each declared once as a
//! typed struct (`contract::options!`) whose choices are enums mapped onto the
//! solver's settings by exhaustive matches. The shared `sensitivity` option
//! lives in `common`.

use solvers::inner::InnerSolver;
use solvers::lowy_razaviyayn::adversarial::Inflation as SolverInflation;
use solvers::lowy_razaviyayn::regularized::Calibration as SolverCalibration;

use crate::common::{Sensitivity, SENSITIVITY};
use contract::ParamDef;

contract::choices! {
    /// The `inner` option's values: which inner solver reaches the
    /// prescribed accuracy.
    pub enum Inner {
        /// Katyusha (Alg 3, certified).
        Katyusha = "katyusha",
        /// SGD (Alg 2, in expectation: flagged).
        Sgd = "sgd",
        /// Full-batch subgradient (deterministic).
        Subgradient = "subgradient",
        /// Projected AGD (Alg 4), its prescribed count.
        Agd = "agd",
        /// Projected AGD (Alg 4) stopped at its first gradient-norm
        /// certificate, checked every step.
        AgdCertified = "agd_certified",
    }
}

impl From<Inner> for InnerSolver {
    fn from(inner: Inner) -> Self {
        match inner {
            Inner::Katyusha => InnerSolver::Katyusha,
            Inner::Sgd => InnerSolver::Sgd,
            Inner::Subgradient => InnerSolver::Subgradient,
            Inner::Agd => InnerSolver::Agd,
            Inner::AgdCertified => InnerSolver::AgdCertified,
        }
    }
}

contract::choices! {
    /// The `calibration` option's values: Algorithm 7's Gaussian scale.
    pub enum Calibration {
        /// The corrected scale.
        Corrected = "corrected",
        /// The printed one, sqrt 2 too small (P2).
        Paper = "paper",
    }
}

impl From<Calibration> for SolverCalibration {
    fn from(c: Calibration) -> Self {
        match c {
            Calibration::Corrected => SolverCalibration::Corrected,
            Calibration::Paper => SolverCalibration::Paper,
        }
    }
}

contract::choices! {
    /// The `mode` option's values of `op_regularized`.
    pub enum Mode {
        /// The exact regularized minimizer (Eq. 6/7).
        Conceptual = "conceptual",
        /// Algorithm 7 with an inner solver.
        BlackBox = "black_box",
    }
}

contract::choices! {
    /// The `inflation` option's values: Algorithm 6's sensitivity inflation.
    pub enum Inflation {
        /// `Delta + 2 sqrt(2 alpha/mu)`.
        Corrected = "corrected",
        /// The printed `Delta + 2 alpha/mu` (P3).
        Paper = "paper",
    }
}

impl From<Inflation> for SolverInflation {
    fn from(i: Inflation) -> Self {
        match i {
            Inflation::Corrected => SolverInflation::Corrected,
            Inflation::Paper => SolverInflation::Paper,
        }
    }
}

/// The `inner` option: which inner solver reaches the prescribed accuracy.
const INNER: ParamDef = ParamDef::choice(
    "inner",
    Inner::NAMES,
    "inner solver: Katyusha (Alg 3, certified), SGD (Alg 2, in expectation: flagged), \
     full-batch subgradient (deterministic), projected AGD (Alg 4)",
)
.default("\"katyusha\"")
.option();

contract::options! {
    /// Options of `op_conceptual_projected`.
    pub struct ProjectedOptions {
        /// Which sensitivity bound calibrates the noise.
        pub sensitivity: Sensitivity = SENSITIVITY,
    }
}

contract::options! {
    /// Options of `op_black_box`.
    pub struct BlackBoxOptions {
        /// Which sensitivity bound calibrates the noise.
        pub sensitivity: Sensitivity = SENSITIVITY,
        /// The inner solver.
        pub inner: Inner = INNER,
    }
}

contract::options! {
    /// Options of `op_regularized`.
    pub struct RegularizedOptions {
        /// Which sensitivity bound calibrates the noise.
        pub sensitivity: Sensitivity = SENSITIVITY,
        /// Exact minimizer or black box.
        pub mode: Mode = ParamDef::choice(
            "mode",
            Mode::NAMES,
            "exact regularized minimizer (Eq. 6/7) or Algorithm 7 with an inner solver",
        )
        .default("\"conceptual\"")
        .option(),
        /// The inner solver of the black-box mode.
        pub inner: Inner = INNER,
        /// Algorithm 7's Gaussian scale.
        pub calibration: Calibration = ParamDef::choice(
            "calibration",
            Calibration::NAMES,
            "Gaussian scale of Algorithm 7: corrected (default) or the printed one, sqrt 2 too small (P2)",
        )
        .default("\"corrected\"")
        .option(),
    }
}

contract::options! {
    /// Options of `adversarial_black_box`.
    pub struct AdversarialOptions {
        /// Which sensitivity bound calibrates the noise.
        pub sensitivity: Sensitivity = SENSITIVITY,
        /// Algorithm 6's sensitivity inflation.
        pub inflation: Inflation = ParamDef::choice(
            "inflation",
            Inflation::NAMES,
            "Algorithm 6 sensitivity inflation: Delta + 2 sqrt(2 alpha/mu) (default) or the printed Delta + 2 alpha/mu (P3)",
        )
        .default("\"corrected\"")
        .option(),
    }
}
