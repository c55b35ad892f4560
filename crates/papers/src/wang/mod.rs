//! Wang, Zhu & Wang, large-margin halfspaces: the planted-margin families,
//! `M*`, `M'`, PrivTune, JLGD and the baselines, the JL margin measurement,
//! the calibration errata, the privacy audits' pairs, and the removal-margin tool
//! (`runner removal-margin`).

pub mod audit;
pub(crate) mod baselines;
pub(crate) mod cost;
pub(crate) mod errata;
pub(crate) mod families;
pub(crate) mod jl_margin;
pub(crate) mod mstar;
pub(crate) mod options;
pub mod removal_margin;
