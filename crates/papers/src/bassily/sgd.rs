//! Noisy SGD of Bassily et al. (Algorithm 1, Theorem 4.4, `A_ProxGD`), the
//! one-pass SGD reference and the digest's E4 comparison curves, as registry
//! entries; `nsgd_with_replacement` is Algorithm 1 with its printed
//! with-replacement sampling (digest P5), there to audit claim BFTT-P5.
//!
//! Stored per metric: `bound` is what the implemented algorithm provably
//! satisfies (Lemma 3.3 with Poisson batches normalised by the fixed `m` and
//! the noise actually used, plus Lemma 3.4 with the proof's `T + 1`; for the
//! Moreau variant plus the smoothing gap `L^2/(2 beta_env)`), capped at the
//! trivial `2 M L`; `reference` is the theorem as stated (`10 M L R`,
//! `24 M L R`, Lemma 3.3 and 3.4 as printed). `realised_eps` is the
//! accountant's eps for the noise used, with the target eps as its bound.

use dpcore::{Neighbouring, Objective, RunFailure};
use rand_pcg::Pcg64;
use solvers::bassily::rate::rate;
use solvers::bassily::sgd::bounds::{
    b_moreau_paper, b_nsgd_implemented, b_nsgd_stated, bst14_dp_generalization,
    bst14_regularization, capped_at_trivial, lemma_3_3_empirical, lemma_3_3_poisson,
    lemma_3_3_with_replacement, lemma_3_4_stability, lemma_3_4_stability_stated,
    moreau_smoothing_gap, uniform_convergence_dp_erm, CurvePoint,
};
use solvers::bassily::sgd::{
    one_pass_sgd, one_pass_sgd_bound, BatchSampling, Nsgd, NsgdRelease, NsgdVariant,
};
use solvers::transcript::Unobserved;

use super::options::{NsgdOptions, NsgdWithReplacementOptions};
use contract::{
    AlgorithmDef, CellOutput, Curves, Diagnostics, Metric, Options, ParamDef, Release, Run,
    RunContext,
};

fn curve_point(ctx: &RunContext, problem: &dyn Objective) -> CurvePoint {
    let c = problem.constants();
    CurvePoint {
        n: problem.num_records() as f64,
        d: problem.dim() as f64,
        eps: ctx.privacy.approx().eps,
        delta: ctx.privacy.approx().delta,
        radius: c.radius,
        lipschitz: c.lipschitz,
    }
}

/// (bound, reference) of a risk metric for an NSGD release, `None` where the
/// paper gives none.
fn nsgd_bounds(
    ctx: &RunContext,
    p: &CurvePoint,
    r: &NsgdRelease,
    variant: NsgdVariant,
) -> (Option<f64>, Option<f64>) {
    let (eta, t, m, sigma) = (r.step_size, r.steps, r.batch, r.sigma);
    let cap = |b: f64| capped_at_trivial(b, p.radius, p.lipschitz);
    let implemented = b_nsgd_implemented(p, eta, t, m, sigma);
    let (bound, reference) = match (ctx.metric, variant) {
        (Metric::ExcessPopulationRisk, NsgdVariant::Smooth) => (cap(implemented), b_nsgd_stated(p)),
        (Metric::ExcessPopulationRisk, NsgdVariant::MoreauEnvelope) => (
            cap(implemented + moreau_smoothing_gap(p)),
            b_moreau_paper(p),
        ),
        // A_ProxGD: "same as Thm 4.4" up to constants the paper does not give.
        (Metric::ExcessPopulationRisk, NsgdVariant::ProxGd) => {
            return (None, Some(b_moreau_paper(p)))
        }
        (Metric::ExcessEmpiricalRisk, NsgdVariant::Smooth) => (
            lemma_3_3_poisson(p, eta, t, m, sigma),
            lemma_3_3_empirical(p, eta, t),
        ),
        (Metric::GeneralizationGap, NsgdVariant::Smooth) => (
            lemma_3_4_stability(p, eta, t),
            lemma_3_4_stability_stated(p, eta, t),
        ),
        _ => return (None, None),
    };
    (Some(bound), Some(reference))
}

/// The public `n` an NSGD schedule is computed from: under add/remove the
/// family's declared `n` (the size the experiment or the audit pair names,
/// the same for both neighbours; never the data set's own size, which is
/// what differs between them), under replace-one the data set's size
/// (`None`).
pub(crate) fn public_n(
    ctx: &RunContext,
    relation: Neighbouring,
) -> Result<Option<usize>, RunFailure> {
    if relation == Neighbouring::ReplaceOne {
        return Ok(None);
    }
    // The declared n is a value of the spec (or of the audit pair), not a
    // fact of the instance: the smaller add/remove neighbour holds n - 1
    // records and must still be scheduled for n.
    match contract::read::<usize>(ctx.problem, "n") {
        Ok(n) if n >= 1 => Ok(Some(n)),
        _ => Err(RunFailure::InvalidParameters(
            "add/remove NSGD computes its schedule from the family's declared n, which this \
             problem does not give"
                .into(),
        )),
    }
}

/// The `A_NSGD`-family algorithm a cell's options select (calibration,
/// relation, and the public `n` under add/remove).
pub(crate) fn nsgd_of(ctx: &RunContext, variant: NsgdVariant) -> Result<Nsgd, RunFailure> {
    let options = NsgdOptions::read(ctx.options)?;
    let algorithm = Nsgd {
        variant,
        calibration: options.calibration.into(),
        relation: options.neighbouring.into(),
        public_n: None,
    };
    Ok(Nsgd {
        public_n: public_n(ctx, algorithm.relation)?,
        ..algorithm
    })
}

fn run_variant(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
    variant: NsgdVariant,
) -> Result<CellOutput, RunFailure> {
    let algorithm = nsgd_of(ctx, variant)?;
    let r = algorithm.run(problem, ctx.privacy.approx(), rng)?;
    let p = curve_point(ctx, problem);
    let curves = match ctx.metric {
        Metric::RealisedEps => Curves::new(None, Some(ctx.privacy.approx().eps), None),
        Metric::GradientEvaluations => {
            Curves::new(Some(r.theory_gradient_evaluations as f64), None, None)
        }
        _ => {
            let (bound, reference) = nsgd_bounds(ctx, &p, &r, variant);
            Curves::new(None, bound, reference)
        }
    };
    Ok(CellOutput::new(
        Release::point(r.w.clone(), r.gradient_evaluations as f64)
            .with_realised_privacy(r.realised_eps),
        curves,
        [
            ("steps", r.steps as f64),
            ("batch", r.batch as f64),
            ("step_size", r.step_size),
            ("sigma", r.sigma),
            ("noise_multiplier", r.noise_multiplier),
            ("realised_eps", r.realised_eps),
            ("gradient_evaluations", r.gradient_evaluations as f64),
            ("largest_batch", r.largest_batch as f64),
        ],
    ))
}

fn run_nsgd(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    run_variant(ctx, problem, rng, NsgdVariant::Smooth)
}

fn run_nsgd_moreau(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    run_variant(ctx, problem, rng, NsgdVariant::MoreauEnvelope)
}

fn run_prox_gd(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    run_variant(ctx, problem, rng, NsgdVariant::ProxGd)
}

/// `A_NSGD` as Algorithm 1 prints its sampling (`nsgd_with_replacement`):
/// the calibration `nsgd` would use under replace-one (Poisson batches at
/// `q = m/n`), run on batches of `m` indices drawn with replacement.
pub(crate) fn nsgd_with_replacement_of(ctx: &RunContext) -> Result<Nsgd, RunFailure> {
    let options = NsgdWithReplacementOptions::read(ctx.options)?;
    Ok(Nsgd {
        variant: NsgdVariant::Smooth,
        calibration: options.calibration.into(),
        relation: Neighbouring::ReplaceOne,
        public_n: None,
    })
}

/// `nsgd_with_replacement`. No accountant certifies its noise for this
/// sampling, so the release carries no realised privacy and the entry has
/// no realised-eps metric; its bounds are the printed lemmas' with the
/// noise used (Lemma 3.3 with `E||g||^2 <= L^2`, Lemma 3.4 proved for these
/// batches).
fn run_nsgd_with_replacement(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let algorithm = nsgd_with_replacement_of(ctx)?;
    let plan = algorithm.plan(problem, ctx.privacy.approx())?;
    let r = algorithm.run_planned_sampled(
        problem,
        &plan,
        BatchSampling::WithReplacement,
        &mut Unobserved,
        rng,
    )?;
    let p = curve_point(ctx, problem);
    let (eta, t, sigma) = (r.step_size, r.steps, r.sigma);
    let empirical = lemma_3_3_with_replacement(&p, eta, t, sigma);
    let curves = match ctx.metric {
        Metric::GradientEvaluations => {
            Curves::new(Some(r.theory_gradient_evaluations as f64), None, None)
        }
        Metric::ExcessPopulationRisk => Curves::new(
            None,
            Some(capped_at_trivial(
                empirical + lemma_3_4_stability(&p, eta, t),
                p.radius,
                p.lipschitz,
            )),
            Some(b_nsgd_stated(&p)),
        ),
        Metric::ExcessEmpiricalRisk => {
            Curves::new(None, Some(empirical), Some(lemma_3_3_empirical(&p, eta, t)))
        }
        Metric::GeneralizationGap => Curves::new(
            None,
            Some(lemma_3_4_stability(&p, eta, t)),
            Some(lemma_3_4_stability_stated(&p, eta, t)),
        ),
        _ => Curves::NONE,
    };
    Ok(CellOutput::new(
        Release::point(r.w.clone(), r.gradient_evaluations as f64),
        curves,
        [
            ("steps", r.steps as f64),
            ("batch", r.batch as f64),
            ("step_size", r.step_size),
            ("sigma", r.sigma),
            ("noise_multiplier", r.noise_multiplier),
            ("poisson_accountant_eps", r.realised_eps),
            ("gradient_evaluations", r.gradient_evaluations as f64),
        ],
    ))
}

/// Non-private one-pass projected SGD: bound `M L/sqrt(n)` (module doc of
/// `solvers::bassily::sgd::one_pass`).
fn run_one_pass_sgd(
    ctx: &RunContext,
    problem: &dyn Objective,
    _rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let w = one_pass_sgd(problem)?;
    let c = problem.constants();
    let n = problem.num_records();
    let curves = match ctx.metric {
        Metric::ExcessPopulationRisk => Curves::new(
            None,
            Some(one_pass_sgd_bound(c.radius, c.lipschitz, n)),
            None,
        ),
        Metric::GradientEvaluations => Curves::new(Some(n as f64), None, None),
        _ => Curves::NONE,
    };
    Ok(CellOutput::new(
        Release::point(w, n as f64),
        curves,
        Diagnostics::new(),
    ))
}

/// The digest's E4 comparison: a theory curve evaluated at the grid point
/// (times `M L`), stored as the "measured" value so that it is drawn on the
/// same axes as measured studies. Deterministic; a negative control, not a
/// measurement.
fn run_theory_curve(
    ctx: &RunContext,
    problem: &dyn Objective,
    _rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let p = curve_point(ctx, problem);
    let shape = match TheoryCurveOptions::read(ctx.options)?.curve {
        Curve::UniformConvergence => uniform_convergence_dp_erm(p.n, p.d, p.eps, p.delta),
        Curve::Bst14DpGeneralization => bst14_dp_generalization(p.n, p.d, p.eps),
        Curve::Bst14Regularization => bst14_regularization(p.n, p.d, p.eps),
        Curve::PrivateScoRate => rate(p.n, p.d, p.eps, p.delta),
    };
    let value = p.radius * p.lipschitz * shape;
    Ok(CellOutput::new(
        Release::measurement(value),
        Curves::new(Some(value), None, None),
        Diagnostics::new(),
    ))
}

contract::choices! {
    /// The `curve` option's values of `theory_curve` (digest E4).
    enum Curve {
        /// This paper's `M L R` rate.
        PrivateScoRate = "private_sco_rate",
        /// Uniform convergence plus DP-ERM.
        UniformConvergence = "uniform_convergence",
        /// \[BST14\] via DP generalization.
        Bst14DpGeneralization = "bst14_dp_generalization",
        /// \[BST14\] via regularization.
        Bst14Regularization = "bst14_regularization",
    }
}

contract::options! {
    /// Options of `theory_curve`.
    struct TheoryCurveOptions {
        /// Which E4 curve.
        curve: Curve = ParamDef::choice(
            "curve",
            Curve::NAMES,
            "E4 curve: this paper's M L R, uniform convergence + DP-ERM, [BST14] via DP generalization, [BST14] via regularization",
        )
        .default("\"private_sco_rate\"")
        .option(),
    }
}

const NSGD_METRICS: &[Metric] = &[
    Metric::ExcessPopulationRisk,
    Metric::ExcessEmpiricalRisk,
    Metric::GeneralizationGap,
    Metric::GradientEvaluations,
    Metric::RealisedEps,
];

const NSGD_DIAGNOSTICS: &[&str] = &[
    "steps",
    "batch",
    "step_size",
    "sigma",
    "noise_multiplier",
    "realised_eps",
    "gradient_evaluations",
    "largest_batch",
];

const NSGD_WITH_REPLACEMENT_DIAGNOSTICS: &[&str] = &[
    "steps",
    "batch",
    "step_size",
    "sigma",
    "noise_multiplier",
    "poisson_accountant_eps",
    "gradient_evaluations",
];

/// The families with a finite-sum (ERM) objective, where a stochastic
/// gradient of one record is defined: every algorithm here except the
/// Moreau-envelope one (which needs a closed-form prox) runs on exactly these.
const FINITE_SUM_FAMILIES: &[&str] = &[
    "abs_deviation",
    "adversarial_logistic",
    "diagonal_quadratic",
    "geometric_median",
    "least_squares_glm",
    "lin_ball",
    "logistic",
    "logistic_glm",
    "pseudo_huber",
    "sco_quadratic",
    "sharp",
];

/// Algorithms of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "nsgd",
        "Bassily et al. A_NSGD (Algorithm 1, Thm 3.2): T = min(n/8, (eps n)^2/(32 d Lambda)) steps of projected \
              SGD on Poisson batches (q = m/n, sum normalised by the fixed m), gradients clipped to L, step \
              M/(L sqrt T), averaged iterates. Bound: Lemmas 3.3 + 3.4 for the implementation; reference 10 M L R",
        NSGD_METRICS,
        Run::Objective(run_nsgd),
    )
    .only_on(
        FINITE_SUM_FAMILIES,
        "it needs a finite-sum (ERM) objective",
    )
.with_work(super::cost::nsgd)
    .with_setup_work(super::cost::nsgd_accountant)
    .audited(&super::audit::NSGD)
    .with_options(NsgdOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(NSGD_DIAGNOSTICS)
    .with_curves("Lemmas 3.3 + 3.4 (implemented noise, Poisson batches)", "T m gradient evaluations", "Thm 3.2 as stated (10 M L R) / printed lemma"),
    AlgorithmDef::new(
        "nsgd_with_replacement",
        "Bassily et al. A_NSGD with Algorithm 1's printed sampling (digest P5): each of the T steps draws m indices \
              uniformly with replacement (a record enters r ~ Binomial(m, 1/n) times), clips to L, divides the sum by m \
              and adds the noise nsgd's replace-one calibration sets for Poisson batches at q = m/n (Thm 3.1's proof \
              cites that accountant). No accountant here covers this sampling: the entry exists to audit that claim \
              (BFTT-P5). Bound: Lemma 3.3 (E||g||^2 <= L^2) + Lemma 3.4 with the noise used; reference 10 M L R",
        &[
            Metric::ExcessPopulationRisk,
            Metric::ExcessEmpiricalRisk,
            Metric::GeneralizationGap,
            Metric::GradientEvaluations,
        ],
        Run::Objective(run_nsgd_with_replacement),
    )
    .only_on(
        FINITE_SUM_FAMILIES,
        "it needs a finite-sum (ERM) objective",
    )
    .with_work(super::cost::nsgd_with_replacement)
    .with_setup_work(super::cost::nsgd_with_replacement_accountant)
    .audited(&super::audit::NSGD_WITH_REPLACEMENT)
    .with_options(NsgdWithReplacementOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(NSGD_WITH_REPLACEMENT_DIAGNOSTICS)
    .with_curves("Lemmas 3.3 + 3.4 (noise used, with-replacement batches)", "T m gradient evaluations", "Thm 3.2 as stated (10 M L R) / printed lemma"),
    AlgorithmDef::new(
        "nsgd_moreau",
        "Bassily et al. Thm 4.4: A_NSGD on the unconstrained Moreau envelope with the family's closed-form \
              prox, beta_env = (L/M) min(sqrt(n)/4, eps n/(8 sqrt(d Lambda))), clip L. Bound: Lemmas 3.3 + 3.4 \
              plus the smoothing gap L^2/(2 beta_env) (at most 14 M L R); reference 24 M L R as printed",
        NSGD_METRICS,
        Run::Objective(run_nsgd_moreau),
    )
    // LinBall's envelope is its linear loss shifted by a constant (the
    // family's docs), the instance that attains the rate in d.
    .only_on(
        &["abs_deviation", "lin_ball"],
        "it needs the family's closed-form Moreau envelope",
    )
    .with_work(super::cost::nsgd_moreau)
    .with_setup_work(super::cost::nsgd_moreau_accountant)
    .audited(&super::audit::NSGD_MOREAU)
    .with_options(NsgdOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(NSGD_DIAGNOSTICS)
    .with_curves("Lemmas 3.3 + 3.4 + smoothing gap (<= 14 M L R)", "T m gradient evaluations", "Thm 4.4 as printed (24 M L R)"),
    AlgorithmDef::new(
        "prox_gd",
        "Bassily et al. A_ProxGD: nsgd_moreau with each prox computed by inner projected subgradient descent \
              (Fact 4.6, ceil(36 M^2/xi^2) steps, P10), clip L(1 + 1/n). Very expensive: n <= ~200",
        NSGD_METRICS,
        Run::Objective(run_prox_gd),
    )
    .only_on(
        FINITE_SUM_FAMILIES,
        "it needs a finite-sum (ERM) objective",
    )
.with_work(super::cost::prox_gd)
    .with_setup_work(super::cost::prox_gd_accountant)
    .audited(&super::audit::PROX_GD)
    .with_options(NsgdOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(NSGD_DIAGNOSTICS)
    .with_curves("", "T m ceil(36 M^2/xi^2) gradient evaluations", "Thm 4.4 as printed (24 M L R)"),
    AlgorithmDef::new(
        "one_pass_sgd",
        "Non-private one-pass projected SGD (reference of Bassily et al.): n steps, step M/(L sqrt n), averaged. \
              Bound M L/sqrt(n)",
        &[Metric::ExcessPopulationRisk, Metric::ExcessEmpiricalRisk, Metric::GeneralizationGap, Metric::GradientEvaluations],
        Run::Objective(run_one_pass_sgd),
    )
    .only_on(
        FINITE_SUM_FAMILIES,
        "it needs a finite-sum (ERM) objective",
    )
    .not_private()
    .audited(&super::audit::ONE_PASS_SGD)
    .with_curves("M L/sqrt(n)", "n gradient evaluations", ""),
    AlgorithmDef::new(
        "theory_curve",
        "Not an algorithm: the value of a theory curve (times M L) at each grid point, to draw the digest's E4 \
              comparison (ERM / uniform convergence vs stability) on the axes of measured studies. A negative \
              control on GLMs and LinBall, where uniform convergence is dimension-free",
        &[Metric::ExcessPopulationRisk],
        Run::Objective(run_theory_curve),
    )
    .not_private()
.with_work(super::cost::theory_curve)
    .with_options(TheoryCurveOptions::PARAMS)
    .with_curves("", "the curve", ""),
];
