//! Synthetic problem families with exactly known optima for the DP rate
//! harness.
//!
//! Every family implements [`dpcore::Objective`] with analytic constants
//! (never estimated from the sampled data, Lowy–Razaviyayn digest P4), an
//! exact or certified minimizer and a cancellation-free excess risk (digest P15).

pub mod geometry;
pub mod linalg;
pub mod quadratic;

pub use quadratic::{DiagonalQuadratic, DiagonalQuadraticParams};
