//! Lowy & Razaviyayn, "Output perturbation for differentially private convex
//! optimization": the black-box algorithms, their prescribed hyperparameters
//! and every theorem's bound (digest §3–§5).

pub mod adversarial;
pub mod black_box;
pub mod bounds;
pub mod prescriptions;
pub mod regularized;
mod release;
