//! Cross-checks of the claim files against the studies that name them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::diagnostics::SpecError;

use super::evidence::Judged;
use super::spec::{ClaimFile, ClaimKind, ClaimSpec, Evidence, Limit};
use crate::spec::SlopeSide;

fn bad(location: String, message: String, hint: &str) -> anyhow::Error {
    SpecError {
        location,
        message,
        hint: hint.into(),
    }
    .into()
}

/// The fields a claim of one kind may not carry.
fn check_kind_fields(path: &Path, c: &ClaimSpec) -> Result<()> {
    let at = || path.display().to_string();
    if c.kind != ClaimKind::UpperBound && (c.limit != Limit::Large || c.attained.is_some()) {
        return Err(bad(
            at(),
            format!(
                "claim `{}` is {} but sets `limit` or `attained`",
                c.id,
                c.kind.name()
            ),
            "`limit` and `attained` qualify an upper bound's slope only",
        ));
    }
    if c.attained_on.is_some() && c.attained.is_none() {
        return Err(bad(
            at(),
            format!("claim `{}` sets `attained_on` without `attained`", c.id),
            "`attained` says why the listed studies' instances attain the rate",
        ));
    }
    let printed_slope_evidence = c.kind == ClaimKind::Printed && c.evidence == Evidence::Slope;
    let measured = c.not_measured.is_none() && c.undecidable.is_none();
    if c.printed_slope.is_some() != (printed_slope_evidence && measured) {
        return Err(bad(
            at(),
            format!(
                "claim `{}`: `printed_slope` is required for a measured printed claim with slope evidence, and allowed nowhere else",
                c.id
            ),
            "give the exponent the printed statement predicts (the study's expectation is the corrected one)",
        ));
    }
    Ok(())
}

/// An upper bound's limit decides which side of its exponent is "better"
/// (`limit = "large"`: a smaller fitted exponent beats the bound; `"small"`:
/// a larger one does). A naming study's one-sided window on the claim's
/// parameter must allow the better side, or the study's own check (`runner
/// check`, results/<name>.md) would call a slope that beats the bound
/// contradicted and one worse than it confirmed, while the ledger judges the
/// same fit the other way round.
fn check_upper_bound_side(path: &Path, s: &crate::validate::Study, c: &ClaimSpec) -> Result<()> {
    let (ClaimKind::UpperBound, Evidence::Slope, Some(param)) = (c.kind, c.evidence, &c.parameter)
    else {
        return Ok(());
    };
    let (better, limit, beating) = if c.limit == Limit::Large {
        (SlopeSide::AtMost, "large", "smaller")
    } else {
        (SlopeSide::AtLeast, "small", "larger")
    };
    let side_name = |side: SlopeSide| {
        if side == SlopeSide::AtMost {
            "at_most"
        } else {
            "at_least"
        }
    };
    let own = |w: &&crate::validate::SlopeCheck| c.selects_window(&w.param, w.slope);
    for w in s.slopes.iter().filter(own) {
        if matches!(w.side, SlopeSide::AtMost | SlopeSide::AtLeast) && w.side != better {
            return Err(bad(
                format!("{} (study `{}`)", path.display(), s.name),
                format!(
                    "the {param}-window with slope {:+} is one-sided `{}`, but claim `{}` is an upper bound whose limit is `{limit}`: beating it means a {beating} exponent",
                    w.slope,
                    side_name(w.side),
                    c.id,
                ),
                &format!(
                    "set `side = \"{}\"` (with `revised = \"why\"` if the study has data)",
                    side_name(better)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that every id is unique, every kind carries only its own fields,
/// every study names known claims, no study names a claim marked not
/// measured, and every other claim is named.
pub fn validate(claims: &[(PathBuf, ClaimFile)], judged: &[Judged]) -> Result<()> {
    let mut ids: BTreeMap<&str, (&Path, &ClaimSpec)> = BTreeMap::new();
    for (path, file) in claims {
        for c in &file.claims {
            if let Some((other, _)) = ids.insert(&c.id, (path, c)) {
                return Err(bad(
                    path.display().to_string(),
                    format!(
                        "claim id `{}` is declared twice (also in {})",
                        c.id,
                        other.display()
                    ),
                    "give every claim one stable, unique id",
                ));
            }
            if c.evidence == Evidence::Slope
                && c.not_measured.is_none()
                && c.undecidable.is_none()
                && c.parameter.is_none()
            {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}` has slope evidence but no `parameter`", c.id),
                    "name the swept variable whose slope decides it",
                ));
            }
            check_kind_fields(path, c)?;
            if (c.evidence == Evidence::Test) == c.tests.is_empty() {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}`: `tests` goes with `evidence = \"test\"`, and that evidence needs at least one test", c.id),
                    "name each test as `path/from/repo/root.rs::test_function`",
                ));
            }
            if (c.evidence == Evidence::SlopeDifference)
                != (c.difference.is_some() && c.parameter.is_some())
            {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}`: `difference` and `parameter` go with `evidence = \"slope_difference\"`, which needs both", c.id),
                    "give difference = { minuend = \"study\", subtrahend = \"study\", slope = .., tolerance = .., fit = [lo, hi] } and the swept parameter",
                ));
            }
            if c.kind == ClaimKind::UpperBound && c.expected.contains("two-sided") {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}` is an upper bound but its `expected` says \"two-sided\"", c.id),
                    "an upper bound is judged one-sided (only a worse exponent contradicts it, in the ledger and in the study's report): say so, or make the claim a `sharp_rate` if the paper proves the rate tight",
                ));
            }
            if c.test_reading.is_some()
                && !(c.kind == ClaimKind::Printed && c.evidence == Evidence::Test)
            {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}`: `test_reading` is for a printed claim with `evidence = \"test\"`", c.id),
                    "drop it: other kinds' tests read as their kind says",
                ));
            }
            if c.undecidable.is_some() && c.not_measured.is_some() {
                return Err(bad(
                    path.display().to_string(),
                    format!(
                        "claim `{}` sets both `undecidable` and `not_measured`",
                        c.id
                    ),
                    "undecidable: no experiment could decide it; not_measured: none does yet",
                ));
            }
        }
    }
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for j in judged {
        for s in &j.experiment.studies {
            for id in &s.claims {
                let Some((_, c)) = ids.get(id.as_str()) else {
                    return Err(bad(
                        format!("{} (study `{}`)", j.path.display(), s.name),
                        format!("study names claim `{id}`, which no claim file declares"),
                        "declare it in experiments/claims/<paper>.toml or fix the id",
                    ));
                };
                if c.not_measured.is_some() || c.undecidable.is_some() {
                    return Err(bad(
                        format!("{} (study `{}`)", j.path.display(), s.name),
                        format!(
                            "study names claim `{id}`, which its claim file marks not measured or undecidable"
                        ),
                        "remove `not_measured` / `undecidable` from the claim, or the id from the study",
                    ));
                }
                check_upper_bound_side(&j.path, s, c)?;
                named.insert(id);
            }
        }
    }
    check_farther_differences(claims, judged)?;
    for (path, file) in claims {
        for c in &file.claims {
            let needs_study = c.not_measured.is_none()
                && c.undecidable.is_none()
                && c.evidence != Evidence::Errata
                && c.evidence != Evidence::Audit
                && c.evidence != Evidence::Test;
            if needs_study && !named.contains(c.id.as_str()) {
                return Err(bad(
                    path.display().to_string(),
                    format!("claim `{}` is neither named by a study nor marked not measured", c.id),
                    "add `claims = [\"ID\"]` to the study that tests it, or `not_measured = \"why\"`",
                ));
            }
        }
    }
    Ok(())
}

/// Every farther window of a slope difference must be a farther window of
/// the same instance: its minuend `extends` the nearer minuend (directly or
/// through a chain of farther studies). Without it the farther part is
/// judged but supersedes nothing ([`super::supersede`]), so the nearer
/// window's open reason would stand beside a decisive farther one.
fn check_farther_differences(claims: &[(PathBuf, ClaimFile)], judged: &[Judged]) -> Result<()> {
    for (path, file) in claims {
        for c in &file.claims {
            let Some(d) = &c.difference else { continue };
            for f in &d.farther {
                if !extends_chain_reaches(judged, &f.minuend, &d.minuend) {
                    return Err(bad(
                        path.display().to_string(),
                        format!(
                            "claim `{}`: the farther minuend `{}` does not extend the nearer minuend `{}`",
                            c.id, f.minuend, d.minuend
                        ),
                        "add `extends = \"<nearer minuend>\"` to the farther study (a farther window of the same instance, written before its cells ran), or make it a claim of its own",
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether the study `from` (looked up by name in the judged files) extends
/// the study named `target`, directly or through a chain
/// ([`super::supersede::extends_chain`], the walk the ledger supersedes by).
fn extends_chain_reaches(judged: &[Judged], from: &str, target: &str) -> bool {
    let Some(spec) = judged
        .iter()
        .find(|j| j.experiment.studies.iter().any(|s| s.name == from))
        .map(|j| j.path.as_path())
    else {
        return false;
    };
    let extends = super::supersede::extends_in(judged);
    super::supersede::extends_chain(&extends, spec, from)
        .iter()
        .any(|(_, study)| *study == target)
}
