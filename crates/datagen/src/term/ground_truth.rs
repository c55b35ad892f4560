//! Newton ground truth of `F_tau` (digest §5.1): the start point and the
//! exact Hessian used for the search direction of [`Term::generate`].

use super::{Term, TermLoss};
use crate::linalg::{add_outer_lower, symmetrize_lower};
use crate::numerics::CompensatedVec;
use dpcore::Objective;

impl Term {
    /// The sample mean for `Quadratic` (the `tau -> 0` minimizer), `0` for
    /// `NonSmooth`.
    pub(super) fn newton_start(&self) -> Vec<f64> {
        let (n, d) = (self.params.n, self.params.d);
        match self.params.loss {
            TermLoss::Quadratic => {
                let mut acc = CompensatedVec::zeros(d);
                self.records()
                    .for_each(|x| acc.add_scaled(1.0 / n as f64, x));
                acc.total()
            }
            TermLoss::NonSmooth => vec![0.0; d],
        }
    }

    /// Digest §5.1: `sum v_i Hess f_i + tau sum v_i (g_i - g_bar)(g_i - g_bar)^T`,
    /// with `Hess f_i = mu I` (+ `(I - u u^T)/||w - x_i||`, `u = (w - x_i)/||w - x_i||`,
    /// for NonSmooth); the covariance is centred first (no cancellation).
    pub(super) fn hessian(&self, w: &[f64], h: &mut [f64]) {
        let (d, tau) = (self.params.d, self.params.tau);
        let v: Vec<f64> = self.log_weights(w).iter().map(|l| l.exp()).collect();
        let mut g = vec![0.0; d];
        self.gradient(w, &mut g);
        h.fill(0.0);
        let mut diag = self.params.mu;
        let (mut gi, mut u) = (vec![0.0; d], vec![0.0; d]);
        for (x, vi) in self.records().zip(&v) {
            let r = self.loss_gradient(w, x, &mut gi);
            if self.params.loss == TermLoss::NonSmooth && r > 0.0 {
                diag += vi / r;
                u.iter_mut()
                    .zip(w.iter().zip(x))
                    .for_each(|(uj, (a, b))| *uj = (a - b) / r);
                add_outer_lower(h, -vi / r, &u);
            }
            gi.iter_mut().zip(&g).for_each(|(a, b)| *a -= b);
            add_outer_lower(h, tau * vi, &gi);
        }
        (0..d).for_each(|j| h[j * d + j] += diag);
        symmetrize_lower(h, d);
    }
}
