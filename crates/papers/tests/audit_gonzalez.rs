//! The González–Guzmán–Paquette audit pairs (`papers::gonzalez::audit`) at
//! the settings the audit report recommends: each builds, its two record
//! sets are replace-one neighbours, and the canary is visible: over 200
//! runs a side the mean statistic is larger on `D` than on `D'`. The two
//! sides share their seeds (run `i` of `D` and of `D'` draw the same
//! uniforms), so the comparison sees the canary's shift and not the
//! sampling noise (Alg. 5 moves the mean by about 0.005 at its setting).
//! Fixed seeds; deterministic.

use contract::audit::{differ_in_one_record, AuditSetting};
use contract::seeds::rng_from_seed;
use contract::{AlgorithmDef, Privacy, RunContext, Value, Values};
use dpcore::{PrivacyParams, RunFailure};

/// An audit row: algorithm, option overrides, `n`, `d`, `eps`, `delta`.
type Row = (
    &'static str,
    &'static [(&'static str, &'static str)],
    usize,
    usize,
    f64,
    f64,
);

/// The report's audit rows.
const SETTINGS: &[Row] = &[
    (
        "ggp_alg1",
        &[("c_steps", "0.07"), ("c_tau", "10")],
        18,
        2,
        8.0,
        1e-5,
    ),
    (
        "ggp_alg1",
        &[
            ("c_steps", "0.07"),
            ("c_tau", "10"),
            ("release_count", "paper"),
        ],
        18,
        2,
        8.0,
        1e-5,
    ),
    (
        "ggp_alg1",
        &[("c_steps", "0.1"), ("c_tau", "10")],
        90,
        2,
        1.0,
        1e-5,
    ),
    ("ggp_alg3", &[], 125, 2, 40.0, 1e-5),
    (
        "ggp_alg3",
        &[("release_count", "paper")],
        125,
        2,
        40.0,
        1e-5,
    ),
    ("ggp_noisy_entropic_md", &[], 60, 2, 1.0, 1e-5),
    (
        "ggp_euclidean_dp_sgda",
        &[("clip", "1.4142135623730951")],
        2,
        2,
        1.0,
        1e-5,
    ),
    ("ggp_euclidean_dp_sgda", &[], 2, 2, 1.0, 1e-5),
    ("ggp_alg4", &[("regime", "first_order")], 3, 2, 4.0, 1e-5),
    (
        "ggp_alg4",
        &[("regime", "first_order"), ("release_count", "paper")],
        3,
        2,
        4.0,
        1e-5,
    ),
    ("ggp_alg4", &[], 11, 2, 1.0, 1e-5),
    ("ggp_dp_frank_wolfe", &[], 10, 2, 1.0, 1e-5),
    ("ggp_dp_sgd_simplex", &[], 2, 2, 1.0, 1e-5),
    ("ggp_alg5", &[], 10, 2, 8.0, 1e-5),
    ("ggp_mwem", &[], 18, 3, 1.0, 0.0),
    ("ggp_mwem", &[], 9, 3, 2.0, 0.0),
];

fn algorithm(name: &str) -> &'static AlgorithmDef {
    papers::algorithms()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no algorithm {name}"))
}

/// The entry's defaults with `overrides` (what the runner's validation
/// produces for these options).
fn options(def: &AlgorithmDef, overrides: &[(&str, &str)]) -> Values {
    let parse = |t: &str| match t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(s) => Value::Str(s.to_string()),
        None => t
            .parse()
            .map(Value::Num)
            .unwrap_or_else(|_| Value::Str(t.to_string())),
    };
    let mut v: Values = def
        .options
        .iter()
        .filter_map(|p| Some((p.name.to_string(), parse(p.default?))))
        .collect();
    for (k, x) in overrides {
        assert!(v.contains_key(*k), "{}: no option {k}", def.name);
        v.insert((*k).to_string(), parse(x));
    }
    v
}

#[test]
fn every_private_gonzalez_entry_is_audited_and_the_baseline_is_not() {
    let audited: Vec<&str> = papers::algorithms()
        .filter(|a| a.name.starts_with("ggp_") && a.audit.is_some())
        .map(|a| a.name)
        .collect();
    for (name, ..) in SETTINGS {
        assert!(audited.contains(name), "{name} has no audit");
    }
    assert_eq!(audited.len(), 9, "{audited:?}");
    assert!(algorithm("ggp_nonprivate_smd").audit.is_none());
}

#[test]
fn pairs_build_are_neighbours_and_show_the_canary() {
    for &(name, overrides, n, d, eps, delta) in SETTINGS {
        let def = algorithm(name);
        let audit = def.audit.unwrap();
        let options = options(def, overrides);
        let privacy = Privacy::Approx(PrivacyParams::approx(eps, delta));
        let setting = AuditSetting {
            n,
            d,
            options: &options,
            privacy,
            transcript: false,
        };
        let pair = (audit.pair)(&setting).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        differ_in_one_record(pair.relation, &pair.records[0], &pair.records[1])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(pair.records[0].len(), n, "{name}");
        let ctx = RunContext {
            options: &options,
            problem: &pair.problem,
            privacy,
            metric: def.metrics[0],
        };
        let mean = |side: usize| {
            (0..200)
                .map(|i| {
                    let out = def
                        .run
                        .run(&ctx, &pair.instances[side], &mut rng_from_seed(9000 + i))
                        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
                    (audit.statistic)(&out.release.output)
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
fn uninformative_settings_are_refused_with_the_reason() {
    // Alg. 1 at T = 1 releases a vertex of the uniform start; Alg. 5 needs
    // T >= 3; MWEM's pair is built on three points.
    let refused = |name: &str, n: usize, d: usize, eps: f64| {
        let def = algorithm(name);
        let options = options(def, &[]);
        let setting = AuditSetting {
            n,
            d,
            options: &options,
            privacy: Privacy::Approx(PrivacyParams::approx(eps, 1e-5)),
            transcript: false,
        };
        match (def.audit.unwrap().pair)(&setting) {
            Err(RunFailure::InvalidParameters(reason)) => reason,
            Ok(_) => panic!("{name} built at n = {n}, d = {d}, eps = {eps}"),
            Err(e) => panic!("{name}: {e:?}"),
        }
    };
    assert!(refused("ggp_alg1", 4, 2, 1.0).contains("T = 1"));
    assert!(refused("ggp_alg5", 10, 2, 1.0).contains("< 3"));
    assert!(refused("ggp_mwem", 18, 2, 1.0).contains("d = 3"));
    assert!(refused("ggp_noisy_entropic_md", 10, 2, 1.0).contains("T = 1"));
}

#[test]
fn the_mwem_statistic_reads_the_selected_pair_and_its_measurement() {
    use contract::Released;
    let stat = papers_mwem_statistic();
    // q1 selected, s = 0.5: A ∝ (e^0.5, e^-0.5, 1).
    let q1 = |s: f64| {
        let w = [s.exp(), (-s).exp(), 1.0];
        let t: f64 = w.iter().sum();
        Released::Histogram(w.iter().map(|v| v / t).collect())
    };
    // q2 selected: A ∝ (e^-s, e^s, e^s).
    let q2 = |s: f64| {
        let w = [(-s).exp(), s.exp(), s.exp()];
        let t: f64 = w.iter().sum();
        Released::Histogram(w.iter().map(|v| v / t).collect())
    };
    assert!(stat(&q1(0.5)) > stat(&q1(0.1)));
    assert!(stat(&q1(-3.0)) > 1.0);
    assert!(stat(&q2(-0.5)) > stat(&q2(0.5)));
    assert!(stat(&q2(-3.0)) < 1.0);
}

fn papers_mwem_statistic() -> fn(&contract::Released) -> f64 {
    algorithm("ggp_mwem").audit.unwrap().statistic
}
