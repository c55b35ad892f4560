//! The audit pairs of the Lowy–Razaviyayn entries (and of
//! `output_perturbation_conceptual`, `zzmw17`, `noisy_sgd`): each builds at
//! its recommended setting, its two data sets are replace-one neighbours of
//! exactly the records the instances hold, and over fixed-seed runs the
//! release's first coordinate is larger on `D` than on `D'` (the canary is
//! visible), by at least 3 standard errors. Settings where a pair cannot be
//! sound are refused. Deterministic: fixed noise seeds.

use contract::audit::differ_in_one_record;
use contract::seeds::rng_from_seed;
use contract::{
    AlgorithmDef, AuditSetting, Estimator, Instance, ParamKind, Privacy, RunContext, Value, Values,
};
use dpcore::{Objective, PrivacyParams, RunFailure};
use papers::algorithm;

/// Options at their defaults, with `overrides` (choices) applied.
fn options(a: &AlgorithmDef, overrides: &[(&str, &str)]) -> Values {
    let mut v: Values = a
        .options
        .iter()
        .map(|p| {
            let text = p.default.expect("every option has a default");
            let value = match (p.kind, text.strip_prefix('"')) {
                (ParamKind::Choice(_), Some(s)) => Value::Str(s.trim_end_matches('"').into()),
                _ => Value::Num(text.parse().expect("numeric default")),
            };
            (p.name.to_string(), value)
        })
        .collect();
    for (k, s) in overrides {
        assert!(v.contains_key(*k), "{}: no option {k}", a.name);
        v.insert(k.to_string(), Value::Str(s.to_string()));
    }
    v
}

/// One audited configuration: entry, option overrides, `(n, d)`, privacy,
/// runs per side.
struct Case {
    name: &'static str,
    overrides: &'static [(&'static str, &'static str)],
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    runs: usize,
    estimator: Estimator,
}

const EPS1: PrivacyParams = PrivacyParams {
    eps: 1.0,
    delta: 1e-5,
};

const CASES: &[Case] = &[
    Case {
        name: "output_perturbation_conceptual",
        overrides: &[],
        n: 100,
        d: 1,
        privacy: EPS1,
        runs: 2000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "output_perturbation_conceptual",
        overrides: &[("sensitivity", "paper")],
        n: 100,
        d: 1,
        privacy: EPS1,
        runs: 4000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "op_conceptual_projected",
        overrides: &[],
        n: 100,
        d: 1,
        privacy: EPS1,
        runs: 2000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "op_black_box",
        overrides: &[],
        n: 100,
        d: 1,
        privacy: EPS1,
        runs: 8000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "op_regularized",
        overrides: &[],
        n: 2001,
        d: 1,
        privacy: EPS1,
        runs: 2000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "op_regularized",
        overrides: &[("calibration", "paper")],
        n: 2001,
        d: 1,
        privacy: EPS1,
        runs: 2000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "adversarial_black_box",
        overrides: &[],
        n: 500,
        d: 1,
        privacy: EPS1,
        runs: 8000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "adversarial_black_box",
        overrides: &[("inflation", "paper")],
        n: 500,
        d: 1,
        privacy: EPS1,
        runs: 2000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "zzmw17",
        overrides: &[],
        n: 100,
        d: 1,
        privacy: EPS1,
        runs: 8000,
        estimator: Estimator::GaussianDp,
    },
    Case {
        name: "noisy_sgd",
        overrides: &[],
        n: 20,
        d: 1,
        privacy: EPS1,
        runs: 4000,
        estimator: Estimator::Threshold,
    },
];

fn objective(i: &Instance) -> &dyn Objective {
    match i {
        Instance::Objective(p) => p.as_ref(),
        _ => panic!("every pair of this paper is an objective"),
    }
}

/// The records each instance of a pair is built from, recovered from the
/// instance where the family exposes them.
fn check_records(name: &str, records: &[Vec<Vec<f64>>; 2], instances: &[Instance; 2]) {
    for (rows, inst) in records.iter().zip(instances) {
        assert_eq!(
            rows.len(),
            objective(inst).num_records(),
            "{name}: record count"
        );
    }
}

#[test]
fn every_pair_builds_neighbours_and_shows_its_canary() {
    for case in CASES {
        let a = algorithm(case.name).expect("registered");
        let audit = a
            .audit
            .unwrap_or_else(|| panic!("{} is not audited", a.name));
        assert_eq!(audit.estimator, case.estimator, "{}", a.name);
        let opts = options(a, case.overrides);
        let setting = AuditSetting {
            n: case.n,
            d: case.d,
            options: &opts,
            privacy: Privacy::Approx(case.privacy),
            transcript: false,
        };
        let pair = (audit.pair)(&setting)
            .unwrap_or_else(|e| panic!("{} {:?}: {e:?}", a.name, case.overrides));
        let [d, d_prime] = &pair.records;
        differ_in_one_record(pair.relation, d, d_prime)
            .unwrap_or_else(|e| panic!("{}: {e}", a.name));
        check_records(a.name, &pair.records, &pair.instances);
        let ctx = RunContext {
            options: &opts,
            problem: &pair.problem,
            privacy: setting.privacy,
            metric: a.metrics[0],
        };
        let mut stats = [Vec::new(), Vec::new()];
        for (side, inst) in pair.instances.iter().enumerate() {
            for run in 0..case.runs {
                let mut rng = rng_from_seed(1_000_003 * side as u64 + run as u64);
                let out = a
                    .run
                    .run(&ctx, inst, &mut rng)
                    .unwrap_or_else(|e| panic!("{} side {side} run {run}: {e:?}", a.name));
                stats[side].push((audit.statistic)(&out.release.output));
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let var = |v: &[f64]| {
            let m = mean(v);
            v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
        };
        let gap = mean(&stats[0]) - mean(&stats[1]);
        let se = ((var(&stats[0]) + var(&stats[1])) / case.runs as f64).sqrt();
        eprintln!(
            "{} {:?} n={} d={}: mean gap {gap:.4e}, {:.1} standard errors",
            a.name,
            case.overrides,
            case.n,
            case.d,
            gap / se
        );
        assert!(
            gap > 3.0 * se,
            "{} {:?}: canary not visible, gap {gap:e} vs se {se:e}",
            a.name,
            case.overrides
        );
    }
}

/// The Gaussian-DP audits whose pair is only sound for Gaussian noise refuse
/// `delta = 0` (l2 "Laplace" noise), the unprojected output perturbations
/// accept it (the runner audits a pure-DP claim with the threshold audit),
/// and the projected ones refuse a setting where the projection could bind.
#[test]
fn unsound_settings_are_refused() {
    let pure = Privacy::Approx(PrivacyParams::pure(1.0));
    for name in ["output_perturbation_conceptual", "zzmw17"] {
        let a = algorithm(name).unwrap();
        let opts = options(a, &[]);
        let setting = AuditSetting {
            n: 2001,
            d: 1,
            options: &opts,
            privacy: pure,
            transcript: false,
        };
        assert!(
            (a.audit.unwrap().pair)(&setting).is_ok(),
            "{name} refused delta = 0"
        );
    }
    for name in [
        "op_conceptual_projected",
        "op_black_box",
        "op_regularized",
        "adversarial_black_box",
    ] {
        let a = algorithm(name).unwrap();
        let opts = options(a, &[]);
        let setting = AuditSetting {
            n: 2001,
            d: 1,
            options: &opts,
            privacy: pure,
            transcript: false,
        };
        let refused = (a.audit.unwrap().pair)(&setting);
        assert!(
            matches!(refused, Err(RunFailure::InvalidParameters(_))),
            "{name} accepted delta = 0"
        );
    }
    // op_regularized at n = 101: sigma ~ 0.3 against R = 1.
    let a = algorithm("op_regularized").unwrap();
    let opts = options(a, &[]);
    let setting = AuditSetting {
        n: 101,
        d: 1,
        options: &opts,
        privacy: Privacy::Approx(EPS1),
        transcript: false,
    };
    assert!(matches!(
        (a.audit.unwrap().pair)(&setting),
        Err(RunFailure::InvalidParameters(_))
    ));
}
