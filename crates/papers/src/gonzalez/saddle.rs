//! Saddle-point algorithms of González, Guzmán & Paquette (Algorithms 1 and
//! 3) and their baselines (digest §7.4 items 1–3), as registry entries.
//!
//! Stored per metric:
//! - `duality_gap`: the exact population gap of the released pair. Alg. 1:
//!   `theory` is the theorem's rate for the regime with constant 1 (Thm 4.1
//!   `L2 = 0`, Thm 4.1, Thm 4.2), `bound` the explicit plug-in bound of
//!   digest §4.1 for the realised `(T, tau, K)` (an upper bound on the
//!   expected gap), `reference` the lower-bound shape of Remark 4.1
//!   (constant 1). Alg. 3: `theory` is Thm 4.3's rate (a probability-0.99
//!   statement with an unspecified constant, so no bound). Non-private SMD:
//!   `theory` `(L0 + L1) sqrt(l/n)`, `bound` `2 l/(tau T) + 5 tau L0^2`
//!   (Lemma 4.1 in expectation: unbiased gradients at the MW iterates, the
//!   MW average released, no sparsification terms). Euclidean DP-SGDA:
//!   `theory` its private rate `L0 d^{3/4} Lambda^{1/4}/sqrt(n eps)` capped
//!   at `4 L0` (§7.4).
//! - `realised_eps`: the accountant's eps for the releases actually made,
//!   with the target eps as `bound`.
//! - `gradient_evaluations`: record gradients used.

use dpcore::saddle::SaddleProblem;
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::gonzalez::alg1::{alg1_schedule, private_smd_with, Regime};
use solvers::gonzalez::alg3::{alg3_parameters, private_smd_bias_reduced_with};
use solvers::gonzalez::baselines::{noisy_entropic_md, nonprivate_smd};
use solvers::gonzalez::rates::{
    alg1_first_order_rate, alg1_plug_in_bound, alg1_quadratic_rate, alg1_second_order_rate,
    alg3_rate, euclidean_sgda_rate, log_dims, sparsification_penalty_bound, ssp_lower_bound,
};
use solvers::gonzalez::sgda::euclidean_dp_sgda;
use solvers::gonzalez::SaddleRelease;

use super::options::{Alg1EntryOptions, Alg3EntryOptions, SgdaOptions};
use contract::{
    AlgorithmDef, CellOutput, Curves, Diagnostics, Metric, Options, Release, Run, RunContext,
};

/// The realised eps of a release (0 for non-private ones).
fn spent(r: &SaddleRelease) -> f64 {
    r.privacy.as_ref().map_or(0.0, |p| p.eps())
}

/// The release of a saddle run and the curves that apply to the study's
/// metric: those passed in for the gap; for `realised_eps`, the target as
/// bound; none for the cost.
fn release_and_curves(ctx: &RunContext, r: &SaddleRelease, curves: Curves) -> (Release, Curves) {
    let curves = match ctx.metric {
        Metric::RealisedEps => Curves::new(None, Some(ctx.privacy.approx().eps), None),
        Metric::GradientEvaluations => Curves::NONE,
        _ => curves,
    };
    let release = Release::pair(r.x.clone(), r.y.clone(), r.gradient_evaluations as f64)
        .with_realised_privacy(spent(r));
    (release, curves)
}

/// Alg. 1's diagnostic holding the (non-private) gap at the
/// multiplicative-weights average, set on gap studies only.
const MW_GAP: &str = "mw_average_gap_nonprivate";

/// Alg. 1's sparsification penalty: the measured gap minus the gap at the
/// multiplicative-weights average (absent where that was not computed).
fn derive_sparsification_penalty(metric: f64, diagnostics: &mut Diagnostics) {
    if let Some(mw_gap) = diagnostics.get(MW_GAP) {
        diagnostics.set("sparsification_penalty", metric - mw_gap);
    }
}

fn run_alg1(
    ctx: &RunContext,
    problem: &dyn SaddleProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let opts = Alg1EntryOptions::read(ctx.options)?.alg1();
    let regime = opts.regime;
    let p = ctx.privacy.approx();
    let s = alg1_schedule(problem, p, opts)?;
    let r = private_smd_with(problem, p, s, rng)?;
    let c = problem.constants();
    let (dx, dy) = problem.dims();
    let (n, l) = (problem.num_records() as f64, log_dims(dx, dy));
    let theory = match regime {
        Regime::Quadratic => alg1_quadratic_rate(c, n, p.eps, p.delta, dx, dy),
        Regime::SecondOrder => alg1_second_order_rate(c, n, p.eps, p.delta, dx, dy),
        Regime::FirstOrder => alg1_first_order_rate(c, n, p.eps, p.delta, dx, dy),
    };
    let bound = alg1_plug_in_bound(c, l, s.steps, s.tau, s.k);
    let reference = ssp_lower_bound(n, p.eps, p.delta, dx, dy);
    let (release, curves) = release_and_curves(
        ctx,
        &r,
        Curves::new(Some(theory), Some(bound), Some(reference)),
    );
    let mut diagnostics = Diagnostics::from([
        ("steps", s.steps as f64),
        ("batch", s.batch as f64),
        ("k", s.k as f64),
        ("tau", s.tau),
        ("tau_statistical", s.tau_statistical),
        ("tau_privacy_cap", s.tau_privacy_cap),
        ("clamped", f64::from(u8::from(s.clamped))),
        ("realised_eps", spent(&r)),
        (
            "lemma_4_2_bound",
            sparsification_penalty_bound(c.l1, l, s.steps),
        ),
    ]);
    // NOT private: the gap at the MW average and (derived by the runner from
    // the measured gap) the sparsification penalty against Lemma 4.2 (digest
    // §7.1), only on gap studies.
    if ctx.metric == Metric::DualityGap {
        let d = &r.diagnostics;
        diagnostics.set(
            MW_GAP,
            problem.duality_gap(&d.mw_average_x, &d.mw_average_y),
        );
    }
    Ok(CellOutput::new(release, curves, diagnostics))
}

fn run_alg3(
    ctx: &RunContext,
    problem: &dyn SaddleProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let p = ctx.privacy.approx();
    let count = Alg3EntryOptions::read(ctx.options)?.release_count;
    let params = alg3_parameters(problem, p, count.into())?;
    let r = private_smd_bias_reduced_with(problem, p, params, rng)?;
    let (dx, dy) = problem.dims();
    let n = problem.num_records() as f64;
    let theory = alg3_rate(problem.constants(), n, p.eps, p.delta, dx, dy);
    let (release, curves) = release_and_curves(ctx, &r, Curves::new(Some(theory), None, None));
    Ok(CellOutput::new(
        release,
        curves,
        [
            ("steps", r.diagnostics.steps as f64),
            ("records_used", r.diagnostics.batch as f64),
            ("m", f64::from(params.m)),
            ("tau", params.tau),
            ("u", params.u),
            ("alpha", params.alpha),
            ("outside_theory", f64::from(u8::from(params.outside_theory))),
            ("realised_eps", spent(&r)),
        ],
    ))
}

/// Diagnostics of the baselines: steps, batch, step size, realised eps.
fn baseline_output(
    ctx: &RunContext,
    r: &SaddleRelease,
    curves: Curves,
) -> Result<CellOutput, RunFailure> {
    let (release, curves) = release_and_curves(ctx, r, curves);
    let d = &r.diagnostics;
    Ok(CellOutput::new(
        release,
        curves,
        [
            ("steps", d.steps as f64),
            ("batch", d.batch as f64),
            ("step_size", d.tau),
            ("realised_eps", spent(r)),
        ],
    ))
}

fn run_nonprivate_smd(
    ctx: &RunContext,
    problem: &dyn SaddleProblem,
    _rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let r = nonprivate_smd(problem, None)?;
    let c = problem.constants();
    let (dx, dy) = problem.dims();
    let (n, l) = (problem.num_records() as f64, log_dims(dx, dy));
    let (t, tau) = (r.diagnostics.steps as f64, r.diagnostics.tau);
    let theory = (c.l0 + c.l1) * (l / n).sqrt();
    let bound = 2.0 * l / (tau * t) + 5.0 * tau * c.l0 * c.l0;
    baseline_output(ctx, &r, Curves::new(Some(theory), Some(bound), None))
}

fn run_noisy_entropic_md(
    ctx: &RunContext,
    problem: &dyn SaddleProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let r = noisy_entropic_md(problem, ctx.privacy.approx(), rng)?;
    baseline_output(ctx, &r, Curves::NONE)
}

fn run_euclidean_dp_sgda(
    ctx: &RunContext,
    problem: &dyn SaddleProblem,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let clip = SgdaOptions::read(ctx.options)?.clip;
    let r = euclidean_dp_sgda(
        problem,
        ctx.privacy.approx(),
        (clip > 0.0).then_some(clip),
        rng,
    )?;
    let (dx, dy) = problem.dims();
    let (p, n) = (ctx.privacy.approx(), problem.num_records() as f64);
    let theory = euclidean_sgda_rate(problem.constants().l0, n, p.eps, p.delta, dx + dy);
    baseline_output(ctx, &r, Curves::new(Some(theory), None, None))
}

const GAP_METRICS: &[Metric] = &[
    Metric::DualityGap,
    Metric::RealisedEps,
    Metric::GradientEvaluations,
];
const BASELINE_DIAGNOSTICS: &[&str] = &["steps", "batch", "step_size", "realised_eps"];

/// Algorithms of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "ggp_alg1",
        "González et al. Algorithm 1 (Thms 4.1, 4.2): private stochastic mirror descent releasing only MW vertices \
              (exponential mechanism), gradients at K-vertex Maurey points, one pass, output the average of T vertices. \
              Ascent for y and the 2T(K+1) release count by default (digest §3.1 errata)",
        GAP_METRICS,
        Run::Saddle(run_alg1),
    )
.with_work(super::cost::alg1)
    .with_options(Alg1EntryOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&[
        "steps", "batch", "k", "tau", "tau_statistical", "tau_privacy_cap", "clamped", "realised_eps",
        "mw_average_gap_nonprivate", "sparsification_penalty", "lemma_4_2_bound",
    ])
    .deriving_diagnostics(derive_sparsification_penalty)
    .with_curves("plug-in bound (digest §4.1, realised T, tau, K)", "Thm 4.1/4.2 rate, constant 1", "lower-bound shape sqrt(l/n) + r^(1/2) (Remark 4.1)")
    .audited(&super::audit::ALG1),
    AlgorithmDef::new(
        "ggp_alg3",
        "González et al. Algorithm 3 (Thm 4.3): private SMD with BiasReducedGradient (Algorithm 2), random step count, \
              exact spend of the realised levels; per-vertex constant 20 by default (§3.3 erratum). Guarantee with \
              probability 0.99: report quantiles",
        GAP_METRICS,
        Run::Saddle(run_alg3),
    )
.with_work(super::cost::saddle)
    .with_options(Alg3EntryOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&["steps", "records_used", "m", "tau", "u", "alpha", "outside_theory", "realised_eps"])
    .with_curves("", "Thm 4.3 rate sqrt(l G^2 M^2/U), constant 1", "")
    .audited(&super::audit::ALG3),
    AlgorithmDef::new(
        "ggp_nonprivate_smd",
        "Non-private entropic SMD (digest §7.4 item 1): T = n, exact record gradients at the MW iterates, \
              tau = sqrt(2l/(5T))/L0, MW average released. NOT private",
        &[Metric::DualityGap, Metric::GradientEvaluations],
        Run::Saddle(run_nonprivate_smd),
    )
    .not_private()
.with_work(super::cost::nonprivate_saddle)
    .with_diagnostics(BASELINE_DIAGNOSTICS)
    .with_curves("2l/(tau T) + 5 tau L0^2 (Lemma 4.1 in expectation)", "(L0 + L1) sqrt(l/n)", ""),
    AlgorithmDef::new(
        "ggp_noisy_entropic_md",
        "Entropic MD with Gaussian gradient noise (digest §7.4 item 3): L2 sensitivity 2 L0 sqrt(d_x + d_y)/B, \
              disjoint batches; isolates the exponential-mechanism view",
        GAP_METRICS,
        Run::Saddle(run_noisy_entropic_md),
    )
.with_work(super::cost::saddle)
    .requiring_delta()
    .with_diagnostics(BASELINE_DIAGNOSTICS)
    .audited(&super::audit::NOISY_ENTROPIC_MD),
    AlgorithmDef::new(
        "ggp_euclidean_dp_sgda",
        "Euclidean DP-SGDA (digest §7.4 item 2): one-pass projected SGDA on the simplices, L2 clip C (default the \
              worst case L0 sqrt(d_x + d_y)), Gaussian noise, T = n eps/sqrt(d_x + d_y); polynomial in d",
        GAP_METRICS,
        Run::Saddle(run_euclidean_dp_sgda),
    )
.with_work(super::cost::saddle)
    .with_options(SgdaOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(BASELINE_DIAGNOSTICS)
    .with_curves("", "L0 d^(3/4) Lambda^(1/4)/sqrt(n eps), capped at 4 L0", "")
    .audited(&super::audit::EUCLIDEAN_DP_SGDA),
];
