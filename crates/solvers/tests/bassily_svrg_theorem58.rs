//! Theorem 5.8 measured (`solvers::bassily::objp::contraction`): the fixed-
//! epoch snapshots are the certified solver's epochs, the gap to the exact
//! `J*` is non-negative and falls, and a family without an exact `J*` is
//! refused.

mod bassily_objp_support;

use bassily_objp_support::{LeastSquaresBall, LinearBall};
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::noise::gaussian;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::objp::{
    certified_svrg, svrg_snapshots, HessianRank, ObjPApp, PerturbedObjective, Svrg,
};

fn least_squares(seed: u64) -> LeastSquaresBall {
    let theta = vec![0.5, 0.0, 0.0, 0.0, 0.0];
    LeastSquaresBall::generate(400, theta, 0.5, 1.0, &mut Pcg64::seed_from_u64(seed))
}

/// With the same draws, `svrg_snapshots` at the certified run's epoch count
/// ends at the certified point bit for bit: one epoch, two uses.
#[test]
fn snapshots_are_the_certified_solver_s_epochs() {
    let ls = least_squares(1);
    let b = gaussian(5, 0.05, &mut Pcg64::seed_from_u64(2));
    let j = PerturbedObjective::new(&ls, b, 0.05).unwrap();
    let alpha = 1e-9;
    let c = ls.constants();
    let schedule = Svrg::default()
        .schedule(&j, c.smoothness, c.lipschitz, alpha)
        .unwrap();
    let certified = certified_svrg(&j, &schedule, alpha, &mut Pcg64::seed_from_u64(3)).unwrap();
    assert!(certified.epochs >= 2, "the case needs several epochs");
    let snapshots = svrg_snapshots(
        &j,
        &schedule,
        certified.epochs,
        &mut Pcg64::seed_from_u64(3),
    )
    .unwrap();
    assert_eq!(snapshots.len() as u64, certified.epochs + 1);
    assert!(snapshots[0].iter().all(|v| *v == 0.0), "y(1) = 0");
    assert_eq!(snapshots.last().unwrap(), &certified.w);
}

/// On least squares the gap to the exact `J*` is positive at `y(1) = 0`,
/// never negative beyond rounding, and falls from epoch to epoch on average
/// over 50 seeds (Theorem 5.8's contraction is `<= 0.9` a epoch; a solver that
/// did not descend would leave the ratio near 1).
#[test]
fn the_gap_to_the_exact_minimum_falls_epoch_by_epoch() {
    let ls = least_squares(4);
    let plan = ObjPApp::default()
        .plan(
            &ls,
            PrivacyParams::approx(0.5, 1e-7),
            HessianRank::AtMostOne,
        )
        .unwrap();
    let mut previous = 1.0;
    for epochs in 1..=3 {
        let mean = (0..50)
            .map(|seed| {
                let c = plan
                    .svrg_contraction(&ls, epochs, &mut Pcg64::seed_from_u64(seed))
                    .unwrap();
                assert!(c.initial_gap > 0.0);
                assert!(c.final_gap >= -1e-12 * c.initial_gap, "{c:?}");
                c.ratio
            })
            .sum::<f64>()
            / 50.0;
        assert!(
            mean < previous,
            "epoch {epochs}: mean ratio {mean} after {previous}"
        );
        previous = mean;
    }
    assert!(previous < 0.9f64.powi(3), "three epochs: {previous}");
}

/// A family without an exact perturbed minimizer cannot be measured; zero
/// epochs are refused.
#[test]
fn no_exact_minimizer_or_no_epoch_is_refused() {
    let mut rng = Pcg64::seed_from_u64(6);
    let mut lin = LinearBall::generate(400, 5, 0.3, 1.0, 1.0, &mut rng);
    let plan = ObjPApp::default()
        .plan(
            &lin,
            PrivacyParams::approx(1.0, 1e-6),
            HessianRank::AtMostOne,
        )
        .unwrap();
    assert!(matches!(
        plan.svrg_contraction(&lin, 0, &mut rng),
        Err(RunFailure::InvalidParameters(_))
    ));
    lin.exact = false;
    assert!(matches!(
        plan.svrg_contraction(&lin, 2, &mut rng),
        Err(RunFailure::InvalidParameters(m)) if m.contains("exact perturbed minimizer")
    ));
}
