//! Table 1's regression check catches a deliberately broken algorithm: the
//! output-perturbation rows of `experiments/table1.toml` (quick profile, the
//! profile CI runs) are run as committed and with the mechanism's noise
//! scaled by 2 (`noise_multiplier = 2`: still private, error x4, slopes
//! unchanged), and both are checked against the committed baseline
//! `experiments/baselines/table1-quick.csv`. The calibrated run must pass;
//! the broken one must fail the baseline comparison (and the exact-theory
//! match) on every grid point while every slope still passes, which is why
//! the baseline is needed at all.
//!
//! False-alarm rate of the passing half: the baseline comparison's
//! family-wise rate is 0.001 and the theory match's 0.01 per study; the seeds
//! are the spec's, so the outcome is deterministic.

mod common;

use common::run_in_process;
use std::path::{Path, PathBuf};

use runner::analyze::analyze;
use runner::check::{check, read_baseline};
use runner::plan::plan;
use runner::registry::Value;
use runner::spec::load;
use runner::validate::{resolve, Experiment};

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// The quick profile of table 1, reduced to its output-perturbation studies.
fn output_perturbation_rows() -> Experiment {
    let loaded = load(&repo_file("experiments/table1.toml")).expect("table1.toml parses");
    let mut e = resolve(&loaded, Some("quick")).expect("table1.toml resolves");
    e.studies
        .retain(|s| s.algorithm.name == "output_perturbation_conceptual");
    assert!(
        e.studies.len() >= 2,
        "table 1 lost its output-perturbation rows"
    );
    e
}

#[test]
fn noise_scaled_by_two_fails_the_committed_table1_baseline() {
    let baseline = read_baseline(&repo_file("experiments/baselines/table1-quick.csv"))
        .expect("the committed quick baseline of table 1 reads");

    let good = output_perturbation_rows();
    let calibrated = run_in_process(&good);
    let analyses = analyze(&good, &plan(&good), &calibrated).unwrap();
    let outcome = check(&good, &analyses, Some(&baseline));
    assert!(
        outcome.pass(),
        "the committed algorithm must pass against the committed baseline:\n{}",
        outcome.render()
    );
    let compared: usize = analyses.iter().map(|a| a.points.len()).sum();
    assert!(
        outcome
            .notes
            .iter()
            .any(|n| n.contains(&format!("{compared} grid points compared"))),
        "every grid point must have a baseline row: {:?}",
        outcome.notes
    );

    let mut broken = output_perturbation_rows();
    for s in &mut broken.studies {
        s.options.insert("noise_multiplier".into(), Value::Num(2.0));
    }
    let broken_records = run_in_process(&broken);
    // The multiplier rescales the calibrated run's own draws (it is not part of
    // the noise seed): on these quadratics every excess is exactly 4 times.
    assert_eq!(calibrated.len(), broken_records.len());
    for (c, b) in calibrated.iter().zip(&broken_records) {
        assert_eq!(
            (c.study, c.point, c.repetition),
            (b.study, b.point, b.repetition)
        );
        assert!(
            (b.metric / c.metric - 4.0).abs() < 1e-6,
            "same draw, scaled by 2: {} vs {}",
            b.metric,
            c.metric
        );
    }
    let analyses = analyze(&broken, &plan(&broken), &broken_records).unwrap();
    assert!(
        analyses.iter().all(|a| a.slopes.iter().all(|s| s.pass)),
        "a constant factor on the error keeps every slope: only the baseline and the exact theory can see it"
    );
    let outcome = check(&broken, &analyses, Some(&baseline));
    assert!(!outcome.pass());
    let text = outcome.render();
    let worse = text.matches("worse than the baseline").count();
    assert_eq!(
        worse, compared,
        "every grid point must be flagged as worse:\n{text}"
    );
    assert!(text.contains("miss the exact expectation"), "{text}");
}
