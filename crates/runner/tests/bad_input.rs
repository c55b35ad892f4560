//! Every class of bad input: a specific message at file:line:column, exit code 2,
//! and an existing results file left byte-for-byte unchanged.

mod common;

use common::{run, runner, runner_sub, small_spec, stderr, Scratch};

/// (what, spec text, expected message fragment, expected line of the error or 0 when unknown).
fn cases() -> Vec<(&'static str, String, &'static str, usize)> {
    let good = small_spec("badin", 3, 3, 1e4);
    let replace = |from: &str, to: &str| {
        assert!(good.contains(from), "test setup: {from:?} not in spec");
        good.replacen(from, to, 1)
    };
    let line_of = |needle: &str| good.lines().position(|l| l.contains(needle)).unwrap() + 1;
    vec![
        (
            "unknown top-level key",
            replace("seed = 7", "seed = 7\nsede = 8"),
            "unknown field `sede`",
            line_of("seed = 7") + 1,
        ),
        (
            "unknown study key",
            replace(
                "metric = \"excess_empirical_risk\"",
                "metric = \"excess_empirical_risk\"\nmetrik = 1",
            ),
            "unknown field `metrik`",
            line_of("metric =") + 1,
        ),
        (
            "missing field",
            replace("metric = \"excess_empirical_risk\"\n", ""),
            "missing field `metric`",
            0,
        ),
        (
            "eps <= 0",
            replace("eps = 1.0 }", "eps = -1.0 }"),
            "eps = -1 is out of range",
            line_of("eps = 1.0 }"),
        ),
        (
            "rho for an (eps, delta) algorithm",
            replace("eps = 1.0 }", "eps = 1.0, rho = 0.5 }"),
            "is calibrated for (eps, delta)-DP; `rho` does not apply",
            line_of("eps = 1.0 }"),
        ),
        (
            "missing eps for an (eps, delta) algorithm",
            replace("eps = 1.0 }", "delta = 0.0 }"),
            "missing `privacy.eps`",
            line_of("eps = 1.0 }"),
        ),
        (
            "a swept privacy parameter also fixed",
            replace("privacy = { delta = 1e-6 }", "privacy = { eps = 1.0, delta = 1e-6 }"),
            "`eps` is both fixed here and swept in the grid",
            line_of("privacy = { delta = 1e-6 }"),
        ),
        (
            "an algorithm on a family it does not accept",
            replace(
                "algorithm = { name = \"output_perturbation_conceptual\" }",
                "algorithm = { name = \"op_regularized\" }",
            ),
            "algorithm `op_regularized` does not accept family `diagonal_quadratic`",
            line_of("problem = { family = \"diagonal_quadratic\", d = 10 }"),
        ),
        (
            "rho swept for an (eps, delta) algorithm",
            replace(
                "grid = { eps = [0.1, 0.2, 0.5]",
                "grid = { rho = [0.1, 0.2, 0.5]",
            ),
            "`rho` does not apply",
            line_of("grid = { eps"),
        ),
        (
            "delta outside [0, 1)",
            replace("delta = 1e-6", "delta = 1.5"),
            "delta = 1.5 is outside [0, 1)",
            line_of("delta = 1e-6"),
        ),
        (
            "delta beyond the algorithm's calibration",
            replace("delta = 1e-6", "delta = 0.7"),
            "outside [0, 0.5)",
            line_of("delta = 1e-6"),
        ),
        (
            "n < 2 in a grid",
            replace("log_range = [1e3,", "log_range = [1,"),
            "n = 1 is out of range",
            line_of("log_range"),
        ),
        (
            "n < 2 fixed",
            replace("n = 2000,", "n = 1,"),
            "n = 1 is out of range",
            line_of("n = 2000,"),
        ),
        (
            "empty grid",
            replace("grid = { eps = [0.1, 0.2, 0.5], d = [2, 4] }", "grid = {}"),
            "the grid is empty",
            line_of("grid = { eps"),
        ),
        (
            "empty axis",
            replace("eps = [0.1, 0.2, 0.5]", "eps = []"),
            "has no values",
            line_of("grid = { eps"),
        ),
        (
            "unknown family",
            replace(
                "family = \"diagonal_quadratic\", d = 10",
                "family = \"diagonal_cubic\", d = 10",
            ),
            "unknown problem family `diagonal_cubic`",
            line_of("d = 10 }"),
        ),
        (
            "unknown algorithm",
            replace(
                "name = \"output_perturbation_conceptual\" }",
                "name = \"magic\" }",
            ),
            "unknown algorithm `magic`",
            line_of("name = \"output_perturbation_conceptual\" }"),
        ),
        (
            "unknown problem parameter",
            replace("d = 10 }", "d = 10, dim = 3 }"),
            "unknown parameter `dim`",
            line_of("d = 10 }"),
        ),
        (
            "bad choice",
            replace("sensitivity = \"paper\"", "sensitivity = \"loose\""),
            "is not a valid choice",
            line_of("sensitivity = \"paper\""),
        ),
        (
            "wrong type",
            replace("repetitions = 3", "repetitions = \"three\""),
            "invalid type",
            line_of("repetitions = 3"),
        ),
        (
            "fit window with too few points",
            replace("tolerance = 0.3 }", "tolerance = 0.3, fit = [1e3, 2e3] }"),
            "contains 1 grid values",
            line_of("tolerance = 0.3 }"),
        ),
        (
            "saddle algorithm on an objective family (González et al.)",
            replace(
                "name = \"output_perturbation_conceptual\" }",
                "name = \"ggp_alg1\" }",
            ),
            "runs on saddle problems but family `diagonal_quadratic` generates objective problems",
            line_of("name = \"output_perturbation_conceptual\" }"),
        ),
        (
            "TOML syntax error",
            replace("seed = 7", "seed = = 7"),
            "",
            line_of("seed = 7"),
        ),
        (
            "a Menart et al. KL family with an objective algorithm",
            replace(
                "family = \"diagonal_quadratic\", d = 10",
                "family = \"kl_power_tilt\", d = 10",
            ),
            "runs on objective problems but family `kl_power_tilt` generates kl_objective problems",
            line_of("name = \"output_perturbation_conceptual\" }"),
        ),
        (
            "duplicate study names",
            replace("name = \"eps_gauss\"", "name = \"n_pure\""),
            "duplicate study name",
            line_of("name = \"eps_gauss\""),
        ),
        (
            "extends a study the file does not have",
            replace(
                "name = \"eps_gauss\"",
                "name = \"eps_gauss\"\nextends = \"n_puer\"",
            ),
            "study `eps_gauss` extends `n_puer`, which is no other study of this file",
            line_of("name = \"eps_gauss\"") + 1,
        ),
        (
            // good.toml sits beside bad.toml in the scratch directory.
            "extends a study a file beside it does not have",
            replace(
                "name = \"eps_gauss\"",
                "name = \"eps_gauss\"\nextends = \"good.toml:n_puer\"",
            ),
            "study `eps_gauss` extends `good.toml:n_puer`, which is no study of good.toml",
            line_of("name = \"eps_gauss\"") + 1,
        ),
        (
            "extends a study of a file that does not exist",
            replace(
                "name = \"eps_gauss\"",
                "name = \"eps_gauss\"\nextends = \"absent.toml:n_pure\"",
            ),
            "absent.toml cannot be read: ",
            line_of("name = \"eps_gauss\"") + 1,
        ),
        (
            "extends a study of another algorithm",
            replace(
                "name = \"n_pure\"",
                "name = \"n_pure\"\nextends = \"eps_gauss\"",
            )
            .replacen(
                "algorithm = { name = \"output_perturbation_conceptual\", sensitivity = \"paper\" }",
                "algorithm = { name = \"op_conceptual_projected\" }",
                1,
            ),
            "a farther window must run the same algorithm on the same family",
            line_of("name = \"n_pure\"") + 1,
        ),
        (
            "a chain of extends that loops",
            replace(
                "name = \"n_pure\"",
                "name = \"n_pure\"\nextends = \"eps_gauss\"",
            )
            .replacen(
                "name = \"eps_gauss\"",
                "name = \"eps_gauss\"\nextends = \"n_pure\"",
                1,
            ),
            "study `n_pure` extends a chain that returns to `n_pure` (n_pure -> eps_gauss)",
            line_of("name = \"n_pure\"") + 1,
        ),
        (
            "a grid point outside the algorithm's proven range (objective perturbation's delta <= 1/n^2)",
            replace(
                "problem = { family = \"diagonal_quadratic\", d = 10 }\nalgorithm = { name = \"output_perturbation_conceptual\" }\nprivacy = { eps = 1.0 }",
                "problem = { family = \"lin_ball\", d = 4 }\nalgorithm = { name = \"objp\" }\nprivacy = { eps = 1.0, delta = 1e-7 }",
            ),
            "study `n_pure`: objective perturbation takes delta <= 1/n^2 (Algorithms 2-3 input): delta = 1e-7 is above 1/n^2",
            line_of("log_range = [1e3"),
        ),
        (
            "halfspace algorithm on an objective family",
            replace(
                "name = \"output_perturbation_conceptual\" }",
                "name = \"wang_m_star\" }",
            ),
            "algorithm `wang_m_star` runs on halfspace problems but family `diagonal_quadratic` generates objective problems",
            line_of("name = \"output_perturbation_conceptual\" }"),
        ),
    ]
}

#[test]
fn bad_input_is_rejected_precisely_and_leaves_results_untouched() {
    let scratch = Scratch::new("badin");
    let good = scratch.write("good.toml", &small_spec("badin", 3, 3, 1e4));
    let first = run(runner(&scratch.0)
        .arg(&good)
        .arg("--quiet")
        .arg("--no-check"));
    assert!(
        first.status.success(),
        "good spec must run: {}",
        stderr(&first)
    );
    let results = scratch.path("results/badin.h5");
    let before = std::fs::read(&results).unwrap();

    for (what, text, fragment, line) in cases() {
        let path = scratch.write("bad.toml", &text);
        let out = run(runner(&scratch.0).arg(&path).arg("--quiet"));
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{what}: exit code, stderr:\n{err}"
        );
        assert!(
            err.contains(fragment),
            "{what}: expected {fragment:?} in:\n{err}"
        );
        assert!(err.contains("hint:"), "{what}: no hint in:\n{err}");
        let expected_location = format!("{}:", path.display());
        assert!(
            err.contains(&expected_location),
            "{what}: no file location in:\n{err}"
        );
        if line > 0 {
            let loc = format!("{}:{line}:", path.display());
            assert!(
                err.contains(&loc),
                "{what}: expected location {loc} in:\n{err}"
            );
        }
        assert_eq!(
            std::fs::read(&results).unwrap(),
            before,
            "{what}: results file changed"
        );
    }

    // A changed spec (different grid) is refused against the old file...
    let changed = scratch.write("good.toml", &small_spec("badin", 3, 4, 1e4));
    let out = run(runner(&scratch.0).arg(&changed).arg("--quiet"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("different spec"), "{}", stderr(&out));
    assert!(stderr(&out).contains("--fresh"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&results).unwrap(),
        before,
        "changed spec: results file changed"
    );
    // ...and an unknown profile or a missing file too.
    let out = run(runner(&scratch.0).arg(&good).arg("--profile").arg("nope"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown profile `nope`"),
        "{}",
        stderr(&out)
    );
    // Per-study repetitions in a profile: an unknown study or fewer than 2
    // runs is refused at its line; a valid one changes only that study.
    let base = small_spec("badin", 3, 3, 1e4);
    for (table, fragment) in [
        ("nope = 4", "profile overrides unknown study `nope`"),
        ("n_pure = 1", "repetitions = 1 is too small"),
    ] {
        let text = format!("{base}\n[profiles.quick.study_repetitions]\n{table}\n");
        let line = text.lines().position(|l| l == table).unwrap() + 1;
        let path = scratch.write("bad.toml", &text);
        let out = run(runner(&scratch.0).arg(&path).args(["--profile", "quick"]));
        assert_eq!(out.status.code(), Some(2), "{table}: {}", stderr(&out));
        assert!(stderr(&out).contains(fragment), "{table}: {}", stderr(&out));
        if table.starts_with("n_pure") {
            let loc = format!("{}:{line}:", path.display());
            assert!(stderr(&out).contains(&loc), "{table}: {}", stderr(&out));
        }
    }
    let text = format!("{base}\n[profiles.quick.study_repetitions]\nn_pure = 5\n");
    let path = scratch.write("reps.toml", &text);
    let out = run(runner_sub(&scratch.0, "plan")
        .arg(&path)
        .args(["--profile", "quick"]));
    let plan = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(plan.contains("3 grid points x 5 repetitions"), "{plan}");
    assert!(plan.contains("6 grid points x 3 repetitions"), "{plan}");
    let out = run(runner(&scratch.0).arg(scratch.path("missing.toml")));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read experiment file"));
    assert_eq!(std::fs::read(&results).unwrap(), before);

    // --fresh accepts the changed spec.
    let out = run(runner(&scratch.0)
        .arg(&changed)
        .arg("--quiet")
        .arg("--fresh")
        .arg("--no-check"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(std::fs::read(&results).unwrap(), before);
}

/// A quick profile whose grid is too short for the default's slope window is
/// rejected at the window; `[profiles.quick.expect]` replaces the study's
/// expectations in that profile only, and an override of an unknown study is
/// rejected.
#[test]
fn profile_expectations_replace_the_study_expect() {
    let s = Scratch::new("profile-expect");
    let short = "\n[profiles.quick.grids]\nn_pure = { n = [1000, 2000] }\n";
    let plan = |text: &str, profile: Option<&str>| {
        let path = s.write("pe.toml", text);
        let mut cmd = runner_sub(&s.0, "plan");
        cmd.arg(&path);
        if let Some(p) = profile {
            cmd.args(["--profile", p]);
        }
        run(&mut cmd)
    };
    let base = small_spec("pe", 3, 3, 1e4);
    let out = plan(&format!("{base}{short}"), Some("quick"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("contains 2 grid values"),
        "{}",
        stderr(&out)
    );

    let overridden =
        format!("{base}{short}\n[profiles.quick.expect]\nn_pure = {{ below_bound = true }}\n");
    let out = plan(&overridden, Some("quick"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("expect slope"));
    // The default profile keeps the study's own slope.
    let out = plan(&overridden, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("expect slope in n"));

    let unknown = format!("{base}\n[profiles.quick.expect]\nnope = {{ below_bound = true }}\n");
    let out = plan(&unknown, Some("quick"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown study `nope`"),
        "{}",
        stderr(&out)
    );
}
