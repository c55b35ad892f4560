//! `A_ObjP` (Bassily et al. Algorithm 2, Theorem 5.3): the closed form on the
//! linear loss (digest §5.2), the noise sanity ratio, the corrected bound on
//! the mean excess population loss, and the refusals.

mod bassily_objp_support;

use bassily_objp_support::{norm, project, LinearBall};
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::calibration::classical_gaussian_sigma;
use mechanisms::noise::gaussian;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::objp::{run_objp, HessianRank, ObjPPlan, ObjPSetting};
use solvers::bassily::rate::rate;

const RANK1: HessianRank = HessianRank::AtMostOne;

fn linear(n: usize, d: usize, r: f64, seed: u64) -> LinearBall {
    LinearBall::generate(n, d, r, 1.5, 2.0, &mut Pcg64::seed_from_u64(seed))
}

/// On the linear loss the perturbed objective is `lambda ||w - c||^2 +
/// const` with `c = (L zbar - G/n)/(2 lambda)`, so `A_ObjP` releases
/// `Proj(c)`: the Gaussian mechanism on the mean. The run is replayed with
/// the same seed, drawing `G` independently with the documented law.
#[test]
fn linear_loss_objp_is_the_projected_gaussian_mechanism_on_the_mean() {
    let privacy = PrivacyParams::approx(0.5, 1e-10);
    for (seed, r) in [(1u64, 0.05), (2, 0.3), (3, 0.9)] {
        let p = linear(500, 8, r, seed);
        let plan = ObjPPlan::new(&p, privacy, RANK1).unwrap();
        let s = ObjPSetting::from_problem(&p, privacy);
        assert_eq!(plan.lambda, s.lambda());
        let big_l = (1e10f64).ln();
        assert!((plan.sigma_g - (10.0 * big_l).sqrt() * 1.5 / 0.5).abs() < 1e-12);
        let release = plan.run(&p, &mut Pcg64::seed_from_u64(100 + seed)).unwrap();
        let g = gaussian(8, plan.sigma_g, &mut Pcg64::seed_from_u64(100 + seed));
        let mut expected: Vec<f64> = p
            .zbar
            .iter()
            .zip(&g)
            .map(|(z, gj)| (1.5 * z - gj / 500.0) / (2.0 * plan.lambda))
            .collect();
        project(&mut expected, 2.0);
        for (a, b) in release.w.iter().zip(&expected) {
            assert!((a - b).abs() <= 1e-15 * 2.0, "{a} vs {b}");
        }
        assert!(norm(&release.w) <= 2.0 * (1.0 + 1e-15));
        assert_eq!(plan.minimize_perturbed(&p, &g).unwrap(), release.w);
        assert_eq!(
            (release.sigma_h, release.alpha, release.svrg),
            (0.0, 0.0, None)
        );
        assert_eq!(
            (release.lambda, release.sigma_g),
            (plan.lambda, plan.sigma_g)
        );
    }
}

/// Digest §5.2: `L sum_i z_i` has replace-one sensitivity `Delta = 2L`, so
/// `sigma_G/Delta = sqrt(10 Lambda)/(2 eps)`; it must be at least the
/// classical Gaussian mechanism's `sqrt(2 ln(1.25/delta))/eps`.
#[test]
fn noise_to_sensitivity_ratio_is_sqrt_10_lambda_over_2_eps() {
    let p = linear(100, 4, 0.2, 7);
    for eps in [0.01, 0.1, 0.5, 1.0] {
        for delta in [1e-4, 1e-8, 1e-12, 1e-30] {
            let plan = ObjPPlan::new(&p, PrivacyParams::approx(eps, delta), RANK1).unwrap();
            let ratio = plan.sigma_g / (2.0 * 1.5);
            let digest = (10.0 * (1.0 / delta).ln()).sqrt() / (2.0 * eps);
            assert!(((ratio - digest) / digest).abs() < 1e-14);
            assert!(ratio >= classical_gaussian_sigma(eps, delta, 1.0).unwrap());
        }
    }
}

/// Theorem 5.3 (corrected, P13) on LinBall (L = M = 1, n = 2000, d = 16,
/// eps = 1, delta = 1e-12): for each signal r near the worst case, K = 200
/// fresh (data, noise) repetitions. The excess `L r (M - w_1)` lies in
/// `[0, 2 L M r]`, so by Hoeffding the test `mean - t > bound` with
/// `t = 2 L M r sqrt(ln(1e9)/(2K))` fires with probability <= 1e-9 when the
/// expectation is within the bound. The same test is applied to the
/// excess empirical loss (range `[0, 2 L M ||zbar||]`, at most `2 L M`)
/// against the derived Lemma 5.4 form `d sigma_G^2/(4 lambda n^2) + lambda M^2`.
#[test]
fn mean_excess_population_loss_is_below_the_corrected_bound() {
    let (n, d, eps, delta) = (2000, 16, 1.0, 1e-12);
    let privacy = PrivacyParams::approx(eps, delta);
    let big_r = rate(n as f64, d as f64, eps, delta);
    let k = 200;
    let hoeffding = ((1e9f64).ln() / (2.0 * k as f64)).sqrt();
    let mut rng = Pcg64::seed_from_u64(2024);
    for factor in [0.5, 1.0, 2.0, 4.0] {
        let r = (factor * big_r).min(0.95);
        let (mut pop, mut emp) = (0.0, 0.0);
        let mut plan = None;
        for _ in 0..k {
            let p = LinearBall::generate(n, d, r, 1.0, 1.0, &mut rng);
            let this = ObjPPlan::new(&p, privacy, RANK1).unwrap();
            let out = this.run(&p, &mut rng).unwrap();
            pop += p.signal * (1.0 - out.w[0]) / k as f64;
            emp += p.empirical_excess(&out.w) / k as f64;
            plan = Some(this);
        }
        let plan = plan.unwrap();
        let bound = plan.bound();
        assert!(
            pop > 0.0 && pop - 2.0 * r * hoeffding <= bound,
            "r = {r}: {pop} vs {bound}"
        );
        let emp_bound = plan.setting.empirical_bound(plan.lambda, plan.sigma_g);
        assert!(
            emp - 2.0 * hoeffding <= emp_bound,
            "r = {r}: {emp} vs {emp_bound}"
        );
    }
}

fn invalid_message(r: Result<impl std::fmt::Debug, RunFailure>) -> String {
    match r {
        Err(RunFailure::InvalidParameters(m)) => m,
        other => panic!("expected InvalidParameters, got {other:?}"),
    }
}

/// Every precondition of Algorithm 2 is refused with a message naming it.
#[test]
fn preconditions_are_refused_with_clear_errors() {
    let n = 400;
    let ok = PrivacyParams::approx(1.0, 1e-6);
    let mut p = linear(n, 5, 0.3, 11);
    let plan = ObjPPlan::new(&p, ok, RANK1).unwrap();
    // beta just above eps n lambda (a valid but too large smoothness bound).
    p.claimed_smoothness = plan.smoothness_limit * (1.0 + 1e-9);
    assert!(invalid_message(ObjPPlan::new(&p, ok, RANK1)).contains("smoothness beta"));
    p.claimed_smoothness = plan.smoothness_limit;
    assert!(ObjPPlan::new(&p, ok, RANK1).is_ok());
    p.claimed_smoothness = 0.0;
    let big_eps = PrivacyParams::approx(1.5, 1e-6);
    assert!(invalid_message(ObjPPlan::new(&p, big_eps, RANK1)).contains("eps <= 1"));
    let big_delta = PrivacyParams::approx(1.0, 1.0 / (n * n) as f64 * 1.01);
    assert!(invalid_message(ObjPPlan::new(&p, big_delta, RANK1)).contains("delta <= 1/n^2"));
    let rank = invalid_message(ObjPPlan::new(&p, ok, HessianRank::Unknown));
    assert!(rank.contains("Assumption 5.1"));
    assert!(invalid_message(ObjPPlan::new(&p, PrivacyParams::pure(1.0), RANK1)).contains("delta"));
    // Without an exact minimizer the run is refused (P11), never approximated.
    p.exact = false;
    let mut rng = Pcg64::seed_from_u64(5);
    let msg = invalid_message(run_objp(&p, ok, RANK1, &mut rng));
    assert!(msg.contains("exact perturbed minimizer") && msg.contains("P11"));
    p.exact = true;
    assert!(invalid_message(plan.minimize_perturbed(&p, &[0.0; 4])).contains("does not match"));
    let other = linear(n + 1, 5, 0.3, 12);
    assert!(invalid_message(plan.run(&other, &mut rng)).contains("does not match"));
}
