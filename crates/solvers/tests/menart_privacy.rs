//! Menart et al. privacy unit tests (digest §6 E5): the accountant's spend of
//! every run stays `<= rho` under the recommended calibrations (including
//! forced negative `N_t` in Algorithm 3), the paper-literal calibrations
//! overspend as the digest computes, release counts are exact, and outputs
//! depend on `(n, rho)` only through `n sqrt(rho)`.

use datagen::menart::{
    GemanMcClure, GemanMcClureParams, KnsPl, KnsPlParams, LeastSquares, LeastSquaresParams,
    MeanEstimation, MeanEstimationParams, PowerRegression, PowerRegressionParams, PowerTilt,
    PowerTiltParams, Theorem8Instance, Theorem8Params,
};
use dpcore::menart::KlObjective;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::menart::adaptive::{AdaptiveNoisyGd, StationarySelection};
use solvers::menart::dp_gd::DpGd;
use solvers::menart::proximal::{InnerSteps, ProximalPoint};
use solvers::menart::spider::{KlSpider, SpiderConstants, SpiderInputs};
use solvers::menart::Calibration;

fn power(n: usize, d: usize, p: f64, seed: u64) -> PowerTilt {
    PowerTilt::new(
        PowerTiltParams::new(n, d, p),
        &mut Pcg64::seed_from_u64(seed),
    )
}

#[test]
fn spider_recommended_never_exceeds_rho_and_counts_releases_exactly() {
    let mut configs: Vec<(Box<dyn KlObjective>, f64)> = vec![
        (Box::new(power(1_000_000, 8, 3.0, 1)), 1.0),
        (Box::new(power(1_000_000, 8, 2.0, 2)), 4.0),
        (Box::new(power(100_000, 4, 4.0, 3)), 0.5),
        (
            Box::new(KnsPl::new(
                KnsPlParams::new(10_000_000, 2),
                &mut Pcg64::seed_from_u64(4),
            )),
            1.0,
        ),
    ];
    configs.push((
        Box::new(MeanEstimation::new(
            MeanEstimationParams::new(200, 3),
            &mut Pcg64::seed_from_u64(5),
        )),
        1e9,
    ));
    for (i, (problem, rho)) in configs.iter().enumerate() {
        for constants in [None, Some(SpiderConstants::scaled(2.0, 4.0))] {
            let spider = KlSpider {
                calibration: Calibration::Recommended,
                constants,
            };
            let run = spider
                .run(
                    problem.as_ref(),
                    *rho,
                    0.1,
                    &mut Pcg64::seed_from_u64(10 + i as u64),
                )
                .unwrap();
            assert!(!run.trivial, "config {i}");
            assert!(run.rho_spent <= *rho, "config {i}: {}", run.rho_spent);
            // Exact count: K full gradients plus at most M'_k differences per round.
            let inputs = SpiderInputs::from_problem(problem.as_ref(), *rho, 0.1).unwrap();
            let s = spider.schedule(inputs).unwrap().unwrap();
            let max_releases: u64 = (1..=s.rounds).map(|k| 1 + s.difference_releases(k)).sum();
            assert!(run.releases >= s.rounds && run.releases <= max_releases);
            assert_eq!(run.clipped_records, 0, "clipping inactive on the region");
            let moved = problem
                .start_point()
                .iter()
                .zip(&run.w)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt();
            assert!(moved <= s.trajectory_radius() * (1.0 + 1e-12), "Lemma 1");
        }
    }
}

#[test]
fn spider_paper_literal_overspends_as_the_digest_computes() {
    // Digest §2.1 table: K full gradients cost 2 rho, the differences at most rho/4.
    for p in [2.0, 3.0] {
        let problem = power(1_000_000, 8, p, 6);
        let spider = KlSpider {
            calibration: Calibration::PaperLiteral,
            constants: None,
        };
        let run = spider
            .run(&problem, 1.0, 0.1, &mut Pcg64::seed_from_u64(7))
            .unwrap();
        assert!(
            run.rho_spent >= 2.0 - 1e-9 && run.rho_spent <= 2.25 + 1e-9,
            "{}",
            run.rho_spent
        );
    }
}

#[test]
fn adaptive_gd_never_exceeds_rho_even_with_negative_norm_estimates() {
    // Forced negative N_t (E5): start far out in the flat region of F-H
    // (||grad F|| ~ 1e-18 while L0 ~ 0.65) with small n sqrt(rho), so the
    // norm noise sigma_hat = sqrt(2) L0 / sqrt(x) dominates.
    let mut negatives = 0;
    let mut literal_over = 0;
    for seed in 0..40 {
        let mut params = GemanMcClureParams::new(20, 16);
        params.start_distance = 1e6;
        params.tilt = 0.0;
        let problem = GemanMcClure::new(params, &mut Pcg64::seed_from_u64(seed));
        for rho in [0.04, 1.0] {
            let rec = AdaptiveNoisyGd::default()
                .run(&problem, rho, 0.1, &mut Pcg64::seed_from_u64(100 + seed))
                .unwrap();
            negatives += rec.negative_norm_estimates;
            assert!(rec.run.rho_spent <= rho, "{}", rec.run.rho_spent / rho);
            let lit = AdaptiveNoisyGd {
                calibration: Calibration::PaperLiteral,
                ..AdaptiveNoisyGd::default()
            }
            .run(&problem, rho, 0.1, &mut Pcg64::seed_from_u64(100 + seed))
            .unwrap();
            literal_over += u64::from(lit.run.rho_spent > rho);
        }
    }
    assert!(
        negatives >= 20,
        "the test must exercise N_t < 0 ({negatives})"
    );
    assert!(
        literal_over >= 1,
        "the paper-literal filter overspends on negative N_t"
    );
}

#[test]
fn adaptive_gd_spend_is_within_rho_across_regimes() {
    for (d, x) in [(4usize, 1e3), (64, 1e4), (1024, 1e5), (16, 10.0)] {
        let problem = power(x as usize, d, 3.0, 8);
        let run = AdaptiveNoisyGd::default()
            .run(&problem, 1.0, 0.1, &mut Pcg64::seed_from_u64(9))
            .unwrap();
        assert!(
            run.run.rho_spent <= 1.0,
            "d = {d}, x = {x}: {}",
            run.run.rho_spent
        );
        assert!(
            run.queries as f64 <= x / 2.0 + 1.0,
            "T <= n sqrt(rho)/2 + 1"
        );
    }
}

#[test]
fn stationary_selection_total_is_within_rho() {
    let problem = GemanMcClure::new(
        GemanMcClureParams::new(300, 8),
        &mut Pcg64::seed_from_u64(11),
    );
    for seed in 0..5 {
        let out = StationarySelection::default()
            .run(&problem, 1e4, 0.1, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        assert!(out.run.rho_spent <= 1e4, "{}", out.run.rho_spent);
        assert!(out.selected.unwrap() < out.queries);
    }
}

/// DP-GD (E4 baseline) spends exactly rho over T releases, and the mean of
/// ||grad F(w_R)|| over 40 fixed seeds is below its expectation bound (a
/// deterministic check; the bound holds in expectation, so with these seeds
/// it either holds or exposes a wrong step, noise or output rule).
#[test]
fn dp_gd_spends_rho_and_meets_its_gradient_norm_bound() {
    use dpcore::Objective;
    let mut params = GemanMcClureParams::new(300, 8);
    params.start_distance = 0.5 * 8f64.sqrt();
    let problem = GemanMcClure::new(params, &mut Pcg64::seed_from_u64(12));
    let k = problem.kl_constants();
    for rho in [1.0, 100.0] {
        let (mut sum, runs) = (0.0, 40);
        let mut steps = 0;
        for seed in 0..runs {
            let out = DpGd
                .run(&problem, rho, &mut Pcg64::seed_from_u64(seed))
                .unwrap();
            let spent = out.run.rho_spent;
            assert!((spent / rho - 1.0).abs() < 1e-8 && spent <= rho, "{spent}");
            assert_eq!(out.run.releases, out.steps);
            assert!(out.output_index < out.steps);
            let mut g = vec![0.0; 8];
            problem.gradient(&out.run.w, &mut g);
            sum += g.iter().map(|v| v * v).sum::<f64>().sqrt();
            steps = out.steps;
        }
        let bound = DpGd::norm_bound(300, 8, rho, k.lipschitz, k.smoothness, k.initial_gap, steps);
        assert!(
            sum / runs as f64 <= bound,
            "rho {rho}: mean {} > bound {bound}",
            sum / runs as f64
        );
    }
}

#[test]
fn proximal_point_never_exceeds_rho() {
    let problem = Theorem8Instance::new(Theorem8Params::new(400, 1.5, 0.2));
    for calibration in [Calibration::Recommended, Calibration::PaperLiteral] {
        let alg = ProximalPoint {
            calibration,
            inner_steps: InnerSteps::Practical,
            prox_weight_factor: 1.0,
        };
        let run = alg
            .run(&problem, 0.25, 0.1, &mut Pcg64::seed_from_u64(12))
            .unwrap();
        assert!(!run.trivial);
        let bound = match calibration {
            Calibration::Recommended => 0.25,
            Calibration::PaperLiteral => 0.125,
        };
        assert!(run.rho_spent < bound, "{calibration:?}: {}", run.rho_spent);
        assert!(run.rho_spent > 0.9 * bound);
    }
}

#[test]
fn outputs_depend_on_n_and_rho_only_through_x() {
    // (n, rho) -> (4n, rho/16) on virtual data sets (E5 invariance).
    let (a, b) = (power(1_000_000, 8, 3.0, 13), power(4_000_000, 8, 3.0, 13));
    let s = KlSpider::default();
    let ra = s.run(&a, 1.0, 0.1, &mut Pcg64::seed_from_u64(14)).unwrap();
    let rb = s
        .run(&b, 1.0 / 16.0, 0.1, &mut Pcg64::seed_from_u64(14))
        .unwrap();
    assert_eq!(ra.iterations, rb.iterations);
    for (u, v) in ra.w.iter().zip(&rb.w) {
        assert!((u - v).abs() < 1e-9, "{u} vs {v}");
    }
    assert!((ra.rho_spent - 16.0 * rb.rho_spent).abs() < 1e-9);
    let g = AdaptiveNoisyGd::default();
    let ra = g.run(&a, 1.0, 0.1, &mut Pcg64::seed_from_u64(15)).unwrap();
    let rb = g
        .run(&b, 1.0 / 16.0, 0.1, &mut Pcg64::seed_from_u64(15))
        .unwrap();
    assert_eq!(ra.queries, rb.queries);
    for (u, v) in ra.run.w.iter().zip(&rb.run.w) {
        assert!((u - v).abs() < 1e-9, "{u} vs {v}");
    }
}

#[test]
fn clipping_bounds_the_spend_when_the_constants_are_too_small() {
    // L0 and L1 passed 10x too small: the per-record clipping is active, so
    // the sensitivities (and the spend) stay those the noise was calibrated for.
    let problem = power(1_000_000, 8, 3.0, 16);
    let mut inputs = SpiderInputs::from_problem(&problem, 1.0, 0.1).unwrap();
    inputs.l0 *= 0.1;
    inputs.l1 *= 0.1;
    let run = KlSpider::default()
        .run_with(&problem, inputs, &mut Pcg64::seed_from_u64(17))
        .unwrap();
    assert!(run.clipped_records > 0);
    assert!(run.rho_spent <= 1.0);
}

/// Every noise-relevant quantity of Algorithm 1's schedule on `problem`, as
/// bits: round count, floor, round-start noise, and per round the step, the
/// difference noise and the update count.
fn spider_noise_bits(problem: &dyn KlObjective, rho: f64) -> Vec<u64> {
    let inputs = SpiderInputs::from_problem(problem, rho, 0.1).unwrap();
    let schedule = KlSpider::default()
        .schedule(inputs)
        .unwrap()
        .expect("non-trivial");
    let mut bits = vec![
        inputs.gamma.to_bits(),
        schedule.rounds,
        schedule.floor.to_bits(),
        schedule.sigma_hat.to_bits(),
    ];
    for k in 1..=schedule.rounds {
        bits.extend([
            schedule.step(k).to_bits(),
            schedule.sigma_difference(k).to_bits(),
            schedule.max_updates(k),
        ]);
    }
    bits
}

/// Digest P7 (issue 24, item 1): F-C and F-F used to read gamma from the
/// sampled design's lambda_min, so neighbouring data sets got different noise.
/// Replacing record 0 by a copy of record 1 changes the design's certified
/// lambda_min (checked, so the old constant would have differed) but not one
/// bit of the noise schedule.
#[test]
fn neighbouring_designs_get_bitwise_identical_noise_scales() {
    let mut rng = Pcg64::seed_from_u64(0x9a7);
    // mn_fc_d's setting: n = 4096, x = 1e7.
    let rho = (1e7_f64 / 4096.0).powi(2);
    // (d = 1 is left out: unit rows make lambda_min = 1 for every design.)
    for d in [2, 8, 32] {
        let data = PowerRegression::new(PowerRegressionParams::new(4096, d, 3.0), &mut rng);
        let neighbour = data.with_record(0, data.row(1)).unwrap();
        assert_ne!(
            data.lambda_min().to_bits(),
            neighbour.lambda_min().to_bits()
        );
        assert_eq!(
            spider_noise_bits(&data, rho),
            spider_noise_bits(&neighbour, rho),
            "d = {d}"
        );
    }
    // mn_ff_rho's setting: n = 1e5, d = 16, rho in [1, 1000].
    let data = LeastSquares::new(LeastSquaresParams::new(100_000, 16), &mut rng);
    let (x1, _) = data.record(1);
    // Record 1's features with the largest admissible label |y| = 1 + s.
    let neighbour = data.with_record(0, x1, 1.1).unwrap();
    assert_ne!(
        data.pl_constant().to_bits(),
        neighbour.pl_constant().to_bits()
    );
    for rho in [1.0, 1000.0] {
        assert_eq!(
            spider_noise_bits(&data, rho),
            spider_noise_bits(&neighbour, rho)
        );
    }
}
