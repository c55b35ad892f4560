//! Empirical privacy auditing: a lower confidence bound on the `eps` a
//! mechanism really has, from many releases on a neighbouring pair `(D, D')`.
//!
//! An accountant checks the arithmetic of a calibration; an audit checks the
//! code: a clip applied after the sum, a constant read from the data or a
//! sensitivity off by 2 pass any accountant but move the release's
//! distribution. The method (Jagielski et al. 2020; Nasr et al. 2021) reduces
//! each release to a scalar statistic `s`, picks an event `S = {s >= t}` (or
//! `{s <= t}`) and uses the definition of `(eps, delta)`-DP,
//! `P[M(D) in S] <= e^eps P[M(D') in S] + delta`, with one-sided
//! Clopper–Pearson bounds on both probabilities:
//!
//! `eps_lb = ln((p_lo(D) - delta) / p_hi(D'))`.
//!
//! [`threshold::audit`] chooses the event on one half of the runs and
//! evaluates it on the other half, so the only multiplicity is the two
//! Clopper–Pearson bounds: for a mechanism that is `(eps, delta)`-DP,
//! `eps_lb > eps` happens with probability at most `alpha` (the audit's
//! false-alarm rate), whatever the statistic and the selection rule.
//! [`power`] says what an audit with a given number of runs can detect at
//! all: the largest `eps_lb` it can certify, and the smallest Gaussian
//! mechanism's `eps` it would flag against a claim. [`gdp::gdp_audit`] is the
//! tighter Gaussian-DP fit (Nasr et al. 2023) for mechanisms whose trade-off
//! is Gaussian: it bounds `mu` and converts it to `eps` at `delta`.
//! [`one_run`] bounds `eps` from a single run with many canaries (Steinke,
//! Nasr & Jagielski 2023): how many of their inclusions are guessed right;
//! [`one_run_fdp`] tests the same guesses against a whole trade-off curve
//! (Mahloujifar, Melis & Chaudhuri 2025), such as an accountant's profile.

pub mod assess;
pub mod bootstrap;
pub mod clopper_pearson;
pub mod gdp;
pub mod one_run;
pub mod one_run_fdp;
pub mod power;
pub mod threshold;

pub use assess::{assess, estimate, Assessment, Bound, Method, Verdict};
pub use bootstrap::{reflag, Reflag};
pub use clopper_pearson::ClopperPearson;
pub use gdp::{gdp_audit, GdpAudit};
pub use threshold::{audit, near_tie_tolerance, Audit, Event, NEAR_TIE_RELATIVE};
