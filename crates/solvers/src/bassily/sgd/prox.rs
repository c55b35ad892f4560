//! The approximate proximal step of `A_ProxGD` (Fact 4.6, digest §2.2, P10),
//! computed from record (sub)gradients only.
//!
//! For a record loss `f` (convex, `L`-Lipschitz on `R^d`) and `beta > 0`, the
//! unconstrained prox `v* = argmin_v g_w(v)`, `g_w(v) = f(v)/beta + ||v - w||^2/2`,
//! satisfies `||w - v*|| = ||grad f_beta(w)||/beta <= L/beta`, so `v*` lies in
//! the ball `K = B(w, L/beta)` and minimising `g_w` over `K` gives the
//! unconstrained prox. On `K`, `g_w` is 1-strongly convex with subgradients of
//! norm `<= G = L/beta + L/beta = 2L/beta`.
//!
//! Projected subgradient descent from `v_1 = w` with steps `2/(t+1)` and the
//! `t`-weighted average `v_bar` of the points `v_1..v_tau` where the
//! subgradients are taken satisfies `g_w(v_bar) - g_w* <= 2 G^2/(tau + 1)`
//! (Lacoste-Julien, Schmidt & Bach 2012), and strong convexity gives
//! `||v_bar - v*||^2 <= 2 (g_w(v_bar) - g_w*) <= 16 L^2/(beta^2 (tau + 1))`.
//! When `beta >= L/M` (Fact 4.6's condition) this is `<= 16 M^2/(tau + 1)`,
//! so the safe count `tau = ceil(36 M^2/xi^2)` of digest P10 gives
//! `||v_bar - v*|| <= xi`, and the envelope gradient `beta (w - v_bar)` is
//! within `beta xi = L/n` of the exact one: its norm is `<= L (1 + 1/n)`.

use dpcore::FiniteSum;

/// Scratch space for [`InexactProx::envelope_gradient`] (dimension `d`).
#[derive(Debug, Clone)]
pub struct ProxScratch {
    v: Vec<f64>,
    avg: Vec<f64>,
    g: Vec<f64>,
}

impl ProxScratch {
    /// Scratch for dimension `d`.
    pub fn new(d: usize) -> Self {
        Self {
            v: vec![0.0; d],
            avg: vec![0.0; d],
            g: vec![0.0; d],
        }
    }
}

/// The inexact prox oracle of `A_ProxGD` for one objective.
#[derive(Clone, Copy)]
pub struct InexactProx<'a> {
    /// Record (sub)gradients of the loss.
    pub records: &'a dyn FiniteSum,
    /// Envelope smoothness `beta` (the prox is that of `f/beta`).
    pub beta: f64,
    /// The loss's Lipschitz constant `L` (search ball radius `L/beta`).
    pub lipschitz: f64,
    /// Inner iterations `tau` per prox.
    pub iterations: u64,
}

impl InexactProx<'_> {
    /// Writes `beta (w - v_bar)` into `out`, where `v_bar` is the
    /// `tau`-step projected-subgradient approximation (module doc) of the
    /// unconstrained prox of record `i`'s loss at `w`. Costs `tau`
    /// record-gradient evaluations.
    pub fn envelope_gradient(
        &self,
        i: usize,
        w: &[f64],
        out: &mut [f64],
        scratch: &mut ProxScratch,
    ) {
        let (records, beta, tau) = (self.records, self.beta, self.iterations);
        let ball = self.lipschitz / beta;
        let ProxScratch { v, avg, g } = scratch;
        v.copy_from_slice(w);
        avg.iter_mut().for_each(|a| *a = 0.0);
        for t in 1..=tau {
            // v_t (where the subgradient is taken) enters the average with
            // weight t: avg_t = avg_{t-1} + 2/(t+1) (v_t - avg_{t-1}).
            let mix = 2.0 / (t as f64 + 1.0);
            avg.iter_mut()
                .zip(v.iter())
                .for_each(|(a, vj)| *a += mix * (vj - *a));
            records.record_gradient(i, v, g);
            let step = 2.0 / (t as f64 + 1.0);
            for ((vj, gj), wj) in v.iter_mut().zip(g.iter()).zip(w) {
                *vj -= step * (gj / beta + (*vj - wj));
            }
            // Projection onto B(w, L/beta).
            let dist = v
                .iter()
                .zip(w)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt();
            if dist > ball {
                let s = ball / dist;
                v.iter_mut()
                    .zip(w)
                    .for_each(|(vj, wj)| *vj = wj + s * (*vj - wj));
            }
        }
        for ((o, wj), a) in out.iter_mut().zip(w).zip(avg.iter()) {
            *o = beta * (wj - a);
        }
    }
}
