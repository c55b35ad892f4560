//! The DP-GD baseline of experiment E4 (digest §6 E4: "plain DP-GD tuned per
//! \[WYX17\]"): noisy full-batch gradient descent on an `L1`-smooth objective
//! with a uniformly random iterate as output, the non-convex stationarity
//! guarantee of Wang, Ye & Xu (2017), here under replace-one `rho`-zCDP.
//!
//! Step `t = 0..T-1`: `g_t = (1/n) sum clip_L0(grad f(w_t))` (sensitivity
//! `2 L0/n`), `w_{t+1} = w_t - (g_t + N(0, sigma^2 I))/L1` with
//! `sigma = (2 L0/n) sqrt(T/(2 rho))` (times the rounding margin `1 + 1e-9`),
//! so each release costs `rho/T` and the `T` releases compose to `rho` (the
//! ledger sums the realised costs; the margin keeps the floating-point sum
//! `<= rho`).
//! The output `w_R`, `R` uniform on `{0..T-1}`, is drawn before the loop and
//! is independent of the data (no privacy cost).
//!
//! # Tuning (the \[WYX17\] balance, derived here)
//! When the clip is inactive (`L0` a true Lipschitz bound), the descent lemma
//! with step `1/L1` gives, per step,
//! `E F(w_{t+1}) <= E F(w_t) - E||grad F(w_t)||^2/(2 L1) + d sigma^2/(2 L1)`.
//! Summed over `t`, with `x = n sqrt(rho)` and `F0 >= F(w_0) - inf F`:
//! `E||grad F(w_R)||^2 <= 2 L1 F0/T + d sigma^2 = 2 L1 F0/T + 2 d T L0^2/x^2`.
//! The right side is smallest at `T* = x sqrt(L1 F0/d)/L0`, where it equals
//! `4 L0 sqrt(L1 F0 d)/x`; the run uses `T = max(1, round(T*))`, and
//! [`DpGd::norm_bound`] returns the square root of the right side at the
//! realised `T` (a bound on `E||grad F(w_R)||` by Jensen).

use super::{
    add_gaussian, check_finite, check_positive, MenartRun, ZcdpLedger, SIGMA_ROUNDING_MARGIN,
};
use crate::transcript::{Query, Transcript, Unobserved};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand::{Rng, RngExt};

/// The DP-GD baseline (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DpGd;

/// One DP-GD run.
#[derive(Debug, Clone, PartialEq)]
pub struct DpGdRun {
    /// The released point `w_R` and accounting.
    pub run: MenartRun,
    /// The number of steps `T`.
    pub steps: u64,
    /// The output index `R`.
    pub output_index: u64,
}

impl DpGd {
    /// `T = max(1, round(x sqrt(L1 F0/d)/L0))`.
    pub fn steps(n: usize, d: usize, rho: f64, l0: f64, l1: f64, f0: f64) -> u64 {
        let x = n as f64 * rho.sqrt();
        let t = x * (l1 * f0 / d as f64).sqrt() / l0;
        t.round().max(1.0) as u64
    }

    /// `sqrt(2 L1 F0/T + 2 d T L0^2/x^2)`: the bound on `E||grad F(w_R)||`.
    pub fn norm_bound(n: usize, d: usize, rho: f64, l0: f64, l1: f64, f0: f64, steps: u64) -> f64 {
        let x = n as f64 * rho.sqrt();
        let t = steps as f64;
        (2.0 * l1 * f0 / t + 2.0 * d as f64 * t * l0 * l0 / (x * x)).sqrt()
    }

    /// Runs DP-GD from `problem`'s start point with its public constants.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        rng: &mut R,
    ) -> Result<DpGdRun, RunFailure> {
        self.run_observed(problem, rho, &mut Unobserved, rng)
    }

    /// As [`DpGd::run`], reporting each step's noisy clipped mean gradient
    /// (at the step's point, with its noiseless value and `sigma`) to
    /// `transcript`: the `T` releases the ledger charges. The random stream
    /// and the result are those of [`DpGd::run`].
    pub fn run_observed<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        transcript: &mut dyn Transcript,
        rng: &mut R,
    ) -> Result<DpGdRun, RunFailure> {
        let k = problem.kl_constants();
        let (n, d) = (problem.num_records(), problem.dim());
        for (name, v) in [
            ("rho", rho),
            ("L0", k.lipschitz),
            ("L1", k.smoothness),
            ("F0", k.initial_gap),
        ] {
            check_positive(name, v)?;
        }
        let steps = Self::steps(n, d, rho, k.lipschitz, k.smoothness, k.initial_gap);
        let sens = 2.0 * k.lipschitz / n as f64;
        let sigma = SIGMA_ROUNDING_MARGIN * sens * (steps as f64 / (2.0 * rho)).sqrt();
        let output_index = rng.random_range(0..steps);
        let eta = 1.0 / k.smoothness;
        let mut w = problem.start_point().to_vec();
        let mut out = w.clone();
        let mut g = vec![0.0; d];
        // The noiseless gradient, kept for the transcript (d floats a step).
        let mut exact = vec![0.0; d];
        let mut ledger = ZcdpLedger::new();
        let mut clipped = 0u64;
        let query = Query::ClippedMeanGradient { clip: k.lipschitz };
        for t in 0..steps {
            if t == output_index {
                out.copy_from_slice(&w);
            }
            clipped += problem.clipped_mean_gradient(&w, k.lipschitz, &mut g) as u64;
            exact.copy_from_slice(&g);
            add_gaussian(&mut g, sigma, rng);
            transcript.gaussian(query, &w, &exact, &g, sigma);
            ledger.charge_gaussian(sigma, sens)?;
            w.iter_mut().zip(&g).for_each(|(a, b)| *a -= eta * b);
            check_finite(&w, "DP-GD iterate")?;
        }
        Ok(DpGdRun {
            run: MenartRun {
                w: out,
                gradient_evaluations: steps * n as u64,
                rho_spent: ledger.spent(),
                iterations: steps,
                releases: ledger.releases(),
                clipped_records: clipped,
                trivial: false,
            },
            steps,
            output_index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::DpGd;

    #[test]
    fn the_step_count_minimises_the_bound() {
        let (n, d, rho, l0, l1, f0) = (1000, 64, 100.0, 0.75, 2.0, 1.0);
        let t = DpGd::steps(n, d, rho, l0, l1, f0);
        let b = |s| DpGd::norm_bound(n, d, rho, l0, l1, f0, s);
        assert!(b(t) <= b(t - 1) && b(t) <= b(t + 1), "T = {t}");
        // At the continuous optimum the bound is (4 L0 sqrt(L1 F0 d)/x)^(1/2).
        let x = n as f64 * rho.sqrt();
        let optimum = (4.0 * l0 * (l1 * f0 * d as f64).sqrt() / x).sqrt();
        assert!((b(t) / optimum - 1.0).abs() < 1e-3, "{} vs {optimum}", b(t));
    }
}
