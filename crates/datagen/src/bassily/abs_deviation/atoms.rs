//! Parameters, compact records and the scalar pieces (fixed sign pattern,
//! cancellation-free weighted excess, Huber envelope) of the
//! absolute-deviation family ([`super::AbsDeviation`], digest §6 E3).

use crate::bassily::{invalid, require_positive};
use dpcore::RunFailure;

pub(crate) const FAMILY: &str = "AbsDeviation";
/// Largest allowed signal `r` (digest §6 E3: `r in (0, 0.95]`).
pub const MAX_SIGNAL: f64 = 0.95;

/// The fixed sign `rho_j in {-1, +1}` of coordinate `j`: the low bit of the
/// SplitMix64 finalizer of `j` (a fixed hash, identical for every data set
/// and every run).
pub fn sign_pattern(j: usize) -> f64 {
    let mut x = (j as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    if x & 1 == 1 {
        1.0
    } else {
        -1.0
    }
}

/// `A abs(x - tau) + B abs(x + tau) - 2 tau min(A, B)` for weights `A, B >= 0`,
/// written piecewise as a sum of non-negative terms (no cancellation):
/// `x >= tau`: `(A + B)(x - tau) + 2 tau (B - A)_+`;
/// `|x| <= tau`: `(A - B)(tau - x)` if `A >= B`, `(B - A)(x + tau)` else;
/// `x <= -tau`: `(A + B)(-tau - x) + 2 tau (A - B)_+`.
pub fn weighted_pair_excess(a: f64, b: f64, tau: f64, x: f64) -> f64 {
    if x >= tau {
        (a + b) * (x - tau) + 2.0 * tau * (b - a).max(0.0)
    } else if x <= -tau {
        (a + b) * (-tau - x) + 2.0 * tau * (a - b).max(0.0)
    } else if a >= b {
        (a - b) * (tau - x)
    } else {
        (b - a) * (x + tau)
    }
}

/// Huber function: the Moreau envelope of `L abs(a)` with parameter `beta`.
pub(crate) fn huber(lipschitz: f64, beta: f64, a: f64) -> f64 {
    if a.abs() * beta <= lipschitz {
        0.5 * beta * a * a
    } else {
        lipschitz * a.abs() - 0.5 * lipschitz * lipschitz / beta
    }
}

/// Parameters of one absolute-deviation instance (digest §6 E3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbsDeviationParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1` (at most `u32::MAX`).
    pub d: usize,
    /// Signal `r in (0, 0.95]`.
    pub r: f64,
    /// Lipschitz constant `L > 0` (default 1).
    pub lipschitz: f64,
    /// Radius `M > 0` of `W = B(0, M)` (default 1).
    pub radius: f64,
}

impl AbsDeviationParams {
    /// Defaults `L = M = 1`.
    pub fn new(n: usize, d: usize, r: f64) -> Self {
        Self {
            n,
            d,
            r,
            lipschitz: 1.0,
            radius: 1.0,
        }
    }

    /// Checks `n >= 1`, `1 <= d <= u32::MAX`, `0 < r <= 0.95`, finite `L, M > 0`.
    pub fn validate(&self) -> Result<(), RunFailure> {
        if self.n == 0 || self.d == 0 || self.d > u32::MAX as usize {
            return Err(invalid(
                FAMILY,
                format!(
                    "need n >= 1 and 1 <= d <= 2^32 - 1, got n = {}, d = {}",
                    self.n, self.d
                ),
            ));
        }
        if !(self.r > 0.0 && self.r <= MAX_SIGNAL) {
            return Err(invalid(
                FAMILY,
                format!("r must lie in (0, 0.95], got {}", self.r),
            ));
        }
        require_positive(FAMILY, "lipschitz", self.lipschitz)?;
        require_positive(FAMILY, "radius", self.radius)
    }

    /// `tau = M / sqrt(d)`.
    pub fn tau(&self) -> f64 {
        self.radius / (self.d as f64).sqrt()
    }
}

/// One record `s e_j`, stored compactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Atom {
    /// The coordinate `j`.
    pub coord: u32,
    /// `true` for `s = +1`.
    pub positive: bool,
}

impl Atom {
    /// `s` as `±1.0`.
    pub fn sign(&self) -> f64 {
        if self.positive {
            1.0
        } else {
            -1.0
        }
    }
}
