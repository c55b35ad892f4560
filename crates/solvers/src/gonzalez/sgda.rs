//! Euclidean DP-SGDA baseline (digest §7.4 item 2, Yang et al. 2022 style):
//! one-pass projected stochastic gradient descent-ascent on the simplices.
//!
//! Privacy: per-record joint gradients are clipped in L2 to `C` (default
//! the worst case `C = L0 sqrt(d_x + d_y)`, where clipping is the identity
//! because only `||grad f||_inf <= L0` is assumed); the batch average then has
//! L2 sensitivity `2 C / B` and gets `N(0, sigma^2 I)` with `sigma` from
//! [`super::privacy::gaussian_calibration`] (the classical
//! `sqrt(2 ln(1.25/delta)) 2C/(B eps)` for `eps <= 1`). Disjoint batches, so
//! no composition over steps is needed. A tuned `C` is fair but the tuning
//! itself is not privacy-accounted.
//!
//! Schedule: `T = n eps / sqrt(D)` (`D = d_x + d_y`, the digest's tuned
//! order, clamped to `[1, n]`), `B = floor(n/T)`, step
//! `eta = 2 / (G sqrt T)` with the joint L2 diameter 2 and
//! `G^2 = C^2 + D sigma^2`; the output is the average of the iterates.
//! Projection: sort-and-threshold, `O(d log d)`, reused buffer.

use dpcore::saddle::{SaddleProblem, SimplexPoint};
use dpcore::{PrivacyParams, RunFailure};
use rand::Rng;

use super::alg1::{axpy, check_finite};
use super::baselines::standard_normal;
use super::privacy::gaussian_calibration;
use super::{SaddleDiagnostics, SaddleRelease, SpentPrivacy};

/// Euclidean projection of `v` onto the simplex, in place (`buf` is scratch).
pub fn project_simplex(v: &mut [f64], buf: &mut Vec<f64>) {
    buf.clear();
    buf.extend_from_slice(v);
    buf.sort_unstable_by(|a, b| b.total_cmp(a));
    let (mut cum, mut theta) = (0.0, 0.0);
    for (k, &u) in buf.iter().enumerate() {
        cum += u;
        let t = (cum - 1.0) / (k + 1) as f64;
        if u - t > 0.0 {
            theta = t;
        }
    }
    v.iter_mut().for_each(|x| *x = (*x - theta).max(0.0));
}

/// Runs DP-SGDA with clip `clip` (`None`: the worst case, no clipping).
pub fn euclidean_dp_sgda<R: Rng + ?Sized>(
    problem: &dyn SaddleProblem,
    privacy: PrivacyParams,
    clip: Option<f64>,
    rng: &mut R,
) -> Result<SaddleRelease, RunFailure> {
    let n = problem.num_records();
    let (dx, dy) = problem.dims();
    let d = (dx + dy) as f64;
    let worst = problem.constants().l0 * d.sqrt();
    let c = clip.unwrap_or(worst).min(worst);
    let steps = (n as f64 * privacy.eps / d.sqrt()).clamp(1.0, n as f64) as usize;
    let batch = n / steps;
    let acct = gaussian_calibration(privacy, 2.0 * c / batch as f64)?;
    let eta = 2.0 / ((c * c + d * acct.sigma * acct.sigma).sqrt() * (steps as f64).sqrt());
    let (mut x, mut y) = (vec![1.0 / dx as f64; dx], vec![1.0 / dy as f64; dy]);
    let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut rx, mut ry) = (vec![0.0; dx], vec![0.0; dy]);
    let (mut ax, mut ay) = (vec![0.0; dx], vec![0.0; dy]);
    let mut buf = Vec::with_capacity(dx.max(dy));
    let inv_t = 1.0 / steps as f64;
    for t in 0..steps {
        let records = t * batch..(t + 1) * batch;
        let (xp, yp) = (SimplexPoint::Dense(&x), SimplexPoint::Dense(&y));
        if c >= worst {
            problem.batch_gradient(records, xp, yp, &mut gx, &mut gy);
        } else {
            gx.fill(0.0);
            gy.fill(0.0);
            for i in records {
                rx.fill(0.0);
                ry.fill(0.0);
                problem.accumulate_record_gradient(i, xp, yp, 1.0, &mut rx, &mut ry);
                let norm = rx.iter().chain(&ry).map(|g| g * g).sum::<f64>().sqrt();
                let scale = (c / norm.max(f64::MIN_POSITIVE)).min(1.0) / batch as f64;
                axpy(scale, &rx, &mut gx);
                axpy(scale, &ry, &mut gy);
            }
        }
        for (xi, g) in x.iter_mut().zip(&gx) {
            *xi -= eta * (g + acct.sigma * standard_normal(rng));
        }
        for (yi, g) in y.iter_mut().zip(&gy) {
            *yi += eta * (g + acct.sigma * standard_normal(rng));
        }
        project_simplex(&mut x, &mut buf);
        project_simplex(&mut y, &mut buf);
        axpy(inv_t, &x, &mut ax);
        axpy(inv_t, &y, &mut ay);
    }
    check_finite(&ax, &ay)?;
    Ok(SaddleRelease {
        x: ax.clone(),
        y: ay.clone(),
        gradient_evaluations: steps * batch,
        privacy: Some(SpentPrivacy::Gaussian(acct)),
        diagnostics: SaddleDiagnostics {
            steps,
            batch,
            k: 0,
            tau: eta,
            mw_average_x: ax,
            mw_average_y: ay,
        },
    })
}
