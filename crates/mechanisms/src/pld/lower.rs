//! Certified **lower** bounds on `eps(delta)` of `T` independent releases of
//! one ordered pair `(P, Q)` of one-dimensional Gaussian mixtures: evidence
//! that a mechanism is *not* `(eps, delta)`-DP, where the rest of this module
//! gives upper bounds (certificates that it is).
//!
//! # Why the result is a lower bound
//!
//! Three steps, each of which can only lower `delta(eps)` at every `eps`:
//!
//! 1. **Coarsen the output.** The real line is cut into cells (width
//!    [`LowerBoundGrid::cell`] over the components' means `+- 14`, the two
//!    outer cells reaching to `+-inf`) and each release is replaced by the
//!    cell it falls in, with its exact `P`- and `Q`-masses. That is a
//!    post-processing of the release, and so is its `T`-fold product of the
//!    composed one, so the coarse pair's hockey-stick divergence is at most
//!    the true one (data processing).
//! 2. **Round losses down.** Each cell's loss `ln(P_k/Q_k)` is rounded down
//!    to the grid `h Z` ([`LowerBoundGrid::grid`]) and capped at
//!    [`LowerBoundGrid::max_loss`], keeping its `P`-mass. `delta(eps) =
//!    E_P[(1 - e^{eps - L_1 - ... - L_T})_+]` is non-decreasing in every
//!    `L_i`, so lowering losses lowers it.
//! 3. **Drop mass that cannot count.** A cell whose rounded loss is at most
//!    `-(T - 1)` times the largest rounded loss can never bring the sum above
//!    `eps >= 0`, so it is dropped (exactly: its term is 0).
//!
//! The `T`-fold composition is the `T`-fold convolution (by FFT, no tail
//! truncation), and `eps(delta)` is [`LossPmf::epsilon`] of the result, the
//! smallest `eps` at which the lowered profile meets `delta`: at most the
//! true one.
//!
//! # Numerical error
//!
//! The cell masses are integrated with 5-point Gauss–Legendre quadrature per
//! cell (no difference of CDFs, so no cancellation; at a cell width of
//! `1e-3` noise units the rule is exact to far below `f64` resolution for a
//! unit-variance density); the outer cells' masses are normal tails
//! (relative accuracy about `1e-11`). The FFT adds an absolute error of
//! about `1e-16` times the largest mass per bin (see `fft`), at most about
//! `1e-10` to `delta` over `1e6` bins. These are far below what rounding to
//! the grid removes (`T h` in loss, `1.2e-3` at `T = 12`, `h = 1e-4`); a
//! claim resting on a lower bound should still clear its threshold by more
//! than that.
//!
//! Used for Bassily et al.'s printed with-replacement sampling (claim
//! BFTT-P5), where the release at each step is a Binomial mixture of shifted
//! Gaussians; `scripts/with_replacement_pld.py` is an independent numpy
//! computation of the same numbers.

use super::fft::convolve;
use super::gauss_legendre::{GL_NODES, GL_WEIGHTS};
use super::pmf::LossPmf;
use super::{check_grid, PldError, Result};
use crate::normal::normal_cdf;

/// The inner cells span the components' means `+- REACH` noise units; beyond,
/// one outer cell a side (a unit Gaussian's mass beyond 14 is 7.8e-45).
const REACH: f64 = 14.0;

/// A finite mixture `sum_k w_k N(mu_k, 1)` of unit-variance Gaussians: one
/// release in units of its noise's standard deviation.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitGaussianMixture {
    components: Vec<(f64, f64)>,
}

impl UnitGaussianMixture {
    /// The mixture with `(weight, mean)` components. Weights must be finite
    /// and non-negative with a sum within `1e-9` of 1; means finite.
    pub fn new(components: Vec<(f64, f64)>) -> Result<Self> {
        let total: f64 = components.iter().map(|c| c.0).sum();
        let valid = !components.is_empty()
            && components
                .iter()
                .all(|&(w, mu)| w.is_finite() && w >= 0.0 && mu.is_finite())
            && (total - 1.0).abs() <= 1e-9;
        if valid {
            Ok(Self { components })
        } else {
            Err(PldError::InvalidMixture)
        }
    }

    /// The point mass of the noise at `mean`: `N(mean, 1)`.
    pub fn gaussian(mean: f64) -> Self {
        Self {
            components: vec![(1.0, mean)],
        }
    }

    fn density(&self, y: f64) -> f64 {
        let norm = (2.0 * std::f64::consts::PI).sqrt();
        self.components
            .iter()
            .map(|&(w, mu)| w * (-0.5 * (y - mu) * (y - mu)).exp())
            .sum::<f64>()
            / norm
    }

    /// The mass of `[a, b]` by 5-point Gauss–Legendre quadrature.
    fn cell_mass(&self, a: f64, b: f64) -> f64 {
        let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
        GL_NODES
            .iter()
            .zip(GL_WEIGHTS)
            .map(|(x, w)| half * w * self.density(mid + half * x))
            .sum()
    }

    /// The mass below `a`.
    fn below(&self, a: f64) -> f64 {
        self.components
            .iter()
            .map(|&(w, mu)| w * normal_cdf(a - mu))
            .sum()
    }

    /// The mass above `b`.
    fn above(&self, b: f64) -> f64 {
        self.components
            .iter()
            .map(|&(w, mu)| w * normal_cdf(mu - b))
            .sum()
    }

    fn mean_range(&self) -> (f64, f64) {
        self.components
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c.1), hi.max(c.1))
            })
    }
}

/// The resolution of a lower bound (see [`composed_epsilon_lower_bound`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LowerBoundGrid {
    /// Width of an output cell, in noise units.
    pub cell: f64,
    /// Grid width `h` of the privacy loss, in nats.
    pub grid: f64,
    /// Losses above it are lowered to it (it bounds the number of grid
    /// points; any value keeps the bound valid, a small one loosens it).
    pub max_loss: f64,
}

impl Default for LowerBoundGrid {
    /// Cells of `1e-3` noise units, `h = 1e-4` and losses capped at 8 nats.
    fn default() -> Self {
        Self {
            cell: 1e-3,
            grid: super::DEFAULT_GRID,
            max_loss: 8.0,
        }
    }
}

/// A lower bound on the smallest `eps >= 0` at which `steps` independent
/// releases of `P` against `Q` meet `delta` (the ordering `(P, Q)` only: a
/// mechanism's `eps` is at least this for each ordering of each pair).
///
/// Three steps, each of which can only lower `delta(eps)`: the output is
/// coarsened into cells with exact `P`- and `Q`-masses (a post-processing,
/// so data processing applies), each cell's loss is rounded down to the grid
/// and capped at [`LowerBoundGrid::max_loss`] (`delta(eps)` is
/// non-decreasing in every loss), and cells whose loss cannot bring the sum
/// of `steps` losses above 0 are dropped (their term is exactly 0). The
/// composition is an FFT convolution without tail truncation. Numerical
/// error (quadrature, normal tails, FFT) is far below the grid's rounding.
pub fn composed_epsilon_lower_bound(
    p: &UnitGaussianMixture,
    q: &UnitGaussianMixture,
    steps: u64,
    delta: f64,
    resolution: LowerBoundGrid,
) -> Result<f64> {
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PldError::InvalidDelta(delta));
    }
    check_grid(resolution.grid)?;
    let LowerBoundGrid {
        cell,
        grid: h,
        max_loss,
    } = resolution;
    if !(cell.is_finite() && cell > 0.0 && max_loss.is_finite() && steps >= 1) {
        return Err(PldError::InvalidMixture);
    }
    // Step 1: the cells and their exact masses under P and Q.
    let (p_lo, p_hi) = p.mean_range();
    let (q_lo, q_hi) = q.mean_range();
    let (lo, hi) = (p_lo.min(q_lo) - REACH, p_hi.max(q_hi) + REACH);
    let inner = ((hi - lo) / cell).ceil() as usize;
    let mut cells = Vec::with_capacity(inner + 2);
    cells.push((p.below(lo), q.below(lo)));
    for k in 0..inner {
        let a = lo + k as f64 * cell;
        let b = (a + cell).min(hi);
        cells.push((p.cell_mass(a, b), q.cell_mass(a, b)));
    }
    cells.push((p.above(hi), q.above(hi)));
    // Step 2: each cell's P-mass at its loss, rounded down and capped.
    let top = (max_loss / h).floor() as i64;
    let rounded: Vec<(i64, f64)> = cells
        .into_iter()
        .filter(|&(pm, _)| pm > 0.0)
        .map(|(pm, qm)| {
            let j = if qm > 0.0 {
                (((pm.ln() - qm.ln()) / h).floor() as i64).min(top)
            } else {
                top
            };
            (j, pm)
        })
        .collect();
    // Step 3: drop what cannot reach eps >= 0 over the other steps.
    let largest = rounded
        .iter()
        .map(|c| c.0)
        .max()
        .ok_or(PldError::InvalidMixture)?;
    let floor = -((steps - 1) as i64) * largest.max(0);
    let kept: Vec<(i64, f64)> = rounded.into_iter().filter(|c| c.0 > floor).collect();
    let Some(first) = kept.iter().map(|c| c.0).min() else {
        return Ok(0.0);
    };
    let bins = (largest - first + 1) as usize;
    if bins > super::MAX_BINS {
        return Err(PldError::GridTooFine { bins });
    }
    let mut mass = vec![0.0; bins];
    for (j, m) in kept {
        mass[(j - first) as usize] += m;
    }
    let mut composed = mass.clone();
    for _ in 1..steps {
        composed = convolve(&composed, &mass);
    }
    Ok(LossPmf::from_parts(h, first * steps as i64, composed, 0.0).epsilon(delta))
}
