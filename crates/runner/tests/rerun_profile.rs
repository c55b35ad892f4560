//! A profile that reruns studies on new seeds (`only`, `seed`, more
//! repetitions): its cells differ from the default run's, its seed may not be
//! the experiment's own (a located error), and the claims ledger reads its
//! summary in place of the default run's for its studies, naming the source.
//! Deterministic (no statistical test), so there is no false-alarm rate.

mod common;

use common::{run, runner_with_results, small_spec, stderr, study_rows, Scratch};

/// Writes `text` as `experiments/<name>.toml` in `scratch`: the experiments
/// directory (what the ledger reads) and the spec's path.
fn write_experiment(
    scratch: &Scratch,
    name: &str,
    text: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let experiments = scratch.path("experiments");
    std::fs::create_dir_all(&experiments).unwrap();
    let spec = experiments.join(format!("{name}.toml"));
    std::fs::write(&spec, text).unwrap();
    (experiments, spec)
}

#[test]
fn a_rerun_profile_draws_new_cells_and_stands_in_for_the_default_run() {
    let scratch = Scratch::new("rerun");
    let spec_text = format!(
        "{}\n[profiles.decide]\nonly = [\"eps_gauss\"]\nseed = 8\nstudy_repetitions = {{ eps_gauss = 5 }}\n",
        small_spec("rr", 3, 3, 1e4)
    );
    let (experiments, spec) = write_experiment(&scratch, "rr", &spec_text);
    let results = scratch.path("results");
    let go = |extra: &[&str]| {
        let out = run(runner_with_results(&scratch.0, &results)
            .arg(&spec)
            .args(["--no-check", "--threads", "2", "--quiet"])
            .args(extra));
        assert!(out.status.success(), "{}", stderr(&out));
    };
    go(&[]);
    go(&["--profile", "decide"]);
    let default_rows = study_rows(&results.join("rr.csv"), "eps_gauss");
    let rerun_rows = study_rows(&results.join("rr-decide.csv"), "eps_gauss");
    assert_eq!(rerun_rows.len(), default_rows.len());
    assert!(study_rows(&results.join("rr-decide.csv"), "n_pure").is_empty());
    assert_ne!(rerun_rows, default_rows, "new seeds must draw new cells");

    // The ledger reads eps_gauss from the rerun, n_pure from the default run.
    let judged = runner::claims::judge_experiments(&experiments, &results).unwrap();
    let j = &judged[0];
    let i_eps = j
        .experiment
        .studies
        .iter()
        .position(|s| s.name == "eps_gauss")
        .unwrap();
    assert_eq!(j.sources[i_eps], "rr-decide");
    assert_eq!(j.sources[1 - i_eps], "rr");
    let a = j.analyses.as_ref().unwrap();
    assert!(!a[i_eps].points.is_empty() && !a[1 - i_eps].points.is_empty());

    // The experiment's own seed is refused at its line, nothing run.
    let same = spec_text.replace("seed = 8", "seed = 7");
    std::fs::write(&spec, &same).unwrap();
    let line = same.lines().position(|l| l == "seed = 7").unwrap();
    let line = same
        .lines()
        .skip(line + 1)
        .position(|l| l == "seed = 7")
        .unwrap()
        + line
        + 2;
    let bad = scratch.path("bad");
    let out = run(runner_with_results(&scratch.0, &bad).arg(&spec).args([
        "--profile",
        "decide",
        "--quiet",
    ]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("is the experiment's own"), "{err}");
    assert!(err.contains(&format!("rr.toml:{line}:")), "{err}");
    assert!(!bad.join("rr-decide.h5").exists());
}

/// A rerun profile may refine a grid (a denser window: every default point
/// kept, new ones added) and still stands in for the default run in the
/// ledger; one that drops a default point is refused at its line, nothing run.
#[test]
fn a_rerun_profile_may_add_grid_points_but_never_drop_one() {
    let scratch = Scratch::new("rerun-refine");
    let spec_text = format!(
        "{}\n[profiles.decide]\nonly = [\"eps_gauss\"]\nseed = 8\n\n[profiles.decide.grids]\neps_gauss = {{ eps = [0.1, 0.15, 0.2, 0.3, 0.5] }}\n",
        small_spec("rf", 3, 3, 1e4)
    );
    let (experiments, spec) = write_experiment(&scratch, "rf", &spec_text);
    let results = scratch.path("results");
    let go = |spec: &std::path::Path, extra: &[&str]| {
        run(runner_with_results(&scratch.0, &results)
            .arg(spec)
            .args(["--no-check", "--threads", "2", "--quiet"])
            .args(extra))
    };
    assert!(go(&spec, &[]).status.success());
    let out = go(&spec, &["--profile", "decide"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let default_rows = study_rows(&results.join("rf.csv"), "eps_gauss");
    let rerun_rows = study_rows(&results.join("rf-decide.csv"), "eps_gauss");
    // eps_gauss sweeps eps x d (3 x 2 points by default, 5 x 2 refined).
    assert_eq!(default_rows.len(), 6);
    assert_eq!(rerun_rows.len(), 10);
    let judged = runner::claims::judge_experiments(&experiments, &results).unwrap();
    let j = &judged[0];
    let i_eps = j
        .experiment
        .studies
        .iter()
        .position(|s| s.name == "eps_gauss")
        .unwrap();
    assert_eq!(j.sources[i_eps], "rf-decide");
    assert_eq!(j.analyses.as_ref().unwrap()[i_eps].points.len(), 10);

    // Dropping eps = 0.5 is refused, located, and nothing runs.
    let dropped = spec_text.replace("0.3, 0.5] }", "0.3] }");
    let bad_spec = experiments.join("rf_bad.toml");
    std::fs::write(&bad_spec, &dropped).unwrap();
    let line = dropped
        .lines()
        .position(|l| l.starts_with("eps_gauss = { eps = [0.1, 0.15"))
        .unwrap()
        + 1;
    let out = go(&bad_spec, &["--profile", "decide"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("may only add grid points"), "{err}");
    assert!(err.contains("drops 0.5"), "{err}");
    assert!(err.contains(&format!("rf_bad.toml:{line}:")), "{err}");
    assert!(!results.join("rf_bad-decide.h5").exists());
}
