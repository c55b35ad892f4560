//! Baselines the Lowy–Razaviyayn tables compare against (being written).

pub mod noisy_sgd;
pub mod zzmw17;
