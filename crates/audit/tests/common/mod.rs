//! Helpers shared by the audit crate's integration tests.

use rand_distr::{Distribution, StandardNormal};
use rand_pcg::Pcg64;

/// `runs` releases of the Gaussian mechanism `mean + N(0, sigma^2)`.
pub fn releases(mean: f64, sigma: f64, runs: usize, rng: &mut Pcg64) -> Vec<f64> {
    (0..runs)
        .map(|_| {
            let z: f64 = StandardNormal.sample(rng);
            mean + sigma * z
        })
        .collect()
}
