//! Synthetic problem families with exactly known optima for the DP rate
//! harness.
//!
//! Every family implements [`dpcore::Objective`] with analytic constants
//! (never estimated from the sampled data, Lowy–Razaviyayn digest P4), an
//! exact or certified minimizer and a cancellation-free excess risk (digest P15).

pub mod adversarial;
pub mod bassily;
pub mod certified;
pub mod coordinate_sco;
pub mod geometric_median;
pub mod geometry;
pub mod gonzalez;
pub mod labelled;
pub mod lbfgs;
pub mod linalg;
pub mod logistic;
pub mod menart;
pub mod newton;
pub mod numerics;
pub mod pseudo_huber;
pub mod quadratic;
pub mod quadrature;
mod recycle;
pub mod sco_quadratic;
pub mod sharp;
pub mod sphere_atoms;
pub mod term;
pub mod wang;

pub use quadratic::{DiagonalQuadratic, DiagonalQuadraticParams};
