//! Lowy & Razaviyayn, output perturbation: the tilted-ERM and logistic
//! families, the conceptual, projected, black-box, regularized and adversarial
//! mechanisms (Algorithms 1–7) with their baselines, the calibration errata,
//! and the race against peer libraries (`runner peer-race`).

pub(crate) mod algorithms;
pub(crate) mod audit;
pub(crate) mod baselines;
pub(crate) mod bounds;
pub(crate) mod cost;
pub(crate) mod errata;
pub(crate) mod families;
pub mod one_run;
pub(crate) mod options;
pub mod peer_race;
