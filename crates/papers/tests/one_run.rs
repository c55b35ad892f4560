//! The canary runs of the one-run audits (`papers::one_run`): the
//! calibration never depends on which canaries were included, the scores
//! carry the canaries' signal, and bad settings are refused.
//!
//! Deterministic (fixed seeds); the statistical checks allow 6 standard
//! errors, which a correct run misses with probability below 1e-8.

use dpcore::{PrivacyParams, RunFailure};
use papers::bassily::one_run::{nsgd, Calibration, NsgdCanaries};
use papers::lowy_razaviyayn::one_run::{output_perturbation, OutputPerturbationCanaries};
use papers::one_run::CanaryRun;

fn nsgd_setting(noise_factor: f64, run_seed: u64) -> NsgdCanaries {
    NsgdCanaries {
        n: 4000,
        d: 400,
        privacy: PrivacyParams {
            eps: 1.0,
            delta: 1e-12,
        },
        r_factor: 1.0,
        canaries: 256,
        calibration: Calibration::Accountant,
        noise_factor,
        data_seed: 7,
        run_seed,
    }
}

/// `(mean score of the included - of the excluded, its standard error)`.
fn separation(run: &CanaryRun) -> (f64, f64) {
    let side = |inc: bool| -> (f64, f64, f64) {
        let s: Vec<f64> = run
            .scores
            .iter()
            .zip(&run.included)
            .filter(|(_, &i)| i == inc)
            .map(|(s, _)| *s)
            .collect();
        let k = s.len() as f64;
        let mean = s.iter().sum::<f64>() / k;
        let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
        (mean, var, k)
    };
    let ((m1, v1, k1), (m0, v0, k0)) = (side(true), side(false));
    (m1 - m0, (v1 / k1 + v0 / k0).sqrt())
}

/// Different inclusions (different run seeds) give the same schedule, noise
/// scale and accountant eps: the data set always has the study's n records.
#[test]
fn the_calibration_does_not_depend_on_the_inclusions() {
    let a = nsgd(&nsgd_setting(1.0, 1)).unwrap();
    let b = nsgd(&nsgd_setting(1.0, 2)).unwrap();
    assert_ne!(a.included, b.included);
    assert_eq!((a.noise_scale, a.run_eps), (b.noise_scale, b.run_eps));
    assert_eq!(a.details, b.details);
    assert!((a.run_eps - 1.0).abs() < 1e-3, "{}", a.run_eps);
    let half = nsgd(&nsgd_setting(0.5, 1)).unwrap();
    assert_eq!(half.noise_scale, 0.5 * a.noise_scale);
    assert!(half.run_eps > 1.5, "{}", half.run_eps);
}

/// Once the data's expected pull is removed, an included canary scores
/// `signal = eta L (T + 1)/n` more than an excluded one on average (the
/// projection onto `B(0, 1)` does not bind here), at the claim and at a
/// tenth of the noise; without the correction the data's column sums
/// would dominate the scores.
#[test]
fn nsgd_scores_carry_the_canaries() {
    for factor in [1.0, 0.1] {
        let run = nsgd(&nsgd_setting(factor, 3)).unwrap();
        let (diff, se) = separation(&run);
        assert!(
            (diff - run.signal).abs() < 6.0 * se,
            "{factor}: {diff} vs {} (se {se})",
            run.signal
        );
        if factor == 0.1 {
            assert!(diff > 3.0 * se, "{diff} vs se {se}");
        }
    }
}

/// The release is the mean plus noise: once the data's part is removed an
/// included canary scores `+1/n` and an excluded one `-1/n`, so the mean
/// difference is `2/n` within 6 standard errors.
#[test]
fn output_perturbation_scores_are_the_canary_shift_plus_noise() {
    let s = OutputPerturbationCanaries {
        n: 2000,
        d: 128,
        privacy: PrivacyParams {
            eps: 1.0,
            delta: 1e-6,
        },
        canaries: 128,
        noise_factor: 0.05,
        data_seed: 11,
        run_seed: 12,
    };
    let run = output_perturbation(&s).unwrap();
    let (diff, se) = separation(&run);
    assert!((diff - 2.0 / 2000.0).abs() < 6.0 * se, "{diff} vs se {se}");
    assert_eq!(run.signal, 2.0 / 2000.0);
    assert!(run.run_eps > 10.0, "{}", run.run_eps);
    let claim = output_perturbation(&OutputPerturbationCanaries {
        noise_factor: 1.0,
        ..s
    })
    .unwrap();
    assert_eq!(claim.run_eps, 1.0);
    assert!((claim.noise_scale / run.noise_scale - 20.0).abs() < 1e-9);
}

#[test]
fn canaries_that_do_not_fit_are_refused() {
    let refused = |s: NsgdCanaries| matches!(nsgd(&s), Err(RunFailure::InvalidParameters(_)));
    assert!(refused(NsgdCanaries {
        d: 256,
        ..nsgd_setting(1.0, 1)
    }));
    assert!(refused(NsgdCanaries {
        canaries: 4000,
        d: 5000,
        ..nsgd_setting(1.0, 1)
    }));
    assert!(refused(nsgd_setting(0.0, 1)));
    assert!(refused(nsgd_setting(1.5, 1)));
}

/// The smallest sampled `eps` whose `delta` meets `delta`.
fn profile_eps(profile: &[(f64, f64)], delta: f64) -> f64 {
    profile
        .iter()
        .find(|p| p.1 <= delta)
        .map_or(f64::INFINITY, |p| p.0)
}

/// The certified curve is the calibrated noise's, whatever `noise_factor`
/// runs, and it certifies the claim: NSGD's by the PLD accountant at most
/// the entry's RDP eps and not far below it (in units of `L` instead of the
/// replace-one `2L` it was that of twice the noise, 0.55 here, and a
/// correct run rejected it); output perturbation's the exact Gaussian
/// profile of its sigma, or the one point `(eps, 0)` at `delta = 0`.
#[test]
fn the_certified_profile_is_the_calibrated_noise_curve() {
    let full = nsgd(&nsgd_setting(1.0, 1)).unwrap();
    let half = nsgd(&nsgd_setting(0.5, 1)).unwrap();
    assert_eq!(full.certified_profile, half.certified_profile);
    let eps = profile_eps(&full.certified_profile, 1e-12);
    println!("nsgd: PLD eps {eps} at 1e-12 for the claim eps 1");
    assert!((0.8..=1.0).contains(&eps), "{eps}");
    let op = |delta: f64| OutputPerturbationCanaries {
        n: 2000,
        d: 128,
        privacy: PrivacyParams { eps: 1.0, delta },
        canaries: 128,
        noise_factor: 0.5,
        data_seed: 11,
        run_seed: 12,
    };
    let gauss = output_perturbation(&op(1e-6)).unwrap();
    let eps = profile_eps(&gauss.certified_profile, 1e-6);
    println!("output perturbation: exact eps {eps} at 1e-6 for the claim eps 1");
    assert!((0.7..=1.0).contains(&eps), "{eps}");
    let pure = output_perturbation(&op(0.0)).unwrap();
    assert_eq!(pure.certified_profile, vec![(1.0, 0.0)]);
}
