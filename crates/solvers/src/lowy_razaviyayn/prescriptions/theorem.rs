//! [`Theorem`]: which theorem's prescription a run uses, dispatching to the
//! `alpha_*` and `lambda_*` functions (digest §3.8).

use super::{
    alpha_thm_3_1, alpha_thm_3_2, alpha_thm_5_1, alpha_thm_5_2, alpha_thm_5_3, alpha_thm_c_1,
    alpha_thm_c_2, lambda_prop_2_7, lambda_prop_2_8, Form, Setting,
};
use dpcore::{ProblemConstants, RunFailure};

/// Which theorem's prescription a run uses (digest §3.8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Theorem {
    /// Thm 3.1 (`F^ERM`, Algorithm 1 + SGD, projected output).
    Thm3_1,
    /// Thm 3.2 (`H^ERM`, Algorithm 1 + Katyusha).
    Thm3_2,
    /// Thm C.1 (`G^ERM`, Algorithm 7 + SGD, `lambda` of Prop 2.7).
    ThmC1,
    /// Thm C.2 (`J^ERM`, Algorithm 7 + Katyusha, `lambda` of Prop 2.8).
    ThmC2,
    /// Thm 5.1 (TERM, full subgradient method).
    Thm5_1 {
        /// `ln C_tau = tau (A_R - a_R)`.
        log_c_tau: f64,
    },
    /// Thm 5.2 (smooth TERM, AGD).
    Thm5_2 {
        /// `ln C_tau = tau (A_R - a_R)`.
        log_c_tau: f64,
        /// Condition number `kappa_tau` of `F_tau`.
        kappa_tau: f64,
    },
    /// Thm 5.3 (adversarial training, Algorithm 6).
    Thm5_3,
}

impl Theorem {
    /// The regularized prescription for a convex class: Thm C.1 when the
    /// problem is non-smooth (`beta = inf`), Thm C.2 otherwise.
    pub fn regularized_for(c: &ProblemConstants) -> Self {
        if c.smoothness.is_finite() {
            Theorem::ThmC2
        } else {
            Theorem::ThmC1
        }
    }

    /// The theorem's label, e.g. `"Thm 3.1"`.
    pub fn label(&self) -> &'static str {
        match self {
            Theorem::Thm3_1 => "Thm 3.1",
            Theorem::Thm3_2 => "Thm 3.2",
            Theorem::ThmC1 => "Thm C.1",
            Theorem::ThmC2 => "Thm C.2",
            Theorem::Thm5_1 { .. } => "Thm 5.1",
            Theorem::Thm5_2 { .. } => "Thm 5.2",
            Theorem::Thm5_3 => "Thm 5.3",
        }
    }

    /// The prescribed accuracy `alpha` (dispatches to the `alpha_*` functions).
    pub fn alpha(&self, c: &ProblemConstants, at: &Setting) -> Result<f64, RunFailure> {
        match *self {
            Theorem::Thm3_1 => alpha_thm_3_1(c, at),
            Theorem::Thm3_2 => alpha_thm_3_2(c, at),
            Theorem::ThmC1 => alpha_thm_c_1(c, at),
            Theorem::ThmC2 => alpha_thm_c_2(c, at),
            Theorem::Thm5_1 { log_c_tau } => alpha_thm_5_1(c, at, log_c_tau),
            Theorem::Thm5_2 {
                log_c_tau,
                kappa_tau,
            } => alpha_thm_5_2(c, at, log_c_tau, kappa_tau),
            Theorem::Thm5_3 => alpha_thm_5_3(c, at),
        }
    }

    /// The prescribed `lambda`: Prop 2.7 for Thm C.1, Prop 2.8 for Thm C.2,
    /// `None` for the unregularized theorems.
    pub fn lambda(
        &self,
        c: &ProblemConstants,
        at: &Setting,
        form: Form,
    ) -> Result<Option<f64>, RunFailure> {
        match self {
            Theorem::ThmC1 => lambda_prop_2_7(c, at, form).map(Some),
            Theorem::ThmC2 => lambda_prop_2_8(c, at, form).map(Some),
            _ => Ok(None),
        }
    }
}
