//! `A_JLGD` (Algorithm 1, Section 5.1, Lemma 6.3; digest §2.2, P3): project
//! with a data-independent JL map, clip to `B^k(2b)`, run NGD on the hinge
//! `l_c`, return `Phi^T w~`.
//!
//! # Privacy
//! `Phi` is drawn independently of the data, so it costs nothing. Rows are
//! first clipped to `||x|| <= b` and their projections to `||Phi x|| <= 2b`
//! **for every `Phi`** (P3), so the summed hinge gradient has replace-one
//! sensitivity `Delta = 2 (2b)/c = 12 b/gamma` at `c = gamma/3`, and NGD
//! ([`super::ngd`]) is `mu`-GDP by its accountant. The back-projection and
//! the score are post-processing. Clipping rescales each row by a positive
//! factor, so the 0-1 error of `Phi^T w~` on `S` equals that of `w~` on the
//! clipped `Phi S` (digest §2.2), which is what [`JlgdRun::projected_error`]
//! computes in `O(n k)`.
//!
//! The same routine with `Phi = I` and clip radius `b` or `2b` is the
//! full-dimension DP-GD baseline B1 ([`projected_ngd`]).

use super::jl::JlMap;
use super::ngd::{run_ngd_observed, IterateChoice, IterationMode, NgdPlan};
use crate::transcript::{Transcript, Unobserved};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::RunFailure;
use rand::Rng;
use std::borrow::Cow;

/// Options of [`jlgd`] and [`projected_ngd`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JlgdOptions {
    /// Iteration count rule.
    pub mode: IterationMode,
    /// Released iterate.
    pub iterate: IterateChoice,
    /// Data-norm bound `b` (1 in the main text); rows are clipped to it.
    pub data_bound: f64,
}

impl JlgdOptions {
    /// Algorithm 1's clip radius for projected rows, `2b` (digest P3): the
    /// radius every `Phi` keeps a clipped row's projection within.
    pub fn jl_clip_radius(&self) -> f64 {
        2.0 * self.data_bound
    }
}

impl Default for JlgdOptions {
    fn default() -> Self {
        Self {
            mode: IterationMode::Paper,
            iterate: IterateChoice::Averaged,
            data_bound: 1.0,
        }
    }
}

/// One JLGD (or projected NGD) release.
#[derive(Debug, Clone, PartialEq)]
pub struct JlgdRun {
    /// The predictor `Phi^T w~` in `R^d`.
    pub w: Vec<f64>,
    /// NGD's output `w~` in `R^k`.
    pub w_projected: Vec<f64>,
    /// Whether the identity fallback was used.
    pub identity: bool,
    /// The NGD plan (its `k`, `T`, `sigma`, `eta`, `Delta`).
    pub plan: NgdPlan,
    /// GDP actually spent ([`NgdPlan::realised_mu`]).
    pub mu_spent: f64,
    /// Record-gradient evaluations `T n`.
    pub gradient_evaluations: u64,
    /// 0-1 error (ties are errors) of `w~` on the clipped `Phi S`, equal to
    /// that of `w` on `S`: the selection score of Algorithm 3.
    pub projected_error: f64,
}

/// Algorithm 1: `projected_ngd` with clip radius `2b` after the JL map.
pub fn jlgd<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    map: &JlMap,
    hinge: f64,
    mu: f64,
    opts: JlgdOptions,
    rng: &mut R,
) -> Result<JlgdRun, RunFailure> {
    projected_ngd(problem, map, hinge, opts.jl_clip_radius(), mu, opts, rng)
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn clip_factor(norm: f64, radius: f64) -> f64 {
    if norm > radius {
        radius / norm
    } else {
        1.0
    }
}

/// Clipped projected rows (`n x k`, borrowed for the identity map) and their
/// per-row factors, as [`clipped_projection`] returns them.
pub type ClippedProjection<'a> = (Cow<'a, [f64]>, Vec<f64>);

/// The data NGD sees (digest P3): rows of the `n x d` matrix `features`
/// clipped to norm `b`, projected by `map` (borrowed for the identity), and
/// the per-row factors `scale[i]` such that `scale[i] z_i` is the clipped
/// projection, `||scale[i] z_i|| <= clip_radius` for **every** `Phi`.
pub fn clipped_projection<'a>(
    features: &'a [f64],
    d: usize,
    map: &JlMap,
    b: f64,
    clip_radius: f64,
) -> ClippedProjection<'a> {
    let k = map.output_dim();
    let raw: Vec<f64> = features
        .chunks_exact(d)
        .map(|r| clip_factor(norm(r), b))
        .collect();
    let z: Cow<'_, [f64]> = if map.is_identity() {
        Cow::Borrowed(features)
    } else {
        Cow::Owned(map.project_rows(features))
    };
    let scale = z
        .chunks_exact(k)
        .zip(&raw)
        .map(|(row, &a)| a * clip_factor(a * norm(row), clip_radius))
        .collect();
    (z, scale)
}

/// Clip rows to `b`, project with `map`, clip projections to `clip_radius`,
/// run NGD with `Delta = 2 clip_radius / hinge` at GDP budget `mu`, and
/// back-project (module docs).
///
/// # Errors
/// `InvalidParameters` for a map of the wrong input dimension or invalid
/// NGD parameters; `NonFinite` for a non-finite output.
pub fn projected_ngd<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    map: &JlMap,
    hinge: f64,
    clip_radius: f64,
    mu: f64,
    opts: JlgdOptions,
    rng: &mut R,
) -> Result<JlgdRun, RunFailure> {
    projected_ngd_observed(
        problem,
        map,
        hinge,
        clip_radius,
        mu,
        opts,
        &mut Unobserved,
        rng,
    )
}

/// [`projected_ngd`], handing `transcript` the clipped projected rows, every
/// NGD step's noisy gradient ([`run_ngd_observed`]) and then NGD's output
/// `w~` (in `R^k`, where the run's score is computed). Same random stream
/// and release.
///
/// # Errors
/// As [`projected_ngd`].
#[allow(clippy::too_many_arguments)]
pub fn projected_ngd_observed<R: Rng + ?Sized>(
    problem: &dyn HalfspaceProblem,
    map: &JlMap,
    hinge: f64,
    clip_radius: f64,
    mu: f64,
    opts: JlgdOptions,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<JlgdRun, RunFailure> {
    let d = problem.dim();
    if map.input_dim() != d {
        return Err(RunFailure::InvalidParameters(format!(
            "JL map for d = {} used on d = {d}",
            map.input_dim()
        )));
    }
    let (z, scale) = clipped_projection(problem.features(), d, map, opts.data_bound, clip_radius);
    ngd_on_projection(
        problem.labels(),
        map,
        (&z, &scale),
        hinge,
        clip_radius,
        mu,
        opts,
        transcript,
        rng,
    )
}

/// [`projected_ngd_observed`] after its data step: NGD on rows already
/// clipped and projected by `map` (`projection` is what
/// [`clipped_projection`] returns for `map`, `opts.data_bound` and
/// `clip_radius`), then the score and the back-projection. The projection
/// uses no randomness and only public parameters, so a caller that runs the
/// same map many times (`M'`, whose runs redraw a grid point `E K = |Gamma|
/// (n^2 - 1)` times) computes it once per map: the same rows, the same
/// random stream, the same release.
///
/// # Errors
/// As [`projected_ngd`].
#[allow(clippy::too_many_arguments)]
pub fn ngd_on_projection<R: Rng + ?Sized>(
    labels: &[f64],
    map: &JlMap,
    projection: (&[f64], &[f64]),
    hinge: f64,
    clip_radius: f64,
    mu: f64,
    opts: JlgdOptions,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<JlgdRun, RunFailure> {
    let (z, scale) = projection;
    let (n, d) = (labels.len(), map.input_dim());
    let k = map.output_dim();
    if z.len() != n * k || scale.len() != n {
        return Err(RunFailure::InvalidParameters(format!(
            "a projection of {} numbers and {} scales for n = {n} rows of k = {k}",
            z.len(),
            scale.len()
        )));
    }
    let plan = NgdPlan::new(n, k, hinge, clip_radius, mu, opts.mode, opts.iterate)?;
    let w_projected = run_ngd_observed(z, labels, scale, &plan, transcript, rng);
    if transcript.observes() {
        transcript.output(&w_projected);
    }
    let errors = z
        .chunks_exact(k)
        .zip(labels)
        .zip(scale)
        .filter(|((row, &y), &s)| {
            y * s
                * row
                    .iter()
                    .zip(&w_projected)
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
                <= 0.0
        })
        .count();
    let mut w = vec![0.0; d];
    map.transpose(&w_projected, &mut w);
    if w.iter().any(|v| !v.is_finite()) {
        return Err(RunFailure::NonFinite("JLGD output is not finite".into()));
    }
    Ok(JlgdRun {
        w,
        w_projected,
        identity: map.is_identity(),
        mu_spent: plan.realised_mu(),
        gradient_evaluations: plan.steps * n as u64,
        projected_error: errors as f64 / n as f64,
        plan,
    })
}
