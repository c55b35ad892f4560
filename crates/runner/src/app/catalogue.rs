//! The text of `runner list`: the registered problem families and
//! algorithms, with their parameters.

use crate::registry::{algorithms, families, Metric, ParamKind, PrivacyUnit};

/// The text of `runner list`.
pub fn catalogue() -> String {
    use std::fmt::Write;
    let mut out = String::from("Problem families\n");
    let param_lines = |out: &mut String, defs: &[crate::registry::ParamDef]| {
        for d in defs {
            let kind = match d.kind {
                ParamKind::Int { min } => format!("integer >= {min}"),
                ParamKind::Float { min, max, min_open } => {
                    format!(
                        "number in {}{min}, {max}]",
                        if min_open { "(" } else { "[" }
                    )
                }
                ParamKind::Choice(c) => format!("one of {c:?}"),
            };
            let default = d
                .default
                .map_or("required".to_string(), |v| format!("default {v}"));
            let _ = writeln!(out, "      {:<12} {kind}, {default}: {}", d.name, d.doc);
        }
    };
    for f in families() {
        let _ = writeln!(
            out,
            "  {}\n    {}\n    kind: {}, metrics: {:?}",
            f.name,
            f.doc,
            f.build.kind().name(),
            Metric::names(f.metrics)
        );
        param_lines(&mut out, f.params);
    }
    out.push_str("\nAlgorithms\n");
    for a in algorithms() {
        let _ = writeln!(
            out,
            "  {}\n    {}\n    kind: {}, privacy: {}, diagnostics: {:?}",
            a.name,
            a.doc,
            a.run.kind().name(),
            match a.privacy_unit {
                PrivacyUnit::EpsDelta =>
                    format!("(eps, delta)-DP with delta in [0, {})", a.delta_max),
                PrivacyUnit::Zcdp => "rho-zCDP".to_string(),
            },
            a.diagnostics
        );
        param_lines(&mut out, a.options);
    }
    out.push_str(
        "\nPrivacy parameters (sweepable): eps > 0 and delta in [0, 1) for (eps, delta)-DP algorithms, rho > 0 for rho-zCDP algorithms\n",
    );
    out
}
