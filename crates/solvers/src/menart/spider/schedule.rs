//! The derived constants of Algorithm 1 (digest §2.1, lines 2–4, and the
//! cheat-sheet §2.6), as a deterministic function of the public inputs.

use super::super::{check_positive, Calibration, SIGMA_ROUNDING_MARGIN};
use super::SpiderConstants;
use dpcore::menart::KlObjective;
use dpcore::RunFailure;

/// Largest number of rounds `K` accepted (the cost is `O(K d)` at least).
pub const MAX_ROUNDS: f64 = 1e8;

/// Public inputs of Algorithm 1 (all data-independent, digest P7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpiderInputs {
    /// Number of records `n`.
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// zCDP budget `rho`.
    pub rho: f64,
    /// Failure probability `beta`.
    pub beta: f64,
    /// KL constant `gamma`.
    pub gamma: f64,
    /// KL exponent `kappa in [1, 2]`.
    pub kappa: f64,
    /// Lipschitz constant `L0` (full-gradient clipping norm).
    pub l0: f64,
    /// Smoothness `L1`.
    pub l1: f64,
    /// Initial gap `F0`.
    pub f0: f64,
}

impl SpiderInputs {
    /// The inputs from a problem's public constants.
    pub fn from_problem(
        problem: &dyn KlObjective,
        rho: f64,
        beta: f64,
    ) -> Result<Self, RunFailure> {
        let k = problem.kl_constants();
        let kl = k.kl.ok_or_else(|| {
            RunFailure::InvalidParameters("Algorithm 1 needs KL constants".into())
        })?;
        Ok(Self {
            n: problem.num_records(),
            d: problem.dim(),
            rho,
            beta,
            gamma: kl.gamma,
            kappa: kl.kappa,
            l0: k.lipschitz,
            l1: k.smoothness,
            f0: k.initial_gap,
        })
    }

    /// `x = n sqrt(rho)` (digest §1.7).
    pub fn x(&self) -> f64 {
        self.n as f64 * self.rho.sqrt()
    }

    fn validate(&self) -> Result<(), RunFailure> {
        for (name, v) in [
            ("rho", self.rho),
            ("gamma", self.gamma),
            ("L0", self.l0),
            ("L1", self.l1),
            ("F0", self.f0),
        ] {
            check_positive(name, v)?;
        }
        if !(self.beta > 0.0 && self.beta < 1.0) || self.n == 0 || self.d == 0 {
            return Err(RunFailure::InvalidParameters(
                "need beta in (0, 1), n >= 1, d >= 1".into(),
            ));
        }
        if !(1.0..=2.0).contains(&self.kappa) {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 1 needs kappa in [1, 2], got {}",
                self.kappa
            )));
        }
        Ok(())
    }
}

/// The deterministic schedule of one Algorithm 1 configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpiderSchedule {
    /// The inputs.
    pub inputs: SpiderInputs,
    /// The constants.
    pub constants: SpiderConstants,
    /// The calibration.
    pub calibration: Calibration,
    /// Rounds `K` (integer, after the ceiling, digest P6).
    pub rounds: u64,
    /// `log c` of the decay `c = 1 + F0^((2-k)/k)/(c_K gamma^2 L1)`.
    pub log_decay: f64,
    /// `beta' = (beta/K) (gamma L0 sqrt(K d)/(x F0^(1/k)))^(2-k)`.
    pub beta_prime: f64,
    /// `Phi_floor = min((c_f gamma L0 sqrt(K d log(1/beta'))/x)^k, F0)`.
    pub floor: f64,
    /// Round-start noise `sigma_hat` (recommended `2 L0 sqrt(K)/x` times the
    /// rounding margin `1 + 1e-9`, so `K` of them spend `<= rho/2` in floating
    /// point too; paper `L0 sqrt(K)/x`).
    pub sigma_hat: f64,
}

impl SpiderSchedule {
    /// The schedule, or `None` when the bracket
    /// `log F0 + kappa log(x/(gamma L0 sqrt d))` is not positive (the rate is
    /// trivial and Algorithm 1 returns `w0`, digest §2.1 and P10).
    pub fn new(
        inputs: SpiderInputs,
        constants: SpiderConstants,
        calibration: Calibration,
    ) -> Result<Option<Self>, RunFailure> {
        inputs.validate()?;
        let SpiderInputs {
            d,
            gamma,
            kappa,
            l0,
            l1,
            f0,
            beta,
            ..
        } = inputs;
        let x = inputs.x();
        let d = d as f64;
        let bracket = f0.ln() + kappa * (x / (gamma * l0 * d.sqrt())).ln();
        if bracket <= 0.0 {
            return Ok(None);
        }
        let e = (2.0 - kappa) / kappa;
        let ratio = f0.powf(e) / (constants.rounds * gamma * gamma * l1);
        let k_real = (1.0 + 1.0 / ratio) * bracket;
        if k_real > MAX_ROUNDS {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 1 needs K = {k_real:.3e} rounds (> {MAX_ROUNDS:e})"
            )));
        }
        let rounds = k_real.ceil() as u64;
        let kf = rounds as f64;
        let beta_prime = beta / kf
            * (gamma * l0 * (kf * d).sqrt() / (x * f0.powf(1.0 / kappa))).powf(2.0 - kappa);
        let floor = (constants.floor * gamma * l0 * (kf * d * (1.0 / beta_prime).ln()).sqrt() / x)
            .powf(kappa)
            .min(f0);
        let sigma_hat = match calibration {
            Calibration::Recommended => SIGMA_ROUNDING_MARGIN * 2.0 * l0 * kf.sqrt() / x,
            Calibration::PaperLiteral => l0 * kf.sqrt() / x,
        };
        Ok(Some(Self {
            inputs,
            constants,
            calibration,
            rounds,
            log_decay: ratio.ln_1p(),
            beta_prime,
            floor,
            sigma_hat,
        }))
    }

    /// Target `Phi_k = max(F0 c^(-k), Phi_floor)` of round `k` (`Phi_0 = F0`).
    pub fn target(&self, k: u64) -> f64 {
        (self.inputs.f0.ln() - k as f64 * self.log_decay)
            .exp()
            .max(self.floor)
            .min(self.inputs.f0)
    }

    /// Real inner length `T_k = (F0/Phi_k)^((2-k)/k)` (1 for `kappa = 2`).
    pub fn inner_length(&self, k: u64) -> f64 {
        let kappa = self.inputs.kappa;
        (self.inputs.f0 / self.target(k)).powf((2.0 - kappa) / kappa)
    }

    /// Maximum updates in round `k`: `M_k = ceil(T_k)` (recommended) or
    /// `floor(T_k) + 1` (the paper's `while t <= T_k`, digest P6).
    pub fn max_updates(&self, k: u64) -> u64 {
        let t = self.inner_length(k);
        match self.calibration {
            Calibration::Recommended => t.ceil() as u64,
            Calibration::PaperLiteral => t.floor() as u64 + 1,
        }
    }

    /// Spider-difference releases allowed in round `k`: `M_k - 1`
    /// (recommended) or one per update (paper).
    pub fn difference_releases(&self, k: u64) -> u64 {
        match self.calibration {
            Calibration::Recommended => self.max_updates(k) - 1,
            Calibration::PaperLiteral => self.max_updates(k),
        }
    }

    /// Step length `Phi_k^(1/k)/(4 gamma L1)`; also the difference clipping
    /// norm divided by `L1` (digest P1).
    pub fn step(&self, k: u64) -> f64 {
        let i = &self.inputs;
        self.target(k).powf(1.0 / i.kappa) / (4.0 * i.gamma * i.l1)
    }

    /// Difference noise `sigma_k`: recommended
    /// `Phi_k^(1/k)/(2 gamma n) sqrt(M'_k K / rho)` times the rounding margin
    /// `1 + 1e-9`, paper
    /// `Phi_k^(1/k) sqrt(T_k K)/(gamma n sqrt(rho))`.
    pub fn sigma_difference(&self, k: u64) -> f64 {
        let i = &self.inputs;
        let phi = self.target(k).powf(1.0 / i.kappa);
        let kf = self.rounds as f64;
        match self.calibration {
            Calibration::Recommended => {
                SIGMA_ROUNDING_MARGIN * phi / (2.0 * i.gamma * i.n as f64)
                    * (self.difference_releases(k) as f64 * kf / i.rho).sqrt()
            }
            Calibration::PaperLiteral => {
                phi * (self.inner_length(k) * kf).sqrt() / (i.gamma * i.x())
            }
        }
    }

    /// The exact worst-case trajectory radius `sum_k M_k step_k >= ||w - w0||`
    /// for every iterate (Lemma 1 holds w.p. 1; digest §2.1): compare with the
    /// family's region radius to confirm the constants apply.
    pub fn trajectory_radius(&self) -> f64 {
        (1..=self.rounds)
            .map(|k| self.max_updates(k) as f64 * self.step(k))
            .sum()
    }

    /// Theorem 1's deterministic w.h.p. bound `Phi_K` (digest §3.1: the theory
    /// curve of Algorithm 1).
    pub fn theory_bound(&self) -> f64 {
        self.target(self.rounds)
    }
}
