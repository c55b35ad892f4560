//! Algorithm 3 of Lowy–Razaviyayn: Katyusha \[AZ18\] as cleaned in the digest
//! (§3 Algorithm 3, P6), run on `F_lambda` with the split `psi(w) = m/2 ||w||^2`,
//! `g_i = f_i + lambda/2 ||.||^2 - psi` (so `grad g_i(w) = grad f_i(w) +
//! (lambda - m) w`), and certified by the gradient norm at each snapshot
//! (digest P1 (b)).
//!
//! Gradient-evaluation count: every snapshot `w~_s`, `s = 0..S`, costs one full
//! gradient (`n`), which serves both as `G_s = grad F_lambda(w~_s) - m w~_s` and
//! as the certificate check; each of the `2n` inner steps of an epoch costs two
//! per-record gradients (`grad g_i(w_{k+1})` and `grad g_i(w~_s)`, not cached).
//! A run that stops at snapshot `S` therefore spends `n (5 S + 1)` evaluations
//! and `2 n S` inner iterations.

use super::regularized::{norm, Regularized};
use super::sgd::MAX_ITERATIONS;
use super::{Certificate, SolverOutput};
use dpcore::RunFailure;
use rand::{Rng, RngExt};

/// Thm 3.3's inner-iteration count `(n + sqrt(n kappa)) max{1, ln(L_lambda R / alpha)}`
/// with `kappa = beta_lambda / m`, i.e. `O((n + sqrt(n kappa)) log(LR/alpha))`
/// without its unknown constant (digest Algorithm 3, Thm 3.3).
pub fn theorem_iterations(reg: &Regularized<'_>, alpha: f64) -> f64 {
    let n = reg.num_records() as f64;
    let kappa = reg.smoothness() / reg.strong_convexity();
    let log_term = (reg.lipschitz() * reg.radius() / alpha).ln().max(1.0);
    (n + (n * kappa).sqrt()) * log_term
}

/// Epoch cap: `ceil(20 E) + 50` where `E = theorem_iterations / (2n)` is the
/// Thm 3.3 epoch count (epochs = T / 2n, digest P6). Exceeding it is
/// `NonConvergence`.
///
/// Errors: `InvalidParameters` when the Thm 3.3 count itself exceeds
/// [`MAX_ITERATIONS`].
pub fn epoch_cap(reg: &Regularized<'_>, alpha: f64) -> Result<u64, RunFailure> {
    let t = theorem_iterations(reg, alpha);
    if t.is_nan() || t > MAX_ITERATIONS as f64 {
        return Err(RunFailure::InvalidParameters(format!(
            "Katyusha would need about {t:e} inner iterations (Thm 3.3), more than the cap \
             {MAX_ITERATIONS}"
        )));
    }
    let epochs = t / (2.0 * reg.num_records() as f64);
    Ok((20.0 * epochs).ceil() as u64 + 50)
}

/// Katyusha (Algorithm 3, digest P6) on `F_lambda` from `w~_0 = y_0 = z_0 = 0`.
///
/// Parameters: `2n` inner steps per epoch, `tau2 = 1/2`,
/// `tau1 = min{sqrt(2n m / (3 beta_lambda)), 1/2}`, `gamma = 1/(3 tau1 beta_lambda)`.
/// Inner step: `w_{k+1} = tau1 z_k + tau2 w~_s + (1 - tau1 - tau2) y_k`,
/// `nabla = G_s + grad g_i(w_{k+1}) - grad g_i(w~_s)`,
/// `z_{k+1} = (z_k - gamma nabla)/(1 + gamma m)`,
/// `y_{k+1} = (3 beta_lambda w_{k+1} - nabla)/(3 beta_lambda + m)`.
/// Snapshot: the `(1 + gamma m)^j`-weighted average of the epoch's `y`s, with
/// weights `exp((j - 2n + 1) ln(1 + gamma m))` normalized by the largest (P14).
///
/// Stops at the first snapshot (including `w~_0`) with
/// `||grad F_lambda(w~_s)|| <= sqrt(2 m alpha)` and returns it with
/// `Certificate::GradientNorm { norm, bound: norm^2/(2m) }` (P1 (b)); the bound
/// is `<= alpha` for every data set.
///
/// Errors: `InvalidParameters` without a per-record oracle, with infinite
/// smoothness or `beta_lambda < m`, or as [`Regularized::check_target`] /
/// [`epoch_cap`]; `NonConvergence` after [`epoch_cap`] epochs; `NonFinite` if
/// a snapshot gradient is not finite.
pub fn katyusha<R: Rng + ?Sized>(
    reg: &Regularized<'_>,
    alpha: f64,
    rng: &mut R,
) -> Result<SolverOutput, RunFailure> {
    reg.check_target(alpha)?;
    let records = reg.finite_sum().ok_or_else(|| {
        RunFailure::InvalidParameters(
            "Katyusha (Algorithm 3) needs a per-record oracle (finite_sum)".into(),
        )
    })?;
    let (m, beta) = (reg.strong_convexity(), reg.smoothness());
    if !(beta.is_finite() && beta >= m) {
        return Err(RunFailure::InvalidParameters(format!(
            "Katyusha needs finite smoothness beta + lambda >= mu + lambda, got {beta} (m = {m})"
        )));
    }
    let cap = epoch_cap(reg, alpha)?;
    let (n, d) = (reg.num_records(), reg.dim());
    let epoch_len = 2 * n;
    let tau2 = 0.5;
    let tau1 = (epoch_len as f64 * m / (3.0 * beta)).sqrt().min(0.5);
    let gamma = 1.0 / (3.0 * tau1 * beta);
    let log_growth = (gamma * m).ln_1p();
    let threshold = (2.0 * m * alpha).sqrt();

    let mut snapshot = vec![0.0; d];
    let (mut y, mut z) = (vec![0.0; d], vec![0.0; d]);
    let (mut full, mut g_snap) = (vec![0.0; d], vec![0.0; d]);
    let (mut w, mut nabla) = (vec![0.0; d], vec![0.0; d]);
    let (mut gw, mut gs) = (vec![0.0; d], vec![0.0; d]);
    let mut acc = vec![0.0; d];
    let mut evals: u64 = 0;
    for s in 0..=cap {
        reg.gradient(&snapshot, &mut full);
        evals += n as u64;
        let gnorm = norm(&full);
        if !(gnorm.is_finite() && snapshot.iter().all(|x| x.is_finite())) {
            return Err(RunFailure::NonFinite(format!(
                "Katyusha: snapshot {s} or its gradient is not finite"
            )));
        }
        if gnorm <= threshold {
            return Ok(SolverOutput {
                w: snapshot,
                gradient_evaluations: evals,
                iterations: s * epoch_len as u64,
                certificate: Certificate::GradientNorm {
                    norm: gnorm,
                    bound: gnorm * gnorm / (2.0 * m),
                },
            });
        }
        if s == cap {
            break;
        }
        // G_s = grad of g = F_lambda - psi at the snapshot.
        for ((gj, fj), sj) in g_snap.iter_mut().zip(&full).zip(&snapshot) {
            *gj = fj - m * sj;
        }
        acc.iter_mut().for_each(|a| *a = 0.0);
        let mut weight_sum = 0.0;
        for j in 0..epoch_len {
            for k in 0..d {
                w[k] = tau1 * z[k] + tau2 * snapshot[k] + (1.0 - tau1 - tau2) * y[k];
            }
            let i = rng.random_range(0..n);
            records.record_gradient(i, &w, &mut gw);
            records.record_gradient(i, &snapshot, &mut gs);
            let weight = ((j as f64 - (epoch_len - 1) as f64) * log_growth).exp();
            weight_sum += weight;
            for k in 0..d {
                // grad g_i(w) - grad g_i(w~) = [grad f_lambda,i](w) - [..](w~) - m (w - w~).
                nabla[k] = g_snap[k] + gw[k] - gs[k] - m * (w[k] - snapshot[k]);
                z[k] = (z[k] - gamma * nabla[k]) / (1.0 + gamma * m);
                y[k] = (3.0 * beta * w[k] - nabla[k]) / (3.0 * beta + m);
                acc[k] += weight * y[k];
            }
        }
        evals += 2 * epoch_len as u64;
        for (sj, aj) in snapshot.iter_mut().zip(&acc) {
            *sj = aj / weight_sum;
        }
    }
    Err(RunFailure::NonConvergence(format!(
        "Katyusha: ||grad F_lambda|| > sqrt(2 m alpha) = {threshold:e} after {cap} epochs"
    )))
}
