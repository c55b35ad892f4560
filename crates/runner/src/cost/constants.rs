//! Calibrated constants of the cost model ([`super`]): seconds per abstract
//! operation of each algorithm's work formula.
//!
//! Written by `scripts/refresh_cost_constants.sh` from the stored per-cell
//! wall times (`timing/wall_seconds`) of results files: each constant is the
//! sum of the measured seconds of the algorithm's cells over the sum of their
//! operation counts (so the large cells, which decide a sweep's cost, weigh
//! most). Edit the formulas in `super`, not these numbers; rerun the script
//! after a formula or a kernel changes.

// BEGIN GENERATED (scripts/refresh_cost_constants.sh)
/// Where the constants below were measured.
pub const CALIBRATED_FROM: &str = "uncalibrated defaults";

/// Seconds per operation of each algorithm's work formula, by algorithm name.
pub const SECONDS_PER_OP: &[(&str, f64)] = &[];
// END GENERATED

/// Seconds per operation of an algorithm that no results file calibrated:
/// about one fused multiply-add pass over memory (2 ns per f64 touched, the
/// order of the measured 5–10 GB/s streaming kernels in PERFORMANCE.md).
pub const DEFAULT_SECONDS_PER_OP: f64 = 2e-9;

/// Fixed cost of a cell besides its work: seeding two streams, building the
/// record and sending it to the writer (about 20 µs measured on the cheapest
/// cells, the Lowy–Razaviyayn output perturbations at n = 1000).
pub const SECONDS_PER_CELL: f64 = 2e-5;

/// Resident memory of the runner before any data set: code, the registry and
/// the allocator's arenas (64 MiB base measured in PERFORMANCE.md's scaling run).
pub const BASE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Memory per planned cell held for the whole run: the planned `Cell` (40
/// bytes), its stored record with diagnostics (about 200 bytes) and its share
/// of the HDF5 image rewritten at each flush (about 100 bytes), rounded up.
pub const BYTES_PER_CELL: f64 = 512.0;

/// The calibrated seconds per operation of `algorithm`.
pub fn seconds_per_op(algorithm: &str) -> f64 {
    SECONDS_PER_OP
        .iter()
        .find(|(name, _)| *name == algorithm)
        .map_or(DEFAULT_SECONDS_PER_OP, |(_, k)| *k)
}
