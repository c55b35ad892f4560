//! The seed identity of every row of `experiments/audit.toml` (the string
//! each run's random stream is derived from: algorithm, options with their
//! defaults as `Value`'s Debug form, n, d, the run-at guarantee, the seed) is
//! pinned in `tests/data/audit_seed_identities.txt`, computed before the audit
//! spec was moved onto the contract's resolver (issue 38 item 1). A change of
//! the resolver that moved one would give the audit other random streams, so
//! its committed numbers would no longer reproduce.
//!
//! A row added later has no pinned identity. After a change that must move
//! one, regenerate the file with
//! `WRITE_AUDIT_IDENTITIES=1 cargo test -p runner --test audit_identity`
//! and say in the commit which rows moved and why.

use std::path::Path;

use runner::audit::{execute::seed_identity, spec};

#[test]
fn every_committed_audit_seed_identity_is_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/audit_seed_identities.txt");
    let path = root.join("experiments/audit.toml");
    let plan = spec::load(&path, None).unwrap();
    // Every committed profile loads too (each validates every row).
    for profile in plan.file.profiles.keys() {
        spec::load(&path, Some(profile)).unwrap_or_else(|e| panic!("{profile}: {e}"));
    }
    let now: Vec<String> = plan
        .audits
        .iter()
        .map(|a| format!("{} {}", a.row.name, seed_identity(a, plan.file.seed)))
        .collect();
    if std::env::var_os("WRITE_AUDIT_IDENTITIES").is_some() {
        std::fs::write(&fixture, now.join("\n") + "\n").unwrap();
        return;
    }
    // Every pinned row keeps its identity; a row added since (a new
    // algorithm's audit) has none pinned and is free.
    let pinned = std::fs::read_to_string(&fixture).unwrap();
    let moved: Vec<String> = pinned
        .lines()
        .filter(|line| !now.iter().any(|n| n == line))
        .map(|line| {
            let name = line.split(' ').next().unwrap_or_default();
            let current = now.iter().find(|n| n.split(' ').next() == Some(name));
            format!("  pinned {line}\n  now    {current:?}")
        })
        .collect();
    assert!(
        moved.is_empty() && pinned.lines().count() >= 53,
        "{} of {} pinned audit seed identities moved or vanished:\n{}",
        moved.len(),
        pinned.lines().count(),
        moved.join("\n")
    );
}
