//! A profile that reruns studies on new seeds (`only`, `seed`, more
//! repetitions): its cells differ from the default run's, its seed may not be
//! the experiment's own (a located error), and the claims ledger reads its
//! summary in place of the default run's for its studies, naming the source.
//! Deterministic (no statistical test), so there is no false-alarm rate.

mod common;

use common::{run, runner_with_results, small_spec, stderr, study_rows, Scratch};

#[test]
fn a_rerun_profile_draws_new_cells_and_stands_in_for_the_default_run() {
    let scratch = Scratch::new("rerun");
    let experiments = scratch.path("experiments");
    std::fs::create_dir_all(&experiments).unwrap();
    let spec_text = format!(
        "{}\n[profiles.decide]\nonly = [\"eps_gauss\"]\nseed = 8\nstudy_repetitions = {{ eps_gauss = 5 }}\n",
        small_spec("rr", 3, 3, 1e4)
    );
    let spec = experiments.join("rr.toml");
    std::fs::write(&spec, &spec_text).unwrap();
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
