//! The parameters of `A_NSGD` set by Theorem 3.2 (digest §2.1, P7), the
//! envelope smoothness of Theorem 4.4 and the prox accuracy of `A_ProxGD`
//! (digest §2.2, Fact 4.6, P10).

use crate::bassily::rate::{check_privacy, log_inv_delta};
use dpcore::{PrivacyParams, RunFailure};

/// The step count, batch size and step size of `A_NSGD` (Theorem 3.2),
/// rounded as in digest P7.
///
/// `T_real = min(n/8, eps^2 n^2 / (32 d Lambda))`, `T = max(1, floor(T_real))`,
/// `eta = M/(L sqrt T)`, `m = min(n, ceil(max(n sqrt(eps/(4T)), 1)))`, all
/// recomputed from the integer `T`. When `eps^2 n^2/(32 d Lambda) < 1` the
/// guarantee is void (the trivial regime) and the algorithm outputs `w_0 = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NsgdSchedule {
    /// Number of records `n`.
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// Target privacy `(eps, delta)`.
    pub privacy: PrivacyParams,
    /// Lipschitz constant `L` used in `eta`.
    pub lipschitz: f64,
    /// Radius `M` of `W = B(0, M)`.
    pub radius: f64,
    /// `min(n/8, eps^2 n^2/(32 d Lambda))` before rounding.
    pub steps_real: f64,
    /// `T`: `max(1, floor(steps_real))`, or 0 in the trivial regime.
    pub steps: u64,
    /// Mini-batch size `m` (0 in the trivial regime).
    pub batch: usize,
    /// Step size `eta = M/(L sqrt T)` (0 in the trivial regime).
    pub step_size: f64,
    /// True when `eps^2 n^2/(32 d Lambda) < 1`: output `w_0 = 0` (P7).
    pub trivial: bool,
}

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

/// `Err` unless `v` is finite and `> 0`.
fn positive(name: &str, v: f64) -> Result<(), RunFailure> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(invalid(format!("{name} must be finite and > 0, got {v}")))
    }
}

impl NsgdSchedule {
    /// The Theorem 3.2 schedule for `n` records in dimension `d` on
    /// `B(0, radius)` with `lipschitz`-Lipschitz losses.
    ///
    /// Errors: `InvalidParameters` for `n = 0`, `d = 0`, non-positive `L`
    /// or `M`, `eps <= 0` or `delta` outside `(0, 1)`.
    pub fn theorem_3_2(
        n: usize,
        d: usize,
        privacy: PrivacyParams,
        lipschitz: f64,
        radius: f64,
    ) -> Result<Self, RunFailure> {
        check_privacy(privacy.eps, privacy.delta)?;
        positive("L", lipschitz)?;
        positive("M", radius)?;
        if n == 0 || d == 0 {
            return Err(invalid(format!(
                "NSGD needs n, d >= 1, got n = {n}, d = {d}"
            )));
        }
        let (nf, eps) = (n as f64, privacy.eps);
        let privacy_steps = eps * eps * nf * nf / (32.0 * d as f64 * log_inv_delta(privacy.delta));
        let steps_real = (nf / 8.0).min(privacy_steps);
        let mut schedule = Self {
            n,
            d,
            privacy,
            lipschitz,
            radius,
            steps_real,
            steps: 0,
            batch: 0,
            step_size: 0.0,
            trivial: privacy_steps < 1.0,
        };
        if !schedule.trivial {
            let steps = steps_real.floor().max(1.0);
            schedule.steps = steps as u64;
            schedule.step_size = radius / (lipschitz * steps.sqrt());
            let m = (nf * (eps / (4.0 * steps)).sqrt()).max(1.0).ceil();
            schedule.batch = (m as usize).min(n);
        }
        Ok(schedule)
    }

    /// Poisson sampling rate `q = m/n`.
    pub fn sampling_rate(&self) -> f64 {
        self.batch as f64 / self.n as f64
    }

    /// The paper's noise standard deviation on the **mean** gradient,
    /// `sigma = sqrt(8 T C^2 Lambda)/(n eps)` (Algorithm 1 line 1), with the
    /// clip norm `C` of the gradients actually used in place of `L` (P10).
    pub fn paper_sigma(&self, clip: f64) -> f64 {
        let lambda = log_inv_delta(self.privacy.delta);
        (8.0 * self.steps as f64 * lambda).sqrt() * clip / (self.n as f64 * self.privacy.eps)
    }

    /// The theory count of record-gradient evaluations, `T m`.
    pub fn theory_gradient_evaluations(&self) -> u64 {
        self.steps * self.batch as u64
    }

    /// `beta <= (L/M) min(sqrt(n)/4, eps n/(8 sqrt(d Lambda)))`, the
    /// smoothness condition of Theorem 3.2 (with `beta_std`, digest P3).
    pub fn smoothness_condition_holds(&self, smoothness: f64) -> bool {
        smoothness <= envelope_smoothness(self.n, self.d, self.privacy, self.lipschitz, self.radius)
    }
}

/// `beta_env = (L/M) min(sqrt(n)/4, eps n/(8 sqrt(d Lambda)))`, the Moreau
/// smoothing parameter of Theorem 4.4 (also the largest smoothness that
/// Theorem 3.2 admits).
pub fn envelope_smoothness(
    n: usize,
    d: usize,
    privacy: PrivacyParams,
    lipschitz: f64,
    radius: f64,
) -> f64 {
    let nf = n as f64;
    let dl = d as f64 * log_inv_delta(privacy.delta);
    lipschitz / radius * (0.25 * nf.sqrt()).min(privacy.eps * nf / (8.0 * dl.sqrt()))
}

/// Prox accuracy `xi = (4M/n) max(2 sqrt(d Lambda)/(eps n), 1/sqrt(n))` of
/// `A_ProxGD` (digest §2.2); it makes `beta_env xi = L/n` exactly.
pub fn prox_accuracy(n: usize, d: usize, privacy: PrivacyParams, radius: f64) -> f64 {
    let nf = n as f64;
    let dl = d as f64 * log_inv_delta(privacy.delta);
    4.0 * radius / nf * (2.0 * dl.sqrt() / (privacy.eps * nf)).max(1.0 / nf.sqrt())
}

/// The safe inner iteration count `ceil(36 M^2/xi^2)` of Fact 4.6 (digest
/// P10: the paper's `8 M^2/xi^2` misses a factor 2 and uses `2M` for `3M`).
pub fn prox_inner_iterations(radius: f64, accuracy: f64) -> u64 {
    (36.0 * radius * radius / (accuracy * accuracy)).ceil() as u64
}
