//! Pre-registration read from history: in a scratch git repository, a slope
//! expectation committed after the data it judges (the report names the
//! commit the rows were computed at) makes `runner claims --check` fail
//! until it says why with `revised`; one committed before them reads
//! "before". Deterministic (no random numbers): no false-alarm rate.

mod common;

use std::path::Path;
use std::process::Command;

use common::Scratch;

const SPEC: &str = r#"
name = "x"
seed = 1
repetitions = 20

[[studies]]
name = "s"
metric = "excess_empirical_risk"
claims = ["T-1"]
problem = { family = "diagonal_quadratic", d = 4 }
algorithm = { name = "output_perturbation_conceptual" }
privacy = { eps = 1.0 }
grid = { n = [1000, 2000, 4000, 8000, 16000] }
"#;

const EXPECT: &str = "expect = { slopes = { n = { slope = -1.0, tolerance = 0.15 } } }\n";

const CLAIMS: &str = r#"
paper = "T"
experiment = "x"

[[claims]]
id = "T-1"
theorem = "Thm 1"
statement = "excess = O(1/n)"
kind = "upper_bound"
parameter = "n"
evidence = "slope"
expected = "-1"
"#;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn commit(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A summary of an exact `0.5 (n/1000)^-1` with 1% standard errors.
fn summary() -> String {
    let mut s = String::from(
        "study,point,swept,count,failed,mean,se,ci_low,ci_high,median,q10,q90,theory,bound,reference,worst_case_at\n",
    );
    for (i, n) in [1000.0f64, 2000.0, 4000.0, 8000.0, 16000.0]
        .iter()
        .enumerate()
    {
        let m = 0.5 * 1000.0 / n;
        let se = 0.01 * m;
        s.push_str(&format!(
            "s,{i},n={n},20.0,0.0,{m},{se},{},{},{m},{m},{m},,,,\"\"\n",
            m - 2.093 * se,
            m + 2.093 * se
        ));
    }
    s
}

fn claims(s: &Scratch, check: bool) -> i32 {
    let mut args = vec![
        "runner".to_string(),
        "claims".into(),
        "--claims-dir".into(),
        s.path("claims").display().to_string(),
        "--experiments-dir".into(),
        s.path("experiments").display().to_string(),
        "--results-dir".into(),
        s.path("results").display().to_string(),
    ];
    if check {
        args.push("--check".into());
    }
    runner::app::main_with_args(args.into_iter().map(Into::into))
}

fn prereg(s: &Scratch) -> String {
    let text = std::fs::read_to_string(s.path("results/claims.csv")).unwrap();
    let csv = runner::csv::parse_csv(&text).unwrap();
    let col = csv.column("prereg").unwrap();
    csv.get(0, col).unwrap_or_default().to_string()
}

/// The scratch repository with the study's rows computed at a commit whose
/// spec has the expectation (`before`) or not.
fn repo(expectation_first: bool) -> Scratch {
    let s = Scratch::new("prereg");
    for d in ["experiments", "claims", "results"] {
        std::fs::create_dir_all(s.path(d)).unwrap();
    }
    git(&s.0, &["init", "-q"]);
    let spec = if expectation_first {
        format!("{SPEC}{EXPECT}")
    } else {
        SPEC.to_string()
    };
    s.write("experiments/x.toml", &spec);
    s.write("claims/t.toml", CLAIMS);
    let computed_at = commit(&s.0, "the study");
    s.write("results/x.csv", &summary());
    s.write(
        "results/x.md",
        &format!("# x\n\nSource: `results/x.h5`. Commit `{computed_at}`, runs from a to b.\n"),
    );
    s.write("experiments/x.toml", &format!("{SPEC}{EXPECT}"));
    commit(&s.0, "the data, and the expectation");
    s
}

#[test]
fn an_expectation_committed_before_its_data_reads_before_and_passes() {
    let s = repo(true);
    assert_eq!(claims(&s, false), 0);
    assert_eq!(prereg(&s), "before");
    assert_eq!(claims(&s, true), 0);
}

#[test]
fn a_post_hoc_expectation_fails_the_check_until_it_says_why() {
    let s = repo(false);
    assert_eq!(claims(&s, false), 0);
    assert_eq!(prereg(&s), "after");
    assert_eq!(
        claims(&s, true),
        1,
        "a post-hoc expectation without a reason"
    );
    let revised = EXPECT.replace(
        "tolerance = 0.15",
        "tolerance = 0.15, revised = \"written after the first run\"",
    );
    s.write("experiments/x.toml", &format!("{SPEC}{revised}"));
    commit(&s.0, "say why");
    assert_eq!(claims(&s, false), 0);
    assert_eq!(prereg(&s), "after (revised)");
    assert_eq!(claims(&s, true), 0);
}

/// The prereg column of claim `id`.
fn prereg_of(s: &Scratch, id: &str) -> String {
    let text = std::fs::read_to_string(s.path("results/claims.csv")).unwrap();
    let csv = runner::csv::parse_csv(&text).unwrap();
    let (ids, col) = (
        csv.column("claim_id").unwrap(),
        csv.column("prereg").unwrap(),
    );
    (0..)
        .map_while(|r| csv.get(r, ids).map(|v| (r, v.to_string())))
        .find(|(_, v)| v == id)
        .and_then(|(r, _)| csv.get(r, col).map(str::to_string))
        .unwrap_or_else(|| panic!("no row {id}"))
}

/// A study-level `revised` (for the bound, theory and reference checks)
/// marks only the checks that changed after the first run: a bound and a
/// slope committed before the data stay "before" when a later commit adds
/// the study's `revised` (the case of a reference check added after a run,
/// whose reason must not relabel the study's pre-registered checks), and a
/// bound added after the data reads "after (revised)".
#[test]
fn a_study_level_revised_marks_only_the_checks_that_changed() {
    let s = Scratch::new("prereg-study-revised");
    for d in ["experiments", "claims", "results"] {
        std::fs::create_dir_all(s.path(d)).unwrap();
    }
    git(&s.0, &["init", "-q"]);
    let spec = SPEC.replace("claims = [\"T-1\"]", "claims = [\"T-1\", \"T-2\"]");
    let claims_file = format!(
        "{CLAIMS}\n[[claims]]\nid = \"T-2\"\ntheorem = \"Thm 1\"\nstatement = \"excess <= B(n)\"\n\
         kind = \"upper_bound\"\nevidence = \"bound\"\nexpected = \"every mean below the bound\"\n"
    );
    let slopes = "slopes = { n = { slope = -1.0, tolerance = 0.15 } }";
    let before =
        |extra: &str| format!("{spec}expect = {{ below_bound = true, {slopes}{extra} }}\n");
    s.write("experiments/x.toml", &before(""));
    s.write("claims/t.toml", &claims_file);
    let computed_at = commit(&s.0, "the study, its bound and slope");
    // The summary with a bound twice each mean.
    let summary: String = summary()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                return format!("{line}\n");
            }
            let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
            let mean: f64 = cells[5].parse().unwrap();
            cells[13] = format!("{}", 2.0 * mean);
            format!("{}\n", cells.join(","))
        })
        .collect();
    s.write("results/x.csv", &summary);
    s.write(
        "results/x.md",
        &format!("# x\n\nSource: `results/x.h5`. Commit `{computed_at}`, runs from a to b.\n"),
    );
    commit(&s.0, "the data");
    s.write(
        "experiments/x.toml",
        &before(", revised = \"a reference check was added after the run (not this bound)\""),
    );
    commit(&s.0, "a study-level reason");
    assert_eq!(claims(&s, false), 0);
    assert_eq!(
        prereg_of(&s, "T-1"),
        "before",
        "the slope carries its own revised"
    );
    assert_eq!(
        prereg_of(&s, "T-2"),
        "before",
        "the bound is unchanged since the run"
    );
    assert_eq!(claims(&s, true), 0);

    // A bound added only after the data reads after (revised).
    let t = Scratch::new("prereg-study-revised-late");
    for d in ["experiments", "claims", "results"] {
        std::fs::create_dir_all(t.path(d)).unwrap();
    }
    git(&t.0, &["init", "-q"]);
    t.write(
        "experiments/x.toml",
        &format!("{spec}expect = {{ {slopes} }}\n"),
    );
    t.write("claims/t.toml", &claims_file);
    let computed_at = commit(&t.0, "the study and its slope");
    t.write("results/x.csv", &summary);
    t.write(
        "results/x.md",
        &format!("# x\n\nSource: `results/x.h5`. Commit `{computed_at}`, runs from a to b.\n"),
    );
    t.write(
        "experiments/x.toml",
        &before(", revised = \"the bound was added after the run\""),
    );
    commit(&t.0, "the data and a late bound");
    assert_eq!(claims(&t, false), 0);
    assert_eq!(prereg_of(&t, "T-1"), "before");
    assert_eq!(prereg_of(&t, "T-2"), "after (revised)");
}
