//! F-B (digest §4.3): the power family with a zero-sum tilt,
//! `f(w; z) = (1/p) ||w - c||^p + <z, w - c>`, `p = kappa/(kappa - 1)`.
//!
//! With `sum_i z_i = 0`, `F(w) = (1/p) r^p` (`r = ||w - c||`), `F* = 0` at
//! `w* = c`, `grad F = r^(p-2) (w - c)`, and the `(gamma, kappa)`-KL
//! inequality holds with **equality** on all of `R^d` for
//! `gamma = p^(-1/kappa)`. Constants on `B_R(c)`, `R = margin * R0`:
//! `L0 = R^(p-1) + Z`, `L1 = (p-1) R^(p-2)` for `p >= 2` (non-smooth at `c`
//! for `p < 2`), `F0 = R0^p / p`. The excess is `r^p/p` (digest P17: the tilt
//! term is zero by construction and never evaluated). With `Z = 0` the data
//! set is virtual (no storage): `n` is only a count, so any `n` is free.
//!
//! Oracles: the shared part `grad h` is `O(d)`; full gradients are `O(d)`
//! while the certificate `r^(p-1) + max_i ||z_i|| <= C` says clipping is
//! inactive (digest §4.3), `O(n d)` otherwise; differences are exactly `O(d)`
//! because the tilt cancels in every record.

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

/// Parameters of an F-B instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerTiltParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Power `p > 1` (`kappa = p/(p-1)`).
    pub p: f64,
    /// Start distance `R0 = ||w0 - c|| > 0` (digest §6.0: 1).
    pub start_distance: f64,
    /// Region radius factor: constants hold on `B_R(c)`, `R = margin R0` (digest: 1.5).
    pub margin: f64,
    /// Tilt radius `Z >= 0`; 0 gives a virtual data set.
    pub tilt: f64,
}

impl PowerTiltParams {
    /// The digest §6.0 defaults: `R0 = 1`, margin 1.5, no tilt.
    pub fn new(n: usize, d: usize, p: f64) -> Self {
        Self {
            n,
            d,
            p,
            start_distance: 1.0,
            margin: 1.5,
            tilt: 0.0,
        }
    }

    /// `kappa = p/(p-1)`.
    pub fn kappa(&self) -> f64 {
        self.p / (self.p - 1.0)
    }

    /// `gamma = p^(-1/kappa)` (exact; KL holds with equality).
    pub fn gamma(&self) -> f64 {
        self.p.powf(-1.0 / self.kappa())
    }

    /// The public constants on `B_R(c)` (module docs), a function of the
    /// parameters alone: the instance reports these, and `runner plan`
    /// derives Algorithm 1's round count from them without drawing data.
    pub fn kl_constants(&self) -> KlConstants {
        let p = self.p;
        let big_r = self.margin * self.start_distance;
        KlConstants {
            kl: Some(KlParameters {
                gamma: self.gamma(),
                kappa: self.kappa(),
            }),
            lipschitz: big_r.powf(p - 1.0) + self.tilt,
            smoothness: if p >= 2.0 {
                (p - 1.0) * big_r.powf(p - 2.0)
            } else {
                f64::INFINITY
            },
            weak_convexity: 0.0,
            region_radius: big_r,
            initial_gap: self.start_distance.powf(p) / p,
        }
    }
}

/// An F-B instance (module docs).
#[derive(Debug, Clone)]
pub struct PowerTilt {
    params: PowerTiltParams,
    center: Vec<f64>,
    start: Vec<f64>,
    /// Row-major `n x d` tilts, `None` for the virtual (`Z = 0`) data set.
    tilts: Option<Vec<f64>>,
    max_tilt: f64,
}

impl PowerTilt {
    /// Samples `c` on the unit sphere, `w0 = c + R0 u`, and the tilts.
    ///
    /// # Panics
    /// On `n == 0`, `d == 0`, `p <= 1`, non-positive `R0`, `margin < 1` or `Z < 0`.
    pub fn new<R: Rng + ?Sized>(params: PowerTiltParams, rng: &mut R) -> Self {
        assert!(params.n >= 1 && params.d >= 1, "n, d must be >= 1");
        assert!(params.p > 1.0 && params.p.is_finite(), "p must be > 1");
        check_pos("start_distance", params.start_distance);
        assert!(params.margin >= 1.0, "margin must be >= 1");
        assert!(
            params.tilt >= 0.0 && params.tilt.is_finite(),
            "tilt must be >= 0"
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
    pub fn params(&self) -> &PowerTiltParams {
        &self.params
    }

    /// `(r, r^(p-2))` at `w` (the scale is 0 at `c`).
    fn radius_and_scale(&self, w: &[f64]) -> (f64, f64) {
        let r = dist(w, &self.center);
        let s = if r > 0.0 {
            r.powf(self.params.p - 2.0)
        } else {
            0.0
        };
        (r, s)
    }

    /// `grad h(w) = r^(p-2) (w - c)` into `out` (0 at `c`); returns `r`.
    fn shared_gradient(&self, w: &[f64], out: &mut [f64]) -> f64 {
        let (r, s) = self.radius_and_scale(w);
        out.iter_mut()
            .zip(w.iter().zip(&self.center))
            .for_each(|(o, (a, c))| *o = s * (a - c));
        r
    }
}

impl Objective for PowerTilt {
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
        self.shared_gradient(w, out);
    }
    fn constants(&self) -> ProblemConstants {
        problem_constants(&self.kl_constants())
    }
    fn minimizer(&self) -> &[f64] {
        &self.center
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        dist(w, &self.center).powf(self.params.p) / self.params.p
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        no_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl RecordLoss for PowerTilt {
    fn record_loss(&self, i: usize, w: &[f64]) -> f64 {
        self.excess_risk(w) + tilt_loss(self.tilts.as_deref(), i, w, &self.center)
    }
}

impl FiniteSum for PowerTilt {
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        self.shared_gradient(w, out);
        add_tilt_gradient(self.tilts.as_deref(), i, out);
    }
}

impl KlObjective for PowerTilt {
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
        let r = self.shared_gradient(w, out);
        if r.powf(self.params.p - 1.0) + self.max_tilt <= clip {
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
        let (_, s_new) = self.radius_and_scale(w_new);
        let (_, s_old) = self.radius_and_scale(w_old);
        for (j, o) in out.iter_mut().enumerate() {
            let c = self.center[j];
            *o = s_new * (w_new[j] - c) - s_old * (w_old[j] - c);
        }
        clip_shared(out, clip, self.params.n)
    }
}
