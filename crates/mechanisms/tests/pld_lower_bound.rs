//! Tests of the certified lower bound on a composed mixture pair's
//! `eps(delta)` (`mechanisms::pld::composed_epsilon_lower_bound`), where its
//! promise can be checked against an exact value or an upper bound:
//!
//! * `k` Gaussian releases: the exact Gaussian with `sigma / sqrt(k)`
//!   (Balle–Wang); the bound is never above it and within [`GAP`] below.
//! * Poisson-subsampled Gaussian, replace-one, at Bassily et al.'s schedule
//!   and at a looser one: never above the pessimistic PLD accountant's upper
//!   bound, and within [`GAP`] of it.
//! * Coarser resolutions only loosen it; bad input is refused.
//!
//! Deterministic (no sampling), so a failure is a defect, not a false alarm.

use mechanisms::calibration::exact_gaussian_delta;
use mechanisms::pld::{
    composed_epsilon_lower_bound, LowerBoundGrid, PldAccountant, PldError, UnitGaussianMixture,
};
use mechanisms::relation::Neighbouring;

/// The largest gap allowed below an exact value or an upper bound: rounding
/// `T <= 12` losses down by at most `h = 1e-4` each moves eps by at most
/// `1.2e-3`; the cells of `1e-3` noise units add far less.
const GAP: f64 = 2e-3;

/// Exact eps of `N(0, sigma^2)` against `N(1, sigma^2)` at `delta`, by bisection
/// on the Balle–Wang profile (to 1e-12).
fn exact_gaussian_eps(sigma: f64, delta: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 50.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if exact_gaussian_delta(mid, sigma, 1.0) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[test]
fn composed_gaussians_stay_at_or_below_the_exact_eps() {
    for &(sigma, steps, delta) in &[(2.0, 1u64, 1e-5), (4.0, 12, 1e-5), (8.0, 12, 1e-8)] {
        let lower = composed_epsilon_lower_bound(
            &UnitGaussianMixture::gaussian(0.0),
            &UnitGaussianMixture::gaussian(1.0 / sigma),
            steps,
            delta,
            LowerBoundGrid::default(),
        )
        .unwrap();
        let exact = exact_gaussian_eps(sigma / (steps as f64).sqrt(), delta);
        eprintln!("Gaussian sigma {sigma}, T {steps}: lower {lower:.6}, exact {exact:.6}");
        assert!(
            lower <= exact + 1e-9 && lower >= exact - GAP,
            "sigma {sigma}, T {steps}: lower {lower} vs exact {exact}"
        );
    }
}

/// `(1-q) N(0) + q N(-1/(2 s))` against `(1-q) N(0) + q N(1/(2 s))` in units of
/// the noise: the accountant's replace-one pair with noise `s` times the
/// sensitivity.
fn replace_one_pair(q: f64, s: f64) -> (UnitGaussianMixture, UnitGaussianMixture) {
    let shift = 0.5 / s;
    let mix = |mean: f64| UnitGaussianMixture::new(vec![(1.0 - q, 0.0), (q, mean)]).unwrap();
    (mix(-shift), mix(shift))
}

#[test]
fn poisson_gaussians_stay_at_or_below_the_accountant_upper_bound() {
    // Bassily et al.'s schedule at n = 100, eps = 1, delta = 1e-5 (q = 0.15,
    // T = 12, z = 4.7458: s = z/2 under replace-one), and a leakier one.
    for &(q, s, steps) in &[(0.15, 4.7458 / 2.0, 12u64), (0.3, 1.0, 6)] {
        let delta = 1e-5;
        let (p, qm) = replace_one_pair(q, s);
        let lower =
            composed_epsilon_lower_bound(&p, &qm, steps, delta, LowerBoundGrid::default()).unwrap();
        let upper = PldAccountant::new(Neighbouring::ReplaceOne)
            .compose_poisson_gaussian(q, s, steps)
            .unwrap()
            .epsilon(delta)
            .unwrap();
        eprintln!("Poisson q {q}, s {s}, T {steps}: lower {lower:.6}, upper {upper:.6}");
        assert!(
            lower <= upper && upper - lower <= GAP,
            "q {q}, s {s}, T {steps}: lower {lower} vs upper {upper}"
        );
    }
}

#[test]
fn a_coarser_resolution_only_loosens_the_bound() {
    let (p, q) = replace_one_pair(0.15, 4.7458 / 2.0);
    let fine = composed_epsilon_lower_bound(&p, &q, 12, 1e-5, LowerBoundGrid::default()).unwrap();
    let coarse = LowerBoundGrid {
        cell: 0.05,
        grid: 1e-2,
        max_loss: 1.0,
    };
    let loose = composed_epsilon_lower_bound(&p, &q, 12, 1e-5, coarse).unwrap();
    eprintln!("coarse {loose:.6}, fine {fine:.6}");
    assert!(loose <= fine && loose > 0.5 * fine, "{loose} vs {fine}");
}

#[test]
fn bad_input_is_refused() {
    assert_eq!(
        UnitGaussianMixture::new(vec![(0.5, 0.0), (0.4, 1.0)]).unwrap_err(),
        PldError::InvalidMixture
    );
    assert_eq!(
        UnitGaussianMixture::new(vec![(1.0, f64::NAN)]).unwrap_err(),
        PldError::InvalidMixture
    );
    let g = UnitGaussianMixture::gaussian(0.0);
    let res = LowerBoundGrid::default();
    assert_eq!(
        composed_epsilon_lower_bound(&g, &g, 1, 0.0, res).unwrap_err(),
        PldError::InvalidDelta(0.0)
    );
    let zero_steps = composed_epsilon_lower_bound(&g, &g, 0, 1e-5, res).unwrap_err();
    assert_eq!(zero_steps, PldError::InvalidMixture);
    // Identical distributions: no privacy loss at all.
    assert_eq!(
        composed_epsilon_lower_bound(&g, &g, 3, 1e-5, res).unwrap(),
        0.0
    );
}
