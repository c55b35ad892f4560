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
pub const CALIBRATED_FROM: &str = "table1-quick, wang-quick, gonzalez-quick, menart-quick, bassily-quick (quick profiles' stored timings) at 390c660 on 2026-11-26";

/// Seconds per operation of each algorithm's work formula, by algorithm name.
pub const SECONDS_PER_OP: &[(&str, f64)] = &[
    ("erm", 9.632e-09),                            // 256 cells, 68.5 s
    ("ggp_alg1", 4.466e-09),                       // 258 cells, 245.7 s
    ("ggp_alg3", 3.945e-09),                       // 24 cells, 3.3 s
    ("ggp_alg4", 8.624e-09),                       // 42 cells, 4.9 s
    ("ggp_alg5", 1.986e-10),                       // 24 cells, 0.1 s
    ("ggp_dp_frank_wolfe", 2.270e-07),             // 24 cells, 3.1 s
    ("ggp_dp_sgd_simplex", 2.063e-08),             // 12 cells, 1.0 s
    ("ggp_euclidean_dp_sgda", 1.386e-08),          // 42 cells, 12.2 s
    ("ggp_mwem", 2.205e-10),                       // 24 cells, 0.1 s
    ("ggp_noisy_entropic_md", 5.946e-10),          // 18 cells, 0.0 s
    ("ggp_nonprivate_smd", 9.949e-10),             // 18 cells, 22.0 s
    ("kl_adaptive_gd", 4.518e-11),                 // 96 cells, 21.7 s
    ("kl_dp_gd", 5.091e-08),                       // 24 cells, 109.3 s
    ("kl_proximal_point", 4.141e-09), // 80 cells, 18.7 s (menart-quick of a1fb171, n^2 rho/d formula)
    ("kl_spider", 3.386e-10),         // 260 cells, 70.2 s
    ("kl_stationary_selection", 1.495e-09), // 44 cells, 4.6 s
    ("nsgd", 5.239e-09),              // 448 cells, 191.8 s
    ("nsgd_moreau", 5.898e-09),       // 80 cells, 43.9 s
    ("objp", 3.388e-11),              // 208 cells, 28.8 s
    ("objp_app", 3.082e-10),          // 332 cells, 13.9 s
    ("one_pass_sgd", 1.205e-08),      // 64 cells, 3.6 s
    ("output_perturbation_conceptual", 5.851e-09), // 600 cells, 2.5 s
    ("prox_gd", 3.883e-08),           // 32 cells, 24.9 s
    ("theory_curve", 2.261e-08),      // 128 cells, 6.8 s
    ("wang_full_dim_dpgd", 9.400e-10), // 12 cells, 30.7 s
    ("wang_jl_margin_check", 6.055e-10), // 24 cells, 6.3 s
    ("wang_m_prime", 1.128e-09),      // 12 cells, 0.1 s
    ("wang_m_star", 3.363e-10),       // 320 cells, 71.8 s
    ("wang_oracle_jlgd", 2.815e-10),  // 36 cells, 8.2 s
];
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
