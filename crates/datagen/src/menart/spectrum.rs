//! Certified lower bound on the smallest eigenvalue of a symmetric matrix by
//! Cholesky bisection (Sylvester's law of inertia: `H - t I` is positive
//! definite iff `t < lambda_min(H)`), used for the KL constants of F-C and F-F.

/// Whether the Cholesky factorization of the row-major `d x d` matrix `h - t I`
/// has only positive pivots.
fn shifted_is_positive_definite(h: &[f64], d: usize, t: f64, work: &mut [f64]) -> bool {
    work.copy_from_slice(h);
    for j in 0..d {
        work[j * d + j] -= t;
    }
    for j in 0..d {
        let mut diag = work[j * d + j];
        for k in 0..j {
            diag -= work[j * d + k] * work[j * d + k];
        }
        if !(diag.is_finite() && diag > 0.0) {
            return false;
        }
        let l = diag.sqrt();
        work[j * d + j] = l;
        for i in j + 1..d {
            let mut s = work[i * d + j];
            for k in 0..j {
                s -= work[i * d + k] * work[j * d + k];
            }
            work[i * d + j] = s / l;
        }
    }
    true
}

/// A lower bound on `lambda_min(h)` for the symmetric row-major `d x d` matrix
/// `h`: the largest shift `t` (60 bisection steps on `[0, min_j h_jj]`) at
/// which `h - t I` still factorizes, reduced by `1e-9` relative as a margin for
/// the rounding of the factorization. Returns 0 when `h` itself does not
/// factorize (singular or indefinite).
pub fn min_eigenvalue_lower_bound(h: &[f64], d: usize) -> f64 {
    assert_eq!(h.len(), d * d, "matrix must be d x d");
    let mut work = vec![0.0; d * d];
    if !shifted_is_positive_definite(h, d, 0.0, &mut work) {
        return 0.0;
    }
    let mut lo = 0.0;
    let mut hi = (0..d).map(|j| h[j * d + j]).fold(f64::INFINITY, f64::min);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if shifted_is_positive_definite(h, d, mid, &mut work) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo * (1.0 - 1e-9)
}

/// The Gram matrix `(1/n) sum_i a_i a_i^T` of `n` row-major rows of length `d`.
pub(crate) fn gram(rows: &[f64], d: usize) -> Vec<f64> {
    let n = rows.len() / d;
    let mut h = vec![0.0; d * d];
    for a in rows.chunks(d) {
        for i in 0..d {
            let ai = a[i];
            for j in 0..=i {
                h[i * d + j] += ai * a[j];
            }
        }
    }
    for i in 0..d {
        for j in 0..=i {
            let v = h[i * d + j] / n as f64;
            h[i * d + j] = v;
            h[j * d + i] = v;
        }
    }
    h
}
