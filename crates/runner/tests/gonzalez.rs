//! González–Guzmán–Paquette end to end: a tiny spec with every problem kind
//! of the paper (saddle game, simplex SCO, query release) runs, stores the
//! exact metrics and passes its checks (the plug-in bound of Alg. 1, Thm
//! G.1's explicit bound, realised eps at most the target).

mod common;

use common::{run, runner, stderr, Scratch};
use dpcore::RunFailure;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use runner::registry::{self, Instance, Value, Values};

const SPEC: &str = r#"
name = "ggp_tiny"
seed = 5
repetitions = 3

[[studies]]
name = "alg1_gap"
metric = "duality_gap"
problem = { family = "ggp_game", n = 4000 }
algorithm = { name = "ggp_alg1" }
privacy = { eps = 0.5, delta = 1e-6 }
grid = { log2_d = [2, 4, 6] }
expect = { below_bound = true }

[[studies]]
name = "alg1_eps"
metric = "realised_eps"
problem = { family = "ggp_game", n = 4000, matrix = "low_rank", log2_d = 5 }
algorithm = { name = "ggp_alg1" }
privacy = { delta = 1e-6 }
grid = { eps = [0.25, 0.5] }
expect = { below_bound = true }

[[studies]]
name = "alg4_risk"
metric = "excess_population_risk"
problem = { family = "ggp_least_squares", d = 16 }
algorithm = { name = "ggp_alg4" }
privacy = { eps = 0.5, delta = 1e-6 }
grid = { n = [2000, 4000] }

[[studies]]
name = "alg5_error"
metric = "max_query_error"
problem = { family = "ggp_marginals", bits = 4 }
algorithm = { name = "ggp_alg5" }
privacy = { eps = 0.5, delta = 1e-6 }
grid = { n = [2000, 4000] }
expect = { below_bound = true }
"#;

#[test]
fn ggp_spec_runs_stores_and_checks() {
    let s = Scratch::new("ggp");
    let path = s.write("ggp.toml", SPEC);
    let out = run(runner(&s.0).arg(&path).arg("--quiet"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(s.path("results/ggp_tiny.h5").exists());
    let csv = std::fs::read_to_string(s.path("results/ggp_tiny.csv")).unwrap();
    for study in ["alg1_gap", "alg1_eps", "alg4_risk", "alg5_error"] {
        let rows: Vec<&str> = csv
            .lines()
            .filter(|l| l.starts_with(&format!("{study},")))
            .collect();
        assert!(!rows.is_empty(), "{study} missing from\n{csv}");
    }
    // Every cell ran (the exact metrics are finite).
    let md = std::fs::read_to_string(s.path("results/ggp_tiny.md")).unwrap();
    assert!(!md.contains("failed cells"), "{md}");
}

#[test]
fn ggp_dense_games_refuse_dimensions_above_the_lazy_limit() {
    let s = Scratch::new("ggp-dense");
    let spec = SPEC.replace("grid = { log2_d = [2, 4, 6] }", "grid = { log2_d = [17] }");
    let path = s.write("ggp.toml", &spec);
    let out = run(runner(&s.0).arg(&path).arg("--quiet"));
    assert!(!out.status.success());
    let md = std::fs::read_to_string(s.path("results/ggp_tiny.md")).unwrap_or_default();
    let all = format!("{}{md}", stderr(&out));
    assert!(all.contains("dense matrices stop at log2_d = 16"), "{all}");
}

/// The `ggp_game` values of a dense game of dimension `2^log2_d` (every
/// parameter given, as validation would resolve them).
fn dense_game(matrix: &str, log2_d: f64) -> Values {
    let mut v = Values::new();
    for (k, x) in [
        ("n", 10.0),
        ("log2_d", log2_d),
        ("rho", 0.5),
        ("margin", 0.5),
        ("rank", 4.0),
        ("sigma", 0.5),
        ("penalty_coef", 0.5),
        ("kappa", 1.0),
    ] {
        v.insert(k.into(), Value::Num(x));
    }
    for (k, x) in [
        ("matrix", matrix),
        ("noise", "rank_one"),
        ("penalty", "none"),
    ] {
        v.insert(k.into(), Value::Str(x.into()));
    }
    v
}

#[test]
fn ggp_dense_games_build_at_log2_d_16_and_refuse_17() {
    let family = registry::family("ggp_game").unwrap();
    for matrix in ["planted", "dense"] {
        // 2^16: the matrix is lazy, so building costs no 2^32 storage.
        let mut rng = Pcg64::seed_from_u64(1);
        match family.build.build(&dense_game(matrix, 16.0), &mut rng) {
            Ok(Instance::Saddle(game)) => {
                assert_eq!(game.dims(), (1 << 16, 1 << 16));
                assert_eq!(game.constants().l0, 1.0, "rho + sigma = 1");
            }
            Ok(_) => panic!("{matrix}: not a saddle game"),
            Err(e) => panic!("{matrix} at 2^16 refused: {e}"),
        }
        let mut rng = Pcg64::seed_from_u64(1);
        match family.build.build(&dense_game(matrix, 17.0), &mut rng) {
            Err(RunFailure::InvalidParameters(m)) => {
                assert!(m.contains("dense matrices stop at log2_d = 16"), "{m}")
            }
            Err(e) => panic!("{matrix} at 2^17: wrong failure {e}"),
            Ok(_) => panic!("{matrix} at 2^17 accepted"),
        }
    }
    // The low-rank matrices still reach 2^17 and beyond.
    let mut rng = Pcg64::seed_from_u64(1);
    assert!(family
        .build
        .build(&dense_game("low_rank", 17.0), &mut rng)
        .is_ok());
}
