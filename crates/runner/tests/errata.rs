//! `runner errata` prints the printed-vs-corrected calibration table of
//! `papers::errata`, every row with its source. The rows' numbers are tested
//! beside them in `crates/papers/tests/errata.rs`.

use std::process::Command;

use runner::errata::{errata, render_markdown};

#[test]
fn binary_prints_every_row() {
    let out = Command::new(env!("CARGO_BIN_EXE_runner"))
        .arg("errata")
        .output()
        .expect("runner runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(stdout, render_markdown(&errata()));
    for e in errata() {
        assert!(stdout.contains(&e.markdown_row()), "row {} missing", e.id);
        assert!(stdout.contains(&e.source()), "source of {} missing", e.id);
    }
}
