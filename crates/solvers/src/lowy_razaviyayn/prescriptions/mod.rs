//! Prescribed hyperparameters (accuracy `alpha`, regularization `lambda`) of
//! Lowy & Razaviyayn, digest §3.8 "Prescribed parameters", as pure functions.
//!
//! Shorthand (digest §2.3, §3.8): `s_0 = d/eps` (pure DP),
//! `s_delta = sqrt(d) (c_delta + sqrt(c_delta^2 + eps)) / eps` ((eps, delta)-DP)
//! and `rho = s/n`. Iteration counts are not prescribed here: the inner
//! solvers derive `T` from their own guarantees (digest P9).
//!
//! This module holds the inputs every prescription shares (privacy scale,
//! [`Setting`], [`Form`]) and their validation; the accuracy prescriptions
//! `alpha_*`, the regularization prescriptions `lambda_*` and the [`Theorem`]
//! dispatch live in submodules and are re-exported here.

mod accuracy;
mod regularization;
mod theorem;

pub use accuracy::{
    alpha_thm_3_1, alpha_thm_3_2, alpha_thm_5_1, alpha_thm_5_2, alpha_thm_5_3, alpha_thm_c_1,
    alpha_thm_c_2,
};
pub use regularization::{lambda_prop_2_7, lambda_prop_2_8};
pub use theorem::Theorem;

use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};
use mechanisms::calibration::lowy_c_delta;

/// Rejects privacy parameters outside the paper's domain (digest §1.3):
/// `eps` must be finite and `> 0`, `delta` must be `0` or in `(0, 1/2)`.
pub fn validate_privacy(privacy: PrivacyParams) -> Result<(), RunFailure> {
    if !(privacy.eps.is_finite() && privacy.eps > 0.0) {
        return Err(RunFailure::InvalidParameters(format!(
            "eps must be finite and > 0, got {}",
            privacy.eps
        )));
    }
    crate::output_perturbation::check_delta(privacy)
}

/// The privacy scale `s` of digest §3.8: `s_0 = d/eps` for `delta = 0` and
/// `s_delta = sqrt(d) (c_delta + sqrt(c_delta^2 + eps)) / eps` for `delta > 0`
/// (digest §2.3, with `c_delta` from [`lowy_c_delta`]).
pub fn privacy_scale(d: usize, privacy: PrivacyParams) -> Result<f64, RunFailure> {
    validate_privacy(privacy)?;
    if d == 0 {
        return Err(RunFailure::InvalidParameters("d must be >= 1".into()));
    }
    let (df, eps) = (d as f64, privacy.eps);
    if privacy.is_pure() {
        return Ok(df / eps);
    }
    let c =
        lowy_c_delta(privacy.delta).map_err(|e| RunFailure::InvalidParameters(e.to_string()))?;
    Ok(df.sqrt() * (c + (c * c + eps).sqrt()) / eps)
}

/// `rho = s/n` (digest §2.3): `rho_0 = d/(eps n)` or `rho_delta`. The
/// non-trivial regime is `rho <= 1`.
pub fn rho(n: usize, d: usize, privacy: PrivacyParams) -> Result<f64, RunFailure> {
    Ok(privacy_scale(d, privacy)? / records(n)?)
}

/// Size and privacy of one run, the inputs of every prescription.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// Number of records `n`.
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// Privacy parameters `(eps, delta)`.
    pub privacy: PrivacyParams,
}

impl Setting {
    /// The setting of `problem` (its `n` and `d`) under `privacy`.
    pub fn of(problem: &dyn Objective, privacy: PrivacyParams) -> Self {
        Self {
            n: problem.num_records(),
            d: problem.dim(),
            privacy,
        }
    }
}

/// Whether the objective has ERM form `(1/n) sum_i f(w, x_i)` (sensitivities
/// carry `1/n`) or is a general objective (digest §1.2, P5: no `1/n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// ERM form: `rho = s/n`.
    Erm,
    /// General (non-ERM) objective: `n` is deleted, i.e. `rho` becomes `s`.
    General,
}

impl Form {
    /// `Erm` when the problem exposes a per-record oracle
    /// ([`Objective::finite_sum`]), `General` otherwise (e.g. tilted ERM).
    pub fn of(problem: &dyn Objective) -> Self {
        if problem.finite_sum().is_some() {
            Form::Erm
        } else {
            Form::General
        }
    }

    /// The `n` that divides sensitivities and `s`: `n` for ERM, `1` otherwise.
    pub fn effective_records(self, n: usize) -> f64 {
        match self {
            Form::Erm => n as f64,
            Form::General => 1.0,
        }
    }
}

fn records(n: usize) -> Result<f64, RunFailure> {
    if n == 0 {
        Err(RunFailure::InvalidParameters("n must be >= 1".into()))
    } else {
        Ok(n as f64)
    }
}

/// A constant that must be finite and `> 0`.
fn positive(name: &str, v: f64) -> Result<f64, RunFailure> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "{name} must be finite and > 0, got {v}"
        )))
    }
}

/// A prescription must be a finite positive number.
fn finite(name: &str, v: f64) -> Result<f64, RunFailure> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(RunFailure::NonFinite(format!("{name} evaluated to {v}")))
    }
}

/// Condition number `beta/mu`, allowed to be `+inf` for non-smooth problems
/// (then `min{kappa s^2, 1} = 1`).
fn kappa(c: &ProblemConstants) -> Result<f64, RunFailure> {
    let mu = positive("mu", c.strong_convexity)?;
    if c.smoothness.is_nan() || c.smoothness <= 0.0 {
        return Err(RunFailure::InvalidParameters(format!(
            "beta must be > 0 (or +inf), got {}",
            c.smoothness
        )));
    }
    Ok(c.smoothness / mu)
}

/// `(n, s)` of a setting, validated.
fn n_and_s(at: &Setting) -> Result<(f64, f64), RunFailure> {
    Ok((records(at.n)?, privacy_scale(at.d, at.privacy)?))
}

/// `(L, mu)`, both finite and `> 0`.
fn l_mu(c: &ProblemConstants) -> Result<(f64, f64), RunFailure> {
    Ok((
        positive("L", c.lipschitz)?,
        positive("mu", c.strong_convexity)?,
    ))
}

/// `(L, R)`, both finite and `> 0`.
fn l_r(c: &ProblemConstants) -> Result<(f64, f64), RunFailure> {
    Ok((positive("L", c.lipschitz)?, positive("R", c.radius)?))
}
