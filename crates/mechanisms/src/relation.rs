//! Neighbouring relations: which pairs of data sets a privacy guarantee covers.

use std::fmt;

/// The neighbouring relation a privacy guarantee is stated for.
///
/// A replace-one neighbour is an add/remove neighbour of an add/remove
/// neighbour, so guarantees do not transfer one-to-one: e.g. a sum of records
/// clipped to norm `C` has L2 sensitivity `C` under add/remove and `2C` under
/// replace-one. Every accountant in this crate says which relation it assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Neighbouring {
    /// Same size `n`, one record replaced (Lowy–Razaviyayn, Wang–Zhu–Wang).
    ReplaceOne,
    /// One record added or removed (the convention of Poisson-subsampled RDP
    /// accounting, Mironov–Talwar–Zhang 2019).
    AddRemove,
}

impl fmt::Display for Neighbouring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Neighbouring::ReplaceOne => write!(f, "replace-one"),
            Neighbouring::AddRemove => write!(f, "add/remove"),
        }
    }
}
