//! Baselines the Lowy–Razaviyayn tables compare against (digest §6, Tables
//! 3–6): \[ZZMW17\] GD + output perturbation ([`zzmw17`], any privacy) and
//! \[BST14\]-style noisy projected SGD ([`noisy_sgd`], `(eps, delta)`-DP,
//! calibrated with the RDP accountant), both for strongly convex smooth ERM;
//! and noisy full-batch GD on the E1 quadratic ([`noisy_gd`], `rho`-zCDP),
//! the gradient-perturbation reference beside output perturbation.

pub mod noisy_gd;
pub mod noisy_sgd;
pub mod zzmw17;
