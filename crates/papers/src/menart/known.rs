//! The known-parameter algorithms of Menart et al. as registry entries:
//! Algorithm 1 (KL Spider, Theorem 1) and Algorithm 2 + 4 (proximal point,
//! Theorem 2).
//!
//! Curves for `excess_empirical_risk` (digest §3.6 "theory-curve recipes"):
//! - Algorithm 1: theory = bound = `Phi_K` of the schedule actually run
//!   ([`bounds::spider_theory`]: deterministic, w.h.p. bound, logs included);
//!   reference = the bare rate `(gamma L0 sqrt(d)/(n sqrt rho))^kappa`.
//! - Algorithm 2: theory = Theorem 2's proof bound
//!   [`bounds::proximal_theory`] with the unspecified Lemma 3 constant `a`
//!   given as the option `theory_constant` (fitted, digest E2), no bound;
//!   reference = the bare rate.

use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::menart::bounds::{self, TheoryInputs};
use solvers::menart::proximal::{InnerSteps, ProximalPoint};
use solvers::menart::spider::{KlSpider, SpiderConstants, SpiderInputs};

use super::common::{kl_diagnostics, output, theory_inputs, CalibrationOption, BETA, CALIBRATION};
use contract::{
    AlgorithmDef, CellOutput, Curves, Diagnostics, Metric, Options, ParamDef, Run, RunContext,
};

/// The theorems' inputs of a family the entry accepts (all declare KL
/// constants: `only_on`); a run-time refusal otherwise.
fn kl_inputs(problem: &dyn KlObjective, rho: f64, beta: f64) -> Result<TheoryInputs, RunFailure> {
    theory_inputs(problem, rho, beta)
        .ok_or_else(|| RunFailure::InvalidParameters("the family declares no KL constants".into()))
}

contract::choices! {
    /// The `constants` option's values of `kl_spider`.
    enum Constants {
        /// The calibration's own utility constants (48 or the paper's 32, and 64).
        Calibration = "calibration",
        /// The E1b variant with `floor_constant` and `round_constant`.
        Scaled = "scaled",
    }
}

contract::options! {
    /// Options of `kl_spider`.
    struct SpiderOptions {
        /// The noise calibration.
        calibration: CalibrationOption = CALIBRATION,
        /// Failure probability of the w.h.p. guarantee.
        beta: f64 = BETA,
        /// Which utility constants.
        constants: Constants = ParamDef::choice(
            "constants",
            Constants::NAMES,
            "utility constants: the calibration's own (48 or the paper's 32, and 64) or the E1b \
                  \"scaled\" variant with floor_constant and round_constant (privacy unaffected)",
        )
        .default("\"calibration\"")
        .option(),
        /// E1b floor constant.
        floor_constant: f64 = ParamDef::positive(
            "floor_constant",
            "E1b floor constant c_f (only with constants = \"scaled\")",
        )
        .default("4.0")
        .option(),
        /// E1b round constant.
        round_constant: f64 = ParamDef::positive(
            "round_constant",
            "E1b round constant c_K (only with constants = \"scaled\")",
        )
        .default("4.0")
        .option(),
    }
}

contract::choices! {
    /// The `inner_steps` option's values of `kl_proximal_point` and
    /// `kl_noisy_pgd_theorem9`.
    pub(crate) enum InnerStepsOption {
        /// Theorem 9's `n^2 rho_A log^2(2/beta_A)/d`.
        Theorem9 = "theorem9",
        /// The marked practical variant without the `log^2` (digest E2).
        Practical = "practical",
    }
}

/// The `inner_steps` option of the entries that run Algorithm 4.
pub(crate) const INNER_STEPS: ParamDef = ParamDef::choice(
    "inner_steps",
    InnerStepsOption::NAMES,
    "T_in of Algorithm 4: Theorem 9's n^2 rho_A log^2(2/beta_A)/d, or the marked \"practical\" \
          variant without the log^2 (digest E2)",
)
.default("\"theorem9\"")
.option();

impl From<InnerStepsOption> for InnerSteps {
    fn from(o: InnerStepsOption) -> Self {
        match o {
            InnerStepsOption::Theorem9 => InnerSteps::Theorem9,
            InnerStepsOption::Practical => InnerSteps::Practical,
        }
    }
}

contract::options! {
    /// Options of `kl_proximal_point`.
    pub(crate) struct ProximalOptions {
        /// The noise calibration.
        calibration: CalibrationOption = CALIBRATION,
        /// Failure probability of the w.h.p. guarantee.
        pub(crate) beta: f64 = BETA,
        /// Algorithm 4's inner step count.
        inner_steps: InnerStepsOption = INNER_STEPS,
        /// Multiplier of the balanced prox weight.
        prox_weight_factor: f64 = ParamDef::positive(
            "prox_weight_factor",
            "multiplier of the balanced prox weight (E2 checks: 0.1, 10)",
        )
        .default("1.0")
        .option(),
        /// Lemma 3's constant `a` in the theory curve.
        theory_constant: f64 = ParamDef::positive(
            "theory_constant",
            "Lemma 3's unspecified constant a in the theory curve (digest E2 prototype: a ~ 0.4-0.6)",
        )
        .default("0.5")
        .option(),
    }
}

/// The Algorithm 1 configuration from its options.
fn spider(o: &SpiderOptions) -> KlSpider {
    let constants = match o.constants {
        Constants::Scaled => Some(SpiderConstants::scaled(o.floor_constant, o.round_constant)),
        Constants::Calibration => None,
    };
    KlSpider {
        calibration: o.calibration.into(),
        constants,
    }
}

/// The Algorithm 1 configuration and its failure probability `beta` from
/// an entry's option values (the audit's transcript runs it as the entry
/// does).
pub(super) fn spider_of(values: &contract::Values) -> Result<(KlSpider, f64), RunFailure> {
    let options = SpiderOptions::read(values)?;
    Ok((spider(&options), options.beta))
}

/// Algorithm 1 (KL Spider, Theorem 1).
fn run_spider(
    ctx: &RunContext,
    problem: &dyn KlObjective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let options = SpiderOptions::read(ctx.options)?;
    let algorithm = spider(&options);
    let inputs = SpiderInputs::from_problem(problem, ctx.privacy.rho(), options.beta)?;
    let schedule = algorithm.schedule(inputs)?;
    let run = algorithm.run_with(problem, inputs, rng)?;
    let phi_k = schedule.map_or(inputs.f0, |s| s.theory_bound());
    let t = kl_inputs(problem, ctx.privacy.rho(), inputs.beta)?;
    let excess = Curves::new(Some(phi_k), Some(phi_k), Some(bounds::nominal_rate(&t)));
    let above = f64::from(u8::from(problem.excess_risk(&run.w) > phi_k));
    let (rounds, radius) =
        schedule.map_or((0.0, 0.0), |s| (s.rounds as f64, s.trajectory_radius()));
    let extra = Diagnostics::from([
        ("rounds", rounds),
        ("phi_k", phi_k),
        ("excess_above_phi_k", above),
        (
            "trajectory_radius_over_region",
            radius / problem.kl_constants().region_radius,
        ),
    ]);
    output(ctx, &run, excess, Curves::NONE, extra)
}

/// The solver `kl_proximal_point`'s options configure.
pub(crate) fn proximal_point(o: &ProximalOptions) -> ProximalPoint {
    ProximalPoint {
        calibration: o.calibration.into(),
        inner_steps: o.inner_steps.into(),
        prox_weight_factor: o.prox_weight_factor,
    }
}

/// Algorithm 2 with Algorithm 4 (proximal point, Theorem 2).
fn run_proximal(
    ctx: &RunContext,
    problem: &dyn KlObjective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let o = ProximalOptions::read(ctx.options)?;
    let algorithm = proximal_point(&o);
    let beta = o.beta;
    let schedule = algorithm.schedule(problem, ctx.privacy.rho(), beta)?;
    let run = algorithm.run(problem, ctx.privacy.rho(), beta, rng)?;
    let t = kl_inputs(problem, ctx.privacy.rho(), beta)?;
    let mut extra = Diagnostics::new();
    let theory = match schedule {
        Some(s) => {
            extra
                .set("rounds", s.rounds as f64)
                .set("inner_steps", s.inner_steps as f64)
                .set("prox_weight", s.prox_weight);
            bounds::proximal_theory(
                &TheoryInputs {
                    l1: s.prox_weight,
                    ..t
                },
                o.theory_constant,
            )
        }
        // The trivial rate: no round runs, and no prox weight is chosen.
        None => {
            extra.set("rounds", 0.0).set("inner_steps", 0.0);
            t.f0
        }
    };
    let excess = Curves::new(Some(theory), None, Some(bounds::nominal_rate(&t)));
    output(ctx, &run, excess, Curves::NONE, extra)
}

const METRICS: &[Metric] = &[
    Metric::ExcessEmpiricalRisk,
    Metric::GradientNorm,
    Metric::GradientEvaluations,
    Metric::RealisedRho,
];

/// Algorithms of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[
    AlgorithmDef::new(
        "kl_spider",
        "Menart et al. Algorithm 1 (KL Spider, Theorem 1, kappa in [1, 2]): K rounds with targets \
              Phi_k = max(F0 c^-k, floor), a noisy clipped full gradient per round and noisy clipped Spider \
              differences; recommended: exact-count loop, replace-one noise (spend <= rho), floor constant 48 \
              (digest §2.1, P1, P2, P6). Excess bound and theory: Phi_K (w.h.p.)",
        METRICS,
        Run::KlObjective(run_spider),
    )
    .only_on(
        &["kl_kns_pl", "kl_least_squares", "kl_mean_estimation", "kl_power_regression", "kl_power_tilt"],
        "Algorithm 1 needs KL constants and a finite smoothness L1",
    )
.with_work(super::cost::spider)
    .with_options(SpiderOptions::PARAMS)
    .zcdp()
    .with_diagnostics(kl_diagnostics![
            "rounds",
            "phi_k",
            "excess_above_phi_k",
            "trajectory_radius_over_region",
        ])
    .with_curves("Phi_K (Thm 1, w.h.p.)", "Phi_K (Thm 1, logs included)", "bare rate (gamma L0 sqrt d/(n sqrt rho))^kappa")
    .audited(&super::audit::SPIDER),
    AlgorithmDef::new(
        "kl_proximal_point",
        "Menart et al. Algorithm 2 (private proximal point, Theorem 2, kappa >= 2) with Algorithm 4 \
              (noisy projected GD, Theorem 9) at budget rho/T per round; prox term Lt1 ||w - w_t-1||^2 with the \
              balanced Lt1 = F0^((2-k)/k)/gamma^2 times prox_weight_factor (digest §2.2, P15). Theory: Theorem 2's \
              proof bound with the fitted constant a (theory_constant)",
        METRICS,
        Run::KlObjective(run_proximal),
    )
    .only_on(
        &["kl_kns_pl", "kl_least_squares", "kl_mean_estimation", "kl_power_tilt", "kl_theorem8"],
        "Algorithm 2 needs KL constants with kappa >= 2",
    )
.with_work(super::cost::proximal_point)
    .with_options(ProximalOptions::PARAMS)
    .zcdp()
    .with_diagnostics(kl_diagnostics![
            "rounds",
            "inner_steps",
            "prox_weight",
        ])
    .with_curves("", "Thm 2 proof bound with fitted a (logs included)", "bare rate (gamma L0 sqrt d/(n sqrt rho))^kappa")
    .audited(&super::audit::PROXIMAL_POINT),
];
