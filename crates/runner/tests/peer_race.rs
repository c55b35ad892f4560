//! `runner peer-race` (the harness's side of `scripts/peers/race.py`) on the
//! command line: the JSON carries every repetition, and bad input exits with
//! code 2 and a message that names the problem. The race itself (plain GD,
//! the accountant's scale, the certified centre) is tested beside it in
//! `crates/papers/tests/peer_race.rs`.

mod common;

use std::path::Path;

use common::{run, stderr, Scratch};
use runner::peer_race::synthetic_matrix;
use runner::removal_margin::LabelledMatrix;

/// The race's synthetic file (`synthetic_matrix`).
fn matrix(n: usize, d: usize, seed: u64) -> LabelledMatrix {
    synthetic_matrix(n, d, seed)
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
