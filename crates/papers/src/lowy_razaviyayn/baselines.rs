//! The baselines Lowy–Razaviyayn Tables 3–6 compare against, as registry
//! entries: GD + output perturbation \[ZZMW17\] and noisy SGD \[BST14\]; and
//! noisy full-batch GD on the E1 quadratic, the gradient-perturbation
//! reference (and the Rust twin of `examples/python/noisy_gd.py`).

use std::cell::RefCell;

use dpcore::{Objective, PrivacyParams, RunFailure};
use rand_pcg::Pcg64;
use solvers::baselines::noisy_gd::{expected_excess, NoisyGd};
use solvers::baselines::noisy_sgd::{NoisySgd, NoisySgdCalibration};
use solvers::baselines::zzmw17::{target_accuracy, Zzmw17};
use solvers::output_perturbation::ConceptualOutputPerturbation;

use contract::{
    AlgorithmDef, CellOutput, Curves, Metric, Options, ParamDef, Release, Run, RunContext,
};

contract::options! {
    /// Options of `noisy_sgd`.
    struct NoisySgdOptions {
        /// Expected Poisson batch size.
        expected_batch: f64 = ParamDef::positive(
            "expected_batch",
            "expected Poisson batch size b = q n (BST14: 1)",
        )
        .default("1.0")
        .option(),
    }
}

contract::options! {
    /// Options of `noisy_gd`.
    struct NoisyGdOptions {
        /// Steps `T`.
        steps: usize = ParamDef::int("steps", 1, "T, the number of noisy full-gradient steps")
            .default("100")
            .option(),
    }
}

/// Noisy GD (`solvers::baselines::noisy_gd`): `T` steps of size `1/beta`
/// from 0 with Gaussian noise on each full gradient at `rho`-zCDP. Theory:
/// the exact expected excess given the data, from the family's constant
/// diagonal Hessian (`Objective::constant_diagonal_hessian`). Cost metric: `T n`.
fn run_noisy_gd(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let steps = NoisyGdOptions::read(ctx.options)?.steps;
    let r = NoisyGd { steps }.run(problem, ctx.privacy.rho(), rng)?;
    let theory = match ctx.metric {
        Metric::GradientEvaluations => Some(r.gradient_evaluations as f64),
        _ => problem
            .constant_diagonal_hessian()
            .map(|h| expected_excess(h, problem.minimizer(), steps, r.step_size, r.sigma)),
    };
    Ok(CellOutput::new(
        Release::point(r.w, r.gradient_evaluations as f64),
        Curves::new(theory, None, None),
        [
            ("steps", steps as f64),
            ("sensitivity", r.sensitivity),
            ("noise_scale", r.sigma),
            ("gradient_evaluations", r.gradient_evaluations as f64),
        ],
    ))
}

/// \[ZZMW17\]: projected GD for `T = ceil(kappa ln(beta R^2/alpha))` steps at
/// the Thm 3.2 target accuracy, then output perturbation calibrated to the
/// iterate sensitivity `Delta_T`.
///
/// Bound (empirical metric): `F(w_T + z) - F* <= F(w_T) - F* + <grad F(w_T),
/// z> + beta/2 ||z||^2`; the noise is independent and centred, so
/// `E[excess] <= alpha/2 + beta/2 E||z||^2` with `F(w_T) - F* <= alpha/2`
/// from the iteration count (module doc of `solvers::baselines::zzmw17`).
/// Cost metric: theory `T n`.
fn run_zzmw17(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let p = ctx.privacy.approx();
    let r = Zzmw17::default().run(problem, p, rng)?;
    let (c, n, d) = (problem.constants(), problem.num_records(), problem.dim());
    let curves = match ctx.metric {
        Metric::GradientEvaluations => Curves::new(Some(r.gradient_evaluations as f64), None, None),
        _ => {
            let alpha = target_accuracy(&c, n, d, p);
            let e_sq = ConceptualOutputPerturbation::expected_noise_sq_norm(d, r.sensitivity, p)?;
            Curves::new(None, Some(0.5 * alpha + 0.5 * c.smoothness * e_sq), None)
        }
    };
    Ok(CellOutput::new(
        Release::point(r.w, r.gradient_evaluations as f64),
        curves,
        [
            ("iterations", r.iterations as f64),
            ("sensitivity", r.sensitivity),
            ("noise_scale", r.noise_scale),
            ("noise_norm_sq", r.noise_norm_sq),
            ("gradient_evaluations", r.gradient_evaluations as f64),
        ],
    ))
}

/// `sgd.calibrate(n, privacy)`, remembered for the last configuration seen
/// on this thread. The calibration is a pure function of `(n, b, eps,
/// delta)` and draws nothing, so [`NoisySgd::run_calibrated`] with it
/// releases bit for bit what [`NoisySgd::run`] does; but the accountant's
/// bisection costs about 0.16 s at n = 20 (T = 400 steps), against
/// microseconds for the steps, and an audit repeats one configuration
/// thousands of times (issue 25).
fn memoized_calibration(
    sgd: &NoisySgd,
    n: usize,
    p: PrivacyParams,
) -> Result<NoisySgdCalibration, RunFailure> {
    type Key = (usize, u64, u64, u64);
    thread_local! {
        static LAST: RefCell<Option<(Key, NoisySgdCalibration)>> = const { RefCell::new(None) };
    }
    let key = (
        n,
        sgd.expected_batch.to_bits(),
        p.eps.to_bits(),
        p.delta.to_bits(),
    );
    let remembered = LAST.with_borrow(|last| match last {
        Some((k, c)) if *k == key => Some(*c),
        _ => None,
    });
    if let Some(cal) = remembered {
        return Ok(cal);
    }
    let cal = sgd.calibrate(n, p)?;
    LAST.set(Some((key, cal)));
    Ok(cal)
}

/// Noisy SGD \[BST14\] with the RDP accountant's replace-one calibration;
/// `NoisySgd::calibrate` fails (and the cell is reported as failed) if the
/// accountant's realised `eps` exceeds the target, so every stored cell is
/// within budget.
fn run_noisy_sgd(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let p = ctx.privacy.approx();
    let sgd = NoisySgd {
        expected_batch: NoisySgdOptions::read(ctx.options)?.expected_batch,
        ..NoisySgd::default()
    };
    let cal = memoized_calibration(&sgd, problem.num_records(), p)?;
    let r = sgd.run_calibrated(problem, cal, rng)?;
    let theory = match ctx.metric {
        // E[sum of Poisson batch sizes] = T q n.
        Metric::GradientEvaluations => {
            Some(cal.steps as f64 * cal.sampling_rate * problem.num_records() as f64)
        }
        _ => None,
    };
    Ok(CellOutput::new(
        Release::point(r.w, r.gradient_evaluations as f64),
        Curves::new(theory, None, None),
        [
            ("steps", cal.steps as f64),
            ("noise_multiplier", cal.noise_multiplier),
            ("realised_eps", cal.realised_eps),
            ("gradient_evaluations", r.gradient_evaluations as f64),
        ],
    ))
}

/// Algorithms of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "zzmw17",
        "[ZZMW17] GD + output perturbation (baseline of Lowy–Razaviyayn Tables 3–6): \
              projected GD with step 1/beta for T = ceil(kappa ln(beta R^2/alpha)) steps at the \
              Thm 3.2 target alpha, noise calibrated to the iterate sensitivity \
              Delta_T = 2L/(mu n)(1 - (1 - 1/kappa)^T). Bound: alpha/2 + beta/2 E||z||^2",
        &[Metric::ExcessEmpiricalRisk, Metric::GradientEvaluations],
        Run::Objective(run_zzmw17),
    )
    .only_on(
        &["diagonal_quadratic", "logistic", "sco_quadratic", "term"],
        "its iteration count needs 0 < mu <= beta < inf",
    )
    .with_work(super::cost::zzmw17)
    .delta_below(0.5)
    .with_diagnostics(&[
        "iterations",
        "sensitivity",
        "noise_scale",
        "noise_norm_sq",
        "gradient_evaluations",
    ])
    .with_curves(
        "alpha/2 + beta/2 E||z||^2 (smoothness bound)",
        "T n gradient evaluations",
        "",
    )
    .audited(&super::audit::ZZMW17),
    AlgorithmDef::new(
        "noisy_sgd",
        "[BST14] noisy projected SGD (baseline of Lowy–Razaviyayn Tables 4 and 6): T = n^2 \
              Poisson-subsampled steps, step 1/(mu t), t-weighted average; noise multiplier from \
              the RDP accountant (add/remove) with group privacy for replace-one neighbours; a \
              cell fails if the realised eps exceeds the target. No constant-explicit bound",
        &[Metric::ExcessEmpiricalRisk, Metric::GradientEvaluations],
        Run::Objective(run_noisy_sgd),
    )
    .only_on(
        &[
            "adversarial_logistic",
            "diagonal_quadratic",
            "logistic",
            "sco_quadratic",
            "sharp",
        ],
        "it needs a strongly convex finite-sum (ERM) objective",
    )
    .with_work(super::cost::noisy_sgd)
    .with_options(NoisySgdOptions::PARAMS)
    .requiring_delta()
    .with_diagnostics(&[
        "steps",
        "noise_multiplier",
        "realised_eps",
        "gradient_evaluations",
    ])
    .with_curves("", "expected gradient evaluations T q n", "")
    .audited(&super::audit::NOISY_SGD),
    AlgorithmDef::new(
        "noisy_gd",
        "Noisy full-batch GD (gradient perturbation) on the E1 quadratic: T steps of size 1/beta \
              from 0, Gaussian noise sigma = Delta sqrt(T/(2 rho)) on each full gradient, \
              Delta = L/n = 2 beta R/n (a record moves H (w - x) by at most that, at every w); \
              rho-zCDP by composition (Bun-Steinke Prop 1.6, Lemma 2.3). Theory: the exact \
              expected excess given the data. The Rust twin of examples/python/noisy_gd.py",
        &[Metric::ExcessEmpiricalRisk, Metric::GradientEvaluations],
        Run::Objective(run_noisy_gd),
    )
    .only_on(
        &["diagonal_quadratic"],
        "its sensitivity L/n needs a gradient affine in the record, H (w - x) with ||H|| <= beta",
    )
    .zcdp()
    .with_work(super::cost::noisy_gd)
    .with_options(NoisyGdOptions::PARAMS)
    .with_diagnostics(&[
        "steps",
        "sensitivity",
        "noise_scale",
        "gradient_evaluations",
    ])
    .with_curves("", "exact E excess of T noisy steps", "")
    .audited(&super::audit::NOISY_GD),
];
