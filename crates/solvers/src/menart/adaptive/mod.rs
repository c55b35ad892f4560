//! Algorithm 3 of Menart et al. (adaptive noisy gradient descent, Theorems
//! 3–4; digest §2.4, §3.4) and the Theorem 5 exponential-mechanism selection
//! of a stationary point (digest §2.5, §3.5). No KL parameter is used.
//!
//! Step `t` queries `g_t = (1/n) sum clip_L0(grad f(w_t))`, releases the
//! **scalar** `N_t = ||g_t|| + N(0, sigma_hat^2)` (digest P3), then
//! `g_t + N(0, sigma_t^2 I)` with `sigma_t = max(N_t^+/sqrt(d l), floor)`,
//! `l = log(n sqrt(rho)/beta)`, and steps `w_{t+1} = w_t - g~_t/(2 L1)`. The
//! filter charges `rho_t = min(L0^2 d l/(n^2 (N_t^+)^2), rho/2) + sqrt(rho)/n`
//! and runs while the charges so far are `<= rho/2` (digest P5;
//! [`StoppingRule::ChargesPastRho`] runs D.3's `<= rho` instead, the rule
//! under which D.6 counts Theorem 5's steps, to measure that count). Output:
//! `w_T`, the last query point (Theorem 4, P9).
//!
//! # Privacy (replace-one; digest §2.4, P2–P5)
//! `||g_t||` and `g_t` both have sensitivity `2 L0/n` (clipping). Default
//! ([`Calibration::Recommended`]): `sigma_hat = sqrt(2) L0/(sqrt(n) rho^(1/4))`
//! and `sigma_t = sqrt(2) max(N_t^+/sqrt(d l), 2 L0/(n sqrt rho))`, i.e. the
//! paper's scales times `sqrt 2`, so the scalar costs exactly `sqrt(rho)/n` and
//! a non-floor gradient release costs exactly `L0^2 d l/(n^2 (N_t^+)^2) < rho/4`;
//! at the floor it costs `rho/4 <= rho/2`. Hence every step's true cost is at
//! most its charge and at most `rho/4 + sqrt(rho)/n`; the filter stops with
//! true spend `<= rho/2 + rho/4 + sqrt(rho)/n <= rho` when `n sqrt(rho) >= 4`
//! (required). `N_t^+ = max(N_t, 0)` (P4) and a floor step is the last step
//! (digest §2.4, a harness rule); a defensive stop also refuses any step whose
//! worst-case cost would push the ledger above `rho`.
//! [`Calibration::PaperLiteral`] uses the paper's scales, the raw `N_t` and no
//! floor stop; the reported true spend can exceed `rho` (e.g. for negative
//! `N_t`, experiment E5).
//!
//! # Theorem 5 selection
//! [`StationarySelection`] samples `t* in {0..T}` with probability
//! `∝ exp(-eps ||g_t|| / (2 Delta))`, `Delta = 2 L0/n`, over the (clipped,
//! exact) gradient norms of all query points: the exponential mechanism
//! (eps-DP, general scores) costing `eps^2/2`. It is sampled by streaming
//! Gumbel-max (argmax of log-weight plus Gumbel noise, which has exactly the
//! exponential mechanism's law) so no iterate history is stored. Default: run
//! Algorithm 3 at `rho_A = 2 rho/3` and select with `eps = sqrt(rho_A)` (cost
//! `rho/3`): total `<= rho` (digest §2.5 with the replace-one weights
//! `n sqrt(rho_A)/(4 L0)`). Paper-literal: Algorithm 3 literal at `rho` and
//! weights `n sqrt(rho)/(2 L0)` (true cost `2 rho` for the selection).

mod selection;

use selection::GumbelMax;
pub use selection::StationarySelection;

use super::{add_gaussian, check_finite, check_positive, norm, standard_normal};
use super::{Calibration, MenartRun, ZcdpLedger};
use crate::transcript::{Query, Transcript, Unobserved};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand::Rng;

/// Public inputs of Algorithm 3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveInputs {
    /// Number of records `n`.
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// zCDP budget `rho`.
    pub rho: f64,
    /// Failure probability `beta` (enters `l = log(n sqrt(rho)/beta)`).
    pub beta: f64,
    /// Lipschitz constant `L0` (clipping norm).
    pub l0: f64,
    /// Smoothness `L1` (step `1/(2 L1)`).
    pub l1: f64,
}

impl AdaptiveInputs {
    /// The inputs from a problem's public constants.
    pub fn from_problem(problem: &dyn KlObjective, rho: f64, beta: f64) -> Self {
        let k = problem.kl_constants();
        Self {
            n: problem.num_records(),
            d: problem.dim(),
            rho,
            beta,
            l0: k.lipschitz,
            l1: k.smoothness,
        }
    }

    /// `l = log(n sqrt(rho)/beta)`.
    pub fn log_term(&self) -> f64 {
        (self.n as f64 * self.rho.sqrt() / self.beta).ln()
    }
}

/// Where Algorithm 3's filter stops (digest §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoppingRule {
    /// The listing's filter: step while the charges incurred so far are at
    /// most `rho/2` (digest P5). The privacy proof (Thm 3, D.2) is for this
    /// rule.
    #[default]
    Listing,
    /// D.3's reading, used by Theorem 5's step count (D.6): step while the
    /// charges so far are at most `rho`. The digest lists it as an
    /// inconsistency of the proof with the listing; it exists to measure that
    /// count (claim MN-T5-iters), and its true spend exceeds what Theorem 3
    /// certifies (about twice the listing's; the recommended calibration's
    /// defensive stop still keeps that variant's spend at most `rho`).
    ChargesPastRho,
}

impl StoppingRule {
    /// The filter's threshold on the charges incurred so far at budget `rho`.
    pub fn threshold(self, rho: f64) -> f64 {
        match self {
            StoppingRule::Listing => rho / 2.0,
            StoppingRule::ChargesPastRho => rho,
        }
    }
}

/// Configuration of Algorithm 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AdaptiveNoisyGd {
    /// Noise calibration (default recommended).
    pub calibration: Calibration,
    /// Where the filter stops (default the listing's `rho/2`).
    pub stopping: StoppingRule,
}

/// One run of Algorithm 3 (and possibly the selection).
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveRun {
    /// The released point and accounting.
    pub run: MenartRun,
    /// Number of gradient queries `T + 1` (query points `w_0..w_T`).
    pub queries: u64,
    /// `min_t ||g_t||` over the query points (non-private diagnostic, `N*` of E4).
    pub min_gradient_norm: f64,
    /// Index `t*` of the selected query point (selection runs only).
    pub selected: Option<u64>,
    /// Steps whose released norm estimate `N_t` was negative (digest P4, E5).
    pub negative_norm_estimates: u64,
}

impl AdaptiveNoisyGd {
    /// Runs Algorithm 3 on `problem` from its start point (public constants).
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
        rng: &mut R,
    ) -> Result<AdaptiveRun, RunFailure> {
        let inputs = AdaptiveInputs::from_problem(problem, rho, beta);
        self.run_inner(problem, inputs, None, &mut Unobserved, rng)
    }

    /// As [`AdaptiveNoisyGd::run`], reporting every Gaussian release (the
    /// noisy norm `N_t` and the noisy gradient of each step, at the query
    /// point `w_t`) to `transcript`. The random stream and the result are
    /// those of [`AdaptiveNoisyGd::run`].
    pub fn run_observed<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<AdaptiveRun, RunFailure> {
        let inputs = AdaptiveInputs::from_problem(problem, rho, beta);
        self.run_inner(problem, inputs, None, transcript, rng)
    }

    /// Runs Algorithm 3 with explicit inputs.
    pub fn run_with<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        inputs: AdaptiveInputs,
        rng: &mut R,
    ) -> Result<AdaptiveRun, RunFailure> {
        self.run_inner(problem, inputs, None, &mut Unobserved, rng)
    }

    pub(super) fn run_inner<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        inputs: AdaptiveInputs,
        selection_scale: Option<f64>,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<AdaptiveRun, RunFailure> {
        for (name, v) in [("rho", inputs.rho), ("L0", inputs.l0), ("L1", inputs.l1)] {
            check_positive(name, v)?;
        }
        let (n, d, rho) = (inputs.n as f64, inputs.d as f64, inputs.rho);
        let x = n * rho.sqrt();
        if !(inputs.beta > 0.0 && inputs.beta < 1.0) || x < 4.0 {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 3 needs beta in (0, 1) and n sqrt(rho) >= 4 (got {x})"
            )));
        }
        let ell = inputs.log_term();
        let recommended = self.calibration == Calibration::Recommended;
        let factor = if recommended { 2f64.sqrt() } else { 1.0 };
        let sigma_hat = factor * inputs.l0 / (n.sqrt() * rho.powf(0.25));
        let floor = factor * 2.0 * inputs.l0 / x;
        let sens = 2.0 * inputs.l0 / n;
        let worst_step = rho / 4.0 + rho.sqrt() / n;
        let eta = 1.0 / (2.0 * inputs.l1);
        let mut w = problem.start_point().to_vec();
        let mut last_query = w.clone();
        let mut g = vec![0.0; inputs.d];
        // The noiseless gradient, kept for the transcript only (d floats a
        // step: one 8 MiB copy a step at d = 2^20, where a step streams about
        // ten such vectors).
        let observed = transcript.observes();
        let mut exact = if observed {
            vec![0.0; inputs.d]
        } else {
            Vec::new()
        };
        let mut selector = selection_scale.map(|scale| (GumbelMax::new(scale), w.clone()));
        let mut ledger = ZcdpLedger::new();
        let (mut charged, mut queries, mut clipped) = (0.0, 0u64, 0u64);
        let mut min_norm = f64::INFINITY;
        let mut negatives = 0u64;
        let threshold = self.stopping.threshold(rho);
        while charged <= threshold {
            if recommended && ledger.spent() + worst_step > rho {
                break;
            }
            clipped += problem.clipped_mean_gradient(&w, inputs.l0, &mut g) as u64;
            let gn = norm(&g);
            min_norm = min_norm.min(gn);
            if let Some((gumbel, best_w)) = selector.as_mut() {
                if gumbel.offer(queries, -gn, rng) {
                    best_w.copy_from_slice(&w);
                }
            }
            let n_t = gn + sigma_hat * standard_normal(rng);
            let clip = inputs.l0;
            transcript.gaussian(
                Query::ClippedMeanGradientNorm { clip },
                &w,
                &g,
                &[n_t],
                sigma_hat,
            );
            ledger.charge_gaussian(sigma_hat, sens)?;
            negatives += u64::from(n_t < 0.0);
            let n_used = if recommended { n_t.max(0.0) } else { n_t };
            let scaled = factor * n_used / (d * ell).sqrt();
            let at_floor = scaled <= floor;
            let sigma_t = scaled.max(floor);
            if observed {
                exact.copy_from_slice(&g);
            }
            add_gaussian(&mut g, sigma_t, rng);
            transcript.gaussian(Query::ClippedMeanGradient { clip }, &w, &exact, &g, sigma_t);
            ledger.charge_gaussian(sigma_t, sens)?;
            last_query.copy_from_slice(&w);
            w.iter_mut().zip(&g).for_each(|(a, b)| *a -= eta * b);
            check_finite(&w, "Algorithm 3 iterate")?;
            queries += 1;
            let first = if n_used == 0.0 {
                rho / 2.0
            } else {
                (inputs.l0 * inputs.l0 * d * ell / (n * n * n_used * n_used)).min(rho / 2.0)
            };
            charged += first + rho.sqrt() / n;
            if recommended && at_floor {
                break;
            }
        }
        let selected = selector.as_ref().map(|(g, _)| g.best_index());
        let output = match selector {
            Some((_, best_w)) => best_w,
            None => last_query,
        };
        Ok(AdaptiveRun {
            run: MenartRun {
                w: output,
                gradient_evaluations: queries * inputs.n as u64,
                rho_spent: ledger.spent(),
                iterations: queries,
                releases: ledger.releases(),
                clipped_records: clipped,
                trivial: false,
            },
            queries,
            min_gradient_norm: min_norm,
            selected,
            negative_norm_estimates: negatives,
        })
    }
}
