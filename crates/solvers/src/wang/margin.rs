//! Exact geometric margin with a certified sandwich (digest §6.2, P17):
//! the minimum-norm point of `conv{z_i}`, `z_i = y_i x_i`, by the away-step
//! Frank–Wolfe method (Wolfe / Guélat–Marcotte) with exact line search.
//!
//! `gamma(S) = max_{||w|| = 1} min_i <w, z_i> = dist(0, conv{z_i})` when
//! positive and 0 otherwise (minimax on `||w|| <= 1`). Every iterate
//! `p in conv{z_i}` certifies `gamma(S) <= ||p||`, and `w = p/||p||` certifies
//! `gamma(S) >= Margin(w; S) = min_i <w, z_i>`. The final certificate is
//! recomputed from the convex weights (so rounding in the incremental update
//! cannot invalidate it).
//!
//! Cost `O(n d)` per iteration. With the anchor pair of the planted families
//! the first step lands exactly on `gamma* w*`.

/// Stopping rule of [`exact_margin`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarginOptions {
    /// Stop when `upper - max(lower, 0) <= rel_tol * upper`.
    pub rel_tol: f64,
    /// Declare the data not separable (margin 0) when `upper < abs_tol`.
    pub abs_tol: f64,
    /// Iteration cap (the certificate is still valid when reached).
    pub max_iterations: usize,
}

impl Default for MarginOptions {
    fn default() -> Self {
        Self {
            rel_tol: 1e-9,
            abs_tol: 1e-10,
            max_iterations: 200_000,
        }
    }
}

/// A certified sandwich `lower <= gamma(S) <= upper`.
#[derive(Debug, Clone, PartialEq)]
pub struct MarginCertificate {
    /// `max(Margin(direction; S), 0)`, a certified lower bound.
    pub lower: f64,
    /// `||p||` for a point `p` of the convex hull, a certified upper bound.
    pub upper: f64,
    /// The unit direction attaining `lower` (the max-margin direction at
    /// convergence); the zero vector when the hull point is 0.
    pub direction: Vec<f64>,
    /// Iterations used.
    pub iterations: usize,
    /// Whether the relative or absolute tolerance was met.
    pub converged: bool,
    /// `upper < abs_tol`: the data are reported not separable (P17).
    pub below_abs_tol: bool,
    /// The convex weights of the hull point, indexed like the solved rows
    /// (for [`exact_margin_warm`]).
    pub weights: Vec<f64>,
}

impl MarginCertificate {
    /// The reported margin: `lower`, or 0 when `upper < abs_tol` (P17).
    pub fn margin(&self) -> f64 {
        if self.below_abs_tol {
            0.0
        } else {
            self.lower
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// The geometric margin of the records `rows` of an `n x d` row-major
/// matrix with labels `±1` (all records when `rows` is `None`), with its
/// certificate (module docs). Starts from the first record.
///
/// # Panics
/// If the shapes disagree or `rows` is empty.
pub fn exact_margin(
    features: &[f64],
    labels: &[f64],
    d: usize,
    rows: Option<&[usize]>,
    opts: MarginOptions,
) -> MarginCertificate {
    exact_margin_warm(features, labels, d, rows, None, opts)
}

/// [`exact_margin`] warm-started from convex weights `start` (indexed like
/// `rows`, non-negative, renormalised; e.g. the previous
/// [`MarginCertificate::weights`] after removing one record). A start
/// without positive weight falls back to the first record.
///
/// # Panics
/// If the shapes disagree, `rows` is empty or `start` has the wrong length.
pub fn exact_margin_warm(
    features: &[f64],
    labels: &[f64],
    d: usize,
    rows: Option<&[usize]>,
    start: Option<&[f64]>,
    opts: MarginOptions,
) -> MarginCertificate {
    assert_eq!(features.len(), labels.len() * d, "exact_margin: shape");
    let all: Vec<usize>;
    let idx: &[usize] = match rows {
        Some(r) => r,
        None => {
            all = (0..labels.len()).collect();
            &all
        }
    };
    assert!(!idx.is_empty(), "exact_margin: no records");
    let z = |j: usize| (labels[idx[j]], &features[idx[j] * d..(idx[j] + 1) * d]);
    let m = idx.len();
    let sq: Vec<f64> = (0..m).map(|j| dot(z(j).1, z(j).1)).collect();
    let mut alpha = vec![0.0; m];
    let total = start.map_or(0.0, |w| {
        assert_eq!(w.len(), m, "exact_margin_warm: start length");
        w.iter().map(|v| v.max(0.0)).sum::<f64>()
    });
    match start {
        Some(w) if total > 0.0 => {
            alpha
                .iter_mut()
                .zip(w)
                .for_each(|(a, v)| *a = v.max(0.0) / total);
        }
        _ => alpha[0] = 1.0,
    }
    let mut p = vec![0.0; d];
    for (j, &a) in alpha.iter().enumerate().filter(|(_, &a)| a > 0.0) {
        let (y, x) = z(j);
        p.iter_mut().zip(x).for_each(|(pj, xj)| *pj += a * y * xj);
    }
    let mut s = vec![0.0; m];
    let mut converged = false;
    let mut iterations = 0;
    while iterations < opts.max_iterations {
        for (j, sj) in s.iter_mut().enumerate() {
            let (y, x) = z(j);
            *sj = y * dot(&p, x);
        }
        let pp = dot(&p, &p);
        let upper = pp.sqrt();
        let (fw, s_fw) = argmin(&s);
        let lower = if upper > 0.0 {
            (s_fw / upper).max(0.0)
        } else {
            0.0
        };
        if upper < opts.abs_tol || upper - lower <= opts.rel_tol * upper {
            converged = true;
            break;
        }
        iterations += 1;
        let (away, s_away) = (0..m)
            .filter(|&j| alpha[j] > 0.0)
            .map(|j| (j, s[j]))
            .fold((0, f64::NEG_INFINITY), |b, c| if c.1 > b.1 { c } else { b });
        if pp - s_fw >= s_away - pp {
            // Frank–Wolfe step towards z_fw.
            let dd = sq[fw] - 2.0 * s_fw + pp;
            let t = if dd > 0.0 {
                ((pp - s_fw) / dd).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (y, x) = z(fw);
            p.iter_mut()
                .zip(x)
                .for_each(|(pj, xj)| *pj = (1.0 - t) * *pj + t * y * xj);
            alpha.iter_mut().for_each(|a| *a *= 1.0 - t);
            alpha[fw] += t;
        } else {
            // Away step from z_away.
            let a = alpha[away];
            let t_max = if a < 1.0 {
                a / (1.0 - a)
            } else {
                f64::INFINITY
            };
            let dd = pp - 2.0 * s_away + sq[away];
            let t = if dd > 0.0 {
                ((s_away - pp) / dd).clamp(0.0, t_max)
            } else {
                0.0
            };
            let (y, x) = z(away);
            p.iter_mut()
                .zip(x)
                .for_each(|(pj, xj)| *pj = (1.0 + t) * *pj - t * y * xj);
            alpha.iter_mut().for_each(|v| *v *= 1.0 + t);
            alpha[away] = if t >= t_max { 0.0 } else { alpha[away] - t };
        }
    }
    certificate(&alpha, &z, d, m, iterations, converged, opts.abs_tol)
}

fn argmin(s: &[f64]) -> (usize, f64) {
    s.iter()
        .copied()
        .enumerate()
        .fold((0, f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b })
}

/// Recomputes `p = sum alpha_j z_j / sum alpha_j` and the sandwich from it.
fn certificate<'a>(
    alpha: &[f64],
    z: &impl Fn(usize) -> (f64, &'a [f64]),
    d: usize,
    m: usize,
    iterations: usize,
    converged: bool,
    abs_tol: f64,
) -> MarginCertificate {
    let total: f64 = alpha.iter().sum();
    let weights: Vec<f64> = alpha.iter().map(|a| a / total).collect();
    let mut p = vec![0.0; d];
    for (j, &a) in alpha.iter().enumerate().filter(|(_, &a)| a > 0.0) {
        let (y, x) = z(j);
        p.iter_mut()
            .zip(x)
            .for_each(|(pj, xj)| *pj += a / total * y * xj);
    }
    let upper = dot(&p, &p).sqrt();
    if upper == 0.0 {
        return MarginCertificate {
            lower: 0.0,
            upper,
            direction: p,
            iterations,
            converged,
            below_abs_tol: true,
            weights,
        };
    }
    p.iter_mut().for_each(|v| *v /= upper);
    let min = (0..m)
        .map(|j| {
            let (y, x) = z(j);
            y * dot(&p, x)
        })
        .fold(f64::INFINITY, f64::min);
    MarginCertificate {
        lower: min.max(0.0),
        upper,
        direction: p,
        iterations,
        converged,
        below_abs_tol: upper < abs_tol,
        weights,
    }
}
