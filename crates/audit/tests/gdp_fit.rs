//! The Gaussian-DP fit on the Gaussian mechanism at its worst-case pair.
//!
//! `f(D) = 1`, `f(D') = 0` (sensitivity 1), released as `f + N(0, sigma^2)`
//! with `sigma` the analytic Gaussian calibration for `(eps, delta) = (1,
//! 1e-5)` (Balle & Wang 2018): exactly `mu`-GDP with the `mu` whose curve
//! passes through `(1, 1e-5)`, so the claim is tight and any slack in the
//! estimator would show as a false alarm.
//!
//! False-alarm rate of this file: each audit runs at `ALPHA = 1e-4`; the
//! false-alarm test runs 100 audits, so by the union bound it fails on a
//! correct estimator with probability at most 1e-2 over the seeds, and the
//! seeds are fixed (it either always passes or always fails).

use audit::{audit, gdp_audit};
use mechanisms::calibration::analytic_gaussian_sigma;
use mechanisms::gdp::gaussian_mu;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rand_pcg::Pcg64;

const EPS: f64 = 1.0;
const DELTA: f64 = 1e-5;
const ALPHA: f64 = 1e-4;
/// Runs per data set in each half (selection, estimation).
const RUNS: usize = 20_000;

fn releases(mean: f64, sigma: f64, runs: usize, rng: &mut Pcg64) -> Vec<f64> {
    (0..runs)
        .map(|_| {
            let z: f64 = StandardNormal.sample(rng);
            mean + sigma * z
        })
        .collect()
}

/// Four independent release sets of the Gaussian mechanism with noise
/// `sigma`: selection and estimation runs on `D` and `D'`.
fn runs(sigma: f64, seed: u64) -> [Vec<f64>; 4] {
    let mut rng = Pcg64::seed_from_u64(seed);
    [
        releases(1.0, sigma, RUNS, &mut rng),
        releases(0.0, sigma, RUNS, &mut rng),
        releases(1.0, sigma, RUNS, &mut rng),
        releases(0.0, sigma, RUNS, &mut rng),
    ]
}

#[test]
fn a_correct_gaussian_mechanism_is_never_flagged() {
    let sigma = analytic_gaussian_sigma(EPS, DELTA, 1.0).unwrap();
    let mu = gaussian_mu(sigma, 1.0).unwrap();
    let (mut worst_mu, mut worst_eps) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for seed in 0..100u64 {
        let [sd, sdp, ed, edp] = runs(sigma, 0x0a0d_6d00 + seed);
        let a = gdp_audit((&sd, &sdp), (&ed, &edp), DELTA, ALPHA);
        assert!(
            a.mu_lower <= mu,
            "seed {seed}: mu_lb above mu = {mu}: {a:?}"
        );
        assert!(a.eps_lower <= EPS, "seed {seed}: false alarm {a:?}");
        worst_mu = worst_mu.max(a.mu_lower);
        worst_eps = worst_eps.max(a.eps_lower);
    }
    println!(
        "mu = {mu:.4}: largest mu_lb {worst_mu:.4}, largest eps_lb {worst_eps:.4} over 100 audits"
    );
    // Not vacuous: the bound comes close to the truth at these runs.
    assert!(worst_eps > 0.6, "largest eps_lb {worst_eps}");
}

#[test]
fn half_the_noise_is_flagged_every_time() {
    let sigma = analytic_gaussian_sigma(EPS, DELTA, 1.0).unwrap();
    let mut weakest = f64::INFINITY;
    for seed in 0..20u64 {
        let [sd, sdp, ed, edp] = runs(sigma / 2.0, 0x0a0d_6e00 + seed);
        let a = gdp_audit((&sd, &sdp), (&ed, &edp), DELTA, ALPHA);
        assert!(
            a.eps_lower > EPS,
            "seed {seed}: half noise not flagged {a:?}"
        );
        weakest = weakest.min(a.eps_lower);
    }
    println!("half noise: smallest eps_lb {weakest:.4} over 20 audits against the claim {EPS}");
}

#[test]
fn the_gaussian_fit_is_tighter_than_the_threshold_audit() {
    // On the same runs of the correct mechanism, the median eps lower bound.
    let sigma = analytic_gaussian_sigma(EPS, DELTA, 1.0).unwrap();
    let (mut gdp, mut threshold) = (Vec::new(), Vec::new());
    for seed in 0..21u64 {
        let [sd, sdp, ed, edp] = runs(sigma, 0x0a0d_6f00 + seed);
        gdp.push(gdp_audit((&sd, &sdp), (&ed, &edp), DELTA, ALPHA).eps_lower);
        threshold.push(audit((&sd, &sdp), (&ed, &edp), DELTA, ALPHA).eps_lower);
    }
    gdp.sort_by(f64::total_cmp);
    threshold.sort_by(f64::total_cmp);
    let (g, t) = (gdp[10], threshold[10]);
    println!("median eps_lb over 21 audits: Gaussian fit {g:.4}, threshold {t:.4}");
    assert!(g > t + 0.2, "Gaussian fit {g} vs threshold {t}");
}
