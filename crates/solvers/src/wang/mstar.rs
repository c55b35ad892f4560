//! `M*`, DP adaptive margin (Algorithm 3; digest §2.4, §2.6, P2, P6, P7,
//! P15): for every `gamma` of the doubling grid `Gamma`, a data-independent
//! JL map `Phi_gamma` of dimension `k_gamma` (identity when `k_gamma >= d`)
//! and JLGD with hinge `c = gamma/3`; one candidate chosen by `A_Iter` on the
//! 0-1 error.
//!
//! # Privacy (Theorem 6.5, Lemma E.3, digest P2)
//! Total GDP `mu` ([`total_mu`]); `2|Gamma|` mechanisms (the JLGD runs and
//! their scores) of `mu_p = mu/sqrt(2|Gamma|)` each, with the **actual**
//! `|Gamma|`. Scores: `U = R~_S(Phi^T w)` (replace-one sensitivity `1/n`,
//! noise std `1/(n mu_p)`), or the VC-penalised `U_pop = U + (5/(2n))(k_gamma
//! ln(2n) + ln(4|Gamma|/beta))` (Eq. 3 on the average scale, data
//! independent penalty, same sensitivity). The spent privacy
//! ([`MStarRun::privacy`]) composes the realised GDP of every mechanism.
//!
//! `beta = 1/n^2` (JL failure probability, Appendix H/I); the last iterate
//! uses `eta_hp` with `beta/|Gamma|` per call (P12). Random streams: the JL
//! seeds, NGD noise and score noise are drawn from the caller's RNG in
//! candidate order, so a run is reproducible from `(seed, options)`.

use super::budget::{
    margin_grid, privacy_spent, replicate_grid, total_mu, BudgetConversion, PrivacySpent,
};
use super::jl::{jl_dimension, JlMap, DEFAULT_JL_CONSTANT};
use super::jlgd::{projected_ngd_observed, JlgdOptions, JlgdRun};
use super::ngd::{IterateChoice, IterationMode};
use super::select::{a_iter_observed, BaseRun};
use crate::transcript::{Transcript, Unobserved};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::{PrivacyParams, RunFailure};
use rand::{Rng, RngExt};

/// The selection score of Algorithm 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionCriterion {
    /// `R~_S(Phi^T w)` (Theorem 6.5).
    Empirical,
    /// `R~_S + (5/(2n))(k ln(2n) + ln(4|Gamma|/beta))` (Theorem 6.7).
    Penalised,
}

/// The space each candidate runs NGD in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Algorithm 3: JL to `k_gamma` with constant `C_JL`, clip radius `2b`.
    Jl {
        /// The hidden constant `C_JL` (digest §2.6).
        constant: f64,
    },
    /// Baseline B1 tuned over the same grid (`Phi = I`), clip radius `b`
    /// (exact `Delta = 6b/gamma`) or `2b` (JLGD's conservative `12b/gamma`).
    FullDimension {
        /// Clip radius in units of `b` (1 or 2).
        radius_factor: f64,
    },
}

/// Options of [`m_star`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MStarOptions {
    /// NGD iteration rule (paper or fast mode, digest §7).
    pub mode: IterationMode,
    /// Averaged or last iterate (the `beta` of `Last` is overridden by
    /// `beta/|Gamma|`).
    pub last_iterate: bool,
    /// Budget conversion (paper by default).
    pub conversion: BudgetConversion,
    /// Selection score.
    pub criterion: SelectionCriterion,
    /// JL or full dimension.
    pub projection: Projection,
    /// JL failure probability `beta`; `None` means `1/n^2`.
    pub beta: Option<f64>,
    /// Data-norm bound `b`.
    pub data_bound: f64,
    /// Drop the vacuous candidates `1/(n gamma^2 eps) >= 1` (P6, public
    /// information only; shrinks `|Gamma|`). Off in the paper's algorithm.
    pub drop_vacuous: bool,
    /// Every candidate repeated this many times ([`replicate_grid`]): a
    /// candidate set of size `grid_copies |Gamma|`. 1 in the paper's
    /// algorithm.
    pub grid_copies: usize,
}

impl Default for MStarOptions {
    fn default() -> Self {
        Self {
            mode: IterationMode::Paper,
            last_iterate: false,
            conversion: BudgetConversion::Paper,
            criterion: SelectionCriterion::Empirical,
            projection: Projection::Jl {
                constant: DEFAULT_JL_CONSTANT,
            },
            beta: None,
            data_bound: 1.0,
            drop_vacuous: false,
            grid_copies: 1,
        }
    }
}

/// Diagnostics of one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateReport {
    /// The candidate margin `gamma`.
    pub gamma: f64,
    /// NGD dimension `k` (`d` under the identity fallback).
    pub k: usize,
    /// Whether `Phi = I`.
    pub identity: bool,
    /// Iterations `T`.
    pub steps: u64,
    /// Noise std `sigma`.
    pub sigma: f64,
    /// Step size.
    pub step_size: f64,
    /// Exact score (**not** private: diagnostics only).
    pub score: f64,
    /// Noisy score (releasable).
    pub noisy_score: f64,
}

/// One `M*` release.
#[derive(Debug, Clone, PartialEq)]
pub struct MStarRun {
    /// The released predictor `Phi_out^T w~_out` in `R^d`.
    pub w: Vec<f64>,
    /// The selected margin `gamma_out`.
    pub selected_gamma: f64,
    /// Index of `gamma_out` in the grid.
    pub selected_index: usize,
    /// Per-candidate diagnostics, grid order.
    pub candidates: Vec<CandidateReport>,
    /// Total record-gradient evaluations `sum_gamma T_gamma n`.
    pub gradient_evaluations: u64,
    /// Total GDP budget `mu`.
    pub mu: f64,
    /// Per-mechanism budget `mu_p`.
    pub mu_per_call: f64,
    /// Privacy spent (realised composed `mu`, both conversions).
    pub privacy: PrivacySpent,
}

/// The candidate grid `M*` uses: [`margin_grid`], minus the vacuous
/// candidates when `drop_vacuous`, each repeated `grid_copies` times.
pub fn candidate_grid(n: usize, eps: f64, opts: &MStarOptions) -> Vec<f64> {
    let b = opts.data_bound;
    let mut grid = margin_grid(n, b);
    if opts.drop_vacuous {
        grid.retain(|&g| (g / b).powi(2) * n as f64 * eps > 1.0);
        if grid.is_empty() {
            grid.push(b);
        }
    }
    replicate_grid(grid, opts.grid_copies)
}

/// Algorithm 3 (module docs). Each candidate `Phi_gamma` is drawn from a
/// fresh `u64` seed of `rng` (public randomness).
///
/// # Errors
/// Invalid privacy parameters (`eps >= 8 ln(1/delta)` in paper mode), or
/// any JLGD error.
pub fn m_star<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    privacy: PrivacyParams,
    opts: MStarOptions,
    rng: &mut R,
) -> Result<MStarRun, RunFailure> {
    m_star_observed(problem, privacy, opts, &mut Unobserved, rng)
}

/// [`m_star`], handing `transcript` every mechanism the budget composes
/// over: each candidate's NGD steps ([`projected_ngd_observed`]) and its
/// noisy score ([`a_iter_observed`]). Same random stream and release.
///
/// # Errors
/// As [`m_star`].
pub fn m_star_observed<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    privacy: PrivacyParams,
    opts: MStarOptions,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<MStarRun, RunFailure> {
    let (n, d) = (problem.num_records(), problem.dim());
    let b = opts.data_bound;
    let mu = total_mu(privacy, opts.conversion)?;
    let grid = candidate_grid(n, privacy.eps, &opts);
    let len = grid.len();
    let beta = opts.beta.unwrap_or(1.0 / (n as f64 * n as f64));
    let iterate = if opts.last_iterate {
        IterateChoice::Last {
            beta: beta / len as f64,
        }
    } else {
        IterateChoice::Averaged
    };
    let ngd_opts = JlgdOptions {
        mode: opts.mode,
        iterate,
        data_bound: b,
    };
    let mut reports = Vec::with_capacity(len);
    let mut evaluations = 0u64;
    let outcome = a_iter_observed(
        len,
        mu,
        1.0 / n as f64,
        transcript,
        rng,
        |i, mu_p, rng, t| {
            let gamma = grid[i];
            let (map, radius) = match opts.projection {
                Projection::Jl { constant } => {
                    let k = jl_dimension(n, len, gamma, beta, b, constant);
                    (
                        JlMap::with_dimension(k, d, rng.random::<u64>()),
                        ngd_opts.jl_clip_radius(),
                    )
                }
                Projection::FullDimension { radius_factor } => {
                    (JlMap::Identity { d }, radius_factor * b)
                }
            };
            let run: JlgdRun =
                projected_ngd_observed(problem, &map, gamma / 3.0, radius, mu_p, ngd_opts, t, rng)?;
            let k = map.output_dim();
            let penalty = match opts.criterion {
                SelectionCriterion::Empirical => 0.0,
                SelectionCriterion::Penalised => {
                    let nf = n as f64;
                    2.5 / nf * (k as f64 * (2.0 * nf).ln() + (4.0 * len as f64 / beta).ln())
                }
            };
            evaluations += run.gradient_evaluations;
            reports.push(CandidateReport {
                gamma,
                k,
                identity: run.identity,
                steps: run.plan.steps,
                sigma: run.plan.sigma,
                step_size: run.plan.step_size,
                score: run.projected_error + penalty,
                noisy_score: f64::NAN,
            });
            Ok(BaseRun {
                score: run.projected_error + penalty,
                mu_spent: run.mu_spent,
                output: run.w,
            })
        },
    )?;
    for (r, &s) in reports.iter_mut().zip(&outcome.noisy_scores) {
        r.noisy_score = s;
    }
    Ok(MStarRun {
        w: outcome.winner,
        selected_gamma: grid[outcome.selected],
        selected_index: outcome.selected,
        candidates: reports,
        gradient_evaluations: evaluations,
        mu,
        mu_per_call: outcome.mu_per_call,
        privacy: privacy_spent(outcome.mu_spent, privacy.delta)?,
    })
}
