//! Baselines the Lowy–Razaviyayn tables compare against (digest §6, Tables
//! 3–6): \[ZZMW17\] GD + output perturbation ([`zzmw17`], any privacy) and
//! \[BST14\]-style noisy projected SGD ([`noisy_sgd`], `(eps, delta)`-DP,
//! calibrated with the RDP accountant), both for strongly convex smooth ERM.

pub mod noisy_sgd;
pub mod zzmw17;
