//! Bassily, Feldman, Talwar, Thakurta (2019), "Private stochastic convex
//! optimization with optimal rates"
//! (`../shared/papers/digests/bassily-et-al-private-sco.md`).
//!
//! - [`sgd`]: `A_NSGD` (Algorithm 1, Theorem 3.2), NSGD on the Moreau
//!   envelope (Theorem 4.4), `A_ProxGD`, and one-pass SGD as the non-private
//!   reference.
//! - [`objp`]: objective perturbation, exact (`A_ObjP`, Algorithm 2,
//!   Theorem 5.3) and approximate with SVRG (`A_ObjP-App`, Algorithm 3,
//!   Theorem 5.7).
//! - [`rate`]: the target rate `R(n, d, eps, delta)` and the conventions
//!   shared by both (`Lambda = ln(1/delta)`, natural log, digest P14).
//!
//! Domain: every algorithm works on `W = B(0, M)` with `M` the family's
//! `radius`, starts from `w_0 = 0` and projects onto `W` (digest P2).

pub mod objp;
pub mod rate;
pub mod sgd;
