//! Goodness-of-fit tests of every sampler against its exact law.
//!
//! Continuous samplers: Kolmogorov–Smirnov against statrs CDFs, each test at
//! `KS_ALPHA = 1e-5` (`common/mod.rs`). Discrete samplers (stopping laws):
//! Pearson chi-square against the crate's exact pmf, cells merged to expected
//! counts >= 10, p-value from statrs `ChiSquared`, each test at
//! `CHI2_ALPHA = 1e-4` (`common/chisq.rs`). Mean checks are z-tests with the
//! exact null variance at `|z| < 4.5` (false alarm 6.8e-6 each). All seeds are
//! fixed, so the outcome is deterministic; the rates state how often a
//! *correct* sampler would fail for a random seed. Every family also has a
//! power check: the same test rejects a deliberately wrong parameter.
//!
//! Union bound over this file: 32 KS tests (<= 3.2e-4), 40 chi-square tests
//! (<= 4.0e-3), 40 z-tests (<= 2.8e-4); the 12 power checks are expected to
//! reject.

#[path = "common/chisq.rs"]
mod chisq;
mod common;

use chisq::*;
use common::*;
use mechanisms::noise::{gamma_radius, gaussian, l2_laplace, laplace, uniform_direction};
use mechanisms::stopping::{
    CappedGeometric, Geometric, Poisson, StoppingDistribution, TruncatedGeometric,
    TruncatedNegativeBinomial,
};
use rand::SeedableRng;
use rand_distr::Distribution;
use rand_pcg::Pcg64;
use statrs::distribution::{
    Beta as StatrsBeta, ContinuousCDF, Discrete, Exp as StatrsExp, Gamma as StatrsGamma,
    Geometric as StatrsGeometric, Laplace as StatrsLaplace, NegativeBinomial, Normal,
    Poisson as StatrsPoisson,
};

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

const SCALES: [f64; 3] = [1e-8, 1.0, 1e8];

// ---------------------------------------------------------------------------
// Coordinate-wise Laplace
// ---------------------------------------------------------------------------

/// d = 1: `laplace(1, b)` against statrs `Laplace(0, b)` for b in
/// {1e-8, 1, 1e8}. KS, alpha = 1e-5 each (3 tests).
#[test]
fn laplace_d1_ks_across_scales() {
    const N: usize = 20_000;
    let mut r = rng(101);
    for &b in &SCALES {
        let xs: Vec<f64> = (0..N).map(|_| laplace(1, b, &mut r)[0]).collect();
        let dist = StatrsLaplace::new(0.0, b).unwrap();
        assert_ks(&xs, |x| dist.cdf(x), &format!("laplace d=1 b={b}"));
    }
}

/// Large d: the 200 000 coordinates of one draw are i.i.d. Laplace(0, b), so
/// they are pooled into one KS test per scale (3 tests, alpha = 1e-5 each).
#[test]
fn laplace_large_dim_pooled_ks() {
    const D: usize = 200_000;
    let mut r = rng(102);
    for &b in &SCALES {
        let z = laplace(D, b, &mut r);
        assert_eq!(z.len(), D);
        let dist = StatrsLaplace::new(0.0, b).unwrap();
        assert_ks(&z, |x| dist.cdf(x), &format!("laplace d={D} b={b}"));
    }
}

/// Power: the same KS test rejects a 10% wrong scale and a Gaussian of the
/// same variance (`sigma = sqrt 2 b`).
#[test]
fn laplace_ks_detects_wrong_law() {
    const D: usize = 200_000;
    let b = 2.0;
    let z = laplace(D, b, &mut rng(103));
    let wrong_scale = StatrsLaplace::new(0.0, 1.1 * b).unwrap();
    assert_ks_rejects(&z, |x| wrong_scale.cdf(x), "laplace vs 1.1 b");
    let same_var_normal = Normal::new(0.0, std::f64::consts::SQRT_2 * b).unwrap();
    assert_ks_rejects(&z, |x| same_var_normal.cdf(x), "laplace vs normal");
}

/// Zero scale is the noiseless limit (deterministic).
#[test]
fn laplace_zero_scale_and_dim() {
    let mut r = rng(104);
    assert!(laplace(5, 0.0, &mut r).iter().all(|&x| x == 0.0));
    assert!(laplace(0, 1.0, &mut r).is_empty());
}

// ---------------------------------------------------------------------------
// Existing samplers: l2-Laplace radius, gamma radius, directions, Gaussian
// ---------------------------------------------------------------------------

/// `||l2_laplace(d, s)||_2 ~ Gamma(shape d, scale s)`; statrs takes a RATE,
/// `1/s`. d in {1, 10, 1000} x s in {1e-8, 1e8}: 6 KS tests at 1e-5.
#[test]
fn l2_laplace_norm_is_gamma() {
    let mut r = rng(111);
    for &(d, n) in &[(1usize, 20_000usize), (10, 20_000), (1000, 10_000)] {
        for &s in &[1e-8, 1e8] {
            let norms: Vec<f64> = (0..n)
                .map(|_| {
                    let z = l2_laplace(d, s, &mut r);
                    z.iter().map(|x| x * x).sum::<f64>().sqrt()
                })
                .collect();
            let dist = StatrsGamma::new(d as f64, 1.0 / s).unwrap();
            assert_ks(
                &norms,
                |x| dist.cdf(x),
                &format!("l2_laplace norm d={d} s={s}"),
            );
        }
    }
}

/// In d = 1 the l2-norm Laplace is the ordinary Laplace law (density
/// `exp(-|z|/s)/(2s)`), and its norm is Exp(rate 1/s). 2 KS tests at 1e-5.
#[test]
fn l2_laplace_d1_is_laplace() {
    const N: usize = 20_000;
    let s = 0.7;
    let mut r = rng(112);
    let xs: Vec<f64> = (0..N).map(|_| l2_laplace(1, s, &mut r)[0]).collect();
    let lap = StatrsLaplace::new(0.0, s).unwrap();
    assert_ks(&xs, |x| lap.cdf(x), "l2_laplace d=1 vs Laplace");
    let abs: Vec<f64> = xs.iter().map(|x| x.abs()).collect();
    let exp = StatrsExp::new(1.0 / s).unwrap();
    assert_ks(&abs, |x| exp.cdf(x), "l2_laplace d=1 |z| vs Exp");
}

/// `gamma_radius(d, s)` against statrs Gamma(d, rate 1/s) for d in {1, 1e5}
/// and s in {1e-8, 1, 1e8}: 6 KS tests at 1e-5.
#[test]
fn gamma_radius_ks_small_and_huge_shape() {
    const N: usize = 20_000;
    let mut r = rng(113);
    for &d in &[1usize, 100_000] {
        for &s in &SCALES {
            let xs: Vec<f64> = (0..N).map(|_| gamma_radius(d, s, &mut r)).collect();
            let dist = StatrsGamma::new(d as f64, 1.0 / s).unwrap();
            assert_ks(&xs, |x| dist.cdf(x), &format!("gamma_radius d={d} s={s}"));
        }
    }
}

/// Power: the rate/scale confusion is rejected.
#[test]
fn gamma_radius_ks_detects_rate_scale_confusion() {
    const N: usize = 20_000;
    let (d, s) = (1usize, 3.0);
    let mut r = rng(114);
    let xs: Vec<f64> = (0..N).map(|_| gamma_radius(d, s, &mut r)).collect();
    let confused = StatrsGamma::new(d as f64, s).unwrap();
    assert_ks_rejects(&xs, |x| confused.cdf(x), "rate used as scale");
}

/// d = 1: the sphere S^0 is {-1, +1}; each sign has probability 1/2
/// (chi-square on 2 cells at 1e-4) and the value is exactly ±1.
#[test]
fn uniform_direction_d1_is_a_fair_sign() {
    const N: usize = 20_000;
    let mut r = rng(121);
    let signs: Vec<usize> = (0..N)
        .map(|_| {
            let u = uniform_direction(1, &mut r);
            assert!(u[0] == 1.0 || u[0] == -1.0, "{u:?}");
            usize::from(u[0] > 0.0)
        })
        .collect();
    assert_chi_square(
        categorical_chi_square(&signs, &[0.5, 0.5]),
        "d=1 direction sign",
    );
}

/// d = 3: every coordinate of a uniform point on S^2 is Uniform(-1, 1)
/// (Archimedes). KS on the first and last coordinate, 2 tests at 1e-5.
#[test]
fn uniform_direction_d3_coordinates_are_uniform() {
    const N: usize = 20_000;
    let mut r = rng(122);
    let draws: Vec<Vec<f64>> = (0..N).map(|_| uniform_direction(3, &mut r)).collect();
    for j in [0usize, 2] {
        let xs: Vec<f64> = draws.iter().map(|u| u[j]).collect();
        assert_ks(
            &xs,
            |t| ((t + 1.0) / 2.0).clamp(0.0, 1.0),
            &format!("d=3 coordinate {j}"),
        );
    }
}

/// Exact marginal in any dimension: `u_1^2 ~ Beta(1/2, (d-1)/2)` (u_1^2 is
/// `g_1^2 / (g_1^2 + chi^2_{d-1})`). d in {2, 5, 50, 2000}: 4 KS tests at 1e-5.
#[test]
fn uniform_direction_first_coordinate_squared_is_beta() {
    let mut r = rng(123);
    for &(d, n) in &[
        (2usize, 20_000usize),
        (5, 20_000),
        (50, 20_000),
        (2000, 8_000),
    ] {
        let xs: Vec<f64> = (0..n)
            .map(|_| {
                let u = uniform_direction(d, &mut r);
                u[0] * u[0]
            })
            .collect();
        let dist = StatrsBeta::new(0.5, (d as f64 - 1.0) / 2.0).unwrap();
        assert_ks(&xs, |x| dist.cdf(x), &format!("u_1^2 Beta, d={d}"));
    }
}

/// Power: for d = 5 the Beta law with d + 1 and the normal approximation
/// `sqrt(d) u_1 ~ N(0, 1)` (true only as d -> inf) are both rejected, which
/// is why the exact Beta statement is used above.
#[test]
fn uniform_direction_ks_detects_wrong_dimension_and_normal_approximation() {
    const N: usize = 40_000;
    const D: usize = 5;
    let mut r = rng(124);
    let first: Vec<f64> = (0..N).map(|_| uniform_direction(D, &mut r)[0]).collect();
    let sq: Vec<f64> = first.iter().map(|x| x * x).collect();
    let wrong_d = StatrsBeta::new(0.5, D as f64 / 2.0).unwrap();
    assert_ks_rejects(&sq, |x| wrong_d.cdf(x), "Beta with d+1");
    let scaled: Vec<f64> = first.iter().map(|x| x * (D as f64).sqrt()).collect();
    let std_normal = Normal::new(0.0, 1.0).unwrap();
    assert_ks_rejects(&scaled, |x| std_normal.cdf(x), "sqrt(d) u_1 ~ N(0,1)");
}

/// `gaussian(d, sigma)` against statrs Normal(0, sigma): d = 1 (20 000 draws)
/// and d = 200 000 pooled, sigma in {1e-8, 1, 1e8}: 6 KS tests at 1e-5.
#[test]
fn gaussian_ks_across_scales_and_dims() {
    let mut r = rng(131);
    for &sigma in &SCALES {
        let dist = Normal::new(0.0, sigma).unwrap();
        let xs: Vec<f64> = (0..20_000).map(|_| gaussian(1, sigma, &mut r)[0]).collect();
        assert_ks(&xs, |x| dist.cdf(x), &format!("gaussian d=1 sigma={sigma}"));
        let z = gaussian(200_000, sigma, &mut r);
        assert_ks(
            &z,
            |x| dist.cdf(x),
            &format!("gaussian pooled sigma={sigma}"),
        );
    }
}

/// Power: a 5% wrong sigma and a Laplace law of the same variance are both
/// rejected by the pooled KS test.
#[test]
fn gaussian_ks_detects_wrong_law() {
    let sigma = 3.0;
    let z = gaussian(200_000, sigma, &mut rng(132));
    let wrong = Normal::new(0.0, 1.05 * sigma).unwrap();
    assert_ks_rejects(&z, |x| wrong.cdf(x), "gaussian vs 1.05 sigma");
    let lap = StatrsLaplace::new(0.0, sigma / std::f64::consts::SQRT_2).unwrap();
    assert_ks_rejects(&z, |x| lap.cdf(x), "gaussian vs same-variance Laplace");
}

// ---------------------------------------------------------------------------
// Stopping distributions
// ---------------------------------------------------------------------------

const N_DISCRETE: usize = 100_000;

fn draws<D: Distribution<u64>>(dist: &D, n: usize, seed: u64) -> Vec<u64> {
    let mut r = rng(seed);
    (0..n).map(|_| dist.sample(&mut r)).collect()
}

/// z-test of the sample mean against the closed-form mean with the
/// closed-form variance (|z| < 4.5).
fn assert_mean<D: StoppingDistribution>(dist: &D, xs: &[u64], what: &str) {
    let v: Vec<f64> = xs.iter().map(|&k| k as f64).collect();
    let (m, _) = mean_var(&v);
    let z = z_known_var(m, dist.mean(), dist.variance(), xs.len());
    assert!(
        z.abs() < Z_BOUND,
        "{what}: sample mean {m} vs E K = {}, z = {z}",
        dist.mean()
    );
}

/// Chi-square of samples against the distribution's own exact pmf.
fn gof<D: StoppingDistribution>(dist: &D, xs: &[u64]) -> ChiSquare {
    discrete_chi_square(xs, dist.support_min(), |k| dist.pmf(k), 50_000_000)
}

/// Geometric(gamma) for gamma in {0.5, 0.05, 1e-3}: chi-square against the
/// pmf `gamma (1-gamma)^(k-1)` and mean z-test; gamma = 1 is the point mass
/// at 1. 3 chi-square tests (1e-4), 3 z-tests.
#[test]
fn geometric_chi_square_and_mean() {
    for (i, &g) in [0.5, 0.05, 1e-3].iter().enumerate() {
        let dist = Geometric::new(g).unwrap();
        let xs = draws(&dist, N_DISCRETE, 201 + i as u64);
        assert_chi_square(gof(&dist, &xs), &format!("geometric gamma={g}"));
        assert_mean(&dist, &xs, &format!("geometric gamma={g}"));
    }
    let one = Geometric::new(1.0).unwrap();
    assert!(draws(&one, 1000, 204).iter().all(|&k| k == 1));
}

/// gamma = 1e-9 (E K = 1e9, the Wang–Zhu–Wang regime): chi-square on 20
/// equal-probability cells from the exact cdf, and the mean z-test.
#[test]
fn geometric_tiny_gamma() {
    let g = 1e-9;
    let dist = Geometric::new(g).unwrap();
    let xs = draws(&dist, N_DISCRETE, 205);
    let edges: Vec<u64> = (1..20)
        .map(|j| (-(1.0 - j as f64 / 20.0).ln() / g).ceil() as u64)
        .collect();
    assert_chi_square(
        interval_chi_square(&xs, &edges, |k| dist.cdf(k)),
        "geometric gamma=1e-9",
    );
    assert_mean(&dist, &xs, "geometric gamma=1e-9");
}

/// Capped geometric `min(G, T)` (atom at T): (0.1, 5), (1e-3, 500),
/// (0.5, 1) = point mass. 2 chi-square tests, 2 z-tests.
#[test]
fn capped_geometric_chi_square_and_mean() {
    for (i, &(g, t)) in [(0.1, 5u64), (1e-3, 500)].iter().enumerate() {
        let dist = CappedGeometric::new(g, t).unwrap();
        let xs = draws(&dist, N_DISCRETE, 211 + i as u64);
        assert!(xs.iter().all(|&k| (1..=t).contains(&k)));
        assert_chi_square(gof(&dist, &xs), &format!("capped geometric ({g}, {t})"));
        assert_mean(&dist, &xs, &format!("capped geometric ({g}, {t})"));
    }
    let point = CappedGeometric::new(0.5, 1).unwrap();
    assert!(draws(&point, 1000, 213).iter().all(|&k| k == 1));
}

/// TG(p, M) on {0..M}, p^k / C_M: (0.5, 1), (0.5, 10), (0.9, 50), (0.01, 3);
/// M = 0 is the point mass at 0. 4 chi-square tests, 4 z-tests.
#[test]
fn truncated_geometric_chi_square_and_mean() {
    for (i, &(p, m)) in [(0.5, 1u64), (0.5, 10), (0.9, 50), (0.01, 3)]
        .iter()
        .enumerate()
    {
        let dist = TruncatedGeometric::new(p, m).unwrap();
        let xs = draws(&dist, N_DISCRETE, 221 + i as u64);
        assert!(xs.iter().all(|&k| k <= m));
        assert_chi_square(gof(&dist, &xs), &format!("TG({p}, {m})"));
        assert_mean(&dist, &xs, &format!("TG({p}, {m})"));
    }
    let zero = TruncatedGeometric::new(0.5, 0).unwrap();
    assert!(draws(&zero, 1000, 225).iter().all(|&k| k == 0));
}

/// The TNB grid: eta in {0 (logarithmic), 0.5, 1 (geometric), 2, -0.5} x
/// gamma in {0.5, 0.05, 1e-3}, plus parameters that exercise every sampling
/// branch (compound Poisson: gamma^eta > 1/2; Beta mixture: eta < 0 with a
/// large mean). 20 chi-square tests (1e-4 each) and 20 mean z-tests.
#[test]
fn tnb_chi_square_and_mean() {
    let mut cases: Vec<(f64, f64)> = Vec::new();
    for &eta in &[0.0, 0.5, 1.0, 2.0, -0.5] {
        for &g in &[0.5, 0.05, 1e-3] {
            cases.push((eta, g));
        }
    }
    cases.extend_from_slice(&[
        (0.5, 0.8),
        (3.0, 0.9),
        (0.1, 0.3),
        (-0.2, 1e-4),
        (-0.9, 0.2),
    ]);
    for (i, &(eta, g)) in cases.iter().enumerate() {
        let dist = TruncatedNegativeBinomial::new(eta, g).unwrap();
        let xs = draws(&dist, N_DISCRETE, 300 + i as u64);
        assert_chi_square(gof(&dist, &xs), &format!("TNB(eta={eta}, gamma={g})"));
        assert_mean(&dist, &xs, &format!("TNB(eta={eta}, gamma={g})"));
    }
}

/// Tiny gamma = 1e-9 (E K ~ 1e8-1e9): mean z-tests for eta in
/// {0, 0.5, 2, -0.5} (4 tests) and, where the small-k region carries
/// mass, chi-square on cells [1, 2, 3, 5, 10, 100, 1e3, 1e4, 1e5, inf) from the
/// exact pmf (eta in {0, 0.5, -0.5}: 3 tests).
#[test]
fn tnb_tiny_gamma() {
    let g = 1e-9;
    let edges: [u64; 9] = [1, 2, 3, 5, 10, 100, 1_000, 10_000, 100_000];
    for (i, &eta) in [0.0, 0.5, 2.0, -0.5].iter().enumerate() {
        let dist = TruncatedNegativeBinomial::new(eta, g).unwrap();
        let xs = draws(&dist, N_DISCRETE, 330 + i as u64);
        assert_mean(&dist, &xs, &format!("TNB(eta={eta}, gamma=1e-9)"));
        if eta < 1.0 {
            // cdf(k) by summing the exact pmf (k <= 1e5).
            let mut cum = vec![0.0f64; 100_001];
            for k in 1..=100_000u64 {
                cum[k as usize] = cum[k as usize - 1] + dist.pmf(k);
            }
            let cdf = |k: u64| cum[k as usize];
            assert_chi_square(
                interval_chi_square(&xs, &edges, cdf),
                &format!("TNB(eta={eta}, gamma=1e-9) small-k cells"),
            );
        }
    }
}

/// Power: the TNB chi-square rejects eta off by 0.1 and gamma off by 5%.
#[test]
fn tnb_chi_square_detects_wrong_parameters() {
    let dist = TruncatedNegativeBinomial::new(0.5, 0.05).unwrap();
    let xs = draws(&dist, N_DISCRETE, 340);
    let wrong_eta = TruncatedNegativeBinomial::new(0.6, 0.05).unwrap();
    assert_chi_square_rejects(gof(&wrong_eta, &xs), "TNB eta 0.6 vs 0.5");
    let wrong_gamma = TruncatedNegativeBinomial::new(0.5, 0.0525).unwrap();
    assert_chi_square_rejects(gof(&wrong_gamma, &xs), "TNB gamma 0.0525 vs 0.05");
    // eta = 0 (logarithmic) is not eta = 1 (geometric) at equal gamma.
    let log = TruncatedNegativeBinomial::new(0.0, 0.05).unwrap();
    let xs_log = draws(&log, N_DISCRETE, 341);
    let geo = Geometric::new(0.05).unwrap();
    assert_chi_square_rejects(gof(&geo, &xs_log), "logarithmic vs geometric");
}

/// Poisson(mu) for mu in {0.05, 1, 11.9, 12.5, 1000, 1e6} (both branches of
/// rand_distr's sampler): 6 chi-square tests, 6 mean z-tests.
#[test]
fn poisson_chi_square_and_mean() {
    for (i, &mu) in [0.05, 1.0, 11.9, 12.5, 1000.0, 1e6].iter().enumerate() {
        let dist = Poisson::new(mu).unwrap();
        let xs = draws(&dist, N_DISCRETE, 401 + i as u64);
        assert_chi_square(gof(&dist, &xs), &format!("Poisson mu={mu}"));
        assert_mean(&dist, &xs, &format!("Poisson mu={mu}"));
    }
}

/// Power: Poisson(1000) samples are rejected against mu = 1010 (a 0.3 sd
/// shift per draw), and Geometric(0.05) samples against gamma = 0.052.
#[test]
fn discrete_chi_square_detects_small_shifts() {
    let xs = draws(&Poisson::new(1000.0).unwrap(), N_DISCRETE, 410);
    assert_chi_square_rejects(gof(&Poisson::new(1010.0).unwrap(), &xs), "Poisson 1010");
    let xs = draws(&Geometric::new(0.05).unwrap(), N_DISCRETE, 411);
    assert_chi_square_rejects(gof(&Geometric::new(0.052).unwrap(), &xs), "geometric 0.052");
}

// ---------------------------------------------------------------------------
// Exact pmf / moment / pgf identities (deterministic)
// ---------------------------------------------------------------------------

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
}

/// The pmfs agree with independent statrs implementations: Geometric; TNB
/// with eta > 0 is `NegativeBinomial(eta, gamma)` (failures before the
/// eta-th success) conditioned on K >= 1; TNB(1, gamma) is geometric; TNB(0)
/// is the logarithmic law; Poisson.
#[test]
fn pmfs_match_independent_formulas() {
    for &g in &[0.5, 0.05, 1e-3] {
        let ours = Geometric::new(g).unwrap();
        let theirs = StatrsGeometric::new(g).unwrap();
        let tnb1 = TruncatedNegativeBinomial::new(1.0, g).unwrap();
        let log = TruncatedNegativeBinomial::new(0.0, g).unwrap();
        for k in [1u64, 2, 7, 100, 5000] {
            assert!(rel_close(ours.pmf(k), theirs.pmf(k), 1e-12), "geo {g} {k}");
            assert!(rel_close(tnb1.pmf(k), theirs.pmf(k), 1e-10), "tnb1 {g} {k}");
            let log_ref = (1.0 - g).powi(k as i32) / (k as f64 * (1.0 / g).ln());
            assert!(rel_close(log.pmf(k), log_ref, 1e-10), "log {g} {k}");
        }
        for &eta in &[0.5, 2.0, 7.5] {
            let tnb = TruncatedNegativeBinomial::new(eta, g).unwrap();
            let nb = NegativeBinomial::new(eta, g).unwrap();
            let trunc = 1.0 - g.powf(eta);
            for k in [1u64, 2, 7, 100, 5000] {
                let reference = nb.pmf(k) / trunc;
                assert!(
                    rel_close(tnb.pmf(k), reference, 1e-9),
                    "tnb eta={eta} g={g} k={k}: {} vs {reference}",
                    tnb.pmf(k)
                );
            }
            assert_eq!(tnb.pmf(0), 0.0);
        }
    }
    for &mu in &[0.05, 3.0, 1000.0] {
        let ours = Poisson::new(mu).unwrap();
        let theirs = StatrsPoisson::new(mu).unwrap();
        for k in [0u64, 1, 3, 900, 1000, 1100] {
            assert!(
                rel_close(ours.pmf(k), theirs.pmf(k), 1e-9),
                "poisson {mu} {k}"
            );
        }
    }
}

/// The TNB product formula `(1-gamma)^k / (gamma^-eta - 1) prod_{l<k} (l+eta)/(l+1)`
/// evaluated literally (including eta < 0) matches `pmf` (which uses
/// ln-gamma functions).
#[test]
fn tnb_pmf_matches_product_formula() {
    for &eta in &[-0.9, -0.5, 0.5, 2.0, 3.7] {
        for &g in &[0.9, 0.3, 1e-2] {
            let tnb = TruncatedNegativeBinomial::new(eta, g).unwrap();
            let mut prod = 1.0f64;
            for k in 1..=300u64 {
                prod *= (k as f64 - 1.0 + eta) / k as f64;
                let literal = (1.0 - g).powi(k as i32) / (g.powf(-eta) - 1.0) * prod;
                assert!(
                    rel_close(tnb.pmf(k), literal, 1e-9),
                    "eta={eta} g={g} k={k}: {} vs {literal}",
                    tnb.pmf(k)
                );
            }
        }
    }
}

/// Closed-form mean, variance, cdf and pgf agree with sums over the pmf, and
/// the pmf sums to 1 (tolerance 1e-9), for every family.
#[test]
fn closed_forms_match_pmf_sums() {
    fn check<D: StoppingDistribution>(d: &D, upto: u64, what: &str) {
        let lo = d.support_min();
        let (mut s0, mut s1, mut s2, mut spgf) = (0.0, 0.0, 0.0, 0.0);
        let x: f64 = 0.7;
        for k in lo..=upto {
            let p = d.pmf(k);
            s0 += p;
            s1 += k as f64 * p;
            s2 += (k as f64) * (k as f64) * p;
            spgf += p * x.powi(k as i32);
            if k == lo + 3 || k == upto / 2 {
                assert!(rel_close(d.cdf(k), s0, 1e-9), "{what}: cdf({k})");
            }
        }
        let var = s2 - s1 * s1;
        assert!(rel_close(s0, 1.0, 1e-9), "{what}: mass {s0}");
        assert!(
            rel_close(d.mean(), s1, 1e-9),
            "{what}: mean {} vs {s1}",
            d.mean()
        );
        assert!(
            rel_close(d.variance(), var, 1e-7),
            "{what}: var {} vs {var}",
            d.variance()
        );
        assert!(
            rel_close(d.pgf(x), spgf, 1e-9),
            "{what}: pgf {} vs {spgf}",
            d.pgf(x)
        );
        assert!(rel_close(d.pgf(1.0), 1.0, 1e-12), "{what}: pgf(1)");
    }
    check(&Geometric::new(0.05).unwrap(), 3000, "geometric");
    check(&CappedGeometric::new(0.05, 40).unwrap(), 40, "capped");
    check(&CappedGeometric::new(0.3, 1).unwrap(), 1, "capped T=1");
    check(&TruncatedGeometric::new(0.5, 12).unwrap(), 12, "TG");
    check(
        &TruncatedGeometric::new(0.97, 200).unwrap(),
        200,
        "TG p=0.97",
    );
    for &eta in &[-0.5, 0.0, 0.5, 1.0, 2.0] {
        check(
            &TruncatedNegativeBinomial::new(eta, 0.05).unwrap(),
            5000,
            &format!("TNB eta={eta}"),
        );
    }
    check(&Poisson::new(7.5).unwrap(), 200, "poisson");
    // The pgf stays exact at x = 1 for tiny gamma (used with x = 1 - 1/|Theta|
    // in Wang–Zhu–Wang Lemma K.4), and degenerate laws are handled.
    for &eta in &[-0.5, 0.0, 0.5, 1.0, 2.0] {
        let tnb = TruncatedNegativeBinomial::new(eta, 1e-12).unwrap();
        assert!(
            rel_close(tnb.pgf(1.0), 1.0, 1e-12),
            "TNB({eta}, 1e-12) pgf(1)"
        );
    }
    assert_eq!(Geometric::new(1e-12).unwrap().pgf(1.0), 1.0);
    assert!(rel_close(
        CappedGeometric::new(1e-12, 5).unwrap().pgf(1.0),
        1.0,
        1e-12
    ));
    assert_eq!(CappedGeometric::new(1.0, 1).unwrap().pgf(0.3), 0.3);
    assert_eq!(CappedGeometric::new(1.0, 4).unwrap().pgf(0.3), 0.3);
}

/// González–Guzmán–Paquette erratum (digest §3.2): for p = 1/2 the TG
/// normaliser is `C_M = 2 - 2^-M` (not `<= 1`), `P(N = 0) = 1/C_M`, and
/// `E[2^N] = (M+1)/C_M`.
#[test]
fn truncated_geometric_normaliser_erratum() {
    for m in [0u64, 1, 5, 30] {
        let tg = TruncatedGeometric::new(0.5, m).unwrap();
        let c = 2.0 - 0.5f64.powi(m as i32);
        assert!(rel_close(tg.normalizer(), c, 1e-14), "C_{m}");
        assert!(rel_close(tg.pmf(0), 1.0 / c, 1e-14));
        let e2n: f64 = (0..=m).map(|k| tg.pmf(k) * 2f64.powi(k as i32)).sum();
        assert!(rel_close(e2n, (m as f64 + 1.0) / c, 1e-12), "E 2^N, M={m}");
    }
}

/// Invalid parameters are errors, not panics.
#[test]
fn invalid_parameters_are_rejected() {
    assert!(Geometric::new(0.0).is_err());
    assert!(Geometric::new(1.5).is_err());
    assert!(Geometric::new(f64::NAN).is_err());
    assert!(CappedGeometric::new(0.5, 0).is_err());
    assert!(TruncatedGeometric::new(1.0, 3).is_err());
    assert!(TruncatedNegativeBinomial::new(-1.0, 0.5).is_err());
    assert!(TruncatedNegativeBinomial::new(0.5, 1.0).is_err());
    assert!(TruncatedNegativeBinomial::new(0.5, 1e-16).is_err());
    assert!(Poisson::new(0.0).is_err());
    assert!(Poisson::new(f64::INFINITY).is_err());
}
