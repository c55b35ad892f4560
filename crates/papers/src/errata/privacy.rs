//! [`Privacy`], a guarantee in the unit a paper states it in, and
//! [`Accounting`], how the realised privacy of a calibration was computed.

use std::fmt;

use super::formulas::zcdp_to_dp_eps;
use super::number_format::{num, param};

/// Relative tolerance of [`Privacy::exceeds`]: a corrected calibration that
/// meets its target with equality must not be reported as a violation because
/// of rounding.
const TOLERANCE: f64 = 1e-9;

/// A privacy guarantee, in the unit the paper states it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Privacy {
    /// `delta` of an (eps, delta)-DP guarantee at a fixed `eps`.
    Delta {
        /// The fixed `eps`.
        eps: f64,
        /// The `delta` at that `eps`.
        delta: f64,
    },
    /// `eps` of an (eps, delta)-DP guarantee at a fixed `delta`.
    Epsilon {
        /// The `eps` at that `delta`.
        eps: f64,
        /// The fixed `delta`.
        delta: f64,
    },
    /// `rho`-zCDP; `delta` is only used to display the implied `eps`.
    Rho {
        /// The zCDP parameter.
        rho: f64,
        /// The `delta` at which the implied `eps` is displayed.
        delta: f64,
    },
    /// Pure `eps`-DP.
    Pure {
        /// The privacy parameter.
        eps: f64,
    },
}

impl Privacy {
    /// The free parameter: `delta`, `eps`, `rho` or `eps` respectively.
    pub fn value(&self) -> f64 {
        match *self {
            Privacy::Delta { delta, .. } => delta,
            Privacy::Epsilon { eps, .. } | Privacy::Pure { eps } => eps,
            Privacy::Rho { rho, .. } => rho,
        }
    }

    /// Whether this guarantee is weaker than `target` (its free parameter is
    /// larger, beyond a relative tolerance of 1e-9).
    ///
    /// # Panics
    /// If the two are not of the same kind, or are fixed at a different `eps`
    /// (for [`Privacy::Delta`]) or `delta` (for [`Privacy::Epsilon`]).
    pub fn exceeds(&self, target: &Privacy) -> bool {
        let comparable = match (*self, *target) {
            (Privacy::Delta { eps: a, .. }, Privacy::Delta { eps: b, .. }) => a == b,
            (Privacy::Epsilon { delta: a, .. }, Privacy::Epsilon { delta: b, .. }) => a == b,
            (Privacy::Rho { .. }, Privacy::Rho { .. })
            | (Privacy::Pure { .. }, Privacy::Pure { .. }) => true,
            _ => false,
        };
        assert!(comparable, "cannot compare {self:?} with {target:?}");
        self.value() > target.value() * (1.0 + TOLERANCE)
    }

    /// The same kind of guarantee at the same fixed parameter, with the free
    /// parameter (see [`Privacy::value`]) set to `value`.
    pub(crate) fn with_value(self, value: f64) -> Privacy {
        match self {
            Privacy::Delta { eps, .. } => Privacy::Delta { eps, delta: value },
            Privacy::Epsilon { delta, .. } => Privacy::Epsilon { eps: value, delta },
            Privacy::Rho { delta, .. } => Privacy::Rho { rho: value, delta },
            Privacy::Pure { .. } => Privacy::Pure { eps: value },
        }
    }
}

impl fmt::Display for Privacy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Privacy::Delta { eps, delta } => write!(f, "δ = {} at ε = {}", num(delta), param(eps)),
            Privacy::Epsilon { eps, delta } => {
                write!(f, "ε = {} at δ = {}", num(eps), param(delta))
            }
            Privacy::Rho { rho, delta } => write!(
                f,
                "ρ = {} (ε = {} at δ = {})",
                num(rho),
                num(zcdp_to_dp_eps(rho, delta)),
                param(delta)
            ),
            Privacy::Pure { eps } => write!(f, "ε = {} (pure)", num(eps)),
        }
    }
}

/// How the realised privacy of a calibration was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accounting {
    /// The exact Gaussian privacy profile (Balle & Wang 2018, Thm 8).
    ExactGaussian,
    /// The exact (eps, delta) curve of mu-GDP (Dong, Roth & Su, Cor 2.13).
    ExactGdp,
    /// Sum of the zCDP costs `Delta^2/(2 sigma^2)` of the Gaussian releases of a
    /// worst-case run (Bun & Steinke 2016); exact for Gaussian releases.
    ZcdpSum,
    /// The pure-DP guarantee `2 * weight * (score sensitivity)` of the
    /// exponential mechanism, attained by worst-case score changes.
    ExponentialMechanism,
    /// The harness's Poisson-subsampled-Gaussian RDP accountant
    /// (`mechanisms::rdp::RdpAccountant`: default orders, fractional ones
    /// included, Canonne–Kamath–Steinke conversion) under add/remove, with the
    /// sensitivity doubled for replace-one: an upper bound.
    RdpDoubledSensitivity,
    /// The same accountant under add/remove at the add/remove sensitivity,
    /// then group privacy for the two add/remove steps of a replacement,
    /// `(2 eps, (1 + e^eps) delta)`: an upper bound.
    RdpGroupPrivacy,
    /// The harness's PLD accountant (`mechanisms::pld::PldAccountant`:
    /// connect-the-dots on the grid `h = 1e-4`, pessimistic) for
    /// Poisson-subsampled Gaussian steps under the row's relation (for
    /// replace-one, the substitution pair `(1-q)N(0) + qN(∓C)` of a record of
    /// norm `C` and its mirror image): an upper bound, within about 1e-4 of
    /// the exact eps on the held-out points it is tested on.
    Pld,
    /// Advanced composition (Dwork & Roth 2014, Thm 3.20): an upper bound.
    AdvancedComposition,
    /// Pure-DP releases as zCDP (`eps0^2/2` each, Bun & Steinke 2016, Prop
    /// 1.4), composed by adding rho, converted with Canonne–Kamath–Steinke
    /// (2020), `mechanisms::zcdp::cks_eps`: an upper bound.
    ZcdpCks,
    /// Fully adaptive composition (Whitehouse et al. 2023): an upper bound.
    FullyAdaptiveComposition,
    /// The smallest privacy the paper's cited theorem certifies for the printed
    /// constant (no exact profile is known): an upper bound.
    CitedTheorem,
    /// An exponential mechanism of range `eps` (`2 * weight * (score
    /// sensitivity)`) as `eps`-bounded-range, hence `eps^2/8`-zCDP (Cesar &
    /// Rogers 2021): an upper bound.
    BoundedRange,
}

impl Accounting {
    /// Whether the accounting gives the privacy loss itself (rather than an
    /// upper bound on it), so exceeding the target means a real violation.
    pub fn is_exact(self) -> bool {
        matches!(
            self,
            Accounting::ExactGaussian
                | Accounting::ExactGdp
                | Accounting::ZcdpSum
                | Accounting::ExponentialMechanism
        )
    }

    /// Short label for the table.
    pub fn label(self) -> &'static str {
        match self {
            Accounting::ExactGaussian => "exact Gaussian profile",
            Accounting::ExactGdp => "exact GDP profile",
            Accounting::ZcdpSum => "zCDP sum, worst-case run",
            Accounting::ExponentialMechanism => "exponential mechanism",
            Accounting::RdpDoubledSensitivity => "RDP accountant, 2× sensitivity (bound)",
            Accounting::RdpGroupPrivacy => "RDP accountant + group privacy (bound)",
            Accounting::Pld => "PLD accountant, h = 1e-4 (bound)",
            Accounting::AdvancedComposition => "advanced composition (bound)",
            Accounting::FullyAdaptiveComposition => "adaptive composition (bound)",
            Accounting::ZcdpCks => "zCDP of pure DP, CKS conversion (bound)",
            Accounting::CitedTheorem => "cited theorem (bound)",
            Accounting::BoundedRange => "bounded-range exponential mechanism, ε²/8-zCDP (bound)",
        }
    }
}

/// The tightest of several upper bounds on the same privacy parameter, with
/// the accounting that gives it (the first one on ties).
pub(crate) fn tightest(bounds: impl IntoIterator<Item = (f64, Accounting)>) -> (f64, Accounting) {
    bounds
        .into_iter()
        .reduce(|best, next| if next.0 < best.0 { next } else { best })
        .expect("at least one bound")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tightest_takes_the_smallest_bound() {
        let got = tightest([
            (0.9, Accounting::RdpGroupPrivacy),
            (0.8, Accounting::Pld),
            (0.8, Accounting::RdpDoubledSensitivity),
        ]);
        assert_eq!(got, (0.8, Accounting::Pld));
    }
}
