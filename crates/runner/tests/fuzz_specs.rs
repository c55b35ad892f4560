//! A fuzzed spec parser (issue 28): mutations of the committed experiment
//! files fed to validation and `plan`, and to a run's validation.
//!
//! Seed [`SEED`]; [`CI_MUTATIONS`] (1 000) mutations in the normal test run,
//! [`LONG_MUTATIONS`] (10 000) in the ignored long version:
//!
//! ```sh
//! cargo test -p runner --test fuzz_specs -- --ignored     # the long version
//! ```
//!
//! Mutations: a number scaled by 10^k (|k| <= 12), replaced by nan, inf or
//! -inf, negated, or swapped for a string, a boolean, an array or a table; a
//! string swapped for a number; a line deleted or duplicated (keys deleted or
//! duplicated); the file truncated; random bytes written over or into it;
//! and several of these at once. Each mutated spec goes through
//! `runner plan` and `runner run --max-core-hours 1e-12` (a ceiling no valid
//! spec is under, so a valid spec is refused at the budget check, after
//! validation and the estimate, before anything is opened) in this process,
//! through [`runner::app::main_with_args`]. For each: the exit code is 0 or 2,
//! never a panic (caught here) or an abort (which would kill the test), each
//! answer comes within a second, and the results directory, which holds an
//! existing results file of every committed spec, is byte-for-byte unchanged.
//! A handful of mutations also go through the binary, to show that no input
//! ends in a signal.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{workspace_root, Scratch};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// Seed of the mutation stream.
const SEED: u64 = 0x2028_f022_5eed;
/// Mutations of the CI version.
const CI_MUTATIONS: usize = 1_000;
/// Mutations of the long version.
const LONG_MUTATIONS: usize = 10_000;
/// Mutations also run through the binary (the first ones of the stream).
const SPAWNED: usize = 8;

struct Corpus {
    specs: Vec<(String, String)>,
}

fn corpus() -> Corpus {
    let dir = workspace_root().join("experiments");
    let mut specs = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            // experiments/audit.toml is an audit spec, not an experiment.
            if !runner::audit::spec::is_audit_spec(&text) {
                specs.push((name, text));
            }
        }
    }
    specs.sort();
    assert!(
        specs.len() >= 6,
        "found only {} committed specs",
        specs.len()
    );
    Corpus { specs }
}

/// Byte ranges of the numbers in `text` (integers, floats, exponents).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if starts {
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_digit()
                    || matches!(b[j], b'.' | b'e' | b'E' | b'_')
                    || ((b[j] == b'-' || b[j] == b'+') && matches!(b[j - 1], b'e' | b'E')))
            {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the double-quoted strings in `text` (quotes included).
fn strings(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c == '"' {
            match start.take() {
                None => start = Some(i),
                Some(s) => out.push((s, i + 1)),
            }
        } else if c == '\n' {
            start = None;
        }
    }
    out
}

fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One mutation of `text` (as bytes: random bytes may break UTF-8).
fn mutate_once(text: &str, rng: &mut Pcg64) -> Vec<u8> {
    let pick =
        |rng: &mut Pcg64, ranges: &[(usize, usize)]| ranges[rng.random_range(0..ranges.len())];
    let replace = |(a, b): (usize, usize), with: &str| {
        format!("{}{with}{}", &text[..a], &text[b..]).into_bytes()
    };
    let nums = numbers(text);
    let strs = strings(text);
    match rng.random_range(0..10u32) {
        0 | 1 if !nums.is_empty() => {
            let r = pick(rng, &nums);
            let value: f64 = text[r.0..r.1].replace('_', "").parse().unwrap_or(1.0);
            let k = rng.random_range(-12..=12i32);
            let scaled = value * 10f64.powi(k);
            // Integers stay integers where they can (1e11 written as 100000000000).
            let with = if scaled.fract() == 0.0 && scaled.abs() < 9e15 {
                format!("{}", scaled as i64)
            } else {
                format!("{scaled:e}")
            };
            replace(r, &with)
        }
        2 if !nums.is_empty() => {
            let r = pick(rng, &nums);
            let with = ["nan", "inf", "-inf", "+nan", "-0.0"][rng.random_range(0..5)];
            replace(r, with)
        }
        3 if !nums.is_empty() => {
            let r = pick(rng, &nums);
            replace(r, &format!("-{}", &text[r.0..r.1]))
        }
        4 if !nums.is_empty() => {
            let r = pick(rng, &nums);
            let with = [
                "\"ten\"",
                "true",
                "[1, 2]",
                "{ a = 1 }",
                "1979-05-27",
                "[]",
                "{}",
            ][rng.random_range(0..7)];
            replace(r, with)
        }
        5 if !strs.is_empty() => {
            let r = pick(rng, &strs);
            let with = [
                "0",
                "1.5",
                "-3",
                "true",
                "[\"x\"]",
                "\"\"",
                "\"no such thing\"",
            ][rng.random_range(0..7)];
            replace(r, with)
        }
        6 | 7 => {
            // Delete or duplicate a line (keys, tables, array entries).
            let lines: Vec<&str> = text.lines().collect();
            let i = rng.random_range(0..lines.len());
            let mut out: Vec<&str> = Vec::with_capacity(lines.len() + 1);
            for (j, l) in lines.iter().enumerate() {
                if j == i && rng.random_bool(0.5) {
                    continue;
                }
                out.push(l);
                if j == i {
                    out.push(l);
                }
            }
            out.join("\n").into_bytes()
        }
        8 => {
            let at = floor_char(text, rng.random_range(0..=text.len()));
            text.as_bytes()[..at].to_vec()
        }
        _ => {
            let mut bytes = text.as_bytes().to_vec();
            for _ in 0..rng.random_range(1..=8) {
                let at = rng.random_range(0..=bytes.len());
                let byte: u8 = rng.random();
                if at < bytes.len() && rng.random_bool(0.5) {
                    bytes[at] = byte;
                } else {
                    bytes.insert(at, byte);
                }
            }
            bytes
        }
    }
}

/// One to three mutations in a row.
fn mutate(text: &str, rng: &mut Pcg64) -> Vec<u8> {
    let mut bytes = mutate_once(text, rng);
    for _ in 1..rng.random_range(1..=3) {
        match String::from_utf8(bytes.clone()) {
            Ok(t) if !t.is_empty() => bytes = mutate_once(&t, rng),
            _ => break,
        }
    }
    bytes
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

fn args(sub: &str, spec: &Path, profile: Option<&str>, dir: &Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["runner".into(), sub.into(), spec.into()];
    for (flag, sub_dir) in [
        ("--results-dir", "results"),
        ("--figures-dir", "figures"),
        ("--baselines-dir", "baselines"),
    ] {
        a.push(flag.into());
        a.push(dir.join(sub_dir).into());
    }
    if let Some(p) = profile {
        a.push("--profile".into());
        a.push(p.into());
    }
    if sub == "run" {
        a.extend(["--max-core-hours".into(), "1e-12".into(), "--quiet".into()]);
    }
    a
}

fn fuzz(mutations: usize) {
    let corpus = corpus();
    let s = Scratch::new("fuzz");
    let results = s.path("results");
    std::fs::create_dir_all(&results).unwrap();
    for (name, _) in &corpus.specs {
        for suffix in ["", "-quick", "-full"] {
            std::fs::write(
                results.join(format!("{name}{suffix}.h5")),
                format!("existing results of {name}{suffix}"),
            )
            .unwrap();
        }
    }
    let before = snapshot(&s.0);
    let mut rng = Pcg64::seed_from_u64(SEED);
    let mut codes = [0usize; 3];
    let spec = s.path("mutated.toml");
    for m in 0..mutations {
        let (name, text) = &corpus.specs[rng.random_range(0..corpus.specs.len())];
        let bytes = mutate(text, &mut rng);
        let profile = [None, Some("quick"), Some("full")][rng.random_range(0..3)];
        std::fs::write(&spec, &bytes).unwrap();
        let describe = || {
            format!(
                "mutation {m} of {name} (profile {profile:?}):\n{}",
                String::from_utf8_lossy(&bytes)
            )
        };
        for sub in ["plan", "run"] {
            let start = Instant::now();
            let code = if m < SPAWNED {
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
                    .args(&args(sub, &spec, profile, &s.0)[1..])
                    .output()
                    .unwrap();
                out.status.code().unwrap_or_else(|| {
                    panic!(
                        "{sub} ended by a signal ({:?}) on {}",
                        out.status,
                        describe()
                    )
                })
            } else {
                std::panic::catch_unwind(|| {
                    runner::app::main_with_args(args(sub, &spec, profile, &s.0))
                })
                .unwrap_or_else(|_| panic!("{sub} panicked on {}", describe()))
            };
            let took = start.elapsed();
            assert!(
                took < Duration::from_secs(1),
                "{sub} took {took:?} on {}",
                describe()
            );
            match (sub, code) {
                ("plan", 0) => codes[0] += 1,
                (_, 2) => codes[if sub == "plan" { 1 } else { 2 }] += 1,
                _ => panic!("{sub} exited {code} on {}", describe()),
            }
        }
        assert_eq!(
            snapshot(&s.0)
                .into_iter()
                .filter(|(p, _)| p != &spec)
                .collect::<Vec<_>>(),
            before
                .iter()
                .filter(|(p, _)| p != &spec)
                .cloned()
                .collect::<Vec<_>>(),
            "files changed after {}",
            describe()
        );
    }
    eprintln!(
        "fuzzed {mutations} mutations (seed {SEED:#x}): plan accepted {}, refused {}; run refused {} (all at exit 2)",
        codes[0], codes[1], codes[2]
    );
    // The stream must exercise both answers of plan.
    assert!(
        codes[0] > mutations / 20 && codes[1] > mutations / 20,
        "{codes:?}"
    );
    assert_eq!(codes[2], mutations);
}

#[test]
fn mutated_specs_get_exit_0_or_2_within_a_second_and_touch_nothing() {
    fuzz(CI_MUTATIONS);
}

#[test]
#[ignore = "long version (10 000 mutations, a few minutes): cargo test -p runner --test fuzz_specs -- --ignored"]
fn ten_thousand_mutated_specs() {
    fuzz(LONG_MUTATIONS);
}
