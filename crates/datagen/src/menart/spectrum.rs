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

/// Failure probability of [`public_min_eigenvalue`]: the chance that a design
/// sampled by F-C or F-F falls outside the family's universe (and is refused).
pub const DESIGN_FAILURE_PROBABILITY: f64 = 1e-6;

/// A public lower bound on `lambda_min((1/n) sum_i a_i a_i^T)` for `n`
/// independent rows uniform on the unit sphere of `R^d`, from `(n, d)` alone.
///
/// Why: the KL constant of F-C and F-F sets Algorithm 1's round count and
/// every noise scale, so it must not be read from the sampled data (digest
/// P7; a data-dependent `gamma` makes the noise differ between neighbouring
/// data sets). The family's universe is the designs with
/// `lambda_min >= public_min_eigenvalue(n, d)`; the KL assumption holds on
/// every data set in it, and noise depends on `(n, d)` only.
///
/// Matrix Chernoff (Tropp 2012, Thm 1.1, lower tail) with `E[a a^T] = I/d`,
/// `lambda_max(a a^T) = 1`, `mu_min = n/d`:
/// `P{lambda_min <= (1 - t)/d} <= d [e^(-t)/(1 - t)^(1 - t)]^(n/d)`.
/// Returns `(1 - t)/d` for the smallest `t` at which the right side is at most
/// [`DESIGN_FAILURE_PROBABILITY`] (bisection to `1e-12`), or 0 when no
/// `t < 1` reaches it (`n < d ln(d/1e-6)`, e.g. `n < 554` at `d = 32`).
/// At `n = 4096`: `0.919/d` for `d = 1`, `0.528/d` for `d = 32`; at
/// `n = 1e5, d = 16`: `0.928/d`.
pub fn public_min_eigenvalue(n: usize, d: usize) -> f64 {
    assert!(n >= 1 && d >= 1, "need n, d >= 1");
    let (nf, df) = (n as f64, d as f64);
    let log_tail = |t: f64| df.ln() + (nf / df) * (-t - (1.0 - t) * (-t).ln_1p());
    let target = DESIGN_FAILURE_PROBABILITY.ln();
    // log_tail decreases in t on [0, 1); at t -> 1 it tends to ln d - n/d.
    if df.ln() - nf / df > target {
        return 0.0;
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while hi - lo > 1e-12 {
        let mid = 0.5 * (lo + hi);
        if log_tail(mid) <= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    (1.0 - hi) / df
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_bound_meets_the_chernoff_tail_at_its_failure_probability() {
        for (n, d) in [(4096, 1), (4096, 32), (100_000, 16), (1000, 4)] {
            let mu = public_min_eigenvalue(n, d);
            let t = 1.0 - mu * d as f64;
            let (nf, df) = (n as f64, d as f64);
            let tail = df * ((-t - (1.0 - t) * (-t).ln_1p()) * nf / df).exp();
            assert!(
                tail <= DESIGN_FAILURE_PROBABILITY * (1.0 + 1e-6),
                "{n} {d}: {tail}"
            );
            // Smallest such t: 1e-3 less would exceed the target.
            let t2 = t - 1e-3;
            let tail2 = df * ((-t2 - (1.0 - t2) * (-t2).ln_1p()) * nf / df).exp();
            assert!(tail2 > DESIGN_FAILURE_PROBABILITY, "{n} {d}: {tail2}");
            assert!(mu > 0.0 && mu < 1.0 / df);
        }
        // Hand values of the docs (t solves t + (1-t) ln(1-t) = d ln(d/1e-6)/n).
        assert!((public_min_eigenvalue(4096, 1) - 0.91900).abs() < 1e-5);
        assert!((public_min_eigenvalue(4096, 32) * 32.0 - 0.52765).abs() < 1e-5);
        assert!((public_min_eigenvalue(100_000, 16) * 16.0 - 0.92803).abs() < 1e-5);
        assert_eq!(public_min_eigenvalue(500, 32), 0.0);
    }

    #[test]
    fn sampled_designs_sit_above_the_public_bound() {
        use crate::geometry::sample_unit_sphere;
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5eed);
        for (n, d) in [(4096, 32), (4096, 8), (2000, 16)] {
            for _ in 0..5 {
                let rows: Vec<f64> = (0..n)
                    .flat_map(|_| sample_unit_sphere(d, &mut rng))
                    .collect();
                let cert = min_eigenvalue_lower_bound(&gram(&rows, d), d);
                assert!(cert >= public_min_eigenvalue(n, d), "{n} {d}: {cert}");
            }
        }
    }
}
