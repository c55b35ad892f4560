//! A study's fixed values and privacy guarantee, resolved by the contract's
//! resolver ([`contract::resolve_params`], [`contract::resolve_privacy`],
//! shared with the audit spec so both accept the same values), each error
//! located at the key it names.

use std::collections::BTreeMap;

use super::{join, Axis, Grid, Target};
use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::registry::{
    resolve_params, resolve_privacy, AlgorithmDef, ParamDef, ParamTable, ParamValue, Privacy,
    PrivacySpec, ResolveError, Values,
};
use crate::spec::StudySpec;
use crate::toml_path;
use dpcore::PrivacyParams;

/// A study's privacy guarantee, resolved.
#[derive(Debug, Clone, Copy)]
pub(super) struct ResolvedPrivacy {
    /// The guarantee at the first grid point: each swept parameter holds its
    /// first grid value (the plan overrides it per point).
    pub(super) first: Privacy,
    /// The guarantee the study's identity hash reads: a swept parameter holds
    /// the experiment's `privacy` value for it, NaN when it has none (see
    /// [`super::Study::privacy_identity`]).
    pub(super) identity: Privacy,
}

/// Resolves study `s`'s guarantee for `algorithm`. Each privacy parameter is
/// swept (its first grid value), fixed in the study's `privacy`, or, for a
/// parameter of the algorithm's unit, inherited from the experiment's
/// `defaults`; a study may not both fix and sweep one. The guarantee so
/// assembled, and the same with every other value of each privacy axis, go
/// through [`resolve_privacy`], and an error is located where its key's
/// value was written (the study, the experiment's `privacy`, the grid).
pub(super) fn check_privacy(
    loc: &SpecLocator,
    s: &StudySpec,
    base: &[PathSeg],
    defaults: &PrivacySpec,
    algorithm: &AlgorithmDef,
    axes: &[Axis],
    grid: &Grid,
) -> Result<ResolvedPrivacy, SpecError> {
    let unit = algorithm.privacy_unit;
    let swept = |name: &str| {
        axes.iter()
            .find(|a| a.target == Target::Privacy && a.name == name)
    };
    let own_path = |name: &str| join(base, &toml_path!["privacy", name]);
    let mut written = PrivacySpec::default();
    let mut written_at: BTreeMap<&str, Vec<PathSeg>> = BTreeMap::new();
    for name in crate::registry::PRIVACY_PARAMS.iter().copied() {
        let (value, at) = match (swept(name), s.privacy.get(name)) {
            (Some(_), Some(_)) => {
                // Fixed xor swept: a value that no cell uses never enters the spec.
                return Err(loc.error(
                    &own_path(name),
                    format!("`{name}` is both fixed here and swept in the grid"),
                    format!("remove `{name}` here or from the grid"),
                ));
            }
            (Some(axis), None) => (Some(axis.values[0]), grid[name].1.clone()),
            (None, Some(v)) => (Some(v), own_path(name)),
            (None, None) => match defaults.get(name) {
                Some(v) if unit.params().contains(&name) => {
                    (Some(v), toml_path!["privacy", name].to_vec())
                }
                _ => (None, own_path(name)),
            },
        };
        written = written.with(name, value);
        written_at.insert(name, at);
    }
    let locate = |e: ResolveError| match e.key.as_deref() {
        Some(key) => loc.error(&written_at[key], e.message, e.hint),
        None => loc.error(
            &join(base, &toml_path!["privacy"]),
            e.message,
            format!("{}, or sweep it in the grid", e.hint),
        ),
    };
    let first = resolve_privacy(algorithm, &written, "privacy").map_err(locate)?;
    for axis in axes.iter().filter(|a| a.target == Target::Privacy) {
        for &v in &axis.values[1..] {
            resolve_privacy(algorithm, &written.with(&axis.name, Some(v)), "privacy")
                .map_err(locate)?;
        }
    }
    // The identity reads a swept parameter at the experiment's value for it.
    let identity = |name: &str, value: f64| match swept(name) {
        Some(_) => defaults.get(name).unwrap_or(f64::NAN),
        None => value,
    };
    let identity = match first {
        Privacy::Approx(p) => Privacy::Approx(PrivacyParams {
            eps: identity("eps", p.eps),
            delta: identity("delta", p.delta),
        }),
        Privacy::Zcdp(rho) => Privacy::Zcdp(identity("rho", rho)),
    };
    Ok(ResolvedPrivacy { first, identity })
}

pub(super) fn find_def<'a>(defs: &'a [ParamDef], name: &str) -> Option<&'a ParamDef> {
    defs.iter().find(|d| d.name == name)
}

/// Resolves the fixed values of a family or algorithm written at `path`
/// (`swept`: the parameters the grid sweeps, at their first values).
pub(super) fn resolve_values(
    loc: &SpecLocator,
    defs: &'static [ParamDef],
    given: &BTreeMap<String, ParamValue>,
    path: &[PathSeg],
    swept: &BTreeMap<&str, f64>,
    owner: &str,
    reserved: &[&str],
) -> Result<Values, SpecError> {
    let table = ParamTable {
        owner,
        reserved,
        swept: Some(swept),
    };
    resolve_params(defs, given, table).map_err(|e| loc.unresolved(path, e))
}
