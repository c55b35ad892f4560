//! The privacy definition an algorithm is calibrated for, and the guarantee a
//! grid point asks of it.

use dpcore::PrivacyParams;

/// The privacy definition an algorithm is calibrated for, which decides the
/// privacy parameters its studies set and sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivacyUnit {
    /// `(eps, delta)`-DP (pure when `delta = 0`): studies set `privacy.eps`
    /// and `privacy.delta`.
    EpsDelta,
    /// `rho`-zCDP (Bun–Steinke): studies set `privacy.rho`.
    Zcdp,
}

impl PrivacyUnit {
    /// The privacy parameters a study of this unit may set or sweep.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            PrivacyUnit::EpsDelta => &["eps", "delta"],
            PrivacyUnit::Zcdp => &["rho"],
        }
    }
}

/// The privacy guarantee a grid point asks of its algorithm, in the
/// algorithm's [`PrivacyUnit`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Privacy {
    /// `(eps, delta)`-DP (pure when `delta = 0`).
    Approx(PrivacyParams),
    /// `rho`-zCDP (Bun–Steinke).
    Zcdp(f64),
}

impl Privacy {
    /// The unit of the guarantee.
    pub fn unit(self) -> PrivacyUnit {
        match self {
            Privacy::Approx(_) => PrivacyUnit::EpsDelta,
            Privacy::Zcdp(_) => PrivacyUnit::Zcdp,
        }
    }

    /// `(eps, delta)` of an approximate-DP guarantee. The runner pairs an
    /// [`PrivacyUnit::EpsDelta`] algorithm only with such a guarantee (specs
    /// are validated), so asking a zCDP one is a programming error.
    pub fn approx(self) -> PrivacyParams {
        match self {
            Privacy::Approx(p) => p,
            Privacy::Zcdp(rho) => panic!("an (eps, delta) algorithm was given rho = {rho} zCDP"),
        }
    }

    /// `rho` of a zCDP guarantee (a programming error for an approximate-DP
    /// one, as in [`Privacy::approx`]).
    pub fn rho(self) -> f64 {
        match self {
            Privacy::Zcdp(rho) => rho,
            Privacy::Approx(p) => panic!(
                "a zCDP algorithm was given (eps, delta) = ({}, {})",
                p.eps, p.delta
            ),
        }
    }

    /// The parameters by name, in the order they enter seeds and stored
    /// columns: `eps` then `delta`, or `rho`.
    pub fn values(self) -> Vec<(&'static str, f64)> {
        match self {
            Privacy::Approx(p) => vec![("eps", p.eps), ("delta", p.delta)],
            Privacy::Zcdp(rho) => vec![("rho", rho)],
        }
    }

    /// The same guarantee with parameter `name` (`eps`, `delta` or `rho`) set
    /// to `value` (a grid sweeping it). A name of the other unit is a
    /// programming error (specs are validated).
    pub fn with(self, name: &str, value: f64) -> Privacy {
        match (self, name) {
            (Privacy::Approx(p), "eps") => Privacy::Approx(PrivacyParams { eps: value, ..p }),
            (Privacy::Approx(p), "delta") => Privacy::Approx(PrivacyParams { delta: value, ..p }),
            (Privacy::Zcdp(_), "rho") => Privacy::Zcdp(value),
            (other, _) => panic!("cannot set {name} of {other:?}"),
        }
    }
}
