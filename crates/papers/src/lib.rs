//! Every paper's entries for the DP rate harness: problem families and
//! algorithms (the `contract` types), the calibration errata, and each
//! paper's side tools. One module per paper; this file holds the one explicit
//! list of entries the runner sees, in `runner list` order.
//!
//! Adding an algorithm (docs/extending.md opens with the checklist): a solver
//! module in `solvers`; beside its paper here an entry file (typed options,
//! the families it accepts), its cost formula and, when it is private, its
//! audit pair; a line in [`ALGORITHM_TABLES`] for a new entry file; for a
//! private one a default row in `experiments/audit.toml`; then a study. The
//! runner is not touched.

use contract::{AlgorithmDef, FamilyDef};

pub mod bassily;
pub mod common;
pub mod cost_constants;
pub mod errata;
pub mod gonzalez;
pub mod lowy_razaviyayn;
pub mod menart;
pub mod one_run;
pub mod quadratic;
pub mod wang;

/// Bad input to a side tool (`runner peer-race`, `runner removal-margin`):
/// flags or data. The runner exits with code 2 (nothing run) on it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Every family table, in `runner list` order.
pub const FAMILY_TABLES: &[&[FamilyDef]] = &[
    quadratic::FAMILIES,
    lowy_razaviyayn::families::FAMILIES,
    bassily::families::FAMILIES,
    menart::families::FAMILIES,
    wang::families::FAMILIES,
    gonzalez::families::FAMILIES,
];

/// Every algorithm table, in `runner list` order.
pub const ALGORITHM_TABLES: &[&[AlgorithmDef]] = &[
    quadratic::ALGORITHMS,
    lowy_razaviyayn::algorithms::ALGORITHMS,
    lowy_razaviyayn::baselines::ALGORITHMS,
    bassily::sgd::ALGORITHMS,
    bassily::objp::ALGORITHMS,
    bassily::svrg_check::ALGORITHMS,
    menart::known::ALGORITHMS,
    menart::adaptive::ALGORITHMS,
    menart::gaussian_mean::ALGORITHMS,
    menart::theorem9::ALGORITHMS,
    menart::steps::ALGORITHMS,
    wang::mstar::ALGORITHMS,
    wang::baselines::ALGORITHMS,
    wang::jl_margin::ALGORITHMS,
    gonzalez::saddle::ALGORITHMS,
    gonzalez::sco::ALGORITHMS,
];

/// Every registered problem family.
pub fn families() -> impl Iterator<Item = &'static FamilyDef> {
    FAMILY_TABLES.iter().flat_map(|t| t.iter())
}

/// Every registered algorithm.
pub fn algorithms() -> impl Iterator<Item = &'static AlgorithmDef> {
    ALGORITHM_TABLES.iter().flat_map(|t| t.iter())
}

/// Looks a family up by name.
pub fn family(name: &str) -> Option<&'static FamilyDef> {
    families().find(|f| f.name == name)
}

/// Looks an algorithm up by name.
pub fn algorithm(name: &str) -> Option<&'static AlgorithmDef> {
    algorithms().find(|a| a.name == name)
}

/// A family's own audit pair, for algorithms that declare no pair of their
/// own (Python entries): the pair, the statistic and why it is worst case.
#[derive(Debug, Clone, Copy)]
pub struct FamilyAudit {
    /// Builds the pair at a setting.
    pub pair: contract::audit::PairFn,
    /// The scalar of the release the audit thresholds.
    pub statistic: fn(&contract::Released) -> f64,
    /// Why the pair is worst case, for the report.
    pub method: &'static str,
}

/// The family-level audit pair of `family`, if it has one.
pub fn family_audit(family: &str) -> Option<&'static FamilyAudit> {
    match family {
        "diagonal_quadratic" => Some(&lowy_razaviyayn::audit::DIAGONAL_QUADRATIC_FAMILY),
        _ => None,
    }
}
