//! `A_NSGD` (Algorithm 1, Theorem 3.2), NSGD on the Moreau envelope
//! (Theorem 4.4), `A_ProxGD` (Section 4, Fact 4.6) and one-pass SGD, from
//! Bassily, Feldman, Talwar & Thakurta (2019); digest §2.1, §2.2, §3, §7.
//!
//! # Algorithm (digest §2.1 with P5, P7, P8, P9)
//! `T = max(1, floor(min(n/8, eps^2 n^2/(32 d Lambda))))`, `eta = M/(L sqrt T)`,
//! `m = min(n, ceil(max(n sqrt(eps/(4T)), 1)))` ([`NsgdSchedule`]); the trivial
//! regime `eps^2 n^2/(32 d Lambda) < 1` outputs `w_0 = 0`. Each step draws a
//! Poisson batch at `q = m/n`, clips each record gradient to `C`, divides the
//! sum by the fixed `m`, adds `N(0, sigma^2 I)`, steps and projects onto
//! `B(0, M)`; the output is the average of `w_1..w_T` ([`run`]).
//! [`BatchSampling::WithReplacement`] draws Algorithm 1's printed batches
//! instead (`m` indices uniformly with replacement), which no accountant here
//! covers (P5): it exists to audit that printed sampling.
//!
//! Gradients ([`NsgdVariant`]): the loss's (`C = L`); the unconstrained Moreau
//! envelope's at `beta_env = (L/M) min(sqrt(n)/4, eps n/(8 sqrt(d Lambda)))`
//! from the family's closed-form prox (`C = L`: the envelope is `L`-Lipschitz,
//! digest §2.2 derived variant, bound `14 M L R`, printed `24 M L R`); or
//! `A_ProxGD`'s inexact envelope gradient `beta (w - prox_hat(w))` with each
//! prox found to accuracy `xi` by [`prox`] (`C = L (1 + 1/n)`, P10).
//!
//! # Noise and its justification ([`NoiseCalibration`])
//! Clipping makes the batch sum have add/remove sensitivity `C` (replace-one
//! `2C`) whatever the gradients are, and the mean's noise `sigma` is noise
//! `m sigma` on the sum, i.e. add/remove multiplier `z = m sigma / C`. Each
//! step is a Poisson-subsampled Gaussian mechanism applied adaptively, so the
//! RDP accountant (Mironov–Talwar–Zhang 2019, `mechanisms::rdp`) bounds the
//! `T`-fold composition under add/remove; replace-one follows by group
//! privacy ([`crate::dp_sgd`] module doc). Projection and averaging are
//! post-processing.
//! - `Accountant` (default): the smallest `z` whose realised `eps` under the
//!   declared relation is `<= eps` (an error otherwise).
//! - `Paper`: `sigma^2 = 8 T C^2 Lambda/(n^2 eps^2)` (Algorithm 1 line 1,
//!   Theorem 3.1, whose proof is only a citation); the realised `eps` is
//!   computed by the same accountant and flagged when above the target
//!   (digest P4, classical RDP conversion: about `eps/2` add/remove and
//!   `1.03–1.16 eps` replace-one; with this accountant's tight conversion
//!   about `0.4 eps` and `0.77–0.96 eps` for `eps <= 1`, but above the
//!   target e.g. at `eps = 4`).
//!
//! Floating-point Gaussian sampling is not exactly DP (digest P20).

pub mod bounds;
pub mod one_pass;
pub mod plan;
pub mod prox;
pub mod run;
pub mod schedule;

pub use one_pass::{one_pass_sgd, one_pass_sgd_bound};
pub use plan::{NoiseCalibration, Nsgd, NsgdNoise, NsgdPlan, NsgdVariant, MAX_PROX_WORK};
pub use run::{BatchSampling, NsgdRelease};
pub use schedule::{envelope_smoothness, prox_accuracy, prox_inner_iterations, NsgdSchedule};
