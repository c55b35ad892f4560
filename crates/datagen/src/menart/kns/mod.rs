//! F-D (digest §4.3): the non-convex PL example of Karimi, Nutini & Schmidt,
//! `f(w; z) = sum_j h(w_j - c_j) + <z, w - c>`, `h(s) = s^2 + 3 sin^2 s`, with
//! zero-sum tilts.
//!
//! `F* = 0` at `c` (the unique stationary point), excess `sum_j h(w_j - c_j)`
//! (digest P17). `h'' = 2 + 6 cos 2s` lies in `[-4, 8]`: `L1 = 8`, and `F` is
//! non-convex, `4`-weakly convex. `|h'(s)| <= 8 |s|` gives `L0 = 8R + Z` on
//! `B_R(c)`, `R = margin R0`. PL: `||grad F||^2 = sum h'(s_j)^2 >= 2 mu_R sum h(s_j)`
//! with `mu_R = inf_{0 < |s| <= R} h'(s)^2 / (2 h(s))` (every `|s_j| <= R` on the
//! ball), so `(gamma, 2)`-KL holds with `gamma = 1/sqrt(2 mu_R)`
//! ([`kns_pl_constant`]; digest: `mu = 0.17553` globally, `gamma -> 1/4` near `c`).
//!
//! Oracles: full gradients `O(d)` while `8 r + max ||z_i|| <= C`; differences
//! always `O(d)` (the tilt cancels).

mod pl_constant;

pub use pl_constant::{kns_h, kns_h_prime, kns_pl_constant};

use super::common::{
    add_tilt_gradient, check_pos, clip_shared, no_sensitivity, point_at_distance,
    problem_constants, tilt_loss, zero_sum_tilts,
};
use super::RecordLoss;
use crate::geometry::sample_unit_sphere;
use crate::numerics::dist;
use dpcore::menart::{clipped_mean_by_records, KlConstants, KlObjective, KlParameters};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants};
use rand::Rng;

/// Parameters of an F-D instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnsPlParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Start distance `R0 = ||w0 - c|| > 0`.
    pub start_distance: f64,
    /// Region radius factor, `R = margin R0`.
    pub margin: f64,
    /// Tilt radius `Z >= 0` (0: virtual data set).
    pub tilt: f64,
}

impl KnsPlParams {
    /// Defaults `R0 = 1`, margin 1.5, no tilt.
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            start_distance: 1.0,
            margin: 1.5,
            tilt: 0.0,
        }
    }

    /// The public constants (module docs), a function of the parameters
    /// alone (`gamma` from [`kns_pl_constant`] on `R = margin R0`): the
    /// instance reports these, and `runner plan` derives Algorithm 1's round
    /// count from them without drawing data.
    pub fn kl_constants(&self) -> KlConstants {
        // The KL exponent's constant `gamma = 1/sqrt(2 mu_R)`, `R = margin R0`
        // (`kns_pl_constant` keeps its values, so asking again is cheap).
        let gamma = 1.0 / (2.0 * kns_pl_constant(self.margin * self.start_distance)).sqrt();
        let r0 = self.start_distance;
        let big_r = self.margin * r0;
        KlConstants {
            kl: Some(KlParameters { gamma, kappa: 2.0 }),
            lipschitz: 8.0 * big_r + self.tilt,
            smoothness: 8.0,
            weak_convexity: 4.0,
            region_radius: big_r,
            // h(s) <= 4 s^2 (sin^2 s <= s^2), so F(w0) <= 4 R0^2.
            initial_gap: 4.0 * r0 * r0,
        }
    }
}

/// An F-D instance (module docs).
#[derive(Debug, Clone)]
pub struct KnsPl {
    params: KnsPlParams,
    center: Vec<f64>,
    start: Vec<f64>,
    tilts: Option<Vec<f64>>,
    max_tilt: f64,
}

impl KnsPl {
    /// Samples `c` on the unit sphere, `w0 = c + R0 u` and the tilts.
    ///
    /// # Panics
    /// On invalid parameters.
    pub fn new<R: Rng + ?Sized>(params: KnsPlParams, rng: &mut R) -> Self {
        assert!(params.n >= 1 && params.d >= 1, "n, d must be >= 1");
        check_pos("start_distance", params.start_distance);
        assert!(
            params.margin >= 1.0 && params.tilt >= 0.0,
            "margin >= 1, tilt >= 0"
        );
        let center = sample_unit_sphere(params.d, rng);
        let start = point_at_distance(&center, params.start_distance, rng);
        let (tilts, max_tilt) = if params.tilt > 0.0 {
            let (z, m) = zero_sum_tilts(params.n, params.d, params.tilt, rng);
            (Some(z), m)
        } else {
            (None, 0.0)
        };
        Self {
            params,
            center,
            start,
            tilts,
            max_tilt,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &KnsPlParams {
        &self.params
    }
}

impl Objective for KnsPl {
    fn dim(&self) -> usize {
        self.params.d
    }
    fn num_records(&self) -> usize {
        self.params.n
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.excess_risk(w)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        for (j, o) in out.iter_mut().enumerate() {
            *o = kns_h_prime(w[j] - self.center[j]);
        }
    }
    fn constants(&self) -> ProblemConstants {
        problem_constants(&self.kl_constants())
    }
    fn minimizer(&self) -> &[f64] {
        &self.center
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        w.iter().zip(&self.center).map(|(a, c)| kns_h(a - c)).sum()
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for KnsPl {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        self.excess_risk(w) + tilt_loss(self.tilts.as_deref(), i, w, &self.center)
    }
}

impl FiniteSum for KnsPl {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        self.gradient(w, out);
        add_tilt_gradient(self.tilts.as_deref(), i, out);
    }
}

impl KlObjective for KnsPl {
    fn kl_constants(&self) -> KlConstants {
        self.params.kl_constants()
    }
    fn start_point(&self) -> &[f64] {
        &self.start
    }
    fn region_center(&self) -> &[f64] {
        &self.center
    }
    fn clipped_mean_gradient(&self, w: &[f64], clip: f64, out: &mut [f64]) -> usize {
        self.gradient(w, out);
        if 8.0 * dist(w, &self.center) + self.max_tilt <= clip {
            return 0;
        }
        match &self.tilts {
            None => clip_shared(out, clip, self.params.n),
            Some(_) => clipped_mean_by_records(self, self.params.n, w, clip, out),
        }
    }
    fn clipped_mean_gradient_difference(
        &self,
        w_new: &[f64],
        w_old: &[f64],
        clip: f64,
        out: &mut [f64],
    ) -> usize {
        for (j, o) in out.iter_mut().enumerate() {
            let c = self.center[j];
            *o = kns_h_prime(w_new[j] - c) - kns_h_prime(w_old[j] - c);
        }
        clip_shared(out, clip, self.params.n)
    }
}
