//! The seed identity of every row of `experiments/audit.toml` (the string
//! each run's random stream is derived from: algorithm, options with their
//! defaults as `Value`'s Debug form, n, d, the run-at guarantee, the seed) is
//! pinned in `tests/data/audit_seed_identities.txt`, computed before the audit
//! spec was moved onto the contract's resolver (issue 38 item 1). A change of
//! the resolver that moved one would give the audit other random streams, so
//! its committed numbers would no longer reproduce.
//!
//! After a change that must move an identity (a new default of an option),
//! regenerate the file with
//! `WRITE_AUDIT_IDENTITIES=1 cargo test -p runner --test audit_identity`
//! and say in the commit which rows moved and why.

use std::path::Path;

use runner::audit::{execute::seed_identity, spec};

#[test]
fn every_committed_audit_seed_identity_is_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/audit_seed_identities.txt");
    let plan = spec::load(&root.join("experiments/audit.toml"), None).unwrap();
    let now: String = plan
        .audits
        .iter()
        .map(|a| format!("{} {}\n", a.row.name, seed_identity(a, plan.file.seed)))
        .collect();
    if std::env::var_os("WRITE_AUDIT_IDENTITIES").is_some() {
        std::fs::write(&fixture, &now).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(
        pinned.lines().count(),
        53,
        "one line per committed audit row"
    );
    let moved: Vec<_> = pinned
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  pinned {a}\n  now    {b}"))
        .collect();
    assert!(
        moved.is_empty() && pinned.lines().count() == now.lines().count(),
        "{} audit seed identities moved ({} pinned, {} now):\n{}",
        moved.len(),
        pinned.lines().count(),
        now.lines().count(),
        moved.join("\n")
    );
}
