//! Linear SVM **without bias** by dual coordinate descent (digest §6.3;
//! the L1-loss dual of LIBLINEAR without the bias term): the non-private
//! reference of the removal-margin experiment (digest §5).
//!
//! Dual: `min_{0 <= alpha_i <= C} (1/2) ||sum_i alpha_i z_i||^2 - sum_i alpha_i`,
//! `z_i = y_i x_i`, primal `w = sum_i alpha_i z_i`. Coordinate update
//! `alpha_i <- clip(alpha_i - (<w, z_i> - 1)/||z_i||^2, 0, C)` with `w`
//! updated incrementally; stop when the largest projected-gradient violation
//! is below `tol`. `C = inf` is the hard-margin SVM, for which, at the
//! optimum, `gamma = 1/||w||` (on non-separable data the dual is unbounded
//! and the epoch cap is hit).

/// Options of [`fit_svm`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvmOptions {
    /// Box constraint `C` (`inf` for the hard margin). Default 1 (digest §5).
    pub c: f64,
    /// Projected-gradient tolerance.
    pub tol: f64,
    /// Epoch cap.
    pub max_epochs: usize,
    /// Visit the coordinates in a fresh pseudo-random order every epoch
    /// (as LIBLINEAR; a fixed SplitMix64 sequence, so fits are
    /// deterministic) instead of cyclically (the default).
    pub shuffle: bool,
}

impl Default for SvmOptions {
    fn default() -> Self {
        Self {
            c: 1.0,
            tol: 1e-6,
            max_epochs: 5_000,
            shuffle: false,
        }
    }
}

/// A fitted SVM.
#[derive(Debug, Clone, PartialEq)]
pub struct SvmFit {
    /// Primal `w = sum_i alpha_i y_i x_i`.
    pub w: Vec<f64>,
    /// Dual variables, indexed like the records (0 off the active set).
    pub alpha: Vec<f64>,
    /// Epochs run.
    pub epochs: usize,
    /// Whether the tolerance was met.
    pub converged: bool,
}

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// Fits on the records `active` of an `n x d` matrix, warm-started from
/// `alpha` (length `n`; entries off `active` are ignored and zeroed).
///
/// # Panics
/// On inconsistent shapes.
pub fn fit_svm(
    features: &[f64],
    labels: &[f64],
    d: usize,
    active: &[usize],
    mut alpha: Vec<f64>,
    opts: SvmOptions,
) -> SvmFit {
    let n = labels.len();
    assert_eq!(features.len(), n * d, "fit_svm: shape");
    assert_eq!(alpha.len(), n, "fit_svm: alpha length");
    let mut on = vec![false; n];
    active.iter().for_each(|&i| on[i] = true);
    let mut w = vec![0.0; d];
    for i in 0..n {
        if !on[i] {
            alpha[i] = 0.0;
        } else {
            alpha[i] = alpha[i].clamp(0.0, opts.c);
            let x = &features[i * d..(i + 1) * d];
            w.iter_mut()
                .zip(x)
                .for_each(|(wj, xj)| *wj += alpha[i] * labels[i] * xj);
        }
    }
    let q: Vec<f64> = (0..n)
        .map(|i| dot(&features[i * d..(i + 1) * d], &features[i * d..(i + 1) * d]))
        .collect();
    let (mut epochs, mut converged) = (0, false);
    let mut order = active.to_vec();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while epochs < opts.max_epochs {
        epochs += 1;
        if opts.shuffle {
            for t in (1..order.len()).rev() {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let j = (splitmix(state) % (t as u64 + 1)) as usize;
                order.swap(t, j);
            }
        }
        let mut violation = 0.0f64;
        for &i in &order {
            let x = &features[i * d..(i + 1) * d];
            let y = labels[i];
            let g = y * dot(&w, x) - 1.0;
            let pg = if alpha[i] <= 0.0 {
                g.min(0.0)
            } else if alpha[i] >= opts.c {
                g.max(0.0)
            } else {
                g
            };
            violation = violation.max(pg.abs());
            if pg != 0.0 && q[i] > 0.0 {
                let new = (alpha[i] - g / q[i]).clamp(0.0, opts.c);
                let step = (new - alpha[i]) * y;
                w.iter_mut().zip(x).for_each(|(wj, xj)| *wj += step * xj);
                alpha[i] = new;
            }
        }
        if violation < opts.tol {
            converged = true;
            break;
        }
    }
    SvmFit {
        w,
        alpha,
        epochs,
        converged,
    }
}
