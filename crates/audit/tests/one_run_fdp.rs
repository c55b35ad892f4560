//! The one-run `f`-DP test (`audit::one_run_fdp`) tested as an estimator:
//! many independent one-run audits of mechanisms against the trade-off
//! curve each one truly has, and of the same mechanisms at half the noise.
//!
//! The game is `tests/one_run.rs`'s: `M = 1000` canary inclusions, each
//! canary's coordinate released once (sensitivity 1), the top `K` scores
//! guessed "in" and the bottom `K` "out", `ALPHA = 0.1`. The hypotheses are
//! the curves an accountant would certify for the calibrated noise:
//! - Gaussian `x + N(0, s^2)`, `s` the analytic calibration of `(1, 1e-5)`:
//!   `mu = 1/s`-GDP, tested as [`Tradeoff::Gaussian`] and as the exact
//!   privacy profile sampled on a grid ([`Tradeoff::Profile`]);
//! - Laplace `x + Lap(1)`: its exact profile `delta(eps)` on the grid;
//! - randomised response at `eps = 1`: the one point `(1, 0)` (its curve
//!   is exactly `f_(1, 0)`).
//!
//! **False-alarm rate of this file.** 1000 seeded audits per mechanism; a
//! mechanism meeting its curve is rejected with probability below 0.1 per
//! audit, so the count is dominated by `Bin(1000, 0.1)`; each check fails
//! above 132 (`P[Bin(1000, 0.1) > 132] <= 0.0005`, as in
//! `tests/one_run.rs`). Five such checks: a correct test fails this file
//! with probability at most 0.0025 over the seeds; the seeds are fixed.
//!
//! **Power.** Half the noise (`s/2`, `Lap(1/2)`, response at `eps = 2`) is
//! tested against the calibrated curve. Measured (2026-11-28, `cargo test
//! -p audit --test one_run_fdp -- --nocapture`): false alarms 20 (GDP), 9
//! (Gaussian profile), 56 (Laplace), 50 (response) of 1000; half the noise
//! rejected 849, 838, 1000 and 999 of 1000; asserted at least 750, 750,
//! 900 and 900. The `(eps, delta)` test of `tests/one_run.rs` detects the
//! same half-noise Gaussian 59 times in 1000 (its own seeds): the curve, not
//! the game, was its limit.
//!
//! **Where the assumption fails.** A GDP hypothesis fitted to the claim
//! `(1, 1e-5)` (the `mu` whose GDP profile meets it) is not a curve Laplace
//! noise at `eps = 1` has: Laplace is `(1, 0)`-DP, yet far from that `mu`
//! in the middle of the curve, where the game looks. The test rejects it in
//! most audits (measured 894 of 1000, asserted at least 800; its own
//! profile 64, within the 132 above): a GDP
//! fit is a hypothesis about the mechanism's shape, sound only for
//! mechanisms that have it, which is why `runner one-run` tests the
//! accountant's own profile.

mod common;

use audit::one_run::{guess, score_guesses};
use audit::one_run_fdp::{rejects, Tradeoff};
use common::{canary_game, Canary};
use mechanisms::calibration::{analytic_gaussian_sigma, exact_gaussian_delta};
use mechanisms::gdp::gdp_mu;
use mechanisms::pld::laplace_delta;

const ALPHA: f64 = 0.1;
const DELTA: f64 = 1e-5;
const M: usize = 1000;
const K: usize = 100;
const AUDITS: u64 = 1000;
/// `P[Bin(1000, 0.1) > 132] <= 0.0005` (tests/one_run.rs computes it).
const MAX_FALSE: u64 = 132;

/// `(r, v)` of one audit of `mechanism` from `seed`.
fn one_game(mechanism: Canary, seed: u64) -> (usize, usize) {
    let (included, scores) = canary_game(mechanism, M, seed);
    score_guesses(&guess(&scores, K, K), &included)
}

/// How many of `AUDITS` audits of `mechanism` reject `curve`.
fn rejections(mechanism: Canary, curve: &Tradeoff, base: u64) -> u64 {
    (0..AUDITS)
        .filter(|&i| {
            let (r, v) = one_game(mechanism, base + i);
            rejects(curve, M, r, v, ALPHA)
        })
        .count() as u64
}

/// A privacy profile sampled at `eps = 0, 0.02, ..., 10`.
fn profile(delta: impl Fn(f64) -> f64) -> Tradeoff {
    Tradeoff::Profile {
        points: (0..=500)
            .map(|j| {
                let eps = 0.02 * j as f64;
                (eps, delta(eps).clamp(0.0, 1.0))
            })
            .collect(),
    }
}

#[test]
fn false_alarms_stay_within_alpha_and_half_the_noise_is_rejected() {
    let sigma = analytic_gaussian_sigma(1.0, DELTA, 1.0).unwrap();
    let gaussian_profile = profile(|e| exact_gaussian_delta(e, sigma, 1.0));
    // (name, at the curve, at half the noise, the curve, least rejections
    // of the half noise asserted)
    let cases = [
        (
            "Gaussian, GDP",
            Canary::Gaussian { sigma },
            Canary::Gaussian { sigma: sigma / 2.0 },
            Tradeoff::Gaussian { mu: 1.0 / sigma },
            750,
        ),
        (
            "Gaussian, profile",
            Canary::Gaussian { sigma },
            Canary::Gaussian { sigma: sigma / 2.0 },
            gaussian_profile,
            750,
        ),
        (
            "Laplace, profile",
            Canary::Laplace { scale: 1.0 },
            Canary::Laplace { scale: 0.5 },
            profile(|e| laplace_delta(e, 1.0)),
            900,
        ),
        (
            "randomised response, (1, 0)",
            Canary::RandomizedResponse { eps: 1.0 },
            Canary::RandomizedResponse { eps: 2.0 },
            Tradeoff::Profile {
                points: vec![(1.0, 0.0)],
            },
            900,
        ),
    ];
    let mut failures = Vec::new();
    for (k, (name, exact, half, curve, least)) in cases.into_iter().enumerate() {
        let base = 20_261_128 + 10_000 * k as u64;
        let false_alarms = rejections(exact, &curve, base);
        let detected = rejections(half, &curve, base + 5_000);
        println!(
            "{name}: false alarms {false_alarms}/{AUDITS}; half the noise rejected {detected}/{AUDITS}"
        );
        if false_alarms > MAX_FALSE {
            failures.push(format!("{name}: {false_alarms} false alarms > {MAX_FALSE}"));
        }
        if detected < least {
            failures.push(format!("{name}: rejected {detected} < {least}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The misuse the module doc warns of: a GDP curve fitted to the `(1,
/// 1e-5)` claim, tested on Laplace noise that meets the claim.
#[test]
fn a_gdp_fit_is_no_curve_laplace_has() {
    let mu = gdp_mu(1.0, DELTA).unwrap();
    let fitted = Tradeoff::Gaussian { mu };
    let own = profile(|e| laplace_delta(e, 1.0));
    let laplace = Canary::Laplace { scale: 1.0 };
    let base = 20_261_128 + 90_000;
    let against_fit = rejections(laplace, &fitted, base);
    let against_own = rejections(laplace, &own, base);
    println!("Laplace(1): rejects the GDP fit mu = {mu:.4} in {against_fit}/{AUDITS}, its own profile in {against_own}/{AUDITS}");
    assert!(against_own <= MAX_FALSE, "{against_own}");
    assert!(against_fit >= 800, "{against_fit}");
}
