//! Calibrated seconds per abstract operation of each algorithm's work
//! formula (the formulas are the entries' own `cost` functions; the runner's
//! cost model, `runner plan`, multiplies the two).
//!
//! Written by `scripts/refresh_cost_constants.sh` from the stored per-cell
//! wall times (`timing/wall_seconds`) of results files: each constant is the
//! sum of the measured seconds of the algorithm's cells over the sum of their
//! operation counts (so the large cells, which decide a sweep's cost, weigh
//! most). Edit the formulas, not these numbers; rerun the script after a
//! formula or a kernel changes. The table lives here, beside the entries
//! that own the names, so that no runner file names an algorithm.

// BEGIN GENERATED (scripts/refresh_cost_constants.sh)
/// Where the constants below were measured.
pub const CALIBRATED_FROM: &str = "table1-quick, wang-quick, gonzalez-quick, menart-quick, bassily-quick, lowy_razaviyayn-quick (quick profiles' stored timings) at a762377 on 2026-11-26";

/// Seconds per operation of each algorithm's work formula, by algorithm name.
pub const SECONDS_PER_OP: &[(&str, f64)] = &[
    ("adversarial_black_box", 1.403e-09),   // 760 cells, 33.3 s
    ("erm", 4.415e-09),                     // 256 cells, 31.4 s
    ("ggp_alg1", 4.033e-09),                // 267 cells, 223.7 s
    ("ggp_alg3", 4.100e-09),                // 24 cells, 3.4 s
    ("ggp_alg4", 9.402e-09),                // 42 cells, 5.4 s
    ("ggp_alg5", 3.107e-10),                // 24 cells, 0.1 s
    ("ggp_dp_frank_wolfe", 2.367e-07),      // 24 cells, 3.3 s
    ("ggp_dp_sgd_simplex", 2.090e-08),      // 12 cells, 1.1 s
    ("ggp_euclidean_dp_sgda", 1.382e-08),   // 42 cells, 12.2 s
    ("ggp_mwem", 3.136e-10),                // 24 cells, 0.1 s
    ("ggp_noisy_entropic_md", 5.492e-10),   // 18 cells, 0.0 s
    ("ggp_nonprivate_smd", 9.922e-10),      // 18 cells, 21.9 s
    ("kl_adaptive_gd", 4.799e-11),          // 96 cells, 23.1 s
    ("kl_dp_gd", 5.137e-08),                // 24 cells, 110.3 s
    ("kl_proximal_point", 4.141e-09),       // 80 cells, 18.7 s
    ("kl_spider", 4.064e-10),               // 260 cells, 84.2 s
    ("kl_stationary_selection", 1.526e-09), // 44 cells, 4.7 s
    ("noisy_sgd", 6.541e-08),               // 120 cells, 24.8 s
    ("nsgd", 3.624e-09),                    // 448 cells, 132.7 s
    ("nsgd_moreau", 3.100e-09),             // 80 cells, 23.1 s
    ("objp", 2.012e-11),                    // 208 cells, 17.1 s
    ("objp_app", 1.629e-10),                // 332 cells, 7.3 s
    ("one_pass_sgd", 6.663e-09),            // 64 cells, 2.0 s
    ("op_black_box", 2.449e-08),            // 3080 cells, 524.6 s
    ("op_conceptual_projected", 3.774e-09), // 1720 cells, 7.0 s
    ("op_regularized", 9.668e-11),          // 1920 cells, 83.8 s
    ("output_perturbation_conceptual", 1.279e-08), // 2680 cells, 33.3 s
    ("prox_gd", 2.423e-08),                 // 32 cells, 15.5 s
    ("theory_curve", 1.145e-08),            // 128 cells, 3.4 s
    ("wang_full_dim_dpgd", 8.102e-10),      // 12 cells, 26.5 s
    ("wang_jl_margin_check", 5.930e-10),    // 24 cells, 6.1 s
    ("wang_m_prime", 6.442e-10),            // 12 cells, 0.0 s
    ("wang_m_star", 2.922e-10),             // 320 cells, 62.4 s
    ("wang_oracle_jlgd", 2.190e-10),        // 36 cells, 6.3 s
    ("zzmw17", 7.666e-12),                  // 240 cells, 0.1 s
];
// END GENERATED
