//! Algorithm 2 of Menart et al. (private proximal point method, `kappa >= 2`,
//! Theorem 2; digest §2.2, §3.3) with Algorithm 4 ([`noisy_pgd`]) as the
//! subroutine.
//!
//! `T = ceil((1 + 32 F0^((k-2)/k) gamma^2 Lt1) [log F0 + k log(x/(gamma L0 sqrt d))])`,
//! `beta' = beta/T`; round `t` solves `F(w) + Lt1 ||w - w_{t-1}||^2`
//! (coefficient `Lt1`, not `Lt1/2`, digest P15) with Algorithm 4 at budget
//! `rho/T`. A non-positive bracket returns `w0` (P10). `Lt1` defaults to the
//! balanced `F0^((2-k)/k)/gamma^2` (digest §2.2), raised to the family's
//! weak-convexity modulus if that is larger (any `Lt1 >=` the modulus is
//! valid); [`ProximalPoint::prox_weight_factor`] scales it (the E2 `0.1x`,
//! `10x` checks).
//!
//! # Privacy
//! Composition of `T` calls, each `< rho/T` (recommended, module
//! [`noisy_pgd`]): total `< rho`; every release is charged by the ledger.

pub mod noisy_pgd;
pub mod theorem9;

pub use noisy_pgd::{InnerSteps, NoisyPgdInputs};
pub use theorem9::{isotropic_prox_excess, StandaloneNoisyPgd, StandaloneOutcome};

use super::{check_finite, check_positive, Calibration, MenartRun, ZcdpLedger};
use crate::transcript::{Transcript, Unobserved};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use noisy_pgd::{noisy_projected_gd, PgdBuffers};
use rand::Rng;

/// Largest admissible `T * T_in * d` (about `1e11` floating-point updates).
pub const MAX_WORK: f64 = 1e11;

/// Configuration of Algorithm 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProximalPoint {
    /// Noise calibration of Algorithm 4 (default recommended).
    pub calibration: Calibration,
    /// Inner step rule (default Theorem 9).
    pub inner_steps: InnerSteps,
    /// Multiplier of the balanced prox weight (default 1).
    pub prox_weight_factor: f64,
}

impl Default for ProximalPoint {
    fn default() -> Self {
        Self {
            calibration: Calibration::Recommended,
            inner_steps: InnerSteps::Theorem9,
            prox_weight_factor: 1.0,
        }
    }
}

/// The deterministic schedule of Algorithm 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProximalSchedule {
    /// Outer rounds `T`.
    pub rounds: u64,
    /// `beta' = beta/T`.
    pub beta_prime: f64,
    /// Prox weight `Lt1`.
    pub prox_weight: f64,
    /// Inputs of each Algorithm 4 call (budget `rho/T`).
    pub inner: NoisyPgdInputs,
    /// Inner steps `T_in` per call.
    pub inner_steps: u64,
}

impl ProximalPoint {
    /// The schedule on `problem` (`None`: trivial rate, return `w0`).
    pub fn schedule(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
    ) -> Result<Option<ProximalSchedule>, RunFailure> {
        let k = problem.kl_constants();
        let kl = k.kl.ok_or_else(|| {
            RunFailure::InvalidParameters("Algorithm 2 needs KL constants".into())
        })?;
        let (gamma, kappa, l0, f0) = (kl.gamma, kl.kappa, k.lipschitz, k.initial_gap);
        for (name, v) in [("rho", rho), ("gamma", gamma), ("L0", l0), ("F0", f0)] {
            check_positive(name, v)?;
        }
        check_positive("prox_weight_factor", self.prox_weight_factor)?;
        if !(beta > 0.0 && beta < 1.0) || kappa < 2.0 {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 2 needs beta in (0, 1) and kappa >= 2 (got {kappa})"
            )));
        }
        let (n, d) = (problem.num_records(), problem.dim());
        let x = n as f64 * rho.sqrt();
        let bracket = f0.ln() + kappa * (x / (gamma * l0 * (d as f64).sqrt())).ln();
        if bracket <= 0.0 {
            return Ok(None);
        }
        let balanced = f0.powf((2.0 - kappa) / kappa) / (gamma * gamma);
        let lt1 = (self.prox_weight_factor * balanced).max(k.weak_convexity);
        let t_real = (1.0 + 32.0 * f0.powf((kappa - 2.0) / kappa) * gamma * gamma * lt1) * bracket;
        let rounds = t_real.ceil();
        let inner = NoisyPgdInputs {
            n,
            d,
            rho: rho / rounds,
            beta: beta / rounds,
            l0,
            prox_weight: lt1,
        };
        let t_in = inner.inner_steps(self.inner_steps);
        if rounds * t_in * d as f64 > MAX_WORK {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 2 needs T T_in d = {:.3e} > {MAX_WORK:e}",
                rounds * t_in * d as f64
            )));
        }
        Ok(Some(ProximalSchedule {
            rounds: rounds as u64,
            beta_prime: beta / rounds,
            prox_weight: lt1,
            inner,
            inner_steps: t_in as u64,
        }))
    }

    /// Runs Algorithm 2 on `problem` from its start point.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
        rng: &mut R,
    ) -> Result<MenartRun, RunFailure> {
        self.run_observed(problem, rho, beta, &mut Unobserved, rng)
    }

    /// As [`ProximalPoint::run`], reporting every noisy gradient of every
    /// call of Algorithm 4 to `transcript` (the `T (T_in - 1)` releases the
    /// ledger charges). The random stream and the result are those of
    /// [`ProximalPoint::run`].
    pub fn run_observed<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<MenartRun, RunFailure> {
        let mut w = problem.start_point().to_vec();
        let Some(schedule) = self.schedule(problem, rho, beta)? else {
            return Ok(MenartRun {
                w,
                gradient_evaluations: 0,
                rho_spent: 0.0,
                iterations: 0,
                releases: 0,
                clipped_records: 0,
                trivial: true,
            });
        };
        let mut ledger = ZcdpLedger::new();
        let mut buf = PgdBuffers::new(problem.dim());
        let (mut steps, mut clipped) = (0u64, 0u64);
        for _ in 0..schedule.rounds {
            let (s, c) = noisy_projected_gd(
                problem,
                &mut w,
                &schedule.inner,
                schedule.inner_steps,
                self.calibration,
                &mut ledger,
                &mut buf,
                transcript,
                rng,
            )?;
            steps += s;
            clipped += c;
            check_finite(&w, "Algorithm 2 iterate")?;
        }
        Ok(MenartRun {
            w,
            gradient_evaluations: steps * problem.num_records() as u64,
            rho_spent: ledger.spent(),
            iterations: steps,
            releases: ledger.releases(),
            clipped_records: clipped,
            trivial: false,
        })
    }
}
