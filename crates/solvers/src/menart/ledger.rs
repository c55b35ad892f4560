//! The zCDP ledger of a run: every realised release is charged by the
//! accountant of `mechanisms::zcdp` (Gaussian `Delta^2/(2 sigma^2)`, Bun &
//! Steinke 2016 Prop 1.6; pure eps-DP `eps^2/2`, Prop 1.4) and the charges add
//! (adaptive composition, Lemma 1.7), all under replace-one.

use dpcore::RunFailure;
use mechanisms::zcdp::{compose_rho, gaussian_rho, pure_dp_rho};

/// Running sum of the zCDP costs of the releases of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZcdpLedger {
    spent: f64,
    releases: u64,
}

fn accounting(e: impl std::fmt::Display) -> RunFailure {
    RunFailure::InvalidParameters(format!("accountant: {e}"))
}

impl ZcdpLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Charges a Gaussian release of L2 sensitivity `sensitivity` with noise
    /// `sigma`; returns its cost.
    pub fn charge_gaussian(&mut self, sigma: f64, sensitivity: f64) -> Result<f64, RunFailure> {
        let cost = gaussian_rho(sigma, sensitivity).map_err(accounting)?;
        self.add(cost)?;
        Ok(cost)
    }

    /// Charges an eps-DP release (`eps^2/2`-zCDP); returns its cost.
    pub fn charge_pure(&mut self, eps: f64) -> Result<f64, RunFailure> {
        let cost = pure_dp_rho(eps).map_err(accounting)?;
        self.add(cost)?;
        Ok(cost)
    }

    fn add(&mut self, cost: f64) -> Result<(), RunFailure> {
        self.spent = compose_rho(&[self.spent, cost]).map_err(accounting)?;
        self.releases += 1;
        Ok(())
    }

    /// Total `rho` spent so far.
    pub fn spent(&self) -> f64 {
        self.spent
    }

    /// Number of releases charged.
    pub fn releases(&self) -> u64 {
        self.releases
    }
}
