//! One evaluated [`Erratum`]: its printed and corrected [`Calibration`], the
//! [`Verdict`] the numbers give, and the [`GaussianAudit`] of single Gaussian
//! releases.

use std::fmt;

use super::number_format::num;
use super::privacy::{Accounting, Privacy};

/// A calibrated quantity (a noise scale, a step-size cap, a charge, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// What the number is, e.g. `σ/Δ`.
    pub symbol: &'static str,
    /// Its value at the row's setting.
    pub value: f64,
    /// Whether a larger value means more privacy (a noise scale) or less (a
    /// step size, a per-release epsilon, an iteration budget).
    pub larger_is_more_private: bool,
}

impl Calibration {
    /// Whether this calibration spends less privacy than `other` (same symbol).
    pub fn more_private_than(&self, other: &Calibration) -> bool {
        if self.larger_is_more_private {
            self.value > other.value
        } else {
            self.value < other.value
        }
    }
}

impl fmt::Display for Calibration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.symbol, num(self.value))
    }
}

/// What the numbers say about a printed calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The realised privacy, computed exactly, is worse than claimed.
    NotPrivate,
    /// The best available bound on the realised privacy is worse than claimed
    /// (the paper's guarantee cannot be certified; the true loss may be smaller).
    NotCertified,
    /// The paper's derivation is wrong, but its slack absorbs the error.
    PrivateBySlack,
    /// Private, with more noise (or a smaller budget) than the target needs.
    PrivateButLoose,
}

impl Verdict {
    /// Derives the verdict: a realised privacy beyond the target is a violation
    /// ([`Verdict::NotPrivate`] if the accounting is exact, else
    /// [`Verdict::NotCertified`]); otherwise the printed calibration is loose if
    /// it is more private than the corrected one, and saved by slack if not.
    pub fn derive(
        realised: &Privacy,
        target: &Privacy,
        accounting: Accounting,
        printed: &Calibration,
        corrected: &Calibration,
    ) -> Verdict {
        if realised.exceeds(target) {
            if accounting.is_exact() {
                Verdict::NotPrivate
            } else {
                Verdict::NotCertified
            }
        } else if printed.more_private_than(corrected) {
            Verdict::PrivateButLoose
        } else {
            Verdict::PrivateBySlack
        }
    }

    /// The wording used in the table.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::NotPrivate => "not private as printed",
            Verdict::NotCertified => "not certified as printed",
            Verdict::PrivateBySlack => "private as printed (slack absorbs the error)",
            Verdict::PrivateButLoose => "private but loose",
        }
    }
}

/// A Gaussian release whose realised privacy can be re-checked with the exact
/// profile: `N(0, sigma^2)` added to a function of L2-sensitivity `sensitivity`,
/// audited at `eps` against `target_delta`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianAudit {
    /// The `eps` at which the profile is evaluated.
    pub eps: f64,
    /// The claimed `delta` at that `eps`.
    pub target_delta: f64,
    /// `(sigma, sensitivity)` of the printed calibration.
    pub printed: (f64, f64),
    /// `(sigma, sensitivity)` of the corrected calibration.
    pub corrected: (f64, f64),
}

/// One calibration erratum, evaluated at one setting.
#[derive(Debug, Clone, PartialEq)]
pub struct Erratum {
    /// Short identifier, e.g. `LR-P2`.
    pub id: &'static str,
    /// The paper (first authors).
    pub paper: &'static str,
    /// Where the digest lists the erratum, e.g. `§9 P2`.
    pub digest_ref: &'static str,
    /// What is calibrated.
    pub calibrated: &'static str,
    /// The parameters at which it is evaluated.
    pub setting: String,
    /// The printed calibration.
    pub printed: Calibration,
    /// The digest's corrected calibration.
    pub corrected: Calibration,
    /// Realised privacy of the printed calibration.
    pub realised: Privacy,
    /// Realised privacy of the corrected calibration.
    pub realised_corrected: Privacy,
    /// The privacy the paper claims.
    pub target: Privacy,
    /// How the realised privacy was computed.
    pub accounting: Accounting,
    /// Derived from the numbers by [`Verdict::derive`].
    pub verdict: Verdict,
    /// Present when the release is a single Gaussian mechanism, for re-checks.
    pub gaussian: Option<GaussianAudit>,
    /// Formulas, assumptions and caveats (rendered as a footnote).
    pub note: String,
}

impl Erratum {
    /// `paper` and `digest_ref` joined, e.g. `Lowy–Razaviyayn §9 P2`.
    pub fn source(&self) -> String {
        format!("{} {}", self.paper, self.digest_ref)
    }
}
