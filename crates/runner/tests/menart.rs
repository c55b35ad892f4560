//! Menart et al. (issue 6) end to end: a tiny spec with the KL families and
//! all four algorithms runs, stores, and passes its own checks (Algorithm 1's
//! excess under `Phi_K`, every recommended run's realised `rho` under the
//! target, the paper-literal Algorithm 1's overspend above it).

mod common;

use common::{run, runner, stderr, Scratch};

const SPEC: &str = r#"
name = "menart_tiny"
seed = 5
repetitions = 3

[[studies]]
name = "spider_n"
metric = "excess_empirical_risk"
problem = { family = "kl_power_tilt", d = 8, p = 2.0 }
algorithm = { name = "kl_spider" }
privacy = { rho = 1.0 }
grid = { n = [1e7, 1e8] }
expect = { below_bound = true }

[[studies]]
name = "spider_rho"
metric = "realised_rho"
problem = { family = "kl_power_tilt", n = 1e7, d = 8, p = 3.0 }
algorithm = { name = "kl_spider" }
grid = { rho = [0.25, 1.0] }
expect = { below_bound = true }

[[studies]]
name = "spider_paper_rho"
metric = "realised_rho"
problem = { family = "kl_power_tilt", n = 1e7, d = 8, p = 3.0 }
algorithm = { name = "kl_spider", calibration = "paper" }
grid = { rho = [0.25, 1.0] }
expect = { above_reference = [0.25, 1.0] }

[[studies]]
name = "proximal_rho"
metric = "realised_rho"
problem = { family = "kl_theorem8", n = 200, tau = 1.5 }
algorithm = { name = "kl_proximal_point", inner_steps = "practical" }
grid = { rho = [0.5, 1.0] }
expect = { below_bound = true }

[[studies]]
name = "adaptive_n"
metric = "excess_empirical_risk"
problem = { family = "kl_power_tilt", d = 64, p = 3.0 }
algorithm = { name = "kl_adaptive_gd" }
privacy = { rho = 1.0 }
grid = { n = [1e3, 1e4] }

[[studies]]
name = "selection_rho"
metric = "realised_rho"
problem = { family = "kl_geman_mcclure", n = 100, d = 4 }
algorithm = { name = "kl_stationary_selection" }
grid = { rho = [0.5, 1.0] }
expect = { below_bound = true }
"#;

#[test]
fn menart_algorithms_run_store_and_check() {
    let s = Scratch::new("menart-tiny");
    let path = s.write("menart_tiny.toml", SPEC);
    let out = run(runner(&s.0).arg(&path).arg("--quiet"));
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = std::fs::read_to_string(s.path("results/menart_tiny.csv")).unwrap();
    for study in [
        "spider_n",
        "spider_rho",
        "spider_paper_rho",
        "proximal_rho",
        "adaptive_n",
        "selection_rho",
    ] {
        let rows = csv
            .lines()
            .filter(|l| l.starts_with(&format!("{study},")))
            .count();
        assert_eq!(rows, 2, "{study}: {csv}");
    }
    let md = std::fs::read_to_string(s.path("results/menart_tiny.md")).unwrap();
    assert!(
        md.contains("all expectations hold") || !md.contains("FAIL"),
        "{md}"
    );
}

/// A study pairing an algorithm with a family it does not declare is refused
/// by `runner plan` and by a run before anything runs: exit 2, the reason,
/// no results file (issue 38 item 3).
#[test]
fn a_family_the_algorithm_does_not_accept_is_refused_before_anything_runs() {
    let s = Scratch::new("menart-refused");
    let study = |family: &str, algorithm: &str| {
        format!(
            r#"
name = "menart_refused"
seed = 5
repetitions = 2

[[studies]]
name = "refused"
metric = "excess_empirical_risk"
problem = {{ family = "{family}", d = 4 }}
algorithm = {{ name = "{algorithm}" }}
privacy = {{ rho = 1.0 }}
grid = {{ n = [100, 200] }}
"#
        )
    };
    for (family, algorithm, reason) in [
        (
            "kl_power_tilt",
            "kl_gaussian_mean",
            "its clip is the record radius",
        ),
        (
            "kl_geman_mcclure",
            "kl_spider",
            "Algorithm 1 needs KL constants",
        ),
    ] {
        let path = s.write("menart_refused.toml", &study(family, algorithm));
        for plan in [true, false] {
            let mut cmd = if plan {
                common::runner_sub(&s.0, "plan")
            } else {
                runner(&s.0)
            };
            let out = run(cmd.arg(&path));
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{algorithm} on {family}: {err}");
            assert!(
                err.contains(&format!(
                    "algorithm `{algorithm}` does not accept family `{family}`"
                )) && err.contains(reason),
                "{err}"
            );
            assert!(!s.path("results/menart_refused.h5").exists());
        }
    }
}
