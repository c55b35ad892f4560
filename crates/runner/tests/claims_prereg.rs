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
