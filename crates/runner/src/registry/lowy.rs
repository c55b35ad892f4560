//! Lowy–Razaviyayn families E1b–E7 and algorithms (being integrated).

use super::{AlgorithmDef, FamilyDef};

/// Families of this module.
pub(super) const FAMILIES: &[FamilyDef] = &[];
/// Algorithms of this module.
pub(super) const ALGORITHMS: &[AlgorithmDef] = &[];
