//! Distributional tests of the noise samplers. Every statistical check uses a
//! fixed seed and states its false-alarm rate (the probability that a correct
//! sampler fails it for a random seed).

mod common;

use common::*;
use mechanisms::noise::{gamma_radius, gaussian, l2_laplace, uniform_direction};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use statrs::distribution::{ContinuousCDF, Gamma as StatrsGamma, Normal};
use std::f64::consts::PI;

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// Gamma(d, s) radius: mean d*s and variance d*s^2 over 9 (d, scale) cells.
/// Mean: z-test with the exact null variance d s^2 / N. Variance: the sample
/// variance S^2 has Var(S^2) ~ (mu4 - sigma^4)/N with mu4 = sigma^4 (3 + 6/d)
/// for a Gamma(d), i.e. sd(S^2) = d s^2 sqrt((2 + 6/d)/N).
/// Each |z| < 4.5 check has false-alarm ~6.8e-6; 18 checks, union < 1.3e-4.
#[test]
fn gamma_radius_mean_and_variance() {
    const N: usize = 100_000;
    let mut r = rng(1);
    for &d in &[1usize, 10, 1000] {
        for &scale in &[1e-8, 1.0, 1e8] {
            let xs: Vec<f64> = (0..N).map(|_| gamma_radius(d, scale, &mut r)).collect();
            let (m, v) = mean_var(&xs);
            let df = d as f64;
            let z_mean = z_known_var(m, df * scale, df * scale * scale, N);
            assert!(
                z_mean.abs() < Z_BOUND,
                "d={d} scale={scale}: mean {m}, z={z_mean}"
            );
            let sd_v = df * scale * scale * ((2.0 + 6.0 / df) / N as f64).sqrt();
            let z_var = (v - df * scale * scale) / sd_v;
            assert!(
                z_var.abs() < Z_BOUND,
                "d={d} scale={scale}: var {v}, z={z_var}"
            );
        }
    }
}

/// KS test of the radius against statrs' Gamma CDF (statrs takes a RATE =
/// 1/scale). alpha = 1e-5 per test, 6 tests.
#[test]
fn gamma_radius_ks_against_statrs() {
    const N: usize = 20_000;
    let mut r = rng(2);
    for &d in &[1usize, 10, 1000] {
        for &scale in &[1e-8, 1e8] {
            let xs: Vec<f64> = (0..N).map(|_| gamma_radius(d, scale, &mut r)).collect();
            let dist = StatrsGamma::new(d as f64, 1.0 / scale).unwrap();
            assert_ks(
                &xs,
                |x| dist.cdf(x),
                &format!("Gamma radius d={d} scale={scale}"),
            );
        }
    }
}

/// Power check for the KS test above: the scale/rate confusion of digest §9
/// and an off-by-one shape are both detected (so the KS test can fail).
#[test]
fn gamma_radius_ks_detects_wrong_parameters() {
    const N: usize = 20_000;
    let mut r = rng(3);
    let (d, scale) = (10usize, 3.0);
    let xs: Vec<f64> = (0..N).map(|_| gamma_radius(d, scale, &mut r)).collect();
    let rate_confused = StatrsGamma::new(d as f64, scale).unwrap();
    assert_ks_rejects(&xs, |x| rate_confused.cdf(x), "rate used as scale");
    let shape_off = StatrsGamma::new(d as f64 + 1.0, 1.0 / scale).unwrap();
    assert_ks_rejects(&xs, |x| shape_off.cdf(x), "shape d+1");
}

/// Directions have unit norm to 1e-12 (deterministic property).
#[test]
fn uniform_direction_has_unit_norm() {
    let mut r = rng(4);
    for &d in &[1usize, 2, 3, 5, 1000] {
        for _ in 0..200 {
            let u = uniform_direction(d, &mut r);
            assert_eq!(u.len(), d);
            let norm = u.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() < 1e-12, "d={d}: norm {norm}");
        }
    }
}

/// d = 2: the angle atan2(u2, u1) is Uniform(-pi, pi]. KS, alpha = 1e-5.
#[test]
fn uniform_direction_d2_angle_is_uniform() {
    const N: usize = 20_000;
    let mut r = rng(5);
    let xs: Vec<f64> = (0..N)
        .map(|_| {
            let u = uniform_direction(2, &mut r);
            u[1].atan2(u[0])
        })
        .collect();
    assert_ks(
        &xs,
        |t| ((t + PI) / (2.0 * PI)).clamp(0.0, 1.0),
        "d=2 angle",
    );
}

/// d = 3: each coordinate of a uniform point on S^2 is Uniform(-1, 1)
/// (Archimedes' hat-box theorem). KS on the first coordinate, alpha = 1e-5.
#[test]
fn uniform_direction_d3_coordinate_is_uniform() {
    const N: usize = 20_000;
    let mut r = rng(6);
    let xs: Vec<f64> = (0..N).map(|_| uniform_direction(3, &mut r)[0]).collect();
    assert_ks(
        &xs,
        |t| ((t + 1.0) / 2.0).clamp(0.0, 1.0),
        "d=3 first coordinate",
    );
}

/// d = 5: E[u_j] = 0 (Var u_j = 1/d) and E[u_j^2] = 1/d
/// (Var u_j^2 = E u_j^4 - 1/d^2 = 3/(d(d+2)) - 1/d^2 = 2(d-1)/(d^2(d+2))).
/// 10 z-checks at |z| < 4.5 (each ~6.8e-6), union < 7e-5.
#[test]
fn uniform_direction_d5_moments() {
    const N: usize = 100_000;
    const D: usize = 5;
    let df = D as f64;
    let mut r = rng(7);
    let draws: Vec<Vec<f64>> = (0..N).map(|_| uniform_direction(D, &mut r)).collect();
    for j in 0..D {
        let col: Vec<f64> = draws.iter().map(|u| u[j]).collect();
        let sq: Vec<f64> = col.iter().map(|x| x * x).collect();
        let (m1, _) = mean_var(&col);
        let (m2, _) = mean_var(&sq);
        let z1 = z_known_var(m1, 0.0, 1.0 / df, N);
        let z2 = z_known_var(m2, 1.0 / df, 2.0 * (df - 1.0) / (df * df * (df + 2.0)), N);
        assert!(z1.abs() < Z_BOUND, "E u_{j} = {m1}, z = {z1}");
        assert!(z2.abs() < Z_BOUND, "E u_{j}^2 = {m2}, z = {z2}");
    }
}

/// l2-Laplace with scale s = Delta/eps (digest Lemma B.3):
/// E||z|| = d s (Var ||z|| = d s^2) and E||z||^2 = d(d+1) s^2
/// (Var ||z||^2 = E r^4 - (E r^2)^2 = s^4 d(d+1)(4d+6)); per coordinate
/// E z_1^2 = (d+1) s^2 (Var z_1^2 = s^4 (d+1)(2d+8), from E u_1^4 = 3/(d(d+2))).
/// Coordinate-wise Laplace would give E||z||^2 = 2 d s^2 and fail.
/// 9 z-checks at |z| < 4.5, union < 7e-5.
#[test]
fn l2_laplace_moments() {
    const N: usize = 50_000;
    let mut r = rng(8);
    let (delta_sens, eps) = (0.35, 0.5);
    let s: f64 = delta_sens / eps;
    for &d in &[1usize, 5, 50] {
        let df = d as f64;
        let mut norms = Vec::with_capacity(N);
        let mut norms_sq = Vec::with_capacity(N);
        let mut first_sq = Vec::with_capacity(N);
        for _ in 0..N {
            let z = l2_laplace(d, s, &mut r);
            assert_eq!(z.len(), d);
            let nsq: f64 = z.iter().map(|x| x * x).sum();
            norms.push(nsq.sqrt());
            norms_sq.push(nsq);
            first_sq.push(z[0] * z[0]);
        }
        let z1 = z_known_var(mean_var(&norms).0, df * s, df * s * s, N);
        let var_sq = s.powi(4) * df * (df + 1.0) * (4.0 * df + 6.0);
        let z2 = z_known_var(mean_var(&norms_sq).0, df * (df + 1.0) * s * s, var_sq, N);
        let var_c = s.powi(4) * (df + 1.0) * (2.0 * df + 8.0);
        let z3 = z_known_var(mean_var(&first_sq).0, (df + 1.0) * s * s, var_c, N);
        assert!(z1.abs() < Z_BOUND, "d={d}: E||z|| z = {z1}");
        assert!(z2.abs() < Z_BOUND, "d={d}: E||z||^2 z = {z2}");
        assert!(z3.abs() < Z_BOUND, "d={d}: E z_1^2 z = {z3}");
    }
}

/// Gaussian noise: E||z||^2 = d sigma^2 (Var = 2 d sigma^4), z-test |z| < 4.5
/// (~6.8e-6), and every coordinate ~ N(0, sigma^2) by KS at alpha = 1e-5
/// (4 tests).
#[test]
fn gaussian_moments_and_marginals() {
    const N: usize = 20_000;
    const D: usize = 4;
    let sigma = 2.5;
    let mut r = rng(9);
    let draws: Vec<Vec<f64>> = (0..N).map(|_| gaussian(D, sigma, &mut r)).collect();
    let nsq: Vec<f64> = draws
        .iter()
        .map(|z| z.iter().map(|x| x * x).sum())
        .collect();
    let df = D as f64;
    let z = z_known_var(
        mean_var(&nsq).0,
        df * sigma * sigma,
        2.0 * df * sigma.powi(4),
        N,
    );
    assert!(z.abs() < Z_BOUND, "E||z||^2: z = {z}");
    let normal = Normal::new(0.0, sigma).unwrap();
    for j in 0..D {
        let col: Vec<f64> = draws.iter().map(|v| v[j]).collect();
        assert_ks(&col, |x| normal.cdf(x), &format!("gaussian coordinate {j}"));
    }
}

/// Zero scale is the noiseless limit, not a panic.
#[test]
fn zero_scale_gives_zero_noise() {
    let mut r = rng(10);
    assert_eq!(gamma_radius(3, 0.0, &mut r), 0.0);
    assert!(l2_laplace(3, 0.0, &mut r).iter().all(|&x| x == 0.0));
    assert!(gaussian(3, 0.0, &mut r).iter().all(|&x| x == 0.0));
}
