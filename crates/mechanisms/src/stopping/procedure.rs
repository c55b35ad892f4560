//! The procedure: run a private candidate procedure a random number of times
//! and release only the best candidate.

use rand::Rng;
use rand_distr::Distribution;

// Named only in doc links.
#[cfg(doc)]
use super::{liu_talwar_random_stop_epsilon, Geometric, Poisson};

/// The winner of [`repeat_and_select`].
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<T> {
    /// The released candidate.
    pub candidate: T,
    /// Its score (releasable only if the score is part of the run's DP output).
    pub score: f64,
    /// 1-based index of the winning run. **Not** covered by the privacy
    /// guarantee: diagnostics only.
    pub run: u64,
    /// The realised number of runs `K`. **Not** covered by the privacy
    /// guarantee: diagnostics only.
    pub runs: u64,
}

/// Private selection from private candidates with random stopping
/// (Liu & Talwar 2019, Alg. 2; Papernot & Steinke 2022, §3): draws `K` from
/// `stopping`, calls `run` `K` times and returns the run with the highest
/// score (the first one on ties; NaN scores never win against a number).
/// Returns `None` if `K = 0` (possible for [`Poisson`]); the caller must then
/// release a fixed default.
///
/// Privacy is that of the stopping law, see the module table: e.g. eps-DP
/// runs with [`Geometric`] stopping give a 3 eps-DP selection
/// ([`liu_talwar_random_stop_epsilon`]). `run` must draw its randomness (e.g.
/// a fresh random hyperparameter, as in Wang–Zhu–Wang `A_PrivTune`) from the
/// RNG it is given, and must be DP on its own.
pub fn repeat_and_select<T, R, D, F>(stopping: &D, rng: &mut R, mut run: F) -> Option<Selected<T>>
where
    R: Rng + ?Sized,
    D: Distribution<u64> + ?Sized,
    F: FnMut(&mut R) -> (f64, T),
{
    let runs = stopping.sample(rng);
    let mut best: Option<Selected<T>> = None;
    for i in 1..=runs {
        let (score, candidate) = run(rng);
        let better = match &best {
            None => true,
            Some(b) => score > b.score || (b.score.is_nan() && !score.is_nan()),
        };
        if better {
            best = Some(Selected {
                candidate,
                score,
                run: i,
                runs,
            });
        }
    }
    best
}
