//! The Wang–Zhu–Wang audit pairs (issue 25): every private entry carries one,
//! built at its recommended setting it is a replace-one pair whose instances
//! hold exactly its records, and over 200 fixed-seed runs a side the canary
//! is visible (the release's first coordinate is larger on `D`). The two
//! entries that release nothing private carry none. Also: the settings a pair
//! refuses, and the calibration variants (`conversion = "tight"`, `iterate =
//! "last"`) whose realised privacy is not above the claim.

use contract::audit::{differ_in_one_record, AuditSetting, Relation};
use contract::seeds::rng_from_seed;
use contract::{AlgorithmDef, Instance, Privacy, RunContext, Value, Values};
use dpcore::{PrivacyParams, RunFailure};
use papers::algorithm;

/// The algorithm's options at their defaults, then `overrides`.
fn options(a: &AlgorithmDef, overrides: &[(&str, &str)]) -> Values {
    let mut o: Values = a
        .options
        .iter()
        .map(|p| {
            let text = p.default.expect("every Wang option has a default");
            let v = match text.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                Some(s) => Value::Str(s.into()),
                None => Value::Num(text.parse().unwrap()),
            };
            (p.name.to_string(), v)
        })
        .collect();
    for (k, v) in overrides {
        assert!(o.contains_key(*k), "{}: no option {k}", a.name);
        let value = v
            .parse()
            .map_or_else(|_| Value::Str(v.to_string()), Value::Num);
        o.insert(k.to_string(), value);
    }
    o
}

fn approx(eps: f64) -> Privacy {
    Privacy::Approx(PrivacyParams::approx(eps, 1e-5))
}

/// Option overrides by name (values as TOML text without quotes).
type Overrides = &'static [(&'static str, &'static str)];

/// The recommended settings `(algorithm, options, n, d, eps)` at
/// `delta = 1e-5`: each releases a data-dependent point (the averaged
/// entries run T >= 2 NGD steps; the last-iterate one T = 1).
const SETTINGS: &[(&str, Overrides, usize, usize, f64)] = &[
    ("wang_m_star", &[], 8, 32, 8.0),
    ("wang_m_prime", &[], 8, 8, 8.0),
    ("wang_oracle_jlgd", &[], 4, 32, 8.0),
    ("wang_full_dim_dpgd", &[], 8, 32, 8.0),
    (
        "wang_full_dim_dpgd",
        &[
            ("tuning", "known"),
            ("radius_factor", "1"),
            ("conversion", "tight"),
            ("iterate", "last"),
        ],
        4,
        32,
        1.0,
    ),
];

fn rows(instance: &Instance) -> Vec<Vec<f64>> {
    let Instance::Halfspace(p) = instance else {
        panic!("a Wang pair holds halfspace instances");
    };
    let d = p.dim();
    p.features()
        .chunks_exact(d)
        .zip(p.labels())
        .map(|(x, &y)| x.iter().copied().chain([y]).collect())
        .collect()
}

#[test]
fn every_private_entry_has_a_visible_canary() {
    for &(name, overrides, n, d, eps) in SETTINGS {
        let a = algorithm(name).unwrap();
        let def = a.audit.unwrap_or_else(|| panic!("{name} is not audited"));
        let o = options(a, overrides);
        let privacy = approx(eps);
        let setting = AuditSetting {
            n,
            d,
            options: &o,
            privacy,
            transcript: false,
        };
        let pair = (def.pair)(&setting).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(pair.relation, Relation::ReplaceOne, "{name}");
        differ_in_one_record(pair.relation, &pair.records[0], &pair.records[1]).unwrap();
        for side in 0..2 {
            assert_eq!(rows(&pair.instances[side]), pair.records[side], "{name}");
        }
        let ctx = RunContext {
            options: &o,
            problem: &pair.problem,
            privacy,
            metric: a.metrics[0],
        };
        let mean = |side: usize| {
            (0..200u64)
                .map(|r| {
                    let mut rng = rng_from_seed(1000 * side as u64 + r);
                    let out = a.run.run(&ctx, &pair.instances[side], &mut rng).unwrap();
                    (def.statistic)(&out.release.output)
                })
                .sum::<f64>()
                / 200.0
        };
        let (on_d, on_d_prime) = (mean(0), mean(1));
        assert!(
            on_d > on_d_prime,
            "{name} {overrides:?}: mean statistic {on_d} on D, {on_d_prime} on D'"
        );
    }
}

#[test]
fn entries_without_a_private_release_are_not_audited() {
    for name in ["wang_hard_margin_svm", "wang_jl_margin_check"] {
        assert!(algorithm(name).unwrap().audit.is_none(), "{name}");
    }
}

#[test]
fn pairs_refuse_settings_they_cannot_audit() {
    let a = algorithm("wang_m_star").unwrap();
    let def = a.audit.unwrap();
    let o = options(a, &[]);
    let refused = |n: usize, d: usize, eps: f64| {
        let setting = AuditSetting {
            n,
            d,
            options: &o,
            privacy: approx(eps),
            transcript: false,
        };
        match (def.pair)(&setting) {
            Err(RunFailure::InvalidParameters(why)) => why,
            Ok(_) => panic!("n = {n}, d = {d}, eps = {eps} was accepted"),
            Err(e) => panic!("{e}"),
        }
    };
    // Below the families' ranges.
    assert!(refused(3, 8, 8.0).contains("n >= 4"));
    assert!(refused(8, 1, 8.0).contains("d >= 2"));
    // (1, 1e-5) at n = 8: mu = 0.104, |Gamma| = 4, mu_p = 0.0368 and
    // T = round(64 mu_p^2) = 0 -> 1, so the averaged release is w_0 = 0.
    assert!(refused(8, 8, 1.0).contains("data independent"));
    // The paper conversion needs eps < 8 ln(1/delta) = 92.1.
    assert!(refused(8, 8, 100.0).contains("8 ln(1/delta)"));
}

/// The calibration variants of the errata brief: the exact Dong–Roth–Su
/// conversion spends exactly the claim (to rounding), the last iterate
/// changes only the step size, so neither realises more than the claimed
/// `eps`.
#[test]
fn calibration_variants_realise_no_more_than_the_claim() {
    let (n, d) = (16, 8);
    for name in ["wang_m_star", "wang_oracle_jlgd", "wang_full_dim_dpgd"] {
        let a = algorithm(name).unwrap();
        let pair = papers::wang::audit::canary_pair(n, d).unwrap();
        for overrides in [
            &[("conversion", "paper")][..],
            &[("conversion", "tight")],
            &[("iterate", "last")],
            &[("conversion", "tight"), ("iterate", "last")],
        ] {
            let o = options(a, overrides);
            for eps in [0.5, 1.0, 8.0] {
                let ctx = RunContext {
                    options: &o,
                    problem: &pair.problem,
                    privacy: approx(eps),
                    metric: a.metrics[0],
                };
                let out = a
                    .run
                    .run(&ctx, &pair.instances[0], &mut rng_from_seed(3))
                    .unwrap();
                let realised = out.release.realised_privacy.unwrap();
                assert!(
                    realised <= eps * (1.0 + 1e-9),
                    "{name} {overrides:?} at eps = {eps}: realised {realised}"
                );
            }
        }
    }
}
