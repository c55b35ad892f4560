//! Records the compiler and dependency versions for the provenance of results files.

use std::process::Command;

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
}
