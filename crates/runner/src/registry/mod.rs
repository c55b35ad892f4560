//! The catalogue the runner knows: the plug-in contract (`contract`) and the
//! one list of entries (`papers`), re-exported under one path so the runner's
//! stages name them without caring where each lives.

pub use contract::*;
pub use papers::{algorithm, algorithms, families, family, family_audit, FamilyAudit};
