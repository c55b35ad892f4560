//! The theorems' bounds of Lowy–Razaviyayn as functions (being written).

pub mod erm;
pub mod sco;
pub mod term;
