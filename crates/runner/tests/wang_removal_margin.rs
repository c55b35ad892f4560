//! `runner removal-margin` on the command line, on a hand-made data set of
//! five points in the plane: four separable with margin 1 about the line
//! `x = 0` and one contradictory twin of `(1, 0)` labelled -1. Removing one
//! point (20% of n) must make the rest separable, so the CSV has two rows,
//! the first at margin 0 and the second positive, and the figure is written.
//! Bad input (a missing or malformed file, a bad flag) exits with code 2. The
//! planted-data behaviour (jump after exactly `m` removals, HDF5 input)
//! is tested beside the tool in `crates/papers/tests/wang_removal_margin.rs`.

mod common;

use common::{run, stderr, Scratch};

#[test]
fn one_contradictory_twin_is_removed_and_the_rest_separates() {
    let s = Scratch::new("removal-margin-cli");
    let input = s.write(
        "twin.csv",
        "label,f0,f1\n1,1,0\n-1,-1,0\n1,1,0.5\n-1,-1,-0.5\n-1,1,0\n",
    );
    let out_csv = s.path("curve.csv");
    let o = run(std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
        .arg("removal-margin")
        .arg(&input)
        .arg("--out")
        .arg(&out_csv)
        .arg("--figure")
        .arg(s.path("curve.svg"))
        .arg("--max-percent")
        .arg("20"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(s.path("curve.svg").exists());
    let text = std::fs::read_to_string(&out_csv).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][2].parse::<f64>().unwrap(), 0.0, "{text}");
    assert!(rows[1][2].parse::<f64>().unwrap() > 0.0, "{text}");
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let s = Scratch::new("removal-margin-bad");
    let good = s.write("good.csv", "label,f0\n1,1\n-1,-1\n");
    let text = s.write("text.csv", "label,f0\n1,one\n");
    let cases: Vec<(Vec<String>, std::path::PathBuf, &str)> = vec![
        (vec![], s.path("missing.csv"), "missing.csv"),
        (vec![], text, "record 0 is not numeric"),
        (
            vec!["--max-percent".into(), "0".into()],
            good.clone(),
            "--max-percent",
        ),
        (vec!["--svm-c=-1".into()], good, "--svm-c"),
    ];
    for (extra, file, needle) in cases {
        let o = run(std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
            .arg("removal-margin")
            .args(&extra)
            .arg(&file));
        assert_eq!(o.status.code(), Some(2), "{extra:?} {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{needle}: {}", stderr(&o));
    }
}
