//! Worst-case studies (`worst_case_over`) and families whose data depend on
//! the privacy parameters (Bassily et al. LinBall), end to end, plus a
//! validation of every committed experiment file.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{run, runner, runner_sub, stderr, Scratch};

fn spec(worst_case_over: &str) -> String {
    format!(
        r#"
name = "worst"
seed = 11
repetitions = 6

[[studies]]
name = "objp_n"
metric = "excess_population_risk"
problem = {{ family = "lin_ball", d = 4 }}
algorithm = {{ name = "objp" }}
privacy = {{ eps = 0.5, delta = 1e-12 }}
grid = {{ n = [1000, 4000, 16000], r_factor = [0.25, 2.0, 16.0] }}
{worst_case_over}
expect = {{ below_bound = true }}

[[studies]]
name = "nsgd_eps"
metric = "realised_eps"
problem = {{ family = "lin_ball", n = 2000, d = 4 }}
algorithm = {{ name = "nsgd" }}
privacy = {{ delta = 1e-12 }}
grid = {{ eps = [0.25, 0.5, 1.0] }}
expect = {{ below_bound = true }}
"#
    )
}

#[test]
fn worst_case_keeps_the_largest_mean_per_point_and_checks_every_point() {
    let s = Scratch::new("worst-case");
    let path = s.write("worst.toml", &spec("worst_case_over = \"r_factor\""));
    let out = run(runner(&s.0).arg(&path).arg("--quiet"));
    assert!(out.status.success(), "{}", stderr(&out));
    let md = std::fs::read_to_string(s.path("results/worst.md")).unwrap();
    // Three reduced points, each naming the maximizing r_factor.
    assert_eq!(md.matches("(worst case at r_factor=").count(), 3, "{md}");
    // The reduced summary keeps only `n` in the point key.
    let csv = std::fs::read_to_string(s.path("results/worst.csv")).unwrap();
    let objp_rows: Vec<&str> = csv.lines().filter(|l| l.starts_with("objp_n,")).collect();
    assert_eq!(objp_rows.len(), 3, "{csv}");
    // (the maximizing value goes to the `worst_case_at` column).
    assert!(
        objp_rows
            .iter()
            .all(|l| !l.split(',').nth(2).unwrap().contains("r_factor")
                && l.ends_with(&l[l.rfind(",r_factor=").unwrap()..])),
        "{csv}"
    );
    // Figures are drawn along n only.
    assert!(s.path("figures/worst/objp_n__n.png").exists());
    assert!(!s.path("figures/worst/objp_n__r_factor.png").exists());
}

#[test]
fn worst_case_over_must_name_a_swept_parameter_that_is_not_fitted() {
    let s = Scratch::new("worst-case-bad");
    let path = s.write("bad.toml", &spec("worst_case_over = \"d\""));
    let out = run(runner(&s.0).arg(&path));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not a swept parameter"),
        "{}",
        stderr(&out)
    );

    let fitted = spec("worst_case_over = \"r_factor\"").replace(
        "expect = { below_bound = true }\n\n[[studies]]",
        "expect = { slopes = { r_factor = { slope = 0.0, tolerance = 1.0 } } }\n\n[[studies]]",
    );
    let path = s.write("fitted.toml", &fitted);
    let out = run(runner(&s.0).arg(&path));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("both fitted"), "{}", stderr(&out));
}

#[test]
fn data_depend_on_eps_only_for_families_that_declare_it() {
    // LinBall's signal is set from the private rate, so cells at different
    // eps must not share a data set: its data seeds differ across eps, while
    // a family without privacy-dependent data keeps common random numbers.
    let s = Scratch::new("privacy-data");
    let text = r#"
name = "crn"
seed = 3
repetitions = 2

[[studies]]
name = "lin"
metric = "excess_population_risk"
problem = { family = "lin_ball", n = 500, d = 4 }
algorithm = { name = "erm" }
privacy = { delta = 1e-12 }
grid = { eps = [0.5, 1.0] }

[[studies]]
name = "quad"
metric = "excess_empirical_risk"
problem = { family = "diagonal_quadratic", n = 500, d = 4 }
algorithm = { name = "output_perturbation_conceptual" }
grid = { eps = [0.5, 1.0] }
"#;
    let path = s.write("crn.toml", text);
    let out = run(runner(&s.0).arg(&path).arg("--quiet"));
    assert!(out.status.success(), "{}", stderr(&out));
    let file = hdf5_pure::File::open(s.path("results/crn.h5")).unwrap();
    let seeds = |study: &str| {
        let ds = file
            .dataset(&format!("studies/{study}/seeds/data"))
            .unwrap();
        ds.read_u64().unwrap()
    };
    let reps = |study: &str| {
        let ds = file
            .dataset(&format!("studies/{study}/cell/repetition"))
            .unwrap();
        ds.read_u64().unwrap()
    };
    for (study, shared) in [("lin", false), ("quad", true)] {
        let (s, r) = (seeds(study), reps(study));
        assert_eq!(s.len(), 4);
        for rep in 0..2u64 {
            let of_rep: Vec<u64> = s
                .iter()
                .zip(&r)
                .filter(|(_, &x)| x == rep)
                .map(|(s, _)| *s)
                .collect();
            assert_eq!(of_rep.len(), 2);
            assert_eq!(of_rep[0] == of_rep[1], shared, "{study}: {of_rep:?}");
        }
    }
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_committed_experiment_file_is_valid_in_every_profile() {
    let dir = workspace_root().join("experiments");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // experiments/audit.toml is an audit spec (tests/audit_command.rs).
        if runner::audit::spec::is_audit_spec(&text) {
            continue;
        }
        let mut profiles = vec![None];
        if text.contains("[profiles.quick]") {
            profiles.push(Some("quick"));
        }
        for profile in profiles {
            let s = Scratch::new("plan");
            let mut cmd: Command = runner_sub(&s.0, "plan");
            cmd.arg(&path);
            if let Some(p) = profile {
                cmd.args(["--profile", p]);
            }
            let out = run(&mut cmd);
            assert!(
                out.status.success(),
                "{} ({profile:?}): {}",
                path.display(),
                stderr(&out)
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 6,
        "found only {checked} experiment/profile pairs"
    );
}
