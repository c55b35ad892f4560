//! `M*` (Algorithm 3, Theorems 6.5 and 6.7) and `M'` (Algorithm 6,
//! Theorem 7.1) of Wang–Zhu–Wang as registry entries, plus the measurement
//! helpers the other Wang entries share.
//!
//! Stored per metric:
//! - `zero_one_error`: `bound` = the certified envelope `B_proof` (digest §3.9:
//!   Lemma D.1 with its explicit constants at `mu_p`, plus the selection
//!   term, for the planted `(gamma*, m)`) for the averaged iterate; none for
//!   the last iterate (hidden Liu–Zhou constant, digest E-l).
//!   `reference` = the shape `B_shape` with `A = B = 1`, `l = 1`.
//! - `excess_zero_one_error` (E5: the error minus `m/n`): `bound` =
//!   `B_proof - m/n` (the same envelope, as `R_S <= B_proof`), `reference` =
//!   `B_shape`, the digest's "excess <= c m/(gamma n) + noise term".
//! - `population_zero_one_error`: no explicit bound (Theorem 6.7's constants
//!   are hidden); `reference` = `B_shape` with `min(eps, 1)`.
//! - `realised_eps`: the exact conversion of the composed realised GDP of the
//!   run, replace-one neighbours (P1); `bound` = the target `eps`.
//! - `gradient_evaluations`: `sum_gamma T_gamma n`.

use dpcore::halfspace::HalfspaceProblem;
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::wang::bounds::{b_proof, b_shape, privtune_bound};
use solvers::wang::{m_prime, m_star, PrivTuneOptions};

use super::options::{MPrimeOptions, MStarEntryOptions};
use contract::{AlgorithmDef, CellOutput, Curves, Metric, Options, Release, Run, RunContext};

/// The metrics every Wang algorithm reports.
pub(super) const METRICS: &[Metric] = &[
    Metric::ZeroOneError,
    Metric::ExcessZeroOneError,
    Metric::PopulationZeroOneError,
    Metric::GradientEvaluations,
    Metric::RealisedEps,
];

/// The planted `(gamma*, m)` of a problem (`None` margin when unknown).
pub(super) fn planted(problem: &dyn HalfspaceProblem) -> (Option<f64>, usize) {
    (problem.true_margin(), problem.outlier_count())
}

/// A released halfspace `w` with its cost and the `eps` its accountant
/// certifies.
pub(super) fn halfspace_release(
    w: &[f64],
    gradient_evaluations: u64,
    realised_eps: f64,
) -> Release {
    Release::point(w.to_vec(), gradient_evaluations as f64).with_realised_privacy(realised_eps)
}

/// `B_shape` (A = B = 1, l = 1) of the metric at the planted instance: the
/// comparison shape of Theorems 6.5 (empirical, `1/eps`) and 6.7
/// (population, `1/min(eps, 1)`); none for the other metrics or without a
/// planted margin.
pub(super) fn shape_reference(ctx: &RunContext, problem: &dyn HalfspaceProblem) -> Option<f64> {
    let (gamma, m) = planted(problem);
    let gamma = gamma?;
    let n = problem.num_records();
    let (eps, delta) = (ctx.privacy.approx().eps, ctx.privacy.approx().delta);
    match ctx.metric {
        Metric::ZeroOneError | Metric::ExcessZeroOneError => {
            Some(b_shape(n, gamma, eps, delta, m, 1.0, 1.0, false, false))
        }
        Metric::PopulationZeroOneError => {
            Some(b_shape(n, gamma, eps, delta, m, 1.0, 1.0, true, false))
        }
        _ => None,
    }
}

fn run_m_star(
    ctx: &RunContext,
    problem: &dyn HalfspaceProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let options = MStarEntryOptions::read(ctx.options)?;
    let opts = options.m_star();
    let r = m_star(problem, ctx.privacy.approx(), opts, rng)?;
    let (gamma, m) = planted(problem);
    let (eps, delta) = (ctx.privacy.approx().eps, ctx.privacy.approx().delta);
    let n = problem.num_records();
    // The certified envelope of the averaged iterate at the planted margin.
    let envelope = gamma
        .filter(|g| !opts.last_iterate && g.is_finite())
        .map(|g| b_proof(n, g, m, eps, delta, options.jl_constant));
    let bound = match ctx.metric {
        Metric::ZeroOneError => envelope,
        Metric::ExcessZeroOneError => envelope.map(|b| b - m as f64 / n as f64),
        Metric::RealisedEps => Some(eps),
        _ => None,
    };
    let chosen = &r.candidates[r.selected_index];
    Ok(CellOutput::new(
        halfspace_release(&r.w, r.gradient_evaluations, r.privacy.eps),
        Curves::new(None, bound, shape_reference(ctx, problem)),
        [
            ("selected_gamma", r.selected_gamma),
            ("selected_k", chosen.k as f64),
            ("selected_steps", chosen.steps as f64),
            ("grid_len", r.candidates.len() as f64),
            ("mu_per_call", r.mu_per_call),
            ("realised_mu", r.privacy.mu),
            ("realised_eps_paper", r.privacy.eps_paper),
            ("gradient_evaluations", r.gradient_evaluations as f64),
        ],
    ))
}

fn run_m_prime(
    ctx: &RunContext,
    problem: &dyn HalfspaceProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let options = MPrimeOptions::read(ctx.options)?;
    let r_factor = options.r_factor;
    let n = problem.num_records() as f64;
    let grid = solvers::wang::margin_grid(problem.num_records(), 1.0).len() as f64;
    let paper_r = 1.0 / (grid * (n * n - 1.0));
    let opts = PrivTuneOptions {
        mode: options.mode.into(),
        last_iterate: options.iterate.is_last(),
        jl_constant: options.jl_constant,
        stop_probability: Some((paper_r * r_factor).min(1.0)),
        max_runs: options.max_runs,
        ..PrivTuneOptions::default()
    };
    let r = m_prime(problem, ctx.privacy.approx(), opts, rng)?;
    let (gamma, m) = planted(problem);
    let (eps, delta) = (ctx.privacy.approx().eps, ctx.privacy.approx().delta);
    let bound = match (ctx.metric, gamma.filter(|g| g.is_finite())) {
        // Theorem 7.1 (Eq. 26) with O-constant 1, at the paper's r only.
        (Metric::ZeroOneError, Some(gamma)) if r_factor == 1.0 => {
            Some(privtune_bound(problem.num_records(), gamma, m, eps, delta))
        }
        // Theorem K.3: (eps + delta, delta)-DP.
        (Metric::RealisedEps, _) => Some(eps + delta),
        _ => None,
    };
    Ok(CellOutput::new(
        halfspace_release(&r.w, r.gradient_evaluations, r.eps_spent),
        Curves::new(None, bound, shape_reference(ctx, problem)),
        [
            ("selected_gamma", r.selected_gamma),
            ("runs", r.runs as f64),
            ("stop_probability", r.stop_probability),
            ("mu", r.mu),
            ("gradient_evaluations", r.gradient_evaluations as f64),
        ],
    ))
}

pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "wang_m_star",
        "Wang–Zhu–Wang Algorithm 3 (M*, Theorems 6.5/6.7): for every gamma of {1/n, 2/n, ..., 1} a \
              Rademacher JL map to k_gamma (identity if k_gamma >= d), clip at 2, NGD on the hinge gamma/3 \
              (Delta = 12/gamma, replace-one); Gaussian report-noisy-min (A_Iter) on the 0-1 error; 2|Gamma| \
              mechanisms of mu/sqrt(2|Gamma|)-GDP each",
        METRICS,
        Run::Halfspace(run_m_star),
    )
.with_work(super::cost::m_star)
    .with_options(MStarEntryOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&[
        "selected_gamma",
        "selected_k",
        "selected_steps",
        "grid_len",
        "mu_per_call",
        "realised_mu",
        "realised_eps_paper",
        "gradient_evaluations",
    ])
    .with_curves("B_proof (Lemma D.1 + selection, digest §3.9)", "", "B_shape = 1/(gamma^2 n eps) + m/(gamma n)")
    .audited(&super::audit::M_STAR_AUDIT),
    AlgorithmDef::new(
        "wang_m_prime",
        "Wang–Zhu–Wang Algorithm 6 (M', Theorem 7.1): Papernot–Steinke random stopping, K ~ Geometric(r), \
              each run a uniform gamma, JLGD and a noisy score at mu/sqrt2 each, \
              mu = eps/(6 sqrt(2 ln(1/(r delta)))); (eps + delta, delta)-DP. E K = 1/r: tiny n only",
        METRICS,
        Run::Halfspace(run_m_prime),
    )
.with_work(super::cost::m_prime)
    .with_options(MPrimeOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&[
        "selected_gamma",
        "runs",
        "stop_probability",
        "mu",
        "gradient_evaluations",
    ])
    .with_curves("Theorem 7.1 (Eq. 26, O-constant 1)", "", "B_shape = 1/(gamma^2 n eps) + m/(gamma n)")
    .audited(&super::audit::M_PRIME_AUDIT),
];
