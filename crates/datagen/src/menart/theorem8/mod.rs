//! F-E (digest §4.3): the one-dimensional instance of Theorem 8 (the
//! `kappa >= 2` lower bound), convex and non-smooth.
//!
//! Records `x in {+1, -1}`; with `a = r^(1/(tau-1)) / 2`,
//! `f(w; +1) = a - w` for `w <= a` and `(w - a)^tau` above, and
//! `f(w; -1) = |w + a|^tau` for `w <= -a` and `w + a` above. A fraction
//! `p+ = (1 + r)/2` of the records is `+1`; `r` is rounded so that `n p+` is
//! an integer (`r = (n+ - n-)/n` exactly). Then `w* = a`, `F* = 2 a p-`, and
//! the excess is, without cancellation (digest P17), with `s >= 0`:
//! `p+ s^tau + p- s` at `w = a + s`; `r (a - w)` on `[-a, a]`;
//! `2 a r + p+ s + p- s^tau` at `w = -a - s`.
//! KL exponent `kappa = tau/(tau - 1)`; on the left of `a` the inequality with
//! `gamma = 1` is tight at `w = -a` (`2a = r^(kappa-1)`). Far out it fails
//! for `gamma = 1` (digest §4.3), so `gamma` is computed on the working region
//! `[w0 - B, w0 + B]` (`w0 = a - R0`, `B = margin R0`) as the maximum of
//! `e^(1/kappa) / |F'|` over a grid of `2e5 + 1` points plus `w = -a`, inflated
//! by `1e-3` relative (the ratio is Lipschitz between kinks, so the grid error
//! is far below that). `L0 = max(1, tau (W + a)^(tau-1))` with
//! `W = |w0| + B`; `L1 = inf`; `F0 = (gamma L0)^kappa` (digest §1.5).
//! Oracles are `O(1)`: two record types.

mod kl;

use super::common::{check_pos, no_sensitivity};
use super::RecordLoss;
use dpcore::menart::KlObjective;
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};

/// Parameters of an F-E instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theorem8Params {
    /// Number of records `n >= 2`.
    pub n: usize,
    /// Growth exponent `tau` in `(1, 2]` (`kappa = tau/(tau-1) >= 2`).
    pub tau: f64,
    /// Target label imbalance `r` in `(0, 1)` (rounded, module docs).
    pub imbalance: f64,
    /// Start distance `R0`: `w0 = a - R0`.
    pub start_distance: f64,
    /// Region radius factor, `B = margin R0`.
    pub margin: f64,
}

impl Theorem8Params {
    /// Defaults `R0 = 1`, margin 1.5.
    pub fn new(n: usize, tau: f64, imbalance: f64) -> Self {
        Self {
            n,
            tau,
            imbalance,
            start_distance: 1.0,
            margin: 1.5,
        }
    }
}

/// An F-E instance (module docs).
#[derive(Debug, Clone)]
pub struct Theorem8Instance {
    params: Theorem8Params,
    n_plus: usize,
    r: f64,
    a: f64,
    minimizer: Vec<f64>,
    start: Vec<f64>,
    gamma: f64,
}

impl Theorem8Instance {
    /// Builds the instance (deterministic).
    ///
    /// # Panics
    /// On `n < 2`, `tau` outside `(1, 2]`, or a rounded `r` outside `(0, 1)`.
    pub fn new(params: Theorem8Params) -> Self {
        let n = params.n;
        assert!(n >= 2, "n must be >= 2");
        assert!(
            params.tau > 1.0 && params.tau <= 2.0,
            "tau must lie in (1, 2]"
        );
        check_pos("start_distance", params.start_distance);
        assert!(params.margin >= 1.0, "margin must be >= 1");
        let n_plus = ((1.0 + params.imbalance) * n as f64 / 2.0).round() as usize;
        let r = (2.0 * n_plus as f64 - n as f64) / n as f64;
        assert!(
            r > 0.0 && r < 1.0,
            "rounded imbalance {r} must lie in (0, 1)"
        );
        let a = 0.5 * r.powf(1.0 / (params.tau - 1.0));
        let mut me = Self {
            params,
            n_plus,
            r,
            a,
            minimizer: vec![a],
            start: vec![a - params.start_distance],
            gamma: 1.0,
        };
        me.gamma = me.region_gamma();
        me
    }

    /// The exact imbalance `r = (n+ - n-)/n`.
    pub fn imbalance(&self) -> f64 {
        self.r
    }

    /// `kappa = tau/(tau - 1)`.
    pub fn kappa(&self) -> f64 {
        self.params.tau / (self.params.tau - 1.0)
    }

    fn weights(&self) -> (f64, f64) {
        let n = self.params.n as f64;
        (
            self.n_plus as f64 / n,
            (self.params.n - self.n_plus) as f64 / n,
        )
    }

    /// Per-record (sub)gradients `(f'(w; +1), f'(w; -1))`; at the kinks the
    /// choices make `F'(a) = 0` and `F'(-a) = -r`.
    fn record_slopes(&self, w: f64) -> (f64, f64) {
        let (a, tau) = (self.a, self.params.tau);
        let (pp, pm) = self.weights();
        let plus = if w > a {
            tau * (w - a).powf(tau - 1.0)
        } else if w < a {
            -1.0
        } else {
            -pm / pp
        };
        let minus = if w < -a {
            -tau * (-a - w).powf(tau - 1.0)
        } else {
            1.0
        };
        (plus, minus)
    }

    fn derivative(&self, w: f64) -> f64 {
        let (pp, pm) = self.weights();
        let (gp, gm) = self.record_slopes(w);
        pp * gp + pm * gm
    }

    fn excess_at(&self, w: f64) -> f64 {
        let (a, tau, r) = (self.a, self.params.tau, self.r);
        let (pp, pm) = self.weights();
        if w >= a {
            let s = w - a;
            pp * s.powf(tau) + pm * s
        } else if w >= -a {
            r * (a - w)
        } else {
            let s = -a - w;
            2.0 * a * r + pp * s + pm * s.powf(tau)
        }
    }
}

impl Objective for Theorem8Instance {
    fn dim(&self) -> usize {
        1
    }
    fn num_records(&self) -> usize {
        self.params.n
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.excess_at(w[0]) + 2.0 * self.a * self.weights().1
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        out[0] = self.derivative(w[0]);
    }
    fn constants(&self) -> ProblemConstants {
        let k = self.kl_constants();
        ProblemConstants {
            lipschitz: k.lipschitz,
            smoothness: f64::INFINITY,
            strong_convexity: 0.0,
            radius: k.region_radius,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.minimizer
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.excess_at(w[0])
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for Theorem8Instance {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        let (a, tau, x) = (self.a, self.params.tau, w[0]);
        if i < self.n_plus {
            if x <= a {
                a - x
            } else {
                (x - a).powf(tau)
            }
        } else if x <= -a {
            (-a - x).powf(tau)
        } else {
            x + a
        }
    }
}

impl FiniteSum for Theorem8Instance {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let (gp, gm) = self.record_slopes(w[0]);
        out[0] = if i < self.n_plus { gp } else { gm };
    }
}
