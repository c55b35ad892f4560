//! `A_ObjP-App` (Bassily et al. Algorithm 3, Theorems 5.6–5.8): certified
//! SVRG against exact minima, the coupling with the exact `A_ObjP`, the
//! Theorem 5.8 schedule and work count, the derived bound on LinBall, and
//! the variants' refusals.

mod bassily_objp_support;

use bassily_objp_support::{dot, norm, LeastSquaresBall, LinearBall};
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::noise::{gaussian, uniform_direction};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use solvers::bassily::objp::{
    certified_svrg, strong_convexity_certificate, HessianRank, ObjPApp, ObjPAppVariant, ObjPPlan,
    PerturbedObjective, Svrg,
};
use solvers::bassily::rate::rate;

const RANK1: HessianRank = HessianRank::AtMostOne;

/// Least squares with `||theta|| = 0.5`; radius 1 leaves the perturbed
/// minimizer inside the ball, radius 0.3 puts it on the boundary.
fn least_squares(radius: f64, seed: u64) -> LeastSquaresBall {
    let theta = vec![0.5, 0.0, 0.0, 0.0, 0.0];
    LeastSquaresBall::generate(400, theta, 0.5, radius, &mut Pcg64::seed_from_u64(seed))
}

/// `J(w) - J*` with `J*` at the exact constrained minimizer.
fn true_gap(ls: &LeastSquaresBall, j: &PerturbedObjective<'_>, w: &[f64]) -> f64 {
    let star = ls.constrained_solve(j.linear_term(), j.lambda());
    j.value(w) - j.value(&star)
}

/// The certificate `C(y)` bounds `J(y) - J*` at arbitrary points of the ball
/// (exact `J*` from the KKT solve), is at most the Frank–Wolfe gap and
/// `||g||^2/(4 lambda)`, and certified SVRG stops with `C <= alpha` and a
/// true gap below `C`, spending `epochs (n + 2k) + n` gradient evaluations.
#[test]
fn svrg_certificate_really_bounds_the_gap_on_least_squares() {
    let lambda = 0.05;
    for (radius, seed) in [(1.0, 1u64), (0.3, 2)] {
        let ls = least_squares(radius, seed);
        let mut rng = Pcg64::seed_from_u64(10 + seed);
        let b: Vec<f64> = gaussian(5, 0.05, &mut rng);
        let star = ls.constrained_solve(&b, lambda);
        let on_boundary = (norm(&star) - radius).abs() < 1e-12;
        assert_eq!(
            on_boundary,
            radius < 0.5,
            "case not exercised: ||w*|| = {}",
            norm(&star)
        );
        let j = PerturbedObjective::new(&ls, b, lambda).unwrap();
        let mut g = vec![0.0; 5];
        for _ in 0..200 {
            let scale = radius * rng.random::<f64>().powf(0.2);
            let y: Vec<f64> = uniform_direction(5, &mut rng)
                .iter()
                .map(|u| u * scale)
                .collect();
            j.gradient(&y, &mut g);
            let c = strong_convexity_certificate(&y, &g, lambda, radius);
            assert!(
                true_gap(&ls, &j, &y) <= c + 1e-14,
                "C(y) = {c} below the gap"
            );
            assert!(c <= dot(&g, &y) + radius * norm(&g) + 1e-14);
            assert!(c <= dot(&g, &g) / (4.0 * lambda) + 1e-14);
        }
        for alpha in [1e-4, 1e-8, 1e-12] {
            let schedule = Svrg::default().schedule(&j, 1.0, 2.0, alpha).unwrap();
            let out = certified_svrg(&j, &schedule, alpha, &mut rng).unwrap();
            assert!(out.certificate <= alpha);
            let gap = true_gap(&ls, &j, &out.w);
            assert!(
                gap <= out.certificate + 1e-13,
                "gap {gap} > certificate {}",
                out.certificate
            );
            let k = schedule.inner_steps;
            assert_eq!(out.gradient_evaluations, out.epochs * (400 + 2 * k) + 400);
            assert!(out.epochs >= 1 && out.epochs <= schedule.epoch_cap);
        }
    }
}

/// Coupling: with the same `G`, `H = 0` and `alpha -> 0`, the released
/// `Proj(w2)` tends to the exact `A_ObjP` output `w1`; 2-lambda strong
/// convexity bounds the distance by `sqrt(alpha/lambda)` deterministically.
#[test]
fn objp_app_with_zero_output_noise_tends_to_exact_objp() {
    let privacy = PrivacyParams::approx(1.0, 1e-6);
    let mut rng = Pcg64::seed_from_u64(77);
    let ls = least_squares(0.3, 3);
    let lin = LinearBall::generate(400, 5, 0.2, 1.0, 1.0, &mut rng);
    for p in [&ls as &dyn Objective, &lin] {
        let exact = ObjPPlan::new(p, privacy, RANK1).unwrap();
        let g = gaussian(5, exact.sigma_g, &mut rng);
        let w1 = exact.minimize_perturbed(p, &g).unwrap();
        let mut last = f64::INFINITY;
        for alpha in [1e-4, 1e-8, 1e-12, 1e-16] {
            let app = ObjPApp {
                alpha: Some(alpha),
                ..ObjPApp::default()
            };
            let plan = app.plan(p, privacy, RANK1).unwrap();
            assert_eq!(plan.lambda, exact.lambda);
            let (out, _) = plan.optimize(p, &g, &mut rng).unwrap();
            let released = plan.release(&out.w, &[0.0; 5]);
            let dist = norm(
                &released
                    .iter()
                    .zip(&w1)
                    .map(|(a, b)| a - b)
                    .collect::<Vec<_>>(),
            );
            assert!(
                dist <= (alpha / plan.lambda).sqrt() + 1e-12,
                "alpha {alpha}: {dist}"
            );
            last = dist;
        }
        assert!(last < 1e-7, "final distance {last}");
    }
}

/// The Theorem 5.8 schedule (P16) and the reported counts of a full run.
#[test]
fn schedule_and_report_follow_theorem_5_8() {
    let privacy = PrivacyParams::approx(0.5, 1e-7);
    let ls = least_squares(1.0, 4);
    let plan = ObjPApp::default().plan(&ls, privacy, RANK1).unwrap();
    let release = plan.run(&ls, &mut Pcg64::seed_from_u64(8)).unwrap();
    let rep = release.svrg.unwrap();
    let (lam, s) = (plan.lambda, rep.schedule);
    assert_eq!(s.beta_f, 1.0 + 2.0 * lam);
    assert_eq!(s.mu_f, 2.0 * lam);
    assert_eq!(
        s.inner_steps,
        (20.0 * (1.0 + 2.0 * lam) / (2.0 * lam)).ceil() as u64
    );
    assert_eq!(s.step, 1.0 / (10.0 * (1.0 + 2.0 * lam)));
    assert_eq!(
        plan.alpha,
        plan.setting.radius.powi(2) * lam / 400.0f64.powi(2)
    );
    let tau = (s.initial_gap_bound / plan.alpha).ln() / (10.0f64 / 9.0).ln();
    assert_eq!(s.theory_epochs, tau.ceil() as u64);
    assert_eq!(s.epoch_cap, 5 * s.theory_epochs);
    // Delta_0 = 2M(L + ||G||/n + 2 lambda M) >= 2M(L + 2 lambda M).
    assert!(s.initial_gap_bound > 2.0 * (2.0 + 2.0 * lam));
    let epoch_cost = 400.0 + 2.0 * s.inner_steps as f64;
    assert_eq!(
        rep.theory_gradient_evaluations,
        s.theory_epochs as f64 * epoch_cost
    );
    assert_eq!(
        rep.gradient_evaluations,
        rep.epochs * (400 + 2 * s.inner_steps) + 400
    );
    assert!(rep.certificate <= plan.alpha);
    assert_eq!(
        (release.sigma_g, release.sigma_h),
        (plan.sigma_g, plan.sigma_h)
    );
    assert!(norm(&release.w) <= 1.0 + 1e-15);
}

/// An exhausted epoch cap is `NonConvergence`, never an uncertified release.
#[test]
fn exhausted_epoch_cap_is_non_convergence() {
    let ls = least_squares(1.0, 5);
    let app = ObjPApp {
        alpha: Some(1e-14),
        svrg: Svrg {
            epoch_cap_factor: 1e-9,
        },
        ..ObjPApp::default()
    };
    let privacy = PrivacyParams::approx(1.0, 1e-6);
    match app.run(&ls, privacy, RANK1, &mut Pcg64::seed_from_u64(1)) {
        Err(RunFailure::NonConvergence(m)) => assert!(m.contains("after 1 epochs")),
        other => panic!("expected NonConvergence, got {other:?}"),
    }
}

/// The derived `B_ObjP-App` (digest §2.4) on LinBall (L = M = 1, n = 1000,
/// d = 8, eps = 1, delta = 1e-12) for both variants: K = 100 repetitions per
/// signal r, Hoeffding margin `2 r sqrt(ln(1e9)/(2K))` (false-alarm rate
/// <= 1e-9 per comparison, as in the exact test).
#[test]
fn mean_excess_population_loss_is_below_the_derived_app_bound() {
    let (n, d, eps, delta) = (1000, 8, 1.0, 1e-12);
    let privacy = PrivacyParams::approx(eps, delta);
    let big_r = rate(n as f64, d as f64, eps, delta);
    let k = 100;
    let margin = ((1e9f64).ln() / (2.0 * k as f64)).sqrt();
    let mut rng = Pcg64::seed_from_u64(99);
    for variant in [ObjPAppVariant::Safe, ObjPAppVariant::Paper] {
        let app = ObjPApp {
            variant,
            ..ObjPApp::default()
        };
        for factor in [1.0, 4.0] {
            let r = factor * big_r;
            let (mut mean, mut bound) = (0.0, 0.0);
            for _ in 0..k {
                let p = LinearBall::generate(n, d, r, 1.0, 1.0, &mut rng);
                let plan = app.plan(&p, privacy, RANK1).unwrap();
                let out = plan.run(&p, &mut rng).unwrap();
                assert!(out.svrg.unwrap().certificate <= plan.alpha);
                mean += p.population_excess(&out.w).unwrap() / k as f64;
                bound = plan.bound();
            }
            assert!(
                mean > 0.0 && mean - 2.0 * r * margin <= bound,
                "{variant:?} r {r}: {mean} vs {bound}"
            );
        }
    }
}

/// The safe variant halves the smoothness limit (refusing `beta` in
/// `(eps n lambda/2, eps n lambda]`, which the paper variant accepts) and is
/// never less noisy; `alpha <= 0` and the preconditions shared with
/// Algorithm 2 are refused.
#[test]
fn variants_differ_in_limits_and_noise_and_bad_inputs_are_refused() {
    let privacy = PrivacyParams::approx(1.0, 1e-6);
    let mut p = LinearBall::generate(400, 5, 0.3, 1.0, 1.0, &mut Pcg64::seed_from_u64(6));
    let safe = ObjPApp::default();
    let paper = ObjPApp {
        variant: ObjPAppVariant::Paper,
        ..ObjPApp::default()
    };
    let (sp, pp) = (
        safe.plan(&p, privacy, RANK1).unwrap(),
        paper.plan(&p, privacy, RANK1).unwrap(),
    );
    assert!(sp.sigma_g > pp.sigma_g && sp.sigma_h >= pp.sigma_h);
    assert_eq!(sp.smoothness_limit, 0.5 * pp.smoothness_limit);
    p.claimed_smoothness = 0.75 * pp.smoothness_limit;
    match safe.plan(&p, privacy, RANK1) {
        Err(RunFailure::InvalidParameters(m)) => assert!(m.contains("eps n lambda/2")),
        other => panic!("expected InvalidParameters, got {other:?}"),
    }
    assert!(paper.plan(&p, privacy, RANK1).is_ok());
    p.claimed_smoothness = 0.0;
    for bad in [0.0, -1.0, f64::NAN] {
        let app = ObjPApp {
            alpha: Some(bad),
            ..ObjPApp::default()
        };
        assert!(matches!(
            app.plan(&p, privacy, RANK1),
            Err(RunFailure::InvalidParameters(_))
        ));
    }
    assert!(safe
        .plan(&p, PrivacyParams::approx(1.2, 1e-6), RANK1)
        .is_err());
    assert!(safe
        .plan(&p, PrivacyParams::approx(1.0, 1e-4), RANK1)
        .is_err());
    assert!(safe.plan(&p, privacy, HessianRank::Unknown).is_err());
}
