//! Euclidean baseline for the DP-SCO rows (digest §7.4 item 5, "also
//! include Euclidean DP-SGD projected onto the simplex", polynomial in `d`):
//! one-pass projected minibatch SGD with Gaussian noise.
//!
//! Privacy: the per-record gradient has `||g||_2 <= L0 sqrt(d)` (only
//! `||g||_inf <= L0` is assumed), so a batch average has L2 sensitivity
//! `2 L0 sqrt(d) / B`; `N(0, sigma^2 I)` with `sigma` from
//! [`super::privacy::gaussian_calibration`]; disjoint batches (parallel
//! composition). Schedule: `T = n eps / sqrt(d)` clamped to `[1, n]`,
//! `eta = sqrt(2) / (G sqrt T)` (L2 diameter `sqrt 2`,
//! `G^2 = L0^2 d + d sigma^2`), output the average iterate.

use dpcore::saddle::{SimplexPoint, SimplexSco};
use dpcore::{PrivacyParams, RunFailure};
use rand::Rng;

use super::alg1::axpy;
use super::baselines::standard_normal;
use super::privacy::gaussian_calibration;
use super::sgda::project_simplex;
use super::{ScoDiagnostics, ScoRelease, SpentPrivacy};

/// Runs projected DP-SGD on the simplex (module docs).
pub fn euclidean_dp_sgd_simplex<R: Rng + ?Sized>(
    problem: &dyn SimplexSco,
    privacy: PrivacyParams,
    rng: &mut R,
) -> Result<ScoRelease, RunFailure> {
    let (n, d) = (problem.num_records(), problem.dim());
    let df = d as f64;
    let l0 = problem.constants().l0;
    let steps = (n as f64 * privacy.eps / df.sqrt()).clamp(1.0, n as f64) as usize;
    let batch = n / steps;
    let acct = gaussian_calibration(privacy, 2.0 * l0 * df.sqrt() / batch as f64)?;
    let eta = 2f64.sqrt()
        / ((l0 * l0 * df + df * acct.sigma * acct.sigma).sqrt() * (steps as f64).sqrt());
    let mut x = vec![1.0 / df; d];
    let (mut g, mut avg, mut buf) = (vec![0.0; d], vec![0.0; d], Vec::with_capacity(d));
    for t in 0..steps {
        problem.batch_gradient(t * batch..(t + 1) * batch, SimplexPoint::Dense(&x), &mut g);
        x.iter_mut()
            .zip(&g)
            .for_each(|(xi, gi)| *xi -= eta * (gi + acct.sigma * standard_normal(rng)));
        project_simplex(&mut x, &mut buf);
        axpy(1.0 / steps as f64, &x, &mut avg);
    }
    Ok(ScoRelease {
        w: avg.clone(),
        gradient_evaluations: steps * batch,
        privacy: Some(SpentPrivacy::Gaussian(acct)),
        diagnostics: ScoDiagnostics {
            steps,
            batch,
            k: 0,
            q: 0,
            tau: eta,
            average: avg,
        },
    })
}
