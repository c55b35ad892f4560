//! Algorithm 4 of Menart et al. (noisy projected gradient descent on the
//! strongly convex prox objective, Theorem 9; digest §2.3), the subroutine of
//! Algorithm 2.
//!
//! On `F~(u) = F(u) + Lt1 ||u - v0||^2`: `u_1 = v0`, and for
//! `s = 1..T_in - 1`,
//! `u_{s+1} = Proj_{B(v0, L0/(2 Lt1))}(u_s - (g(u_s) + 2 Lt1 (u_s - v0) + xi_s)/(Lt1 s))`
//! with `g = (1/n) sum clip_L0(grad f)` and `xi_s ~ N(0, sigma^2 I)`; output
//! `(2/(T_in (T_in + 1))) sum_s s u_s` (a running sum, `O(d)` memory).
//! `T_in = ceil(n^2 rho_A log^2(2/beta_A)/d)` ([`InnerSteps::Theorem9`]) or
//! the digest's marked practical variant without the `log^2`
//! ([`InnerSteps::Practical`], E2; never the default).
//!
//! # Privacy
//! The regulariser is data-independent, so each step releases `g` with
//! sensitivity `2 L0/n` (clipping, P1). Recommended:
//! `sigma^2 = 2 L0^2 T_in/(n^2 rho_A)`, cost `rho_A/T_in` per step, `T_in - 1`
//! steps: total `< rho_A`. Paper: `sigma^2 = 4 L0^2 T_in/(n^2 rho_A)`
//! (conservative by 2, digest §2.3).

use super::super::{add_gaussian, Calibration, ZcdpLedger};
use crate::transcript::{Query, Transcript};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand::Rng;

/// The inner iteration count rule of Algorithm 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InnerSteps {
    /// `ceil(n^2 rho_A log^2(2/beta_A)/d)` (Theorem 9).
    #[default]
    Theorem9,
    /// `ceil(n^2 rho_A/d)`: the digest's practical variant (E2), marked.
    Practical,
}

/// Public inputs of one Algorithm 4 call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoisyPgdInputs {
    /// Number of records `n`.
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// Budget `rho_A` of this call.
    pub rho: f64,
    /// Failure probability `beta_A`.
    pub beta: f64,
    /// Lipschitz constant `L0`.
    pub l0: f64,
    /// Prox weight `Lt1 > 0`.
    pub prox_weight: f64,
}

impl NoisyPgdInputs {
    /// `T_in` under `rule` (at least 1).
    pub fn inner_steps(&self, rule: InnerSteps) -> f64 {
        let base = (self.n as f64).powi(2) * self.rho / self.d as f64;
        let t = match rule {
            InnerSteps::Theorem9 => base * (2.0 / self.beta).ln().powi(2),
            InnerSteps::Practical => base,
        };
        t.ceil().max(1.0)
    }

    /// The noise `sigma` for `T_in` steps under `calibration`.
    pub fn sigma(&self, t_in: f64, calibration: Calibration) -> f64 {
        let c = match calibration {
            Calibration::Recommended => 2.0,
            Calibration::PaperLiteral => 4.0,
        };
        (c * self.l0 * self.l0 * t_in / ((self.n as f64).powi(2) * self.rho)).sqrt()
    }
}

/// Scratch buffers of Algorithm 4 (reused across the calls of Algorithm 2).
pub(crate) struct PgdBuffers {
    pub u: Vec<f64>,
    pub g: Vec<f64>,
    /// The noiseless gradient of the last step, for the transcript.
    pub exact: Vec<f64>,
    pub sum: Vec<f64>,
}

impl PgdBuffers {
    pub fn new(d: usize) -> Self {
        Self {
            u: vec![0.0; d],
            g: vec![0.0; d],
            exact: vec![0.0; d],
            sum: vec![0.0; d],
        }
    }
}

/// Runs Algorithm 4 centred at `center`, writing the output into `center`;
/// returns `(steps, clipped records)`. Each release is charged to `ledger`
/// and reported to `transcript` (the clipped mean gradient at the inner
/// point; the prox term is added after the noise and is data-free).
#[allow(clippy::too_many_arguments)]
pub(crate) fn noisy_projected_gd<R: Rng + ?Sized>(
    problem: &dyn KlObjective,
    center: &mut [f64],
    inputs: &NoisyPgdInputs,
    t_in: u64,
    calibration: Calibration,
    ledger: &mut ZcdpLedger,
    buf: &mut PgdBuffers,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<(u64, u64), RunFailure> {
    let lt1 = inputs.prox_weight;
    let radius = inputs.l0 / (2.0 * lt1);
    let sigma = inputs.sigma(t_in as f64, calibration);
    let sens = 2.0 * inputs.l0 / inputs.n as f64;
    buf.u.copy_from_slice(center);
    buf.sum.copy_from_slice(center); // s = 1 term: 1 * u_1
    let mut clipped = 0u64;
    for s in 1..t_in {
        clipped += problem.clipped_mean_gradient(&buf.u, inputs.l0, &mut buf.g) as u64;
        buf.exact.copy_from_slice(&buf.g);
        add_gaussian(&mut buf.g, sigma, rng);
        transcript.gaussian(
            Query::ClippedMeanGradient { clip: inputs.l0 },
            &buf.u,
            &buf.exact,
            &buf.g,
            sigma,
        );
        ledger.charge_gaussian(sigma, sens)?;
        let eta = 1.0 / (lt1 * s as f64);
        let mut dist2 = 0.0;
        for ((u, g), c) in buf.u.iter_mut().zip(&buf.g).zip(center.iter()) {
            *u -= eta * (g + 2.0 * lt1 * (*u - c));
            dist2 += (*u - c) * (*u - c);
        }
        let dist = dist2.sqrt();
        if dist > radius {
            let scale = radius / dist;
            for (u, c) in buf.u.iter_mut().zip(center.iter()) {
                *u = c + (*u - c) * scale;
            }
        }
        let weight = (s + 1) as f64;
        buf.sum
            .iter_mut()
            .zip(&buf.u)
            .for_each(|(a, u)| *a += weight * u);
    }
    let t = t_in as f64;
    let norm = 2.0 / (t * (t + 1.0));
    center
        .iter_mut()
        .zip(&buf.sum)
        .for_each(|(c, a)| *c = norm * a);
    Ok((t_in.saturating_sub(1), clipped))
}
