//! Building blocks shared by the DP-SGD-type algorithms (the \[BST14\]-style
//! baseline of `baselines::noisy_sgd` and Bassily et al.'s `A_NSGD` family in
//! `bassily::sgd`): Poisson batch sampling and the RDP-accountant calibration
//! of the Poisson-subsampled Gaussian mechanism under a declared
//! neighbouring relation.
//!
//! # Batch sampling
//! Under Poisson sampling `|B| ~ Binomial(n, q)` and, given `|B| = k`, every
//! `k`-subset has probability `q^k (1-q)^{n-k}`, which depends on `k` only, so
//! `B` is a uniform `k`-subset. Drawing `k` by CDF inversion (`O(k)` expected)
//! and then `k` distinct uniform indices (Floyd's algorithm) is therefore
//! exactly Poisson sampling. Per-record Bernoulli draws are used instead
//! when `n q > 30` or `q > 1/2`.
//!
//! # Privacy accounting
//! Noise `N(0, (z C)^2 I)` is added to a sum of per-record vectors clipped to
//! norm `C`; `z` is the add/remove noise multiplier (the sum has add/remove
//! sensitivity `C`). The accountant (`mechanisms::rdp`, Mironov–Talwar–Zhang
//! 2019) analyses Poisson subsampling under add/remove only.
//! - **Add/remove**: `T` adaptive steps are `(eps_acc(delta), delta)`-DP
//!   directly.
//! - **Replace-one**: a replace-one neighbour is an add/remove neighbour of an
//!   add/remove neighbour (remove `x_i`, add `x'_i`), so group privacy turns
//!   `(eps', delta')` add/remove into `(2 eps', (1 + e^{eps'}) delta')`
//!   replace-one. Calibration ([`calibrate_poisson_gaussian`]) targets
//!   `eps' = eps/2` at `delta' = delta/(1 + e^{eps/2})` and reports
//!   `2 eps'_acc <= eps`; since `eps'_acc <= eps/2` the realised delta is
//!   `<= delta` as well. Accounting a given `z`
//!   ([`poisson_gaussian_realised_eps`]) looks for an `e` with
//!   `eps'_acc(delta/(1 + e^e)) <= e` and reports `2 eps'_acc` at that
//!   `delta'`: then `(1 + e^{eps'_acc}) delta' <= delta`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use dpcore::RunFailure;
use mechanisms::rdp::{calibrate_noise_multiplier, RdpAccountant, RdpError};
use mechanisms::Neighbouring;
use rand::{Rng, RngExt};

/// Fills `out` with a Poisson(`q`) subsample of `0..n` (module doc).
pub fn poisson_batch<R: Rng + ?Sized>(n: usize, q: f64, rng: &mut R, out: &mut Vec<usize>) {
    out.clear();
    if n as f64 * q > 30.0 || q > 0.5 {
        out.extend((0..n).filter(|_| rng.random::<f64>() < q));
        return;
    }
    // Binomial(n, q) by CDF inversion: p_{k+1} = p_k (n - k)/(k + 1) q/(1 - q).
    let u: f64 = rng.random();
    let ratio = q / (1.0 - q);
    let mut p = (n as f64 * (-q).ln_1p()).exp();
    let (mut k, mut cdf) = (0usize, p);
    while u > cdf && k < n {
        p *= (n - k) as f64 / (k + 1) as f64 * ratio;
        k += 1;
        cdf += p;
    }
    // Floyd's algorithm: k distinct uniform indices of 0..n.
    for j in n - k..n {
        let t = rng.random_range(0..=j);
        out.push(if out.contains(&t) { j } else { t });
    }
}

/// Fills `out` with a Poisson(`q`) subsample of `0..n` in increasing order,
/// in `O(n q)` expected time whatever the batch size: the gaps between
/// selected indices are i.i.d. Geometric(`q`) (number of failures before a
/// success of independent Bernoulli(`q`) trials), drawn by inversion as
/// `floor(ln U / ln(1 - q))` with `U` uniform on `(0, 1]`. This is exactly the
/// law of independent per-record inclusion with probability `q` (up to
/// floating-point rounding of the inversion), so the Poisson-subsampling
/// accountant applies. Used by Bassily et al.'s `A_NSGD`, whose batches hold
/// hundreds of records; [`poisson_batch`] keeps the noisy-SGD baseline's
/// random stream unchanged.
pub fn poisson_batch_skipping<R: Rng + ?Sized>(
    n: usize,
    q: f64,
    rng: &mut R,
    out: &mut Vec<usize>,
) {
    out.clear();
    if q <= 0.0 {
        return;
    }
    if q >= 1.0 {
        out.extend(0..n);
        return;
    }
    let log_miss = (-q).ln_1p();
    let mut next = 0.0_f64;
    loop {
        let u = 1.0 - rng.random::<f64>();
        next += (u.ln() / log_miss).floor();
        if next >= n as f64 {
            return;
        }
        out.push(next as usize);
        next += 1.0;
    }
}

/// An add/remove noise multiplier and the `eps` it realises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibratedMultiplier {
    /// Add/remove noise multiplier `z` (noise std `z C` on the clipped sum).
    pub noise_multiplier: f64,
    /// Realised `eps` at the target `delta` under the declared relation
    /// (module doc).
    pub realised_eps: f64,
}

fn accountant_error(e: RdpError) -> RunFailure {
    RunFailure::InvalidParameters(format!("RDP accountant: {e}"))
}

/// Add/remove `eps` at `delta` of `steps` Poisson(`q`)-subsampled Gaussian
/// steps with add/remove multiplier `z`.
fn add_remove_eps(z: f64, q: f64, steps: u64, delta: f64) -> Result<f64, RunFailure> {
    RdpAccountant::new(Neighbouring::AddRemove)
        .compose_poisson_gaussian(q, z, steps)
        .map_err(accountant_error)?
        .epsilon(delta)
        .map_err(accountant_error)
}

/// Smallest add/remove multiplier `z` (accountant bisection) such that
/// `steps` Poisson(`q`)-subsampled Gaussian steps are `(eps, delta)`-DP
/// under `relation` (module doc), and the realised `eps`.
///
/// Errors: `InvalidParameters` for an accountant failure or a realised
/// `eps` above the target (privacy never rests on the bisection alone).
///
/// The result is a pure function of these public inputs, so it is computed
/// once per process and then read from a memo keyed by their bits: every
/// repetition and every value of a data-only axis (a worst case over
/// `r_factor`) asks for the same calibration, and each took about 15 ms of
/// RDP orders (48% of table 1's `bftt_nsgd_*` cells, 2026-11-28 profile).
pub fn calibrate_poisson_gaussian(
    eps: f64,
    delta: f64,
    q: f64,
    steps: u64,
    relation: Neighbouring,
) -> Result<CalibratedMultiplier, RunFailure> {
    type Key = (u64, u64, u64, u64, Neighbouring);
    static MEMO: OnceLock<Mutex<HashMap<Key, CalibratedMultiplier>>> = OnceLock::new();
    /// Entries kept before the memo is emptied (a bound on its memory,
    /// about 5 MB; a sweep needs one entry per privacy and schedule).
    const MEMO_CAPACITY: usize = 65_536;
    let key = (eps.to_bits(), delta.to_bits(), q.to_bits(), steps, relation);
    let memo = MEMO.get_or_init(Default::default);
    if let Some(&found) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(found);
    }
    let calibrated = calibrate_poisson_gaussian_uncached(eps, delta, q, steps, relation)?;
    let mut table = memo.lock().unwrap_or_else(|e| e.into_inner());
    if table.len() >= MEMO_CAPACITY {
        table.clear();
    }
    table.insert(key, calibrated);
    Ok(calibrated)
}

/// [`calibrate_poisson_gaussian`] without the memo.
fn calibrate_poisson_gaussian_uncached(
    eps: f64,
    delta: f64,
    q: f64,
    steps: u64,
    relation: Neighbouring,
) -> Result<CalibratedMultiplier, RunFailure> {
    let (target, delta_ar, factor) = match relation {
        Neighbouring::AddRemove => (eps, delta, 1.0),
        Neighbouring::ReplaceOne => {
            let half = 0.5 * eps;
            (half, delta / (1.0 + half.exp()), 2.0)
        }
    };
    let z = calibrate_noise_multiplier(target, delta_ar, q, steps, Neighbouring::AddRemove)
        .map_err(accountant_error)?;
    let realised_eps = factor * add_remove_eps(z, q, steps, delta_ar)?;
    if realised_eps.is_nan() || realised_eps > eps * (1.0 + 1e-12) {
        return Err(RunFailure::InvalidParameters(format!(
            "accountant's realised eps {realised_eps} exceeds the target {eps}"
        )));
    }
    Ok(CalibratedMultiplier {
        noise_multiplier: z,
        realised_eps,
    })
}

/// The `eps` at `delta` that `steps` Poisson(`q`)-subsampled Gaussian steps
/// with add/remove multiplier `z` realise under `relation` (module doc; for
/// replace-one the group-privacy fixed point).
///
/// Errors: `InvalidParameters` for an accountant failure.
pub fn poisson_gaussian_realised_eps(
    z: f64,
    q: f64,
    steps: u64,
    delta: f64,
    relation: Neighbouring,
) -> Result<f64, RunFailure> {
    match relation {
        Neighbouring::AddRemove => add_remove_eps(z, q, steps, delta),
        Neighbouring::ReplaceOne => {
            // eps'_acc(delta / (1 + e^e)) grows far slower than e, so the
            // iteration e <- 1.001 eps'_acc(...) reaches a certificate
            // eps'_acc <= e within a few rounds.
            let mut e = add_remove_eps(z, q, steps, 0.5 * delta)?;
            for _ in 0..100 {
                let delta_ar = delta / (1.0 + e.exp());
                let eps_ar = add_remove_eps(z, q, steps, delta_ar)?;
                if eps_ar <= e {
                    return Ok(2.0 * eps_ar);
                }
                e = 1.001 * eps_ar + 1e-12;
            }
            Err(RunFailure::InvalidParameters(format!(
                "replace-one accounting did not settle for z = {z}, q = {q}, T = {steps}"
            )))
        }
    }
}

#[cfg(test)]
mod memo_tests {
    use super::*;

    #[test]
    fn the_memo_returns_the_uncached_calibration_bit_for_bit() {
        // Table 1's private-regime NSGD point and a replace-one variant:
        // first call (computes), second call (reads the memo), uncached.
        for relation in [Neighbouring::AddRemove, Neighbouring::ReplaceOne] {
            let direct =
                calibrate_poisson_gaussian_uncached(0.01, 1e-12, 0.003, 400, relation).unwrap();
            for _ in 0..2 {
                let memo = calibrate_poisson_gaussian(0.01, 1e-12, 0.003, 400, relation).unwrap();
                assert_eq!(
                    memo.noise_multiplier.to_bits(),
                    direct.noise_multiplier.to_bits()
                );
                assert_eq!(memo.realised_eps.to_bits(), direct.realised_eps.to_bits());
            }
        }
    }
}
