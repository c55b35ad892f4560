//! Separable convex terms of the smooth non-bilinear games (digest §6.3 G2)
//! and the exact water-filling maximisation over the simplex that gives
//! their population duality gap.
//!
//! A [`SeparablePenalty`] is `psi(w) = c sum_j p_j phi(w_j)` with `p` a
//! probability vector: the population version of the record term
//! `c phi(w_{k(z)})`, `k(z) ~ p`. All potentials here are even, so the
//! digest's random sign `s` (`phi(s w_k)`) changes neither `f` nor its
//! gradient and is omitted.
//!
//! [`max_linear_minus_penalty`] computes `max_{w in Delta} <c, w> - psi(w)`
//! by Lagrangian duality on the constraint `sum w = 1`:
//! `g(nu) = nu + sum_j max_{w_j in [0, 1]} ((c_j - nu) w_j - a_j phi(w_j))`,
//! `a_j = c p_j`, is convex and `>=` the maximum for every `nu` (weak
//! duality), with equality at the root of `sum_j w_j(nu) = 1` (strong
//! duality: concave objective, one linear constraint, compact box). The root
//! is bracketed and bisected to adjacent `f64`s, and the smaller of `g` at the
//! two ends is returned: exact up to rounding, `O(d)` per bisection step.

/// An even convex potential `phi` on `[-1, 1]` (digest §6.3 G2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Potential {
    /// `phi(u) = u^2 / 2`: `L2 = 0`, affine gradient (Thm 4.1 with `K = 1`).
    Quadratic,
    /// `phi(u) = log(cosh(kappa u)) / kappa`: `|phi'| <= 1`, `phi'' <= kappa`,
    /// `|phi'''| <= 4 kappa^2 / (3 sqrt 3)` (the 2/5 regime for large kappa).
    LogCosh {
        /// Sharpness `kappa > 0`.
        kappa: f64,
    },
    /// Huber `phi(u) = u^2/(2 kappa)` for `|u| <= kappa`, `|u| - kappa/2`
    /// otherwise, kink `kappa` in `(0, 1]`: first-order smooth only
    /// (`L2 = inf`, Thm 4.2).
    Huber {
        /// Kink `kappa` in `(0, 1]`.
        kappa: f64,
    },
}

impl Potential {
    /// `phi(u)`.
    pub fn value(self, u: f64) -> f64 {
        match self {
            Potential::Quadratic => 0.5 * u * u,
            Potential::LogCosh { kappa } => {
                let a = (kappa * u).abs();
                (a + (-2.0 * a).exp().ln_1p() - std::f64::consts::LN_2) / kappa
            }
            Potential::Huber { kappa } => {
                let a = u.abs();
                if a <= kappa {
                    a * a / (2.0 * kappa)
                } else {
                    a - 0.5 * kappa
                }
            }
        }
    }

    /// `phi'(u)`.
    pub fn derivative(self, u: f64) -> f64 {
        match self {
            Potential::Quadratic => u,
            Potential::LogCosh { kappa } => (kappa * u).tanh(),
            Potential::Huber { kappa } => (u / kappa).clamp(-1.0, 1.0),
        }
    }

    /// `sup_{|u| <= 1} |phi'(u)| = phi'(1)`.
    pub fn derivative_bound(self) -> f64 {
        self.derivative(1.0)
    }

    /// `sup_{|u| <= 1} |phi''(u)|`.
    pub fn second_derivative_bound(self) -> f64 {
        match self {
            Potential::Quadratic => 1.0,
            Potential::LogCosh { kappa } => kappa,
            Potential::Huber { kappa } => 1.0 / kappa,
        }
    }

    /// `sup |phi'''|` (`inf` for Huber, whose `phi''` jumps).
    pub fn third_derivative_bound(self) -> f64 {
        match self {
            Potential::Quadratic => 0.0,
            Potential::LogCosh { kappa } => 4.0 * kappa * kappa / (3.0 * 3f64.sqrt()),
            Potential::Huber { .. } => f64::INFINITY,
        }
    }

    /// A maximiser over `[0, 1]` of `s w - a phi(w)` (`a >= 0`).
    pub fn box_argmax(self, s: f64, a: f64) -> f64 {
        if s <= 0.0 {
            return 0.0;
        }
        if a == 0.0 {
            return 1.0;
        }
        let r = s / a;
        let w = match self {
            Potential::Quadratic => r,
            Potential::LogCosh { kappa } if r < 1.0 => r.atanh() / kappa,
            Potential::Huber { kappa } if r < 1.0 => kappa * r,
            Potential::Huber { kappa } if r == 1.0 => kappa,
            _ => f64::INFINITY,
        };
        w.min(1.0)
    }
}

/// `psi(w) = coefficient * sum_j weights_j phi(w_j)` (digest §6.3 G2).
#[derive(Debug, Clone, PartialEq)]
pub struct SeparablePenalty {
    /// The potential `phi`.
    pub potential: Potential,
    /// The coefficient `c >= 0`.
    pub coefficient: f64,
    /// The law `p` of the record's coordinate `k(z)` (a probability vector).
    pub weights: Vec<f64>,
}

impl SeparablePenalty {
    /// A penalty with the uniform coordinate law `p_j = 1/d`.
    pub fn uniform(potential: Potential, coefficient: f64, d: usize) -> Self {
        Self {
            potential,
            coefficient,
            weights: vec![1.0 / d as f64; d],
        }
    }

    /// `psi(w)` for a dense `w`.
    pub fn value(&self, w: &[f64]) -> f64 {
        self.coefficient
            * w.iter()
                .zip(&self.weights)
                .map(|(&u, &p)| p * self.potential.value(u))
                .sum::<f64>()
    }
}

/// `g(nu)` of the module docs and `sum_j w_j(nu)`.
fn dual(c: &[f64], pen: &SeparablePenalty, nu: f64) -> (f64, f64) {
    let mut g = nu;
    let mut mass = 0.0;
    for (&cj, &pj) in c.iter().zip(&pen.weights) {
        let a = pen.coefficient * pj;
        let s = cj - nu;
        let w = pen.potential.box_argmax(s, a);
        g += s * w - a * pen.potential.value(w);
        mass += w;
    }
    (g, mass)
}

/// `max_{w in Delta} <c, w> - psi(w)` exactly (module docs); with no
/// penalty, `max_j c_j` (a max over vertices).
pub fn max_linear_minus_penalty(c: &[f64], penalty: Option<&SeparablePenalty>) -> f64 {
    let cmax = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let Some(pen) = penalty else {
        return cmax;
    };
    let slope = pen.potential.derivative_bound();
    let mut lo = c
        .iter()
        .zip(&pen.weights)
        .map(|(&cj, &pj)| cj - pen.coefficient * pj * slope)
        .fold(f64::INFINITY, f64::min)
        - 1.0;
    let mut hi = cmax;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if dual(c, pen, mid).1 >= 1.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    dual(c, pen, lo).0.min(dual(c, pen, hi).0)
}
