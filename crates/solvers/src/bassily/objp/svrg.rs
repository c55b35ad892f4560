//! SVRG with a deterministic stopping certificate, the optimizer of
//! `A_ObjP-App` (Bassily et al. Theorem 5.8 as cleaned in digest §2.4; P12,
//! P16), run on the perturbed objective `J` of [`super::certificate`].
//!
//! # Algorithm (digest §2.4)
//! `y(1) = 0`, `k = ceil(20 beta_f/mu_f)` with `beta_f = beta + 2 lambda`,
//! `mu_f = 2 lambda`, step `1/(10 beta_f)`; each epoch computes
//! `gbar = grad J(y(t))` (`n` gradient evaluations), runs `k` projected steps
//! `w_{s+1} = Proj_W(w_s - step (grad f_i(w_s) - grad f_i(y(t)) + gbar))`
//! from `w_1 = y(t)` with `i` uniform (2 evaluations each) and sets `y(t+1)`
//! to the average of `w_1..w_k`. The full gradient of `J` is evaluated
//! through [`dpcore::Objective::gradient`], which must be the mean of the
//! record gradients.
//!
//! # Stopping (P12)
//! At every snapshot the certificate `C(y) >= J(y) - J*`
//! ([`super::certificate::strong_convexity_certificate`]) is computed from
//! the full gradient SVRG needs anyway; the run stops at the first snapshot
//! with `C(y) <= alpha` and returns it. It fails with `NonConvergence` once
//! the epoch cap, a multiple of the Theorem 5.8 count
//! `tau = ceil(ln(Delta_0/alpha)/ln(10/9))` with
//! `Delta_0 = 2 M (L + ||b|| + 2 lambda M)` (`J` is that Lipschitz on `W`,
//! whose diameter is `2M`), is exhausted: an uncertified point is never
//! released.

use super::certificate::PerturbedObjective;
use crate::inner::regularized::{norm, project_ball};
use dpcore::RunFailure;
use rand::{Rng, RngExt};

/// Largest admissible `epoch_cap (n + 2k) d` (floating-point updates): a
/// guard against a schedule that could run for days, on the epoch cap's
/// worst case, not on the work a run does (the certificate fires long
/// before the cap). Raised from 1e11 on 2026-11-30: 1e11 refused every
/// `bftt_e1_objp_app_d` cell at n = 2e4 from d = 5 793 on (cap work 1.3e11
/// and 1.8e11), whose runs take about 0.9 s each (28 cells at d = 5 793
/// and 8 192 in 25 core-seconds), and so left Thm 5.7's d-window
/// [2048, 8192] with 2 points.
pub const MAX_WORK: f64 = 1e12;

/// Configuration of the certified SVRG.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Svrg {
    /// Epoch cap as a multiple of the Theorem 5.8 count `tau` (default 5;
    /// the certificate needs about `2 ln(beta_f/mu_f)/ln(10/9)` epochs more
    /// than `tau`, and SVRG contracts faster than `0.9` per epoch).
    pub epoch_cap_factor: f64,
}

impl Default for Svrg {
    fn default() -> Self {
        Self {
            epoch_cap_factor: 5.0,
        }
    }
}

/// The SVRG schedule of Theorem 5.8 for one objective and accuracy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvrgSchedule {
    /// `beta_f = beta + 2 lambda`.
    pub beta_f: f64,
    /// `mu_f = 2 lambda`.
    pub mu_f: f64,
    /// Inner steps per epoch `k = ceil(20 beta_f/mu_f)`.
    pub inner_steps: u64,
    /// Step size `1/(10 beta_f)`.
    pub step: f64,
    /// `Delta_0 = 2 M (L + ||b|| + 2 lambda M) >= J(y(1)) - J*`.
    pub initial_gap_bound: f64,
    /// Theorem 5.8 count `tau = ceil(ln(Delta_0/alpha)/ln(10/9))` (0 if
    /// `Delta_0 <= alpha`).
    pub theory_epochs: u64,
    /// Epochs allowed: `max(1, ceil(epoch_cap_factor max(tau, 1)))`.
    pub epoch_cap: u64,
}

impl Svrg {
    /// The schedule for `objective` with loss smoothness `beta`, Lipschitz
    /// constant `lipschitz` and accuracy `alpha > 0`.
    ///
    /// Errors: `InvalidParameters` for `alpha <= 0` or non-finite, non-finite
    /// or negative `beta`, a cap factor `<= 0`, or work above [`MAX_WORK`].
    pub fn schedule(
        &self,
        objective: &PerturbedObjective<'_>,
        beta: f64,
        lipschitz: f64,
        alpha: f64,
    ) -> Result<SvrgSchedule, RunFailure> {
        let bad = |m: String| Err(RunFailure::InvalidParameters(m));
        if !(alpha.is_finite() && alpha > 0.0) {
            return bad(format!(
                "SVRG needs a finite accuracy alpha > 0, got {alpha}"
            ));
        }
        if !(beta.is_finite() && beta >= 0.0 && self.epoch_cap_factor > 0.0) {
            return bad(format!(
                "SVRG needs finite beta >= 0 and a cap factor > 0 ({self:?})"
            ));
        }
        let (lambda, m) = (objective.lambda, objective.radius);
        let (beta_f, mu_f) = (beta + 2.0 * lambda, 2.0 * lambda);
        let inner_steps = (20.0 * beta_f / mu_f).ceil() as u64;
        let delta0 = 2.0 * m * (lipschitz + norm(&objective.b) + 2.0 * lambda * m);
        let tau = ((delta0 / alpha).ln() / (10.0f64 / 9.0).ln())
            .ceil()
            .max(0.0) as u64;
        let epoch_cap = (self.epoch_cap_factor * tau.max(1) as f64).ceil().max(1.0) as u64;
        let (n, d) = (
            objective.problem.num_records() as f64,
            objective.problem.dim() as f64,
        );
        let work = epoch_cap as f64 * (n + 2.0 * inner_steps as f64) * d;
        if work > MAX_WORK {
            return bad(format!("SVRG work {work:e} exceeds {MAX_WORK:e}"));
        }
        Ok(SvrgSchedule {
            beta_f,
            mu_f,
            inner_steps,
            step: 1.0 / (10.0 * beta_f),
            initial_gap_bound: delta0,
            theory_epochs: tau,
            epoch_cap,
        })
    }
}

/// The output of [`certified_svrg`].
#[derive(Debug, Clone, PartialEq)]
pub struct SvrgOutcome {
    /// The certified point `w2` (a snapshot, in `W`).
    pub w: Vec<f64>,
    /// `C(w2) <= alpha`, a proven bound on `J(w2) - J*`.
    pub certificate: f64,
    /// Epochs run.
    pub epochs: u64,
    /// Gradient evaluations: `n` per full gradient (one per snapshot, the
    /// final one included) and `2` per inner step.
    pub gradient_evaluations: u64,
}

/// Working vectors of one SVRG epoch.
struct EpochBuffers {
    gw: Vec<f64>,
    gy: Vec<f64>,
    w: Vec<f64>,
    sum: Vec<f64>,
}

impl EpochBuffers {
    fn new(d: usize) -> Self {
        Self {
            gw: vec![0.0; d],
            gy: vec![0.0; d],
            w: vec![0.0; d],
            sum: vec![0.0; d],
        }
    }
}

/// One epoch from the snapshot `y` with its full gradient `gbar`: `k`
/// projected variance-reduced steps from `w_1 = y`, then `y <- (1/k) sum_s w_s`
/// (module doc).
fn epoch<R: Rng + ?Sized>(
    objective: &PerturbedObjective<'_>,
    schedule: &SvrgSchedule,
    y: &mut [f64],
    gbar: &[f64],
    buf: &mut EpochBuffers,
    rng: &mut R,
) {
    let n = objective.problem.num_records();
    let two_lambda = 2.0 * objective.lambda;
    let EpochBuffers { gw, gy, w, sum } = buf;
    w.copy_from_slice(y);
    sum.iter_mut().for_each(|s| *s = 0.0);
    for _ in 0..schedule.inner_steps {
        sum.iter_mut().zip(w.iter()).for_each(|(s, wj)| *s += wj);
        let i = rng.random_range(0..n);
        objective.records.record_gradient(i, w, gw);
        objective.records.record_gradient(i, y, gy);
        let terms = gw.iter().zip(gy.iter()).zip(y.iter().zip(gbar));
        for (wj, ((gwj, gyj), (yj, gbj))) in w.iter_mut().zip(terms) {
            let direction = gwj - gyj + two_lambda * (*wj - yj) + gbj;
            *wj -= schedule.step * direction;
        }
        project_ball(w, objective.radius);
    }
    let k = schedule.inner_steps as f64;
    y.iter_mut().zip(sum.iter()).for_each(|(yj, s)| *yj = s / k);
    project_ball(y, objective.radius);
}

/// Runs SVRG on `objective` until the certificate is `<= alpha` (module doc).
///
/// Errors: `NonConvergence` when the epoch cap is reached uncertified;
/// `NonFinite` for a non-finite snapshot or certificate.
pub fn certified_svrg<R: Rng + ?Sized>(
    objective: &PerturbedObjective<'_>,
    schedule: &SvrgSchedule,
    alpha: f64,
    rng: &mut R,
) -> Result<SvrgOutcome, RunFailure> {
    let (n, d) = (objective.problem.num_records(), objective.problem.dim());
    let mut y = vec![0.0; d];
    let mut gbar = vec![0.0; d];
    let mut buf = EpochBuffers::new(d);
    let (mut evaluations, mut epochs) = (0u64, 0u64);
    loop {
        objective.gradient(&y, &mut gbar);
        evaluations += n as u64;
        let certificate = objective.certificate(&y, &gbar);
        if !certificate.is_finite() || y.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite("SVRG snapshot or certificate".into()));
        }
        if certificate <= alpha {
            return Ok(SvrgOutcome {
                w: y,
                certificate,
                epochs,
                gradient_evaluations: evaluations,
            });
        }
        if epochs >= schedule.epoch_cap {
            return Err(RunFailure::NonConvergence(format!(
                "SVRG certificate {certificate:e} > alpha = {alpha:e} after {epochs} epochs \
                 (cap {}, Thm 5.8 count {})",
                schedule.epoch_cap, schedule.theory_epochs
            )));
        }
        epoch(objective, schedule, &mut y, &gbar, &mut buf, rng);
        evaluations += 2 * schedule.inner_steps;
        epochs += 1;
    }
}

/// The snapshots `y(1) = 0, y(2), ..., y(epochs + 1)` of exactly `epochs`
/// SVRG epochs on `objective`, with no stopping rule: what Theorem 5.8's
/// `E J(y(t+1)) - J* <= 0.9^t (J(y(1)) - J*)` speaks about, epoch by epoch.
/// The steps are [`certified_svrg`]'s (same epoch, same draws).
///
/// Errors: `NonFinite` for a non-finite snapshot.
pub fn svrg_snapshots<R: Rng + ?Sized>(
    objective: &PerturbedObjective<'_>,
    schedule: &SvrgSchedule,
    epochs: u64,
    rng: &mut R,
) -> Result<Vec<Vec<f64>>, RunFailure> {
    let d = objective.problem.dim();
    let mut y = vec![0.0; d];
    let mut gbar = vec![0.0; d];
    let mut buf = EpochBuffers::new(d);
    let mut snapshots = vec![y.clone()];
    for _ in 0..epochs {
        objective.gradient(&y, &mut gbar);
        epoch(objective, schedule, &mut y, &gbar, &mut buf, rng);
        if y.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite("SVRG snapshot".into()));
        }
        snapshots.push(y.clone());
    }
    Ok(snapshots)
}
