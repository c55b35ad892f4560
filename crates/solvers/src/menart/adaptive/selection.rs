//! The Theorem 5 selection (digest §2.5, §3.5): Algorithm 3 followed by the
//! exponential mechanism over the query points' gradient norms, sampled by
//! streaming Gumbel-max inside the Algorithm 3 loop (see the parent module
//! docs for the privacy split).

use super::{AdaptiveInputs, AdaptiveNoisyGd, AdaptiveRun};
use crate::menart::{check_positive, Calibration, ZcdpLedger};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use mechanisms::selection::{exponential_mechanism_scale, ScoreKind};
use mechanisms::zcdp::compose_rho;
use rand::Rng;

/// Theorem 5: Algorithm 3 followed by the exponential-mechanism selection of
/// a query point by its gradient norm (module docs for the budget split).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StationarySelection {
    /// Calibration of both Algorithm 3 and the selection.
    pub calibration: Calibration,
}

impl StationarySelection {
    /// The `rho` given to Algorithm 3 for a total target `rho`: `2 rho/3`
    /// (recommended) or `rho` (paper-literal, whose total is then `> rho`).
    pub fn algorithm3_budget(&self, rho: f64) -> f64 {
        match self.calibration {
            Calibration::Recommended => 2.0 * rho / 3.0,
            Calibration::PaperLiteral => rho,
        }
    }

    /// Runs Algorithm 3 and the selection; the output is `w_{t*}`.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
        rng: &mut R,
    ) -> Result<AdaptiveRun, RunFailure> {
        let rho_a = self.algorithm3_budget(rho);
        let inputs = AdaptiveInputs::from_problem(problem, rho_a, beta);
        check_positive("rho", rho)?;
        check_positive("L0", inputs.l0)?;
        let n = inputs.n as f64;
        let sens = 2.0 * inputs.l0 / n;
        // Log-weight per unit score: eps/(2 Delta) with eps = sqrt(rho_a)
        // (recommended), or the paper's n sqrt(rho)/(2 L0) = eps'/(2 Delta)
        // with eps' = 2 sqrt(rho).
        let eps = match self.calibration {
            Calibration::Recommended => rho_a.sqrt(),
            Calibration::PaperLiteral => 2.0 * rho.sqrt(),
        };
        let scale = exponential_mechanism_scale(eps, sens, ScoreKind::General)
            .map_err(|e| RunFailure::InvalidParameters(format!("selection: {e}")))?;
        let alg3 = AdaptiveNoisyGd {
            calibration: self.calibration,
        };
        let mut out = alg3.run_inner(problem, inputs, Some(scale), rng)?;
        let mut ledger = ZcdpLedger::new();
        ledger.charge_pure(eps)?;
        out.run.rho_spent = compose_rho(&[out.run.rho_spent, ledger.spent()])
            .map_err(|e| RunFailure::InvalidParameters(format!("accountant: {e}")))?;
        out.run.releases += 1;
        Ok(out)
    }
}
