//! Population sampler for `R_D(w)` on G and G2 (digest §6.1 item 6).
//!
//! The population law is the inlier law with probability `1 - m/n` and the
//! outlier law with probability `rho = m/n` (the anchor pair has measure
//! zero). For twins (T) and flips (F) a population outlier is a fresh inlier
//! with its label flipped (a twin copies a *sample* point; its population
//! analogue is an inlier draw with the opposite label).
//!
//! **Reduction to scalars.** Every draw is `x = y (a u_1 + b u_2 + c v)` with
//! `v` uniform on the unit sphere of a `q`-dimensional complement
//! (`q = d - 1` for G, `d - 2` for G2). Hence
//! `y <w, x> = a <w, u_1> + b <w, u_2> + c r t` with `r` the norm of the part
//! of `w` in that complement and `t` the first coordinate of a uniform point
//! of `S^(q-1)`, `t = g / sqrt(g^2 + chi^2_(q-1))`, `g ~ N(0, 1)`. One call
//! costs `O(d + N)` instead of `O(N d)` and is exact in law.
//!
//! **Accuracy.** The two strata are sampled separately with `N` draws each
//! (`N = population_samples`, fresh from the instance's fixed population
//! seed, so repeated calls use common random numbers):
//! `error = (1 - rho) e_in + rho e_out` with standard error
//! `sqrt((1-rho)^2 e_in (1-e_in)/N + rho^2 e_out (1-e_out)/N)`.

use super::generator::PlantedHalfspace;
use super::params::{Family, MarginProfile, OutlierType, G2_CLUSTER_OFFSET, G2_MINORITY_FRACTION};
use crate::numerics::dot;
use dpcore::halfspace::PopulationError;
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{ChiSquared, Distribution, StandardNormal};
use rand_pcg::Pcg64;

/// The three scalars a draw's margin depends on, plus the sampler of `t`.
struct Reduced {
    a1: f64,
    a2: f64,
    r: f64,
    chi: Option<ChiSquared<f64>>,
}

impl Reduced {
    /// First coordinate of a uniform point on `S^(q-1)`.
    fn t<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let g: f64 = StandardNormal.sample(rng);
        match &self.chi {
            None => g.signum(),
            Some(chi) => {
                let c: f64 = chi.sample(rng);
                g / (g * g + c).sqrt()
            }
        }
    }
}

impl PlantedHalfspace {
    fn reduce(&self, w: &[f64]) -> Reduced {
        let (u1, u2) = (&self.w_star, &self.u2);
        let a1 = dot(w, u1);
        let a2 = dot(w, u2);
        let (b2, q) = match self.params.family {
            Family::Isotropic(_) => (0.0, self.params.d - 1),
            Family::TwoCluster => (a2, self.params.d - 2),
        };
        let r = (0..w.len())
            .map(|j| {
                let e = w[j] - a1 * u1[j] - b2 * u2[j];
                e * e
            })
            .sum::<f64>()
            .sqrt();
        let chi = (q > 1).then(|| ChiSquared::new((q - 1) as f64).expect("q - 1 >= 1"));
        Reduced { a1, a2, r, chi }
    }

    /// `y <w, x>` of a draw with margin parameter `s` along `w*`, in the
    /// family's shape (G2 draws its cluster sign).
    fn draw_margin<R: Rng + ?Sized>(&self, red: &Reduced, s: f64, rng: &mut R) -> f64 {
        match self.params.family {
            Family::Isotropic(_) => s * red.a1 + (1.0 - s * s).max(0.0).sqrt() * red.r * red.t(rng),
            Family::TwoCluster => {
                let off = G2_CLUSTER_OFFSET;
                let kappa = if rng.random::<f64>() < G2_MINORITY_FRACTION {
                    -1.0
                } else {
                    1.0
                };
                let c = (1.0 - s * s - off * off).max(0.0).sqrt();
                s * red.a1 + kappa * off * red.a2 + c * red.r * red.t(rng)
            }
        }
    }

    fn inlier_margin<R: Rng + ?Sized>(&self, red: &Reduced, rng: &mut R) -> f64 {
        let g = self.params.margin;
        let s = match self.params.family {
            Family::Isotropic(MarginProfile::Spread { rho }) => {
                g + (1.0 - g) * rho * rng.random::<f64>()
            }
            _ => g,
        };
        self.draw_margin(red, s, rng)
    }

    fn outlier_margin<R: Rng + ?Sized>(&self, red: &Reduced, rng: &mut R) -> f64 {
        let g = self.params.margin;
        match self.params.outlier_type {
            OutlierType::Twins | OutlierType::Flips => -self.inlier_margin(red, rng),
            OutlierType::Band => {
                let s = rng.random_range(-g..g);
                self.draw_margin(red, s, rng)
            }
            OutlierType::Adversarial { angle } => -(angle.cos() * red.a1 + angle.sin() * red.a2),
        }
    }

    /// Population zero-one error of `w` (ties are errors) and its clean
    /// (inlier) part, by the scalar-reduced sampler of the module docs.
    pub fn population_error_of(&self, w: &[f64]) -> PopulationError {
        assert_eq!(w.len(), self.params.d, "population_error: dimension");
        let red = self.reduce(w);
        let mut rng = Pcg64::seed_from_u64(self.population_seed);
        let n_draws = self.params.population_samples;
        let big_n = n_draws as f64;
        let e_in = (0..n_draws)
            .filter(|_| self.inlier_margin(&red, &mut rng) <= 0.0)
            .count() as f64
            / big_n;
        let rho = self.params.outliers as f64 / self.params.n as f64;
        let e_out = if self.params.outliers == 0 {
            0.0
        } else {
            (0..n_draws)
                .filter(|_| self.outlier_margin(&red, &mut rng) <= 0.0)
                .count() as f64
                / big_n
        };
        let var = (1.0 - rho).powi(2) * e_in * (1.0 - e_in) / big_n
            + rho * rho * e_out * (1.0 - e_out) / big_n;
        PopulationError {
            error: (1.0 - rho) * e_in + rho * e_out,
            clean_error: e_in,
            standard_error: var.sqrt(),
            samples: 2 * n_draws,
        }
    }
}
