//! Conformance of every entry in `papers` to the plug-in contract: each
//! algorithm runs on a tiny instance of a compatible family for every metric it
//! declares, and each run returns a finite metric, no NaN curve, and
//! diagnostics only under the names the entry declares. Names are unique,
//! every declared metric is a known one that some family (or the algorithm
//! itself) can measure, and every parameter default parses and lies in its
//! declared range. Deterministic: fixed data and noise seeds, so a failure
//! reproduces exactly.

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

/// Families an algorithm accepts and can measure `metric` with: the pairs
/// the spec validator lets through.
fn compatible<'a>(a: &AlgorithmDef, metric: Metric) -> Vec<&'a FamilyDef> {
    families()
        .filter(|f| f.build.kind() == a.run.kind() && a.accepts(f.name))
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
/// the run with an invalid-parameters failure (retried at the next tiny size:
/// A_ProxGD's guard), `Ok(Ok((metric, output)))` on a run, `Err` on any other
/// failure, a measurement failure included.
fn tiny_run(
    a: &AlgorithmDef,
    f: &FamilyDef,
    metric: Metric,
    size: (f64, f64),
    variant: &Variant,
) -> Result<Result<(f64, contract::CellOutput), String>, String> {
    let mut options = tiny_values(a.options, size);
    let privacy = tiny_privacy(a);
    let mut problem = tiny_values(f.params, size);
    match variant {
        Variant::Defaults => {}
        Variant::Option(name, v) => {
            options.insert(name.clone(), v.clone());
        }
        Variant::Problem(name, v) => {
            problem.insert(name.clone(), v.clone());
        }
    }
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

/// The values a tiny run is tried at: the defaults first, then one value
/// changed at a time, so that an accepted pair that runs only at some
/// setting still runs here.
#[derive(Debug, Clone)]
enum Variant {
    /// Every parameter at its default (tiny where required).
    Defaults,
    /// An algorithm option at another of its choices (e.g. `op_black_box`
    /// on `sharp` needs a full-batch `inner`: Katyusha needs smoothness).
    Option(String, Value),
    /// A float family parameter halfway from its default to its lower end
    /// (e.g. `kl_power_tilt`'s `p = 2` for Algorithm 2, which needs
    /// `kappa = p/(p-1) >= 2`).
    Problem(String, Value),
}

/// The variants of a pair, defaults first.
fn variants(a: &AlgorithmDef, f: &FamilyDef) -> Vec<Variant> {
    let mut out = vec![Variant::Defaults];
    for p in a.options {
        if let ParamKind::Choice(choices) = p.kind {
            let default = p.default.map(|t| parse_default(p, t));
            for c in choices {
                let v = Value::Str(c.to_string());
                if Some(&v) != default.as_ref() {
                    out.push(Variant::Option(p.name.into(), v));
                }
            }
        }
    }
    for p in f.params {
        if let (ParamKind::Float { min, .. }, Some(text)) = (p.kind, p.default) {
            if let Value::Num(x) = parse_default(p, text) {
                let v = Value::Num(min + 0.5 * (x - min));
                if min.is_finite() && admissible(p, &v) {
                    out.push(Variant::Problem(p.name.into(), v));
                }
            }
        }
    }
    out
}

#[test]
fn every_algorithm_measures_every_declared_metric_on_a_tiny_instance() {
    // Every refused accepted pair, gathered so that one run lists them all.
    let mut failures = Vec::new();
    // Every NaN curve, gathered likewise.
    let mut nan_curves = Vec::new();
    for a in algorithms() {
        for &metric in a.metrics {
            let m = metric.name();
            let (mut measured, mut refused) = (Vec::new(), Vec::new());
            for f in compatible(a, metric) {
                let mut outcome = Err(String::new());
                'tries: for variant in variants(a, f) {
                    for size in TINY_SIZES {
                        outcome = tiny_run(a, f, metric, size, &variant).unwrap_or_else(|e| {
                            panic!(
                                "{} on {} measuring {m} at {size:?}, {variant:?}: {e}",
                                a.name, f.name
                            )
                        });
                        if outcome.is_ok() {
                            break 'tries;
                        }
                    }
                }
                // The pair is accepted (declared families, kinds, metrics):
                // a refusal at run time is a pairing the validator should
                // have refused before anything ran.
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
                // Every name the run (and the runner's derivation) set is
                // declared: `diagnostic_columns` panics on any other.
                let mut diagnostics = out.diagnostics.clone();
                if let Some(derive) = a.derive_diagnostics {
                    derive(value, &mut diagnostics);
                }
                a.diagnostic_columns(&diagnostics);
                // A curve that applies has a value: a formula undefined at
                // the setting returns `None`, not NaN.
                let curves = [out.curves.theory, out.curves.bound, out.curves.reference];
                if curves.iter().flatten().any(|x| x.is_nan()) {
                    nan_curves.push(format!(
                        "{} on {} measuring {m}: {curves:?}",
                        a.name, f.name
                    ));
                }
                measured.push(f.name);
            }
            if !refused.is_empty() || measured.is_empty() {
                failures.push(format!(
                    "{} measuring {m}: refused at run time on accepted families {refused:?}, \
                     measured on {measured:?}",
                    a.name
                ));
            }
        }
    }
    assert!(
        nan_curves.is_empty(),
        "NaN curves (return `None` where a curve is undefined):\n{}",
        nan_curves.join("\n")
    );
    assert!(
        failures.is_empty(),
        "accepted pairs refused at run time (declare the families an algorithm accepts with \
         `only_on`):\n{}",
        failures.join("\n")
    );
}

#[test]
fn declared_families_exist_and_are_of_the_algorithms_kind() {
    for a in algorithms() {
        assert_eq!(
            a.families.is_empty(),
            a.families_reason.is_empty(),
            "{}: a family list needs its reason and a reason its list",
            a.name
        );
        for name in a.families {
            let f = papers::family(name)
                .unwrap_or_else(|| panic!("{} accepts unknown family {name}", a.name));
            assert_eq!(
                f.build.kind(),
                a.run.kind(),
                "{} accepts {name}, a family of another kind",
                a.name
            );
        }
    }
}
