//! `--reuse-unchanged`: after a spec edit, the cells of unchanged studies are
//! kept (not recomputed), a study whose repetitions grew keeps its first ones,
//! and the final file holds exactly what a fresh run of the edited spec gives;
//! the file lists the run segments and each row names the one that computed it.

mod common;

use common::{datasets, run, runner_sub, runner_with_results, small_spec, stderr, Scratch};

fn wall_seconds(path: &std::path::Path, study: &str) -> Vec<f64> {
    hdf5_pure::File::open(path)
        .unwrap()
        .dataset(&format!("studies/{study}/timing/wall_seconds"))
        .unwrap()
        .read_f64()
        .unwrap()
}

/// Runs `spec` (no check, 2 threads, `extra`) into `results`; its stderr.
fn run_ok(
    scratch: &Scratch,
    results: &std::path::Path,
    spec: &std::path::Path,
    extra: &[&str],
) -> String {
    let out = run(runner_with_results(&scratch.0, results)
        .arg(spec)
        .args(["--no-check", "--threads", "2"])
        .args(extra));
    assert!(out.status.success(), "{}", stderr(&out));
    stderr(&out)
}

/// `file` equals, dataset by dataset (timings aside), what a fresh run of
/// `spec` writes into `scratch`'s `fresh/`.
fn assert_equals_a_fresh_run(scratch: &Scratch, file: &std::path::Path, spec: &std::path::Path) {
    let fresh = scratch.path("fresh");
    let out = run(runner_with_results(&scratch.0, &fresh).arg(spec).args([
        "--no-check",
        "--quiet",
        "--threads",
        "1",
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    let a = datasets(file);
    let b = datasets(&fresh.join("reuse.h5"));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert_eq!(v, &b[k], "{k} differs from a fresh run");
    }
}

#[test]
fn unchanged_studies_keep_their_cells_and_the_result_equals_a_fresh_run() {
    let scratch = Scratch::new("reuse");
    let results = scratch.path("results");
    let file = results.join("reuse.h5");
    let go = |spec: &std::path::Path, extra: &[&str]| run_ok(&scratch, &results, spec, extra);

    // First spec: n_pure 3 points x 3 reps, eps_gauss 6 points x 3 reps.
    let first = scratch.write("a.toml", &small_spec("reuse", 3, 3, 1e4));
    go(&first, &[]);
    let eps_wall = wall_seconds(&file, "eps_gauss");
    let before = datasets(&file);

    // n_pure's grid changes: it is recomputed (4 x 3 cells), eps_gauss is kept.
    let grid = scratch.write("b.toml", &small_spec("reuse", 3, 4, 1e4));
    let err = go(&grid, &["--reuse-unchanged"]);
    assert!(
        err.contains("kept the cells of 1 unchanged studies; recomputing 1"),
        "{err}"
    );
    assert!(err.contains("stored rows discarded: n_pure"), "{err}");
    assert!(err.contains("ran 12 cells"), "{err}");
    assert_eq!(
        wall_seconds(&file, "eps_gauss"),
        eps_wall,
        "eps_gauss reran"
    );
    let after = datasets(&file);
    for (k, v) in before.iter().filter(|(k, _)| k.contains("/eps_gauss/")) {
        assert_eq!(&after[k], v, "{k} changed");
    }

    // Five repetitions instead of three: only repetitions 3 and 4 run.
    let reps = scratch.write("c.toml", &small_spec("reuse", 5, 4, 1e4));
    let err = go(&reps, &["--reuse-unchanged"]);
    assert!(err.contains("ran 20 cells"), "{err}");
    assert!(
        err.contains("kept the cells of 2 unchanged studies"),
        "{err}"
    );
    let eps_wall_now = wall_seconds(&file, "eps_gauss");
    let mut kept = 0;
    let reps_of = hdf5_pure::File::open(&file)
        .unwrap()
        .dataset("studies/eps_gauss/cell/repetition")
        .unwrap()
        .read_u64()
        .unwrap();
    for (row, rep) in reps_of.iter().enumerate() {
        if *rep < 3 {
            assert_eq!(eps_wall_now[row], eps_wall[kept], "row {row} reran");
            kept += 1;
        }
    }
    assert_eq!(kept, eps_wall.len());

    // Provenance: three run segments, and each row names the one that computed it.
    let f = hdf5_pure::File::open(&file).unwrap();
    let segments = f.root().attrs().unwrap()["segments"]
        .as_str()
        .unwrap()
        .to_string();
    let cells: Vec<&str> = segments
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    assert_eq!(cells, ["27", "12", "20"], "{segments}");
    for (study, first) in [("eps_gauss", 0), ("n_pure", 1)] {
        let seg = f
            .dataset(&format!("studies/{study}/timing/segment"))
            .unwrap()
            .read_u64()
            .unwrap();
        let reps = f
            .dataset(&format!("studies/{study}/cell/repetition"))
            .unwrap()
            .read_u64()
            .unwrap();
        for (s, r) in seg.iter().zip(&reps) {
            assert_eq!(*s, if *r < 3 { first } else { 2 }, "{study} rep {r}");
        }
    }
    drop(f);

    // The reused file equals a fresh run of the final spec, dataset by dataset.
    assert_equals_a_fresh_run(&scratch, &file, &reps);

    // Without the flag a changed spec is still refused, and the hint names it.
    let out = run(runner_with_results(&scratch.0, &results)
        .arg(&first)
        .args(["--no-check", "--quiet"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("1 of its 2 studies are unchanged"), "{err}");
    assert!(err.contains("--reuse-unchanged"), "{err}");
}

/// A spec edit that needs no new cell (here fewer repetitions: the first ones
/// are kept) still rewrites the file under the edited spec, so `check` and
/// `baseline` accept it afterwards; before, a run that computed nothing left
/// the old spec hash in place and they refused the file (found on 2026-11-30
/// when a quick profile's repetitions were lowered from 40 to 2).
#[test]
fn a_reuse_that_computes_nothing_still_adopts_the_edited_spec() {
    let scratch = Scratch::new("reuse-none");
    let results = scratch.path("results");
    let file = results.join("reuse.h5");
    let go = |spec: &std::path::Path, extra: &[&str]| run_ok(&scratch, &results, spec, extra);
    let three = scratch.write("a.toml", &small_spec("reuse", 3, 3, 1e4));
    go(&three, &[]);
    let two = scratch.write("b.toml", &small_spec("reuse", 2, 3, 1e4));
    let err = go(&two, &["--reuse-unchanged"]);
    assert!(err.contains("ran 0 cells"), "{err}");
    let out = run(runner_sub(&scratch.0, "baseline").arg(&two));
    assert!(
        out.status.success(),
        "baseline refused the reused file: {}",
        stderr(&out)
    );
    // And the file is what a fresh run of the edited spec writes.
    assert_equals_a_fresh_run(&scratch, &file, &two);
}
