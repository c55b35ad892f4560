//! The audit spec goes through the contract's resolver, as the experiment
//! spec does (issue 38 item 1): both accept and refuse the same written
//! values, every audit-spec error is located at the offending key
//! (`file:line:column`) with a hint, exit code 2 and nothing written, and
//! the contract reads every declared default as TOML does.

use std::path::{Path, PathBuf};
use std::process::Command;

use runner::audit::spec;
use runner::spec::LoadedSpec;

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("audit-spec-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An experiment with one study of `wang_m_prime` (an audited
/// `(eps, delta)`-DP algorithm with an integer, float and choice options)
/// writing `options` and `privacy`; `Ok` when it resolves, else the message.
fn experiment(dir: &Path, options: &str, privacy: &str) -> Result<(), String> {
    let text = format!(
        "name = \"x\"\nseed = 7\nrepetitions = 2\n\n[[studies]]\nname = \"s\"\n\
         metric = \"zero_one_error\"\n\
         problem = {{ family = \"wang_isotropic\", d = 4, gamma = 0.5 }}\n\
         algorithm = {{ name = \"wang_m_prime\"{options} }}\n\
         privacy = {{ {privacy} }}\ngrid = {{ n = [16, 32] }}\n"
    );
    let path = dir.join("experiment.toml");
    let spec = runner::spec::parse(&path, &text).map_err(|e| e.message.clone())?;
    let loaded = LoadedSpec { path, text, spec };
    runner::validate::resolve(&loaded, None)
        .map(|_| ())
        .map_err(|e| e.message)
}

/// An audit spec with one row of the same algorithm writing `options` and
/// the claim `privacy`; `Ok` when it loads, else the message.
fn audit(dir: &Path, options: &str, privacy: &str) -> Result<(), String> {
    let text = format!(
        "name = \"t\"\nseed = 7\nalpha = 1e-3\nzcdp_delta = 1e-5\n\n[[audit]]\nname = \"a\"\n\
         algorithm = \"wang_m_prime\"\nrole = \"default\"\nn = 8\nd = 8\n\
         options = {{ {} }}\nclaim = {{ {privacy} }}\nruns = 100\nexpect = \"consistent\"\n",
        options.trim_start_matches(", ")
    );
    let path = dir.join("audit.toml");
    std::fs::write(&path, text).unwrap();
    spec::load(&path, None).map(|_| ()).map_err(|e| e.message)
}

#[test]
fn the_experiment_and_the_audit_spec_accept_and_refuse_the_same_values() {
    let dir = Scratch::new("same");
    let privacy = "eps = 1.0, delta = 1e-5";
    // (written options, whether the value is admissible)
    let options = [
        ("", true),
        // An integer option: integral floats are integers, the rest refused.
        (", max_runs = 1000", true),
        (", max_runs = 1000.0", true),
        (", max_runs = 2.5", false),
        (", max_runs = 0", false),
        (", max_runs = inf", false),
        (", max_runs = \"1000\"", false),
        (", max_runs = true", false),
        // Float options: integers are numbers, non-finite values refused
        // even where the range is unbounded above.
        (", r_factor = 2", true),
        (", r_factor = 1e300", true),
        (", r_factor = inf", false),
        (", r_factor = nan", false),
        (", r_factor = 0.5", false),
        (", jl_constant = 0.0", false),
        (", jl_constant = 1e-300", true),
        // Choices.
        (", mode = \"fast\"", true),
        (", mode = \"slow\"", false),
        (", mode = 1", false),
        // Unknown option.
        (", no_such = 1", false),
    ];
    for (written, admissible) in options {
        let e = experiment(&dir.0, written, privacy);
        let a = audit(&dir.0, written, privacy);
        assert_eq!(e.is_ok(), admissible, "experiment, {written:?}: {e:?}");
        assert_eq!(a.is_ok(), admissible, "audit, {written:?}: {a:?}");
        // One resolver: the same message from both loaders.
        assert_eq!(e, a, "{written:?}");
    }
    let privacies = [
        ("eps = 1, delta = 1e-6", true),
        // wang_m_prime needs delta > 0 (a Gaussian accountant).
        ("eps = 1.0", false),
        ("eps = 1.0, delta = 0", false),
        ("eps = 1e300, delta = 1e-5", true),
        ("eps = inf, delta = 1e-5", false),
        ("eps = nan, delta = 1e-5", false),
        ("eps = 0.0, delta = 1e-5", false),
        ("eps = 1.0, delta = 1.0", false),
        ("eps = 1.0, delta = -1e-9", false),
        ("eps = 1.0, rho = 0.5", false),
        ("rho = 0.5", false),
        ("delta = 1e-5", false),
    ];
    for (written, admissible) in privacies {
        let e = experiment(&dir.0, "", written);
        let a = audit(&dir.0, "", written);
        assert_eq!(e.is_ok(), admissible, "experiment, {written:?}: {e:?}");
        assert_eq!(a.is_ok(), admissible, "audit, {written:?}: {a:?}");
    }
}

/// A valid audit spec: an `(eps, delta)` row, a zCDP row and a profile.
const GOOD: &str = r#"name = "t"
seed = 7
alpha = 1e-3
zcdp_delta = 1e-5

[[audit]]
name = "op"
algorithm = "output_perturbation_conceptual"
role = "default"
n = 4
d = 1
claim = { eps = 1.0, delta = 1e-5 }
runs = 100
expect = "consistent"

[[audit]]
name = "kl"
algorithm = "kl_gaussian_mean"
role = "default"
n = 101
d = 1
claim = { rho = 0.02 }
runs = 100
expect = "consistent"

[profiles.quick]
max_runs = 50
only = ["op"]
"#;

/// (what, the good spec with `from` replaced by `to`, the text whose
/// last occurrence starts where the error must be located)
fn cases() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let op = "runs = 100\nexpect = \"consistent\"\n\n[[audit]]";
    vec![
        ("TOML syntax", "seed = 7", "seed = = 7", "= 7"),
        ("unknown key", "seed = 7", "seed = 7\nsede = 8", "sede"),
        ("missing key", "runs = 100\nexpect = \"consistent\"\n\n[profiles", "expect = \"consistent\"\n\n[profiles", "[[audit]]"),
        ("alpha out of range", "alpha = 1e-3", "alpha = 0.7", "alpha"),
        ("zcdp_delta out of range", "zcdp_delta = 1e-5", "zcdp_delta = 0.0", "zcdp_delta"),
        ("unknown algorithm", "\"output_perturbation_conceptual\"", "\"no_such\"", "algorithm = \"no_such\""),
        ("a non-private algorithm", "\"output_perturbation_conceptual\"", "\"erm\"", "algorithm = \"erm\""),
        ("no transcript statistic", op, "observe = \"transcript\"\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "observe"),
        ("bad role", "role = \"default\"\nn = 4", "role = \"baseline\"\nn = 4", "\"baseline\""),
        ("an erratum without its id", "role = \"default\"\nn = 4", "role = \"erratum\"\nn = 4", "role = \"erratum\""),
        ("bad expect", "expect = \"consistent\"\n\n[[audit]]", "expect = \"violated\"\n\n[[audit]]", "\"violated\""),
        ("duplicate name", "name = \"kl\"", "name = \"op\"", "name = \"op\""),
        ("too few runs", op, "runs = 4\nexpect = \"consistent\"\n\n[[audit]]", "runs = 4"),
        ("n too small", "n = 4", "n = 0", "n = 0"),
        ("d too small", "n = 4\nd = 1", "n = 4\nd = 0", "d = 0"),
        ("unknown option", op, "options = { no_such = 1 }\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "no_such"),
        ("option out of range", op, "options = { noise_multiplier = 0.5 }\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "noise_multiplier"),
        ("option infinite", op, "options = { noise_multiplier = inf }\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "noise_multiplier"),
        ("option not a choice", op, "options = { sensitivity = \"loose\" }\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "sensitivity"),
        ("claim eps <= 0", "eps = 1.0, delta = 1e-5", "eps = -1.0, delta = 1e-5", "eps = -1.0"),
        ("claim delta out of range", "eps = 1.0, delta = 1e-5", "eps = 1.0, delta = 0.7", "delta = 0.7"),
        ("claim of the other unit", "eps = 1.0, delta = 1e-5", "eps = 1.0, rho = 0.25", "rho = 0.25"),
        ("claim missing eps", "{ eps = 1.0, delta = 1e-5 }", "{ delta = 1e-5 }", "claim = { delta"),
        ("zCDP claim with a delta", "{ rho = 0.02 }", "{ rho = 0.02, delta = 1e-5 }", "delta = 1e-5 }\nruns = 100\nexpect = \"consistent\"\n\n[profiles"),
        ("run_at eps <= 0", op, "run_at = { eps = 0.0, delta = 1e-5 }\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "eps = 0.0"),
        ("run_at changing delta", op, "run_at = { eps = 2.0, delta = 1e-3 }\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "delta = 1e-3"),
        ("zcdp_delta on an (eps, delta) row", op, "zcdp_delta = 1e-3\nruns = 100\nexpect = \"consistent\"\n\n[[audit]]", "zcdp_delta = 1e-3"),
        ("zcdp_delta of a row out of range", "claim = { rho = 0.02 }", "claim = { rho = 0.02 }\nzcdp_delta = 2.0", "zcdp_delta = 2.0"),
        ("profile selecting a missing audit", "only = [\"op\"]", "only = [\"op\", \"nope\"]", "\"nope\""),
        ("profile sizing a missing audit", "only = [\"op\"]", "only = [\"op\"]\nruns = { nope = 10 }", "nope ="),
        ("profile probing a missing audit", "only = [\"op\"]", "only = [\"op\"]\npower_probes = { nope = 0 }", "nope ="),
        ("profile probing past the grid", "only = [\"op\"]", "only = [\"op\"]\npower_probes = { op = 6 }", "op ="),
        ("profile selecting nothing", "only = [\"op\"]", "only = []", "only"),
    ]
}

/// Line and column (1-based) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() + 1;
    (line, column)
}

fn run_audit(dir: &Path, spec: &Path, profile: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_runner"));
    cmd.arg("audit")
        .arg("--quiet")
        .arg("--results-dir")
        .arg(dir.join("results"))
        .arg(spec);
    if let Some(p) = profile {
        cmd.arg("--profile").arg(p);
    }
    let out = cmd.output().expect("runner starts");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_audit_spec_error_is_located_with_a_hint_and_writes_nothing() {
    let dir = Scratch::new("located");
    // The good spec loads (under its profile too), so each case below fails
    // for its own edit only.
    let good = dir.0.join("good.toml");
    std::fs::write(&good, GOOD).unwrap();
    spec::load(&good, None).unwrap();
    spec::load(&good, Some("quick")).unwrap();
    for (what, from, to, at) in cases() {
        assert!(
            GOOD.contains(from),
            "{what}: test setup: {from:?} not in the spec"
        );
        let text = GOOD.replacen(from, to, 1);
        let offset = text
            .rfind(at)
            .unwrap_or_else(|| panic!("{what}: {at:?} not in the spec"));
        let (line, column) = line_column(&text, offset);
        let path = dir.0.join("bad.toml");
        std::fs::write(&path, &text).unwrap();
        for profile in [None, Some("quick")] {
            if profile.is_none() && what.starts_with("profile") {
                continue;
            }
            let (code, err) = run_audit(&dir.0, &path, profile);
            assert_eq!(code, Some(2), "{what}: exit code; stderr:\n{err}");
            let location = format!("{}:{line}:{column}: error:", path.display());
            assert!(
                err.contains(&location),
                "{what}: expected {location} in:\n{err}\n{text}"
            );
            assert!(err.contains("hint:"), "{what}: no hint in:\n{err}");
            assert!(
                !dir.0.join("results").exists(),
                "{what}: something was written"
            );
        }
    }
    // An unknown profile is located at the spec's profiles.
    let (code, err) = run_audit(&dir.0, &good, Some("nope"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no profile `nope`"), "{err}");
    let (line, _) = line_column(GOOD, GOOD.find("[profiles.quick]").unwrap());
    assert!(
        err.contains(&format!("{}:{line}:", good.display())),
        "{err}"
    );
    assert!(!dir.0.join("results").exists());
}

/// The contract reads declared defaults (TOML text) without a TOML parser;
/// every registered default must read as `toml` reads it, since a swept
/// parameter's default enters its study's identity hash and an option's
/// default an audit's seed identity.
#[test]
fn every_registered_default_reads_as_toml_reads_it() {
    use runner::registry::{algorithms, declared_default, families, Value};
    let defs = families()
        .flat_map(|f| f.params)
        .chain(algorithms().flat_map(|a| a.options));
    let mut read = 0;
    for def in defs {
        let Some(text) = def.default else { continue };
        let toml: toml::Table = format!("v = {text}").parse().unwrap();
        let want = match &toml["v"] {
            toml::Value::String(s) => Value::Str(s.clone()),
            toml::Value::Integer(i) => Value::Num(*i as f64),
            toml::Value::Float(x) => Value::Num(*x),
            other => panic!("`{}`: default {other:?}", def.name),
        };
        assert_eq!(declared_default(def), Some(want), "`{}` = {text}", def.name);
        read += 1;
    }
    assert!(read > 100, "only {read} defaults read");
}
