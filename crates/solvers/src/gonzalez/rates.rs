//! Theory curves of González, Guzmán & Paquette (digest §4, §9), with the
//! absolute constants set to 1 except where the digest gives explicit ones
//! (plug-in bound of §4.1, Thm G.1). Natural logs throughout; `M` uses
//! `log2` (pitfall 26). `l = ln d_x + ln d_y`, `Lambda = ln(1/delta)`,
//! `r = l^{3/2} sqrt(Lambda) / (n eps)`.

use dpcore::saddle::SimplexConstants;

/// `l = ln d_x + ln d_y`.
pub fn log_dims(dx: usize, dy: usize) -> f64 {
    (dx as f64).ln() + (dy as f64).ln()
}

/// `r = l^{3/2} sqrt(ln(1/delta)) / (n eps)`.
pub fn private_ratio(l: f64, n: f64, eps: f64, delta: f64) -> f64 {
    l.powf(1.5) * (1.0 / delta).ln().sqrt() / (n * eps)
}

/// Thm 4.1 with `L2 = 0` (bilinear / quadratic, `K = 1`):
/// `(L0 + L1) (sqrt(l/n) + r^{1/2})`.
pub fn alg1_quadratic_rate(
    c: SimplexConstants,
    n: f64,
    eps: f64,
    delta: f64,
    dx: usize,
    dy: usize,
) -> f64 {
    let l = log_dims(dx, dy);
    (c.l0 + c.l1) * ((l / n).sqrt() + private_ratio(l, n, eps, delta).sqrt())
}

/// Thm 4.1 (second-order smooth): `(L0 + L1 + L2) (sqrt(l/n) + r^{2/5})`.
pub fn alg1_second_order_rate(
    c: SimplexConstants,
    n: f64,
    eps: f64,
    delta: f64,
    dx: usize,
    dy: usize,
) -> f64 {
    let l = log_dims(dx, dy);
    (c.l0 + c.l1 + c.l2) * ((l / n).sqrt() + private_ratio(l, n, eps, delta).powf(0.4))
}

/// Thm 4.2 (first-order smooth): `(L0 + L1) (sqrt(l/n) + r^{1/3})`.
pub fn alg1_first_order_rate(
    c: SimplexConstants,
    n: f64,
    eps: f64,
    delta: f64,
    dx: usize,
    dy: usize,
) -> f64 {
    let l = log_dims(dx, dy);
    (c.l0 + c.l1) * ((l / n).sqrt() + private_ratio(l, n, eps, delta).cbrt())
}

/// The Maurey gradient bias bound `beta_K` (digest §4.1): 0 for affine
/// gradients, `2 L2 / K` (Cor. D.1) if `L2` is finite, else `4 L1 / sqrt K`
/// (Cor. D.2).
pub fn maurey_gradient_bias_bound(c: SimplexConstants, k: usize) -> f64 {
    let k = k as f64;
    if c.affine_gradient {
        0.0
    } else if c.l2.is_finite() {
        (2.0 * c.l2 / k).min(4.0 * c.l1 / k.sqrt())
    } else {
        4.0 * c.l1 / k.sqrt()
    }
}

/// Lemma 4.2 (proof's constant, digest pitfall 11): the expected
/// sparsification penalty `Gap(x~, y~) - Gap(x_bar, y_bar) <= 4 L1/T + 4 L1 sqrt(l/T)`.
pub fn sparsification_penalty_bound(l1: f64, l: f64, t: usize) -> f64 {
    let t = t as f64;
    4.0 * l1 / t + 4.0 * l1 * (l / t).sqrt()
}

/// The explicit plug-in upper bound of Alg. 1 for its realised `(T, tau, K)`
/// (digest §4.1): `2 l/(tau T) + 5 tau L0^2 + 4 beta_K + 4 L1/T + 4 L1 sqrt(l/T)`.
/// Measured `E Gap` must lie below it.
pub fn alg1_plug_in_bound(c: SimplexConstants, l: f64, t: usize, tau: f64, k: usize) -> f64 {
    2.0 * l / (tau * t as f64)
        + 5.0 * tau * c.l0 * c.l0
        + 4.0 * maurey_gradient_bias_bound(c, k)
        + sparsification_penalty_bound(c.l1, l, t)
}

/// Thm 4.3 (Alg. 3, probability 0.99): `sqrt(l G^2 M^2 / U)` with
/// `G^2 = L0^2 + L2^2 + l L1^2`, `U = min(n eps G / (sqrt(15552 l Lambda) L0), n/2)`,
/// `M = log2 sqrt U` (digest §9).
pub fn alg3_rate(c: SimplexConstants, n: f64, eps: f64, delta: f64, dx: usize, dy: usize) -> f64 {
    let l = log_dims(dx, dy);
    let g2 = c.l0 * c.l0 + c.l2 * c.l2 + l * c.l1 * c.l1;
    let lam = (1.0 / delta).ln();
    let u = (n * eps * g2.sqrt() / ((15552.0 * l * lam).sqrt() * c.l0)).min(n / 2.0);
    let m = u.sqrt().log2();
    (l * g2 * m * m / u).sqrt()
}

/// Thm 5.1, first-order smooth (as printed, digest §9 `R_Alg4_fo`).
pub fn alg4_first_order_rate(c: SimplexConstants, n: f64, eps: f64, delta: f64, dx: usize) -> f64 {
    let lx = (dx as f64).ln();
    let lam = (1.0 / delta).ln();
    let ne = n * eps;
    (c.l0 + c.l1) * ((lx / n).sqrt() + c.l0 * lx.powf(0.7) * lam.powf(0.2) / ne.powf(0.4))
        + c.l1
            * (n.sqrt() * lx).ln()
            * (1.0 / (lx * n.sqrt()) + lam.powf(0.2) / (lx.powf(0.8) * ne.powf(0.4)))
}

/// Thm 5.1, second-order smooth (digest §9 `R_Alg4_so`).
pub fn alg4_second_order_rate(c: SimplexConstants, n: f64, eps: f64, delta: f64, dx: usize) -> f64 {
    let lx = (dx as f64).ln();
    let lam = (1.0 / delta).ln();
    let ne = n * eps;
    (c.l0 + c.l1) * ((lx / n).sqrt() + lx * lam.powf(0.25) / ne.sqrt())
        + c.l2 / (n.sqrt() * lx.powf(0.25))
        + c.l2 * lx.powf(0.25) * lam.powf(0.25) / ne.sqrt()
        + c.l1 * (n * lx).sqrt().ln() * (1.0 / n.sqrt() + lam.powf(0.25) / ne.sqrt())
}

/// Thm G.1 with its explicit constants: `20 sqrt(ln|Q|/n) + 2 (12 + C/3)
/// (Lambda ln|Z|)^{1/4} sqrt(ln|Q|) / sqrt(n eps)`, `C = ln|Q| / ln|Z|`.
pub fn alg5_bound(n: f64, eps: f64, delta: f64, domain: usize, queries: usize) -> f64 {
    let (lz, lq) = ((domain as f64).ln(), (queries as f64).ln());
    let lam = (1.0 / delta).ln();
    20.0 * (lq / n).sqrt()
        + 2.0 * (12.0 + lq / lz / 3.0) * (lam * lz).powf(0.25) * lq.sqrt() / (n * eps).sqrt()
}

/// The optimal polyhedral DP-SCO rate (Asi et al. 2021b, Table 1):
/// `sqrt(l_x/n) + (l_x/(n eps))^{2/3}`.
pub fn asi_frank_wolfe_rate(n: f64, eps: f64, dx: usize) -> f64 {
    let lx = (dx as f64).ln();
    (lx / n).sqrt() + (lx / (n * eps)).powf(2.0 / 3.0)
}

/// The SSP lower bound shape (Remark 4.1): `sqrt(l/n) + r^{1/2}`.
pub fn ssp_lower_bound(n: f64, eps: f64, delta: f64, dx: usize, dy: usize) -> f64 {
    let l = log_dims(dx, dy);
    (l / n).sqrt() + private_ratio(l, n, eps, delta).sqrt()
}

/// Expected private error of the Euclidean DP-SGDA baseline (digest §7.4):
/// `L0 d^{3/4} Lambda^{1/4} / sqrt(n eps)`, `d = d_x + d_y`, capped at the
/// trivial `4 L0`.
pub fn euclidean_sgda_rate(l0: f64, n: f64, eps: f64, delta: f64, d: usize) -> f64 {
    let lam = (1.0 / delta).ln();
    (l0 * (d as f64).powf(0.75) * lam.powf(0.25) / (n * eps).sqrt()).min(4.0 * l0)
}
