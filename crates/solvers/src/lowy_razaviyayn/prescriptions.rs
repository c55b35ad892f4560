//! Prescribed hyperparameters (accuracy `alpha`, regularization `lambda`) of
//! Lowy & Razaviyayn, digest §3.8 "Prescribed parameters", as pure functions.
//!
//! Shorthand (digest §2.3, §3.8): `s_0 = d/eps` (pure DP),
//! `s_delta = sqrt(d) (c_delta + sqrt(c_delta^2 + eps)) / eps` ((eps, delta)-DP)
//! and `rho = s/n`. Iteration counts are not prescribed here: the inner
//! solvers derive `T` from their own guarantees (digest P9).

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
    if privacy.delta == 0.0 || (privacy.delta > 0.0 && privacy.delta < 0.5) {
        Ok(())
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "delta must be 0 or in (0, 1/2), got {}",
            privacy.delta
        )))
    }
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

/// Thm 3.1 / Cor 3.1 (`F^ERM`, SGD): `alpha = L^2/(mu n) min{1/n, s}`.
pub fn alpha_thm_3_1(c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
    let ((l, mu), (n, s)) = (l_mu(c)?, n_and_s(at)?);
    finite("alpha (Thm 3.1)", l * l / (mu * n) * (1.0 / n).min(s))
}

/// Thm 3.2 / Cor 3.2 (`H^ERM`, Katyusha): `alpha = L^2/(mu n^2) min{kappa s^2, 1}`.
pub fn alpha_thm_3_2(c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
    let ((l, mu), (n, s), k) = (l_mu(c)?, n_and_s(at)?, kappa(c)?);
    finite(
        "alpha (Thm 3.2)",
        l * l / (mu * n * n) * (k * s * s).min(1.0),
    )
}

/// Thm C.1 / Cor C.1 (`G^ERM`, SGD on `F_lambda`):
/// `alpha = L R rho_0^{3/2} / (1 + d/eps)^2` for `delta = 0` and
/// `alpha = L R rho_delta^{3/2}` for `delta > 0`.
pub fn alpha_thm_c_1(c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
    let ((l, r), (n, s)) = (l_r(c)?, n_and_s(at)?);
    let base = l * r * (s / n).powf(1.5);
    let alpha = if at.privacy.is_pure() {
        base / ((1.0 + s) * (1.0 + s))
    } else {
        base
    };
    finite("alpha (Thm C.1)", alpha)
}

/// Thm C.2 / Cor C.2 (`J^ERM`, Katyusha on `F_lambda`):
/// `alpha = min{L^{4/3} R^{2/3} beta^{-1/3} s^{-2/3} n^{-4/3}, beta^{1/3} L^{2/3} R^{4/3} rho^{2/3}}`.
///
/// The printed first terms, `(eps/d)^{2/3} n^{-4/3}` (`delta = 0`) and
/// `rho_delta^{-2/3} n^{-2}` (`delta > 0`), are both `s^{-2/3} n^{-4/3}`.
pub fn alpha_thm_c_2(c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
    let ((l, r), (n, s)) = (l_r(c)?, n_and_s(at)?);
    let beta = positive("beta", c.smoothness)?;
    let first = (l.powi(4) * r * r / (beta * s * s)).cbrt() / n.powf(4.0 / 3.0);
    let second = (beta * l * l * r.powi(4)).cbrt() * (s / n).powf(2.0 / 3.0);
    finite("alpha (Thm C.2)", first.min(second))
}

/// Thm 5.1 (TERM, full subgradient method):
/// `alpha = L^2 C_tau/(mu n) min{C_tau/n, s}`, evaluated in log space from
/// `ln C_tau = tau (A_R - a_R)` because `C_tau` overflows for large `tau`
/// (digest P16). An overflowing `alpha` is a `RunFailure::NonFinite`.
pub fn alpha_thm_5_1(
    c: &ProblemConstants,
    at: &Setting,
    log_c_tau: f64,
) -> Result<f64, RunFailure> {
    let ((l, mu), (n, s)) = (l_mu(c)?, n_and_s(at)?);
    let lc = log_c_tau_checked(log_c_tau)?;
    let log_alpha = 2.0 * l.ln() + lc - (mu * n).ln() + (lc - n.ln()).min(s.ln());
    finite("alpha (Thm 5.1)", log_alpha.exp())
}

/// Thm 5.2 (TERM, AGD): `alpha = L^2/(mu n^2) min{kappa_tau s^2, C_tau^2}` in
/// log space (digest P16), with the caller's `kappa_tau` (`(beta + tau L^2)/mu`
/// or `(beta + 2 tau L^2)/mu`, digest §4.4).
pub fn alpha_thm_5_2(
    c: &ProblemConstants,
    at: &Setting,
    log_c_tau: f64,
    kappa_tau: f64,
) -> Result<f64, RunFailure> {
    let ((l, mu), (n, s)) = (l_mu(c)?, n_and_s(at)?);
    let (k, lc) = (
        positive("kappa_tau", kappa_tau)?,
        log_c_tau_checked(log_c_tau)?,
    );
    let log_min = (k.ln() + 2.0 * s.ln()).min(2.0 * lc);
    finite(
        "alpha (Thm 5.2)",
        (2.0 * l.ln() - mu.ln() - 2.0 * n.ln() + log_min).exp(),
    )
}

fn log_c_tau_checked(log_c_tau: f64) -> Result<f64, RunFailure> {
    if log_c_tau.is_finite() && log_c_tau >= 0.0 {
        Ok(log_c_tau)
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "ln C_tau must be finite and >= 0, got {log_c_tau}"
        )))
    }
}

/// Thm 5.3 / Cor 5.1 (adversarial training, Algorithm 6):
/// `alpha = L^2/(mu n^2) min{kappa s^2, 1}` (the formula of Thm 3.2; with an
/// infinite smoothness the minimum is 1).
pub fn alpha_thm_5_3(c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
    alpha_thm_3_2(c, at)
}

/// Prop 2.7 (`G`, regularized, conceptual and Thm C.1):
/// `lambda = L / (R sqrt(1 + n/s))`; the general (non-ERM) form is
/// `L / (R sqrt(1 + 1/s))`.
pub fn lambda_prop_2_7(c: &ProblemConstants, at: &Setting, form: Form) -> Result<f64, RunFailure> {
    let ((l, r), (_, s)) = (l_r(c)?, n_and_s(at)?);
    let n = form.effective_records(at.n);
    finite("lambda (Prop 2.7)", l / (r * (1.0 + n / s).sqrt()))
}

/// Prop 2.8 (`J`, regularized, conceptual and Thm C.2):
/// `lambda = (beta L^2 / R^2)^{1/3} rho^{2/3}`; the general form uses `s`
/// in place of `rho`.
pub fn lambda_prop_2_8(c: &ProblemConstants, at: &Setting, form: Form) -> Result<f64, RunFailure> {
    let ((l, r), (_, s)) = (l_r(c)?, n_and_s(at)?);
    let beta = positive("beta", c.smoothness)?;
    let rho = s / form.effective_records(at.n);
    finite(
        "lambda (Prop 2.8)",
        (beta * l * l / (r * r)).cbrt() * rho.powf(2.0 / 3.0),
    )
}

/// Which theorem's prescription a run uses (digest §3.8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Theorem {
    /// Thm 3.1 (`F^ERM`, Algorithm 1 + SGD, projected output).
    Thm3_1,
    /// Thm 3.2 (`H^ERM`, Algorithm 1 + Katyusha).
    Thm3_2,
    /// Thm C.1 (`G^ERM`, Algorithm 7 + SGD, `lambda` of Prop 2.7).
    ThmC1,
    /// Thm C.2 (`J^ERM`, Algorithm 7 + Katyusha, `lambda` of Prop 2.8).
    ThmC2,
    /// Thm 5.1 (TERM, full subgradient method).
    Thm5_1 {
        /// `ln C_tau = tau (A_R - a_R)`.
        log_c_tau: f64,
    },
    /// Thm 5.2 (smooth TERM, AGD).
    Thm5_2 {
        /// `ln C_tau = tau (A_R - a_R)`.
        log_c_tau: f64,
        /// Condition number `kappa_tau` of `F_tau`.
        kappa_tau: f64,
    },
    /// Thm 5.3 (adversarial training, Algorithm 6).
    Thm5_3,
}

impl Theorem {
    /// The regularized prescription for a convex class: Thm C.1 when the
    /// problem is non-smooth (`beta = inf`), Thm C.2 otherwise.
    pub fn regularized_for(c: &ProblemConstants) -> Self {
        if c.smoothness.is_finite() {
            Theorem::ThmC2
        } else {
            Theorem::ThmC1
        }
    }

    /// The theorem's label, e.g. `"Thm 3.1"`.
    pub fn label(&self) -> &'static str {
        match self {
            Theorem::Thm3_1 => "Thm 3.1",
            Theorem::Thm3_2 => "Thm 3.2",
            Theorem::ThmC1 => "Thm C.1",
            Theorem::ThmC2 => "Thm C.2",
            Theorem::Thm5_1 { .. } => "Thm 5.1",
            Theorem::Thm5_2 { .. } => "Thm 5.2",
            Theorem::Thm5_3 => "Thm 5.3",
        }
    }

    /// The prescribed accuracy `alpha` (dispatches to the `alpha_*` functions).
    pub fn alpha(&self, c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
        match *self {
            Theorem::Thm3_1 => alpha_thm_3_1(c, at),
            Theorem::Thm3_2 => alpha_thm_3_2(c, at),
            Theorem::ThmC1 => alpha_thm_c_1(c, at),
            Theorem::ThmC2 => alpha_thm_c_2(c, at),
            Theorem::Thm5_1 { log_c_tau } => alpha_thm_5_1(c, at, log_c_tau),
            Theorem::Thm5_2 {
                log_c_tau,
                kappa_tau,
            } => alpha_thm_5_2(c, at, log_c_tau, kappa_tau),
            Theorem::Thm5_3 => alpha_thm_5_3(c, at),
        }
    }

    /// The prescribed `lambda`: Prop 2.7 for Thm C.1, Prop 2.8 for Thm C.2,
    /// `None` for the unregularized theorems.
    pub fn lambda(
        &self,
        c: &ProblemConstants,
        at: &Setting,
        form: Form,
    ) -> Result<Option<f64>, RunFailure> {
        match self {
            Theorem::ThmC1 => lambda_prop_2_7(c, at, form).map(Some),
            Theorem::ThmC2 => lambda_prop_2_8(c, at, form).map(Some),
            _ => Ok(None),
        }
    }
}
