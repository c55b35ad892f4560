//! `A_PrivTune` with Papernot–Steinke random stopping and the resulting
//! `M'` (Algorithms 4 and 6; digest §2.5, §3.5, P13, P14).
//!
//! `K ~ TNB_{1,r}` = geometric (`mechanisms::stopping::Geometric`, sampled by
//! inversion with `ln_1p`, P13); each of the `K` runs draws `gamma` uniformly
//! from `Gamma` (with replacement), runs JLGD with the pre-drawn `Phi_gamma`
//! at GDP `mu/sqrt 2` and adds `N(0, 2 Delta_U^2/mu^2)` to its 0-1 error
//! (`Delta_U = 1/n`), so every run is `mu`-GDP; only the noisy argmin is
//! released (not `K`, not the other scores).
//!
//! # Privacy (Lemma K.1, Theorem K.3)
//! `mu = eps/(6 sqrt(2 ln(1/(r delta))))` (`mechanisms::stopping::privtune_mu`)
//! gives `(eps + delta, delta)`-DP for any `r` (P14). The default
//! `r = 1/(|Gamma|(n^2 - 1))` (Algorithm 6) makes `E K = |Gamma|(n^2-1)`
//! runs, feasible only for tiny `n` (P10); a larger `r` stays private and
//! only weakens the "best candidate sampled" guarantee (Lemma 7.2). The
//! reported epsilon is Lemma K.1 evaluated at the realised per-run GDP.
//! `K` is never truncated: a draw above `max_runs` is an error (it depends
//! on public randomness only, so failing reveals nothing about the data).

use super::budget::{total_mu, BudgetConversion};
use super::jl::{jl_dimension, JlMap, DEFAULT_JL_CONSTANT};
use super::jlgd::{clipped_projection, ngd_on_projection, ClippedProjection, JlgdOptions};
use super::ngd::{IterateChoice, IterationMode};
use super::{margin_grid, replicate_grid};
use crate::transcript::Unobserved;
use dpcore::halfspace::HalfspaceProblem;
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::gdp::{compose_mu, gaussian_mu};
use mechanisms::stopping::{privtune_gdp_epsilon, privtune_mu, Geometric};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// Options of [`m_prime`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivTuneOptions {
    /// NGD iteration rule.
    pub mode: IterationMode,
    /// Last iterate (`eta_hp` at `beta/|Gamma|`) instead of the average.
    pub last_iterate: bool,
    /// JL constant `C_JL`.
    pub jl_constant: f64,
    /// JL failure probability; `None` means `1/n^2`.
    pub beta: Option<f64>,
    /// Data-norm bound `b`.
    pub data_bound: f64,
    /// Stopping probability `r`; `None` means `1/(|Gamma|(n^2 - 1))`.
    pub stop_probability: Option<f64>,
    /// Largest admissible realised `K` (an error above it, never a cap).
    pub max_runs: u64,
    /// Every grid point repeated this many times ([`replicate_grid`]): a
    /// candidate set `Theta` of size `grid_copies |Gamma|`, which `r`'s
    /// default and the JL union bound read. 1 in Algorithm 6.
    pub grid_copies: usize,
}

impl Default for PrivTuneOptions {
    fn default() -> Self {
        Self {
            mode: IterationMode::Paper,
            last_iterate: false,
            jl_constant: DEFAULT_JL_CONSTANT,
            beta: None,
            data_bound: 1.0,
            stop_probability: None,
            max_runs: 1_000_000,
            grid_copies: 1,
        }
    }
}

/// One `M'` release.
#[derive(Debug, Clone, PartialEq)]
pub struct PrivTuneRun {
    /// The released predictor in `R^d`.
    pub w: Vec<f64>,
    /// Its margin `gamma`.
    pub selected_gamma: f64,
    /// The realised `K` (**not** private: diagnostics only).
    pub runs: u64,
    /// The stopping probability `r`.
    pub stop_probability: f64,
    /// Per-run GDP budget `mu`.
    pub mu: f64,
    /// Composed realised GDP of one run (JLGD and score).
    pub mu_spent_per_run: f64,
    /// Lemma K.1 at the realised per-run GDP: the release is
    /// `(eps_spent, delta)`-DP (includes the `+ delta`).
    pub eps_spent: f64,
    /// The `delta`.
    pub delta: f64,
    /// Total record-gradient evaluations.
    pub gradient_evaluations: u64,
}

/// Algorithm 6 (module docs). `Phi_gamma` for every grid point is drawn
/// before the runs, from fresh `u64` seeds of `rng`.
///
/// # Errors
/// `InvalidParameters` for `n < 2`, invalid `(eps, delta, r)`,
/// `eps > 24 ln(1/(r delta))`, or a realised `K > max_runs`; JLGD errors.
pub fn m_prime<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    privacy: PrivacyParams,
    opts: PrivTuneOptions,
    rng: &mut R,
) -> Result<PrivTuneRun, RunFailure> {
    let invalid = |m: String| RunFailure::InvalidParameters(m);
    let (n, d) = (problem.num_records(), problem.dim());
    if n < 2 {
        return Err(invalid("PrivTune needs n >= 2".into()));
    }
    // Validates (eps, delta) the same way as M*.
    total_mu(privacy, BudgetConversion::Tight)?;
    let b = opts.data_bound;
    let grid = replicate_grid(margin_grid(n, b), opts.grid_copies);
    let len = grid.len();
    let nf = n as f64;
    let r = opts
        .stop_probability
        .unwrap_or(1.0 / (len as f64 * (nf * nf - 1.0)));
    let mu = privtune_mu(privacy.eps, r, privacy.delta).map_err(|e| invalid(e.to_string()))?;
    let beta = opts.beta.unwrap_or(1.0 / (nf * nf));
    let maps: Vec<JlMap> = grid
        .iter()
        .map(|&g| {
            let k = jl_dimension(n, len, g, beta, b, opts.jl_constant);
            JlMap::with_dimension(k, d, rng.random::<u64>())
        })
        .collect();
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
    let stopping = Geometric::new(r).map_err(|e| invalid(e.to_string()))?;
    let runs = stopping.sample(rng);
    if runs > opts.max_runs {
        return Err(invalid(format!(
            "realised K = {runs} exceeds max_runs = {}",
            opts.max_runs
        )));
    }
    let run_mu = mu / 2f64.sqrt();
    let score_sigma = 2f64.sqrt() / (nf * mu);
    let score_mu = gaussian_mu(score_sigma, 1.0 / nf).map_err(|e| invalid(e.to_string()))?;
    let mut best: Option<(f64, usize, Vec<f64>)> = None;
    let (mut evaluations, mut mu_spent_per_run) = (0u64, 0.0f64);
    // Each grid point's clipped projection, computed at its first draw and
    // reused: with E K = |Gamma|(n^2 - 1) runs and one or a few NGD steps
    // each, recomputing it (n d for the row norms, n k for the projected
    // ones, n d k to project) took 39% of the CPU time of t71's M' cells
    // (n = 128, d = k = 20, one step a run: 254 core-s before, 156 after,
    // PERFORMANCE.md). No randomness goes in,
    // so the runs, the stream and the release are unchanged (test
    // `m_prime_matches_a_run_that_recomputes_the_projection`).
    let clip_radius = ngd_opts.jl_clip_radius();
    let mut projections: Vec<Option<ClippedProjection<'_>>> = vec![None; len];
    for _ in 0..runs {
        let i = rng.random_range(0..len);
        let (z, scale) = projections[i].get_or_insert_with(|| {
            clipped_projection(problem.features(), d, &maps[i], b, clip_radius)
        });
        let run = ngd_on_projection(
            problem.labels(),
            &maps[i],
            (z, scale),
            grid[i] / 3.0,
            clip_radius,
            run_mu,
            ngd_opts,
            &mut Unobserved,
            rng,
        )?;
        evaluations += run.gradient_evaluations;
        let composed = compose_mu(&[run.mu_spent, score_mu]).map_err(|e| invalid(e.to_string()))?;
        mu_spent_per_run = mu_spent_per_run.max(composed);
        let g: f64 = StandardNormal.sample(rng);
        let noisy = run.projected_error + score_sigma * g;
        if best.as_ref().is_none_or(|b| noisy < b.0) {
            best = Some((noisy, i, run.w));
        }
    }
    let (_, selected, w) = best.expect("K >= 1");
    let eps_spent = privtune_gdp_epsilon(mu_spent_per_run, r, privacy.delta)
        .map_err(|e| invalid(e.to_string()))?;
    Ok(PrivTuneRun {
        w,
        selected_gamma: grid[selected],
        runs,
        stop_probability: r,
        mu,
        mu_spent_per_run,
        eps_spent,
        delta: privacy.delta,
        gradient_evaluations: evaluations,
    })
}
