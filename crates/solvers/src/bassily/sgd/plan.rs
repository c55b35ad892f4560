//! Configuration and noise calibration of the `A_NSGD` family: which
//! gradients are used (smooth loss, exact Moreau envelope, approximate prox),
//! the clip norm `C` each needs (digest P9, P10), and the noise on the mean
//! gradient — RDP-accountant calibrated (default) or the paper's printed
//! `sigma^2 = 8 T C^2 Lambda/(n^2 eps^2)` (digest P4).

use super::schedule::{envelope_smoothness, prox_accuracy, prox_inner_iterations, NsgdSchedule};
use crate::dp_sgd::{calibrate_poisson_gaussian, poisson_gaussian_realised_eps};
use dpcore::{Neighbouring, Objective, PrivacyParams, RunFailure};

/// Which per-record gradients `A_NSGD` averages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NsgdVariant {
    /// `A_NSGD` on the loss itself (Algorithm 1, Theorem 3.2); clip `C = L`.
    #[default]
    Smooth,
    /// NSGD on the unconstrained Moreau envelope with exact (closed-form)
    /// prox from [`Objective::envelope`] (Theorem 4.4, derived variant); clip
    /// `C = L`, bound `14 M L R`.
    MoreauEnvelope,
    /// `A_ProxGD`: the envelope gradient with each prox computed by inner
    /// projected subgradient descent (Fact 4.6) from record gradients only;
    /// clip `C = L (1 + 1/n)`. Costs about `T m ceil(36 M^2/xi^2)` record
    /// gradients: use it at `n <= ~200` only.
    ProxGd,
}

/// How the noise on the mean gradient is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoiseCalibration {
    /// Smallest noise multiplier whose realised `eps` under the declared
    /// relation is `<= eps` ([`crate::dp_sgd::calibrate_poisson_gaussian`]).
    #[default]
    Accountant,
    /// The paper's `sigma^2 = 8 T C^2 Lambda/(n^2 eps^2)`; its realised `eps`
    /// is computed and may exceed the target (about `eps/2` add/remove,
    /// `1.03–1.16 eps` replace-one with the classical conversion of digest
    /// P4; less with the accountant's tight conversion), flagged by
    /// [`NsgdNoise::exceeds_target`].
    Paper,
}

/// The Gaussian noise of one configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NsgdNoise {
    /// How it was chosen.
    pub calibration: NoiseCalibration,
    /// The neighbouring relation `realised_eps` holds for.
    pub relation: Neighbouring,
    /// Clip norm `C` of every per-record gradient.
    pub clip: f64,
    /// Noise standard deviation per coordinate on the mean gradient (the
    /// batch sum divided by the fixed `m`, digest P5); 0 in the trivial regime.
    pub sigma: f64,
    /// Add/remove noise multiplier `z = m sigma / C`; 0 in the trivial regime.
    pub noise_multiplier: f64,
    /// Realised `eps` at the target `delta` under `relation` (0 in the
    /// trivial regime, where no data is touched).
    pub realised_eps: f64,
    /// True when `realised_eps` exceeds the target (only possible for
    /// [`NoiseCalibration::Paper`]).
    pub exceeds_target: bool,
}

impl NsgdNoise {
    /// Calibrates the noise of `schedule` for per-record gradients clipped to
    /// `clip` (Accountant: error if the accountant cannot meet the target).
    pub fn calibrate(
        schedule: &NsgdSchedule,
        clip: f64,
        calibration: NoiseCalibration,
        relation: Neighbouring,
    ) -> Result<Self, RunFailure> {
        let mut noise = Self {
            calibration,
            relation,
            clip,
            sigma: 0.0,
            noise_multiplier: 0.0,
            realised_eps: 0.0,
            exceeds_target: false,
        };
        if schedule.trivial {
            return Ok(noise);
        }
        let (q, steps, m) = (
            schedule.sampling_rate(),
            schedule.steps,
            schedule.batch as f64,
        );
        let PrivacyParams { eps, delta } = schedule.privacy;
        match calibration {
            NoiseCalibration::Accountant => {
                let calibrated = calibrate_poisson_gaussian(eps, delta, q, steps, relation)?;
                noise.noise_multiplier = calibrated.noise_multiplier;
                noise.sigma = calibrated.noise_multiplier * clip / m;
                noise.realised_eps = calibrated.realised_eps;
            }
            NoiseCalibration::Paper => {
                noise.sigma = schedule.paper_sigma(clip);
                noise.noise_multiplier = m * noise.sigma / clip;
                noise.realised_eps = poisson_gaussian_realised_eps(
                    noise.noise_multiplier,
                    q,
                    steps,
                    delta,
                    relation,
                )?;
            }
        }
        noise.exceeds_target = noise.realised_eps > eps;
        Ok(noise)
    }
}

/// Everything a run needs, computed once per (problem size, privacy) so that
/// repetitions reuse the calibration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NsgdPlan {
    /// The gradients the plan was made for.
    pub variant: NsgdVariant,
    /// `T, m, eta` (Theorem 3.2).
    pub schedule: NsgdSchedule,
    /// Clip and noise.
    pub noise: NsgdNoise,
    /// `beta_env` for the envelope variants (Theorem 4.4).
    pub envelope_smoothness: Option<f64>,
    /// `xi` for `A_ProxGD`.
    pub prox_accuracy: Option<f64>,
    /// Inner iterations per prox for `A_ProxGD`, `ceil(36 M^2/xi^2)`.
    pub inner_iterations: Option<u64>,
    /// Whether the gradients used are smooth enough for Theorem 3.2
    /// (`beta <= beta_env`; always true for the envelope variants). Privacy
    /// does not depend on it.
    pub smoothness_condition_holds: bool,
}

/// Largest admissible `T m d ceil(36 M^2/xi^2)` for `A_ProxGD` (about 1e10
/// floating-point updates).
pub const MAX_PROX_WORK: f64 = 1e10;

/// The `A_NSGD` family: which gradients, how the noise is calibrated, the
/// neighbouring relation the privacy guarantee is stated for, and the public
/// record count the schedule is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nsgd {
    /// Gradients used.
    pub variant: NsgdVariant,
    /// Noise calibration.
    pub calibration: NoiseCalibration,
    /// Declared neighbouring relation (the paper's is replace-one).
    pub relation: Neighbouring,
    /// The public `n` every data-independent quantity is computed from:
    /// `T`, `m`, `eta`, `q = m/n`, `sigma`, the trivial-regime flag and the
    /// envelope and prox parameters ([`Nsgd::schedule_n`]). Under replace-one
    /// the data set's size is public (both neighbours have it), so `None`
    /// means that size, and a declared value must equal it. Under add/remove
    /// the size is what differs between neighbours, so a declared bound is
    /// required: a schedule read off the data set's own size would run `D`
    /// and `D'` with different `T`, `m` or `sigma` (or release `w_0` on one
    /// side only at the trivial-regime boundary), which the add/remove
    /// accountant does not cover.
    pub public_n: Option<usize>,
}

impl Default for Nsgd {
    fn default() -> Self {
        Self {
            variant: NsgdVariant::Smooth,
            calibration: NoiseCalibration::Accountant,
            relation: Neighbouring::ReplaceOne,
            public_n: None,
        }
    }
}

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

impl Nsgd {
    /// The public `n` the schedule of a run on `records` records is computed
    /// from ([`Nsgd::public_n`]).
    ///
    /// Errors (`InvalidParameters`): under replace-one, a declared `n` other
    /// than `records`; under add/remove, no declared `n`, or `records` above
    /// it (the declared `n` bounds the larger neighbour).
    pub fn schedule_n(&self, records: usize) -> Result<usize, RunFailure> {
        match (self.relation, self.public_n) {
            (Neighbouring::ReplaceOne, None) => Ok(records),
            (Neighbouring::ReplaceOne, Some(n)) if n == records => Ok(n),
            (Neighbouring::ReplaceOne, Some(n)) => Err(invalid(format!(
                "replace-one NSGD declared n = {n} for a data set of {records} records"
            ))),
            (Neighbouring::AddRemove, None) => Err(invalid(
                "add/remove NSGD needs a declared public n: its schedule (T, m, eta, q, sigma, \
                 the trivial regime) may not depend on the data set's own size"
                    .into(),
            )),
            (Neighbouring::AddRemove, Some(n)) if records <= n => Ok(n),
            (Neighbouring::AddRemove, Some(n)) => Err(invalid(format!(
                "add/remove NSGD declared n = {n} for a data set of {records} records: the \
                 declared n must bound the data set's size"
            ))),
        }
    }

    /// The plan for `problem` at `privacy`, with the schedule computed from
    /// the public `n` ([`Nsgd::schedule_n`]).
    ///
    /// Errors (`InvalidParameters`): no public `n` ([`Nsgd::schedule_n`]);
    /// invalid privacy or constants (see
    /// [`NsgdSchedule::theorem_3_2`]); no `finite_sum` (Smooth, ProxGd) or no
    /// `envelope` (MoreauEnvelope); for ProxGd, `beta_env < L/M` (Fact 4.6
    /// needs `n >= 16` and `eps n >= 8 sqrt(d Lambda)`) or a cost above
    /// [`MAX_PROX_WORK`]; an accountant failure.
    pub fn plan(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
    ) -> Result<NsgdPlan, RunFailure> {
        let c = problem.constants();
        let n = self.schedule_n(problem.num_records())?;
        let d = problem.dim();
        let (lip, radius) = (c.lipschitz, c.radius);
        let schedule = NsgdSchedule::theorem_3_2(n, d, privacy, lip, radius)?;
        let beta_env = envelope_smoothness(n, d, privacy, lip, radius);
        let mut plan_extras = (None, None, None, true);
        let clip = match self.variant {
            NsgdVariant::Smooth => {
                problem
                    .finite_sum()
                    .ok_or_else(|| invalid("A_NSGD needs a finite-sum objective".into()))?;
                plan_extras.3 = schedule.smoothness_condition_holds(c.smoothness);
                lip
            }
            NsgdVariant::MoreauEnvelope => {
                problem.envelope().ok_or_else(|| {
                    invalid("NSGD on the Moreau envelope needs Objective::envelope()".into())
                })?;
                plan_extras.0 = Some(beta_env);
                lip
            }
            NsgdVariant::ProxGd => {
                problem
                    .finite_sum()
                    .ok_or_else(|| invalid("A_ProxGD needs a finite-sum objective".into()))?;
                if beta_env < lip / radius {
                    return Err(invalid(format!(
                        "A_ProxGD (Fact 4.6) needs beta_env = {beta_env} >= L/M = {}",
                        lip / radius
                    )));
                }
                let xi = prox_accuracy(n, d, privacy, radius);
                let inner = prox_inner_iterations(radius, xi);
                let work = schedule.theory_gradient_evaluations() as f64 * d as f64 * inner as f64;
                if work > MAX_PROX_WORK {
                    return Err(invalid(format!(
                        "A_ProxGD would cost T m d ceil(36 M^2/xi^2) = {work:e} > {MAX_PROX_WORK:e}"
                    )));
                }
                plan_extras = (Some(beta_env), Some(xi), Some(inner), true);
                lip * (1.0 + 1.0 / n as f64)
            }
        };
        let noise = NsgdNoise::calibrate(&schedule, clip, self.calibration, self.relation)?;
        let (envelope_smoothness, prox_accuracy, inner_iterations, smooth_ok) = plan_extras;
        Ok(NsgdPlan {
            variant: self.variant,
            schedule,
            noise,
            envelope_smoothness,
            prox_accuracy,
            inner_iterations,
            smoothness_condition_holds: smooth_ok,
        })
    }
}
