//! What one run returns besides its release: the comparison curves and the
//! diagnostics.

use crate::Release;

/// The curves a run reports beside its metric, each `None` where none applies.
/// The store writes `None` as NaN.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Curves {
    /// The exact expected metric (the digest's theory curve).
    pub theory: Option<f64>,
    /// The theorem's upper bound on the expected metric.
    pub bound: Option<f64>,
    /// A second curve drawn for comparison, e.g. the printed form of a bound
    /// the digest corrects (see [`crate::AlgorithmDef::reference_name`]).
    pub reference: Option<f64>,
}

impl Curves {
    /// No curve applies.
    pub const NONE: Curves = Curves {
        theory: None,
        bound: None,
        reference: None,
    };

    /// From `[theory, bound, reference]` computed by formulas that yield NaN
    /// where a curve does not apply (a match arm without a theorem, a rate
    /// undefined at the setting): NaN becomes `None`, every other value
    /// (infinities included) is kept.
    pub fn from_nan([theory, bound, reference]: [f64; 3]) -> Self {
        let some = |x: f64| (!x.is_nan()).then_some(x);
        Curves {
            theory: some(theory),
            bound: some(bound),
            reference: some(reference),
        }
    }
}

/// What one run of an algorithm returns: its release (measured by the
/// runner), the curves at its setting, and its diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct CellOutput {
    /// What the run released.
    pub release: Release,
    /// The comparison curves at this run's setting.
    pub curves: Curves,
    /// Algorithm diagnostics, in the order of [`crate::AlgorithmDef::diagnostics`].
    pub diagnostics: Vec<f64>,
}

impl CellOutput {
    /// A run's output.
    pub fn new(release: Release, curves: Curves, diagnostics: Vec<f64>) -> Self {
        Self {
            release,
            curves,
            diagnostics,
        }
    }

    /// A run's output with curves `[theory, bound, reference]` as in
    /// [`Curves::from_nan`].
    pub fn from_nan_curves(release: Release, curves: [f64; 3], diagnostics: Vec<f64>) -> Self {
        Self::new(release, Curves::from_nan(curves), diagnostics)
    }
}
