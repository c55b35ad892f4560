//! Algorithm 3: private SMD with bias-reduced sampling from vertices
//! (digest §3.3, Thm 4.3, Prop E.1), for second-order-smooth games.
//!
//! Step `t` draws `N_t ~ TG(1/2, M)`, takes a fresh batch of
//! `b_t = max(1, ceil(2^{N_t} / alpha))` records, evaluates
//! [`super::bias_reduced::bias_reduced_gradient`] on it (as
//! [`super::bias_reduced::bias_reduced_batch_gradient`]), and takes MW steps
//! (descent in `x`, ascent in `y`); one output vertex per player and step,
//! plus one per player from the final iterate (pitfall 15).
//! Steps run while `sum_{i < t} 2^{N_i} <= U - 2^M`; the `N_t` are data
//! independent, so they are drawn up front (pitfall 22: the data budget is
//! checked before running, and `sum_t b_t <= n` holds since `U <= n alpha/2`
//! and `U <= n/2`).
//!
//! Parameters (Thm 4.3 with the sensitivity correction of §3.3):
//! `G^2 = L0^2 + L2^2 + l L1^2`, `U = min(n eps G / (sqrt(4 48 c^2 l Lambda) L0), n/2)`,
//! `tau = sqrt(l / (G^2 U))`, `M = max(1, floor(log2 sqrt U))`,
//! `alpha = (2 eps^2 / (48 c^2 Lambda (tau L0)^2 n))^{1/3}`, with the per-vertex
//! constant `c = 20` (corrected: `Delta_t <= tau alpha L0 (4 C_M + 2/2^N) <= 10 tau alpha L0`)
//! or `c = 9` ([`ReleaseCount::PaperPrinted`]; `4 48 81 = 15552`).
//!
//! Privacy spent, exactly: a record of batch `t*` changes only step `t*`'s
//! gradient, by `Delta_{t*} = tau 2 L0 (2 C_M 2^{N_{t*}} + 1) / b_{t*}` in
//! every log-weight, so it affects only the `R_{>t*}` vertices drawn after
//! step `t*` (`2 (2^{N_t + 1} + 1)` per later step `t`, both players, and the
//! 2 final output vertices), each
//! `2 Delta_{t*}`-DP. The spend is the maximum over `t*` of the smaller of
//! basic and DRV advanced composition of those releases.

use dpcore::saddle::SaddleProblem;
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::stopping::TruncatedGeometric;
use rand::distr::Distribution;
use rand::Rng;

use super::alg1::{axpy, check_finite};
use super::bias_reduced::{bias_reduced_batch_gradient_observed, BatchOracle, BiasReducedScratch};
use super::mw::{sample_sorted, LogWeights, SamplerScratch};
use super::privacy::account;
use super::rates::log_dims;
use super::{ReleaseCount, SaddleDiagnostics, SaddleRelease, SpentPrivacy, VertexAccount};
use crate::transcript::{Transcript, Unobserved};

/// Alg. 3's parameters (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alg3Parameters {
    /// Stopping parameter `U` (`>= 4` inside the theory regime).
    pub u: f64,
    /// Step size `tau`.
    pub tau: f64,
    /// TG truncation `M`.
    pub m: u32,
    /// Batch parameter `alpha`.
    pub alpha: f64,
    /// The per-vertex constant `c` (20 corrected, 9 printed).
    pub vertex_constant: f64,
    /// True when `U < 4` (outside Thm 4.3's regime; pitfall 17).
    pub outside_theory: bool,
}

/// Thm 4.3's parameters for `n` records (module docs). Errors unless the
/// family is second-order smooth (`L2` finite) and `eps < 8 ln(1/delta)`.
pub fn alg3_parameters(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    count: ReleaseCount,
) -> Result<Alg3Parameters, RunFailure> {
    let c = problem.constants();
    let lam = (1.0 / privacy.delta).ln();
    if !c.l2.is_finite() || privacy.eps >= 8.0 * lam {
        return Err(RunFailure::InvalidParameters(
            "Alg. 3 needs L2 < inf and eps < 8 ln(1/delta)".into(),
        ));
    }
    let n = problem.num_records() as f64;
    let (dx, dy) = problem.dims();
    let l = log_dims(dx, dy);
    let vc: f64 = match count {
        ReleaseCount::Corrected => 20.0,
        ReleaseCount::PaperPrinted => 9.0,
    };
    let g = (c.l0 * c.l0 + c.l2 * c.l2 + l * c.l1 * c.l1).sqrt();
    let u = (n * privacy.eps * g / ((4.0 * 48.0 * vc * vc * l * lam).sqrt() * c.l0)).min(n / 2.0);
    let tau = (l / (g * g * u)).sqrt();
    let m = (u.sqrt().log2().floor() as u32).max(1);
    let alpha =
        (2.0 * privacy.eps.powi(2) / (48.0 * vc * vc * lam * (tau * c.l0).powi(2) * n)).cbrt();
    Ok(Alg3Parameters {
        u,
        tau,
        m,
        alpha,
        vertex_constant: vc,
        outside_theory: u < 4.0,
    })
}

/// The pre-drawn levels `N_t` and batch sizes `b_t` (module docs).
fn draw_levels<R: Rng + ?Sized>(
    p: &Alg3Parameters,
    n: usize,
    rng: &mut R,
) -> Result<Vec<(u32, usize)>, RunFailure> {
    let tg = TruncatedGeometric::new(0.5, p.m as u64)
        .map_err(|e| RunFailure::InvalidParameters(e.to_string()))?;
    let threshold = p.u - (1u64 << p.m) as f64;
    let (mut out, mut sum, mut used) = (Vec::new(), 0.0, 0usize);
    while sum <= threshold {
        let level = tg.sample(rng) as u32;
        let b = ((1u64 << level) as f64 / p.alpha).ceil().max(1.0) as usize;
        if used + b > n {
            return Err(RunFailure::InvalidParameters(
                "Alg. 3 batches exceed n".into(),
            ));
        }
        used += b;
        sum += (1u64 << level) as f64;
        out.push((level, b));
    }
    Ok(out)
}

/// Runs Alg. 3 with [`alg3_parameters`] (corrected constant).
pub fn private_smd_bias_reduced<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    let p = alg3_parameters(problem, privacy, ReleaseCount::Corrected)?;
    private_smd_bias_reduced_with(problem, privacy, p, rng)
}

/// Runs Alg. 3 with explicit parameters; the spend is computed exactly from
/// the realised levels and batches (module docs).
pub fn private_smd_bias_reduced_with<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    p: Alg3Parameters,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    private_smd_bias_reduced_observed(problem, privacy, p, &mut Unobserved, rng)
}

/// [`private_smd_bias_reduced_with`], handing `transcript` every vertex the
/// accountant counts (each step's output vertex and `2^{N_t + 1}` Maurey
/// draws of each player, and the final output vertices:
/// [`Transcript::vertices`]) and each step's mirror step (three
/// [`Transcript::mirror_step`]s). Same random stream and release.
///
/// # Errors
/// As [`private_smd_bias_reduced_with`].
pub fn private_smd_bias_reduced_observed<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    p: Alg3Parameters,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    let (dx, dy) = problem.dims();
    let plan = draw_levels(&p, problem.num_records(), rng)?;
    let c_m = 2.0 - 0.5f64.powi(p.m as i32);
    let (mut wx, mut wy) = (LogWeights::uniform(dx), LogWeights::uniform(dy));
    let (mut px, mut py) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut out_x, mut out_y) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut avg_x, mut avg_y) = (vec![0.0; dx], vec![0.0; dy]);
    let mut scratch = BiasReducedScratch::default();
    let mut sampler = SamplerScratch::default();
    // Output: vertices of x^1..x^{T+1} (the last iterate included, digest
    // pitfall 15); MW average over the T iterates the gradients used.
    let inv_out = 1.0 / (plan.len() + 1) as f64;
    let inv_t = 1.0 / plan.len() as f64;
    let mut start = 0;
    let observed = transcript.observes();
    let mut output_vertices = |px: &[f64],
                               py: &[f64],
                               rng: &mut R,
                               t: &mut dyn Transcript,
                               sampler: &mut SamplerScratch| {
        sample_sorted(px, 1, rng, sampler);
        if observed {
            t.vertices(0, px, px.iter().sum(), &sampler.draws);
        }
        out_x[sampler.draws[0]] += inv_out;
        sample_sorted(py, 1, rng, sampler);
        if observed {
            t.vertices(1, py, py.iter().sum(), &sampler.draws);
        }
        out_y[sampler.draws[0]] += inv_out;
    };
    for &(level, b) in &plan {
        wx.probabilities_into(&mut px);
        wy.probabilities_into(&mut py);
        axpy(inv_t, &px, &mut avg_x);
        axpy(inv_t, &py, &mut avg_y);
        output_vertices(&px, &py, rng, transcript, &mut sampler);
        let records = start..start + b;
        start += b;
        bias_reduced_batch_gradient_observed(
            &px,
            &py,
            level,
            c_m,
            BatchOracle { problem, records },
            (-p.tau, p.tau),
            transcript,
            rng,
            &mut scratch,
            (&mut gx, &mut gy),
        );
        wx.step(-p.tau, &gx);
        wy.step(p.tau, &gy);
    }
    wx.probabilities_into(&mut px);
    wy.probabilities_into(&mut py);
    output_vertices(&px, &py, rng, transcript, &mut sampler);
    check_finite(&out_x, &out_y)?;
    let acct = exact_spend(&plan, p.tau, c_m, problem.constants().l0, privacy.delta)?;
    Ok(SaddleRelease {
        x: out_x,
        y: out_y,
        gradient_evaluations: 3 * start,
        privacy: Some(SpentPrivacy::Vertices(acct)),
        diagnostics: SaddleDiagnostics {
            steps: plan.len(),
            batch: start,
            k: 1 << p.m,
            tau: p.tau,
            mw_average_x: avg_x,
            mw_average_y: avg_y,
        },
    })
}

/// The exact spend of the module docs, including the two output vertices
/// of the final iterate (released after every step); `eps_per_release`
/// reports the worst `2 Delta_t` and `releases` the total count.
pub fn exact_spend(
    plan: &[(u32, usize)],
    tau: f64,
    c_m: f64,
    l0: f64,
    delta: f64,
) -> Result<VertexAccount, RunFailure> {
    let per_step: Vec<usize> = plan
        .iter()
        .map(|&(level, _)| 2 * ((1usize << (level + 1)) + 1))
        .collect();
    let total: usize = per_step.iter().sum::<usize>() + 2;
    let mut after = total;
    let mut worst: Option<VertexAccount> = None;
    let mut worst_eps0: f64 = 0.0;
    for (&(level, b), &r) in plan.iter().zip(&per_step) {
        after -= r;
        let eps0 = 2.0 * tau * 2.0 * l0 * (2.0 * c_m * (1u64 << level) as f64 + 1.0) / b as f64;
        worst_eps0 = worst_eps0.max(eps0);
        let a = account(eps0, after, delta)?;
        if worst.is_none_or(|w| a.eps_spent > w.eps_spent) {
            worst = Some(a);
        }
    }
    let w = worst.unwrap_or(VertexAccount {
        releases: 0,
        eps_per_release: 0.0,
        eps_spent: 0.0,
        delta_spent: 0.0,
    });
    Ok(VertexAccount {
        releases: total,
        eps_per_release: worst_eps0,
        ..w
    })
}
