//! Options of the Bassily et al. private entries, each declared once as a
//! typed struct (`contract::options!`) with its choices as enums mapped onto
//! the solvers' settings by exhaustive matches. The runs (`sgd`, `objp`) and
//! their audit pairs (`audit`) read the same structs.

use dpcore::Neighbouring;
use solvers::bassily::objp::ObjPAppVariant;
use solvers::bassily::sgd::NoiseCalibration;

use contract::ParamDef;

contract::choices! {
    /// The `calibration` option's values: how NSGD's noise is calibrated.
    pub enum Calibration {
        /// The RDP accountant, to the target eps.
        Accountant = "accountant",
        /// The printed sigma (digest P4).
        Paper = "paper",
    }
}

impl From<Calibration> for NoiseCalibration {
    fn from(c: Calibration) -> Self {
        match c {
            Calibration::Accountant => NoiseCalibration::Accountant,
            Calibration::Paper => NoiseCalibration::Paper,
        }
    }
}

contract::choices! {
    /// The `neighbouring` option's values.
    pub enum NeighbouringOption {
        /// Replace one record (the paper's relation).
        ReplaceOne = "replace_one",
        /// Add or remove one record.
        AddRemove = "add_remove",
    }
}

impl From<NeighbouringOption> for Neighbouring {
    fn from(n: NeighbouringOption) -> Self {
        match n {
            NeighbouringOption::ReplaceOne => Neighbouring::ReplaceOne,
            NeighbouringOption::AddRemove => Neighbouring::AddRemove,
        }
    }
}

/// The `calibration` option of the NSGD entries.
const CALIBRATION: ParamDef = ParamDef::choice(
    "calibration",
    Calibration::NAMES,
    "noise: \"accountant\" calibrates the multiplier with the RDP accountant to the target eps under \
          `neighbouring`; \"paper\" uses the printed sigma^2 = 8 T L^2 ln(1/delta)/(n eps)^2 and reports its \
          realised eps (digest P4)",
)
.default("\"accountant\"")
.option();

/// The `neighbouring` option of the NSGD entries.
const NEIGHBOURING: ParamDef = ParamDef::choice(
    "neighbouring",
    NeighbouringOption::NAMES,
    "the neighbouring relation the guarantee is stated for (the paper's is replace-one, P6)",
)
.default("\"replace_one\"")
.option();

contract::options! {
    /// Options of the NSGD entries (`nsgd`, `nsgd_moreau`, `prox_gd`).
    pub struct NsgdOptions {
        /// How the noise is calibrated.
        pub calibration: Calibration = CALIBRATION,
        /// The neighbouring relation of the guarantee.
        pub neighbouring: NeighbouringOption = NEIGHBOURING,
    }
}

/// The `calibration` option of `nsgd_with_replacement`: `nsgd`'s noise,
/// calibrated for Poisson batches, used on with-replacement ones.
const REPLACEMENT_CALIBRATION: ParamDef = ParamDef::choice(
    "calibration",
    Calibration::NAMES,
    "noise: \"accountant\" is the multiplier the RDP accountant calibrates for Poisson batches at q = m/n \
          under replace-one (nsgd's noise; Thm 3.1's proof cites that accountant for with-replacement \
          batches, digest P5); \"paper\" the printed sigma^2 = 8 T L^2 ln(1/delta)/(n eps)^2",
)
.default("\"accountant\"")
.option();

contract::options! {
    /// Options of `nsgd_with_replacement` (replace-one only, the paper's
    /// relation: its batches are drawn from the data set's own records).
    pub struct NsgdWithReplacementOptions {
        /// How the noise is calibrated (for Poisson batches, as `nsgd`'s).
        pub calibration: Calibration = REPLACEMENT_CALIBRATION,
    }
}

contract::choices! {
    /// The `constants` option's values: Algorithm 3's noise constants.
    pub enum Constants {
        /// The certified constants (digest P12).
        Safe = "safe",
        /// The printed ones (not certified).
        Paper = "paper",
    }
}

impl From<Constants> for ObjPAppVariant {
    fn from(c: Constants) -> Self {
        match c {
            Constants::Safe => ObjPAppVariant::Safe,
            Constants::Paper => ObjPAppVariant::Paper,
        }
    }
}

/// The `constants` option of `objp_app`.
const CONSTANTS: ParamDef = ParamDef::choice(
    "constants",
    Constants::NAMES,
    "noise constants of Algorithm 3: \"safe\" (sigma_G^2 = 40 L^2 ln(2/delta)/eps^2, beta <= eps n lambda/2, \
          sigma_H from the Gaussian mechanism at (eps/2, delta/2); digest P12) or the printed \"paper\" ones \
          (sigma_G^2 = 20 L^2 Lambda/eps^2: not certified)",
)
.default("\"safe\"")
.option();

contract::options! {
    /// Options of `objp_app`.
    pub struct ObjPAppOptions {
        /// Algorithm 3's noise constants.
        pub constants: Constants = CONSTANTS,
    }
}
