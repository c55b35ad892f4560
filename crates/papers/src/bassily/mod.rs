//! Bassily, Feldman, Talwar & Thakurta, private SCO: the planted families,
//! noisy SGD (Algorithm 1, `A_ProxGD`, the Moreau variant) and objective
//! perturbation (ObjP, ObjP-App), Theorem 5.8's SVRG measured epoch by epoch
//! (`svrg_check`), and the calibration errata.

pub(crate) mod audit;
pub(crate) mod cost;
pub(crate) mod errata;
pub(crate) mod families;
pub(crate) mod objp;
pub mod one_run;
pub(crate) mod options;
pub(crate) mod sgd;
pub(crate) mod svrg_check;
