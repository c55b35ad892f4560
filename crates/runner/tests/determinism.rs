//! Results do not depend on the thread count, survive SIGKILL, and record failed cells.

mod common;

use std::time::{Duration, Instant};

use common::{datasets, run, runner, runner_with_results, small_spec, stderr, Scratch};

#[test]
fn one_and_two_threads_give_bitwise_identical_datasets() {
    let scratch = Scratch::new("threads");
    let spec = scratch.write("s.toml", &small_spec("threads", 6, 4, 1e5));
    let one = scratch.path("one");
    let two = scratch.path("two");
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        let out = run(runner_with_results(&scratch.0, dir).arg(&spec).args([
            "--threads",
            threads,
            "--quiet",
            "--no-check",
        ]));
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let a = datasets(&one.join("threads.h5"));
    let b = datasets(&two.join("threads.h5"));
    assert!(a.len() > 10, "too few datasets: {:?}", a.keys());
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert_eq!(v, &b[k], "dataset {k} differs between 1 and 2 threads");
    }
}

fn row_count(path: &std::path::Path) -> Option<usize> {
    let file = hdf5_pure::File::open(path).ok()?;
    let studies = file.group("studies").ok()?.groups().ok()?;
    let mut n = 0;
    for s in studies {
        n += file
            .dataset(&format!("studies/{s}/cell/repetition"))
            .ok()?
            .read_u64()
            .ok()?
            .len();
    }
    Some(n)
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_same_datasets() {
    let scratch = Scratch::new("kill");
    // 2 studies: 5 points x 40 reps with n up to 3e5 (tens of ms per cell) + 6 x 40.
    let spec = scratch.write("s.toml", &small_spec("kill", 40, 5, 3e5));
    let planned = 5 * 40 + 6 * 40;

    let reference = scratch.path("reference");
    let out = run(runner_with_results(&scratch.0, &reference)
        .arg(&spec)
        .args(["--quiet", "--no-check", "--threads", "2"]));
    assert!(out.status.success(), "{}", stderr(&out));

    let killed = scratch.path("results/kill.h5");
    let mut child = runner(&scratch.0)
        .arg(&spec)
        .args([
            "--quiet",
            "--no-check",
            "--threads",
            "2",
            "--flush-seconds",
            "0.05",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut seen = 0;
    while Instant::now() < deadline {
        if let Some(n) = row_count(&killed) {
            seen = n;
            if n >= 20 {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    let after_kill = row_count(&killed).expect("the file left by SIGKILL is valid");
    assert!(seen >= 20, "the run never flushed partial results");
    assert!(
        after_kill < planned,
        "the run finished before it could be killed ({after_kill} rows)"
    );

    let out = run(runner(&scratch.0)
        .arg(&spec)
        .args(["--no-check", "--threads", "2"]));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{after_kill} already in")),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        row_count(&killed),
        Some(planned),
        "duplicate or missing cells"
    );
    let a = datasets(&reference.join("kill.h5"));
    let b = datasets(&killed);
    for (k, v) in &a {
        assert_eq!(v, &b[k], "dataset {k} differs after kill + resume");
    }
}

#[test]
fn failing_cells_are_recorded_and_the_sweep_carries_on() {
    let scratch = Scratch::new("fail");
    // eps = 1e-300 makes the noise radius overflow to infinity: a non-finite metric.
    let text = small_spec("fail", 4, 3, 1e4).replace(
        "grid = { eps = [0.1, 0.2, 0.5], d = [2, 4] }",
        "grid = { eps = [1e-300, 0.2, 0.5], d = [2, 4] }",
    );
    let spec = scratch.write("s.toml", &text);
    let out = run(runner(&scratch.0).arg(&spec).args(["--quiet"]));
    assert_eq!(
        out.status.code(),
        Some(1),
        "failed cells must fail the check: {}",
        stderr(&out)
    );
    let file = hdf5_pure::File::open(scratch.path("results/fail.h5")).unwrap();
    let ok = file
        .dataset("studies/eps_gauss/status/ok")
        .unwrap()
        .read_u64()
        .unwrap();
    let errors = file
        .dataset("studies/eps_gauss/status/error")
        .unwrap()
        .read_string()
        .unwrap();
    let eps = file
        .dataset("studies/eps_gauss/params/eps")
        .unwrap()
        .read_f64()
        .unwrap();
    assert_eq!(ok.len(), 6 * 4);
    for i in 0..ok.len() {
        if eps[i] == 1e-300 {
            assert_eq!(ok[i], 0);
            assert!(errors[i].contains("non-finite"), "{}", errors[i]);
        } else {
            assert_eq!(ok[i], 1);
            assert!(errors[i].is_empty());
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("cells failed"), "{stdout}");
}

#[test]
fn sigint_saves_every_finished_cell_exits_130_and_resumes() {
    let scratch = Scratch::new("sigint");
    // About 5 s of work on 2 quiet cores, interrupted after 1 s. (At 80
    // repetitions, 880 cells, a quiet run finished in 1.0 s on 2026-11-28,
    // before the interrupt: 400 repetitions leave a margin of about 5.)
    let reps = 400;
    let spec = scratch.write("s.toml", &small_spec("sigint", reps, 5, 3e5));
    let planned = 5 * reps + 6 * reps;
    let reference = scratch.path("reference");
    let out = run(runner_with_results(&scratch.0, &reference)
        .arg(&spec)
        .args(["--quiet", "--no-check"]));
    assert!(out.status.success(), "{}", stderr(&out));

    // No periodic flush: whatever is on disk after SIGINT was written by the interrupt path.
    let child = runner(&scratch.0)
        .arg(&spec)
        .args(["--no-check", "--flush-seconds", "1000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("rerun the same command to resume"), "{err}");
    let path = scratch.path("results/sigint.h5");
    let saved = row_count(&path).expect("a valid file after SIGINT");
    assert!(
        saved > 0 && saved < planned,
        "saved {saved} of {planned} cells"
    );
    assert!(
        err.contains(&format!("interrupted: {saved} finished cells are saved")),
        "{err}"
    );

    let out = run(runner(&scratch.0).arg(&spec).args(["--no-check"]));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{saved} already in")),
        "{}",
        stderr(&out)
    );
    let a = datasets(&reference.join("sigint.h5"));
    let b = datasets(&path);
    for (k, v) in &a {
        assert_eq!(v, &b[k], "dataset {k} differs after SIGINT + resume");
    }
}
