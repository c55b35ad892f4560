//! Deterministic 1-D quadrature for expectations over the unit sphere
//! (Lowy–Razaviyayn digest §8 E3, last bullet "Non-smooth SCO"; P20: the
//! population loss must come from closed forms or 1-D quadrature, never from
//! Monte Carlo).
//!
//! For `u ~ Unif(S^(d-1))` and a fixed unit vector `e`, `t = u . e` has density
//! proportional to `(1 - t^2)^((d-3)/2)` on `[-1, 1]`. With `t = cos(theta)`
//! the density of `theta` on `[0, pi]` is proportional to `sin(theta)^(d-2)`,
//! which is bounded for every `d >= 2` (the `d = 2` endpoint singularities of
//! the `t`-density disappear). The integrand is folded onto `[0, pi/2]` using
//! the symmetry `t -> -t` of the law, and integrated by adaptive bisection
//! with a 16-point Gauss–Legendre rule whose error estimate is the difference
//! between the one-panel and the two-half-panel results.

use std::f64::consts::FRAC_PI_2;

/// Number of Gauss–Legendre nodes per panel.
const GL_NODES: usize = 16;
/// Maximum bisection depth of [`integrate_adaptive`].
const MAX_DEPTH: u32 = 48;
/// Maximum number of panels [`integrate_adaptive`] examines before accepting
/// the remaining ones as they are (their errors still enter the estimate).
const MAX_PANELS: usize = 20_000;
/// Default relative tolerance of [`sphere_expectation`].
pub const DEFAULT_REL_TOL: f64 = 1e-13;

/// A quadrature result with its estimated absolute error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadEstimate {
    /// The integral (or expectation) estimate.
    pub value: f64,
    /// Estimated absolute error (sum of the accepted panels' estimates).
    pub abs_error: f64,
}

/// The `n`-point Gauss–Legendre rule on `[-1, 1]` as `(node, weight)` pairs,
/// nodes ascending, computed by Newton's method on the three-term Legendre
/// recurrence (nodes accurate to about one ulp).
///
/// # Panics
/// If `n == 0`.
pub fn gauss_legendre_rule(n: usize) -> Vec<(f64, f64)> {
    assert!(n >= 1, "gauss_legendre_rule: n must be >= 1");
    let nf = n as f64;
    let mut rule = vec![(0.0, 0.0); n];
    for i in 0..n.div_ceil(2) {
        // Tricomi's initial guess for the i-th largest root.
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (nf + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            let (p, d) = legendre_and_derivative(n, x);
            dp = d;
            let dx = p / d;
            x -= dx;
            if dx.abs() <= 1e-16 {
                break;
            }
        }
        let (_, d) = legendre_and_derivative(n, x);
        if d.is_finite() && d != 0.0 {
            dp = d;
        }
        let w = 2.0 / ((1.0 - x * x) * dp * dp);
        rule[n - 1 - i] = (x, w);
        rule[i] = (-x, w);
    }
    rule
}

/// `(P_n(x), P_n'(x))` by the Bonnet recurrence.
fn legendre_and_derivative(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    for k in 2..=n {
        let kf = k as f64;
        let p2 = ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf;
        p0 = p1;
        p1 = p2;
    }
    (p1, n as f64 * (x * p1 - p0) / (x * x - 1.0))
}

/// One Gauss–Legendre panel on `[a, b]`.
fn panel<F: Fn(f64) -> f64>(f: &F, rule: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    half * rule
        .iter()
        .map(|&(x, w)| w * f(mid + half * x))
        .sum::<f64>()
}

/// Adaptive Gauss–Legendre quadrature of `f` on `[a, b]` to absolute
/// tolerance `abs_tol`: a panel is accepted when its one-panel and
/// two-half-panel values differ by at most `abs_tol * (panel length) / (b - a)`
/// (the more accurate half-panel sum is kept), when they agree to working
/// precision, at depth 48, or once 20 000 panels have been examined.
pub fn integrate_adaptive<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, abs_tol: f64) -> QuadEstimate {
    let rule = gauss_legendre_rule(GL_NODES);
    let total_len = (b - a).abs();
    let mut out = QuadEstimate {
        value: 0.0,
        abs_error: 0.0,
    };
    if total_len == 0.0 {
        return out;
    }
    let mut stack = vec![(a, b, panel(&f, &rule, a, b), 0u32)];
    let mut panels = 0usize;
    while let Some((lo, hi, whole, depth)) = stack.pop() {
        panels += 1;
        let mid = 0.5 * (lo + hi);
        let (left, right) = (panel(&f, &rule, lo, mid), panel(&f, &rule, mid, hi));
        let err = (whole - (left + right)).abs();
        let budget = abs_tol * (hi - lo).abs() / total_len;
        // The rounding floor stops bisection where the two values agree to
        // working precision, so the loop cannot blow up on a tight tolerance.
        let floor = 256.0 * f64::EPSILON * (left.abs() + right.abs());
        let exhausted = depth >= MAX_DEPTH || panels >= MAX_PANELS;
        if err <= budget.max(floor) || exhausted || !err.is_finite() {
            out.value += left + right;
            out.abs_error += err;
        } else {
            stack.push((lo, mid, left, depth + 1));
            stack.push((mid, hi, right, depth + 1));
        }
    }
    out
}

/// `E[g(u . e)]` for `u ~ Unif(S^(d-1))`, with an error estimate; the
/// absolute tolerance is `rel_tol` times `E|g|` (estimated first). For
/// `d = 1`, `S^0 = {-1, +1}` and the expectation is `(g(1) + g(-1))/2` exactly.
///
/// # Panics
/// If `d == 0`.
pub fn sphere_expectation_estimate<G: Fn(f64) -> f64>(
    d: usize,
    g: G,
    rel_tol: f64,
) -> QuadEstimate {
    assert!(d >= 1, "sphere_expectation: d must be >= 1");
    if d == 1 {
        return QuadEstimate {
            value: 0.5 * (g(1.0) + g(-1.0)),
            abs_error: 0.0,
        };
    }
    let k = (d - 2) as f64;
    // sin^k(theta) = exp(k ln sin theta); near the peak theta = pi/2 the log is
    // taken as ln_1p(-cos^2)/2, so its rounding is not amplified by k.
    let weight = |theta: f64| {
        if k == 0.0 {
            return 1.0;
        }
        let (s, c) = theta.sin_cos();
        let ln_sin = if s >= c {
            0.5 * (-c * c).ln_1p()
        } else {
            s.ln()
        };
        (k * ln_sin).exp()
    };
    // Folded integrand on [0, pi/2]: the law of t is symmetric.
    let folded = |theta: f64| {
        let t = theta.cos();
        0.5 * (g(t) + g(-t)) * weight(theta)
    };
    let norm = integrate_adaptive(weight, 0.0, FRAC_PI_2, rel_tol * 1e-2);
    // Coarse estimate of E|g| sets the absolute tolerance of the main pass.
    let rule = gauss_legendre_rule(GL_NODES);
    let coarse: f64 = (0..8)
        .map(|j| {
            let (lo, hi) = (FRAC_PI_2 * j as f64 / 8.0, FRAC_PI_2 * (j + 1) as f64 / 8.0);
            panel(&|th: f64| folded(th).abs(), &rule, lo, hi)
        })
        .sum();
    let tol = (rel_tol * coarse).max(f64::MIN_POSITIVE);
    let num = integrate_adaptive(folded, 0.0, FRAC_PI_2, tol);
    QuadEstimate {
        value: num.value / norm.value,
        abs_error: (num.abs_error + (num.value * norm.abs_error / norm.value).abs()) / norm.value,
    }
}

/// `E[g(u . e)]` for `u ~ Unif(S^(d-1))` by deterministic quadrature, relative
/// accuracy about `1e-13` for smooth `g` (relative to `E|g|`), see
/// [`sphere_expectation_estimate`].
///
/// # Panics
/// If `d == 0`.
pub fn sphere_expectation<G: Fn(f64) -> f64>(d: usize, g: G) -> f64 {
    sphere_expectation_estimate(d, g, DEFAULT_REL_TOL).value
}
