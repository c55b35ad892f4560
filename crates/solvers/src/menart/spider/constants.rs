//! The utility constants of Algorithm 1 (digest §2.1 "privacy-invariant
//! knobs", §6 E1b).

use super::super::Calibration;

/// The utility-only constants of Algorithm 1: the floor constant (paper 32,
/// recommended 48 with the replace-one noise, digest §2.1), the round
/// constant 64 of `c` and `K`, and the test fraction `7/8`. Privacy holds for
/// any values (digest §2.1 "privacy-invariant knobs").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpiderConstants {
    /// Floor constant `c_f` in `(c_f gamma L0 sqrt(K d log(1/beta'))/x)^kappa`.
    pub floor: f64,
    /// Round constant `c_K` in `c = 1 + F0^((2-k)/k)/(c_K gamma^2 L1)` and `K`.
    pub rounds: f64,
    /// Test fraction: steps continue while `||grad|| >= test Phi^(1/k)/gamma`.
    pub test: f64,
}

impl SpiderConstants {
    /// The paper's constants (32, 64, 7/8).
    pub const PAPER: Self = Self {
        floor: 32.0,
        rounds: 64.0,
        test: 0.875,
    };
    /// The digest's constants for the recommended calibration (48, 64, 7/8).
    pub const RECOMMENDED: Self = Self {
        floor: 48.0,
        rounds: 64.0,
        test: 0.875,
    };

    /// The E1b scaled-constant variant (digest §6 E1b): floor `c_f`, round
    /// constant `c_K`, test `7/8`. Never a default.
    pub fn scaled(floor: f64, rounds: f64) -> Self {
        Self {
            floor,
            rounds,
            test: 0.875,
        }
    }

    /// The default for a calibration: [`Self::RECOMMENDED`] or [`Self::PAPER`].
    pub fn for_calibration(calibration: Calibration) -> Self {
        match calibration {
            Calibration::Recommended => Self::RECOMMENDED,
            Calibration::PaperLiteral => Self::PAPER,
        }
    }
}
