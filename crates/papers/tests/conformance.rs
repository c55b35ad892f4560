//! Conformance of every entry in `papers` to the plug-in contract: each
//! algorithm runs on a tiny instance of a compatible family for every metric it
//! declares, and each run returns a finite metric and exactly as many
//! diagnostics as the entry names. Names are unique, every declared metric is a
//! known one that some family (or the algorithm itself) can measure, and every
//! parameter default parses and lies in its declared range. Deterministic:
//! fixed data and noise seeds, so a failure reproduces exactly.

use std::collections::BTreeSet;

use contract::seeds::rng_from_seed;
use contract::{
    AlgorithmDef, FamilyDef, Metric, ParamDef, ParamKind, Privacy, PrivacyUnit, RunContext, Value,
    Values,
};
use dpcore::{PrivacyParams, RunFailure};
use papers::{algorithms, families};

/// The tiny sizes `(n, d)` tried in order until the entry accepts one: most
/// run at the first; A_ProxGD's inner prox cost `T m d ceil(36 M^2/xi^2)`
/// exceeds its 1e10 guard from n = 256 (its own experiments run n = 60..80,
/// d = 2). A declared minimum above a size wins.
const TINY_SIZES: [(f64, f64); 2] = [(256.0, 4.0), (64.0, 2.0)];

/// A value for a required parameter: `n` and `d` tiny, others the smallest
/// admissible integer or a float inside the declared range.
fn tiny_required(p: &ParamDef, (n, d): (f64, f64)) -> Value {
    match (p.name, p.kind) {
        ("n", ParamKind::Int { min }) => Value::Num(n.max(min as f64)),
        ("d", ParamKind::Int { min }) => Value::Num(d.max(min as f64)),
        (_, ParamKind::Int { min }) => Value::Num((min.max(2)) as f64),
        (_, ParamKind::Float { min, max, .. }) => Value::Num(if min < 0.5 && 0.5 <= max {
            0.5
        } else {
            min + 1.0
        }),
        (_, ParamKind::Choice(options)) => Value::Str(options[0].to_string()),
    }
}

/// Parses a declared default (TOML text: a quoted string or a number).
fn parse_default(p: &ParamDef, text: &str) -> Value {
    if let Some(s) = text.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return Value::Str(s.to_string());
    }
    Value::Num(
        text.parse()
            .unwrap_or_else(|e| panic!("default {text:?} of {} does not parse: {e}", p.name)),
    )
}

/// Whether `v` is admissible for `p`.
fn admissible(p: &ParamDef, v: &Value) -> bool {
    match (p.kind, v) {
        (ParamKind::Int { min }, Value::Num(x)) => x.fract() == 0.0 && *x >= min as f64,
        (ParamKind::Float { min, max, min_open }, Value::Num(x)) => {
            (if min_open { *x > min } else { *x >= min }) && *x <= max
        }
        (ParamKind::Choice(options), Value::Str(s)) => options.contains(&s.as_str()),
        _ => false,
    }
}

/// Every parameter at its default, or at a tiny value where required.
fn tiny_values(params: &[ParamDef], size: (f64, f64)) -> Values {
    params
        .iter()
        .map(|p| {
            let v = p
                .default
                .map_or_else(|| tiny_required(p, size), |t| parse_default(p, t));
            assert!(
                admissible(p, &v),
                "{}: {v:?} outside its declared range",
                p.name
            );
            (p.name.to_string(), v)
        })
        .collect()
}

/// The privacy of a tiny run: `eps = 1`, `delta = 1e-6` (below every
/// `delta_max`, positive for the Gaussian-only methods), or `rho = 0.5`.
fn tiny_privacy(a: &AlgorithmDef) -> Privacy {
    match a.privacy_unit {
        PrivacyUnit::EpsDelta => Privacy::Approx(PrivacyParams::approx(1.0, 1e-6)),
        PrivacyUnit::Zcdp => Privacy::Zcdp(0.5),
    }
}

/// Families an algorithm can run on and measure `metric` with.
fn compatible<'a>(a: &AlgorithmDef, metric: Metric) -> Vec<&'a FamilyDef> {
    families()
        .filter(|f| f.build.kind() == a.run.kind())
        .filter(|f| metric.reported_by_algorithm() || f.metrics.contains(&metric))
        .collect()
}

#[test]
fn names_are_unique_and_declared_metrics_are_known() {
    let mut seen = BTreeSet::new();
    for f in families() {
        assert!(seen.insert(f.name), "family name {} twice", f.name);
        for m in f.metrics {
            assert_eq!(
                Metric::from_name(m.name()),
                Some(*m),
                "{}: {m:?} unnamed",
                f.name
            );
        }
        let params: BTreeSet<_> = f.params.iter().map(|p| p.name).collect();
        assert_eq!(
            params.len(),
            f.params.len(),
            "{}: a parameter twice",
            f.name
        );
    }
    let mut seen = BTreeSet::new();
    for a in algorithms() {
        assert!(seen.insert(a.name), "algorithm name {} twice", a.name);
        let options: BTreeSet<_> = a.options.iter().map(|p| p.name).collect();
        assert_eq!(
            options.len(),
            a.options.len(),
            "{}: an option twice",
            a.name
        );
        let diagnostics: BTreeSet<_> = a.diagnostics.iter().collect();
        assert_eq!(
            diagnostics.len(),
            a.diagnostics.len(),
            "{}: a diagnostic twice",
            a.name
        );
        assert!(!a.metrics.is_empty(), "{} declares no metric", a.name);
        for &m in a.metrics {
            assert_eq!(
                Metric::from_name(m.name()),
                Some(m),
                "{}: {m:?} unnamed",
                a.name
            );
            assert!(
                !compatible(a, m).is_empty(),
                "{}: no family of kind {} measures {}",
                a.name,
                a.run.kind().name(),
                m.name()
            );
        }
    }
}

#[test]
fn every_family_builds_a_tiny_instance() {
    for f in families() {
        let mut values = tiny_values(f.params, TINY_SIZES[0]);
        if f.privacy_defines_data {
            values.insert("eps".into(), Value::Num(1.0));
            values.insert("delta".into(), Value::Num(1e-6));
        }
        let instance = f
            .build
            .build(&values, &mut rng_from_seed(1))
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert_eq!(instance.kind(), f.build.kind(), "{}", f.name);
    }
}

/// Runs `a` on a tiny instance of `f` and measures `metric` on its release as
/// the runner does (`Instance::measure`): `Ok(Err(why))` when the entry refuses
/// the pairing with a clear invalid-parameters failure (a family of the right
/// kind without the structure the algorithm needs, e.g. a regularized
/// minimizer), `Ok(Ok((metric, output)))` on a run, `Err` on any other failure,
/// a measurement failure included.
fn tiny_run(
    a: &AlgorithmDef,
    f: &FamilyDef,
    metric: Metric,
    size: (f64, f64),
) -> Result<Result<(f64, contract::CellOutput), String>, String> {
    let options = tiny_values(a.options, size);
    let privacy = tiny_privacy(a);
    let problem = tiny_values(f.params, size);
    let mut data = problem.clone();
    if f.privacy_defines_data {
        for (name, v) in privacy.values() {
            data.insert(name.into(), Value::Num(v));
        }
    }
    let instance = f
        .build
        .build(&data, &mut rng_from_seed(1))
        .map_err(|e| format!("building {}: {e}", f.name))?;
    let ctx = RunContext {
        options: &options,
        problem: &problem,
        privacy,
        metric,
    };
    match a.run.run(&ctx, &instance, &mut rng_from_seed(2)) {
        Ok(out) => {
            let value = instance
                .measure(metric, &out.release)
                .map_err(|e| format!("measuring {}: {e}", metric.name()))?;
            Ok(Ok((value, out)))
        }
        Err(RunFailure::InvalidParameters(why)) => Ok(Err(format!("{}: {why}", f.name))),
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn every_algorithm_measures_every_declared_metric_on_a_tiny_instance() {
    for a in algorithms() {
        for &metric in a.metrics {
            let m = metric.name();
            let (mut measured, mut refused) = (Vec::new(), Vec::new());
            for f in compatible(a, metric) {
                let mut outcome = Err(String::new());
                for size in TINY_SIZES {
                    outcome = tiny_run(a, f, metric, size).unwrap_or_else(|e| {
                        panic!("{} on {} measuring {m} at {size:?}: {e}", a.name, f.name)
                    });
                    if outcome.is_ok() {
                        break;
                    }
                }
                let (value, out) = match outcome {
                    Ok(run) => run,
                    Err(why) => {
                        refused.push(why);
                        continue;
                    }
                };
                assert!(
                    value.is_finite(),
                    "{} on {} measuring {m}: metric {value}",
                    a.name,
                    f.name,
                );
                assert_eq!(
                    out.diagnostics.len(),
                    a.diagnostics.len(),
                    "{} on {}: diagnostics {:?} against the names {:?}",
                    a.name,
                    f.name,
                    out.diagnostics,
                    a.diagnostics
                );
                measured.push(f.name);
            }
            assert!(
                !measured.is_empty(),
                "{} measures {m} on no family; refusals: {refused:?}",
                a.name
            );
        }
    }
}
