//! The check stage must catch a broken algorithm: noise scaled by 2 (error x4,
//! slopes unchanged) fails the theory match and the baseline comparison; a
//! changed rate fails the slope check. The unbroken run passes all three.

mod common;

use common::run_in_process;
use std::path::Path;

use runner::analyze::analyze;
use runner::check::{check, read_baseline, write_baseline};
use runner::plan::plan;
use runner::spec::{parse, LoadedSpec};
use runner::store::CellRecord;
use runner::validate::{resolve, Experiment};

const SPEC: &str = r#"
name = "regress"
seed = 11
repetitions = 60

[[studies]]
name = "n_pure"
metric = "excess_empirical_risk"
problem = { family = "diagonal_quadratic", d = 8 }
algorithm = { name = "output_perturbation_conceptual" }
privacy = { eps = 1.0 }
grid = { n = { log_range = [1e3, 1e5], points = 5 } }
expect = { below_bound = true, match_theory = true, slopes = { n = { slope = -2.0, tolerance = 0.15 } } }
"#;

fn experiment() -> Experiment {
    let path = Path::new("regress.toml");
    let spec = parse(path, SPEC).expect("valid spec");
    let loaded = LoadedSpec {
        path: path.into(),
        text: SPEC.into(),
        spec,
    };
    resolve(&loaded, None).expect("resolves")
}

#[test]
fn broken_algorithms_are_caught() {
    let e = experiment();
    let p = plan(&e);
    let good = run_in_process(&e);
    let analyses = analyze(&e, &p, &good).unwrap();
    let dir = std::env::temp_dir().join(format!("regress-{}", std::process::id()));
    let baseline_path = dir.join("regress.csv");
    write_baseline(&baseline_path, &e, &analyses).unwrap();
    let baseline = read_baseline(&baseline_path).unwrap();
    let outcome = check(&e, &analyses, Some(&baseline));
    assert!(
        outcome.pass(),
        "the correct algorithm must pass:\n{}",
        outcome.render()
    );

    // Noise scaled by 2: the excess of a quadratic scales by 4; slopes do not move.
    let doubled: Vec<CellRecord> = good
        .iter()
        .map(|r| CellRecord {
            metric: 4.0 * r.metric,
            ..r.clone()
        })
        .collect();
    let analyses = analyze(&e, &p, &doubled).unwrap();
    assert!(
        analyses[0].slopes.iter().all(|s| s.pass),
        "a constant factor keeps the slope"
    );
    let outcome = check(&e, &analyses, Some(&baseline));
    let text = outcome.render();
    assert!(!outcome.pass());
    assert!(text.contains("miss the exact expectation"), "{text}");
    assert!(text.contains("worse than the baseline"), "{text}");

    // A rate change (error decaying as n^-1.5 instead of n^-2) fails the slope check.
    let slower: Vec<CellRecord> = good
        .iter()
        .map(|r| {
            let n = p.points[0][r.point].swept[0].1;
            CellRecord {
                metric: r.metric * (n / 1e3).sqrt(),
                ..r.clone()
            }
        })
        .collect();
    let analyses = analyze(&e, &p, &slower).unwrap();
    let outcome = check(&e, &analyses, None);
    assert!(
        outcome.render().contains("slope in n"),
        "{}",
        outcome.render()
    );
    let _ = std::fs::remove_dir_all(dir);
}
