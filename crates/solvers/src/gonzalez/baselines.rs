//! Entropic baselines of digest §7.4: non-private stochastic mirror descent
//! (item 1, the `sqrt(l/n)` floor) and entropic mirror descent with Gaussian
//! gradient noise (item 3, which isolates why the exponential-mechanism view
//! matters). The Euclidean DP-SGDA baseline is in [`super::sgda`].
//!
//! Both evaluate batch gradients at the full MW iterates `(x^t, y^t)` (no
//! sampling) over disjoint batches and release the MW averages.
//!
//! **Noisy entropic MD.** The joint batch gradient has L2 sensitivity
//! `2 L0 sqrt(d_x + d_y) / B` (only `||grad f||_inf <= L0` is assumed);
//! `N(0, sigma^2 I)` is added with `sigma` from
//! [`super::privacy::gaussian_calibration`]. Disjoint batches: each record
//! is in one noisy release, so the whole run is `(eps, delta)`-DP (parallel
//! composition) and the averages are post-processing. Schedule (derived here):
//! with `D = d_x + d_y`, `c = sqrt(2 ln(1.25/delta))`, the `l_inf` noise is
//! `~ sigma sqrt(2 ln D)` with `sigma = 2 L0 sqrt(D) T c / (n eps)`; MD's error
//! `G_inf sqrt(l/T)` with `G_inf = L0 + sigma sqrt(2 ln D)` is balanced at
//! `T = n eps / (2 c sqrt(2 D ln D))` (clamped to `[1, n]`), and
//! `tau = sqrt(2 l / (5 T)) / G_inf`.

use dpcore::saddle::{SaddleProblem, SimplexPoint};
use dpcore::{PrivacyParams, RunFailure};
use rand::Rng;

use super::alg1::{axpy, check_finite};
use super::mw::LogWeights;
use super::privacy::gaussian_calibration;
use super::rates::log_dims;
use super::{SaddleDiagnostics, SaddleRelease, SpentPrivacy};

/// Shared MW loop: `T` steps over disjoint batches of `B`, gradient at the MW
/// iterates plus `noise(gx, gy)`, step `tau`; returns the MW averages.
fn mw_loop(
    problem: &dyn SaddleProblem,
    steps: usize,
    tau: f64,
    mut noise: impl FnMut(&mut [f64], &mut [f64]),
) -> SaddleRelease {
    let (dx, dy) = problem.dims();
    let batch = problem.num_records() / steps;
    let (mut wx, mut wy) = (LogWeights::uniform(dx), LogWeights::uniform(dy));
    let (mut px, mut py) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut ax, mut ay) = (vec![0.0; dx], vec![0.0; dy]);
    for t in 0..steps {
        wx.probabilities_into(&mut px);
        wy.probabilities_into(&mut py);
        axpy(1.0 / steps as f64, &px, &mut ax);
        axpy(1.0 / steps as f64, &py, &mut ay);
        let records = t * batch..(t + 1) * batch;
        problem.batch_gradient(
            records,
            SimplexPoint::Dense(&px),
            SimplexPoint::Dense(&py),
            &mut gx,
            &mut gy,
        );
        noise(&mut gx, &mut gy);
        wx.step(-tau, &gx);
        wy.step(tau, &gy);
    }
    SaddleRelease {
        x: ax.clone(),
        y: ay.clone(),
        gradient_evaluations: steps * batch,
        privacy: None,
        diagnostics: SaddleDiagnostics {
            steps,
            batch,
            k: 0,
            tau,
            mw_average_x: ax,
            mw_average_y: ay,
        },
    }
}

/// Non-private entropic SMD (digest §7.4 item 1): `T` steps (`None`: `T = n`,
/// `B = 1`), `tau = sqrt(2 l / (5 T)) / L0` (the minimiser of
/// `2 l/(tau T) + 5 tau L0^2`), output the MW averages. NOT private.
pub fn nonprivate_smd(
    problem: &dyn SaddleProblem,
    steps: Option<usize>,
) -> Result<SaddleRelease, RunFailure> {
    let n = problem.num_records();
    let steps = steps.unwrap_or(n).clamp(1, n);
    let (dx, dy) = problem.dims();
    let tau = (2.0 * log_dims(dx, dy) / (5.0 * steps as f64)).sqrt() / problem.constants().l0;
    let out = mw_loop(problem, steps, tau, |_, _| {});
    check_finite(&out.x, &out.y)?;
    Ok(out)
}

/// Entropic MD with Gaussian gradient noise (digest §7.4 item 3; module docs
/// for the privacy argument and the schedule).
pub fn noisy_entropic_md<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    let n = problem.num_records();
    let (dx, dy) = problem.dims();
    let d = (dx + dy) as f64;
    let l0 = problem.constants().l0;
    let c = (2.0 * (1.25 / privacy.delta).ln()).sqrt();
    let steps = (n as f64 * privacy.eps / (2.0 * c * (2.0 * d * d.ln()).sqrt()))
        .clamp(1.0, n as f64) as usize;
    let batch = n / steps;
    let acct = gaussian_calibration(privacy, 2.0 * l0 * d.sqrt() / batch as f64)?;
    let g_inf = l0 + acct.sigma * (2.0 * d.ln()).sqrt();
    let tau = (2.0 * log_dims(dx, dy) / (5.0 * steps as f64)).sqrt() / g_inf;
    let sigma = acct.sigma;
    let mut out = mw_loop(problem, steps, tau, |gx, gy| {
        for g in gx.iter_mut().chain(gy.iter_mut()) {
            *g += sigma * standard_normal(rng);
        }
    });
    check_finite(&out.x, &out.y)?;
    out.privacy = Some(SpentPrivacy::Gaussian(acct));
    Ok(out)
}

/// A standard normal draw (Box–Muller on two uniforms; exact in law).
pub(crate) fn standard_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    use rand::RngExt;
    let u1 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}
