//! The DP rate harness runner: everything between a TOML experiment and a verdict.
//!
//! Stages: [`spec`] (parse) → [`validate`] (resolve, located errors) → [`plan`]
//! (cells and seeds) → [`execute`] (rayon, crash-safe [`store`]) → [`analyze`]
//! ([`stats`]) → [`figures`] / [`plot`] (plotters) → [`report`] ([`csv`]) → [`check`].
//! [`app`] wires them to the command line.

pub mod analyze;
pub mod app;
pub mod audit;
pub mod check;
pub mod claims;
pub mod cli;
pub mod cost;
pub mod csv;
pub mod diagnostics;
pub mod execute;
pub mod figures;
pub mod format;
pub mod headline;
pub mod identity;
pub mod paper_tables;
pub mod plan;
pub mod plot;
pub mod provenance;
pub mod python;
pub mod registry;
pub mod report;
pub mod results_manifest;
pub mod run_loop;
pub mod sbatch;
pub mod shard;
pub mod spec;
pub mod stats;
pub mod store;
pub mod summary;
pub mod validate;
pub mod verdict;

pub use contract::seeds;
pub use papers::errata;
pub use papers::lowy_razaviyayn::peer_race;
pub use papers::wang::removal_margin;
