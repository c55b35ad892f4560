//! Canary runs for one-run privacy audits (Steinke, Nasr & Jagielski 2023;
//! the estimator is `audit::one_run`, applied by `runner one-run`).
//!
//! A canary run takes a committed study's setting, fills `m` of its `n`
//! record slots with canaries and runs the entry's own code **once**:
//! slot `i` holds `+u_i` ("in", with probability 1/2) or `-u_i` ("out"),
//! `u_i = e_(offset + i)` distinct coordinate directions, so the two
//! choices are a replace-one pair of records at the data universe's
//! boundary (gradients or minimizer shifts differing by the full replace-one
//! sensitivity) and every canary moves its own coordinate only. The data
//! set always has exactly the study's `n` records, so every calibration
//! (computed from the public `n`) is the one the study runs, whatever the
//! inclusions. The run returns each canary's score (its coordinate of the
//! release: higher means "in") and the true inclusions; the auditor sees
//! only the scores.
//!
//! A `noise_factor` below 1 runs the same code with that fraction of the
//! calibrated noise against the same claim (the half-noise control).

use dpcore::{PrivacyParams, RunFailure};
use rand::RngExt;
use rand_pcg::Pcg64;

/// One canary run: the scores the auditor sees and what it must guess.
#[derive(Debug, Clone, PartialEq)]
pub struct CanaryRun {
    /// Score of canary `i`: its coordinate of the release (higher: "in").
    pub scores: Vec<f64>,
    /// Whether canary `i` was included (`+u_i`) or not (`-u_i`).
    pub included: Vec<bool>,
    /// The privacy the entry claims for the study's setting.
    pub claim: PrivacyParams,
    /// The noise scale the run used (after `noise_factor`).
    pub noise_scale: f64,
    /// The entry's own accountant's `eps` (at the claim's `delta`) for the
    /// noise the run used: an upper bound on what the canary pair can show.
    pub run_eps: f64,
    /// The privacy profile `(eps_j, delta_j)` the calibration certifies at
    /// the study's setting for the calibrated noise (before any
    /// `noise_factor`), sampled on [`profile_grid`]: the trade-off curve a
    /// correct run has (`audit::one_run_fdp` tests the guesses against it).
    pub certified_profile: Vec<(f64, f64)>,
    /// The expected score of an included canary minus an excluded one's
    /// (where no projection binds): the signal the noise hides.
    pub signal: f64,
    /// The entry's schedule and calibration, for the report.
    pub details: String,
}

/// `m` inclusion bits, each true with probability 1/2, drawn first from
/// the run's stream (before any noise), so they are independent of it.
pub(crate) fn draw_inclusions(m: usize, rng: &mut Pcg64) -> Vec<bool> {
    (0..m).map(|_| rng.random::<bool>()).collect()
}

/// The canary rows: `+-e_(offset + i)` in dimension `d`, row-major.
pub(crate) fn canary_rows(included: &[bool], d: usize, offset: usize) -> Vec<f64> {
    let mut rows = vec![0.0; included.len() * d];
    for (i, &inc) in included.iter().enumerate() {
        rows[i * d + offset + i] = if inc { 1.0 } else { -1.0 };
    }
    rows
}

/// The `eps` points a certified profile is sampled at: `j (eps + 1)/200`
/// for `j = 0..=600`, from 0 to three times past the claim's `eps + 1`.
/// The one-run game looks at the middle of the trade-off curve, where the
/// profile's small `eps` decide it (the Gaussian of `(1, 1e-12)` is
/// 0.15-GDP: its curve there is set by `eps` below 1); a coarser or shorter
/// grid gives a lower curve, a weaker hypothesis, never an unsound one.
pub fn profile_grid(claim_eps: f64) -> impl Iterator<Item = f64> {
    (0..=600).map(move |j| j as f64 * (claim_eps + 1.0) / 200.0)
}

/// The profile `delta(eps)` sampled on [`profile_grid`].
pub(crate) fn sampled_profile<E: std::fmt::Display>(
    claim_eps: f64,
    delta: impl Fn(f64) -> Result<f64, E>,
) -> Result<Vec<(f64, f64)>, RunFailure> {
    profile_grid(claim_eps)
        .map(|eps| {
            delta(eps)
                .map(|d| (eps, d.clamp(0.0, 1.0)))
                .map_err(|e| RunFailure::InvalidParameters(format!("certified profile: {e}")))
        })
        .collect()
}

/// Checks `1 <= m < n`, `offset + m <= d` and `0 < noise_factor <= 1`.
pub(crate) fn check_canaries(
    n: usize,
    d: usize,
    m: usize,
    offset: usize,
    noise_factor: f64,
) -> Result<(), RunFailure> {
    let bad = |msg: String| Err(RunFailure::InvalidParameters(msg));
    if m == 0 || m >= n {
        return bad(format!("need 1 <= canaries < n, got {m} canaries, n = {n}"));
    }
    if offset + m > d {
        return bad(format!(
            "{m} canaries need {} distinct coordinates, d = {d}",
            offset + m
        ));
    }
    if !(noise_factor > 0.0 && noise_factor <= 1.0) {
        return bad(format!(
            "noise_factor must lie in (0, 1], got {noise_factor}"
        ));
    }
    Ok(())
}
