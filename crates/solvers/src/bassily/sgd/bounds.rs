//! Theory curves of the SGD side of Bassily et al. (digest §2.1, §2.2, §3,
//! E4). `R = max(1/sqrt(n), sqrt(d Lambda)/(eps n))` is
//! [`crate::bassily::rate::rate`]; every upper bound is meaningful only as
//! `min(2 M L, .)` ([`capped_at_trivial`]): `w_0 = 0` already achieves excess
//! `<= 2 M L`.

use crate::bassily::rate::{log_inv_delta, rate};

/// The problem size and privacy a curve is evaluated at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// Records `n`.
    pub n: f64,
    /// Dimension `d`.
    pub d: f64,
    /// Privacy `eps`.
    pub eps: f64,
    /// Privacy `delta` (`Lambda = ln(1/delta)`).
    pub delta: f64,
    /// Radius `M`.
    pub radius: f64,
    /// Lipschitz constant `L`.
    pub lipschitz: f64,
}

impl CurvePoint {
    fn ml(&self) -> f64 {
        self.radius * self.lipschitz
    }
    fn d_lambda(&self) -> f64 {
        self.d * log_inv_delta(self.delta)
    }
}

/// `min(2 M L, bound)`.
pub fn capped_at_trivial(bound: f64, radius: f64, lipschitz: f64) -> f64 {
    bound.min(2.0 * radius * lipschitz)
}

/// `B_NSGD(T) = M L [1/sqrt(T) + 8 sqrt(T) d Lambda/(n^2 eps^2) + 2 sqrt(T)/n]`,
/// the exact right-hand side of the Theorem 3.2 proof with `eta = M/(L sqrt T)`
/// (Lemma 3.3 + Lemma 3.4 as stated), valid for any integer `T >= 1`.
pub fn b_nsgd(p: &CurvePoint, steps: u64) -> f64 {
    let t = steps as f64;
    p.ml()
        * (1.0 / t.sqrt()
            + 8.0 * t.sqrt() * p.d_lambda() / (p.n * p.n * p.eps * p.eps)
            + 2.0 * t.sqrt() / p.n)
}

/// `10 M L R`, Theorem 3.2 as stated.
pub fn b_nsgd_stated(p: &CurvePoint) -> f64 {
    10.0 * p.ml() * rate(p.n, p.d, p.eps, p.delta)
}

/// Lemma 3.3 as printed (with the proof's `Lambda`, digest §2.1):
/// `M^2/(2 eta T) + (eta L^2/2)(16 T d Lambda/(n^2 eps^2) + 1)`.
pub fn lemma_3_3_empirical(p: &CurvePoint, step_size: f64, steps: u64) -> f64 {
    let t = steps as f64;
    let l2 = p.lipschitz * p.lipschitz;
    p.radius * p.radius / (2.0 * step_size * t)
        + 0.5 * step_size * l2 * (16.0 * t * p.d_lambda() / (p.n * p.n * p.eps * p.eps) + 1.0)
}

/// The excess-empirical bound of the implementation: `M^2/(2 eta T) +
/// eta L^2 (1 + 1/m)/2 + eta d sigma^2` for noise std `sigma` on the mean.
/// The `(1 + 1/m)`: with Poisson batches normalised by the fixed `m`,
/// `E||g||^2 <= L^2 + n q L^2/m^2 = L^2 (1 + 1/m)` (the printed lemma has 1,
/// valid for sampling with replacement).
pub fn lemma_3_3_poisson(
    p: &CurvePoint,
    step_size: f64,
    steps: u64,
    batch: usize,
    sigma: f64,
) -> f64 {
    lemma_3_3_noisy(p, step_size, steps, 1.0 + 1.0 / batch as f64, sigma)
}

/// The excess-empirical bound with Algorithm 1's own with-replacement
/// batches: [`lemma_3_3_poisson`] without its `1/m` (each of the `m` draws'
/// gradients has norm at most `L`, so their mean does, `E||g||^2 <= L^2`, as
/// the printed lemma has it): `M^2/(2 eta T) + eta L^2/2 + eta d sigma^2`.
pub fn lemma_3_3_with_replacement(p: &CurvePoint, step_size: f64, steps: u64, sigma: f64) -> f64 {
    lemma_3_3_noisy(p, step_size, steps, 1.0, sigma)
}

/// Lemma 3.3 with the noise used: `M^2/(2 eta T) + eta L^2 k/2 + eta d
/// sigma^2`, where `E||g||^2 <= k L^2` bounds the batch mean's second moment
/// (`k` = 1 with replacement, `1 + 1/m` for Poisson batches over the fixed
/// `m`).
fn lemma_3_3_noisy(
    p: &CurvePoint,
    step_size: f64,
    steps: u64,
    second_moment: f64,
    sigma: f64,
) -> f64 {
    let l2 = p.lipschitz * p.lipschitz;
    p.radius * p.radius / (2.0 * step_size * steps as f64)
        + 0.5 * step_size * l2 * second_moment
        + step_size * p.d * sigma * sigma
}

/// Lemma 3.4 stability `2 L^2 eta (T + 1)/n` (the proof's `T + 1`, P17).
pub fn lemma_3_4_stability(p: &CurvePoint, step_size: f64, steps: u64) -> f64 {
    2.0 * p.lipschitz * p.lipschitz * step_size * (steps as f64 + 1.0) / p.n
}

/// Lemma 3.4 as stated, `2 L^2 eta T/n`.
pub fn lemma_3_4_stability_stated(p: &CurvePoint, step_size: f64, steps: u64) -> f64 {
    2.0 * p.lipschitz * p.lipschitz * step_size * steps as f64 / p.n
}

/// The population bound the implementation satisfies for smooth losses
/// (`eta beta <= 1`): [`lemma_3_3_poisson`] + [`lemma_3_4_stability`].
pub fn b_nsgd_implemented(
    p: &CurvePoint,
    step_size: f64,
    steps: u64,
    batch: usize,
    sigma: f64,
) -> f64 {
    lemma_3_3_poisson(p, step_size, steps, batch, sigma) + lemma_3_4_stability(p, step_size, steps)
}

/// `14 M L R`: Theorem 4.4 with the unconstrained envelope (derived, P21).
pub fn b_moreau_unconstrained(p: &CurvePoint) -> f64 {
    14.0 * p.ml() * rate(p.n, p.d, p.eps, p.delta)
}

/// `24 M L R`: Theorem 4.4 as printed (constrained envelope, `2L`).
pub fn b_moreau_paper(p: &CurvePoint) -> f64 {
    24.0 * p.ml() * rate(p.n, p.d, p.eps, p.delta)
}

/// The smoothing gap `L^2/(2 beta_env)` of Theorem 4.4.
pub fn moreau_smoothing_gap(p: &CurvePoint) -> f64 {
    let beta =
        p.lipschitz / p.radius * (0.25 * p.n.sqrt()).min(p.eps * p.n / (8.0 * p.d_lambda().sqrt()));
    p.lipschitz * p.lipschitz / (2.0 * beta)
}

/// E4 curve, uniform convergence plus optimal DP-ERM:
/// `sqrt(d/n) + sqrt(d Lambda)/(eps n)` (shape; `M L` omitted).
pub fn uniform_convergence_dp_erm(n: f64, d: f64, eps: f64, delta: f64) -> f64 {
    (d / n).sqrt() + (d * log_inv_delta(delta)).sqrt() / (eps * n)
}

/// E4 curve, \[BST14\] via DP-generalization: `max(d^{1/4}/sqrt(n), sqrt(d)/(eps n))`
/// (shape; constants, `delta`, `M L` omitted).
pub fn bst14_dp_generalization(n: f64, d: f64, eps: f64) -> f64 {
    (d.powf(0.25) / n.sqrt()).max(d.sqrt() / (eps * n))
}

/// E4 curve, \[BST14\] via regularization: `d^{1/4}/sqrt(eps n)` (shape).
pub fn bst14_regularization(n: f64, d: f64, eps: f64) -> f64 {
    d.powf(0.25) / (eps * n).sqrt()
}

/// Appendix C lower-bound shape `M L max(1/sqrt(n), sqrt(d)/(eps n))` (with
/// the `eps` the printed formula drops; no constant is known).
pub fn lower_bound_shape(p: &CurvePoint) -> f64 {
    p.ml() * (1.0 / p.n.sqrt()).max(p.d.sqrt() / (p.eps * p.n))
}
