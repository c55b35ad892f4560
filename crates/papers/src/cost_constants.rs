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
pub const CALIBRATED_FROM: &str = "table1, table1-quick, lowy_razaviyayn-quick, bassily-quick, menart-quick, wang-quick, gonzalez-quick, bassily-decide2, bassily-decide3, lowy_razaviyayn-sharp_decide, wang-decide2, gonzalez-synthetic-decide2 (stored per-cell timings) at f3508b0 on 2026-11-30; then kl_dp_gd, kl_proximal_point, wang_m_prime, wang_m_star, wang_oracle_jlgd from table1, menart, wang-e6-cal, wang-t71-cal (stored per-cell timings) at 2a6bac9 on 2026-11-30; then ggp_alg4, op_black_box:sgd, op_regularized:sgd from gonzalez-quick, table1-quick, lowy_razaviyayn-quick, gonzalez-vertex, gonzalez-vertex-fo (stored per-cell timings) at 1c300d8 on 2026-12-01; then op_regularized from lowy_razaviyayn-quick (stored per-cell timings) at 1c300d8 on 2026-12-01; then ggp_alg1 from gonzalez-quick, table1-quick, table1 (stored per-cell timings) at e24d4aa on 2026-12-02; then ggp_alg3, output_perturbation_conceptual from table1, table1-quick, lowy_razaviyayn-quick, gonzalez-quick (stored per-cell timings) at 2675d25 on 2026-12-02; then nsgd from bassily-quick, table1-quick, table1 (stored per-cell timings) at 63ce074 on 2026-12-02; then nsgd, nsgd_moreau from bassily-quick, table1-quick, table1 (stored per-cell timings) at 418c02e on 2026-12-02; then kl_adaptive_gd, kl_adaptive_gd:no_kl, kl_spider from menart-quick (stored per-cell timings) at 1b22979 on 2026-12-02; then wang_m_star, wang_oracle_jlgd from table1, wang-e6-cal41 (stored per-cell timings) at 02d535d on 2026-12-02";

/// Seconds per operation of each algorithm's work formula, by algorithm name.
pub const SECONDS_PER_OP: &[(&str, f64)] = &[
    ("adversarial_black_box", 6.744e-10),   // 760 cells, 16.0 s
    ("erm", 1.167e-09),                     // 256 cells, 21.9 s
    ("ggp_alg1", 1.023e-09),                // 429 cells, 431.7 s
    ("ggp_alg3", 6.344e-10),                // 120 cells, 137.7 s
    ("ggp_alg4", 8.163e-10),                // 400 cells, 199.4 s
    ("ggp_alg5", 4.100e-10),                // 500 cells, 1914.1 s
    ("ggp_dp_frank_wolfe", 1.305e-08),      // 24 cells, 0.2 s
    ("ggp_dp_sgd_simplex", 2.021e-09),      // 12 cells, 0.1 s
    ("ggp_euclidean_dp_sgda", 9.183e-10),   // 42 cells, 5.5 s
    ("ggp_mwem", 1.767e-10),                // 24 cells, 0.0 s
    ("ggp_noisy_entropic_md", 1.885e-11),   // 18 cells, 0.0 s
    ("ggp_nonprivate_smd", 3.568e-10),      // 18 cells, 7.9 s
    ("kl_adaptive_gd", 2.081e-09),          // 132 cells, 15.9 s
    ("kl_adaptive_gd:no_kl", 2.464e-11),    // 8 cells, 11.5 s
    ("kl_dp_gd", 2.884e-09),                // 220 cells, 1021.8 s
    ("kl_noisy_pgd_theorem9", 2.147e-09),   // 16 cells, 0.1 s
    ("kl_proximal_point", 4.621e-09),       // 525 cells, 2435.3 s
    ("kl_spider", 1.980e-09),               // 352 cells, 88.2 s
    ("kl_stationary_selection", 7.871e-10), // 44 cells, 2.4 s
    ("noisy_sgd", 1.939e-08),               // 120 cells, 7.3 s
    ("nsgd", 1.445e-09),                    // 2116 cells, 197.7 s
    ("nsgd_moreau", 1.340e-09),             // 328 cells, 42.7 s
    ("objp", 1.872e-09),                    // 131512 cells, 5021.0 s
    ("objp_app", 9.315e-11),                // 14740 cells, 195.6 s
    ("one_pass_sgd", 1.040e-09),            // 64 cells, 1.2 s
    ("op_black_box", 4.006e-09),            // 12308 cells, 4383.8 s
    ("op_black_box:sgd", 1.434e-09),        // 800 cells, 84.8 s
    ("op_conceptual_projected", 1.539e-09), // 1840 cells, 2.9 s
    ("op_regularized", 9.121e-11),          // 2686 cells, 3.4 s
    ("op_regularized:sgd", 1.419e-09),      // 518 cells, 184.0 s
    ("output_perturbation_conceptual", 6.118e-09), // 6680 cells, 99.8 s
    ("prox_gd", 1.096e-08),                 // 684 cells, 232.3 s
    ("svrg_theorem58", 1.603e-10),          // 24 cells, 0.0 s
    ("theory_curve", 1.032e-09),            // 128 cells, 2.2 s
    ("wang_full_dim_dpgd", 5.319e-10),      // 20 cells, 18.0 s
    ("wang_jl_margin_check", 2.922e-10),    // 24 cells, 3.0 s
    ("wang_m_prime", 5.825e-10),            // 60 cells, 156.8 s
    ("wang_m_star", 1.881e-09),             // 540 cells, 300.5 s
    ("wang_oracle_jlgd", 9.936e-10),        // 120 cells, 223.0 s
    ("zzmw17", 3.403e-12),                  // 240 cells, 0.0 s
];
// END GENERATED
