//! Menart et al. utility tests: each algorithm converges on an easy instance
//! (fixed seeds; the w.h.p. events of Theorems 1–2 fail with probability at
//! most `beta = 0.1` per run, and the prototype margins of digest §6 E1 are
//! large: excess/`Phi_K` was 0.45–0.8 there and here), and the theory
//! expressions have the slopes of digest §3.6.

use datagen::menart::{GemanMcClure, GemanMcClureParams, PowerTilt, PowerTiltParams};
use dpcore::menart::KlObjective;
use dpcore::Objective;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::menart::adaptive::{AdaptiveNoisyGd, StationarySelection};
use solvers::menart::bounds::{
    adaptive_theory, corollary1_lower_bound, nominal_rate, proximal_theory, spider_theory,
    stationarity_theory, TheoryInputs,
};
use solvers::menart::proximal::{InnerSteps, ProximalPoint};
use solvers::menart::spider::{KlSpider, SpiderConstants, SpiderInputs};

fn power(x: f64, d: usize, p: f64) -> PowerTilt {
    PowerTilt::new(
        PowerTiltParams::new(x as usize, d, p),
        &mut Pcg64::seed_from_u64(1),
    )
}

fn spider_excess(spider: &KlSpider, problem: &PowerTilt, seed: u64) -> (f64, f64) {
    let run = spider
        .run(problem, 1.0, 0.1, &mut Pcg64::seed_from_u64(seed))
        .unwrap();
    let inputs = SpiderInputs::from_problem(problem, 1.0, 0.1).unwrap();
    (
        problem.excess_risk(&run.w),
        spider_theory(spider, inputs).unwrap(),
    )
}

#[test]
fn spider_meets_phi_k_with_the_theory_slope() {
    for p in [2.0, 3.0] {
        let mut last: Option<(f64, f64)> = None;
        for x in [1e6, 1e7] {
            let problem = power(x, 8, p);
            let f0 = problem.kl_constants().initial_gap;
            let mut worst: f64 = 0.0;
            for seed in 0..3 {
                let (e, phi) = spider_excess(&KlSpider::default(), &problem, seed);
                assert!(phi < 1e-2 * f0, "non-trivial bound");
                assert!(e <= phi, "p = {p}, x = {x:e}: excess {e} > Phi_K {phi}");
                worst = worst.max(e / phi);
            }
            assert!(worst > 0.2, "the bound is not vacuous: ratio {worst}");
            let (e, phi) = spider_excess(&KlSpider::default(), &problem, 0);
            if let Some((e0, phi0)) = last {
                let measured = (e / e0).log10();
                let theory = (phi / phi0).log10();
                assert!(
                    (measured - theory).abs() < 0.15,
                    "slope {measured} vs {theory}"
                );
            }
            last = Some((e, phi));
        }
    }
}

#[test]
fn spider_scaled_constants_meet_their_bound() {
    let spider = KlSpider {
        constants: Some(SpiderConstants::scaled(2.0, 4.0)),
        ..Default::default()
    };
    let problem = power(1e6, 8, 3.0);
    for seed in 0..3 {
        let (e, phi) = spider_excess(&spider, &problem, seed);
        assert!(e <= phi && phi < 1e-5, "excess {e}, Phi_K {phi}");
    }
}

#[test]
fn adaptive_gd_converges_in_high_dimension() {
    let problem = power(1e5, 4096, 2.0);
    for seed in 0..2 {
        let run = AdaptiveNoisyGd::default()
            .run(&problem, 1.0, 0.1, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        let e = problem.excess_risk(&run.run.w);
        assert!(e < 1e-4, "excess {e} (F0 = 0.5)");
        assert!(run.run.rho_spent <= 1.0);
    }
}

#[test]
fn proximal_point_converges_for_kappa_three() {
    let problem = power(1000.0, 2, 1.5);
    let alg = ProximalPoint {
        inner_steps: InnerSteps::Practical,
        ..Default::default()
    };
    let run = alg
        .run(&problem, 1.0, 0.1, &mut Pcg64::seed_from_u64(0))
        .unwrap();
    let e = problem.excess_risk(&run.w);
    assert!(e < 2e-3, "excess {e} (F0 = 0.667)");
}

#[test]
fn selection_finds_a_near_stationary_point() {
    let gm = GemanMcClure::new(
        GemanMcClureParams::new(2000, 16),
        &mut Pcg64::seed_from_u64(3),
    );
    let mut g = vec![0.0; 16];
    let norm = |g: &[f64]| g.iter().map(|x| x * x).sum::<f64>().sqrt();
    gm.gradient(gm.start_point(), &mut g);
    let start = norm(&g);
    let out = StationarySelection::default()
        .run(&gm, 1e4, 0.1, &mut Pcg64::seed_from_u64(0))
        .unwrap();
    gm.gradient(&out.run.w, &mut g);
    assert!(norm(&g) < 0.2 * start, "{} vs {start}", norm(&g));
}

fn theory(x: f64, d: f64, kappa: f64) -> TheoryInputs {
    TheoryInputs {
        n: x,
        d,
        rho: 1.0,
        beta: 0.1,
        gamma: 0.5,
        kappa,
        l0: 1.5,
        l1: 2.0,
        f0: 0.5,
    }
}

fn slope(f: impl Fn(f64) -> f64, x0: f64, x1: f64) -> f64 {
    (f(x1) / f(x0)).ln() / (x1 / x0).ln()
}

#[test]
fn theory_expressions_have_the_nominal_slopes() {
    for kappa in [1.2, 1.5, 2.0, 3.0] {
        let s = slope(|x| nominal_rate(&theory(x, 64.0, kappa)), 1e4, 1e6);
        assert!((s + kappa).abs() < 1e-12);
        let s = slope(|d| nominal_rate(&theory(1e6, d, kappa)), 16.0, 1024.0);
        assert!((s - kappa / 2.0).abs() < 1e-12);
        assert!(
            corollary1_lower_bound(&theory(1e6, 64.0, kappa))
                <= nominal_rate(&theory(1e6, 64.0, kappa))
        );
    }
    // Theorem 2's expression: nominal slope plus a log drift (digest §6.0: up to +0.5).
    let s = slope(|x| proximal_theory(&theory(x, 2.0, 3.0), 1.0), 1e5, 1e7);
    assert!(s > -3.0 && s < -2.4, "{s}");
    // Theorem 4's A1 term in its regime: -2k/(4-k) plus log drift.
    let s = slope(|x| adaptive_theory(&theory(x, 1e6, 1.5)).a1, 1e5, 1e7);
    assert!((s + 1.2).abs() < 0.15, "{s}");
    // Theorem 5 (worst case): -1/2 plus drift.
    let s = slope(
        |x| stationarity_theory(&theory(x, 64.0, 1.0).smooth(), 1.0),
        1e5,
        1e7,
    );
    assert!(s < -0.3 && s > -0.7, "{s}");
}
