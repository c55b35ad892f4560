//! The entries: a problem family ([`FamilyDef`]) and an algorithm
//! ([`AlgorithmDef`]), const values with builder constructors, and the context
//! an algorithm runs in.

use crate::audit::AuditDef;
use crate::cost::{
    default_algorithm_work, default_family_work, AlgorithmWorkFn, CostPoint, CostVariantFn,
    FamilyWorkFn, SetupWorkFn,
};
use crate::{Build, Diagnostics, Metric, ParamDef, Privacy, PrivacyUnit, Run, Values};

/// Everything an algorithm's runner needs besides the problem and the noise stream.
#[derive(Debug, Clone, Copy)]
pub struct RunContext<'a> {
    /// Validated algorithm options.
    pub options: &'a Values,
    /// The problem family's values (e.g. `tau` for tilted ERM bounds).
    pub problem: &'a Values,
    /// The guarantee of the grid point, in the algorithm's unit.
    pub privacy: Privacy,
    /// The study's metric.
    pub metric: Metric,
}

/// A registered problem family.
#[derive(Debug)]
pub struct FamilyDef {
    /// Registered name.
    pub name: &'static str,
    /// What it is and where it comes from.
    pub doc: &'static str,
    /// Parameters.
    pub params: &'static [ParamDef],
    /// Metrics it can measure exactly.
    pub metrics: &'static [Metric],
    /// Constructor (its variant is the kind of problem built).
    pub build: Build,
    /// Whether the generated data depend on the privacy parameters (e.g. a
    /// signal strength set relative to the private rate `R(n, d, eps, delta)`,
    /// Bassily et al. E1). If so the runner passes `eps` and `delta` to
    /// [`FamilyDef::build`] as values and includes them in the data seed, so
    /// cells at different privacy levels no longer share a data set.
    pub privacy_defines_data: bool,
    /// Revision of the ground-truth solver's arithmetic: 0 for families never
    /// changed; bumped when a solver change moves the certified minimizer
    /// (within its certificate) and so the cells' bits. A revision above 0
    /// enters the study's identity hash, so `--reuse-unchanged` recomputes
    /// exactly the studies on the family and a resumed file refuses stale
    /// cells. 1: L-BFGS where a Newton step costs more than its budget
    /// (`datagen::newton::newton_is_cheaper`, issue 27).
    pub ground_truth_revision: u32,
    /// Its data set's size and generation work at a grid point, for the
    /// plan's estimates ([`crate::cost`]).
    pub work: FamilyWorkFn,
}

/// A registered algorithm.
#[derive(Debug)]
pub struct AlgorithmDef {
    /// Registered name.
    pub name: &'static str,
    /// What it is and which theorem it implements.
    pub doc: &'static str,
    /// Options.
    pub options: &'static [ParamDef],
    /// Largest admissible delta (exclusive), e.g. 0.5 for the ZWB Gaussian calibration.
    pub delta_max: f64,
    /// Whether the algorithm needs `delta > 0` (Gaussian-only methods).
    pub needs_delta: bool,
    /// The privacy definition it is calibrated for.
    pub privacy_unit: PrivacyUnit,
    /// Metrics it can report.
    pub metrics: &'static [Metric],
    /// Names of the diagnostic outputs stored per cell, in the store's
    /// order; a run may set only these ([`AlgorithmDef::diagnostic_columns`]).
    pub diagnostics: &'static [&'static str],
    /// What the stored `bound` is, for legends (e.g. "Cor 2.2 bound").
    pub bound_name: &'static str,
    /// What the stored `theory` is, for legends.
    pub theory_name: &'static str,
    /// What the stored `reference` curve is, for legends (empty: none).
    pub reference_name: &'static str,
    /// Runner (its variant is the kind of problem it runs on).
    pub run: Run,
    /// The families it accepts, by name; empty: every family of its kind.
    /// The spec validator refuses a study on any other family before
    /// anything runs (`runner plan` exits 2 with the reason), so a run never
    /// meets a family without the structure it needs (a planted margin, a
    /// record radius, an exact perturbed minimizer, ...); the conformance
    /// test counts a run-time refusal of an accepted pair as a failure.
    pub families: &'static [&'static str],
    /// Why it accepts only [`AlgorithmDef::families`] (the refusal's hint);
    /// empty when it accepts every family of its kind.
    pub families_reason: &'static str,
    /// Diagnostics that depend on the measured metric, filled in by the
    /// runner after it measures the release: called with the metric and the
    /// run's diagnostics, it sets names among [`AlgorithmDef::diagnostics`]
    /// (e.g. González Alg. 1's sparsification penalty, the gap minus the gap
    /// of the multiplicative-weights average). `None` for most entries.
    pub derive_diagnostics: Option<fn(metric: f64, diagnostics: &mut Diagnostics)>,
    /// Its run's work at a grid point, for the plan's estimates
    /// ([`crate::cost`]).
    pub work: AlgorithmWorkFn,
    /// Work it memoizes across cells (once per process and configuration),
    /// which the plan spreads over the cells sharing it
    /// ([`crate::cost::SetupWork`]); `None` for most entries.
    pub setup_work: Option<SetupWorkFn>,
    /// Which of its calibrated constants prices a grid point, where one entry
    /// runs solvers of different per-operation cost under one name (Lowy–
    /// Razaviyayn's black boxes: SGD's steps of `O(d)` against Katyusha's
    /// passes): the plan looks up `<name>:<variant>` before `<name>`, and
    /// `runner calibrate` fits each variant apart ([`CostVariantFn`]). `None`
    /// (one constant) for most entries.
    pub cost_variant: Option<CostVariantFn>,
    /// Its empirical privacy audit (`runner audit`): the worst-case
    /// neighbouring pair, statistic and estimator. `None` for the entries that
    /// release nothing private (non-private baselines, theory curves).
    pub audit: Option<&'static AuditDef>,
    /// Whether its release claims a privacy guarantee (true unless the entry
    /// says otherwise with [`AlgorithmDef::not_private`]): every private
    /// entry must declare an audit and have a default row in
    /// `experiments/audit.toml`; a non-private one may appear there only as
    /// a control (the noiseless `one_pass_sgd`).
    pub private: bool,
    /// A precondition on one grid point that the entry's guarantee needs and
    /// that depends on several values at once (objective perturbation's
    /// `delta <= 1/n^2`): `runner plan` and `runner run` refuse a grid with
    /// such a point (exit 2, nothing run) instead of failing its cells.
    /// `None` for most entries.
    pub point_check: Option<PointCheckFn>,
}

/// A grid point's precondition ([`AlgorithmDef::point_check`]): `Err((the
/// parameter the message names, why))`.
pub type PointCheckFn = fn(&CostPoint) -> Result<(), (&'static str, String)>;

impl FamilyDef {
    /// A family entry whose data do not depend on the privacy parameters and
    /// whose ground truth was never revised.
    pub const fn new(
        name: &'static str,
        doc: &'static str,
        params: &'static [ParamDef],
        metrics: &'static [Metric],
        build: Build,
    ) -> Self {
        Self {
            name,
            doc,
            params,
            metrics,
            build,
            privacy_defines_data: false,
            ground_truth_revision: 0,
            work: default_family_work,
        }
    }

    /// The same family with its own work formula (default: `n` records of
    /// dimension `d`, [`default_family_work`]).
    pub const fn with_work(self, work: FamilyWorkFn) -> Self {
        Self { work, ..self }
    }

    /// The same family with data depending on `eps` and `delta`
    /// ([`FamilyDef::privacy_defines_data`]).
    pub const fn privacy_defines_data(self) -> Self {
        Self {
            privacy_defines_data: true,
            ..self
        }
    }

    /// The same family at ground-truth revision `revision`
    /// ([`FamilyDef::ground_truth_revision`]).
    pub const fn ground_truth_revision(self, revision: u32) -> Self {
        Self {
            ground_truth_revision: revision,
            ..self
        }
    }
}

impl AlgorithmDef {
    /// An algorithm entry calibrated for `(eps, delta)`-DP at any `delta` in
    /// `[0, 1)`, with no options, no diagnostics and no named curves.
    pub const fn new(
        name: &'static str,
        doc: &'static str,
        metrics: &'static [Metric],
        run: Run,
    ) -> Self {
        Self {
            name,
            doc,
            options: &[],
            delta_max: 1.0,
            needs_delta: false,
            privacy_unit: PrivacyUnit::EpsDelta,
            metrics,
            diagnostics: &[],
            bound_name: "",
            theory_name: "",
            reference_name: "",
            run,
            families: &[],
            families_reason: "",
            derive_diagnostics: None,
            work: default_algorithm_work,
            setup_work: None,
            cost_variant: None,
            audit: None,
            private: true,
            point_check: None,
        }
    }

    /// The same entry marked as releasing nothing private (a non-private
    /// baseline, a theory curve, a measuring procedure):
    /// [`AlgorithmDef::private`].
    pub const fn not_private(self) -> Self {
        Self {
            private: false,
            ..self
        }
    }

    /// The same entry with its empirical privacy audit
    /// ([`AlgorithmDef::audit`]).
    pub const fn audited(self, audit: &'static AuditDef) -> Self {
        Self {
            audit: Some(audit),
            ..self
        }
    }

    /// The same entry with its own work formula (default: one pass over the
    /// data set, [`default_algorithm_work`]).
    pub const fn with_work(self, work: AlgorithmWorkFn) -> Self {
        Self { work, ..self }
    }

    /// The same entry with memoized setup work
    /// ([`AlgorithmDef::setup_work`]).
    pub const fn with_setup_work(self, setup: SetupWorkFn) -> Self {
        Self {
            setup_work: Some(setup),
            ..self
        }
    }

    /// The same entry with per-variant cost constants
    /// ([`AlgorithmDef::cost_variant`]).
    pub const fn with_cost_variant(self, variant: CostVariantFn) -> Self {
        Self {
            cost_variant: Some(variant),
            ..self
        }
    }

    /// The same entry accepting only the named families, for the stated
    /// reason ([`AlgorithmDef::families`]).
    pub const fn only_on(self, families: &'static [&'static str], reason: &'static str) -> Self {
        Self {
            families,
            families_reason: reason,
            ..self
        }
    }

    /// Whether it accepts family `family` (of its kind: the kinds are
    /// checked apart).
    pub fn accepts(&self, family: &str) -> bool {
        self.families.is_empty() || self.families.contains(&family)
    }

    /// The same entry with diagnostics derived from the measured metric
    /// ([`AlgorithmDef::derive_diagnostics`]).
    pub const fn deriving_diagnostics(self, derive: fn(f64, &mut Diagnostics)) -> Self {
        Self {
            derive_diagnostics: Some(derive),
            ..self
        }
    }

    /// A run's diagnostics as the store's columns, in the order of
    /// [`AlgorithmDef::diagnostics`], `None` where the run set no value.
    ///
    /// # Panics
    ///
    /// If the run set a name the entry does not declare: a misspelt or
    /// undeclared diagnostic is a bug of the entry, caught by the conformance
    /// test that runs every entry (in a sweep the runner records the panic as
    /// the cell's error).
    pub fn diagnostic_columns(&self, diagnostics: &Diagnostics) -> Vec<Option<f64>> {
        if let Some((name, _)) = diagnostics
            .iter()
            .find(|(name, _)| !self.diagnostics.contains(name))
        {
            panic!(
                "algorithm `{}` set the diagnostic `{name}`, which it does not declare \
                 (declared: {:?})",
                self.name, self.diagnostics
            );
        }
        self.diagnostics
            .iter()
            .map(|name| diagnostics.get(name))
            .collect()
    }

    /// The same entry with these options.
    pub const fn with_options(self, options: &'static [ParamDef]) -> Self {
        Self { options, ..self }
    }

    /// The same entry with these diagnostics (names of the values its runs
    /// may set, in the store's order).
    pub const fn with_diagnostics(self, diagnostics: &'static [&'static str]) -> Self {
        Self {
            diagnostics,
            ..self
        }
    }

    /// The same entry with legend names for the `bound`, `theory` and
    /// `reference` curves its runs return (empty: none).
    pub const fn with_curves(
        self,
        bound_name: &'static str,
        theory_name: &'static str,
        reference_name: &'static str,
    ) -> Self {
        Self {
            bound_name,
            theory_name,
            reference_name,
            ..self
        }
    }

    /// The same entry refusing, before any cell runs, a grid point that
    /// `check` rejects ([`AlgorithmDef::point_check`]).
    pub const fn checking_points(self, check: PointCheckFn) -> Self {
        Self {
            point_check: Some(check),
            ..self
        }
    }

    /// The same entry admitting only `delta < delta_max`.
    pub const fn delta_below(self, delta_max: f64) -> Self {
        Self { delta_max, ..self }
    }

    /// The same entry requiring `delta > 0` (Gaussian-only calibrations).
    pub const fn requiring_delta(self) -> Self {
        Self {
            needs_delta: true,
            ..self
        }
    }

    /// The same entry calibrated for `rho`-zCDP.
    pub const fn zcdp(self) -> Self {
        Self {
            privacy_unit: PrivacyUnit::Zcdp,
            ..self
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{CellOutput, Curves, Release, RunFailure};
    use dpcore::Objective;
    use rand_pcg::Pcg64;

    /// An objective run for entries that tests only declare.
    pub(crate) fn never_runs(
        _: &RunContext,
        _: &dyn Objective,
        _: &mut Pcg64,
    ) -> Result<CellOutput, RunFailure> {
        Ok(CellOutput::new(
            Release::measurement(0.0),
            Curves::NONE,
            Diagnostics::new(),
        ))
    }

    const ENTRY: AlgorithmDef = AlgorithmDef::new("probe", "", &[], Run::Objective(never_runs))
        .with_diagnostics(&["steps", "sigma", "epochs"]);

    #[test]
    fn diagnostic_columns_follow_the_declared_order_with_absent_as_none() {
        let d = Diagnostics::from([("epochs", 3.0), ("steps", 10.0)]);
        assert_eq!(ENTRY.diagnostic_columns(&d), [Some(10.0), None, Some(3.0)]);
    }

    #[test]
    #[should_panic(
        expected = "algorithm `probe` set the diagnostic `epoch`, which it does not declare"
    )]
    fn an_undeclared_diagnostic_name_panics_with_the_entry_and_the_name() {
        ENTRY.diagnostic_columns(&Diagnostics::from([("steps", 1.0), ("epoch", 3.0)]));
    }
}
