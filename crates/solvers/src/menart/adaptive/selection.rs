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
use rand::{Rng, RngExt};

/// Streaming exponential mechanism by the Gumbel-max trick: candidate `t`
/// with score `u_t` gets key `scale u_t + G_t`, `G_t` i.i.d. standard Gumbel,
/// and the arg-max key has law `softmax(scale u)` exactly (the law of the
/// exponential mechanism with log-weight `scale` per unit score), so the
/// candidates need not be stored.
pub(super) struct GumbelMax {
    scale: f64,
    best_key: f64,
    best_index: u64,
}

impl GumbelMax {
    /// An empty stream with log-weight `scale` per unit score.
    pub(super) fn new(scale: f64) -> Self {
        Self {
            scale,
            best_key: f64::NEG_INFINITY,
            best_index: 0,
        }
    }

    /// Offers candidate `index` with score `score`; true if it is the new best.
    pub(super) fn offer<R: Rng + ?Sized>(&mut self, index: u64, score: f64, rng: &mut R) -> bool {
        let u: f64 = rng.random();
        let gumbel = -(-(u.max(f64::MIN_POSITIVE)).ln()).ln();
        let key = self.scale * score + gumbel;
        if key > self.best_key {
            self.best_key = key;
            self.best_index = index;
            true
        } else {
            false
        }
    }

    /// Index of the current best candidate.
    pub(super) fn best_index(&self) -> u64 {
        self.best_index
    }
}

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
            ..AdaptiveNoisyGd::default()
        };
        let mut out = alg3.run_inner(
            problem,
            inputs,
            Some(scale),
            &mut crate::transcript::Unobserved,
            rng,
        )?;
        let mut ledger = ZcdpLedger::new();
        ledger.charge_pure(eps)?;
        out.run.rho_spent = compose_rho(&[out.run.rho_spent, ledger.spent()])
            .map_err(|e| RunFailure::InvalidParameters(format!("accountant: {e}")))?;
        out.run.releases += 1;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::GumbelMax;
    use mechanisms::selection::{exponential_mechanism_probabilities, ScoreKind};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// The streaming selection has the exponential mechanism's law: per-cell
    /// z-tests at |z| < 5.5 (two-sided false-alarm rate ~4e-8 per cell, 5 cells).
    #[test]
    fn streaming_gumbel_max_matches_the_exponential_mechanism() {
        let scores = [0.0, -1.0, -0.3, -2.5, -0.7];
        let (eps, sens) = (2.0, 1.0);
        let scale = 0.5 * eps / sens;
        let probs =
            exponential_mechanism_probabilities(&scores, eps, sens, ScoreKind::General).unwrap();
        let mut rng = Pcg64::seed_from_u64(42);
        let trials = 200_000;
        let mut counts = [0u64; 5];
        for _ in 0..trials {
            let mut g = GumbelMax::new(scale);
            for (i, &s) in scores.iter().enumerate() {
                g.offer(i as u64, s, &mut rng);
            }
            counts[g.best_index() as usize] += 1;
        }
        for (c, p) in counts.iter().zip(&probs) {
            let mean = trials as f64 * p;
            let z = (*c as f64 - mean) / (mean * (1.0 - p)).sqrt();
            assert!(z.abs() < 5.5, "z = {z}");
        }
    }
}
