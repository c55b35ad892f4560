//! Numerical verification of a KL exponent and constant (digest §4.4, E6).
//!
//! Points `w = w_ref + r v` on a geometric grid of radii (12 per decade, from
//! `R` down over `decades` decades) and, per radius shell, the same
//! `directions` random unit vectors (common to all shells, so that on a
//! homogeneous family the envelope slope is exact), then adversarial
//! refinement for the constant: `refinements` rounds of random perturbation
//! hill climbing of `e^(1/kappa0) / G` on the sphere, warm-started from the
//! previous shell's worst direction (a derivative-free stand-in for the
//! digest's projected gradient ascent). Here
//! `e` is the analytic excess ([`Objective::excess_risk`], never a
//! difference) and `G = ||grad F||`.
//!
//! * exponent: the worst common-direction point of each shell (max of
//!   `log e - kappa0 log G`; the refined points are excluded because their
//!   shell-to-shell improvement would bias the slopes)
//!   traces the upper envelope of `log e` against `log G`; the local slopes
//!   between consecutive shells estimate `kappa`, and `kappa_hat` is their
//!   minimum over the shells with `e <= e_small`;
//! * constant: `gamma_hat = max e^(1/kappa0) / G` over every point, a lower
//!   bound on the true `gamma` on the sampled region.

use crate::geometry::sample_unit_sphere;
use crate::numerics::norm2;
use dpcore::Objective;
use rand::{Rng, RngExt};

/// Settings of [`estimate_kl`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlCheckSettings {
    /// Reference exponent `kappa0` of the ratio `e^(1/kappa0)/G`.
    pub kappa0: f64,
    /// Largest radius `R`.
    pub radius: f64,
    /// Number of decades below `R` (digest: 6).
    pub decades: f64,
    /// Random directions per shell (digest: 64).
    pub directions: usize,
    /// Hill-climbing rounds per shell.
    pub refinements: usize,
    /// Shells with a worst-point excess above this are ignored for `kappa_hat`.
    pub small_excess: f64,
}

/// Result of [`estimate_kl`].
#[derive(Debug, Clone, PartialEq)]
pub struct KlEstimate {
    /// Minimum local envelope slope over the small-excess shells.
    pub kappa_hat: f64,
    /// `max e^(1/kappa0) / G` over all sampled points.
    pub gamma_hat: f64,
    /// `(log G, log e)` of the worst common-direction point of each shell,
    /// largest radius first.
    pub envelope: Vec<(f64, f64)>,
}

fn ratio(obj: &dyn Objective, w: &[f64], g: &mut [f64], kappa0: f64) -> (f64, f64, f64) {
    let e = obj.excess_risk(w);
    obj.gradient(w, g);
    let gn = norm2(g);
    let score = if e > 0.0 && gn > 0.0 {
        e.ln() / kappa0 - gn.ln()
    } else {
        f64::NEG_INFINITY
    };
    (score, e, gn)
}

/// Runs the check around `reference` (usually [`Objective::minimizer`]).
///
/// # Panics
/// On invalid settings or when fewer than two shells qualify.
pub fn estimate_kl<R: Rng + ?Sized>(
    obj: &dyn Objective,
    reference: &[f64],
    settings: KlCheckSettings,
    rng: &mut R,
) -> KlEstimate {
    let d = obj.dim();
    let shells = (12.0 * settings.decades).round() as usize + 1;
    let mut w = vec![0.0; d];
    let mut g = vec![0.0; d];
    let mut envelope = Vec::with_capacity(shells);
    let mut best_gamma_log = f64::NEG_INFINITY;
    let mut candidates: Vec<Vec<f64>> = (0..settings.directions.max(1))
        .map(|_| sample_unit_sphere(d, rng))
        .collect();
    candidates.push(candidates[0].clone());
    for s in 0..shells {
        let r = settings.radius * 10f64.powf(-(s as f64) / 12.0);
        let place = |v: &[f64], w: &mut [f64]| {
            w.iter_mut()
                .zip(reference.iter().zip(v))
                .for_each(|(x, (c, u))| *x = c + r * u);
        };
        let mut best = (f64::NEG_INFINITY, 0.0, 0.0, vec![0.0; d]);
        let common = candidates.len() - 1;
        for v in &candidates[..common] {
            place(v, &mut w);
            let (sc, e, gn) = ratio(obj, &w, &mut g, settings.kappa0);
            if sc > best.0 {
                best = (sc, e, gn, v.clone());
            }
        }
        if best.1 > 0.0 && best.2 > 0.0 {
            envelope.push((best.2.ln(), best.1.ln()));
        }
        place(&candidates[common], &mut w);
        let (sc, e, gn) = ratio(obj, &w, &mut g, settings.kappa0);
        if sc > best.0 {
            best = (sc, e, gn, candidates[common].clone());
        }
        let mut step = 0.5;
        for _ in 0..settings.refinements {
            let u = sample_unit_sphere(d, rng);
            let mut v: Vec<f64> = best.3.iter().zip(&u).map(|(a, b)| a + step * b).collect();
            let nv = norm2(&v);
            v.iter_mut().for_each(|x| *x /= nv);
            place(&v, &mut w);
            let (sc, e, gn) = ratio(obj, &w, &mut g, settings.kappa0);
            if sc > best.0 {
                best = (sc, e, gn, v);
            } else {
                step *= 0.8;
            }
            if rng.random::<f64>() < 0.05 {
                step = 0.5;
            }
        }
        best_gamma_log = best_gamma_log.max(best.0);
        if let Some(last) = candidates.last_mut() {
            last.clone_from(&best.3);
        }
    }
    let mut kappa_hat = f64::INFINITY;
    for pair in envelope.windows(2) {
        let (g0, e0) = pair[0];
        let (g1, e1) = pair[1];
        if e0.exp() <= settings.small_excess && (g0 - g1).abs() > 1e-12 {
            kappa_hat = kappa_hat.min((e0 - e1) / (g0 - g1));
        }
    }
    assert!(kappa_hat.is_finite(), "no two qualifying shells");
    KlEstimate {
        kappa_hat,
        gamma_hat: best_gamma_log.exp(),
        envelope,
    }
}
