//! Bassily et al. Theorem 5.8 measured: SVRG on `A_ObjP-App`'s perturbed
//! objective `J` for a fixed number of epochs `t`, and its gap to the exact
//! `J*` relative to the start, `(J(y(t+1)) - J*)/(J(y(1)) - J*)`, which the
//! theorem bounds by `0.9^t` in expectation
//! ([`solvers::bassily::objp::SvrgContraction`]; claim BFTT-T5.8).
//!
//! A measuring procedure, not a private release: the gap uses the exact
//! minimizer, so it runs only on families that give it
//! (`least_squares_glm`; `lin_ball`'s linear losses make SVRG's corrected
//! steps exact and are left out). The objective, `G`'s law and the schedule
//! are `objp_app`'s (safe constants) at the study's `(eps, delta)`.
//!
//! Curves of `svrg_contraction`: bound = `0.9^t` (the theorem's explicit
//! constant), no theory or reference.

use contract::{
    AlgorithmDef, CellOutput, Curves, Diagnostics, Metric, Options, ParamDef, Release, Run,
    RunContext,
};
use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;
use solvers::bassily::objp::{HessianRank, ObjPApp};

contract::options! {
    /// Options of `svrg_theorem58`.
    struct Theorem58Options {
        /// Epochs `t` run from `y(1) = 0`.
        epochs: u64 = ParamDef::int("epochs", 1, "SVRG epochs t from y(1) = 0 (the bound is 0.9^t)")
            .default("1")
            .option(),
    }
}

/// `t` epochs of SVRG and the measured contraction.
fn run_theorem58(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let o = Theorem58Options::read(ctx.options)?;
    if !problem.rank_one_hessians() {
        return Err(RunFailure::InvalidParameters(
            "svrg_theorem58 runs A_ObjP-App's objective, which needs rank-one Hessians".into(),
        ));
    }
    let plan = ObjPApp::default().plan(problem, ctx.privacy.approx(), HessianRank::AtMostOne)?;
    let c = plan.svrg_contraction(problem, o.epochs, rng)?;
    let s = c.schedule;
    let extra = Diagnostics::from([
        ("lambda", plan.lambda),
        ("initial_gap", c.initial_gap),
        ("final_gap", c.final_gap),
        ("inner_steps", s.inner_steps as f64),
        ("condition", s.beta_f / s.mu_f),
    ]);
    Ok(CellOutput::new(
        Release::measurement(c.ratio),
        Curves::new(None, Some(0.9f64.powf(o.epochs as f64)), None),
        extra,
    ))
}

/// The algorithm of this module.
pub(crate) const ALGORITHMS: &[AlgorithmDef] = &[AlgorithmDef::new(
    "svrg_theorem58",
    "Bassily et al. Theorem 5.8 measured: SVRG (k = ceil(20 beta_f/mu_f) steps of 1/(10 beta_f) an epoch, \
          y(t+1) the epoch's average) run t epochs from y(1) = 0 on A_ObjP-App's perturbed objective J \
          (G drawn as Algorithm 3 draws it); reports (J(y(t+1)) - J*)/(J(y(1)) - J*) against the exact J* \
          (a measuring procedure: least_squares_glm). Bound: 0.9^t",
    &[Metric::SvrgContraction],
    Run::Objective(run_theorem58),
)
.only_on(
    &["least_squares_glm"],
    "the gap needs the exact perturbed minimizer and a loss with curvature (lin_ball's linear losses make \
     SVRG's steps exact)",
)
.with_work(super::cost::svrg_theorem58)
.with_options(Theorem58Options::PARAMS)
.requiring_delta()
.not_private()
.with_diagnostics(&["lambda", "initial_gap", "final_gap", "inner_steps", "condition"])
.with_curves("0.9^t (Thm 5.8)", "", "")];
