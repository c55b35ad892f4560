//! The auditor tested as an estimator (issue 37): each estimator, as the
//! runner applies it ([`audit::estimate`]: the Gaussian-DP fit falls back
//! to the threshold audit where the runs show atoms), on five mechanisms
//! exactly at their claim, over many independent audits at a false-alarm
//! rate large enough to measure.
//!
//! Mechanisms (`D` with the canary, `D'` without; every claim is the
//! mechanism's own exact `(eps, delta)`, so any slack in an estimator shows
//! as false alarms):
//! - Laplace: `1 + Lap(1)` vs `Lap(1)`, pure `eps = 1`;
//! - Gaussian: `1 + N(0, s^2)` vs `N(0, s^2)`, `s` the analytic calibration
//!   of `(1, 1e-5)`;
//! - clipped Gaussian: the same clipped to `[-0.5, 1.5]` (about 45% of the
//!   runs on a boundary, as in González et al.'s simplex baselines), claim
//!   its own exact `eps` at `1e-5` (0.262, far below the unclipped 1);
//! - randomized response: a bit, kept with probability `e/(1 + e)`, pure
//!   `eps = 1` (and `(1, 1e-5)` for the Gaussian-DP fit, which needs `delta > 0`);
//! - Poisson-subsampled Gaussian (add/remove, `q = 0.2`, noise `s = 1`):
//!   `(1 - q) N(0, 1) + q N(1, 1)` vs `N(0, 1)`, claim its exact `eps` at
//!   `1e-5` (both directions).
//!
//! **False-alarm rate of this file.** Each audit runs at `ALPHA = 0.1` with
//! 1 000 estimation runs a side; each (mechanism, estimator) runs
//! `AUDITS = 1000` seeded audits, and the test asserts that the false
//! alarms do not exceed 125, the upper end of the two-sided 99% binomial
//! interval of `Bin(1000, 0.1)` (`P[Bin(1000, 0.1) > 125] = 0.0045`). A
//! correct estimator (false-alarm rate at most 0.1) therefore fails a given
//! check with probability at most 0.0045 over the seeds; the seeds are
//! fixed, so the file either always passes or always fails. The measured
//! counts are printed (`cargo test -p audit --test estimators --
//! --nocapture`) and quoted in docs/audit.md.
//!
//! At half the noise (double `eps` for Laplace and randomized response) the
//! detection rates against the same claims are printed, not asserted (they
//! are the estimators' power at these run counts, quoted in docs/audit.md).

use audit::gdp::{gaussian_fit_refusal, gdp_audit};
use audit::power::{smallest_detectable_gaussian_eps_95, smallest_detectable_laplace_eps_95, Z_95};
use audit::{estimate, Method};
use mechanisms::calibration::analytic_gaussian_sigma;
use mechanisms::gdp::{gaussian_mu, gdp_epsilon, gdp_mu};
use mechanisms::normal::normal_cdf;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rand_pcg::Pcg64;

const ALPHA: f64 = 0.1;
const DELTA: f64 = 1e-5;
/// Runs a side per audit (half select, half estimate).
const RUNS: usize = 2000;
/// Audits per (mechanism, estimator).
const AUDITS: usize = 1000;
/// Upper end of the two-sided 99% interval of Bin(AUDITS, ALPHA).
const MAX_FALSE_ALARMS: usize = 125;

const CLIP: (f64, f64) = (-0.5, 1.5);
const SUBSAMPLING: f64 = 0.2;

/// One mechanism: a release on `D` (`canary = true`) or `D'`.
#[derive(Debug, Clone, Copy)]
enum Mechanism {
    Laplace { scale: f64 },
    Gaussian { sigma: f64 },
    ClippedGaussian { sigma: f64 },
    RandomizedResponse { eps: f64 },
    SubsampledGaussian { sigma: f64 },
}

impl Mechanism {
    fn release(self, canary: bool, rng: &mut Pcg64) -> f64 {
        let shift = if canary { 1.0 } else { 0.0 };
        let normal = |rng: &mut Pcg64| -> f64 { StandardNormal.sample(rng) };
        match self {
            Mechanism::Laplace { scale } => {
                let u: f64 = rng.random::<f64>() - 0.5;
                shift - scale * u.signum() * (1.0 - 2.0 * u.abs()).ln()
            }
            Mechanism::Gaussian { sigma } => shift + sigma * normal(rng),
            Mechanism::ClippedGaussian { sigma } => {
                (shift + sigma * normal(rng)).clamp(CLIP.0, CLIP.1)
            }
            Mechanism::RandomizedResponse { eps } => {
                let keep = rng.random::<f64>() < eps.exp() / (1.0 + eps.exp());
                if keep == canary {
                    1.0
                } else {
                    0.0
                }
            }
            Mechanism::SubsampledGaussian { sigma } => {
                let sampled = canary && rng.random::<f64>() < SUBSAMPLING;
                (if sampled { 1.0 } else { 0.0 }) + sigma * normal(rng)
            }
        }
    }

    fn runs(self, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let d = (0..RUNS).map(|_| self.release(true, &mut rng)).collect();
        let dp = (0..RUNS).map(|_| self.release(false, &mut rng)).collect();
        (d, dp)
    }
}

/// Smallest `eps` with `delta_of(eps) <= delta` (`delta_of` decreasing).
fn eps_at(delta: f64, delta_of: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 50.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if delta_of(mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

fn tail(x: f64) -> f64 {
    normal_cdf(-x)
}

/// Exact `delta(eps)` of `1 + N(0, s^2)` vs `N(0, s^2)` clipped to [`CLIP`]
/// (symmetric in the two directions): the interior privacy loss
/// `(2x - 1)/(2 s^2)` is increasing, so the worst event is `{x > t}` with
/// the upper atom, or the upper atom alone when `t` is past it.
fn clipped_delta(s: f64, eps: f64) -> f64 {
    let (lo, hi) = CLIP;
    let p_above = |t: f64, shift: f64| tail((t - shift) / s);
    let atom = p_above(hi, 1.0) - eps.exp() * p_above(hi, 0.0);
    let t = 0.5 + eps * s * s;
    let interior = if t >= hi {
        0.0
    } else {
        let t = t.max(lo);
        (p_above(t, 1.0) - p_above(hi, 1.0)) - eps.exp() * (p_above(t, 0.0) - p_above(hi, 0.0))
    };
    atom.max(0.0) + interior.max(0.0)
}

/// Exact `delta(eps)` of the Poisson-subsampled Gaussian pair, the larger
/// of its two directions. `P = (1-q) N(0, s^2) + q N(1, s^2)`, `Q = N(0,
/// s^2)`; the loss `ln(1 - q + q e^((2x - 1)/(2 s^2)))` is increasing in `x`.
fn subsampled_delta(s: f64, eps: f64) -> f64 {
    let q = SUBSAMPLING;
    let p_above = |t: f64| (1.0 - q) * tail(t / s) + q * tail((t - 1.0) / s);
    let q_above = |t: f64| tail(t / s);
    // P over Q: loss > eps where e^((2x-1)/(2 s^2)) > (e^eps - 1 + q)/q.
    let forward = {
        let t = 0.5 + s * s * ((eps.exp() - 1.0 + q) / q).ln();
        p_above(t) - eps.exp() * q_above(t)
    };
    // Q over P: loss < -eps where e^((2x-1)/(2 s^2)) < (e^-eps - 1 + q)/q.
    let inner = ((-eps).exp() - 1.0 + q) / q;
    let backward = if inner <= 0.0 {
        0.0
    } else {
        let t = 0.5 + s * s * inner.ln();
        (1.0 - q_above(t)) - eps.exp() * (1.0 - p_above(t))
    };
    forward.max(backward).max(0.0)
}

/// False alarms (and the largest bound) of `method` over [`AUDITS`] audits
/// of `mechanism` against `(claim, delta)`.
fn alarms(
    mechanism: Mechanism,
    method: Method,
    claim: f64,
    delta: f64,
    seed: u64,
) -> (usize, f64, usize) {
    let (mut flagged, mut worst, mut refused) = (0, f64::NEG_INFINITY, 0);
    for i in 0..AUDITS {
        let (d, dp) = mechanism.runs(seed * 1_000_003 + i as u64);
        let b = estimate(&d, &dp, method, delta, ALPHA);
        flagged += usize::from(b.eps_lower > claim);
        worst = worst.max(b.eps_lower);
        refused += usize::from(b.fit_refused.is_some());
    }
    (flagged, worst, refused)
}

struct Case {
    name: &'static str,
    at_claim: Mechanism,
    half_noise: Mechanism,
    claim: f64,
    delta: f64,
    /// Whether the Gaussian-DP fit is run on it (it needs `delta > 0`).
    gdp_delta: Option<f64>,
}

fn cases() -> Vec<Case> {
    let s = analytic_gaussian_sigma(1.0, DELTA, 1.0).unwrap();
    let clipped_claim = eps_at(DELTA, |e| clipped_delta(s, e));
    let sub_claim = eps_at(DELTA, |e| subsampled_delta(1.0, e));
    vec![
        Case {
            name: "Laplace",
            at_claim: Mechanism::Laplace { scale: 1.0 },
            half_noise: Mechanism::Laplace { scale: 0.5 },
            claim: 1.0,
            delta: 0.0,
            gdp_delta: None,
        },
        Case {
            name: "Gaussian",
            at_claim: Mechanism::Gaussian { sigma: s },
            half_noise: Mechanism::Gaussian { sigma: s / 2.0 },
            claim: 1.0,
            delta: DELTA,
            gdp_delta: Some(DELTA),
        },
        Case {
            name: "clipped Gaussian",
            at_claim: Mechanism::ClippedGaussian { sigma: s },
            half_noise: Mechanism::ClippedGaussian { sigma: s / 2.0 },
            claim: clipped_claim,
            delta: DELTA,
            gdp_delta: Some(DELTA),
        },
        Case {
            name: "randomized response",
            at_claim: Mechanism::RandomizedResponse { eps: 1.0 },
            half_noise: Mechanism::RandomizedResponse { eps: 2.0 },
            claim: 1.0,
            delta: 0.0,
            gdp_delta: Some(DELTA),
        },
        Case {
            name: "Poisson-subsampled Gaussian",
            at_claim: Mechanism::SubsampledGaussian { sigma: 1.0 },
            half_noise: Mechanism::SubsampledGaussian { sigma: 0.5 },
            claim: sub_claim,
            delta: DELTA,
            gdp_delta: Some(DELTA),
        },
    ]
}

#[test]
fn the_exact_claims_are_what_the_mechanisms_spend() {
    let s = analytic_gaussian_sigma(1.0, DELTA, 1.0).unwrap();
    // Without the clip the formula is the Gaussian curve.
    let unclipped = gdp_epsilon(gaussian_mu(s, 1.0).unwrap(), DELTA).unwrap();
    assert!((unclipped - 1.0).abs() < 1e-6, "{unclipped}");
    let clipped = eps_at(DELTA, |e| clipped_delta(s, e));
    assert!(clipped < 0.3 && clipped > 0.2, "clipped eps {clipped}");
    // q -> 1 would be the plain Gaussian at s = 1 (eps 4.4 at 1e-5); q = 0.2 far less.
    let sub = eps_at(DELTA, |e| subsampled_delta(1.0, e));
    assert!(sub > 0.5 && sub < 2.5, "subsampled eps {sub}");
    println!("claims: clipped Gaussian {clipped:.4}, subsampled Gaussian {sub:.4}");
}

#[test]
fn every_estimator_keeps_its_false_alarm_rate_on_mechanisms_at_their_claim() {
    let mut failures = Vec::new();
    for (k, c) in cases().into_iter().enumerate() {
        let mut estimators = vec![(Method::Threshold, c.delta)];
        if let Some(delta) = c.gdp_delta {
            estimators.push((Method::GaussianDp, delta));
        }
        for (j, (method, delta)) in estimators.into_iter().enumerate() {
            let seed = 0x5eed_0037 + 10 * k as u64 + j as u64;
            let (flagged, worst, refused) = alarms(c.at_claim, method, c.claim, delta, seed);
            let (detected, _, _) = alarms(c.half_noise, method, c.claim, delta, seed + 5);
            println!(
                "{:<28} {:<10} claim eps {:.4} at {delta:e}: false alarms {flagged}/{AUDITS} \
                 (largest eps_lb {worst:.3}; fit refused in {refused}); half noise detected \
                 {detected}/{AUDITS}",
                c.name,
                format!("{method:?}"),
                c.claim
            );
            if flagged > MAX_FALSE_ALARMS {
                failures.push(format!("{} {method:?}: {flagged} false alarms", c.name));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The old, unguarded Gaussian-DP fit on a clipped release: it "certifies"
/// an `eps` far above what the release spends, and the runner's check
/// refuses it on the runs (the clip's atoms), so the threshold audit is used.
#[test]
fn the_old_gaussian_fit_on_a_clipped_release_is_refused() {
    let s = analytic_gaussian_sigma(1.0, DELTA, 1.0).unwrap();
    let truth = eps_at(DELTA, |e| clipped_delta(s, e));
    let m = Mechanism::ClippedGaussian { sigma: s };
    let mut rng_seed = 0x0c11_9000u64;
    let mut unguarded_alarms = 0;
    for _ in 0..20 {
        rng_seed += 1;
        let (d, dp) = {
            let mut rng = Pcg64::seed_from_u64(rng_seed);
            let n = 200_000;
            (
                (0..n)
                    .map(|_| m.release(true, &mut rng))
                    .collect::<Vec<_>>(),
                (0..n)
                    .map(|_| m.release(false, &mut rng))
                    .collect::<Vec<_>>(),
            )
        };
        let half = d.len() / 2;
        let old = gdp_audit(
            (&d[..half], &dp[..half]),
            (&d[half..], &dp[half..]),
            DELTA,
            1e-3,
        );
        unguarded_alarms += usize::from(old.eps_lower > truth);
        let why = gaussian_fit_refusal(&d, &dp).expect("the clip's atoms refuse the fit");
        assert!(why.contains("atoms"), "{why}");
        let guarded = estimate(&d, &dp, Method::GaussianDp, DELTA, 1e-3);
        assert_eq!(guarded.method, Method::Threshold);
        assert!(guarded.eps_lower <= truth, "{guarded:?} vs {truth}");
    }
    // At alpha = 1e-3 a valid bound would exceed the truth in about none of
    // 20 audits; the unguarded fit does in every one (its mu is the
    // unclipped Gaussian's, whose eps is 1, against the clipped 0.262).
    assert_eq!(unguarded_alarms, 20, "truth {truth}");
    // A Gaussian release with no atom is not refused.
    let (d, dp) = Mechanism::Gaussian { sigma: s }.runs(7);
    assert!(gaussian_fit_refusal(&d, &dp).is_none());
}

/// The 95% power means what it says: a mechanism at the reported
/// `detectable_eps_95` is flagged in at least 95% of audits of that size
/// (checked at 400 audits: 95% would give at most 20 misses on average; the
/// test allows 30, the upper end of the 99% binomial interval of
/// Bin(400, 0.05)).
#[test]
fn the_95_percent_power_is_reached() {
    let est = RUNS / 2;
    let audits = 400;
    let misses = |m: Mechanism, method: Method, claim: f64, delta: f64, seed: u64| {
        (0..audits)
            .filter(|i| {
                let (d, dp) = m.runs(seed + *i as u64);
                estimate(&d, &dp, method, delta, ALPHA).eps_lower <= claim
            })
            .count()
    };
    // Threshold audit, Gaussian reference, claim (1, 1e-5).
    let eps95 = smallest_detectable_gaussian_eps_95(1.0, est, DELTA, ALPHA).unwrap();
    let sigma = 1.0 / gdp_mu(eps95, DELTA).unwrap();
    let thr = misses(
        Mechanism::Gaussian { sigma },
        Method::Threshold,
        1.0,
        DELTA,
        0x9500,
    );
    // Gaussian-DP fit, the same reference.
    let gdp95 = audit::assess::smallest_detectable_gdp_eps_95(1.0, est, DELTA, ALPHA).unwrap();
    let sigma = 1.0 / gdp_mu(gdp95, DELTA).unwrap();
    let fit = misses(
        Mechanism::Gaussian { sigma },
        Method::GaussianDp,
        1.0,
        DELTA,
        0x9600,
    );
    // Threshold audit, Laplace reference, pure claim 1.
    let lap95 = smallest_detectable_laplace_eps_95(1.0, est, ALPHA).unwrap();
    let lap = misses(
        Mechanism::Laplace { scale: 1.0 / lap95 },
        Method::Threshold,
        1.0,
        0.0,
        0x9700,
    );
    println!(
        "95% power at {est} estimation runs, alpha {ALPHA} (spread {Z_95:.3}): threshold/Gaussian \
         eps {eps95:.3} missed {thr}/{audits}; Gaussian-DP fit eps {gdp95:.3} missed {fit}/{audits}; \
         threshold/Laplace eps {lap95:.3} missed {lap}/{audits}"
    );
    for (what, m) in [("threshold", thr), ("fit", fit), ("laplace", lap)] {
        assert!(m <= 30, "{what}: {m} misses of {audits}");
    }
}

/// As [`the_95_percent_power_is_reached`] at 1e4 estimation runs (about
/// 15 s in the dev profile): `cargo test -p audit --test estimators --
/// --ignored --nocapture`.
#[test]
#[ignore]
fn the_95_percent_power_is_reached_at_1e4_runs() {
    let (audits, est) = (400, 10_000usize);
    let runs = 2 * est;
    let sample = |m: Mechanism, seed: u64| {
        let mut rng = Pcg64::seed_from_u64(seed);
        let d: Vec<f64> = (0..runs).map(|_| m.release(true, &mut rng)).collect();
        let dp: Vec<f64> = (0..runs).map(|_| m.release(false, &mut rng)).collect();
        (d, dp)
    };
    let miss = |m: Mechanism, method: Method, claim: f64, delta: f64| {
        (0..audits)
            .filter(|i| {
                let (d, dp) = sample(m, 77 + *i as u64);
                estimate(&d, &dp, method, delta, ALPHA).eps_lower <= claim
            })
            .count()
    };
    let e1 = smallest_detectable_gaussian_eps_95(1.0, est, DELTA, ALPHA).unwrap();
    let m1 = miss(
        Mechanism::Gaussian {
            sigma: 1.0 / gdp_mu(e1, DELTA).unwrap(),
        },
        Method::Threshold,
        1.0,
        DELTA,
    );
    let e2 = audit::assess::smallest_detectable_gdp_eps_95(1.0, est, DELTA, ALPHA).unwrap();
    let m2 = miss(
        Mechanism::Gaussian {
            sigma: 1.0 / gdp_mu(e2, DELTA).unwrap(),
        },
        Method::GaussianDp,
        1.0,
        DELTA,
    );
    let e3 = smallest_detectable_laplace_eps_95(1.0, est, ALPHA).unwrap();
    let m3 = miss(
        Mechanism::Laplace { scale: 1.0 / e3 },
        Method::Threshold,
        1.0,
        0.0,
    );
    println!(
        "95% power at {est} estimation runs: threshold/Gaussian eps {e1:.3} missed {m1}; \
         Gaussian-DP fit eps {e2:.3} missed {m2}; threshold/Laplace eps {e3:.3} missed {m3} (of {audits})"
    );
    for (what, m) in [("threshold", m1), ("fit", m2), ("laplace", m3)] {
        assert!(m <= 30, "{what}: {m} misses of {audits}");
    }
}

/// The bootstrap of one audit's runs ([`audit::reflag`], what the runner's
/// per-statistic power uses) estimates how often an audit of that size
/// flags: on a Gaussian (both estimators), a clipped Gaussian and a Laplace
/// release, each in a setting where independent audits flag between about
/// 40% and 100% of the time, the mean bootstrap rate over 20 data sets
/// (100 replicates each) lies within 0.12 of the rate of 400 independent
/// audits. The standard error of the audits' rate is at most 0.025 and of
/// the mean bootstrap rate at most 0.5/sqrt(20) = 0.11 in the worst case
/// (about 0.03 as measured), so 0.12 is about 3.5 combined standard
/// errors: a correct bootstrap fails a case with probability below 0.001
/// (seeds fixed: always passes or always fails). The 95% call
/// ([`audit::Reflag::at_least_95`]) must also not be made where the
/// audits flag less than 80% of the time, in more than 2 of the 20 data
/// sets.
#[test]
fn the_bootstrap_tracks_the_flag_rate_of_independent_audits() {
    let (audits, datasets, replicates) = (400usize, 20usize, 100usize);
    let s = analytic_gaussian_sigma(1.0, DELTA, 1.0).unwrap();
    let clipped_claim = eps_at(DELTA, |e| clipped_delta(s, e));
    let gauss_sigma = |eps: f64| 1.0 / gdp_mu(eps, DELTA).unwrap();
    let cases: Vec<(&str, Mechanism, Method, f64, f64)> = vec![
        (
            "gaussian/threshold at eps 3",
            Mechanism::Gaussian {
                sigma: gauss_sigma(3.0),
            },
            Method::Threshold,
            1.0,
            DELTA,
        ),
        (
            "gaussian/threshold at eps 4",
            Mechanism::Gaussian {
                sigma: gauss_sigma(4.0),
            },
            Method::Threshold,
            1.0,
            DELTA,
        ),
        (
            "gaussian/fit at eps 1.5",
            Mechanism::Gaussian {
                sigma: gauss_sigma(1.5),
            },
            Method::GaussianDp,
            1.0,
            DELTA,
        ),
        (
            "clipped gaussian at half noise",
            Mechanism::ClippedGaussian { sigma: 0.5 * s },
            Method::GaussianDp,
            f64::NAN, // its exact eps at the claimed noise, below
            DELTA,
        ),
        (
            "laplace at eps 1.8",
            Mechanism::Laplace { scale: 1.0 / 1.8 },
            Method::Threshold,
            1.0,
            0.0,
        ),
    ];
    for (i, (what, m, method, claim, delta)) in cases.into_iter().enumerate() {
        let claim = if claim.is_nan() { clipped_claim } else { claim };
        let base = 0xB007_0000 + 0x1_0000 * i as u64;
        let truth = (0..audits)
            .filter(|k| {
                let (d, dp) = m.runs(base + *k as u64);
                estimate(&d, &dp, method, delta, ALPHA).eps_lower > claim
            })
            .count() as f64
            / audits as f64;
        let (mut sum, mut calls) = (0.0, 0);
        for k in 0..datasets {
            let (d, dp) = m.runs(base + 0x8000 + k as u64);
            let r = audit::reflag(&d, &dp, method, claim, delta, ALPHA, replicates, k as u64);
            sum += r.rate();
            calls += usize::from(r.at_least_95());
        }
        let boot = sum / datasets as f64;
        println!(
            "{what}: independent audits flag {truth:.3}; bootstrap mean {boot:.3}; 95% called in {calls}/{datasets}"
        );
        assert!(
            (boot - truth).abs() <= 0.12,
            "{what}: bootstrap {boot} vs audits {truth}"
        );
        if truth < 0.8 {
            assert!(
                calls <= 2,
                "{what}: 95% called in {calls} data sets at a rate of {truth}"
            );
        }
    }
}
