//! The regularization `lambda` of Theorem 5.3 and the theory curves of
//! objective perturbation (digest §2.3, §2.4, §3, P13).
//!
//! Notation: `Lambda = ln(1/delta)` (natural log, P14) and
//! `s = 2/n + 4 d Lambda/(eps^2 n^2)`, so that `lambda = (2L/M) sqrt(s)`.
//!
//! - Theorem 5.3 as **corrected** (default curve): the proof's own bound
//!   `(8/lambda)(2 L^2 d Lambda/(eps^2 n^2) + L^2/n) + lambda M^2 =
//!   4 L^2 s/lambda + lambda M^2` is minimized at exactly this `lambda`, with
//!   value `4 M L sqrt(s)`; the paper prints `2 M L sqrt(s)` (P13), kept as
//!   [`ObjPSetting::theorem_5_3_printed`].
//! - Lemma 5.4 (\[KST12, Thm 26\]): `16 L^2 d Lambda/(n^2 eps^2 lambda) +
//!   lambda M^2`, and the tighter derived form valid for any `sigma_G`:
//!   `2 lambda`-strong convexity of the perturbed objective gives
//!   `L_hat(w_hat) - L_hat(w_dagger) <= ||G||^2/(4 lambda n^2) + lambda M^2`,
//!   so `E <= d sigma_G^2/(4 lambda n^2) + lambda M^2`.
//! - Lemma 5.5 stability with `rho = L + ||G||/n`, averaged over `G` by
//!   Jensen (`E (L + X)^2 <= (L + sqrt(E X^2))^2`):
//!   `2 L^2 (1 + sqrt(d) sigma_G/(L n))^2/(lambda n)`.
//! - `B_ObjP[sigma_G^2]` = derived empirical + stability, and the derived
//!   `B_ObjP-App = B_ObjP[sigma_G^2] + L (sqrt(2 alpha/lambda) + sqrt(d)
//!   sigma_H)`: the population loss is `L`-Lipschitz, the projection onto `W`
//!   does not move `w2 + H` farther from `w1` in `W`, `||w2 - w1|| <=
//!   sqrt(2 alpha/lambda)` (the paper's Eq. 3; `sqrt(alpha/lambda)` with the
//!   true `2 lambda`-strong convexity, kept conservative as in the digest) and
//!   `E||H|| <= sqrt(d) sigma_H`. With `alpha = M^2 lambda/n^2` and the
//!   printed `sigma_H^2 = 40 alpha Lambda/(lambda eps^2)` the extra term is
//!   exactly the digest's `L M (sqrt(2)/n + sqrt(40 d Lambda)/(eps n))`.
//!
//! Every bound is on the expected excess population loss (or empirical loss
//! for the empirical terms) and may be read as `min(2 M L, .)`.

use crate::bassily::rate::log_inv_delta;
use dpcore::{Objective, PrivacyParams};

/// The quantities every objective-perturbation formula depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjPSetting {
    /// Number of records `n`.
    pub n: f64,
    /// Dimension `d`.
    pub d: f64,
    /// Privacy parameter `eps`.
    pub eps: f64,
    /// Privacy parameter `delta`.
    pub delta: f64,
    /// Lipschitz constant `L` of each loss on `W`.
    pub lipschitz: f64,
    /// Radius `M` of `W = B(0, M)`.
    pub radius: f64,
}

impl ObjPSetting {
    /// The setting of `problem` at `privacy` (`L` and `M` from its constants).
    pub fn from_problem(problem: &dyn Objective, privacy: PrivacyParams) -> Self {
        let c = problem.constants();
        Self {
            n: problem.num_records() as f64,
            d: problem.dim() as f64,
            eps: privacy.eps,
            delta: privacy.delta,
            lipschitz: c.lipschitz,
            radius: c.radius,
        }
    }

    /// `Lambda = ln(1/delta)`.
    pub fn log_inv_delta(&self) -> f64 {
        log_inv_delta(self.delta)
    }

    /// `s = 2/n + 4 d Lambda/(eps^2 n^2)`.
    pub fn rate_term(&self) -> f64 {
        let en = self.eps * self.n;
        2.0 / self.n + 4.0 * self.d * self.log_inv_delta() / (en * en)
    }

    /// `lambda = (2L/M) sqrt(2/n + 4 d Lambda/(eps^2 n^2))` (Theorem 5.3).
    pub fn lambda(&self) -> f64 {
        2.0 * self.lipschitz / self.radius * self.rate_term().sqrt()
    }

    /// `sigma_G = sqrt(10 L^2 Lambda)/eps`, the noise of Algorithm 2.
    pub fn sigma_g_objp(&self) -> f64 {
        (10.0 * self.log_inv_delta()).sqrt() * self.lipschitz / self.eps
    }

    /// Theorem 5.7's accuracy `alpha = M^2 lambda/n^2`.
    pub fn theorem_5_7_alpha(&self, lambda: f64) -> f64 {
        self.radius * self.radius * lambda / (self.n * self.n)
    }

    /// Corrected Theorem 5.3 bound `4 M L sqrt(s)` (P13; default curve).
    /// The proof also assumes `sqrt(10 d Lambda)/(eps n) <= 1`; otherwise read
    /// it as `min(2 M L, .)`.
    pub fn theorem_5_3(&self) -> f64 {
        4.0 * self.radius * self.lipschitz * self.rate_term().sqrt()
    }

    /// Theorem 5.3 as printed, `2 M L sqrt(s)` (not implied by its proof).
    pub fn theorem_5_3_printed(&self) -> f64 {
        0.5 * self.theorem_5_3()
    }

    /// The trivial bound `2 M L` that any point of `W` achieves.
    pub fn trivial_bound(&self) -> f64 {
        2.0 * self.radius * self.lipschitz
    }

    /// The right-hand side of the Theorem 5.3 proof at any `lambda`:
    /// `(8/lambda)(2 L^2 d Lambda/(eps^2 n^2) + L^2/n) + lambda M^2`.
    pub fn proof_bound(&self, lambda: f64) -> f64 {
        let l2 = self.lipschitz * self.lipschitz;
        let en = self.eps * self.n;
        8.0 / lambda * (2.0 * l2 * self.d * self.log_inv_delta() / (en * en) + l2 / self.n)
            + lambda * self.radius * self.radius
    }

    /// Lemma 5.4 as printed: `16 L^2 d Lambda/(n^2 eps^2 lambda) + lambda M^2`.
    pub fn lemma_5_4(&self, lambda: f64) -> f64 {
        let en = self.eps * self.n;
        16.0 * self.lipschitz * self.lipschitz * self.d * self.log_inv_delta() / (en * en * lambda)
            + lambda * self.radius * self.radius
    }

    /// Derived excess empirical bound `d sigma_G^2/(4 lambda n^2) + lambda M^2`
    /// (module doc), valid for any convex loss and any `sigma_G`.
    pub fn empirical_bound(&self, lambda: f64, sigma_g: f64) -> f64 {
        self.d * sigma_g * sigma_g / (4.0 * lambda * self.n * self.n)
            + lambda * self.radius * self.radius
    }

    /// Lemma 5.5 averaged over `G`: `2 L^2 (1 + sqrt(d) sigma_G/(L n))^2/(lambda n)`.
    pub fn stability_bound(&self, lambda: f64, sigma_g: f64) -> f64 {
        let l = self.lipschitz;
        let ratio = 1.0 + self.d.sqrt() * sigma_g / (l * self.n);
        2.0 * l * l * ratio * ratio / (lambda * self.n)
    }

    /// `B_ObjP[sigma_G^2]` = [`Self::empirical_bound`] + [`Self::stability_bound`].
    pub fn objp_bound(&self, lambda: f64, sigma_g: f64) -> f64 {
        self.empirical_bound(lambda, sigma_g) + self.stability_bound(lambda, sigma_g)
    }

    /// Derived `B_ObjP-App = B_ObjP[sigma_G^2] + L (sqrt(2 alpha/lambda) +
    /// sqrt(d) sigma_H)` (module doc).
    pub fn objp_app_bound(&self, lambda: f64, sigma_g: f64, alpha: f64, sigma_h: f64) -> f64 {
        self.objp_bound(lambda, sigma_g)
            + self.lipschitz * ((2.0 * alpha / lambda).sqrt() + self.d.sqrt() * sigma_h)
    }
}
