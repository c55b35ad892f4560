//! The identity hash of every committed experiment (each profile) and of each
//! of its studies is pinned in `tests/data/identity_hashes.txt`: a change to
//! the resolver, the spec syntax or a committed spec that moves a hash would
//! make `--reuse-unchanged` recompute, and a resumed or merged results file
//! refuse, cells whose computation did not change (issue 38, item 8).
//!
//! After a change that must move a hash (a new family revision, an edited
//! grid), regenerate the file with
//! `WRITE_IDENTITY_HASHES=1 cargo test -p runner --test identity_hashes`
//! and say in the commit which hashes moved and why.

use std::path::{Path, PathBuf};

use runner::identity::{spec_hash, study_hash};
use runner::spec::load;
use runner::validate::resolve;

fn committed_specs(root: &Path) -> Vec<PathBuf> {
    let mut specs = Vec::new();
    for dir in ["experiments", "experiments/examples"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            // audit.toml is the audit's own spec, not an experiment.
            let is_experiment = path.extension().is_some_and(|e| e == "toml")
                && path.file_name().is_some_and(|n| n != "audit.toml");
            if is_experiment {
                specs.push(path);
            }
        }
    }
    specs.sort();
    specs
}

/// One line per (spec, profile): its spec hash, then one line per study.
fn hashes(root: &Path) -> String {
    let mut out = String::new();
    for path in committed_specs(root) {
        let loaded = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let profiles =
            std::iter::once(None).chain(loaded.spec.profiles.keys().map(|p| Some(p.as_str())));
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        for profile in profiles {
            let e = resolve(&loaded, profile).unwrap_or_else(|e| panic!("{e}"));
            let p = profile.unwrap_or("default");
            out.push_str(&format!("{rel} {p} spec {}\n", spec_hash(&e)));
            for s in &e.studies {
                out.push_str(&format!("{rel} {p} {} {}\n", s.name, study_hash(&e, s)));
            }
        }
    }
    out
}

#[test]
fn every_committed_identity_hash_is_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/identity_hashes.txt");
    let now = hashes(&root);
    if std::env::var_os("WRITE_IDENTITY_HASHES").is_some() {
        std::fs::write(&fixture, &now).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(&fixture).unwrap();
    let moved: Vec<_> = pinned
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  pinned {a}\n  now    {b}"))
        .collect();
    assert!(
        moved.is_empty() && pinned.lines().count() == now.lines().count(),
        "{} identity hashes moved ({} pinned lines, {} now):\n{}",
        moved.len(),
        pinned.lines().count(),
        now.lines().count(),
        moved.join("\n")
    );
}
