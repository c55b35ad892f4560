//! The one-run estimator (`audit::one_run`) tested as an estimator: many
//! independent one-run audits of mechanisms exactly at their claim, and
//! the same mechanisms at half the noise.
//!
//! Each audit draws `M = 1000` canary inclusions `x_i` (each 1 with
//! probability 1/2), releases every canary's coordinate once through the
//! mechanism (changing one `x_i` changes one coordinate by 1: L1 and L2
//! sensitivity 1), scores canary `i` by its released coordinate, guesses the
//! top `K` "in" and the bottom `K` "out" and bounds `eps` at `ALPHA = 0.1`.
//! Mechanisms at their claim:
//! - randomised response on the inclusion bit, pure `eps = 1` (the
//!   mechanism the pure bound is tight for: given the released bits, each
//!   guess is correct with probability exactly `e/(1 + e)`, so the correct
//!   count is `Bin(r, e/(1 + e))` and the false-alarm rate sits just below
//!   `alpha`);
//! - Gaussian, `x_i + N(0, s^2)` with `s` the analytic calibration of
//!   `(1, 1e-5)`;
//! - Laplace, `x_i + Lap(1)`, pure `eps = 1`;
//! - leaky randomised response: with probability `1e-3` the bit in the
//!   clear, else randomised response at `eps = 1`: exactly `(1, 1e-3)`-DP,
//!   about one canary in the clear per audit, so the bound's `delta` term
//!   (`2 m delta = 2`) carries weight. Audited as if pure it raised 115
//!   false alarms (more than `alpha` allows); with the term, 13.
//!
//! **False-alarm rate of this file.** `AUDITS = 1000` seeded audits per
//! mechanism; a mechanism meeting its claim is flagged (`eps_lower > 1`)
//! with probability at most 0.1 per audit, so the count is dominated by
//! `Bin(1000, 0.1)`; the test fails above the upper end of its two-sided
//! 99.9% interval (computed below: 132, `P[Bin(1000, 0.1) > 132] <=
//! 0.0005`). A correct estimator fails a given check with probability at
//! most 0.0005 over the seeds; the seeds are fixed, so the file always
//! passes or always fails.
//!
//! **Power.** At half the noise (`eps = 2` for randomised response and
//! Laplace, `s/2` for the Gaussian, whose `eps` at `1e-5` is then 2.6) the
//! detection rates are printed (`cargo test -p audit --test one_run --
//! --nocapture`) and asserted above stated fractions below the measured
//! rates (docs/audit.md quotes them). Measured: false alarms 90, 0, 79 and
//! 13 of 1000 (randomised response, Gaussian, Laplace, leaky response);
//! half the noise detected 1000, 59, 1000 and 999 of 1000; asserted at
//! least 900, 30, 900 and 900.
//! The Gaussian's low rate is the method's, not the test's: a canary of
//! `mu = 1/s = 0.27` (0.54 at half the noise) is rarely among the top 100
//! of 1000 scores by a margin that certifies `eps > 1` from 200 guesses.

mod common;

use audit::one_run::{audit, OneRun};
use common::{canary_game, Canary};
use mechanisms::calibration::analytic_gaussian_sigma;

const ALPHA: f64 = 0.1;
const DELTA: f64 = 1e-5;
/// The leaky response's `delta`: about one canary in the clear per audit,
/// so the bound's `delta` term (`2 m delta = 2` here) carries weight.
const LEAK: f64 = 1e-3;
const CLAIM: f64 = 1.0;
/// Canaries per audit.
const M: usize = 1000;
/// Guesses on each side (`r = 2 K`).
const K: usize = 100;
/// Audits per mechanism.
const AUDITS: u64 = 1000;

/// The delta of the claim each mechanism is audited against.
fn claim_delta(mechanism: Canary) -> f64 {
    match mechanism {
        Canary::Gaussian { .. } => DELTA,
        Canary::LeakyResponse { leak, .. } => leak,
        _ => 0.0,
    }
}

/// One one-run audit of `mechanism` from `seed`.
fn one_audit(mechanism: Canary, seed: u64) -> OneRun {
    let (included, scores) = canary_game(mechanism, M, seed);
    audit(&scores, &included, K, K, claim_delta(mechanism), ALPHA)
}

/// How many of `AUDITS` audits flag `mechanism` against the claim `eps = 1`.
fn flags(mechanism: Canary, base: u64) -> (u64, f64) {
    let mut mean = 0.0;
    let count = (0..AUDITS)
        .filter(|&i| {
            let a = one_audit(mechanism, base + i);
            mean += a.eps_lower / AUDITS as f64;
            a.eps_lower > CLAIM
        })
        .count() as u64;
    (count, mean)
}

/// The smallest `c` with `P[Bin(n, p) > c] <= a`, by exact summation.
fn binomial_upper(n: u64, p: f64, a: f64) -> u64 {
    let mut ln_pmf = n as f64 * (1.0 - p).ln();
    let mut cdf = ln_pmf.exp();
    let mut c = 0;
    while 1.0 - cdf > a {
        ln_pmf += ((n - c) as f64 / (c + 1) as f64).ln() + (p / (1.0 - p)).ln();
        cdf += ln_pmf.exp();
        c += 1;
    }
    c
}

#[test]
fn false_alarms_stay_within_alpha_and_half_the_noise_is_detected() {
    let max_false = binomial_upper(AUDITS, ALPHA, 0.0005);
    assert_eq!(max_false, 132);
    let sigma = analytic_gaussian_sigma(CLAIM, DELTA, 1.0).unwrap();
    // (name, at the claim, at half the noise, least detection rate asserted)
    let cases = [
        (
            "randomised response",
            Canary::RandomizedResponse { eps: CLAIM },
            Canary::RandomizedResponse { eps: 2.0 * CLAIM },
            0.9,
        ),
        (
            "Gaussian",
            Canary::Gaussian { sigma },
            Canary::Gaussian { sigma: sigma / 2.0 },
            0.03,
        ),
        (
            "Laplace",
            Canary::Laplace { scale: 1.0 / CLAIM },
            Canary::Laplace { scale: 0.5 / CLAIM },
            0.9,
        ),
        (
            "leaky randomised response",
            Canary::LeakyResponse {
                eps: CLAIM,
                leak: LEAK,
            },
            Canary::LeakyResponse {
                eps: 2.0 * CLAIM,
                leak: LEAK,
            },
            0.9,
        ),
    ];
    let mut failures = Vec::new();
    for (k, (name, exact, half, least)) in cases.into_iter().enumerate() {
        let base = 20_261_128 + 10_000 * k as u64;
        let (false_alarms, mean_exact) = flags(exact, base);
        let (detected, mean_half) = flags(half, base + 5_000);
        println!(
            "{name}: false alarms {false_alarms}/{AUDITS} (mean eps_lower {mean_exact:.3}); \
             half the noise detected {detected}/{AUDITS} (mean eps_lower {mean_half:.3})"
        );
        if false_alarms > max_false {
            failures.push(format!("{name}: {false_alarms} false alarms > {max_false}"));
        }
        if (detected as f64) < least * AUDITS as f64 {
            failures.push(format!("{name}: detected {detected} < {least} x {AUDITS}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
