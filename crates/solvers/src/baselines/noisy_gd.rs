//! Noisy full-batch gradient descent (gradient perturbation, `rho`-zCDP) on
//! the Lowy–Razaviyayn E1 quadratic: the reference beside output
//! perturbation, and the Rust twin of the worked Python example
//! `examples/python/noisy_gd.py` (docs/python-entries.md).
//!
//! # Algorithm
//! From `w_0 = 0`, `T` steps `w_{t+1} = w_t - eta (grad F(w_t) + z_t)` with
//! `z_t ~ N(0, sigma^2 I_d)` and `eta = 1/beta`; the output is `w_T` (no
//! projection: the family's gradient sensitivity below holds at every `w`).
//!
//! # Privacy (replace-one)
//! On `f(w, x) = 1/2 (w - x)^T H (w - x)` with `0 < h_j <= beta` and records
//! in `B(0, R)`, replacing record `i` changes `grad F(w) = H (w - x_bar)` by
//! `H (x_i - x'_i)/n`, of norm at most `2 beta R/n = L/n` (the family's
//! `L = 2 beta R`) at every `w`. So each step is a Gaussian mechanism with
//! sensitivity `Delta = L/n`, `Delta^2/(2 sigma^2)`-zCDP (Bun & Steinke 2016,
//! Prop 1.6), and `T` adaptive steps compose to `T Delta^2/(2 sigma^2)`
//! (Lemma 2.3): [`noise_scale`] takes `sigma = Delta sqrt(T/(2 rho))`, which
//! spends exactly `rho`.
//!
//! # Exact expectation
//! `e_t = w_t - x_bar` follows `e_{t+1} = (I - eta H) e_t - eta z_t`, so per
//! coordinate (`a_j = 1 - eta h_j`, in `[0, 1)`)
//! `E[F(w_T) - F*] = 1/2 sum_j h_j (a_j^(2T) x_bar_j^2
//!                  + eta^2 sigma^2 (1 - a_j^(2T))/(1 - a_j^2))`
//! given the data ([`expected_excess`]); at fixed `T`, `sigma ~ 1/n` and the
//! excess falls as `n^-2` once the bias term is below the noise term.

use dpcore::{Objective, RunFailure};
use mechanisms::noise::gaussian;
use rand::Rng;

/// Noisy GD with a fixed number of steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoisyGd {
    /// Steps `T`.
    pub steps: usize,
}

/// One release of [`NoisyGd`].
#[derive(Debug, Clone, PartialEq)]
pub struct NoisyGdRelease {
    /// The released last iterate `w_T`.
    pub w: Vec<f64>,
    /// The gradient sensitivity `Delta = L/n`.
    pub sensitivity: f64,
    /// The per-step noise scale `sigma`.
    pub sigma: f64,
    /// The step size `eta = 1/beta`.
    pub step_size: f64,
    /// Per-record gradient evaluations, `T n`.
    pub gradient_evaluations: u64,
}

/// `sigma = Delta sqrt(T/(2 rho))`: `T` Gaussian steps of sensitivity
/// `Delta` spend exactly `rho` (module doc).
///
/// # Errors
/// `InvalidParameters` unless `Delta > 0`, `T >= 1` and `rho > 0` are finite.
pub fn noise_scale(sensitivity: f64, steps: usize, rho: f64) -> Result<f64, RunFailure> {
    if !(sensitivity > 0.0 && sensitivity.is_finite() && steps >= 1 && rho > 0.0 && rho.is_finite())
    {
        return Err(RunFailure::InvalidParameters(format!(
            "noisy GD: needs sensitivity > 0, steps >= 1 and rho > 0 (got {sensitivity}, {steps}, {rho})"
        )));
    }
    Ok(sensitivity * (steps as f64 / (2.0 * rho)).sqrt())
}

/// The exact `E[F(w_T) - F*]` given the data (module doc), for Hessian
/// diagonal `h`, minimizer `x_bar`, `T` steps of size `eta` and noise `sigma`.
pub fn expected_excess(h: &[f64], x_bar: &[f64], steps: usize, eta: f64, sigma: f64) -> f64 {
    let t2 = 2 * steps as i32;
    0.5 * h
        .iter()
        .zip(x_bar)
        .map(|(&hj, &xj)| {
            let a = 1.0 - eta * hj;
            let a2t = a.powi(t2);
            // sum_{k < T} a^(2k); only the last step's noise remains at a = 0.
            let geometric = if a == 0.0 {
                1.0
            } else {
                (1.0 - a2t) / (1.0 - a * a)
            };
            hj * (a2t * xj * xj + eta * eta * sigma * sigma * geometric)
        })
        .sum::<f64>()
}

impl NoisyGd {
    /// Runs `T` noisy steps on `problem` at `rho`-zCDP.
    ///
    /// # Errors
    /// `InvalidParameters` for a bad `T`, `rho` or a problem without a finite
    /// positive smoothness and Lipschitz constant.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn Objective,
        rho: f64,
        rng: &mut R,
    ) -> Result<NoisyGdRelease, RunFailure> {
        let (n, d, c) = (problem.num_records(), problem.dim(), problem.constants());
        if !(c.smoothness > 0.0 && c.smoothness.is_finite()) {
            return Err(RunFailure::InvalidParameters(format!(
                "noisy GD: needs a finite smoothness beta > 0, got {}",
                c.smoothness
            )));
        }
        let sensitivity = c.lipschitz / n as f64;
        let sigma = noise_scale(sensitivity, self.steps, rho)?;
        let eta = 1.0 / c.smoothness;
        let mut w = vec![0.0; d];
        let mut g = vec![0.0; d];
        for _ in 0..self.steps {
            problem.gradient(&w, &mut g);
            let z = gaussian(d, sigma, rng);
            for ((wj, gj), zj) in w.iter_mut().zip(&g).zip(&z) {
                *wj -= eta * (gj + zj);
            }
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(RunFailure::NonFinite(
                "noisy GD: the iterate is not finite".into(),
            ));
        }
        Ok(NoisyGdRelease {
            w,
            sensitivity,
            sigma,
            step_size: eta,
            gradient_evaluations: (self.steps * n) as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_noise_spends_exactly_rho() {
        let (delta, steps, rho) = (0.02, 100, 0.5);
        let sigma = noise_scale(delta, steps, rho).unwrap();
        let spent = steps as f64 * delta * delta / (2.0 * sigma * sigma);
        assert!((spent - rho).abs() < 1e-12 * rho, "{spent}");
        assert!(noise_scale(0.0, 1, 1.0).is_err());
        assert!(noise_scale(1.0, 0, 1.0).is_err());
        assert!(noise_scale(1.0, 1, 0.0).is_err());
    }

    #[test]
    fn without_noise_the_expectation_is_the_bias_of_gd() {
        // sigma = 0: e_T = (I - eta H)^T e_0 exactly.
        let (h, x): ([f64; 3], [f64; 3]) = ([1.0, 0.5, 0.1], [0.3, -0.2, 0.4]);
        let (steps, eta) = (7, 1.0_f64);
        let by_hand: f64 = 0.5
            * h.iter()
                .zip(&x)
                .map(|(hj, xj)| hj * (1.0 - eta * hj).powi(14) * xj * xj)
                .sum::<f64>();
        assert!((expected_excess(&h, &x, steps, eta, 0.0) - by_hand).abs() < 1e-15);
        // At a = 0 (h = beta) only the last step's noise remains.
        let e = expected_excess(&[1.0], &[0.0], 5, 1.0, 0.3);
        assert!((e - 0.5 * 0.09).abs() < 1e-15, "{e}");
    }
}
