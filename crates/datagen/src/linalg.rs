//! Small dense linear algebra for Newton ground-truth solvers (d up to a few
//! hundred), row-major: Cholesky factorization and solve of a symmetric
//! positive-definite system, and the lower-triangle kernels that assemble the
//! families' Hessians.

/// Solves `A x = b` for symmetric positive-definite `A` (row-major `d x d`) by
/// Cholesky factorization, in place: `a` is overwritten by its factor and `b`
/// by the solution.
///
/// Errors when `A` is not numerically positive definite (a non-positive or
/// non-finite pivot) or the dimensions disagree.
pub fn cholesky_solve(a: &mut [f64], b: &mut [f64]) -> Result<(), String> {
    let d = b.len();
    if a.len() != d * d {
        return Err(format!(
            "cholesky_solve: A has {} entries, expected {}",
            a.len(),
            d * d
        ));
    }
    for j in 0..d {
        let mut diag = a[j * d + j];
        for k in 0..j {
            diag -= a[j * d + k] * a[j * d + k];
        }
        if !(diag.is_finite() && diag > 0.0) {
            return Err(format!(
                "cholesky_solve: pivot {j} is {diag}, matrix not positive definite"
            ));
        }
        let l_jj = diag.sqrt();
        a[j * d + j] = l_jj;
        for i in j + 1..d {
            let mut s = a[i * d + j];
            for k in 0..j {
                s -= a[i * d + k] * a[j * d + k];
            }
            a[i * d + j] = s / l_jj;
        }
    }
    // Forward substitution L y = b, then back substitution L^T x = y.
    for i in 0..d {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * d + k] * b[k];
        }
        b[i] = s / a[i * d + i];
    }
    for i in (0..d).rev() {
        let mut s = b[i];
        for k in i + 1..d {
            s -= a[k * d + i] * b[k];
        }
        b[i] = s / a[i * d + i];
    }
    Ok(())
}

/// Solves `L y = b` in place for the lower-triangular `L` stored in the lower
/// triangle of the row-major `d x d` matrix `l` (e.g. the factor left in `a`
/// by [`cholesky_solve`]); the upper triangle is not read.
pub fn forward_substitute_lower(l: &[f64], b: &mut [f64]) {
    let d = b.len();
    for i in 0..d {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * d + k] * b[k];
        }
        b[i] = s / l[i * d + i];
    }
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

/// Finishes a Hessian accumulated on the lower triangle as a sum over `count`
/// records: divides the lower triangle and diagonal by `count`, adds `shift`
/// to the diagonal, and copies the lower triangle to the upper one.
pub fn average_lower_and_shift(h: &mut [f64], d: usize, count: f64, shift: f64) {
    for i in 0..d {
        for j in 0..=i {
            h[i * d + j] /= count;
        }
        h[i * d + i] += shift;
    }
    symmetrize_lower(h, d);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_known_system() {
        // A = [[4, 2], [2, 3]], x = [1, -2] -> b = [0, -4].
        let mut a = vec![4.0, 2.0, 2.0, 3.0];
        let mut b = vec![0.0, -4.0];
        cholesky_solve(&mut a, &mut b).unwrap();
        assert!(
            (b[0] - 1.0).abs() < 1e-14 && (b[1] + 2.0).abs() < 1e-14,
            "{b:?}"
        );
    }

    #[test]
    fn rejects_an_indefinite_matrix() {
        let mut a = vec![1.0, 2.0, 2.0, 1.0];
        let mut b = vec![1.0, 1.0];
        assert!(cholesky_solve(&mut a, &mut b).is_err());
    }
}
