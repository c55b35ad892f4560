//! What the certified solvers share ([`crate::newton`]'s damped Newton and
//! [`crate::lbfgs`]): the stopping rules, the certified solution, the best
//! point seen and the stall rule. Apart from both, so that `newton` (which
//! picks L-BFGS by cost) imports `lbfgs` and neither imports the other back.

/// Stopping rules of a certified solve ([`crate::newton::newton_minimize`],
/// [`crate::lbfgs::lbfgs_minimize`]).
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

/// Result of a certified solve ([`crate::newton::newton_minimize`],
/// [`crate::lbfgs::lbfgs_minimize`]):
/// the point with the smallest gradient norm seen.
#[derive(Debug, Clone, PartialEq)]
pub struct CertifiedSolution {
    /// The certified approximate minimizer.
    pub point: Vec<f64>,
    /// `||grad F(point)||_2` as evaluated by the caller's gradient closure.
    pub grad_norm: f64,
    /// Iterations performed to reach `point`.
    pub iterations: usize,
}

/// The best point of a certified iteration (smallest gradient norm seen) and
/// the iterations since it last improved, shared by
/// [`crate::newton::newton_minimize`] and
/// [`crate::lbfgs::lbfgs_minimize`].
pub(crate) struct BestPoint {
    /// The point with the smallest gradient norm seen.
    pub(crate) best: CertifiedSolution,
    since: usize,
}

impl BestPoint {
    /// Starts at `point` with gradient norm `grad_norm` (iteration 0).
    pub(crate) fn new(point: &[f64], grad_norm: f64) -> Self {
        let best = CertifiedSolution {
            point: point.to_vec(),
            grad_norm,
            iterations: 0,
        };
        Self { best, since: 0 }
    }

    /// Records iterate `it` at `w` with gradient norm `gn`; a new best, or
    /// `progress` by another measure, resets the count. Returns the
    /// iterations since the last reset.
    pub(crate) fn observe(&mut self, w: &[f64], gn: f64, it: usize, progress: bool) -> usize {
        if gn < self.best.grad_norm {
            self.best = CertifiedSolution {
                point: w.to_vec(),
                grad_norm: gn,
                iterations: it,
            };
            self.since = 0;
        } else if progress {
            self.since = 0;
        } else {
            self.since += 1;
        }
        self.since
    }
}

/// `best` when its gradient norm meets the tolerance or the rounding floor,
/// else the stall `why` as an error.
pub(crate) fn finish_on_stall(
    best: CertifiedSolution,
    opts: &NewtonOptions,
    why: &str,
) -> Result<CertifiedSolution, String> {
    if best.grad_norm <= opts.tol.max(opts.floor_tol) {
        Ok(best)
    } else {
        Err(format!(
            "newton: {why} with |grad F| = {:.3e} > floor {:.3e} after {} iterations",
            best.grad_norm, opts.floor_tol, best.iterations
        ))
    }
}
