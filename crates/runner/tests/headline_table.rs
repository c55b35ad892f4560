//! The headline table (issue 9): studies declaring `headline = { paper,
//! theorem }` give one row per fitted exponent at the top of the report, in
//! `results/<name>.csv` (the per-point summary moves to `<name>-points.csv`),
//! and one panel each in `figures/<name>/overview.png` and `.svg`; a spec
//! without headline rows keeps the per-point CSV under its usual name.

mod common;

use common::{run, runner, stderr, Scratch};

const SPEC: &str = r#"
name = "headline_tiny"
seed = 3
repetitions = 30

[[studies]]
name = "pure_n"
metric = "excess_empirical_risk"
problem = { family = "diagonal_quadratic", d = 4 }
algorithm = { name = "output_perturbation_conceptual" }
privacy = { eps = 1.0 }
grid = { n = [1000, 3000, 10000, 30000] }
headline = { paper = "Paper A", theorem = "Thm 1" }
expect = { below_bound = true, slopes = { n = { slope = -2.0, tolerance = 0.3 } } }

[[studies]]
name = "gauss_eps"
metric = "excess_empirical_risk"
problem = { family = "diagonal_quadratic", n = 10000, d = 4 }
algorithm = { name = "output_perturbation_conceptual" }
privacy = { delta = 1e-6 }
grid = { eps = [0.01, 0.02, 0.05, 0.1, 1000, 3000, 10000] }
headline = { paper = "Paper B", theorem = "Thm 2" }
expect = { slopes = { eps = [
    { slope = -2.0, tolerance = 0.3, fit = [0.01, 0.1] },
    { slope = -1.0, tolerance = 0.3, fit = [1000, 10000], side = "at_most" },
] } }

[[studies]]
name = "no_row"
metric = "excess_empirical_risk"
problem = { family = "diagonal_quadratic", d = 4 }
algorithm = { name = "output_perturbation_conceptual" }
privacy = { eps = 1.0 }
grid = { n = [1000, 10000, 100000] }
expect = { slopes = { n = { slope = -2.0, tolerance = 0.3 } } }
"#;

#[test]
fn headline_rows_reach_the_report_the_csv_and_the_overview() {
    let s = Scratch::new("headline");
    let spec = s.write("headline_tiny.toml", SPEC);
    let out = run(runner(&s.0).arg(&spec));
    assert!(out.status.success(), "{}", stderr(&out));

    let csv = std::fs::read_to_string(s.path("results/headline_tiny.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    for col in [
        "paper",
        "theorem",
        "algorithm",
        "family",
        "privacy",
        "swept",
        "theory",
        "fitted",
        "ci_half_width",
        "window_low",
        "window_high",
        "max_bound_ratio",
        "verdict",
    ] {
        assert!(
            header.split(',').any(|h| h == col),
            "{col} missing: {header}"
        );
    }
    let rows: Vec<&str> = lines.collect();
    // One row per fitted exponent of the studies with a headline: 1 + 2.
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(rows[0].starts_with("Paper A,Thm 1,output_perturbation_conceptual,diagonal_quadratic,"));
    assert!(rows[0].contains("pure eps-DP"), "{}", rows[0]);
    assert!(rows[1].contains("(eps, delta)-DP"), "{}", rows[1]);
    assert!(rows[2].contains("<= -1.000 + 0.3"), "{}", rows[2]);
    // Every row carries one of the four verdicts (and its reason), never "pass".
    assert!(
        rows.iter().all(|r| {
            ["confirmed", "contradicted", "inconclusive", "not measured"]
                .iter()
                .any(|v| r.contains(&format!(",{v},")))
                && !r.contains(",pass")
        }),
        "{csv}"
    );

    let points = std::fs::read_to_string(s.path("results/headline_tiny-points.csv")).unwrap();
    assert!(points.starts_with("study,point,swept,count"), "{points}");
    assert_eq!(points.lines().count(), 1 + 4 + 7 + 3);

    let md = std::fs::read_to_string(s.path("results/headline_tiny.md")).unwrap();
    let table = md.find("## Headline table").expect("headline section");
    assert!(table < md.find("## Verdicts").unwrap());
    assert!(md.contains("| Paper B | Thm 2 | `output_perturbation_conceptual` |"));
    assert!(!md[table..md.find("## Verdicts").unwrap()].contains("no_row"));

    for ext in ["png", "svg"] {
        let f = s.path(&format!("figures/headline_tiny/overview.{ext}"));
        assert!(f.exists(), "{} missing", f.display());
    }
}

#[test]
fn without_headline_rows_the_csv_is_the_per_point_summary() {
    let s = Scratch::new("no-headline");
    let spec = s.write(
        "plain.toml",
        &SPEC
            .replace("name = \"headline_tiny\"", "name = \"plain\"")
            .replace(
                "headline = { paper = \"Paper A\", theorem = \"Thm 1\" }\n",
                "",
            )
            .replace(
                "headline = { paper = \"Paper B\", theorem = \"Thm 2\" }\n",
                "",
            ),
    );
    let out = run(runner(&s.0).arg(&spec));
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = std::fs::read_to_string(s.path("results/plain.csv")).unwrap();
    assert!(csv.starts_with("study,point,swept,count"), "{csv}");
    assert!(!s.path("results/plain-points.csv").exists());
    assert!(!s.path("figures/plain/overview.png").exists());
    let md = std::fs::read_to_string(s.path("results/plain.md")).unwrap();
    assert!(!md.contains("## Headline table"));
}
