//! Records the compiler and dependency versions for the provenance of results files,
//! and the hash of the algorithms' source code that the audit store's identity carries.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates whose code a run of a registered algorithm executes (the
/// runner's registry reaches every algorithm through `papers`, which builds on
/// the rest). The audit crate is not among them: it assesses stored runs and
/// never changes them.
const ALGORITHM_CRATES: [&str; 6] = [
    "dpcore",
    "mechanisms",
    "datagen",
    "solvers",
    "contract",
    "papers",
];

/// Every file under `dir`, sorted, so the hash does not depend on directory order.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// FNV-1a over `bytes`, continuing from `h`.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A 128-bit hash (two FNV-1a streams with different offsets) of the source
/// of [`ALGORITHM_CRATES`] (their `src/` trees and manifests), of the lock
/// file (a dependency's version can change a random stream) and of the
/// audit's run loop (its seeding), by relative path and content.
fn algorithm_code_hash(root: &Path) -> String {
    let mut files = Vec::new();
    for krate in ALGORITHM_CRATES {
        let dir = root.join("crates").join(krate);
        files.push(dir.join("Cargo.toml"));
        files_under(&dir.join("src"), &mut files);
        println!("cargo:rerun-if-changed={}", dir.join("src").display());
        println!(
            "cargo:rerun-if-changed={}",
            dir.join("Cargo.toml").display()
        );
    }
    let execute = root.join("crates/runner/src/audit/execute.rs");
    println!("cargo:rerun-if-changed={}", execute.display());
    files.push(execute);
    files.push(root.join("Cargo.lock"));
    let (mut a, mut b) = (0xcbf2_9ce4_8422_2325u64, 0x8422_2325_cbf2_9ce4u64);
    for f in files {
        let rel = f
            .strip_prefix(root)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        let content = std::fs::read(&f).unwrap_or_default();
        for part in [rel.as_bytes(), &[0u8], &content, &[0u8]] {
            a = fnv1a(a, part);
            b = fnv1a(b, part);
        }
    }
    format!("{a:016x}{b:016x}")
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HARNESS_RUSTC_VERSION={version}");

    let lock_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    println!("cargo:rerun-if-changed={lock_path}");
    let lock = std::fs::read_to_string(lock_path).unwrap_or_default();
    let wanted = [
        "hdf5-pure",
        "plotters",
        "rayon",
        "rand",
        "rand_pcg",
        "rand_distr",
        "statrs",
        "serde",
        "toml",
        "clap",
        "indicatif",
    ];
    let mut found = Vec::new();
    let mut name = String::new();
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"').to_string();
        } else if let Some(v) = line.strip_prefix("version = ") {
            if wanted.contains(&name.as_str()) {
                found.push(format!("{name} {}", v.trim_matches('"')));
            }
        }
    }
    println!(
        "cargo:rustc-env=HARNESS_DEPENDENCY_VERSIONS={}",
        found.join(", ")
    );

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    println!(
        "cargo:rustc-env=HARNESS_ALGORITHM_CODE_HASH={}",
        algorithm_code_hash(&root)
    );
}
