//! Damped Newton driver for the certified ground truth of the logistic (digest
//! §8 E1b), tilted-ERM (§5.1, §8 E6) and adversarial (§8 E7) families, plus the
//! stable scalar helpers and compensated accumulators they share.
//!
//! The certificate is the gradient norm: for a `mu`-strongly convex `F`,
//! `||w - w*|| <= ||grad F(w)|| / mu` and `F(w) - F* <= ||grad F(w)||^2 / (2 mu)`
//! (digest P1(b), P15). The Hessian closure may be inexact (e.g. subsampled):
//! it only shapes the search direction, never the certificate.

use crate::linalg::cholesky_solve;

/// Stopping rules of [`newton_minimize`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonOptions {
    /// Target gradient norm: stop as soon as `||grad F|| <= tol`.
    pub tol: f64,
    /// Largest gradient norm accepted when the iteration stalls at the
    /// rounding floor (no new best gradient norm for [`STALL_PATIENCE`]
    /// iterations, or no acceptable step) before reaching `tol`.
    pub floor_tol: f64,
    /// Iteration cap; reaching it without meeting `tol` or `floor_tol` is an error.
    pub max_iter: usize,
}

/// Stopping rule of the families' ground truth: `||grad F|| <= 1e-13`, or on
/// a rounding-floor stall `<= 1e-10` (then `F(w*) - F* <= 5e-21 / mu`, digest
/// P15); the achieved norm is exposed as `certified_gradient_norm()`.
pub const GROUND_TRUTH: NewtonOptions = NewtonOptions {
    tol: 1e-13,
    floor_tol: 1e-10,
    max_iter: 200,
};

/// Iterations without a new best gradient norm after which the driver stops.
pub const STALL_PATIENCE: usize = 6;

/// Result of [`newton_minimize`]: the point with the smallest gradient norm seen.
#[derive(Debug, Clone, PartialEq)]
pub struct NewtonSolution {
    /// The certified approximate minimizer.
    pub point: Vec<f64>,
    /// `||grad F(point)||_2` as evaluated by the caller's gradient closure.
    pub grad_norm: f64,
    /// Newton iterations performed.
    pub iterations: usize,
}

/// Euclidean norm.
pub fn norm2(x: &[f64]) -> f64 {
    dot(x, x).sqrt()
}

/// Dot product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// Euclidean distance `||a - b||`.
pub fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(u, v)| (u - v) * (u - v))
        .sum::<f64>()
        .sqrt()
}

/// Stable `softplus(u) = log(1 + e^u) = max(u, 0) + log1p(e^{-|u|})` (digest P15).
pub fn softplus(u: f64) -> f64 {
    u.max(0.0) + (-u.abs()).exp().ln_1p()
}

/// Stable logistic sigmoid `1 / (1 + e^{-u})`, never overflowing.
pub fn sigmoid(u: f64) -> f64 {
    if u >= 0.0 {
        1.0 / (1.0 + (-u).exp())
    } else {
        let e = u.exp();
        e / (1.0 + e)
    }
}

/// `softplus(a) - softplus(b)` given `delta = a - b` computed without
/// cancellation: `log1p(sigmoid(b) expm1(delta))` (exact identity, since
/// `(1 + e^a)/(1 + e^b) = 1 + sigmoid(b) (e^delta - 1)`) for `|delta| <= 1`,
/// the plain difference otherwise (digest P15).
pub fn softplus_diff(a: f64, b: f64, delta: f64) -> f64 {
    if delta.abs() <= 1.0 {
        (sigmoid(b) * delta.exp_m1()).ln_1p()
    } else {
        softplus(a) - softplus(b)
    }
}

/// Damped Newton with Armijo backtracking: `p = -H^{-1} g` by Cholesky
/// ([`cholesky_solve`]), step `t` halved from 1 until
/// `F(w + t p) <= F(w) + 1e-4 t g.p + slack`, where the slack `4 eps (1 + |F(w)|)`
/// lets the iteration continue once `F` differences reach rounding level
/// (the gradient norm, not `F`, certifies the result).
///
/// `hessian(w, h)` writes the row-major `d x d` Hessian (only the lower
/// triangle and diagonal are read) and may be inexact; `gradient(w, g)` must
/// be accurate, since its norm is the certificate.
///
/// # Errors
/// Non-finite values, a Hessian that is not positive definite, or failure to
/// reach `tol` (or `floor_tol` on a stall) within `max_iter` iterations.
pub fn newton_minimize<V, G, H>(
    start: Vec<f64>,
    opts: &NewtonOptions,
    value: V,
    gradient: G,
    hessian: H,
) -> Result<NewtonSolution, String>
where
    V: Fn(&[f64]) -> f64,
    G: Fn(&[f64], &mut [f64]),
    H: Fn(&[f64], &mut [f64]),
{
    let d = start.len();
    let mut w = start;
    let mut g = vec![0.0; d];
    let mut f = value(&w);
    gradient(&w, &mut g);
    let mut gn = norm2(&g);
    if !f.is_finite() || !gn.is_finite() {
        return Err(format!("newton: non-finite start (F = {f}, |g| = {gn})"));
    }
    let mut best = NewtonSolution {
        point: w.clone(),
        grad_norm: gn,
        iterations: 0,
    };
    let mut since_best = 0;
    let mut h = vec![0.0; d * d];
    let mut trial = vec![0.0; d];
    for it in 1..=opts.max_iter {
        if best.grad_norm <= opts.tol {
            return Ok(best);
        }
        hessian(&w, &mut h);
        let mut p: Vec<f64> = g.iter().map(|v| -v).collect();
        cholesky_solve(&mut h, &mut p)
            .map_err(|e| format!("newton: Hessian at iteration {it}: {e}"))?;
        let slope: f64 = g.iter().zip(&p).map(|(a, b)| a * b).sum();
        let slack = 4.0 * f64::EPSILON * (1.0 + f.abs());
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            for ((tr, wj), pj) in trial.iter_mut().zip(&w).zip(&p) {
                *tr = wj + t * pj;
            }
            let ft = value(&trial);
            if ft.is_finite() && ft <= f + 1e-4 * t * slope + slack {
                accepted = Some(ft);
                break;
            }
            t *= 0.5;
        }
        let Some(ft) = accepted else {
            return finish_on_stall(best, opts, "no acceptable step");
        };
        std::mem::swap(&mut w, &mut trial);
        f = ft;
        gradient(&w, &mut g);
        gn = norm2(&g);
        if !gn.is_finite() {
            return Err(format!("newton: non-finite gradient at iteration {it}"));
        }
        if gn < best.grad_norm {
            best = NewtonSolution {
                point: w.clone(),
                grad_norm: gn,
                iterations: it,
            };
            since_best = 0;
        } else {
            since_best += 1;
            if since_best >= STALL_PATIENCE {
                return finish_on_stall(best, opts, "gradient norm stalled");
            }
        }
    }
    if best.grad_norm <= opts.tol {
        return Ok(best);
    }
    finish_on_stall(best, opts, "iteration cap reached")
}

fn finish_on_stall(
    best: NewtonSolution,
    opts: &NewtonOptions,
    why: &str,
) -> Result<NewtonSolution, String> {
    if best.grad_norm <= opts.tol.max(opts.floor_tol) {
        Ok(best)
    } else {
        Err(format!(
            "newton: {why} with |grad F| = {:.3e} > floor {:.3e} after {} iterations",
            best.grad_norm, opts.floor_tol, best.iterations
        ))
    }
}

/// Neumaier-compensated accumulator of a sum of vectors, so that full
/// gradients over up to `1e6` records carry `O(eps)` rather than
/// `O(sqrt(n) eps)` rounding (the gradient norm is the ground-truth certificate).
#[derive(Debug, Clone)]
pub struct CompensatedVec {
    sum: Vec<f64>,
    comp: Vec<f64>,
}

impl CompensatedVec {
    /// A zero vector of length `d`.
    pub fn zeros(d: usize) -> Self {
        Self {
            sum: vec![0.0; d],
            comp: vec![0.0; d],
        }
    }

    /// Adds `a * x`.
    pub fn add_scaled(&mut self, a: f64, x: &[f64]) {
        for ((s, c), xj) in self.sum.iter_mut().zip(self.comp.iter_mut()).zip(x) {
            *c += neumaier_step(s, a * xj);
        }
    }

    /// The compensated total.
    pub fn total(&self) -> Vec<f64> {
        self.sum
            .iter()
            .zip(&self.comp)
            .map(|(s, c)| s + c)
            .collect()
    }
}

/// Neumaier-compensated scalar sum.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompensatedSum {
    sum: f64,
    comp: f64,
}

impl CompensatedSum {
    /// Adds `x`.
    pub fn add(&mut self, x: f64) {
        self.comp += neumaier_step(&mut self.sum, x);
    }

    /// The compensated total.
    pub fn total(&self) -> f64 {
        self.sum + self.comp
    }
}

/// `s += x`, returning the rounding error of that addition.
fn neumaier_step(s: &mut f64, x: f64) -> f64 {
    let t = *s + x;
    let err = if s.abs() >= x.abs() {
        (*s - t) + x
    } else {
        (x - t) + *s
    };
    *s = t;
    err
}

/// `h += a * x x^T` on the lower triangle and diagonal of the row-major
/// `d x d` matrix `h` (`d = x.len()`); see [`symmetrize_lower`].
pub fn add_outer_lower(h: &mut [f64], a: f64, x: &[f64]) {
    let d = x.len();
    for i in 0..d {
        let axi = a * x[i];
        let row = &mut h[i * d..i * d + i + 1];
        for (hij, xj) in row.iter_mut().zip(&x[..=i]) {
            *hij += axi * xj;
        }
    }
}

/// Copies the lower triangle of the row-major `d x d` matrix `h` to the upper one.
pub fn symmetrize_lower(h: &mut [f64], d: usize) {
    for i in 0..d {
        for j in 0..i {
            h[j * d + i] = h[i * d + j];
        }
    }
}
