//! The known-parameter algorithms of Menart et al. as registry entries:
//! Algorithm 1 (KL Spider, Theorem 1) and Algorithm 2 + 4 (proximal point,
//! Theorem 2).
//!
//! KlCurves for `excess_empirical_risk` (digest §3.6 "theory-curve recipes"):
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

use super::common::{
    beta, calibration, kl_diagnostics, output, theory_inputs, KlCurves, BETA, CALIBRATION,
};
use contract::{choice, num, AlgorithmDef, CellOutput, Metric, ParamDef, Run, RunContext};

/// The Algorithm 1 configuration from its options.
fn spider(options: &contract::Values) -> KlSpider {
    let constants = match choice(options, "constants") {
        "scaled" => Some(SpiderConstants::scaled(
            num(options, "floor_constant"),
            num(options, "round_constant"),
        )),
        _ => None,
    };
    KlSpider {
        calibration: calibration(options),
        constants,
    }
}

/// Algorithm 1 (KL Spider, Theorem 1).
fn run_spider(
    ctx: &RunContext,
    problem: &dyn KlObjective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let algorithm = spider(ctx.options);
    let inputs = SpiderInputs::from_problem(problem, ctx.privacy.rho(), beta(ctx.options))?;
    let schedule = algorithm.schedule(inputs)?;
    let run = algorithm.run_with(problem, inputs, rng)?;
    let phi_k = schedule.map_or(inputs.f0, |s| s.theory_bound());
    let t = theory_inputs(problem, ctx.privacy.rho(), inputs.beta);
    let excess = KlCurves {
        theory: phi_k,
        bound: phi_k,
        reference: bounds::nominal_rate(&t),
    };
    let above = f64::from(u8::from(problem.excess_risk(&run.w) > phi_k));
    let (rounds, radius) =
        schedule.map_or((0.0, 0.0), |s| (s.rounds as f64, s.trajectory_radius()));
    let extra = [
        rounds,
        phi_k,
        above,
        radius / problem.kl_constants().region_radius,
    ];
    output(ctx, &run, excess, KlCurves::NONE, &extra)
}

/// Algorithm 2 with Algorithm 4 (proximal point, Theorem 2).
fn run_proximal(
    ctx: &RunContext,
    problem: &dyn KlObjective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let o = ctx.options;
    let algorithm = ProximalPoint {
        calibration: calibration(o),
        inner_steps: match choice(o, "inner_steps") {
            "practical" => InnerSteps::Practical,
            _ => InnerSteps::Theorem9,
        },
        prox_weight_factor: num(o, "prox_weight_factor"),
    };
    let beta = beta(o);
    let schedule = algorithm.schedule(problem, ctx.privacy.rho(), beta)?;
    let run = algorithm.run(problem, ctx.privacy.rho(), beta, rng)?;
    let t = theory_inputs(problem, ctx.privacy.rho(), beta);
    let (theory, extra) = match schedule {
        Some(s) => (
            bounds::proximal_theory(
                &TheoryInputs {
                    l1: s.prox_weight,
                    ..t
                },
                num(o, "theory_constant"),
            ),
            [s.rounds as f64, s.inner_steps as f64, s.prox_weight],
        ),
        None => (t.f0, [0.0, 0.0, f64::NAN]),
    };
    let excess = KlCurves {
        theory,
        bound: f64::NAN,
        reference: bounds::nominal_rate(&t),
    };
    output(ctx, &run, excess, KlCurves::NONE, &extra)
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
.with_work(super::cost::kl_method)
    .with_options(&[
        CALIBRATION,
        BETA,
        ParamDef::choice(
            "constants",
            &["calibration", "scaled"],
            "utility constants: the calibration's own (48 or the paper's 32, and 64) or the E1b \
                  \"scaled\" variant with floor_constant and round_constant (privacy unaffected)",
        )
        .default("\"calibration\"")
        .option(),
        ParamDef::positive(
            "floor_constant",
            "E1b floor constant c_f (only with constants = \"scaled\")",
        )
        .default("4.0")
        .option(),
        ParamDef::positive(
            "round_constant",
            "E1b round constant c_K (only with constants = \"scaled\")",
        )
        .default("4.0")
        .option(),
    ])
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
.with_work(super::cost::proximal_point)
    .with_options(&[
        CALIBRATION,
        BETA,
        ParamDef::choice(
            "inner_steps",
            &["theorem9", "practical"],
            "T_in of Algorithm 4: Theorem 9's n^2 rho_A log^2(2/beta_A)/d, or the marked \"practical\" \
                  variant without the log^2 (digest E2)",
        )
        .default("\"theorem9\"")
        .option(),
        ParamDef::positive(
            "prox_weight_factor",
            "multiplier of the balanced prox weight (E2 checks: 0.1, 10)",
        )
        .default("1.0")
        .option(),
        ParamDef::positive(
            "theory_constant",
            "Lemma 3's unspecified constant a in the theory curve (digest E2 prototype: a ~ 0.4-0.6)",
        )
        .default("0.5")
        .option(),
    ])
    .zcdp()
    .with_diagnostics(kl_diagnostics![
            "rounds",
            "inner_steps",
            "prox_weight",
        ])
    .with_curves("", "Thm 2 proof bound with fitted a (logs included)", "bare rate (gamma L0 sqrt d/(n sqrt rho))^kappa")
    .audited(&super::audit::PROXIMAL_POINT),
];
