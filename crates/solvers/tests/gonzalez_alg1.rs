//! Algorithm 1 and its baselines on G1/G2 games (digest §3.1, §4.1, §7.4):
//! the privacy caps and the accountant's spend, the explicit plug-in bound
//! of §4.1 against the measured mean gap, the ascent sign, and the
//! baselines' privacy and bounds.
//!
//! Statistical assertions compare a mean over a fixed number of seeded runs
//! against an upper bound; the bounds hold in expectation, and the margins
//! are stated at each assertion.

use datagen::gonzalez::game::{GameNoise, SimplexGame};
use datagen::gonzalez::matrix::MeanMatrix;
use datagen::gonzalez::separable::{Potential, SeparablePenalty};
use dpcore::saddle::SaddleProblem;
use dpcore::PrivacyParams;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::gonzalez::alg1::{alg1_schedule, private_smd, Alg1Options, Regime};
use solvers::gonzalez::baselines::{noisy_entropic_md, nonprivate_smd};
use solvers::gonzalez::rates::{alg1_plug_in_bound, log_dims};
use solvers::gonzalez::sgda::{euclidean_dp_sgda, project_simplex};
use solvers::gonzalez::{ReleaseCount, SpentPrivacy};

fn planted(d: usize, n: usize, seed: u64) -> SimplexGame {
    let mut rng = Pcg64::seed_from_u64(seed);
    let m = MeanMatrix::dense_planted(d, d, 0.5, 0.5, &mut rng);
    SimplexGame::sample(
        m,
        GameNoise::RankOne { sigma: 0.5 },
        None,
        None,
        n,
        &mut rng,
    )
}

fn smooth(d: usize, n: usize, phi: Potential, seed: u64) -> SimplexGame {
    let mut rng = Pcg64::seed_from_u64(seed);
    let m = MeanMatrix::dense_planted(d, d, 0.3, 0.3, &mut rng);
    let pen = Some(SeparablePenalty::uniform(phi, 0.5, d));
    SimplexGame::sample(
        m,
        GameNoise::RankOne { sigma: 0.2 },
        pen.clone(),
        pen,
        n,
        &mut rng,
    )
}

#[test]
fn privacy_cap_is_corrected_prop_4_1_and_spend_is_within_target() {
    for (n, eps) in [(5_000, 0.1), (20_000, 0.5), (100_000, 0.9)] {
        let privacy = PrivacyParams::approx(eps, 1e-6);
        let lam = (1e6f64).ln();
        for regime in [Regime::Quadratic, Regime::SecondOrder, Regime::FirstOrder] {
            let g = planted(8, n, 1);
            let l0 = g.constants().l0;
            let opts = Alg1Options::new(regime);
            let s = alg1_schedule(&g, privacy, opts).unwrap();
            let (t, k, b) = (s.steps as f64, s.k as f64, s.batch as f64);
            // Corrected Prop 4.1: tau <= B eps / (16 L0 sqrt(T (K+1) Lambda)).
            let cap = b * eps / (16.0 * l0 * (t * (k + 1.0) * lam).sqrt());
            assert!((s.tau_privacy_cap - cap).abs() <= 1e-12 * cap && s.tau <= s.tau_privacy_cap);
            let paper = alg1_schedule(
                &g,
                privacy,
                Alg1Options {
                    release_count: ReleaseCount::PaperPrinted,
                    ..opts
                },
            )
            .unwrap();
            assert!((paper.tau_privacy_cap / s.tau_privacy_cap - 2f64.sqrt()).abs() < 1e-12);
            let mut rng = Pcg64::seed_from_u64(2);
            let out = private_smd(&g, privacy, opts, &mut rng).unwrap();
            let Some(SpentPrivacy::Vertices(a)) = out.privacy else {
                panic!("no account")
            };
            assert_eq!(a.releases, 2 * s.steps * (s.k + 1));
            assert!((a.eps_per_release - 4.0 * l0 * s.tau / b).abs() < 1e-15);
            assert!(a.eps_spent <= eps && a.delta_spent <= 1e-6, "{a:?}");
            // The output is the average of T vertices.
            for v in out.x.iter().chain(&out.y) {
                assert!((v * t - (v * t).round()).abs() < 1e-9);
            }
            assert!((out.x.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}

/// Builds the game of a seed.
type GameMaker = Box<dyn Fn(u64) -> SimplexGame>;

/// Mean over `runs` seeds of the released gap, and the plug-in bound.
fn mean_gap(make: impl Fn(u64) -> SimplexGame, regime: Regime, runs: u64) -> (f64, f64) {
    let privacy = PrivacyParams::approx(0.5, 1e-6);
    let mut mean = 0.0;
    let mut bound = 0.0;
    for seed in 0..runs {
        let g = make(seed);
        let (dx, dy) = g.dims();
        let s = alg1_schedule(&g, privacy, Alg1Options::new(regime)).unwrap();
        let mut rng = Pcg64::seed_from_u64(1000 + seed);
        let out = private_smd(&g, privacy, Alg1Options::new(regime), &mut rng).unwrap();
        mean += g.duality_gap(&out.x, &out.y) / runs as f64;
        bound = alg1_plug_in_bound(g.constants(), log_dims(dx, dy), s.steps, s.tau, s.k);
    }
    (mean, bound)
}

#[test]
fn measured_gap_is_below_the_plug_in_bound() {
    // E Gap <= plug-in bound (digest §4.1). Each gap is in [0, 4 L0]; the
    // observed means sit at about 1/4 of the bound, far outside the spread
    // of a 10-run mean.
    let cases: [(Regime, GameMaker); 3] = [
        (Regime::Quadratic, Box::new(|s| planted(16, 20_000, s))),
        (
            Regime::SecondOrder,
            Box::new(|s| smooth(16, 20_000, Potential::LogCosh { kappa: 8.0 }, s)),
        ),
        (
            Regime::FirstOrder,
            Box::new(|s| smooth(16, 20_000, Potential::Huber { kappa: 0.1 }, s)),
        ),
    ];
    for (regime, make) in cases {
        let (mean, bound) = mean_gap(make, regime, 10);
        assert!(mean > 0.0 && mean <= bound, "{regime:?}: {mean} > {bound}");
    }
}

#[test]
fn max_player_ascends_on_the_separable_game() {
    // Gap = (<a,x> - min a)/2 + (<b,y> - min b)/2; at the uniform point it is
    // g0. Ascent in y lowers <b, y>; a descent sign would raise it above the
    // uniform value. Mean over 5 runs must be below g0 / 2.
    let d = 8;
    let a: Vec<f64> = (0..d).map(|i| i as f64 / d as f64).collect();
    let privacy = PrivacyParams::approx(0.9, 1e-6);
    let uniform = vec![1.0 / d as f64; d];
    let mut mean = 0.0;
    let mut g0 = 0.0;
    for seed in 0..5 {
        let mut rng = Pcg64::seed_from_u64(seed);
        let g = SimplexGame::sample(
            MeanMatrix::separable(a.clone(), a.clone()),
            GameNoise::RankOne { sigma: 0.0 },
            None,
            None,
            200_000,
            &mut rng,
        );
        g0 = g.duality_gap(&uniform, &uniform);
        let out = private_smd(&g, privacy, Alg1Options::new(Regime::Quadratic), &mut rng).unwrap();
        let ybar: f64 = out.y.iter().zip(&a).map(|(y, b)| y * b).sum();
        assert!(
            ybar < 0.5 * a.iter().sum::<f64>() / d as f64,
            "y moved up: {ybar}"
        );
        mean += g.duality_gap(&out.x, &out.y) / 5.0;
    }
    assert!(mean < 0.5 * g0, "{mean} vs {g0}");
}

#[test]
fn nonprivate_smd_meets_its_bound_and_baselines_spend_at_most_target() {
    // Non-private SMD with unbiased gradients: E Gap(x_bar, y_bar) <= 2 l/(tau T) + 5 tau L0^2.
    let mut mean = 0.0;
    let mut bound = 0.0;
    for seed in 0..5 {
        let g = planted(8, 4_000, seed);
        let out = nonprivate_smd(&g, None).unwrap();
        assert!(out.privacy.is_none());
        let (t, tau, l0) = (
            out.diagnostics.steps as f64,
            out.diagnostics.tau,
            g.constants().l0,
        );
        bound = 2.0 * log_dims(8, 8) / (tau * t) + 5.0 * tau * l0 * l0;
        mean += g.duality_gap(&out.x, &out.y) / 5.0;
    }
    assert!(mean <= bound, "{mean} > {bound}");
    let g = planted(8, 20_000, 9);
    for eps in [0.3, 2.0] {
        let privacy = PrivacyParams::approx(eps, 1e-6);
        let mut rng = Pcg64::seed_from_u64(3);
        for out in [
            noisy_entropic_md(&g, privacy, &mut rng).unwrap(),
            euclidean_dp_sgda(&g, privacy, None, &mut rng).unwrap(),
        ] {
            let Some(SpentPrivacy::Gaussian(a)) = out.privacy else {
                panic!("no account")
            };
            let b = out.diagnostics.batch as f64;
            // L2 sensitivity 2 L0 sqrt(d_x + d_y) / B (worst-case clip).
            assert!((a.sensitivity - 2.0 * g.constants().l0 * 16f64.sqrt() / b).abs() < 1e-12);
            if eps <= 1.0 {
                let classical = (2.0 * (1.25e6f64).ln()).sqrt() * a.sensitivity / eps;
                assert!((a.sigma - classical).abs() < 1e-12 * classical);
            }
            assert!(a.eps_spent <= eps && a.delta_spent <= 1e-6, "{a:?}");
            assert!(g.duality_gap(&out.x, &out.y) >= 0.0);
        }
    }
}

#[test]
fn simplex_projection_is_exact() {
    let mut buf = Vec::new();
    let mut v = vec![0.5, 1.5, -0.3, 0.9];
    project_simplex(&mut v, &mut buf);
    // Sorted 1.5, 0.9, 0.5: theta = (1.5 + 0.9 - 1)/2 = 0.7 (0.5 - 0.7 < 0).
    let expected = [0.0, 0.8, 0.0, 0.2];
    assert!(
        v.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-15),
        "{v:?}"
    );
    let mut w = vec![0.1, 0.2, 0.7];
    project_simplex(&mut w, &mut buf);
    // Already in the simplex: unchanged up to rounding of the threshold.
    assert!(
        w.iter()
            .zip([0.1, 0.2, 0.7])
            .all(|(a, b)| (a - b).abs() < 1e-15),
        "{w:?}"
    );
}

#[test]
fn structured_instance_at_two_to_the_twenty_runs_in_linear_time() {
    // d = 2^20 low-rank game with a planted cross (digest §7.2): the exact
    // gap is 0 at the planted saddle and Alg. 1 runs (O(d) per step) within
    // the privacy target.
    let d = 1 << 20;
    let mut rng = Pcg64::seed_from_u64(31);
    let m = MeanMatrix::low_rank_planted(d, d, 2, 0.5, 0.5, &mut rng);
    let game = SimplexGame::sample(m, GameNoise::None, None, None, 1_000, &mut rng);
    let uniform = vec![1.0 / d as f64; d];
    let out = private_smd(
        &game,
        PrivacyParams::approx(0.5, 1e-6),
        Alg1Options::new(Regime::Quadratic),
        &mut rng,
    )
    .unwrap();
    assert!(out.privacy.unwrap().eps() <= 0.5);
    let gap = game.duality_gap(&out.x, &out.y);
    assert!(gap >= 0.0 && gap <= 4.0 * game.constants().l0);
    assert!(game.duality_gap(&uniform, &uniform) > 0.0);
    let MeanMatrix::LowRank { cross: Some(c), .. } = game.matrix() else {
        panic!()
    };
    let (mut er, mut ec) = (vec![0.0; d], vec![0.0; d]);
    er[c.row] = 1.0;
    ec[c.col] = 1.0;
    assert_eq!(game.duality_gap(&er, &ec), 0.0);
}

/// GGP-E-ysign (digest §3.1 erratum): Algorithm 1 as printed sets
/// `g_y = -grad_y F` and `y+ ∝ y exp(+tau g_y)`. On a planted bilinear game
/// (no penalties, so the population objective is linear in `y` and
/// `F(x, y+) - F(x, y) = <grad_y F, y+ - y>` exactly), that step lowers the
/// max player's objective at every one of 20 random interior points and
/// three step sizes: it is a descent step, so the printed statement that it
/// is mirror ascent is false. The corrected step `y exp(+tau grad_y F)`
/// raises it at the same points. Deterministic (fixed seeds).
#[test]
fn printed_max_player_step_is_descent() {
    let d = 8;
    let g = planted(d, 1_000, 41);
    let mut rng = Pcg64::seed_from_u64(42);
    let interior = |rng: &mut Pcg64| {
        let w: Vec<f64> = (0..d)
            .map(|_| 0.05 + rand::RngExt::random::<f64>(rng))
            .collect();
        let s: f64 = w.iter().sum();
        w.into_iter().map(|v| v / s).collect::<Vec<f64>>()
    };
    let step = |y: &[f64], gy: &[f64], sign: f64, tau: f64| {
        let w: Vec<f64> = y
            .iter()
            .zip(gy)
            .map(|(y, g)| y * (sign * tau * g).exp())
            .collect();
        let s: f64 = w.iter().sum();
        w.into_iter().map(|v| v / s).collect::<Vec<f64>>()
    };
    let change = |gy: &[f64], from: &[f64], to: &[f64]| -> f64 {
        gy.iter()
            .zip(to.iter().zip(from))
            .map(|(g, (a, b))| g * (a - b))
            .sum()
    };
    let (mut gx, mut gy) = (vec![0.0; d], vec![0.0; d]);
    for _ in 0..20 {
        let (x, y) = (interior(&mut rng), interior(&mut rng));
        g.population_gradient(
            dpcore::saddle::SimplexPoint::Dense(&x),
            dpcore::saddle::SimplexPoint::Dense(&y),
            &mut gx,
            &mut gy,
        );
        for tau in [0.01, 0.1, 1.0] {
            // Printed: g_y = -grad_y F, then y exp(+tau g_y).
            let printed = step(&y, &gy, -1.0, tau);
            let corrected = step(&y, &gy, 1.0, tau);
            let (down, up) = (change(&gy, &y, &printed), change(&gy, &y, &corrected));
            assert!(down < 0.0, "tau {tau}: the printed step raised F by {down}");
            assert!(up > 0.0, "tau {tau}: the corrected step lowered F by {up}");
        }
    }
}
