//! Noise distributions, calibrations and privacy accountants for differentially
//! private optimization.
//!
//! This crate knows nothing about optimization: it turns a sensitivity bound
//! `Delta` and privacy parameters into a noise scale ([`calibration`]), draws
//! the noise ([`noise`]), evaluates exact Gaussian tail quantities needed to
//! audit a calibration ([`normal`]), accounts for compositions ([`zcdp`],
//! [`rdp`], [`gdp`], [`pld`], [`composition`]), and selects privately
//! ([`selection`], [`stopping`]).
//!
//! Sources: Lowy & Razaviyayn, "Output Perturbation for Differentially Private
//! Convex Optimization" (digest in `shared/papers/digests`), Zhao et al. (2019),
//! Balle & Wang (2018), Dwork & Roth (2014), Bun & Steinke (2016), Mironov
//! (2017), Mironov, Talwar & Zhang (2019), Canonne, Kamath & Steinke (2020),
//! Dong, Roth & Su (2019), Liu & Talwar (2019), Papernot & Steinke (2022),
//! Meiser & Mohammadi (2018), Koskela, Jälkö & Honkela (2020), Doroshenko et
//! al. (2022).

pub mod calibration;
pub mod composition;
pub mod gdp;
pub mod noise;
pub mod normal;
mod numeric;
pub mod pld;
pub mod rdp;
pub mod relation;
pub mod selection;
pub mod stopping;
pub mod zcdp;

pub use relation::Neighbouring;
