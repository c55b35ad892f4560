//! The KL constant of F-E on its working region and its `O(1)` clipped
//! oracles (two record types).

use super::Theorem8Instance;
use dpcore::menart::{clip_in_place, KlConstants, KlObjective, KlParameters};

impl Theorem8Instance {
    pub(super) fn region_gamma(&self) -> f64 {
        let kappa = self.kappa();
        let (w0, b) = (
            self.start[0],
            self.params.margin * self.params.start_distance,
        );
        let ratio = |w: f64| {
            let g = self.derivative(w).abs();
            if g > 0.0 {
                self.excess_at(w).powf(1.0 / kappa) / g
            } else {
                0.0
            }
        };
        let m = 200_000;
        let mut best = if (w0 - b..=w0 + b).contains(&-self.a) {
            ratio(-self.a)
        } else {
            0.0
        };
        for i in 0..=m {
            best = best.max(ratio(w0 - b + 2.0 * b * i as f64 / m as f64));
        }
        best * (1.0 + 1e-3)
    }
}

/// Clipped mean of the two record types, weighted by their counts.
fn clipped_two_types(gp: f64, gm: f64, clip: f64, n_plus: usize, n: usize) -> (f64, usize) {
    let (mut p, mut m) = ([gp], [gm]);
    let cp = clip_in_place(&mut p, clip);
    let cm = clip_in_place(&mut m, clip);
    let n_minus = n - n_plus;
    let mean = (n_plus as f64 * p[0] + n_minus as f64 * m[0]) / n as f64;
    (mean, usize::from(cp) * n_plus + usize::from(cm) * n_minus)
}

impl KlObjective for Theorem8Instance {
    fn kl_constants(&self) -> KlConstants {
        let tau = self.params.tau;
        let b = self.params.margin * self.params.start_distance;
        let wmax = self.start[0].abs() + b;
        let l0 = (tau * (wmax + self.a).powf(tau - 1.0)).max(1.0);
        KlConstants {
            kl: Some(KlParameters {
                gamma: self.gamma,
                kappa: self.kappa(),
            }),
            lipschitz: l0,
            smoothness: f64::INFINITY,
            weak_convexity: 0.0,
            region_radius: b,
            initial_gap: (self.gamma * l0).powf(self.kappa()),
        }
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.start
    }
    fn clipped_mean_gradient(&self, w: &[f64], clip: f64, out: &mut [f64]) -> usize {
        let (gp, gm) = self.record_slopes(w[0]);
        let (mean, c) = clipped_two_types(gp, gm, clip, self.n_plus, self.params.n);
        out[0] = mean;
        c
    }
    fn clipped_mean_gradient_difference(
        &self,
        w_new: &[f64],
        w_old: &[f64],
        clip: f64,
        out: &mut [f64],
    ) -> usize {
        let (np, nm) = self.record_slopes(w_new[0]);
        let (op, om) = self.record_slopes(w_old[0]);
        let (mean, c) = clipped_two_types(np - op, nm - om, clip, self.n_plus, self.params.n);
        out[0] = mean;
        c
    }
}
