//! `runner audit`: bad input is refused before anything runs; the runs do not
//! depend on the thread count and an audit resumed from a partial file gives
//! the same bits as one run in one go; the committed spec audits every
//! private algorithm, and each of its pairs differs in exactly one record
//! under the relation the algorithm claims.

use std::path::{Path, PathBuf};

use runner::app::{main_with_args, EXIT_BAD_INPUT, EXIT_OK};
use runner::audit::{execute::build_pair, spec};
use runner::registry::Relation;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn audit(spec: &Path, results: &Path, extra: &[&str]) -> i32 {
    let mut args: Vec<String> = ["runner", "audit", "--quiet", "--results-dir"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(results.display().to_string());
    args.push(spec.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    main_with_args(args.into_iter().map(std::ffi::OsString::from))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("audit-cmd-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const HEADER: &str = "name = \"t\"\nseed = 7\nalpha = 1e-3\nzcdp_delta = 1e-5\n";

/// One Gaussian output-perturbation audit with `runs` runs a side.
fn one_audit(runs: usize) -> String {
    format!(
        "{HEADER}[[audit]]\nname = \"op\"\nalgorithm = \"output_perturbation_conceptual\"\nrole = \"default\"\n\
         n = 4\nd = 1\nclaim = {{ eps = 1.0, delta = 1e-5 }}\nruns = {runs}\nexpect = \"consistent\"\n"
    )
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let dir = scratch("bad");
    let row = |body: &str| {
        format!("{HEADER}[[audit]]\nname = \"x\"\nrole = \"default\"\nn = 4\nd = 1\nruns = 100\nexpect = \"consistent\"\n{body}")
    };
    let cases = [
        row("algorithm = \"no_such\"\nclaim = { eps = 1.0, delta = 1e-5 }"),
        // A non-private baseline declares no audit.
        row("algorithm = \"erm\"\nclaim = { eps = 1.0, delta = 1e-5 }"),
        row("algorithm = \"output_perturbation_conceptual\"\nclaim = { eps = 1.0, delta = 1e-5 }\noptions = { no_such = 1 }"),
        row("algorithm = \"output_perturbation_conceptual\"\nclaim = { eps = 1.0, delta = 1e-5 }\noptions = { sensitivity = \"loose\" }"),
        // The wrong privacy unit.
        row("algorithm = \"output_perturbation_conceptual\"\nclaim = { rho = 0.5 }"),
        row("algorithm = \"output_perturbation_conceptual\"\nclaim = { eps = -1.0, delta = 1e-5 }"),
        // A control must keep the claim's delta.
        row("algorithm = \"output_perturbation_conceptual\"\nclaim = { eps = 1.0, delta = 1e-5 }\nrun_at = { eps = 2.0, delta = 1e-3 }"),
        format!("{}{}", one_audit(100), one_audit(100).trim_start_matches(HEADER)),
        // The power search has 5 grid points.
        format!("{}power_probes = 0\n", one_audit(100)),
        format!("{}power_probes = 6\n", one_audit(100)),
        "name = \"t\"\n".to_string(),
    ];
    for (i, text) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.toml"));
        std::fs::write(&path, text).unwrap();
        assert_eq!(audit(&path, &dir, &[]), EXIT_BAD_INPUT, "case {i}:\n{text}");
        assert!(!dir.join("t.h5").exists(), "case {i} wrote results");
    }
    assert_eq!(audit(&dir.join("missing.toml"), &dir, &[]), EXIT_BAD_INPUT);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn runs_do_not_depend_on_threads_or_on_an_interruption() {
    let bits = |dir: &Path| {
        let csv = std::fs::read_to_string(dir.join("t.csv")).unwrap();
        let h5 = hdf5_pure::File::open(dir.join("t.h5")).unwrap();
        let col = |n: &str| {
            h5.dataset(&format!("audits/op/{n}"))
                .unwrap()
                .read_f64()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<u64>>()
        };
        (csv, col("d"), col("d_prime"))
    };
    let one = scratch("one");
    std::fs::write(one.join("s.toml"), one_audit(1500)).unwrap();
    assert_eq!(
        audit(&one.join("s.toml"), &one, &["--threads", "1"]),
        EXIT_OK
    );
    let two = scratch("two");
    std::fs::write(two.join("s.toml"), one_audit(1500)).unwrap();
    assert_eq!(
        audit(&two.join("s.toml"), &two, &["--threads", "2"]),
        EXIT_OK
    );
    assert_eq!(bits(&one), bits(&two));
    // An audit stopped after 700 runs (the file a SIGINT leaves) and resumed
    // with the full count: the same runs, bit for bit.
    let resumed = scratch("resumed");
    std::fs::write(resumed.join("s.toml"), one_audit(700)).unwrap();
    assert_eq!(audit(&resumed.join("s.toml"), &resumed, &[]), EXIT_OK);
    std::fs::write(resumed.join("s.toml"), one_audit(1500)).unwrap();
    assert_eq!(audit(&resumed.join("s.toml"), &resumed, &[]), EXIT_OK);
    let (_, d, dp) = bits(&one);
    let (_, rd, rdp) = bits(&resumed);
    assert_eq!((d.len(), dp.len()), (1500, 1500));
    assert_eq!((rd, rdp), (d, dp));
    for dir in [one, two, resumed] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn the_committed_spec_audits_every_private_algorithm_on_neighbouring_pairs() {
    let plan = spec::load(&workspace().join("experiments/audit.toml"), None).unwrap();
    for def in runner::registry::algorithms() {
        // An entry that releases nothing private says so
        // (`AlgorithmDef::not_private`); it may appear only as a control (the
        // noiseless `one_pass_sgd` shows that the audit flags a non-private
        // release). A new private algorithm without an audit fails here.
        if !def.private {
            assert!(
                !plan
                    .audits
                    .iter()
                    .any(|a| a.algorithm.name == def.name && a.row.role == spec::Role::Default),
                "{} releases nothing private: it may appear only as a control",
                def.name
            );
            continue;
        }
        assert!(
            def.audit.is_some(),
            "{} is private but declares no audit",
            def.name
        );
        assert!(
            plan.audits
                .iter()
                .any(|a| a.algorithm.name == def.name && a.row.role == spec::Role::Default),
            "{} has no default audit row in experiments/audit.toml",
            def.name
        );
    }
    for a in &plan.audits {
        // build_pair refuses a pair that is not neighbouring (differ_in_one_record).
        let pair = build_pair(a).unwrap_or_else(|e| panic!("{e:#}"));
        let add_remove = a
            .options
            .get("neighbouring")
            .is_some_and(|v| *v == runner::registry::Value::Str("add_remove".into()));
        let want = if add_remove {
            Relation::AddRemove
        } else {
            Relation::ReplaceOne
        };
        assert_eq!(pair.relation, want, "audit `{}`", a.row.name);
        assert_eq!(
            pair.instances[0].kind(),
            a.algorithm.run.kind(),
            "audit `{}`",
            a.row.name
        );
    }
}

/// The exit code is the expectation check (issue 37): 0 when every verdict
/// is the one the spec expects, 1 as soon as one differs (here the same
/// stored runs with the expectation flipped), 0 again with `--no-check`.
#[test]
fn a_flipped_expectation_fails_the_command() {
    let dir = scratch("flip");
    let spec = dir.join("s.toml");
    std::fs::write(&spec, one_audit(1500)).unwrap();
    assert_eq!(audit(&spec, &dir, &[]), EXIT_OK);
    std::fs::write(
        &spec,
        one_audit(1500).replace("expect = \"consistent\"", "expect = \"violation\""),
    )
    .unwrap();
    assert_eq!(audit(&spec, &dir, &[]), runner::app::EXIT_CHECK_FAILED);
    let md = std::fs::read_to_string(dir.join("t.md")).unwrap();
    assert!(md.contains("**(unexpected)**"), "{md}");
    assert_eq!(audit(&spec, &dir, &["--no-check"]), EXIT_OK);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The stored runs' identity carries the hash of the algorithms' code, so a
/// change of the code recomputes them (issue 37).
#[test]
fn the_run_identity_names_the_code() {
    let hash = runner::audit::execute::ALGORITHM_CODE_HASH;
    assert_eq!(hash.len(), 32, "{hash}");
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
    let plan = spec::load(&workspace().join("experiments/audit.toml"), None).unwrap();
    let id = runner::audit::execute::identity(&plan.audits[0], 1);
    assert!(id.contains(&format!("code={hash}")), "{id}");
    // The random streams do not depend on it: an edit elsewhere in the
    // code (a comment, another algorithm) reproduces every run bit for bit.
    let seeds = runner::audit::execute::seed_identity(&plan.audits[0], 1);
    assert!(
        !seeds.contains(hash) && id.ends_with(&seeds),
        "{seeds} / {id}"
    );
}

/// A declared Gaussian-DP fit on a release clipped into atoms is refused on
/// the runs and the threshold audit is used, with the reason in the row; the
/// CSV carries the 95% power (issue 37).
#[test]
fn a_clipped_release_falls_back_to_the_threshold_audit() {
    let dir = scratch("clip");
    let spec = dir.join("s.toml");
    std::fs::write(
        &spec,
        format!(
            "{HEADER}[[audit]]\nname = \"clip\"\nalgorithm = \"ggp_dp_sgd_simplex\"\nrole = \"default\"\n\
             n = 2\nd = 2\nclaim = {{ eps = 1.0, delta = 1e-5 }}\nruns = 4000\nexpect = \"consistent\"\n"
        ),
    )
    .unwrap();
    assert_eq!(audit(&spec, &dir, &[]), EXIT_OK);
    let csv = std::fs::read_to_string(dir.join("t.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), row.len(), "{csv}");
    let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("estimator"), "threshold (Clopper-Pearson)");
    assert!(col("gaussian_fit_refused").contains("atoms"), "{csv}");
    assert!(col("mu_lower").is_empty(), "{csv}");
    let reference: f64 = col("reference_eps_95").parse().unwrap();
    let typical: f64 = col("smallest_detectable_eps").parse().unwrap();
    assert!(reference > typical && typical > 1.0, "{csv}");
    // The power for this statistic comes from probes at reference x 1.5^k:
    // the reference is probed, each probe is listed in increasing eps' with
    // its bootstrap rate, and the power is the smallest eps' with rate >=
    // 0.95 (or none, with the reason).
    let probes: Vec<(f64, f64)> = col("power_probes")
        .split(';')
        .map(|p| {
            let (e, r) = p.split_once(':').unwrap();
            (e.parse().unwrap(), r.parse().unwrap())
        })
        .collect();
    assert!((probes[0].0 - reference).abs() < 1e-3, "{csv}");
    assert!(probes.windows(2).all(|w| w[0].0 < w[1].0), "{csv}");
    let first_flagged = probes.iter().position(|p| p.1 >= 0.95);
    match col("detectable_eps_95") {
        "" => {
            assert_eq!(first_flagged, None, "{csv}");
            assert!(col("power_note").contains("not flagged"), "{csv}");
        }
        power => {
            let power: f64 = power.parse().unwrap();
            let first = probes[first_flagged.expect("a flagged probe")];
            assert!((first.0 - power).abs() < 1e-3, "{csv}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A rerun reads the power probes' bootstrap rates back from the file
/// instead of recomputing them (at the committed sizes the recomputation
/// took about 35 minutes before anything new ran): with every stored rate
/// set to 1 (a sentinel no bootstrap of these runs gives at every probe),
/// the rerun's power is the first probe's, so the rates were read.
#[test]
fn a_rerun_reads_the_bootstrap_rates_back() {
    let dir = scratch("rates");
    std::fs::write(dir.join("s.toml"), one_audit(1500)).unwrap();
    assert_eq!(audit(&dir.join("s.toml"), &dir, &[]), EXIT_OK);
    let row = |dir: &Path| -> Vec<String> {
        let csv = std::fs::read_to_string(dir.join("t.csv")).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let values: Vec<&str> = lines.next().unwrap().split(',').collect();
        ["reference_eps_95", "detectable_eps_95", "power_probes"]
            .iter()
            .map(|c| values[header.iter().position(|h| h == c).unwrap()].to_string())
            .collect()
    };
    let first = row(&dir);
    assert_ne!(
        first[0], first[1],
        "the sentinel must change the power: {first:?}"
    );
    let path = dir.join("t.h5");
    let mut store = runner::audit::store::AuditStore::open(&path, false).unwrap();
    let mut kept = 0;
    for runs in store.audits.values_mut() {
        for r in runs.rates.values_mut() {
            *r = 1.0;
            kept += 1;
        }
    }
    assert!(kept > 0, "no rates were stored");
    store.flush().unwrap();
    assert_eq!(audit(&dir.join("s.toml"), &dir, &[]), EXIT_OK);
    let second = row(&dir);
    assert_eq!(
        second[0], second[1],
        "power from the stored rates: {second:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A row limited to one probe (`power_probes = 1`) probes the reference
/// only, and its note says the spec stopped the search there; without the
/// limit the same row probes further.
#[test]
fn power_probes_limits_the_search_and_says_so() {
    let dir = scratch("power-probes");
    let power = |text: String| -> (String, String) {
        std::fs::write(dir.join("s.toml"), text).unwrap();
        assert_eq!(audit(&dir.join("s.toml"), &dir, &["--fresh"]), EXIT_OK);
        let csv = std::fs::read_to_string(dir.join("t.csv")).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let values: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        let col = |c: &str| values[header.iter().position(|h| *h == c).unwrap()].clone();
        (col("power_probes"), col("power_note"))
    };
    // 300 runs a side: too few for the reference release to be flagged with
    // probability 0.95, so the unlimited search goes on past it.
    let (free, _) = power(one_audit(300));
    assert!(free.split(';').count() >= 2, "{free}");
    let (limited, note) = power(format!("{}power_probes = 1\n", one_audit(300)));
    assert_eq!(limited.split(';').count(), 1, "{limited}");
    assert_eq!(
        limited,
        free.split(';').next().unwrap(),
        "the same reference probe"
    );
    assert!(note.contains("limits this row to 1 probe"), "{note}");
    std::fs::remove_dir_all(dir).unwrap();
}
