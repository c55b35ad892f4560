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
pub const CALIBRATED_FROM: &str = "table1, table1-quick, lowy_razaviyayn-quick, bassily-quick, menart-quick, wang-quick, gonzalez-quick (stored per-cell timings) at 5df0c49 on 2026-11-29";

/// Seconds per operation of each algorithm's work formula, by algorithm name.
pub const SECONDS_PER_OP: &[(&str, f64)] = &[
    ("adversarial_black_box", 6.697e-10),   // 760 cells, 15.9 s
    ("erm", 2.798e-09),                     // 256 cells, 19.9 s
    ("ggp_alg1", 1.346e-10),                // 425 cells, 249.2 s
    ("ggp_alg3", 3.894e-10),                // 90 cells, 84.4 s
    ("ggp_alg4", 7.111e-10),                // 112 cells, 70.2 s
    ("ggp_alg5", 9.087e-11),                // 24 cells, 0.0 s
    ("ggp_dp_frank_wolfe", 1.252e-08),      // 24 cells, 0.2 s
    ("ggp_dp_sgd_simplex", 2.066e-09),      // 12 cells, 0.1 s
    ("ggp_euclidean_dp_sgda", 9.280e-10),   // 42 cells, 5.5 s
    ("ggp_mwem", 9.603e-11),                // 24 cells, 0.0 s
    ("ggp_noisy_entropic_md", 1.924e-11),   // 18 cells, 0.0 s
    ("ggp_nonprivate_smd", 3.658e-10),      // 18 cells, 8.1 s
    ("kl_adaptive_gd", 2.748e-11),          // 108 cells, 13.4 s
    ("kl_dp_gd", 2.552e-08),                // 24 cells, 54.8 s
    ("kl_proximal_point", 1.951e-09),       // 88 cells, 10.1 s
    ("kl_spider", 2.252e-10),               // 460 cells, 46.8 s
    ("kl_stationary_selection", 8.003e-10), // 44 cells, 2.4 s
    ("noisy_sgd", 1.922e-08),               // 120 cells, 7.3 s
    ("nsgd", 1.302e-09),                    // 2084 cells, 98.6 s
    ("nsgd_moreau", 8.731e-10),             // 296 cells, 19.9 s
    ("objp", 1.893e-11),                    // 304 cells, 16.1 s
    ("objp_app", 1.102e-10),                // 908 cells, 49.4 s
    ("one_pass_sgd", 4.391e-09),            // 64 cells, 1.3 s
    ("op_black_box", 1.220e-08),            // 3680 cells, 452.7 s
    ("op_conceptual_projected", 1.567e-09), // 1840 cells, 3.0 s
    ("op_regularized", 1.056e-10),          // 2922 cells, 92.6 s
    ("output_perturbation_conceptual", 3.782e-09), // 6680 cells, 61.7 s
    ("prox_gd", 1.407e-08),                 // 32 cells, 9.0 s
    ("theory_curve", 7.343e-09),            // 128 cells, 2.2 s
    ("wang_full_dim_dpgd", 5.630e-10),      // 20 cells, 19.0 s
    ("wang_jl_margin_check", 3.007e-10),    // 24 cells, 3.1 s
    ("wang_m_prime", 4.812e-10),            // 12 cells, 0.0 s
    ("wang_m_star", 1.669e-10),             // 764 cells, 158.9 s
    ("wang_oracle_jlgd", 1.443e-10),        // 44 cells, 4.2 s
    ("zzmw17", 3.360e-12),                  // 240 cells, 0.0 s
];
// END GENERATED
