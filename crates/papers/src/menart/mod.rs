//! Menart et al., private KL/PL non-convex optimization: the KL families, the
//! known-parameter algorithms (KL Spider, the proximal point method), the
//! adaptive noisy GD with its selection, Theorem 9's Algorithm 4 measured on
//! its own, Theorem 5's step count measured, and the calibration errata.

pub(crate) mod adaptive;
pub(crate) mod audit;
pub(crate) mod common;
pub(crate) mod cost;
pub(crate) mod errata;
pub(crate) mod families;
pub(crate) mod gaussian_mean;
pub(crate) mod known;
pub(crate) mod steps;
pub(crate) mod theorem9;
