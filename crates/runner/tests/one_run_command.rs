//! `runner one-run`: a small output-perturbation audit runs and exits 0;
//! unknown names and canaries that do not fit are bad input (exit 2).

use runner::app::{main_with_args, EXIT_BAD_INPUT, EXIT_OK};

fn runner(args: &[&str]) -> i32 {
    let args = ["runner", "one-run"].iter().chain(args);
    main_with_args(args.map(std::ffi::OsString::from))
}

const SMALL: &[&str] = &[
    "--n",
    "2000",
    "--d",
    "64",
    "--eps",
    "1",
    "--delta",
    "1e-6",
    "--canaries",
    "64",
    "--guesses",
    "8",
    "--audits",
    "2",
];

#[test]
fn a_small_audit_runs() {
    let mut args = vec!["output_perturbation_conceptual"];
    args.extend(SMALL);
    assert_eq!(runner(&args), EXIT_OK);
}

#[test]
fn bad_input_is_refused() {
    let mut unknown = vec!["objp"];
    unknown.extend(SMALL);
    assert_eq!(runner(&unknown), EXIT_BAD_INPUT);
    let mut calibration = vec!["nsgd", "--calibration", "printed"];
    calibration.extend(SMALL);
    assert_eq!(runner(&calibration), EXIT_BAD_INPUT);
    // 64 canaries need d >= 65 for nsgd (e_1 carries LinBall's signal).
    let mut too_many = vec!["nsgd"];
    too_many.extend(SMALL);
    assert_eq!(runner(&too_many), EXIT_BAD_INPUT);
}
