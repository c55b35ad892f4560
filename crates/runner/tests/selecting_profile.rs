//! A profile that only selects studies (`only = [...]`): it runs exactly the
//! default cells of its studies (seeds do not depend on the profile), an
//! unknown study in it is a located error, and the claims ledger reads its
//! summary for a study the default summary lacks or holds at fewer grid
//! points (a grid grown after the default run), naming where it read it.
//! Deterministic (no statistical test), so there is no false-alarm rate.

mod common;

use common::{run, runner_with_results, small_spec, stderr, study_rows, Scratch};

#[test]
fn a_selecting_profile_runs_the_default_cells_and_the_ledger_reads_them() {
    let scratch = Scratch::new("selecting");
    let experiments = scratch.path("experiments");
    std::fs::create_dir_all(&experiments).unwrap();
    let spec_text = format!(
        "{}\n[profiles.coverage]\nonly = [\"eps_gauss\"]\n",
        small_spec("sel", 3, 3, 1e4)
    );
    let spec = experiments.join("sel.toml");
    std::fs::write(&spec, &spec_text).unwrap();
    let go = |results: &std::path::Path, extra: &[&str]| {
        let out = run(runner_with_results(&scratch.0, results)
            .arg(&spec)
            .args(["--no-check", "--threads", "2", "--quiet"])
            .args(extra));
        assert!(out.status.success(), "{}", stderr(&out));
    };

    // The selecting profile alone: only eps_gauss runs.
    let selected = scratch.path("selected");
    go(&selected, &["--profile", "coverage"]);
    let sel_csv = selected.join("sel-coverage.csv");
    assert!(study_rows(&sel_csv, "n_pure").is_empty());
    assert_eq!(study_rows(&sel_csv, "eps_gauss").len(), 6);

    // The same cells as the default profile's.
    let full = scratch.path("full");
    go(&full, &[]);
    assert_eq!(
        study_rows(&sel_csv, "eps_gauss"),
        study_rows(&full.join("sel.csv"), "eps_gauss"),
        "a selecting profile must compute the default cells"
    );

    // The ledger reads eps_gauss from the selecting profile's summary and
    // n_pure from nowhere (no default summary beside it).
    let judged = runner::claims::judge_experiments(&experiments, &selected).unwrap();
    let j = &judged[0];
    let i_eps = j
        .experiment
        .studies
        .iter()
        .position(|s| s.name == "eps_gauss")
        .unwrap();
    let i_n = 1 - i_eps;
    let a = j.analyses.as_ref().expect("the selecting summary is read");
    assert!(!a[i_eps].points.is_empty());
    assert!(a[i_n].points.is_empty());
    assert_eq!(j.sources[i_eps], "sel-coverage");

    // Beside a default summary, a study the default has is read from it.
    std::fs::copy(&sel_csv, full.join("sel-coverage.csv")).unwrap();
    let judged = runner::claims::judge_experiments(&experiments, &full).unwrap();
    assert!(judged[0].sources.iter().all(|s| s == "sel"));

    // A grid grown after the default run: the default summary holds 4 of
    // eps_gauss's 6 points, the selecting profile all 6, so the ledger reads
    // the profile (and n_pure still from the default).
    let grown = scratch.path("grown");
    let small_grid = spec_text.replace("eps = [0.1, 0.2, 0.5]", "eps = [0.1, 0.2]");
    std::fs::write(&spec, &small_grid).unwrap();
    go(&grown, &[]);
    assert_eq!(study_rows(&grown.join("sel.csv"), "eps_gauss").len(), 4);
    std::fs::write(&spec, &spec_text).unwrap();
    go(&grown, &["--profile", "coverage"]);
    let judged = runner::claims::judge_experiments(&experiments, &grown).unwrap();
    assert_eq!(judged[0].sources[i_eps], "sel-coverage");
    assert_eq!(judged[0].sources[i_n], "sel");
    assert_eq!(judged[0].analyses.as_ref().unwrap()[i_eps].points.len(), 6);

    // An unknown study in `only` is refused with its location, nothing run.
    std::fs::write(
        &spec,
        spec_text.replace("[\"eps_gauss\"]", "[\"eps_gaus\"]"),
    )
    .unwrap();
    let out = run(runner_with_results(&scratch.0, &scratch.path("bad"))
        .arg(&spec)
        .args(["--profile", "coverage", "--quiet"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("unknown study `eps_gaus`"), "{err}");
    assert!(err.contains("sel.toml:"), "{err}");
    assert!(!scratch.path("bad").join("sel-coverage.h5").exists());
}
