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

/// The planted margin normalised by the public row-norm bound, `gamma*/b`:
/// the theory curves are written for `b = 1`, and Theorems L.1/L.2 replace
/// `gamma` by `gamma/b` (their `b^2/gamma^2` and `b/gamma` terms).
pub(super) fn normalised_margin(problem: &dyn HalfspaceProblem) -> Option<f64> {
    problem.true_margin().map(|g| g / problem.data_bound())
}

/// Refuses a problem whose public row-norm bound is not 1: `entry`
/// calibrates its clipping and noise to unit-norm rows (only `wang_m_star`
/// reads the problem's bound).
pub(super) fn require_unit_rows(
    problem: &dyn HalfspaceProblem,
    entry: &str,
) -> Result<(), RunFailure> {
    let b = problem.data_bound();
    if b == 1.0 {
        Ok(())
    } else {
        Err(RunFailure::InvalidParameters(format!(
            "{entry} calibrates to unit-norm rows; this problem declares ||x|| <= b = {b} \
             (use wang_m_star, which reads b)"
        )))
    }
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
    let m = problem.outlier_count();
    let gamma = normalised_margin(problem)?;
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
    let mut opts = options.m_star();
    // The public row-norm bound of the data domain (1 for every unit-norm
    // family): M* clips at 2b and its grid, JL dimension and sensitivity
    // scale with it.
    opts.data_bound = problem.data_bound();
    let r = m_star(problem, ctx.privacy.approx(), opts, rng)?;
    let (gamma, m) = (normalised_margin(problem), problem.outlier_count());
    let (eps, delta) = (ctx.privacy.approx().eps, ctx.privacy.approx().delta);
    let n = problem.num_records();
    // The certified envelope of the averaged iterate at the planted margin,
    // for the paper's grid only (B_proof's |Gamma| is the grid's).
    let envelope = gamma
        .filter(|g| !opts.last_iterate && opts.grid_copies == 1 && g.is_finite())
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
    require_unit_rows(problem, "wang_m_prime")?;
    let options = MPrimeOptions::read(ctx.options)?;
    let r_factor = options.r_factor;
    let n = problem.num_records() as f64;
    // |Theta|: the grid's size times its copies (Algorithm 6's r reads it).
    let copies = options.grid_copies as usize;
    let grid = (solvers::wang::margin_grid(problem.num_records(), 1.0).len() * copies) as f64;
    let paper_r = 1.0 / (grid * (n * n - 1.0));
    let opts = PrivTuneOptions {
        mode: options.mode.into(),
        last_iterate: options.iterate.is_last(),
        jl_constant: options.jl_constant,
        stop_probability: Some((paper_r * r_factor).min(1.0)),
        max_runs: options.max_runs,
        grid_copies: copies,
        ..PrivTuneOptions::default()
    };
    let r = m_prime(problem, ctx.privacy.approx(), opts, rng)?;
    let (gamma, m) = planted(problem);
    let (eps, delta) = (ctx.privacy.approx().eps, ctx.privacy.approx().delta);
    let bound = match (ctx.metric, gamma.filter(|g| g.is_finite())) {
        // Theorem 7.1 (Eq. 26) with O-constant 1, at the paper's r and grid
        // only (the stored bound's |Theta| is the grid's).
        (Metric::ZeroOneError, Some(gamma)) if r_factor == 1.0 && copies == 1 => {
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
              Rademacher JL map to k_gamma (identity if k_gamma >= d), clip at 2b (b the family's public row-norm bound, 1 for unit rows), NGD on the hinge gamma/3 \
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

#[cfg(test)]
mod tests {
    use super::*;
    use datagen::wang::{HalfspaceParams, PlantedHalfspace, ScaledHalfspace};
    use dpcore::PrivacyParams;
    use rand::SeedableRng;
    use solvers::wang::MStarOptions;

    fn unit(margin: f64) -> PlantedHalfspace {
        let params = HalfspaceParams::isotropic(256, 400, margin, 0);
        PlantedHalfspace::generate(params, &mut Pcg64::seed_from_u64(11)).unwrap()
    }

    /// Appendix L's reduction, exactly: M* with `data_bound = b` on rows of
    /// norm `b` at margin `gamma` is M* on the unit rows at `gamma/b`. With
    /// `b` a power of two every scaling is exact in floating point, so the
    /// JL dimensions, step counts, selection and 0-1 errors agree bit for
    /// bit, and so does the released `w` (the hinge argument `<w, b x>` and
    /// its margin `b gamma/3` scale together). A b-sweep at fixed
    /// `gamma` is therefore a `gamma/b` sweep, and a mistake in how `b`
    /// reaches the clip, grid or noise fails here.
    #[test]
    fn m_star_on_rows_scaled_by_b_is_m_star_at_margin_over_b() {
        let privacy = PrivacyParams::approx(1.0, 1e-5);
        let base = unit(0.1);
        for b in [2.0, 4.0] {
            let scaled = ScaledHalfspace::new(base.clone(), b).unwrap();
            let unit_opts = MStarOptions::default();
            let scaled_opts = MStarOptions {
                data_bound: b,
                ..MStarOptions::default()
            };
            let r1 = m_star(&base, privacy, unit_opts, &mut Pcg64::seed_from_u64(3)).unwrap();
            let rb = m_star(&scaled, privacy, scaled_opts, &mut Pcg64::seed_from_u64(3)).unwrap();
            assert_eq!(r1.selected_index, rb.selected_index, "b = {b}");
            assert_eq!(rb.selected_gamma, b * r1.selected_gamma, "b = {b}");
            for (c1, cb) in r1.candidates.iter().zip(&rb.candidates) {
                assert_eq!((c1.k, c1.identity, c1.steps), (cb.k, cb.identity, cb.steps));
                assert_eq!(c1.score, cb.score, "b = {b}, gamma = {}", c1.gamma);
            }
            assert_eq!(base.zero_one_error(&r1.w), scaled.zero_one_error(&rb.w));
            assert_eq!(r1.w, rb.w, "b = {b}");
        }
    }

    #[test]
    fn entries_calibrated_to_unit_rows_refuse_a_larger_bound() {
        let scaled = ScaledHalfspace::new(unit(0.1), 2.0).unwrap();
        let err = require_unit_rows(&scaled, "wang_m_prime").unwrap_err();
        assert!(err.to_string().contains("b = 2"), "{err}");
        assert!(require_unit_rows(&unit(0.1), "wang_m_prime").is_ok());
        assert_eq!(normalised_margin(&scaled), Some(0.1));
    }
}
