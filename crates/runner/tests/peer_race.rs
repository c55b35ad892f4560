//! `runner peer-race` (the harness's side of `scripts/peers/race.py`) on a
//! tiny data file: the noiseless GD task is plain GD, the noisy one uses the
//! accountant's scale and does not depend on the thread count, output
//! perturbation releases the certified minimizer plus noise of the tight
//! scale, the JSON carries every repetition, and bad input exits with code 2
//! and a message that names the problem.

mod common;

use std::path::{Path, PathBuf};

use common::{run, stderr, Scratch};
use datagen::logistic::{LabelledData, Logistic};
use dpcore::{Objective, PrivacyParams};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use runner::peer_race::{race, PeerRaceArgs, PeerTask, RaceCalibration};
use runner::removal_margin::LabelledMatrix;
use solvers::full_batch_gd::FullBatchNoisyGd;

/// `n x d` rows in the unit ball with noisy linear labels.
fn matrix(n: usize, d: usize, seed: u64) -> LabelledMatrix {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let scale = row.iter().map(|v| v * v).sum::<f64>().sqrt().max(1.0);
        features.extend(row.iter().map(|v| v / scale));
        let logit = 3.0 * row[0] / scale + rng.random_range(-1.0..1.0);
        labels.push(if logit > 0.0 { 1.0 } else { -1.0 });
    }
    LabelledMatrix {
        d,
        features,
        labels,
    }
}

fn write_csv(m: &LabelledMatrix, path: &Path) {
    let mut s = String::from("label");
    (0..m.d).for_each(|j| s.push_str(&format!(",f{j}")));
    s.push('\n');
    for (row, y) in m.features.chunks_exact(m.d).zip(&m.labels) {
        s.push_str(&format!("{y}"));
        row.iter().for_each(|v| s.push_str(&format!(",{v:e}")));
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
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
        assert!(r.certified_grad_norm <= 1e-6, "{}", r.certified_grad_norm);
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

#[test]
fn cli_prints_json_with_every_repetition() {
    let s = Scratch::new("peer-race");
    let m = matrix(300, 4, 3);
    let csv = s.path("data.csv");
    write_csv(&m, &csv);
    let out_json = s.path("out/race.json");
    let o = run(std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
        .args([
            "peer-race",
            "--task",
            "gd",
            "--repeats",
            "4",
            "--steps",
            "5",
        ])
        .arg(&csv)
        .arg("--out")
        .arg(&out_json));
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert_eq!(printed, std::fs::read_to_string(&out_json).unwrap());
    for key in [
        "\"implementation\": \"harness\"",
        "\"task\": \"gd\"",
        "\"n\": 300",
        "\"d\": 4",
        "\"steps\": 5",
        "\"accountant\": \"gdp\"",
        "\"optimum\": {",
        "\"median_seconds\": ",
    ] {
        assert!(printed.contains(key), "missing {key} in {printed}");
    }
    assert_eq!(printed.matches("\"seed\": ").count(), 4);
    assert!(!printed.contains("NaN") && !printed.contains("inf"));
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let s = Scratch::new("peer-race-bad");
    let good = matrix(50, 3, 4);
    let good_csv = s.path("good.csv");
    write_csv(&good, &good_csv);
    let mut far = good.clone();
    far.features[3..6].copy_from_slice(&[2.0, 0.0, 0.0]);
    let far_csv = s.path("far.csv");
    write_csv(&far, &far_csv);
    let mut zero = good.clone();
    zero.labels[4] = 0.0;
    let zero_csv = s.path("zero.csv");
    write_csv(&zero, &zero_csv);
    let missing = s.path("missing.h5");
    let cases: Vec<(Vec<String>, &Path, &str)> = vec![
        (vec![], &far_csv, "record 1"),
        (vec![], &zero_csv, "record 4"),
        (vec![], &missing, "no such file"),
        (vec!["--mu".into(), "0".into()], &good_csv, "--mu"),
        (vec!["--delta".into(), "0".into()], &good_csv, "--delta"),
        (vec!["--steps".into(), "0".into()], &good_csv, "--steps"),
        (vec!["--repeats".into(), "0".into()], &good_csv, "--repeats"),
    ];
    for (extra, file, needle) in cases {
        let o = run(std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
            .args(["peer-race", "--task", "gd"])
            .args(&extra)
            .arg(file));
        assert_eq!(o.status.code(), Some(2), "{extra:?} {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{needle}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let o = run(std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
        .args(["peer-race", "--task", "op", "--noiseless"])
        .arg(&good_csv));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--noiseless"));
}
