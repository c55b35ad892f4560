//! Sampling of a planted instance of G or G2 (digest §6.1).
//!
//! Layout of the records: indices 0 and 1 are the anchor pair, then the
//! `n - 2 - m` inliers, then the `m` outliers (not shuffled: full-batch
//! algorithms and the margin solvers are order independent).

use super::params::G2_MINORITY_FRACTION;
use super::params::{Family, HalfspaceParams, MarginProfile, OutlierType, G2_CLUSTER_OFFSET};
use crate::numerics::{dot, norm2};
use dpcore::halfspace::{HalfspaceProblem, PopulationError};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// A sampled instance: unit-norm rows, labels `±1`, planted margin `gamma*`
/// of the inlier set (exact, by the anchor pair) and `m` planted outliers.
#[derive(Debug, Clone)]
pub struct PlantedHalfspace {
    pub(super) params: HalfspaceParams,
    pub(super) w_star: Vec<f64>,
    pub(super) u2: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    outlier: Vec<bool>,
    twin_of: Vec<Option<usize>>,
    pub(super) population_seed: u64,
}

/// A uniform unit vector of the orthogonal complement of the orthonormal
/// `basis`: a Gaussian with its `basis` components removed (twice, for
/// numerical orthogonality), normalised.
pub(super) fn orth_unit<R: Rng + ?Sized>(d: usize, basis: &[&[f64]], rng: &mut R) -> Vec<f64> {
    loop {
        let mut g: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
        for _ in 0..2 {
            for b in basis {
                let c = dot(&g, b);
                g.iter_mut()
                    .zip(b.iter())
                    .for_each(|(gj, bj)| *gj -= c * bj);
            }
        }
        let norm = norm2(&g);
        if norm > 0.0 && norm.is_finite() {
            g.iter_mut().for_each(|v| *v /= norm);
            return g;
        }
    }
}

/// `a u_1 + b u_2 + c v`, rescaled onto the unit sphere if rounding put it
/// outside (so `||x|| <= 1` holds exactly in floating point).
fn combine(a: f64, u1: &[f64], b: f64, u2: &[f64], c: f64, v: &[f64]) -> Vec<f64> {
    let mut x: Vec<f64> = (0..u1.len())
        .map(|j| a * u1[j] + b * u2[j] + c * v[j])
        .collect();
    let mut norm = norm2(&x);
    while norm > 1.0 {
        let shrink = (1.0 - f64::EPSILON) / norm;
        x.iter_mut().for_each(|v| *v *= shrink);
        norm = norm2(&x);
    }
    x
}

fn random_sign<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    if rng.random::<bool>() {
        1.0
    } else {
        -1.0
    }
}

impl PlantedHalfspace {
    /// Samples an instance (module docs for the layout, digest §6.1 for the
    /// law). Draw order: `w*`, `u_2`, the population seed, the anchor, the
    /// inliers, the outliers.
    ///
    /// # Errors
    /// As [`HalfspaceParams::validate`].
    pub fn generate<R: Rng + ?Sized>(params: HalfspaceParams, rng: &mut R) -> Result<Self, String> {
        params.validate()?;
        let (n, d, g, m) = (params.n, params.d, params.margin, params.outliers);
        let w_star = orth_unit(d, &[], rng);
        let u2 = orth_unit(d, &[&w_star], rng);
        let population_seed = rng.random::<u64>();
        let mut inst = Self {
            params,
            w_star,
            u2,
            x: Vec::with_capacity(n * d),
            y: Vec::with_capacity(n),
            outlier: Vec::with_capacity(n),
            twin_of: Vec::with_capacity(n),
            population_seed,
        };
        let c = (1.0 - g * g).sqrt();
        let z0 = inst.complement_unit(rng);
        let zero = vec![0.0; d];
        let plus = combine(g, &inst.w_star, 0.0, &zero, c, &z0);
        let minus = combine(-g, &inst.w_star, 0.0, &zero, c, &z0);
        inst.push(plus, 1.0, false, None);
        inst.push(minus, -1.0, false, None);
        for _ in 0..n - 2 - m {
            let (x, y) = inst.draw_inlier(rng);
            inst.push(x, y, false, None);
        }
        // Twins copy m *distinct* inliers (partial Fisher-Yates), so that
        // exactly m removals are needed (two twins of one original could
        // both be cured by removing the original).
        let mut pool: Vec<usize> = (2..n - m).collect();
        for t in 0..m {
            let (x, y, twin) = match params.outlier_type {
                OutlierType::Twins => {
                    let pick = rng.random_range(t..pool.len());
                    pool.swap(t, pick);
                    let j = pool[t];
                    (inst.row(j).to_vec(), -inst.y[j], Some(j))
                }
                OutlierType::Flips => {
                    let (x, y) = inst.draw_inlier(rng);
                    (x, -y, None)
                }
                OutlierType::Band => {
                    let s = rng.random_range(-g..g);
                    let (x, y) = inst.draw_at_margin(s, rng);
                    (x, y, None)
                }
                OutlierType::Adversarial { angle } => {
                    let (x, y) = inst.adversarial_point(angle);
                    (x, y, None)
                }
            };
            inst.push(x, y, true, twin);
        }
        Ok(inst)
    }

    fn push(&mut self, x: Vec<f64>, y: f64, outlier: bool, twin: Option<usize>) {
        self.x.extend_from_slice(&x);
        self.y.push(y);
        self.outlier.push(outlier);
        self.twin_of.push(twin);
    }

    /// A uniform unit vector of the complement the family's `v` lives in
    /// (`u_1^perp` for G, `{u_1, u_2}^perp` for G2).
    fn complement_unit<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        match self.params.family {
            Family::Isotropic(_) => orth_unit(self.params.d, &[&self.w_star], rng),
            Family::TwoCluster => orth_unit(self.params.d, &[&self.w_star, &self.u2], rng),
        }
    }

    /// One inlier `(x, y)` (digest §6.1 items 3 and 5).
    fn draw_inlier<R: Rng + ?Sized>(&self, rng: &mut R) -> (Vec<f64>, f64) {
        let g = self.params.margin;
        let s = match self.params.family {
            Family::Isotropic(MarginProfile::Spread { rho }) => {
                g + (1.0 - g) * rho * rng.random::<f64>()
            }
            Family::Isotropic(MarginProfile::Tight) | Family::TwoCluster => g,
        };
        self.draw_at_margin(s, rng)
    }

    /// A point with `y <w*, x> = s` of the family's shape; for G2 the cluster
    /// sign `kappa` is drawn as for inliers.
    fn draw_at_margin<R: Rng + ?Sized>(&self, s: f64, rng: &mut R) -> (Vec<f64>, f64) {
        let y = random_sign(rng);
        let v = self.complement_unit(rng);
        let (b, c) = match self.params.family {
            Family::Isotropic(_) => (0.0, (1.0 - s * s).max(0.0).sqrt()),
            Family::TwoCluster => {
                let kappa = if rng.random::<f64>() < G2_MINORITY_FRACTION {
                    -1.0
                } else {
                    1.0
                };
                let off = G2_CLUSTER_OFFSET;
                (kappa * off, (1.0 - s * s - off * off).max(0.0).sqrt())
            }
        };
        (combine(y * s, &self.w_star, y * b, &self.u2, y * c, &v), y)
    }

    /// The adversarial point `-y_o (cos theta u_1 + sin theta u_2)`, `y_o = +1`.
    pub(super) fn adversarial_point(&self, angle: f64) -> (Vec<f64>, f64) {
        let v = vec![0.0; self.params.d];
        let x = combine(-angle.cos(), &self.w_star, -angle.sin(), &self.u2, 0.0, &v);
        (x, 1.0)
    }

    /// Row `i` of the features.
    pub fn row(&self, i: usize) -> &[f64] {
        let d = self.params.d;
        &self.x[i * d..(i + 1) * d]
    }

    /// The parameters the instance was drawn with.
    pub fn params(&self) -> &HalfspaceParams {
        &self.params
    }

    /// The planted unit direction `w* = u_1`, which attains margin `gamma*`
    /// on the inliers.
    pub fn w_star(&self) -> &[f64] {
        &self.w_star
    }

    /// The second planted direction `u_2` (orthogonal to `w*`): the cluster
    /// axis of G2 and the pull direction of the adversarial outliers.
    pub fn u2(&self) -> &[f64] {
        &self.u2
    }

    /// Whether record `i` is a planted outlier.
    pub fn is_outlier(&self, i: usize) -> bool {
        self.outlier[i]
    }

    /// For a twin outlier, the index of the inlier it copies.
    pub fn twin_of(&self, i: usize) -> Option<usize> {
        self.twin_of[i]
    }

    /// Indices of the planted outliers (the last `m` records).
    pub fn outlier_indices(&self) -> std::ops::Range<usize> {
        self.params.n - self.params.outliers..self.params.n
    }
}

impl HalfspaceProblem for PlantedHalfspace {
    fn dim(&self) -> usize {
        self.params.d
    }
    fn num_records(&self) -> usize {
        self.params.n
    }
    fn features(&self) -> &[f64] {
        &self.x
    }
    fn labels(&self) -> &[f64] {
        &self.y
    }
    fn true_margin(&self) -> Option<f64> {
        Some(self.params.margin)
    }
    fn outlier_count(&self) -> usize {
        self.params.outliers
    }
    fn inlier_rows(&self) -> Option<Vec<usize>> {
        Some((0..self.outlier_indices().start).collect())
    }
    fn population_error(&self, w: &[f64]) -> Option<PopulationError> {
        Some(self.population_error_of(w))
    }
}
