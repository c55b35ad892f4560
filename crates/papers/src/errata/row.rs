//! The row builder shared by the paper modules: a row names its printed and
//! corrected calibration ([`noise`] or [`budget`]), says how their realised
//! privacy is accounted against the claimed target ([`Calibrations::accounted`],
//! [`Calibrations::exact_gaussian`], [`Calibrations::exact_gdp`]), and
//! [`erratum`] assembles it with the derived [`Verdict`].

use mechanisms::calibration::exact_gaussian_delta;

use super::erratum::{Calibration, Erratum, GaussianAudit, Verdict};
use super::privacy::{Accounting, Privacy};

/// Default privacy target of the rows that do not take one from the paper.
pub(crate) const EPS: f64 = 1.0;
/// Default `delta` of the rows that do not take one from the paper.
pub(crate) const DELTA: f64 = 1e-5;

/// A printed calibration next to the digest's corrected one, under one symbol.
pub(crate) struct Calibrations {
    printed: Calibration,
    corrected: Calibration,
}

/// A noise scale (a larger value means more privacy), printed and corrected.
pub(crate) fn noise(symbol: &'static str, printed: f64, corrected: f64) -> Calibrations {
    Calibrations::new(symbol, printed, corrected, true)
}

/// A step size, a per-release epsilon or an iteration budget (a larger value
/// means less privacy), printed and corrected.
pub(crate) fn budget(symbol: &'static str, printed: f64, corrected: f64) -> Calibrations {
    Calibrations::new(symbol, printed, corrected, false)
}

/// The numbers of one row: both calibrations, the privacy each realises, the
/// privacy the paper claims, and how the realised privacy was accounted.
pub(crate) struct Assessment {
    calibrations: Calibrations,
    realised: Privacy,
    realised_corrected: Privacy,
    target: Privacy,
    accounting: Accounting,
    gaussian: Option<GaussianAudit>,
}

impl Calibrations {
    fn new(
        symbol: &'static str,
        printed: f64,
        corrected: f64,
        larger_is_more_private: bool,
    ) -> Self {
        let calibration = |value| Calibration {
            symbol,
            value,
            larger_is_more_private,
        };
        Self {
            printed: calibration(printed),
            corrected: calibration(corrected),
        }
    }

    /// Assessed against `target` by `accounting`, which gives `[printed,
    /// corrected]`: the realised values of the target's free parameter (in the
    /// target's unit, at its fixed parameter).
    pub(crate) fn accounted(
        self,
        target: Privacy,
        accounting: Accounting,
        [printed, corrected]: [f64; 2],
    ) -> Assessment {
        Assessment {
            calibrations: self,
            realised: target.with_value(printed),
            realised_corrected: target.with_value(corrected),
            target,
            accounting,
            gaussian: None,
        }
    }

    /// Each calibration is one Gaussian release `(sigma, sensitivity)`,
    /// assessed with the exact Gaussian profile at `eps` against `target_delta`.
    pub(crate) fn exact_gaussian(
        self,
        eps: f64,
        target_delta: f64,
        printed: (f64, f64),
        corrected: (f64, f64),
    ) -> Assessment {
        let audit = GaussianAudit {
            eps,
            target_delta,
            printed,
            corrected,
        };
        self.audited(audit, Accounting::ExactGaussian)
    }

    /// The whole algorithm is `[printed, corrected]`-GDP (mu), assessed with the
    /// exact GDP profile at `eps` against `target_delta`: mu-GDP is the Gaussian
    /// mechanism with `sigma = 1`, `Delta = mu`.
    pub(crate) fn exact_gdp(
        self,
        eps: f64,
        target_delta: f64,
        [printed, corrected]: [f64; 2],
    ) -> Assessment {
        let audit = GaussianAudit {
            eps,
            target_delta,
            printed: (1.0, printed),
            corrected: (1.0, corrected),
        };
        self.audited(audit, Accounting::ExactGdp)
    }

    /// Realised `delta` at `audit.eps` from the exact profile of each release.
    fn audited(self, audit: GaussianAudit, accounting: Accounting) -> Assessment {
        let delta = |(sigma, sensitivity)| exact_gaussian_delta(audit.eps, sigma, sensitivity);
        let target = Privacy::Delta {
            eps: audit.eps,
            delta: audit.target_delta,
        };
        Assessment {
            gaussian: Some(audit),
            ..self.accounted(
                target,
                accounting,
                [delta(audit.printed), delta(audit.corrected)],
            )
        }
    }
}

/// Erratum `id` of `paper` (listed at `digest_ref` of its digest), which
/// calibrates `calibrated`, evaluated at `setting`; the verdict is derived by
/// [`Verdict::derive`].
pub(crate) fn erratum(
    id: &'static str,
    paper: &'static str,
    digest_ref: &'static str,
    calibrated: &'static str,
    setting: String,
    assessment: Assessment,
    note: String,
) -> Erratum {
    let Assessment {
        calibrations: Calibrations { printed, corrected },
        realised,
        realised_corrected,
        target,
        accounting,
        gaussian,
    } = assessment;
    let verdict = Verdict::derive(&realised, &target, accounting, &printed, &corrected);
    Erratum {
        id,
        paper,
        digest_ref,
        calibrated,
        setting,
        printed,
        corrected,
        realised,
        realised_corrected,
        target,
        accounting,
        verdict,
        gaussian,
        note,
    }
}
