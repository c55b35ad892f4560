//! Sharded runs merge into datasets bitwise identical to a single-machine run;
//! missing and foreign parts are refused; the Slurm scripts wire the array index
//! to --shard and the merge to the array's success.

mod common;

use common::{datasets, run, runner, runner_sub, runner_with_results, small_spec, stderr, Scratch};

#[test]
fn shards_merge_to_the_single_machine_datasets_and_bad_parts_are_refused() {
    let scratch = Scratch::new("shards");
    let spec = scratch.write("s.toml", &small_spec("sharded", 5, 4, 1e5));
    let single = scratch.path("single");
    let out = run(runner_with_results(&scratch.0, &single)
        .arg(&spec)
        .args(["--quiet", "--no-check"]));
    assert!(out.status.success(), "{}", stderr(&out));

    for i in 0..3 {
        let out =
            run(runner(&scratch.0)
                .arg(&spec)
                .args(["--quiet", "--shard", &format!("{i}/3")]));
        assert!(out.status.success(), "shard {i}: {}", stderr(&out));
        assert!(scratch
            .path(&format!("results/sharded.shard-{i}-of-3.h5"))
            .exists());
    }
    assert!(
        !scratch.path("results/sharded.h5").exists(),
        "a shard must not write the merged file"
    );

    // A missing part is reported by index, and nothing is written.
    let part1 = scratch.path("results/sharded.shard-1-of-3.h5");
    let kept = scratch.path("kept.h5");
    std::fs::rename(&part1, &kept).unwrap();
    let out = run(runner_sub(&scratch.0, "merge")
        .arg(&spec)
        .args(["--shards", "3", "--quiet"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("missing shard part(s) [1] of 3"),
        "{}",
        stderr(&out)
    );
    assert!(!scratch.path("results/sharded.h5").exists());

    // A part from another seed is refused.
    let other = scratch.write(
        "o.toml",
        &small_spec("sharded", 5, 4, 1e5).replace("seed = 7", "seed = 8"),
    );
    let out = run(runner(&scratch.0)
        .arg(&other)
        .args(["--quiet", "--shard", "1/3"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(runner_sub(&scratch.0, "merge")
        .arg(&spec)
        .args(["--shards", "3", "--quiet"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("different spec or seed"),
        "{}",
        stderr(&out)
    );

    // With the right part back, the merge equals the single-machine run.
    std::fs::rename(&kept, &part1).unwrap();
    let out = run(runner_sub(&scratch.0, "merge").arg(&spec).args([
        "--shards",
        "3",
        "--quiet",
        "--no-check",
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    let a = datasets(&single.join("sharded.h5"));
    let b = datasets(&scratch.path("results/sharded.h5"));
    assert!(a.len() > 10);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert_eq!(
            v, &b[k],
            "dataset {k} differs between merged shards and a single run"
        );
    }
}

#[test]
fn sbatch_writes_an_array_wired_to_shards_and_a_dependent_merge() {
    let scratch = Scratch::new("sbatch");
    let spec = scratch.write("s.toml", &small_spec("slurmy", 3, 3, 1e4));
    let out = run(runner_sub(&scratch.0, "sbatch")
        .arg(&spec)
        .args([
            "--shards",
            "4",
            "--partition",
            "short",
            "--time",
            "00:10:00",
            "--cpus-per-task",
            "2",
            "--out",
        ])
        .arg(scratch.path("slurm")));
    assert!(out.status.success(), "{}", stderr(&out));
    let array = std::fs::read_to_string(scratch.path("slurm/slurmy-array.sbatch")).unwrap();
    let merge = std::fs::read_to_string(scratch.path("slurm/slurmy-merge.sbatch")).unwrap();
    let submit = std::fs::read_to_string(scratch.path("slurm/slurmy-submit.sh")).unwrap();
    for needle in [
        "#SBATCH --array=0-3",
        "#SBATCH --partition=short",
        "#SBATCH --time=00:10:00",
        "#SBATCH --cpus-per-task=2",
        "--shard \"${SLURM_ARRAY_TASK_ID}/4\"",
    ] {
        assert!(
            array.contains(needle),
            "array script lacks {needle}:\n{array}"
        );
    }
    assert!(
        merge.contains(" merge ") && merge.contains("--shards 4"),
        "{merge}"
    );
    assert!(submit.contains("--dependency=afterok:"), "{submit}");
    for script in [&array, &merge] {
        let status = std::process::Command::new("bash")
            .arg("-n")
            .arg("-c")
            .arg(script)
            .status()
            .unwrap();
        assert!(status.success(), "not valid bash:\n{script}");
    }
}
