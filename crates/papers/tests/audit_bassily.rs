//! The Bassily et al. audit pairs (issue 25): every private entry has one;
//! at its recommended setting the pair builds, differs in exactly one record
//! under its relation, and over 200 fixed-seed runs a side the canary is
//! visible (the mean statistic is larger on `D` than on `D'`; both sides use
//! the same seeds, so the noise cancels from the comparison and only the
//! canary's effect remains). Settings where
//! the pair's estimator would be unsound are refused.

use contract::audit::{differ_in_one_record, AuditSetting, Relation};
use contract::seeds::rng_from_seed;
use contract::{Privacy, RunContext, Value, Values};
use dpcore::{PrivacyParams, RunFailure};

/// An audit row: entry, option overrides, `n`, `eps`, `delta`.
type Case = (
    &'static str,
    &'static [(&'static str, &'static str)],
    usize,
    f64,
    f64,
);

/// Runs per side of the visibility check.
const RUNS: u64 = 200;

/// The entry's options at their defaults, overridden by `set`.
fn options(name: &str, set: &[(&str, &str)]) -> Values {
    let def = papers::algorithm(name).unwrap();
    let mut v: Values = def
        .options
        .iter()
        .filter_map(|p| {
            p.default
                .map(|t| (p.name.to_string(), Value::Str(t.trim_matches('"').into())))
        })
        .collect();
    for (k, s) in set {
        v.insert(k.to_string(), Value::Str(s.to_string()));
    }
    v
}

fn setting(options: &Values, n: usize, d: usize, eps: f64, delta: f64) -> AuditSetting<'_> {
    AuditSetting {
        n,
        d,
        options,
        privacy: Privacy::Approx(PrivacyParams::approx(eps, delta)),
        transcript: false,
    }
}

/// Builds the pair of `name` at the setting, checks it and returns the mean
/// statistic on each side over [`RUNS`] fixed-seed runs.
fn means(name: &str, options: &Values, n: usize, eps: f64, delta: f64) -> (f64, f64) {
    let def = papers::algorithm(name).unwrap();
    let audit = def.audit.unwrap_or_else(|| panic!("{name} has no audit"));
    let s = setting(options, n, 1, eps, delta);
    let pair = (audit.pair)(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(pair.relation, Relation::ReplaceOne, "{name}");
    differ_in_one_record(pair.relation, &pair.records[0], &pair.records[1])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(pair.records[0].len(), n, "{name}");
    let ctx = RunContext {
        options,
        problem: &pair.problem,
        privacy: s.privacy,
        metric: def.metrics[0],
    };
    let mean = |side: usize| {
        (0..RUNS)
            .map(|i| {
                let mut rng = rng_from_seed(i);
                let out = def.run.run(&ctx, &pair.instances[side], &mut rng).unwrap();
                (audit.statistic)(&out.release.output)
            })
            .sum::<f64>()
            / RUNS as f64
    };
    (mean(0), mean(1))
}

#[test]
fn every_private_entry_has_an_audit() {
    for name in [
        "nsgd",
        "nsgd_with_replacement",
        "nsgd_moreau",
        "prox_gd",
        "one_pass_sgd",
        "objp",
        "objp_app",
    ] {
        assert!(papers::algorithm(name).unwrap().audit.is_some(), "{name}");
    }
    for name in ["erm", "theory_curve"] {
        assert!(papers::algorithm(name).unwrap().audit.is_none(), "{name}");
    }
}

/// The recommended settings: full batch with one step (n = 15, eps = 4) for
/// NSGD and its Moreau variant, two (n = 16, eps = 8) for ProxGD, n = 1000
/// at (1, 1e-6) for objective perturbation. The canary moves the release by
/// `eta L/n = 0.067` (NSGD, sd 0.158 a run), `0.063` (ProxGD),
/// `L/(2 lambda n) = 0.0055` (ObjP, sd 0.065; ObjP-App, sd 0.13) and
/// deterministically by `0.24` (one-pass SGD); with the same seeds on both
/// sides the noise cancels (it is the same draw, moved by the canary).
#[test]
fn the_canary_is_visible_at_the_recommended_settings() {
    let cases: [Case; 9] = [
        ("nsgd", &[], 15, 4.0, 1e-5),
        ("nsgd", &[("calibration", "paper")], 15, 16.0, 1e-5),
        ("nsgd_moreau", &[], 15, 4.0, 1e-5),
        ("prox_gd", &[], 16, 8.0, 1e-5),
        ("prox_gd", &[("calibration", "paper")], 16, 16.0, 1e-5),
        ("one_pass_sgd", &[], 15, 4.0, 1e-5),
        ("objp", &[], 1000, 1.0, 1e-6),
        ("objp_app", &[], 1000, 1.0, 1e-6),
        ("objp_app", &[("constants", "paper")], 1000, 1.0, 1e-6),
    ];
    for (name, set, n, eps, delta) in cases {
        let opts = options(name, set);
        let (d, d_prime) = means(name, &opts, n, eps, delta);
        assert!(
            d > d_prime,
            "{name} {set:?}: mean {d} on D, {d_prime} on D'"
        );
    }
}

fn refusal(name: &str, options: &Values, n: usize, eps: f64, delta: f64) -> String {
    let audit = papers::algorithm(name).unwrap().audit.unwrap();
    match (audit.pair)(&setting(options, n, 1, eps, delta)) {
        Err(RunFailure::InvalidParameters(why)) => why,
        Err(e) => panic!("{name}: not an invalid-parameter refusal: {e}"),
        Ok(pair) => panic!("{name}: built {}", pair.description),
    }
}

/// Where the release is not a Gaussian mean shift, the Gaussian-DP pairs
/// refuse, saying why; so do settings the algorithm cannot run at.
#[test]
fn unsound_or_impossible_settings_are_refused() {
    let nsgd = options("nsgd", &[]);
    // eps = 1, n = 30: T = 2 steps on Poisson batches of m = 11.
    assert!(refusal("nsgd", &nsgd, 30, 1.0, 1e-5).contains("Poisson"));
    // Under add/remove the schedule is the declared n's on both sides, so at
    // full batch the pair is a pure mean shift and builds (issue 37).
    let add_remove = options("nsgd", &[("neighbouring", "add_remove")]);
    let pair = (papers::algorithm("nsgd").unwrap().audit.unwrap().pair)(&setting(
        &add_remove,
        15,
        1,
        4.0,
        1e-5,
    ))
    .unwrap();
    assert_eq!(pair.relation, Relation::AddRemove);
    assert_eq!((pair.records[0].len(), pair.records[1].len()), (15, 14));
    // n = 20: T = 2 steps, the envelope gradients are not constant off w_0.
    let moreau = options("nsgd_moreau", &[]);
    assert!(refusal("nsgd_moreau", &moreau, 20, 8.0, 1e-5).contains("T = 2"));
    // ObjP is proven only for eps <= 1 and delta <= 1/n^2.
    assert!(refusal("objp", &Values::new(), 1000, 2.0, 1e-6).contains("eps <= 1"));
    // n = 20: the release's sd is 0.28 M, so the projection binds.
    assert!(refusal("objp", &Values::new(), 20, 1.0, 1e-6).contains("binds"));
    let app = options("objp_app", &[]);
    assert!(refusal("objp_app", &app, 1000, 1.0, 1e-3).contains("1/n^2"));
}

/// NSGD under add/remove at n = 119, d = 16, eps = 1, delta = 1e-12 (issue
/// 37): eps^2 n^2/(32 d ln(1/delta)) is 1.001 at n = 119 and 0.984 at 118,
/// so a schedule read off the data set's own size runs D (119 records) for
/// one noisy step and releases w_0 = 0 exactly on D' (118): eps = infinity.
/// With the schedule computed from the declared n (the family's, the same
/// for both neighbours) both sides run the same T, m, eta, q, sigma and
/// noise multiplier, and neither is trivial.
#[test]
fn add_remove_nsgd_runs_the_same_schedule_on_both_neighbours() {
    use datagen::bassily::{LinBall, LinBallParams};
    use dpcore::{Neighbouring, Objective};
    use solvers::bassily::sgd::Nsgd;

    let (n, d, eps, delta) = (119usize, 16usize, 1.0, 1e-12);
    let privacy = PrivacyParams::approx(eps, delta);
    let canary = {
        let mut z = vec![0.0; d];
        z[0] = 1.0;
        z
    };
    let shared = vec![vec![0.0; d]; n - 1];
    let rows = [
        std::iter::once(canary)
            .chain(shared.clone())
            .collect::<Vec<_>>(),
        shared,
    ];
    differ_in_one_record(Relation::AddRemove, &rows[0], &rows[1]).unwrap();
    let instance = |r: &Vec<Vec<f64>>| {
        LinBall::from_records(LinBallParams::new(r.len(), d, 0.5), r.concat()).unwrap()
    };
    let (big, small) = (instance(&rows[0]), instance(&rows[1]));
    assert_eq!((big.num_records(), small.num_records()), (119, 118));

    // The leak the fix closes: the data set's own size as the schedule's n.
    let own = Nsgd {
        relation: Neighbouring::ReplaceOne,
        ..Nsgd::default()
    };
    assert!(!own.plan(&big, privacy).unwrap().schedule.trivial);
    assert!(own.plan(&small, privacy).unwrap().schedule.trivial);
    // Add/remove without a declared n is refused rather than read off the data.
    let undeclared = Nsgd {
        relation: Neighbouring::AddRemove,
        ..Nsgd::default()
    };
    assert!(undeclared.plan(&small, privacy).is_err());

    // The registry entry, as a sweep or the audit runs it: the family's
    // declared n = 119 for both sides.
    let def = papers::algorithm("nsgd").unwrap();
    let opts = options("nsgd", &[("neighbouring", "add_remove")]);
    let problem: Values = [
        ("n", n as f64),
        ("d", d as f64),
        ("r_factor", 1.0),
        ("lipschitz", 1.0),
        ("radius", 1.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Value::Num(v)))
    .collect();
    let ctx = RunContext {
        options: &opts,
        problem: &problem,
        privacy: Privacy::Approx(privacy),
        metric: def.metrics[0],
    };
    let schedule = |instance: LinBall| {
        let out = def
            .run
            .run(
                &ctx,
                &contract::Instance::Objective(Box::new(instance)),
                &mut rng_from_seed(1),
            )
            .unwrap();
        [
            "steps",
            "batch",
            "step_size",
            "sigma",
            "noise_multiplier",
            "realised_eps",
        ]
        .map(|name| out.diagnostics.get(name).unwrap())
    };
    let (on_d, on_d_prime) = (schedule(big), schedule(small));
    assert_eq!(on_d, on_d_prime);
    assert_eq!(on_d[0], 1.0, "T = 1 on both sides: {on_d:?}");
    assert!(on_d[3] > 0.0, "noisy on both sides: {on_d:?}");
}
