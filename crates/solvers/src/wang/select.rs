//! `A_Iter`, brute-force private selection (Algorithm 2; digest §2.3):
//! Gaussian report-noisy-min accounted by plain GDP composition.
//!
//! Each of the `|Theta|` base runs gets GDP budget `mu/sqrt(2|Theta|)`, and
//! each score `U` (replace-one sensitivity `Delta_U`) gets fresh noise of std
//! `sqrt(2|Theta|) Delta_U/mu`, i.e. is also `mu/sqrt(2|Theta|)`-GDP. The
//! `2|Theta|` mechanisms compose to `mu`-GDP (Dong–Roth–Su Cor 3.3); the
//! noisy scores may all be released. The reported spent budget composes the
//! base runs' **realised** GDP parameters with the score mechanisms'.

use crate::transcript::{Query, Transcript, Unobserved};
use dpcore::RunFailure;
use mechanisms::gdp::{compose_mu, gaussian_mu};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// What one base run returns to [`a_iter`].
#[derive(Debug, Clone, PartialEq)]
pub struct BaseRun<T> {
    /// The score `U(m; S)` (lower is better), of sensitivity `Delta_U`.
    pub score: f64,
    /// The GDP the run actually spent.
    pub mu_spent: f64,
    /// The candidate.
    pub output: T,
}

/// The outcome of [`a_iter`].
#[derive(Debug, Clone, PartialEq)]
pub struct IterOutcome<T> {
    /// Index of the selected candidate.
    pub selected: usize,
    /// Its output.
    pub winner: T,
    /// Noisy scores of every candidate (releasable).
    pub noisy_scores: Vec<f64>,
    /// Exact scores (**not** private: diagnostics only).
    pub scores: Vec<f64>,
    /// Std of the score noise, `sqrt(2|Theta|) Delta_U/mu`.
    pub score_sigma: f64,
    /// Per-mechanism budget `mu/sqrt(2|Theta|)`.
    pub mu_per_call: f64,
    /// Composed realised GDP of all `2|Theta|` mechanisms.
    pub mu_spent: f64,
}

/// Runs `base(index, mu_per_call, rng)` for every candidate `0..count`,
/// adds the score noise, and returns the noisy argmin (first on ties). Only
/// the current best output is kept in memory.
///
/// # Errors
/// `InvalidParameters` for `count == 0`, non-positive `mu` or `Delta_U`, or
/// a non-finite score; any error of `base`.
pub fn a_iter<T, R, F>(
    count: usize,
    mu: f64,
    score_sensitivity: f64,
    rng: &mut R,
    mut base: F,
) -> Result<IterOutcome<T>, RunFailure>
where
    R: Rng + ?Sized,
    F: FnMut(usize, f64, &mut R) -> Result<BaseRun<T>, RunFailure>,
{
    a_iter_observed(
        count,
        mu,
        score_sensitivity,
        &mut Unobserved,
        rng,
        |i, mu_p, rng, _| base(i, mu_p, rng),
    )
}

/// [`a_iter`], handing `transcript` to each base run (which reports its own
/// releases to it) and then each noisy score as a [`Query::ZeroOneScore`].
/// Same random stream and outcome.
///
/// # Errors
/// As [`a_iter`].
pub fn a_iter_observed<T, R, F>(
    count: usize,
    mu: f64,
    score_sensitivity: f64,
    transcript: &mut dyn Transcript,
    rng: &mut R,
    mut base: F,
) -> Result<IterOutcome<T>, RunFailure>
where
    R: Rng + ?Sized,
    F: FnMut(usize, f64, &mut R, &mut dyn Transcript) -> Result<BaseRun<T>, RunFailure>,
{
    let pos = |v: f64| v.is_finite() && v > 0.0;
    if count == 0 || !pos(mu) || !pos(score_sensitivity) {
        return Err(RunFailure::InvalidParameters(format!(
            "A_Iter needs candidates, mu > 0 and Delta_U > 0; got {count}, {mu}, {score_sensitivity}"
        )));
    }
    let slots = (2 * count) as f64;
    let mu_per_call = mu / slots.sqrt();
    let score_sigma = slots.sqrt() * score_sensitivity / mu;
    let score_mu = gaussian_mu(score_sigma, score_sensitivity)
        .map_err(|e| RunFailure::InvalidParameters(e.to_string()))?;
    let mut mus = Vec::with_capacity(2 * count);
    let (mut noisy_scores, mut scores) = (Vec::with_capacity(count), Vec::with_capacity(count));
    let mut best: Option<(usize, f64, T)> = None;
    for i in 0..count {
        let run = base(i, mu_per_call, rng, &mut *transcript)?;
        if !run.score.is_finite() {
            return Err(RunFailure::NonFinite(format!("score of candidate {i}")));
        }
        let g: f64 = StandardNormal.sample(rng);
        let noisy = run.score + score_sigma * g;
        if transcript.observes() {
            transcript.gaussian(
                Query::ZeroOneScore,
                &[],
                &[run.score],
                &[noisy],
                score_sigma,
            );
        }
        mus.push(run.mu_spent);
        mus.push(score_mu);
        scores.push(run.score);
        noisy_scores.push(noisy);
        if best.as_ref().is_none_or(|b| noisy < b.1) {
            best = Some((i, noisy, run.output));
        }
    }
    let (selected, _, winner) = best.expect("count >= 1");
    let mu_spent = compose_mu(&mus).map_err(|e| RunFailure::InvalidParameters(e.to_string()))?;
    Ok(IterOutcome {
        selected,
        winner,
        noisy_scores,
        scores,
        score_sigma,
        mu_per_call,
        mu_spent,
    })
}
