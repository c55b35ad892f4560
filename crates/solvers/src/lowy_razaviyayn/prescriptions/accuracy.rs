//! The prescribed accuracy `alpha` of each black-box theorem (digest §3.8).

use super::{finite, kappa, l_mu, l_r, n_and_s, positive, Setting};
use dpcore::{ProblemConstants, RunFailure};

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
