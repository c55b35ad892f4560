//! Tests of the Gaussian calibrations and of the exact privacy profile used to
//! audit them. All deterministic: reference values come from the digest's
//! table (computed independently) or from closed-form identities.

use mechanisms::calibration::{
    classical_gaussian_sigma, exact_gaussian_delta, l2_laplace_scale, lowy_c_delta,
    zwb_gaussian_sigma, CalibrationError,
};
use mechanisms::normal::normal_cdf;

const DELTAS: [f64; 9] = [1e-10, 1e-8, 1e-6, 1e-5, 1e-3, 1e-2, 0.1, 0.3, 0.49];
const EPSILONS: [f64; 8] = [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0];

/// Rounds to `sig` significant digits.
fn round_sig(x: f64, sig: i32) -> f64 {
    let e = x.abs().log10().floor() as i32;
    let f = 10f64.powi(sig - 1 - e);
    (x * f).round() / f
}

/// The ZWB sigma is (eps, delta)-DP by the exact Balle–Wang criterion on the
/// whole grid, for two sensitivities (the criterion depends on sigma/Delta
/// only, so both must pass); and the profile is not trivially zero.
#[test]
fn zwb_sigma_satisfies_exact_profile_on_grid() {
    for &sens in &[1.0, 0.037] {
        for &delta in &DELTAS {
            for &eps in &EPSILONS {
                let sigma = zwb_gaussian_sigma(eps, delta, sens).unwrap();
                let exact = exact_gaussian_delta(eps, sigma, sens);
                assert!(
                    exact <= delta,
                    "eps={eps} delta={delta} Delta={sens}: exact {exact} > target"
                );
                assert!(exact > 0.0, "eps={eps} delta={delta}: profile is 0");
            }
        }
    }
}

/// Reproduces the digest's reference table (§2.2): c_delta and sigma/Delta at
/// eps = 0.1, 1, 10, to 4 significant digits (c_delta given to 5).
#[test]
fn reproduces_digest_reference_table() {
    // (delta, c_delta, sigma/Delta at eps = 0.1, 1, 10)
    let table = [
        (1e-3, 2.3506, [33.39, 3.468, 0.4448]),
        (1e-5, 3.1822, [45.11, 4.609, 0.5422]),
        (1e-6, 3.5255, [49.96, 5.084, 0.5842]),
        (1e-8, 4.1273, [58.45, 5.921, 0.6595]),
        (1e-10, 4.6518, [65.86, 6.654, 0.7267]),
    ];
    for (delta, c_ref, sig_ref) in table {
        let c = lowy_c_delta(delta).unwrap();
        assert_eq!(round_sig(c, 5), c_ref, "c_delta at delta={delta}: {c}");
        for (eps, s_ref) in [0.1, 1.0, 10.0].into_iter().zip(sig_ref) {
            let s = zwb_gaussian_sigma(eps, delta, 1.0).unwrap();
            assert_eq!(
                round_sig(s, 4),
                s_ref,
                "sigma/Delta at delta={delta} eps={eps}: {s}"
            );
        }
    }
}

/// The cancellation-free c_delta equals the printed formula where the printed
/// formula is well conditioned (relative 1e-12).
#[test]
fn c_delta_matches_printed_formula_where_well_conditioned() {
    for &delta in &[1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.49] {
        let printed = (2.0 / ((16.0 * delta + 1.0f64).sqrt() - 1.0)).ln().sqrt();
        let c = lowy_c_delta(delta).unwrap();
        assert!(
            ((c - printed) / printed).abs() < 1e-12,
            "delta={delta}: {c} vs {printed}"
        );
    }
}

/// At tiny delta the printed formula gives inf (sqrt(1+16 delta) - 1 == 0), while
/// the stable form is finite and ~ sqrt(ln(1/(4 delta))) (relative 1e-3 or better).
#[test]
fn c_delta_is_accurate_for_tiny_delta() {
    for &delta in &[1e-20, 1e-300] {
        let c = lowy_c_delta(delta).unwrap();
        let asymptote = (1.0 / (4.0 * delta)).ln().sqrt();
        assert!(c.is_finite(), "delta={delta}: c={c}");
        assert!(
            ((c - asymptote) / asymptote).abs() < 1e-3,
            "delta={delta}: {c} vs {asymptote}"
        );
        let printed = (2.0 / ((16.0 * delta + 1.0f64).sqrt() - 1.0)).ln().sqrt();
        assert!(printed.is_infinite(), "the naive form should overflow here");
    }
    // c_delta decreases to 0 as delta -> 1/2.
    let c_half = lowy_c_delta(0.5 - 1e-12).unwrap();
    assert!(c_half < 1e-5, "c near 1/2 = {c_half}");
}

/// Digest erratum P2: Algorithm 7's printed density has sigma_printed =
/// sigma_zwb / sqrt(2); at eps = 1, delta = 1e-5 the exact profile is
/// ~7.4e-5 > 1e-5 (independent reference value 7.4418e-5). This shows the
/// audit function detects a violation.
#[test]
fn printed_algorithm7_constant_violates_privacy() {
    let (eps, delta) = (1.0, 1e-5);
    let sigma_printed = zwb_gaussian_sigma(eps, delta, 1.0).unwrap() / std::f64::consts::SQRT_2;
    let exact = exact_gaussian_delta(eps, sigma_printed, 1.0);
    assert!(exact > delta, "printed constant should violate: {exact}");
    assert!(
        (exact - 7.4e-5).abs() < 0.1e-5,
        "exact = {exact}, digest says ~7.4e-5"
    );
}

/// Sanity values: at eps = 0 the profile is the total-variation distance
/// 2 Phi(Delta/(2 sigma)) - 1 (= 2 Phi(1/2) - 1 for Delta/sigma = 1); degenerate
/// inputs; monotone decrease in sigma and in eps.
#[test]
fn exact_delta_sanity_and_monotonicity() {
    let tv = 2.0 * normal_cdf(0.5) - 1.0;
    assert!((exact_gaussian_delta(0.0, 1.0, 1.0) - tv).abs() < 1e-15);
    assert!((exact_gaussian_delta(0.0, 3.0, 3.0) - 0.382_924_922_548_026_2).abs() < 1e-14);
    assert_eq!(exact_gaussian_delta(1.0, 1.0, 0.0), 0.0);
    assert_eq!(exact_gaussian_delta(1.0, 0.0, 1.0), 1.0);
    assert!(exact_gaussian_delta(-1.0, 1.0, 1.0).is_nan());
    for &eps in &[0.0, 0.1, 1.0, 5.0, 50.0] {
        let mut prev = f64::INFINITY;
        for k in 0..200 {
            let sigma = 0.01 * 1.05f64.powi(k);
            let d = exact_gaussian_delta(eps, sigma, 1.0);
            assert!((0.0..=1.0).contains(&d), "eps={eps} sigma={sigma}: {d}");
            assert!(
                d <= prev,
                "not decreasing in sigma at eps={eps} sigma={sigma}"
            );
            prev = d;
        }
    }
    let mut prev = f64::INFINITY;
    for k in 0..100 {
        let eps = 0.05 * f64::from(k);
        let d = exact_gaussian_delta(eps, 1.3, 1.0);
        assert!(d <= prev, "not decreasing in eps at {eps}");
        prev = d;
    }
}

/// Independent check of the closed form: the hockey-stick divergence
/// int max(0, p(x) - e^eps q(x)) dx with p = N(0, sigma^2), q = N(Delta, sigma^2),
/// by composite Simpson quadrature (relative 1e-6).
#[test]
fn exact_delta_matches_hockey_stick_quadrature() {
    let pdf = |x: f64, m: f64, s: f64| {
        (-(x - m) * (x - m) / (2.0 * s * s)).exp() / (s * (2.0 * std::f64::consts::PI).sqrt())
    };
    for &(eps, sigma, sens) in &[
        (0.5f64, 1.0, 1.0),
        (1.0, 2.0, 1.5),
        (3.0, 0.7, 1.0),
        (0.1, 5.0, 1.0),
    ] {
        let (lo, hi) = (-14.0 * sigma, sens + 14.0 * sigma);
        let m = 400_000usize;
        let h = (hi - lo) / m as f64;
        let g = |x: f64| (pdf(x, 0.0, sigma) - eps.exp() * pdf(x, sens, sigma)).max(0.0);
        let mut acc = g(lo) + g(hi);
        for i in 1..m {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            acc += w * g(lo + i as f64 * h);
        }
        let quad = acc * h / 3.0;
        let exact = exact_gaussian_delta(eps, sigma, sens);
        assert!(
            ((exact - quad) / quad).abs() < 1e-6,
            "eps={eps} sigma={sigma}: {exact} vs {quad}"
        );
    }
}

/// Huge eps (e^eps overflows f64) and far tails stay finite, in [0, 1],
/// continuous with moderate eps, and the ZWB sigma is still private there.
#[test]
fn exact_delta_is_stable_for_huge_eps() {
    for &eps in &[100.0, 709.0, 800.0, 5000.0] {
        let sigma = zwb_gaussian_sigma(eps, 1e-10, 1.0).unwrap();
        let d = exact_gaussian_delta(eps, sigma, 1.0);
        assert!(
            d.is_finite() && (0.0..=1e-10).contains(&d),
            "eps={eps}: {d}"
        );
        // A sigma far too small: the profile must be large, not NaN or 0 - 0.
        let d_small = exact_gaussian_delta(eps, 1e-3, 1.0);
        assert!(d_small.is_finite() && d_small > 0.5, "eps={eps}: {d_small}");
    }
    // Across the e^eps overflow (e^710 = inf in f64), at sigma = Delta/sqrt(2*709.5)
    // where the privacy loss is centred near eps. mpmath (50 digits) gives
    // 0.494709220292646 (eps = 709) and 0.484126419664743 (eps = 710).
    let sigma = 1.0 / (2.0f64 * 709.5).sqrt();
    let a = exact_gaussian_delta(709.0, sigma, 1.0);
    let b = exact_gaussian_delta(710.0, sigma, 1.0);
    assert!((a - 0.494_709_220_292_646).abs() < 1e-9, "eps=709: {a}");
    assert!((b - 0.484_126_419_664_743).abs() < 1e-9, "eps=710: {b}");
}

/// The classical sigma sqrt(2 ln(1.25/delta)) Delta/eps is private by the exact
/// criterion for eps <= 1, and refuses eps > 1.
#[test]
fn classical_sigma_private_for_eps_up_to_one_and_refused_above() {
    for &delta in &DELTAS {
        for &eps in &[0.01, 0.1, 0.5, 1.0] {
            let sigma = classical_gaussian_sigma(eps, delta, 1.0).unwrap();
            assert!(
                exact_gaussian_delta(eps, sigma, 1.0) <= delta,
                "eps={eps} delta={delta}"
            );
        }
    }
    let s = classical_gaussian_sigma(1.0, 1e-5, 2.0).unwrap();
    assert!((s - 2.0 * (2.0 * 125_000f64.ln()).sqrt()).abs() < 1e-12);
    assert!(matches!(
        classical_gaussian_sigma(1.5, 1e-5, 1.0),
        Err(CalibrationError::EpsilonOutOfRange { .. })
    ));
}

/// Invalid inputs are errors, not NaNs.
#[test]
fn invalid_inputs_are_rejected() {
    use CalibrationError::*;
    for eps in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            zwb_gaussian_sigma(eps, 1e-5, 1.0),
            Err(InvalidEpsilon(_))
        ));
        assert!(matches!(l2_laplace_scale(eps, 1.0), Err(InvalidEpsilon(_))));
        assert!(matches!(
            classical_gaussian_sigma(eps, 1e-5, 1.0),
            Err(InvalidEpsilon(_))
        ));
    }
    for delta in [0.0, -1e-5, 0.5, 0.7, f64::NAN] {
        assert!(
            matches!(lowy_c_delta(delta), Err(InvalidDelta { .. })),
            "delta={delta}"
        );
        assert!(matches!(
            zwb_gaussian_sigma(1.0, delta, 1.0),
            Err(InvalidDelta { .. })
        ));
    }
    for sens in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            zwb_gaussian_sigma(1.0, 1e-5, sens),
            Err(InvalidSensitivity(_))
        ));
        assert!(matches!(
            l2_laplace_scale(1.0, sens),
            Err(InvalidSensitivity(_))
        ));
    }
    assert_eq!(l2_laplace_scale(0.5, 0.2).unwrap(), 0.4);
}
