//! Noise distributions and privacy calibrations for differentially private
//! optimization.
//!
//! This crate knows nothing about optimization: it turns a sensitivity bound
//! `Delta` and privacy parameters `(eps, delta)` into a noise scale
//! ([`calibration`]), draws the noise ([`noise`]), and evaluates exact Gaussian
//! tail quantities needed to audit a calibration ([`normal`]).
//!
//! Sources: Lowy & Razaviyayn, "Output Perturbation for Differentially Private
//! Convex Optimization" (digest in `shared/papers/digests`), Zhao et al. (2019),
//! Balle & Wang (2018), Dwork & Roth (2014).

pub mod calibration;
pub mod noise;
pub mod normal;
