//! Wang–Zhu–Wang E9 (digest §7): how often a JL map of M*'s dimension keeps
//! the inliers' margin. Not a private algorithm: it measures the geometry the
//! privacy analysis assumes (Lemma 6.x needs `gamma(Phi S_in) >= gamma*/3`
//! with probability `1 - beta`), to choose the hidden constant `C_JL`.
//!
//! One cell draws `Phi` at `k = min(d, ceil(C_JL ln(|Gamma|(n+1)(n+2)/beta)/gamma*^2))`
//! (`beta = 1/n^2`, `b = 1`, as M* at the planted margin), projects the
//! inliers, clips them to `||Phi x|| <= 2` as JLGD does, and certifies their
//! margin with the exact solver. The metric is the certified lower bound
//! divided by `gamma*`; the report's q10 column then says whether 90% of the
//! draws keep `gamma*/3`, and the diagnostics flag each draw.

use dpcore::halfspace::HalfspaceProblem;
use dpcore::RunFailure;
use rand::RngExt;
use rand_pcg::Pcg64;
use solvers::wang::jl::jl_dimension;
use solvers::wang::jlgd::clipped_projection;
use solvers::wang::{exact_margin, margin_grid, JlMap, MarginOptions};

use super::options::JlMarginOptions;
use contract::{AlgorithmDef, CellOutput, Curves, Metric, Options, Release, Run, RunContext};

fn run_jl_margin(
    ctx: &RunContext,
    problem: &dyn HalfspaceProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    super::mstar::require_unit_rows(problem, "wang_jl_margin_check")?;
    let invalid = |m: &str| RunFailure::InvalidParameters(m.into());
    let gamma = problem
        .true_margin()
        .ok_or_else(|| invalid("the JL margin check needs a family with a planted margin"))?;
    let rows = problem
        .inlier_rows()
        .ok_or_else(|| invalid("the JL margin check needs the family's inlier indices"))?;
    let (n, d) = (problem.num_records(), problem.dim());
    let beta = 1.0 / (n as f64 * n as f64);
    let grid_len = margin_grid(n, 1.0).len();
    let k_gamma = jl_dimension(
        n,
        grid_len,
        gamma,
        beta,
        1.0,
        JlMarginOptions::read(ctx.options)?.jl_constant,
    );
    let map = JlMap::with_dimension(k_gamma, d, rng.random::<u64>());
    let k = map.output_dim();
    // Exactly the rows JLGD sees: clipped to b = 1, projected, clipped to 2b.
    let (projected, scale) = clipped_projection(problem.features(), d, &map, 1.0, 2.0);
    let z: Vec<f64> = projected
        .chunks_exact(k)
        .zip(&scale)
        .flat_map(|(row, &s)| row.iter().map(move |v| v * s))
        .collect();
    // A ratio compared with 1/3 and 1/2 needs no 1e-9 sandwich: stop at 1e-4
    // relative (the lower bound stays certified at any stopping point).
    let opts = MarginOptions {
        rel_tol: 1e-4,
        max_iterations: 50_000,
        ..MarginOptions::default()
    };
    let cert = exact_margin(&z, problem.labels(), k, Some(&rows), opts);
    let ratio = cert.lower / gamma;
    let flag = |keep: bool| if keep { 1.0 } else { 0.0 };
    Ok(CellOutput::new(
        Release::measurement(ratio),
        Curves::new(None, None, Some(1.0 / 3.0)),
        [
            ("k", k as f64),
            ("upper_ratio", cert.upper / gamma),
            ("kept_third", flag(ratio >= 1.0 / 3.0)),
            ("kept_half", flag(ratio >= 0.5)),
            ("margin_converged", flag(cert.converged)),
        ],
    ))
}

pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[AlgorithmDef::new(
    "wang_jl_margin_check",
    "Wang–Zhu–Wang E9 (not private; a geometry check): one Rademacher JL map at M*'s k for the \
          planted gamma*, inliers projected and clipped at 2, their margin certified by the exact \
          solver; metric jl_margin_ratio = certified gamma(Phi S_in)/gamma*",
    &[Metric::JlMarginRatio],
    Run::Halfspace(run_jl_margin),
)
.not_private()
.with_work(super::cost::jl_margin_check)
.with_options(JlMarginOptions::PARAMS)
.with_diagnostics(&[
    "k",
    "upper_ratio",
    "kept_third",
    "kept_half",
    "margin_converged",
])
.with_curves("", "", "gamma*/3 (what the analysis needs)")];
