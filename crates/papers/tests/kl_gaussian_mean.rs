//! The `kl_gaussian_mean` entry through the plug-in contract, as the runner
//! calls it: on `kl_mean_estimation` its curves and diagnostics carry the
//! calibration `sigma = (2 R_x/n)/sqrt(2 rho)` with `R_x = start_distance +
//! spread` and the exact expectation `R_x^2 d/(n^2 rho)`; it declares that it
//! accepts no other family, and a run on one refuses with an
//! invalid-parameters failure. Deterministic seeds.

use contract::seeds::rng_from_seed;
use contract::{Metric, Privacy, RunContext, Value, Values};
use dpcore::RunFailure;

fn values(pairs: &[(&str, f64)]) -> Values {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Value::Num(*v)))
        .collect()
}

fn run(
    family: &str,
    problem: &Values,
    rho: f64,
    metric: Metric,
) -> Result<contract::CellOutput, RunFailure> {
    let a = papers::algorithm("kl_gaussian_mean").expect("registered");
    let f = papers::family(family).expect("registered");
    let instance = f.build.build(problem, &mut rng_from_seed(1)).unwrap();
    let options = Values::new();
    let ctx = RunContext {
        options: &options,
        problem,
        privacy: Privacy::Zcdp(rho),
        metric,
    };
    a.run.run(&ctx, &instance, &mut rng_from_seed(2))
}

#[test]
fn the_entry_reports_the_calibration_and_the_exact_expectation() {
    let a = papers::algorithm("kl_gaussian_mean").unwrap();
    let (n, d, r0, s, rho): (f64, f64, f64, f64, f64) = (400.0, 6.0, 1.0, 0.5, 0.25);
    let problem = values(&[
        ("n", n),
        ("d", d),
        ("start_distance", r0),
        ("spread", s),
        ("margin", 1.5),
    ]);
    let rx = r0 + s;
    let sigma = 2.0 * rx / n / (2.0 * rho).sqrt();
    let diagnostic = |out: &contract::CellOutput, name: &str| {
        assert!(a.diagnostics.contains(&name), "{name} is declared");
        out.diagnostics.get(name).unwrap()
    };
    let out = run(
        "kl_mean_estimation",
        &problem,
        rho,
        Metric::ExcessEmpiricalRisk,
    )
    .unwrap();
    assert!((diagnostic(&out, "sigma") / sigma - 1.0).abs() < 2e-9);
    assert_eq!(diagnostic(&out, "sensitivity"), 2.0 * rx / n);
    assert_eq!(diagnostic(&out, "releases"), 1.0);
    let theory = out.curves.theory.unwrap();
    let printed = rx * rx * d / (n * n * rho);
    assert!(
        (theory / printed - 1.0).abs() < 1e-8,
        "{theory} vs {printed}"
    );
    assert_eq!(out.curves.bound, None);
    let spent = run("kl_mean_estimation", &problem, rho, Metric::RealisedRho).unwrap();
    let realised = spent.release.realised_privacy.unwrap();
    assert!(realised <= rho && realised >= rho * (1.0 - 1e-8));
    assert_eq!(spent.curves.bound, Some(rho));
}

#[test]
fn the_entry_refuses_a_family_without_a_record_radius() {
    // Declared: the validator refuses the pairing before anything runs.
    let a = papers::algorithm("kl_gaussian_mean").unwrap();
    assert!(a.accepts("kl_mean_estimation") && !a.accepts("kl_power_tilt"));
    // And a run reaching it anyway (the contract called directly) refuses.
    let problem = values(&[
        ("n", 100.0),
        ("d", 4.0),
        ("p", 2.0),
        ("start_distance", 1.0),
        ("margin", 1.5),
        ("tilt", 0.0),
    ]);
    match run("kl_power_tilt", &problem, 1.0, Metric::ExcessEmpiricalRisk) {
        Err(RunFailure::InvalidParameters(why)) => {
            assert!(why.contains("kl_mean_estimation"), "{why}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
