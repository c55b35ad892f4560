//! A late option (`ParamRole::NoiseOffDefault`, e.g. the Wang tuners'
//! `grid_copies`) must leave every committed cell as it was: at its default
//! it enters neither the noise seeds nor the study identity, exactly as if
//! the option did not exist; off its default it enters both. This test can
//! fail: declared as an ordinary option (`.option()`), `grid_copies` moved
//! 122 pinned identity hashes and would have redrawn every M* and M' cell.

use runner::identity::study_hash;
use runner::plan::plan;
use runner::registry::Value;
use runner::spec::load;
use runner::validate::{resolve, Experiment};

fn wang() -> (Experiment, usize) {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/wang.toml"
    ));
    let e = resolve(&load(path).unwrap(), None).unwrap();
    let i = e
        .studies
        .iter()
        .position(|s| s.name == "wzw_t71_iter_n")
        .unwrap();
    (e, i)
}

fn noise_seeds(e: &Experiment, study: usize) -> Vec<u64> {
    plan(e)
        .cells
        .iter()
        .filter(|c| c.study == study)
        .map(|c| c.noise_seed)
        .collect()
}

#[test]
fn a_late_option_at_its_default_changes_no_seed_and_no_identity() {
    let (e, i) = wang();
    assert_eq!(
        e.studies[i].options.get("grid_copies"),
        Some(&Value::Num(1.0)),
        "the resolver fills the default in"
    );
    // The world before the option existed.
    let mut before = e.clone();
    before.studies[i].options.remove("grid_copies");
    assert_eq!(noise_seeds(&e, i), noise_seeds(&before, i));
    assert_eq!(
        study_hash(&e, &e.studies[i]),
        study_hash(&before, &before.studies[i])
    );
    // Off the default it is a different computation.
    let mut copies = e.clone();
    copies.studies[i]
        .options
        .insert("grid_copies".into(), Value::Num(2.0));
    let (a, b) = (noise_seeds(&e, i), noise_seeds(&copies, i));
    assert!(a.iter().zip(&b).all(|(x, y)| x != y));
    assert_ne!(
        study_hash(&e, &e.studies[i]),
        study_hash(&copies, &copies.studies[i])
    );
}
