//! The peer race's library side (`papers::lowy_razaviyayn::peer_race::race`)
//! on a tiny data set: the noiseless GD task is plain GD, the noisy one uses
//! the accountant's scale and does not depend on the thread count, and output
//! perturbation releases the certified minimizer plus noise of the tight
//! scale. The command line (JSON, exit codes) is tested in the runner's
//! `tests/peer_race.rs`.

use std::path::PathBuf;

use datagen::logistic::{LabelledData, Logistic};
use dpcore::{Objective, PrivacyParams};
use papers::lowy_razaviyayn::peer_race::{
    race, synthetic_matrix, PeerRaceArgs, PeerTask, RaceCalibration,
};
use papers::wang::removal_margin::LabelledMatrix;
use solvers::full_batch_gd::FullBatchNoisyGd;

/// The race's synthetic file (`synthetic_matrix`).
fn matrix(n: usize, d: usize, seed: u64) -> LabelledMatrix {
    synthetic_matrix(n, d, seed)
}

fn args(task: PeerTask, file: PathBuf) -> PeerRaceArgs {
    PeerRaceArgs {
        file,
        task,
        mu: 0.05,
        eps: 1.0,
        delta: 1e-6,
        steps: 30,
        step_size: None,
        seed: 7,
        gtol: 1e-10,
        repeats: 3,
        threads: 1,
        noiseless: false,
        out: None,
    }
}

/// Plain GD on the regularized logistic loss, from the definition.
fn plain_gd(m: &LabelledMatrix, mu: f64, steps: u64) -> Vec<f64> {
    let (d, n) = (m.d, m.labels.len() as f64);
    let eta = 1.0 / (0.25 + mu);
    let mut w = vec![0.0; d];
    for _ in 0..steps {
        let mut g: Vec<f64> = w.iter().map(|v| mu * v).collect();
        for (row, &y) in m.features.chunks_exact(d).zip(&m.labels) {
            let margin: f64 = row.iter().zip(&w).map(|(a, b)| a * b).sum();
            let coef = -y / (1.0 + (y * margin).exp());
            g.iter_mut()
                .zip(row)
                .for_each(|(gj, xj)| *gj += coef * xj / n);
        }
        w.iter_mut().zip(&g).for_each(|(wj, gj)| *wj -= eta * gj);
    }
    w
}

#[test]
fn noiseless_gd_is_plain_gd_and_noisy_gd_uses_the_accountants_scale() {
    let m = matrix(700, 5, 1);
    let mut a = args(PeerTask::Gd, PathBuf::new());
    a.noiseless = true;
    a.repeats = 1;
    let report = race(&a, &m).unwrap();
    let expect = plain_gd(&m, a.mu, a.steps);
    let diff = report.runs[0]
        .w
        .iter()
        .zip(&expect)
        .map(|(u, v)| (u - v).abs())
        .fold(0.0, f64::max);
    assert!(
        diff <= 1e-12,
        "{diff}: {:?} vs {expect:?}",
        report.runs[0].w
    );
    assert!(!report.private);

    let problem = Logistic::from_data(
        LabelledData::from_rows(m.d, m.features.clone(), m.labels.clone()).unwrap(),
        a.mu,
    )
    .unwrap();
    assert_eq!(report.optimum, problem.minimizer());
    assert!(report.optimum_grad_norm <= 1e-10);
    assert_eq!(
        report.runs[0].excess_risk,
        problem.excess_risk(&report.runs[0].w)
    );

    a.noiseless = false;
    a.repeats = 3;
    let noisy = race(&a, &m).unwrap();
    let expected_cal = FullBatchNoisyGd::logistic(a.steps, a.mu)
        .calibrate(700, PrivacyParams::approx(a.eps, a.delta))
        .unwrap();
    assert_eq!(noisy.calibration, RaceCalibration::Gd(expected_cal));
    assert!(expected_cal.sigma > 0.0);
    assert_eq!(noisy.runs.len(), 3);
    assert_eq!(
        noisy.runs.iter().map(|r| r.seed).collect::<Vec<_>>(),
        [7, 8, 9]
    );
    assert_ne!(noisy.runs[0].w, noisy.runs[1].w);
    for r in &noisy.runs {
        assert!(r.excess_risk > 0.0 && r.seconds > 0.0);
        assert_eq!(r.excess_risk, problem.excess_risk(&r.w));
    }
    a.threads = 3;
    let three = race(&a, &m).unwrap();
    assert_eq!(three.threads, 3);
    for (x, y) in noisy.runs.iter().zip(&three.runs) {
        assert_eq!(x.w, y.w);
    }
}

#[test]
fn output_perturbation_releases_a_certified_centre_plus_noise_for_the_widened_sensitivity() {
    let m = matrix(400, 3, 2);
    let a = PeerRaceArgs {
        gtol: 1e-6,
        ..args(PeerTask::Op, PathBuf::new())
    };
    let report = race(&a, &m).unwrap();
    let (sensitivity, widening, gtol, scale) = match report.calibration {
        RaceCalibration::Op {
            sensitivity,
            widening,
            gtol,
            scale,
        } => (sensitivity, widening, gtol, scale),
        other => panic!("{other:?}"),
    };
    // The widening is 2 gtol / mu from the public target, not the achieved norm.
    assert_eq!(gtol, 1e-6);
    assert_eq!(widening, 2.0 * 1e-6 / 0.05);
    assert!((sensitivity - (2.0 / (0.05 * 400.0) + widening)).abs() < 1e-15);
    assert_eq!(scale, sensitivity / a.eps);
    for r in &report.runs {
        let cert = r.certified_grad_norm.expect("task op certifies its centre");
        assert!(cert <= 1e-6, "{cert}");
    }
    // ||z|| ~ Gamma(3, scale): each repetition moved away from w*, and the
    // noise is not absurd (P(Gamma(3, s) > 20 s) < 1e-5).
    for r in &report.runs {
        let z: f64 =
            r.w.iter()
                .zip(&report.optimum)
                .map(|(u, v)| (u - v).powi(2))
                .sum::<f64>()
                .sqrt();
        assert!(z > 0.0 && z < 20.0 * scale, "{z}");
        assert!(r.excess_risk > 0.0);
    }
    assert_ne!(report.runs[0].w, report.runs[1].w);
}
