//! Helpers shared by the audit crate's integration tests.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use rand::{RngExt, SeedableRng};
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

/// A mechanism releasing one canary slot's inclusion bit `x` as a score
/// (changing `x` moves the score by 1: L1 and L2 sensitivity 1), for the
/// one-run tests.
#[derive(Debug, Clone, Copy)]
pub enum Canary {
    /// Randomised response on the bit: score 1 when the kept bit says "in".
    RandomizedResponse { eps: f64 },
    /// Randomised response that, with probability `leak`, releases the bit
    /// in the clear instead (score +-10): exactly `(eps, leak)`-DP.
    LeakyResponse { eps: f64, leak: f64 },
    /// `x + N(0, sigma^2)`.
    Gaussian { sigma: f64 },
    /// `x + Lap(scale)`.
    Laplace { scale: f64 },
}

impl Canary {
    /// One release of the bit `x`.
    pub fn release(self, x: bool, rng: &mut Pcg64) -> f64 {
        let shift = f64::from(u8::from(x));
        match self {
            Canary::RandomizedResponse { eps } => {
                let keep = rng.random::<f64>() < 1.0 / (1.0 + (-eps).exp());
                f64::from(u8::from(keep == x))
            }
            Canary::LeakyResponse { eps, leak } => {
                if rng.random::<f64>() < leak {
                    if x {
                        10.0
                    } else {
                        -10.0
                    }
                } else {
                    Canary::RandomizedResponse { eps }.release(x, rng)
                }
            }
            Canary::Gaussian { sigma } => {
                let z: f64 = StandardNormal.sample(rng);
                shift + sigma * z
            }
            Canary::Laplace { scale } => {
                let u: f64 = rng.random::<f64>() - 0.5;
                shift - scale * u.signum() * (1.0 - 2.0 * u.abs()).ln()
            }
        }
    }
}

/// One one-run game of `mechanism` from `seed`: `m` inclusion bits (each
/// true with probability 1/2), then each canary's release, in that order
/// from one stream. Returns `(included, scores)`.
pub fn canary_game(mechanism: Canary, m: usize, seed: u64) -> (Vec<bool>, Vec<f64>) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let included: Vec<bool> = (0..m).map(|_| rng.random::<bool>()).collect();
    let scores = included
        .iter()
        .map(|&x| mechanism.release(x, &mut rng))
        .collect();
    (included, scores)
}
