//! Algorithm 1 of Menart et al. (KL Spider, `kappa in [1, 2]`, Theorem 1;
//! digest §2.1, §3.1).
//!
//! Round `k = 1..K` targets `Phi_k = max(F0 c^(-k), Phi_floor)`: a fresh
//! noisy full gradient `(1/n) sum clip_L0(grad f) + N(0, sigma_hat^2 I)`, then
//! up to `M_k` normalized steps of length `Phi_k^(1/k)/(4 gamma L1)` while the
//! estimate's norm is at least `(7/8) Phi_k^(1/k)/gamma`, the estimate being
//! updated by noisy Spider differences
//! `(1/n) sum clip_{L1 step}(grad f(w') - grad f(w)) + N(0, sigma_k^2 I)`.
//!
//! # Privacy (replace-one, digest §2.1 table, P1, P2, P6)
//! Sensitivities: `2 L0/n` for a full gradient and
//! `2 L1 step/n = Phi_k^(1/k)/(2 gamma n)` for a difference (both enforced by
//! clipping, and data-independent because the step length is). The default
//! ([`Calibration::Recommended`]) uses the exact-count loop of digest §2.1
//! (`M_k = ceil(T_k)` updates, at most `M'_k = M_k - 1` differences) with
//! `sigma_hat = 2 L0 sqrt(K)/(n sqrt rho)` (cost `rho/(2K)` each, `K` of them)
//! and `sigma_k = Phi_k^(1/k)/(2 gamma n) sqrt(M'_k K/rho)` (cost
//! `rho/(2 K M'_k)` each, at most `M'_k` per round): total `<= rho`, and the
//! floor constant is raised to 48 (digest §2.1). [`Calibration::PaperLiteral`]
//! runs the paper's loop (`while t <= T_k`, one difference per update, output
//! `w_{k,t-1}`) with its noise scales; its true spend is about `2.1 rho`
//! (digest §2.1) and is reported as such. The ledger charges every realised
//! release. The utility constants ([`SpiderConstants`]) never affect privacy,
//! so the E1b scaled variants ([`SpiderConstants::scaled`]) are safe.

mod constants;
mod schedule;

pub use constants::SpiderConstants;
pub use schedule::{SpiderInputs, SpiderSchedule, MAX_ROUNDS};

use super::{add_gaussian, check_finite, norm, Calibration, MenartRun, ZcdpLedger};
use crate::transcript::{Query, Transcript, Unobserved};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand::Rng;

/// Configuration of Algorithm 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlSpider {
    /// Noise calibration and loop (default: recommended).
    pub calibration: Calibration,
    /// Utility constants; `None` means the calibration's default
    /// ([`SpiderConstants::for_calibration`]).
    pub constants: Option<SpiderConstants>,
}

impl Default for KlSpider {
    fn default() -> Self {
        Self {
            calibration: Calibration::Recommended,
            constants: None,
        }
    }
}

impl KlSpider {
    /// The schedule this configuration would use on `inputs` (`None`: trivial).
    pub fn schedule(&self, inputs: SpiderInputs) -> Result<Option<SpiderSchedule>, RunFailure> {
        let constants = self
            .constants
            .unwrap_or(SpiderConstants::for_calibration(self.calibration));
        SpiderSchedule::new(inputs, constants, self.calibration)
    }

    /// Runs Algorithm 1 on `problem` from its start point with the problem's
    /// public constants, budget `rho` and failure probability `beta`.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
        rng: &mut R,
    ) -> Result<MenartRun, RunFailure> {
        let inputs = SpiderInputs::from_problem(problem, rho, beta)?;
        self.run_with(problem, inputs, rng)
    }

    /// Runs Algorithm 1 with explicit inputs (e.g. an inflated `gamma`).
    pub fn run_with<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        inputs: SpiderInputs,
        rng: &mut R,
    ) -> Result<MenartRun, RunFailure> {
        self.run_with_observed(problem, inputs, &mut Unobserved, rng)
    }

    /// [`KlSpider::run_with`], reporting every release the ledger charges
    /// to `transcript`: each round's noisy full gradient
    /// ([`Query::ClippedMeanGradient`] at the round's point) and each noisy
    /// Spider difference ([`Query::ClippedMeanGradientDifference`], its two
    /// points concatenated as `at`), with its noiseless value and noise
    /// scale. The random stream and the result are those of `run_with`.
    pub fn run_with_observed<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        inputs: SpiderInputs,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<MenartRun, RunFailure> {
        let mut w = problem.start_point().to_vec();
        let Some(schedule) = self.schedule(inputs)? else {
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
        let (n, d) = (inputs.n, inputs.d);
        let nf = n as f64;
        let literal = self.calibration == Calibration::PaperLiteral;
        let (mut grad, mut diff, mut prev) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
        let mut ledger = ZcdpLedger::new();
        let (mut evals, mut iterations, mut clipped) = (0u64, 0u64, 0u64);
        let observed = transcript.observes();
        // The noiseless value and the two points of a difference, kept for
        // the transcript only.
        let (mut exact, mut points) = (Vec::new(), Vec::new());
        for k in 1..=schedule.rounds {
            let phi_root = schedule.target(k).powf(1.0 / inputs.kappa);
            let threshold = schedule.constants.test * phi_root / inputs.gamma;
            let step = schedule.step(k);
            let diff_clip = inputs.l1 * step;
            let sigma_k = schedule.sigma_difference(k);
            let updates = schedule.max_updates(k);
            clipped += problem.clipped_mean_gradient(&w, inputs.l0, &mut grad) as u64;
            if observed {
                exact.clone_from(&grad);
            }
            add_gaussian(&mut grad, schedule.sigma_hat, rng);
            if observed {
                let query = Query::ClippedMeanGradient { clip: inputs.l0 };
                transcript.gaussian(query, &w, &exact, &grad, schedule.sigma_hat);
            }
            ledger.charge_gaussian(schedule.sigma_hat, 2.0 * inputs.l0 / nf)?;
            evals += n as u64;
            let mut done = 0u64;
            while done < updates {
                let gn = norm(&grad);
                if gn < threshold {
                    break;
                }
                prev.copy_from_slice(&w);
                w.iter_mut()
                    .zip(&grad)
                    .for_each(|(x, g)| *x -= step * g / gn);
                iterations += 1;
                done += 1;
                if literal || done < updates {
                    clipped += problem
                        .clipped_mean_gradient_difference(&w, &prev, diff_clip, &mut diff)
                        as u64;
                    if observed {
                        exact.clone_from(&diff);
                    }
                    add_gaussian(&mut diff, sigma_k, rng);
                    if observed {
                        points.clear();
                        points.extend_from_slice(&w);
                        points.extend_from_slice(&prev);
                        let query = Query::ClippedMeanGradientDifference { clip: diff_clip };
                        transcript.gaussian(query, &points, &exact, &diff, sigma_k);
                    }
                    ledger.charge_gaussian(sigma_k, 2.0 * diff_clip / nf)?;
                    evals += 2 * n as u64;
                    grad.iter_mut().zip(&diff).for_each(|(g, v)| *g += v);
                }
            }
            if literal && done >= 1 {
                // The paper's w_{k+1,0} = w_{k,t-1} (digest §2.1 erratum, P9).
                w.copy_from_slice(&prev);
            }
            check_finite(&w, "Algorithm 1 iterate")?;
        }
        Ok(MenartRun {
            w,
            gradient_evaluations: evals,
            rho_spent: ledger.spent(),
            iterations,
            releases: ledger.releases(),
            clipped_records: clipped,
            trivial: false,
        })
    }
}
