//! Issue 28: the three inputs that hung `runner plan` or aborted a run get a
//! precise error (exit 2, `file:line:column`) within a second and touch
//! nothing; `plan` prints the estimated cost; the ceilings refuse a large run.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{run, runner, runner_sub, stderr, workspace_root, Scratch};

/// Table 1 with `from` replaced by `to` (first occurrence), and the line of the change.
fn table1_with(from: &str, to: &str) -> (String, usize) {
    let text = std::fs::read_to_string(workspace_root().join("experiments/table1.toml")).unwrap();
    let at = text
        .find(from)
        .unwrap_or_else(|| panic!("`{from}` not in table1.toml"));
    let line = text[..at].matches('\n').count() + 1;
    (text.replacen(from, to, 1), line)
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(snapshot(&p));
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_three_inputs_of_the_issue_get_exit_2_within_a_second_and_touch_nothing() {
    let cases = [
        // `repetitions = 1000000000`: plan did not answer within 30 s.
        (
            "repetitions = 200",
            "repetitions = 1000000000",
            "repetitions = 1000000000 is too large",
        ),
        // `points = 100000000` in a log range: the same.
        (
            "points = 7 }",
            "points = 100000000 }",
            "has 100000000 values (at most 100000 per axis)",
        ),
        // `d = 1e11` on diagonal_quadratic: the run aborted on an 8e14-byte allocation.
        (
            "d = 10, beta",
            "d = 100000000000, beta",
            "needs an estimated 7.3e5 TiB of memory",
        ),
    ];
    for (from, to, message) in cases {
        let s = Scratch::new("issue28");
        let (text, line) = table1_with(from, to);
        let spec = s.write("table1.toml", &text);
        // An existing results file that must stay byte for byte as it is.
        let results = s.path("results");
        std::fs::create_dir_all(&results).unwrap();
        std::fs::write(results.join("table1.h5"), b"previous results").unwrap();
        let before = snapshot(&s.0);
        for sub in ["plan", "run"] {
            let start = Instant::now();
            let out = run(runner_sub(&s.0, sub).arg(&spec));
            let took = start.elapsed();
            assert_eq!(out.status.code(), Some(2), "{sub} {to}: {}", stderr(&out));
            assert!(took < Duration::from_secs(1), "{sub} {to} took {took:?}");
            let err = stderr(&out);
            assert!(err.contains(message), "{sub} {to}: {err}");
            let location = format!("{}:{line}:", spec.display());
            assert!(
                err.contains(&location),
                "{sub} {to}: no {location} in {err}"
            );
            assert!(err.contains("hint:"), "{err}");
            assert_eq!(snapshot(&s.0), before, "{sub} {to} touched a file");
        }
    }
}

#[test]
fn plan_prints_per_study_and_total_estimates() {
    let s = Scratch::new("plan-estimate");
    let out = run(runner_sub(&s.0, "plan")
        .arg(workspace_root().join("experiments/wang.toml"))
        .args(["--profile", "full", "--threads", "2"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("estimate: "), "{text}");
    let total = text
        .lines()
        .find(|l| l.starts_with("total: "))
        .expect("a total line");
    assert!(
        total.contains("core-hours") && total.contains("wall on 2 threads"),
        "{total}"
    );
    assert!(total.contains("peak memory"), "{total}");
    // Above the 24 core-hour ceiling: plan reports it, a run would be refused.
    assert!(
        text.contains("note: a run of this plan would be refused"),
        "{text}"
    );
}

#[test]
fn a_run_above_the_ceiling_or_the_memory_is_refused_before_anything_runs() {
    let s = Scratch::new("ceiling");
    let wang = workspace_root().join("experiments/wang.toml");
    let start = Instant::now();
    let out = run(runner(&s.0).arg(&wang).args(["--profile", "full"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(start.elapsed() < Duration::from_secs(1));
    let err = stderr(&out);
    assert!(err.contains("above the ceiling of 24 core-hours"), "{err}");
    assert!(err.contains("wang.toml:"), "{err}");
    assert!(err.contains("--yes"), "{err}");
    // A lower ceiling refuses table 1's quick profile as well.
    let table1 = workspace_root().join("experiments/table1.toml");
    let out =
        run(runner(&s.0)
            .arg(&table1)
            .args(["--profile", "quick", "--max-core-hours", "0.0001"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("above the ceiling of 0.0001 core-hours"));
    // --max-memory below a cell's estimate refuses, in plan and in a run.
    for sub in ["plan", "run"] {
        let out = run(runner_sub(&s.0, sub).arg(&table1).args([
            "--profile",
            "quick",
            "--max-memory",
            "1M",
        ]));
        assert_eq!(out.status.code(), Some(2), "{sub}: {}", stderr(&out));
        assert!(stderr(&out).contains("(--max-memory)"), "{}", stderr(&out));
    }
    let out = run(runner_sub(&s.0, "plan")
        .arg(&table1)
        .args(["--max-memory", "lots"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !s.path("results").exists(),
        "a refused run created the results directory"
    );
}
