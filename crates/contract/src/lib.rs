//! The plug-in contract between the paper entries (`papers`) and the runner.
//!
//! A problem family ([`FamilyDef`]) and an algorithm ([`AlgorithmDef`]) declare
//! their parameters (name, kind, range, default, role, doc) so that specs are
//! validated before anything runs and `runner list` can document them; a family
//! builds an [`Instance`] of its [`ProblemKind`] from the data stream, an
//! algorithm runs on an instance of its kind with the noise stream and returns
//! a [`CellOutput`]. The runner sees only this crate and the list of entries in
//! `papers`; adding an algorithm never touches it (see docs/extending.md).

pub mod audit;
pub mod cost;
mod entry;
pub mod kind;
pub mod metric;
mod output;
mod param;
mod privacy;
pub mod release;
mod resolve;
pub mod seeds;
mod typed;

pub use audit::{AuditDef, AuditPair, AuditSetting, Estimator, Relation};
pub use cost::{CostPoint, FamilyWork, SetupWork};
pub use dpcore::RunFailure;
pub use entry::{AlgorithmDef, FamilyDef, PointCheckFn, RunContext};
pub use kind::{
    Build, BuildFn, Instance, ObjectiveBuildFn, ObjectiveRunFn, ProblemKind, Run, RunFn,
};
pub use metric::Metric;
pub use output::{CellOutput, Curves, Diagnostics};
pub use param::{choice, num, ParamDef, ParamKind, ParamRole, SizeStep, Value, Values, POSITIVE};
pub use privacy::{Privacy, PrivacyUnit};
pub use release::{Release, Released};
pub use resolve::{
    check_number, declared_default, default_written, late_at_default, resolve_param,
    resolve_params, resolve_privacy, ParamTable, ParamValue, PrivacySpec, ResolveError,
};
pub use typed::{read, same_name, Choice, FromValue, Options};

/// Names of the privacy parameters that a grid may sweep.
pub const PRIVACY_PARAMS: &[&str] = &["eps", "delta", "rho"];
