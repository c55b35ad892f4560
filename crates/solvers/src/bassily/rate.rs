//! The optimal private-SCO rate of Bassily et al. and the conventions every
//! algorithm of the paper shares.

use dpcore::RunFailure;

/// `Lambda = ln(1/delta)`, natural log (digest P14). Requires `0 < delta < 1`.
pub fn log_inv_delta(delta: f64) -> f64 {
    -delta.ln()
}

/// The target rate `R = max(1/sqrt(n), sqrt(d Lambda)/(eps n))` (digest
/// notation, without the factor `M L`).
pub fn rate(n: f64, d: f64, eps: f64, delta: f64) -> f64 {
    (1.0 / n.sqrt()).max((d * log_inv_delta(delta)).sqrt() / (eps * n))
}

/// Checks `0 < delta < 1` and `eps > 0`: every algorithm of the paper is
/// `(eps, delta)`-DP with `delta > 0`.
pub fn check_privacy(eps: f64, delta: f64) -> Result<(), RunFailure> {
    if !(eps > 0.0 && eps.is_finite()) {
        return Err(RunFailure::InvalidParameters(format!(
            "eps must be positive, got {eps}"
        )));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(RunFailure::InvalidParameters(format!(
            "Bassily et al. algorithms need 0 < delta < 1, got {delta}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_switches_at_d_lambda_equal_eps_squared_n() {
        let (d, eps, delta) = (64.0, 0.25, 1e-12);
        let lambda = log_inv_delta(delta);
        let n_star = d * lambda / (eps * eps);
        // Below the kink the privacy term dominates, above it the statistical term.
        let below = rate(n_star / 4.0, d, eps, delta);
        assert!((below - (d * lambda).sqrt() / (eps * n_star / 4.0)).abs() < 1e-15);
        let above = rate(n_star * 4.0, d, eps, delta);
        assert!((above - 1.0 / (n_star * 4.0).sqrt()).abs() < 1e-15);
        assert!((log_inv_delta(1e-12) - 27.631021115928547).abs() < 1e-12);
    }

    #[test]
    fn privacy_check_refuses_pure_dp_and_bad_eps() {
        assert!(check_privacy(1.0, 0.0).is_err());
        assert!(check_privacy(0.0, 1e-6).is_err());
        assert!(check_privacy(1.0, 1e-6).is_ok());
    }
}
