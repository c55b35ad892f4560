//! The `A_NSGD` loop (Algorithm 1 with digest P5, P8, P9): Poisson batches at
//! `q = m/n` (`n` the plan's public count, [`Nsgd::schedule_n`]), per-record gradients clipped to `C`, the sum divided by the
//! **fixed** `m`, Gaussian noise `N(0, sigma^2 I)` on that mean, projection
//! onto `B(0, M)` every step, output the average of `w_1..w_T`.
//!
//! [`BatchSampling::WithReplacement`] draws each step's batch as Algorithm 1
//! prints it instead: `m` indices uniform on the records, with replacement
//! (a record enters `r ~ Binomial(m, 1/n)` times), the same clip, divisor
//! and noise. No accountant here covers that sampling (digest P5); it exists
//! to audit the printed claim that the Poisson accountant's noise does.
//!
//! The batch and the noise of step `t` are drawn from the caller's RNG in
//! that order, and no gradient source draws randomness, so two runs with
//! equal seeds and equal plans share batches and noise (coupled runs,
//! digest P19).

use super::plan::{Nsgd, NsgdPlan, NsgdVariant};
use super::prox::{InexactProx, ProxScratch};
use crate::dp_sgd::poisson_batch_skipping;
use crate::inner::project_ball;
use crate::transcript::{Query, Transcript, Unobserved};
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::noise::gaussian;
use rand::{Rng, RngExt};

/// One `A_NSGD`-family release.
#[derive(Debug, Clone, PartialEq)]
pub struct NsgdRelease {
    /// The released average `(1/T) sum_{t=1..T} w_t` (`w_0 = 0` in the
    /// trivial regime).
    pub w: Vec<f64>,
    /// Number of steps `T` (0 in the trivial regime).
    pub steps: u64,
    /// Batch size `m` the sum is normalised by.
    pub batch: usize,
    /// Step size `eta`.
    pub step_size: f64,
    /// Noise std per coordinate on the mean gradient.
    pub sigma: f64,
    /// Add/remove noise multiplier `z = m sigma / C`.
    pub noise_multiplier: f64,
    /// Realised `eps` under the plan's declared relation.
    pub realised_eps: f64,
    /// Record-oracle evaluations actually made: the sum of the realised
    /// batch sizes (times the inner iterations per prox for `A_ProxGD`).
    pub gradient_evaluations: u64,
    /// The theory count `T m` (times the inner iterations for `A_ProxGD`).
    pub theory_gradient_evaluations: u64,
    /// Largest realised batch (the non-expansiveness of a gradient step on
    /// the batch objective needs `eta beta |B| / m <= 2`).
    pub largest_batch: usize,
    /// The plan that was run.
    pub plan: NsgdPlan,
}

/// How each step's batch is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchSampling {
    /// Poisson at `q = m/n`: each record in independently (the harness's
    /// `A_NSGD`, digest P5; what the accountant analyses).
    #[default]
    Poisson,
    /// `m` indices i.i.d. uniform on the `n` records, with replacement
    /// (Algorithm 1 line 5 as printed). Replace-one only: both neighbours
    /// hold the plan's `n` records.
    WithReplacement,
}

/// A per-record gradient oracle `(i, w, out)`.
type GradientSource<'a> = Box<dyn FnMut(usize, &[f64], &mut [f64]) + 'a>;

/// How many batch positions ahead the loop hints the next record
/// ([`dpcore::prefetch`]): enough to cover a DRAM miss behind a few cheap
/// record gradients; results are unchanged. Measured on one run at
/// n = 1e6, d = 16, eps = 0.125 (one thread, 2-core VM): AbsDeviation with the
/// Moreau envelope 17 s -> 5.2 s; LinBall 18 s -> 15 s, and 6.9 s once its
/// records sit on huge pages (`dpcore::prefetch::huge_page_vec`).
const PREFETCH_DISTANCE: usize = 8;

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

impl Nsgd {
    /// Plans ([`Nsgd::plan`]) and runs on `problem`.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        privacy: PrivacyParams,
        rng: &mut R,
    ) -> Result<NsgdRelease, RunFailure> {
        let plan = self.plan(problem, privacy)?;
        self.run_planned(problem, &plan, rng)
    }

    /// Runs with a precomputed `plan` for the same problem size and
    /// constants. `self.variant` selects the gradients; the plan may have been
    /// made for another variant (coupled comparisons): privacy then holds
    /// with the plan's noise because the plan's clip is enforced.
    ///
    /// Errors: `InvalidParameters` if the plan does not match `problem`
    /// (`n` under replace-one, `n` at most the plan's public `n` under
    /// add/remove, `d`, `L`, `M`) or lacks what the variant needs (`beta_env`,
    /// inner iterations), or the oracle is missing; `NonFinite` for a
    /// non-finite output.
    pub fn run_planned<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        plan: &NsgdPlan,
        rng: &mut R,
    ) -> Result<NsgdRelease, RunFailure> {
        self.run_planned_observed(problem, plan, &mut Unobserved, rng)
    }

    /// [`Nsgd::run_planned`], reporting every step's noisy mean gradient to
    /// `transcript` as a [`Query::PoissonBatchMeanGradient`] at the step's
    /// point (the realised batch's mean is handed over too; an observer
    /// computing a privacy loss must marginalise over the sample instead).
    /// The random stream and the release are those of `run_planned`.
    ///
    /// # Errors
    /// As [`Nsgd::run_planned`].
    pub fn run_planned_observed<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        plan: &NsgdPlan,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<NsgdRelease, RunFailure> {
        self.run_planned_sampled(problem, plan, BatchSampling::Poisson, transcript, rng)
    }

    /// [`Nsgd::run_planned_observed`] with each step's batch drawn by
    /// `sampling`. Under [`BatchSampling::Poisson`] it is that function,
    /// bit for bit. Under [`BatchSampling::WithReplacement`] each step draws
    /// `m` uniform indices of `0..n` (one `random_range` each, where the
    /// Poisson step draws its gaps) and reports a
    /// [`Query::WithReplacementBatchMeanGradient`]; the plan's noise is used
    /// as it is, whatever relation and sampling it was calibrated for.
    ///
    /// # Errors
    /// As [`Nsgd::run_planned`]; `InvalidParameters` for with-replacement
    /// sampling under add/remove (a plan's `n` would not be the records
    /// drawn from).
    pub fn run_planned_sampled<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        plan: &NsgdPlan,
        sampling: BatchSampling,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<NsgdRelease, RunFailure> {
        if sampling == BatchSampling::WithReplacement
            && plan.noise.relation != dpcore::Neighbouring::ReplaceOne
        {
            return Err(invalid(format!(
                "with-replacement batches are run under replace-one only, not {:?}",
                plan.noise.relation
            )));
        }
        let s = &plan.schedule;
        let c = problem.constants();
        let (n, d) = (problem.num_records(), problem.dim());
        // Under add/remove the plan's n is the declared public bound, which
        // the data set's own size may fall below (D' has one record fewer):
        // the same plan runs on both neighbours.
        let n_matches = match plan.noise.relation {
            dpcore::Neighbouring::ReplaceOne => s.n == n,
            dpcore::Neighbouring::AddRemove => n <= s.n,
        };
        if !n_matches || (s.d, s.lipschitz, s.radius) != (d, c.lipschitz, c.radius) {
            return Err(invalid(format!(
                "plan for (n, d, L, M) = ({}, {}, {}, {}) ({:?}) used on ({n}, {d}, {}, {})",
                s.n, s.d, s.lipschitz, s.radius, plan.noise.relation, c.lipschitz, c.radius
            )));
        }
        let missing = |what: &str| invalid(format!("{:?} needs {what}", self.variant));
        let mut per_record_cost = 1u64;
        let mut scratch = ProxScratch::new(d);
        // The records the loop reads; `A_ProxGD` reads each many times per
        // step, so hinting pays off only for the two direct oracles.
        let mut prefetch: Box<dyn Fn(usize) + '_> = Box::new(|_| {});
        let mut source: GradientSource<'_> = match self.variant {
            NsgdVariant::Smooth => {
                let records = problem.finite_sum().ok_or_else(|| missing("finite_sum"))?;
                prefetch = Box::new(move |i| records.prefetch_record(i));
                Box::new(move |i, w, out| records.record_gradient(i, w, out))
            }
            NsgdVariant::MoreauEnvelope => {
                let env = problem.envelope().ok_or_else(|| missing("an envelope"))?;
                let beta = plan
                    .envelope_smoothness
                    .ok_or_else(|| missing("beta_env"))?;
                prefetch = Box::new(move |i| env.prefetch_record(i));
                Box::new(move |i, w, out| env.record_envelope_gradient(i, beta, w, out))
            }
            NsgdVariant::ProxGd => {
                let prox = InexactProx {
                    records: problem.finite_sum().ok_or_else(|| missing("finite_sum"))?,
                    beta: plan
                        .envelope_smoothness
                        .ok_or_else(|| missing("beta_env"))?,
                    lipschitz: c.lipschitz,
                    iterations: plan
                        .inner_iterations
                        .ok_or_else(|| missing("inner iterations"))?,
                };
                per_record_cost = prox.iterations;
                Box::new(move |i, w, out| prox.envelope_gradient(i, w, out, &mut scratch))
            }
        };
        let mut w = vec![0.0; d];
        let mut avg = vec![0.0; d];
        let (mut g, mut mean) = (vec![0.0; d], vec![0.0; d]);
        let mut batch = Vec::new();
        let (mut evaluations, mut largest_batch) = (0u64, 0usize);
        let (q, m) = (s.sampling_rate(), s.batch as f64);
        let query = match sampling {
            BatchSampling::Poisson => Query::PoissonBatchMeanGradient {
                clip: plan.noise.clip,
                rate: q,
                batch: m,
            },
            BatchSampling::WithReplacement => Query::WithReplacementBatchMeanGradient {
                clip: plan.noise.clip,
                records: n,
                draws: s.batch,
            },
        };
        let mut released = if transcript.observes() {
            vec![0.0; d]
        } else {
            Vec::new()
        };
        for t in 1..=s.steps {
            match sampling {
                BatchSampling::Poisson => poisson_batch_skipping(n, q, rng, &mut batch),
                BatchSampling::WithReplacement => {
                    batch.clear();
                    batch.extend((0..s.batch).map(|_| rng.random_range(0..n)));
                }
            }
            mean.iter_mut().for_each(|v| *v = 0.0);
            batch
                .iter()
                .take(PREFETCH_DISTANCE)
                .for_each(|&i| prefetch(i));
            for (k, &i) in batch.iter().enumerate() {
                if let Some(&ahead) = batch.get(k + PREFETCH_DISTANCE) {
                    prefetch(ahead);
                }
                source(i, &w, &mut g);
                // Clipping to norm C is the projection onto B(0, C).
                project_ball(&mut g, plan.noise.clip);
                mean.iter_mut().zip(&g).for_each(|(a, gj)| *a += gj / m);
            }
            evaluations += batch.len() as u64;
            largest_batch = largest_batch.max(batch.len());
            let noise = gaussian(d, plan.noise.sigma, rng);
            if transcript.observes() {
                // The same sums the step below applies, so the observer sees
                // exactly the noisy gradient the iterate moves by.
                for ((r, gj), zj) in released.iter_mut().zip(&mean).zip(&noise) {
                    *r = gj + zj;
                }
                transcript.gaussian(query, &w, &mean, &released, plan.noise.sigma);
            }
            for ((wj, gj), zj) in w.iter_mut().zip(&mean).zip(&noise) {
                *wj -= s.step_size * (gj + zj);
            }
            project_ball(&mut w, s.radius);
            let mix = 1.0 / t as f64;
            avg.iter_mut()
                .zip(&w)
                .for_each(|(a, wj)| *a += mix * (wj - *a));
        }
        if avg.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite("A_NSGD output is not finite".into()));
        }
        Ok(NsgdRelease {
            w: avg,
            steps: s.steps,
            batch: s.batch,
            step_size: s.step_size,
            sigma: plan.noise.sigma,
            noise_multiplier: plan.noise.noise_multiplier,
            realised_eps: plan.noise.realised_eps,
            gradient_evaluations: evaluations * per_record_cost,
            theory_gradient_evaluations: s.theory_gradient_evaluations() * per_record_cost,
            largest_batch,
            plan: *plan,
        })
    }
}
