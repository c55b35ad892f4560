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

    /// The three curves.
    pub const fn new(theory: Option<f64>, bound: Option<f64>, reference: Option<f64>) -> Self {
        Self {
            theory,
            bound,
            reference,
        }
    }
}

/// A run's diagnostics by name; a name never set is absent (the store
/// writes NaN for it). The names must be among the entry's declared
/// [`crate::AlgorithmDef::diagnostics`]: the runner turns them into the
/// store's columns with [`crate::AlgorithmDef::diagnostic_columns`], which
/// panics on any other name, so a misspelt name fails the conformance test
/// (which runs every entry) instead of silently writing nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diagnostics {
    /// `(name, value)` in the order set, each name once.
    values: Vec<(&'static str, f64)>,
}

impl Diagnostics {
    /// No diagnostic set.
    pub const fn new() -> Self {
        Self { values: Vec::new() }
    }

    /// Sets `name` to `value` (replacing an earlier value of `name`).
    pub fn set(&mut self, name: &'static str, value: f64) -> &mut Self {
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name, value)),
        }
        self
    }

    /// Sets `name` to `value` when it is `Some`; `None` leaves it absent
    /// (and removes an earlier value).
    pub fn set_opt(&mut self, name: &'static str, value: Option<f64>) -> &mut Self {
        match value {
            Some(v) => self.set(name, v),
            None => {
                self.values.retain(|(n, _)| *n != name);
                self
            }
        }
    }

    /// The same diagnostics with `name` set to `value` ([`Diagnostics::set`]).
    pub fn with(mut self, name: &'static str, value: f64) -> Self {
        self.set(name, value);
        self
    }

    /// The value of `name`, `None` when absent.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }

    /// `(name, value)` of every diagnostic set, in the order set.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.values.iter().copied()
    }
}

impl<const N: usize> From<[(&'static str, f64); N]> for Diagnostics {
    fn from(values: [(&'static str, f64); N]) -> Self {
        let mut d = Diagnostics::new();
        for (name, value) in values {
            d.set(name, value);
        }
        d
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
    /// Algorithm diagnostics by name, among [`crate::AlgorithmDef::diagnostics`].
    pub diagnostics: Diagnostics,
}

impl CellOutput {
    /// A run's output.
    pub fn new(release: Release, curves: Curves, diagnostics: impl Into<Diagnostics>) -> Self {
        Self {
            release,
            curves,
            diagnostics: diagnostics.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_replaces_and_set_opt_none_leaves_absent() {
        let mut d = Diagnostics::from([("steps", 3.0), ("sigma", 0.5)]);
        d.set("steps", 4.0)
            .set_opt("sigma", None)
            .set_opt("eps", Some(1.0));
        assert_eq!(d.get("steps"), Some(4.0));
        assert_eq!(d.get("sigma"), None);
        assert_eq!(d.get("eps"), Some(1.0));
        assert_eq!(d.iter().collect::<Vec<_>>(), [("steps", 4.0), ("eps", 1.0)]);
    }
}
