//! Shared vocabulary for Menart et al., "Differentially Private Non-Convex
//! Optimization under the KL Condition with Optimal Rates" (digest
//! `shared/papers/digests/menart-et-al-kl-condition.md`).
//!
//! The families of digest §4.3 (crate `datagen::menart`) and the algorithms of
//! digest §2 (crate `solvers::menart`) agree on two things:
//! * the public constants the theorems take as input ([`KlConstants`]: the
//!   `(gamma, kappa)`-KL parameters of digest §1.2, `L0`, `L1`, the weak
//!   convexity modulus, the region radius `B` and the public initial gap
//!   `F0`, all data-independent, digest P7), and
//! * the **clipped** full-batch oracles every algorithm releases through
//!   (digest P1): `(1/n) sum_i clip_C(grad f(w; x_i))` and
//!   `(1/n) sum_i clip_C(grad f(w'; x_i) - grad f(w; x_i))`. Clipping keeps the
//!   replace-one sensitivity at `2C/n` whatever the iterate, so privacy never
//!   rests on "the iterates stay in the region" (digest §1.4). Families whose
//!   clipping is provably inactive (or whose per-record differences are all
//!   equal) override the `O(n d)` defaults with `O(d)` evaluations.

use crate::{FiniteSum, Objective};

/// The `(gamma, kappa)`-KL condition of digest §1.2 (Eq. 1):
/// `F(w) - F* <= gamma^kappa ||grad F(w)||^kappa` (`gamma` carries the exponent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlParameters {
    /// The constant `gamma > 0`.
    pub gamma: f64,
    /// The exponent `kappa >= 1` (PL is `kappa = 2`).
    pub kappa: f64,
}

/// Public, data-independent constants of a Menart et al. instance (digest
/// §1.4–§1.5, P7), on the region `B_B(w0)` of radius [`KlConstants::region_radius`]
/// around the family's start point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlConstants {
    /// KL parameters valid on the region; `None` when the family is not KL
    /// there (F-H, the Theorem 5 family) or only locally KL with no certified
    /// constant (F-G).
    pub kl: Option<KlParameters>,
    /// Per-record Lipschitz constant `L0` on the region (the clipping norm of
    /// full gradients).
    pub lipschitz: f64,
    /// Per-record smoothness `L1` on the region; `inf` when non-smooth.
    pub smoothness: f64,
    /// Weak-convexity modulus of `F` (`0` for convex `F`); Algorithm 2 needs a
    /// `tilde L1` at least this large and strictly positive (digest P15).
    pub weak_convexity: f64,
    /// Radius `B` of the ball around the start point on which the constants hold.
    pub region_radius: f64,
    /// Public bound `F0 >= F(w0) - F*` (digest §1.5).
    pub initial_gap: f64,
}

/// Scales `v` in place to `clip_C(v) = v min(1, C/||v||)`; returns whether it
/// was shortened.
pub fn clip_in_place(v: &mut [f64], clip: f64) -> bool {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > clip {
        let s = clip / norm;
        v.iter_mut().for_each(|x| *x *= s);
        true
    } else {
        false
    }
}

/// `(1/n) sum_i clip_C(grad f(w; x_i))` into `out` by the `O(n d)` loop over
/// the records of `records`; returns the number of clipped records.
pub fn clipped_mean_by_records(
    records: &dyn FiniteSum,
    n: usize,
    w: &[f64],
    clip: f64,
    out: &mut [f64],
) -> usize {
    let mut g = vec![0.0; out.len()];
    out.iter_mut().for_each(|x| *x = 0.0);
    let mut clipped = 0;
    for i in 0..n {
        records.record_gradient(i, w, &mut g);
        clipped += usize::from(clip_in_place(&mut g, clip));
        out.iter_mut().zip(&g).for_each(|(o, v)| *o += v);
    }
    out.iter_mut().for_each(|x| *x /= n as f64);
    clipped
}

/// `(1/n) sum_i clip_C(grad f(w_new; x_i) - grad f(w_old; x_i))` into `out` by
/// the `O(n d)` loop over the records; returns the number of clipped records.
pub fn clipped_difference_by_records(
    records: &dyn FiniteSum,
    n: usize,
    w_new: &[f64],
    w_old: &[f64],
    clip: f64,
    out: &mut [f64],
) -> usize {
    let (mut a, mut b) = (vec![0.0; out.len()], vec![0.0; out.len()]);
    out.iter_mut().for_each(|x| *x = 0.0);
    let mut clipped = 0;
    for i in 0..n {
        records.record_gradient(i, w_new, &mut a);
        records.record_gradient(i, w_old, &mut b);
        a.iter_mut().zip(&b).for_each(|(x, y)| *x -= y);
        clipped += usize::from(clip_in_place(&mut a, clip));
        out.iter_mut().zip(&a).for_each(|(o, v)| *o += v);
    }
    out.iter_mut().for_each(|x| *x /= n as f64);
    clipped
}

/// A problem of Menart et al.: an [`Objective`] with public KL constants, a
/// public start point and clipped full-batch oracles.
pub trait KlObjective: Objective {
    /// The public constants (digest P7).
    fn kl_constants(&self) -> KlConstants;
    /// The public start point `w0` (digest §6.0: `||w0 - w*|| = R0`).
    fn start_point(&self) -> &[f64];
    /// Centre of the ball of radius [`KlConstants::region_radius`] on which the
    /// constants hold (the start point or the minimizer; the family says which).
    fn region_center(&self) -> &[f64];
    /// A public bound `R_x` on every record's norm, when the family declares
    /// one (the mean-estimation family F-A: `start_distance + spread`, the
    /// clip of its Gaussian-mechanism oracle baseline); `None` otherwise.
    fn record_radius(&self) -> Option<f64> {
        None
    }
    /// `(1/n) sum_i clip_C(grad f(w; x_i))` into `out`; returns how many records
    /// were clipped (the clip-activation diagnostic of digest §6.0).
    /// Default: [`clipped_mean_by_records`].
    ///
    /// # Panics
    /// If the objective has no finite-sum oracle and does not override this.
    fn clipped_mean_gradient(&self, w: &[f64], clip: f64, out: &mut [f64]) -> usize {
        let fs = self
            .finite_sum()
            .expect("KlObjective default oracle needs Objective::finite_sum");
        clipped_mean_by_records(fs, self.num_records(), w, clip, out)
    }
    /// `(1/n) sum_i clip_C(grad f(w_new; x_i) - grad f(w_old; x_i))` into `out`
    /// (the Spider difference of Algorithm 1); returns how many records were
    /// clipped. Default: [`clipped_difference_by_records`].
    ///
    /// # Panics
    /// As [`KlObjective::clipped_mean_gradient`].
    fn clipped_mean_gradient_difference(
        &self,
        w_new: &[f64],
        w_old: &[f64],
        clip: f64,
        out: &mut [f64],
    ) -> usize {
        let fs = self
            .finite_sum()
            .expect("KlObjective default oracle needs Objective::finite_sum");
        clipped_difference_by_records(fs, self.num_records(), w_new, w_old, clip, out)
    }
}
