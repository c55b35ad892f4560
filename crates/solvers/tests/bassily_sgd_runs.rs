//! Runs of Bassily et al.'s `A_NSGD` and one-pass SGD on the E1 objective
//! (linear loss on the ball) of the digest.

mod bassily_sgd_common;

use bassily_sgd_common::{mean_and_se, point, LinBall, Z_1E6};
use dpcore::{Neighbouring, Objective, PrivacyParams};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::sgd::bounds::{b_nsgd, b_nsgd_implemented};
use solvers::bassily::sgd::{one_pass_sgd, one_pass_sgd_bound, NoiseCalibration, Nsgd};

/// Mean population excess of `nsgd` over `reps` fresh (data, coins) draws.
fn linball_excesses(
    nsgd: &Nsgd,
    n: usize,
    d: usize,
    r: f64,
    p: PrivacyParams,
    reps: usize,
    seed: u64,
) -> Vec<f64> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..reps)
        .map(|_| {
            let obj = LinBall::sample(n, d, r, &mut rng);
            let out = nsgd.run(&obj, p, &mut rng).unwrap();
            obj.population_excess(&out.w).unwrap()
        })
        .collect()
}

#[test]
fn nsgd_on_linball_respects_b_nsgd_and_improves_with_n() {
    let (d, eps, delta, r) = (8, 1.0, 1e-6, 0.1);
    let p = PrivacyParams::approx(eps, delta);
    for calibration in [NoiseCalibration::Paper, NoiseCalibration::Accountant] {
        let nsgd = Nsgd {
            calibration,
            ..Nsgd::default()
        };
        let n = 2000;
        let xs = linball_excesses(&nsgd, n, d, r, p, 40, 11);
        let (mean, se) = mean_and_se(&xs);
        let plan = nsgd
            .plan(&LinBall::sample(n, d, r, &mut Pcg64::seed_from_u64(0)), p)
            .unwrap();
        let s = plan.schedule;
        let bound = b_nsgd_implemented(
            &point(n, d, eps, delta),
            s.step_size,
            s.steps,
            s.batch,
            plan.noise.sigma,
        );
        // One-sided z-test of E[excess] <= bound at false-alarm rate 1e-6.
        assert!(
            mean - Z_1E6 * se <= bound,
            "{calibration:?}: {mean} +- {se} vs {bound}"
        );
        if calibration == NoiseCalibration::Paper {
            assert!(mean - Z_1E6 * se <= b_nsgd(&point(n, d, eps, delta), s.steps));
        }
        // 8x more records: the excess must drop (z-test on the difference at 1e-6).
        let big = 16000;
        let ys = linball_excesses(&nsgd, big, d, r, p, 40, 12);
        let (mean_big, se_big) = mean_and_se(&ys);
        let gap = mean - mean_big;
        assert!(
            gap > Z_1E6 * (se * se + se_big * se_big).sqrt(),
            "{mean} vs {mean_big}"
        );
    }
}

#[test]
fn release_reports_schedule_noise_and_evaluation_counts() {
    let mut rng = Pcg64::seed_from_u64(3);
    let obj = LinBall::sample(1000, 4, 0.2, &mut rng);
    let p = PrivacyParams::approx(0.5, 1e-6);
    let nsgd = Nsgd {
        relation: Neighbouring::AddRemove,
        public_n: Some(1000),
        ..Nsgd::default()
    };
    let out = nsgd.run(&obj, p, &mut rng).unwrap();
    let plan = out.plan;
    assert_eq!(
        (out.steps, out.batch),
        (plan.schedule.steps, plan.schedule.batch)
    );
    assert_eq!(
        out.theory_gradient_evaluations,
        out.steps * out.batch as u64
    );
    assert!(out.realised_eps <= 0.5 && out.realised_eps > 0.48);
    assert!((out.noise_multiplier * 1.0 / out.batch as f64 - out.sigma).abs() < 1e-15);
    // Poisson batches: sum of T Binomial(n, m/n) sizes, mean T m, sd sqrt(T m); 6 sd.
    let tm = out.theory_gradient_evaluations as f64;
    assert!((out.gradient_evaluations as f64 - tm).abs() < 6.0 * tm.sqrt());
    assert!(out.w.iter().map(|v| v * v).sum::<f64>() <= 1.0 + 1e-12);
}

#[test]
fn trivial_regime_outputs_the_origin_without_touching_data() {
    let mut rng = Pcg64::seed_from_u64(5);
    let obj = LinBall::sample(10, 100, 0.5, &mut rng);
    let out = Nsgd::default()
        .run(&obj, PrivacyParams::approx(0.1, 1e-4), &mut rng)
        .unwrap();
    assert!(out.plan.schedule.trivial);
    assert_eq!(out.w, vec![0.0; 100]);
    assert_eq!(
        (out.steps, out.gradient_evaluations, out.realised_eps),
        (0, 0, 0.0)
    );
}

#[test]
fn one_pass_sgd_meets_ml_over_sqrt_n() {
    let (n, d, r) = (1000, 8, 0.3);
    let mut rng = Pcg64::seed_from_u64(7);
    let xs: Vec<f64> = (0..40)
        .map(|_| {
            let obj = LinBall::sample(n, d, r, &mut rng);
            obj.population_excess(&one_pass_sgd(&obj).unwrap()).unwrap()
        })
        .collect();
    let (mean, se) = mean_and_se(&xs);
    // z-test at false-alarm rate 1e-6 of E[excess] <= M L/sqrt(n).
    assert!(
        mean - Z_1E6 * se <= one_pass_sgd_bound(1.0, 1.0, n),
        "{mean}"
    );
    // Hand check on two records: w_0 = 0, w_1 = eta z_1, output (w_0 + w_1)/2.
    let obj = LinBall::from_records(vec![vec![0.6, 0.8], vec![1.0, 0.0]], 0.5);
    let w = one_pass_sgd(&obj).unwrap();
    let eta = 1.0 / 2f64.sqrt();
    assert!((w[0] - 0.3 * eta).abs() < 1e-15 && (w[1] - 0.4 * eta).abs() < 1e-15);
}
