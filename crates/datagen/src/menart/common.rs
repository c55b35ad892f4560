//! Helpers shared by the Menart et al. families: zero-sum tilts (digest §4.3
//! F-B), random directions and the `O(d)` clipping of a gradient shared by all
//! records.

use crate::geometry::{sample_unit_ball, sample_unit_sphere};
use dpcore::menart::clip_in_place;
use rand::Rng;

/// `n` tilts `z_i = t_i - mean(t)`, `t_i` uniform in `B(0, radius/2)`, stored
/// row-major; their sum is zero (up to rounding) and `||z_i|| <= radius`.
/// Returns the tilts and the largest stored norm.
pub(crate) fn zero_sum_tilts<R: Rng + ?Sized>(
    n: usize,
    d: usize,
    radius: f64,
    rng: &mut R,
) -> (Vec<f64>, f64) {
    let mut z = Vec::with_capacity(n * d);
    for _ in 0..n {
        z.extend(
            sample_unit_ball(d, rng)
                .into_iter()
                .map(|v| 0.5 * radius * v),
        );
    }
    let mean = crate::numerics::column_means(&z, d);
    let mut max_norm: f64 = 0.0;
    for row in z.chunks_mut(d) {
        row.iter_mut().zip(&mean).for_each(|(x, m)| *x -= m);
        max_norm = max_norm.max(crate::numerics::norm2(row));
    }
    (z, max_norm)
}

/// `center + distance * u` with `u` uniform on the unit sphere.
pub(crate) fn point_at_distance<R: Rng + ?Sized>(
    center: &[f64],
    distance: f64,
    rng: &mut R,
) -> Vec<f64> {
    let u = sample_unit_sphere(center.len(), rng);
    center
        .iter()
        .zip(&u)
        .map(|(c, v)| c + distance * v)
        .collect()
}

/// Clips in place a gradient (or difference) that every one of the `n`
/// records shares exactly, so the clipped mean is the clipped shared vector;
/// returns `n` if clipped, else 0.
pub(crate) fn clip_shared(out: &mut [f64], clip: f64, n: usize) -> usize {
    if clip_in_place(out, clip) {
        n
    } else {
        0
    }
}

/// Checks `x` is finite and `> 0`.
pub(crate) fn check_pos(name: &str, x: f64) {
    assert!(
        x.is_finite() && x > 0.0,
        "{name} must be finite and > 0, got {x}"
    );
}

/// Minimizer sensitivity is not used by Menart et al.: reported as infinite.
pub(crate) fn no_sensitivity() -> dpcore::MinimizerSensitivity {
    dpcore::MinimizerSensitivity {
        tight: f64::INFINITY,
        paper: f64::INFINITY,
    }
}

/// The [`dpcore::ProblemConstants`] of a Menart et al. family: its KL
/// constants on the region (`L0`, `L1`, radius `B`), with no strong convexity.
pub(crate) fn problem_constants(k: &dpcore::menart::KlConstants) -> dpcore::ProblemConstants {
    dpcore::ProblemConstants {
        lipschitz: k.lipschitz,
        smoothness: k.smoothness,
        strong_convexity: 0.0,
        radius: k.region_radius,
    }
}

/// Row `i` of the row-major `n x d` tilts, if the data set stores tilts
/// (`None` for virtual data sets).
pub(crate) fn tilt_row(tilts: Option<&[f64]>, i: usize, d: usize) -> Option<&[f64]> {
    tilts.map(|z| &z[i * d..(i + 1) * d])
}

/// `<z_i, w - center>`: the tilt's contribution to record `i`'s loss (0
/// without tilts).
pub(crate) fn tilt_loss(tilts: Option<&[f64]>, i: usize, w: &[f64], center: &[f64]) -> f64 {
    tilt_row(tilts, i, w.len()).map_or(0.0, |z| {
        z.iter()
            .zip(w.iter().zip(center))
            .map(|(t, (a, c))| t * (a - c))
            .sum()
    })
}

/// Adds the tilt `z_i` (record `i`'s gradient contribution) to `out`.
pub(crate) fn add_tilt_gradient(tilts: Option<&[f64]>, i: usize, out: &mut [f64]) {
    if let Some(z) = tilt_row(tilts, i, out.len()) {
        out.iter_mut().zip(z).for_each(|(o, t)| *o += t);
    }
}

/// `Err` unless the sampled design's certified `lambda_min` is at least the
/// public bound `public` (F-C and F-F: the family's universe, see
/// [`super::spectrum::public_min_eigenvalue`]).
pub(crate) fn check_universe(
    n: usize,
    d: usize,
    certified: f64,
    public: f64,
) -> Result<(), String> {
    if public <= 0.0 {
        return Err(format!(
            "no public KL constant at n = {n}, d = {d}: the matrix-Chernoff bound on \
             lambda_min needs n >= d ln(d/1e-6) = {:.0}",
            d as f64 * (d as f64 / super::spectrum::DESIGN_FAILURE_PROBABILITY).ln()
        ));
    }
    if certified < public {
        return Err(format!(
            "the sampled design is outside the family's universe: certified lambda_min = \
             {certified:.6} < public bound {public:.6} (n = {n}, d = {d}; probability <= 1e-6)"
        ));
    }
    Ok(())
}
