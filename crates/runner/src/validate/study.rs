//! Resolving one study: its problem family, algorithm and metric, then (in this
//! order, so that the first error reported is always the same) its grid, fixed
//! values, privacy parameters and slope expectations.

use std::collections::{BTreeMap, BTreeSet};

use super::{grid, join, params, slopes, Study, Target};
use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry;
use crate::spec::{PrivacySpec, ProfileSpec, StudySpec};
use crate::toml_path;

/// Resolves study `s`, written at `base`, with `repetitions` already decided,
/// under `profile` (whose spec is `profile_spec`), inheriting the
/// experiment's privacy `defaults`.
pub(super) fn resolve(
    loc: &SpecLocator,
    s: &StudySpec,
    base: &[PathSeg],
    repetitions: usize,
    profile: Option<&str>,
    profile_spec: Option<&ProfileSpec>,
    defaults: &PrivacySpec,
) -> Result<Study, SpecError> {
    let family = registry::family(&s.problem.name).ok_or_else(|| {
        loc.error(
            &join(base, &toml_path!["problem", "family"]),
            format!("unknown problem family `{}`", s.problem.name),
            format!("known families: {:?} (see `runner list`)", family_names()),
        )
    })?;
    let algorithm = if s.algorithm.name.starts_with(crate::python::PREFIX) {
        let dir = loc.path().parent().unwrap_or(std::path::Path::new(""));
        crate::python::resolve(&s.algorithm.name, dir).map_err(|e| {
            loc.error(
                &join(base, &toml_path!["algorithm", "name"]),
                e,
                "a Python entry is python:<path>:<function> with a HARNESS declaration (docs/python.md)",
            )
        })?
    } else {
        registry::algorithm(&s.algorithm.name).ok_or_else(|| {
            loc.error(
                &join(base, &toml_path!["algorithm", "name"]),
                format!("unknown algorithm `{}`", s.algorithm.name),
                format!(
                    "known algorithms: {:?} (see `runner list`)",
                    algorithm_names()
                ),
            )
        })?
    };
    let metric_kind = registry::Metric::from_name(&s.metric).ok_or_else(|| {
        loc.error(
            &join(base, &toml_path!["metric"]),
            format!("unknown metric `{}`", s.metric),
            format!(
                "known metrics: {:?}",
                registry::Metric::ALL
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
            ),
        )
    })?;
    if family.build.kind() != algorithm.run.kind() {
        return Err(loc.error(
            &join(base, &toml_path!["algorithm", "name"]),
            format!(
                "algorithm `{}` runs on {} problems but family `{}` generates {} problems",
                algorithm.name,
                algorithm.run.kind().name(),
                family.name,
                family.build.kind().name()
            ),
            "pair it with a family of its kind (`runner list` shows each kind)",
        ));
    }
    if !algorithm.accepts(family.name) {
        return Err(loc.error(
            &join(base, &toml_path!["problem", "family"]),
            format!(
                "algorithm `{}` does not accept family `{}`: {}",
                algorithm.name, family.name, algorithm.families_reason
            ),
            format!("families it accepts: {:?}", algorithm.families),
        ));
    }
    if !algorithm.metrics.contains(&metric_kind) {
        return Err(loc.error(
            &join(base, &toml_path!["metric"]),
            format!(
                "algorithm `{}` does not report metric `{}`",
                algorithm.name, s.metric
            ),
            format!(
                "metrics it reports: {:?}",
                registry::Metric::names(algorithm.metrics)
            ),
        ));
    }
    if !metric_kind.reported_by_algorithm() && !family.metrics.contains(&metric_kind) {
        return Err(loc.error(
            &join(base, &toml_path!["metric"]),
            format!(
                "family `{}` cannot measure metric `{}`",
                family.name, s.metric
            ),
            format!(
                "metrics it measures exactly: {:?}",
                registry::Metric::names(family.metrics)
            ),
        ));
    }

    let grid = grid::merge(loc, s, base, profile, profile_spec)?;
    let axes = grid::resolve_axes(loc, family, algorithm, &grid)?;
    // A rerun profile (its own seed) may only add grid points.
    if let (Some(p), Some(_)) = (profile, profile_spec.filter(|ps| ps.seed.is_some())) {
        let defaults = grid::merge(loc, s, base, None, None)?;
        let defaults = grid::resolve_axes(loc, family, algorithm, &defaults)?;
        grid::check_refines(loc, p, &s.name, &defaults, &axes)?;
    }
    let swept: BTreeSet<&str> = axes.iter().map(|a| a.name.as_str()).collect();
    let first_of = |target: Target| -> BTreeMap<&str, f64> {
        axes.iter()
            .filter(|a| a.target == target)
            .map(|a| (a.name.as_str(), a.values[0]))
            .collect()
    };

    let problem = params::resolve_values(
        loc,
        family.params,
        &s.problem.params,
        &join(base, &toml_path!["problem"]),
        &first_of(Target::Problem),
        &format!("family `{}`", family.name),
        &["family", "name"],
    )?;
    let options = params::resolve_values(
        loc,
        algorithm.options,
        &s.algorithm.params,
        &join(base, &toml_path!["algorithm"]),
        &first_of(Target::Algorithm),
        &format!("algorithm `{}`", algorithm.name),
        &["name"],
    )?;
    let privacy = params::check_privacy(loc, s, base, defaults, algorithm, &axes, &grid)?;
    // A profile may replace the study's expectations (a quick grid too short
    // for the default's slope windows).
    let (expect, expect_path) = match profile_spec.and_then(|p| p.expect.get(&s.name)) {
        Some(e) => (
            e,
            toml_path!["profiles", profile.unwrap_or_default(), "expect", &s.name].to_vec(),
        ),
        None => (&s.expect, join(base, &toml_path!["expect"])),
    };
    let slopes = slopes::resolve_slopes(loc, expect, &expect_path, &axes, &swept)?;
    if let Some(axis) = &s.worst_case_over {
        let at = join(base, &toml_path!["worst_case_over"]);
        if !swept.contains(axis.as_str()) {
            return Err(loc.error(
                &at,
                format!("`worst_case_over = \"{axis}\"` is not a swept parameter of this study"),
                format!("swept parameters: {:?}", swept),
            ));
        }
        if slopes.iter().any(|c| &c.param == axis) {
            return Err(loc.error(
                &at,
                format!("`{axis}` is both fitted (expect.slopes) and maximized over"),
                "fit slopes along the other swept parameters",
            ));
        }
    }

    if let Some(t) = expect.trivial_max {
        if !(t.is_finite() && t > 0.0) {
            return Err(loc.error(
                &join(&expect_path, &toml_path!["trivial_max"]),
                format!("trivial_max = {t} is not a positive finite number"),
                "give the metric's value at a trivial release, e.g. 1 for a 0-1 error",
            ));
        }
    }

    Ok(Study {
        name: s.name.clone(),
        title: if s.title.is_empty() {
            s.name.clone()
        } else {
            s.title.clone()
        },
        metric: s.metric.clone(),
        metric_kind,
        repetitions,
        family,
        algorithm,
        problem,
        options,
        privacy: privacy.first,
        privacy_identity: privacy.identity,
        axes,
        below_bound: expect.below_bound,
        match_theory: expect.match_theory,
        slopes,
        above_reference: expect.above_reference.map(|[a, b]| (a, b)),
        figure: s.figure.clone(),
        label: s.label.clone().unwrap_or_else(|| s.name.clone()),
        paper: s.paper.clone(),
        headline: s.headline.clone(),
        worst_case_over: s.worst_case_over.clone(),
        trivial_max: expect.trivial_max.or_else(|| metric_kind.trivial_maximum()),
        revised: expect.revised.clone(),
        regime_not_reached: expect.regime_not_reached.clone(),
        claims: s.claims.clone(),
        extends: s.extends.clone(),
    })
}

fn family_names() -> Vec<&'static str> {
    registry::families().map(|f| f.name).collect()
}

fn algorithm_names() -> Vec<&'static str> {
    registry::algorithms().map(|a| a.name).collect()
}
