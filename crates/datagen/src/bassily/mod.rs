//! Problem families for Bassily, Feldman, Talwar, Thakurta (2019), "Private
//! stochastic convex optimization with optimal rates" (digest
//! `bassily-et-al-private-sco.md`, §5 and §6 E1–E3).
//!
//! Every family is **constrained** to the ball `W = B(0, M)` (digest §1.1,
//! P2: `M` is a radius): [`dpcore::Objective::minimizer`] is the exact
//! empirical minimizer over `W`, [`dpcore::Objective::excess_risk`] is
//! `F(w) - min_W F` computed without cancellation, and the population
//! quantities are closed forms or deterministic quadrature (digest §6.0, P19).
//!
//! | family | digest | loss | `L` | `beta_std` |
//! |---|---|---|---|---|
//! | [`LinBall`] | E1 | `-L <w, z>` | `L` | 0 |
//! | [`AbsDeviation`] | E3 | `L abs(<w, z> - tau)` | `L` | `inf` |
//! | [`LeastSquaresGlm`] | E2-LS | `(<w, x> - y)^2 / 2` | `M + a/sqrt2 + b` | 1 |
//! | [`LogisticGlm`] | E2-Logit | `ln(1 + exp(-y <w, x>))` | 1 | 1/4 |
//!
//! Minimizer sensitivity: the digest gives no bound for these constrained,
//! non-strongly-convex problems, so every family reports the diameter `2M`
//! of `W` (always valid) unless its own docs prove a tighter value.

pub mod abs_deviation;
pub mod ball_quadratic;
pub mod bregman;
pub mod glm;
pub mod least_squares;
pub mod lin_ball;
pub mod logistic_glm;

pub use abs_deviation::{AbsDeviation, AbsDeviationParams};
pub use glm::GlmDesign;
pub use least_squares::{LeastSquaresGlm, LeastSquaresGlmParams};
pub use lin_ball::{LinBall, LinBallParams};
pub use logistic_glm::{LogisticGlm, LogisticGlmParams};

use dpcore::RunFailure;

/// `RunFailure::InvalidParameters` with the family name prefixed.
pub(crate) fn invalid(family: &str, msg: String) -> RunFailure {
    RunFailure::InvalidParameters(format!("{family}: {msg}"))
}

/// Checks that `value` is finite and strictly positive.
pub(crate) fn require_positive(family: &str, name: &str, value: f64) -> Result<(), RunFailure> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            family,
            format!("{name} must be finite and > 0, got {value}"),
        ))
    }
}

/// Checks that `value` is finite and `>= 0`.
pub(crate) fn require_nonnegative(family: &str, name: &str, value: f64) -> Result<(), RunFailure> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(
            family,
            format!("{name} must be finite and >= 0, got {value}"),
        ))
    }
}

/// Euclidean projection onto `B(0, radius)`: `u min(1, radius/||u||)` (digest §1.1).
pub fn project_to_ball(u: &mut [f64], radius: f64) {
    let norm = crate::numerics::norm2(u);
    if norm > radius {
        let scale = radius / norm;
        u.iter_mut().for_each(|v| *v *= scale);
    }
}
