//! The plug-in contract between the paper entries (`papers`) and the runner.
//!
//! A problem family ([`FamilyDef`]) and an algorithm ([`AlgorithmDef`]) declare
//! their parameters (name, kind, range, default, role, doc) so that specs are
//! validated before anything runs and `runner list` can document them; a family
//! builds an [`Instance`] of its [`ProblemKind`] from the data stream, an
//! algorithm runs on an instance of its kind with the noise stream and returns
//! a [`CellOutput`]. The runner sees only this crate and the list of entries in
//! `papers`; adding an algorithm never touches it (see docs/extending.md).

use std::collections::BTreeMap;

use dpcore::PrivacyParams;

/// The kind and admissible range of a parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// An integer `>= min`.
    Int {
        /// Smallest admissible value.
        min: i64,
    },
    /// A finite float in `(min, max)` or `[min, max]`.
    Float {
        /// Lower end.
        min: f64,
        /// Upper end.
        max: f64,
        /// Whether `min` itself is excluded.
        min_open: bool,
    },
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
}

/// What a parameter changes, and so which random streams its value seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamRole {
    /// It changes the generated data: it enters the data seed and the noise
    /// seed (every family parameter).
    Data,
    /// It changes the algorithm's run: it enters the noise seed (algorithm
    /// options).
    Noise,
    /// It rescales a random draw instead of changing it: left out of the
    /// noise seed, so a run with it uses exactly the draws of the calibrated
    /// run (e.g. `noise_multiplier`; adding such an option leaves every
    /// existing seed, and so every committed result, unchanged).
    DrawScaling,
}

/// One declared parameter.
#[derive(Debug, Clone, Copy)]
pub struct ParamDef {
    /// Name as written in TOML.
    pub name: &'static str,
    /// Kind and range.
    pub kind: ParamKind,
    /// Default when omitted (as TOML text); `None` means required.
    pub default: Option<&'static str>,
    /// What the value changes, which decides the seeds it enters.
    pub role: ParamRole,
    /// One-line documentation.
    pub doc: &'static str,
}

impl ParamDef {
    /// A required, data-defining integer `>= min`.
    pub const fn int(name: &'static str, min: i64, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Int { min },
            default: None,
            role: ParamRole::Data,
            doc,
        }
    }

    /// A required, data-defining float in `[min, max]` (`(min, max]` when
    /// `min_open`).
    pub const fn float(
        name: &'static str,
        (min, max, min_open): (f64, f64, bool),
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Float { min, max, min_open },
            default: None,
            role: ParamRole::Data,
            doc,
        }
    }

    /// A required, data-defining float in `(0, inf]`.
    pub const fn positive(name: &'static str, doc: &'static str) -> Self {
        Self::float(name, POSITIVE, doc)
    }

    /// A required, data-defining float in `[0, 1]`.
    pub const fn unit(name: &'static str, doc: &'static str) -> Self {
        Self::float(name, (0.0, 1.0, false), doc)
    }

    /// A required, data-defining choice among `values`.
    pub const fn choice(
        name: &'static str,
        values: &'static [&'static str],
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Choice(values),
            default: None,
            role: ParamRole::Data,
            doc,
        }
    }

    /// The same parameter with a default (TOML text, e.g. `"1.0"` or
    /// `"\"tight\""`).
    pub const fn default(self, text: &'static str) -> Self {
        Self {
            default: Some(text),
            ..self
        }
    }

    /// The same parameter with a default where one is given, required
    /// otherwise.
    pub const fn maybe_default(self, default: Option<&'static str>) -> Self {
        Self { default, ..self }
    }

    /// The same parameter as an algorithm option: it changes the noise stream
    /// (and so the noise seed), not the generated data.
    pub const fn option(self) -> Self {
        Self {
            role: ParamRole::Noise,
            ..self
        }
    }

    /// The same parameter as an option that rescales a draw
    /// ([`ParamRole::DrawScaling`]).
    pub const fn draw_scaling(self) -> Self {
        Self {
            role: ParamRole::DrawScaling,
            ..self
        }
    }
}

/// The range `(0, inf]` of [`ParamDef::float`].
pub const POSITIVE: (f64, f64, bool) = (0.0, f64::INFINITY, true);

/// Resolved parameter values of one cell, by name.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number (integers are stored exactly as f64).
    Num(f64),
    /// A string choice.
    Str(String),
}

/// All resolved values of one component.
pub type Values = BTreeMap<String, Value>;

/// Reads a numeric value (validated beforehand, so absence is a programming error).
pub fn num(values: &Values, name: &str) -> f64 {
    match values.get(name) {
        Some(Value::Num(x)) => *x,
        other => panic!("parameter {name} missing or not numeric: {other:?}"),
    }
}

/// Reads a string choice (validated beforehand).
pub fn choice<'a>(values: &'a Values, name: &str) -> &'a str {
    match values.get(name) {
        Some(Value::Str(s)) => s,
        other => panic!("parameter {name} missing or not a string: {other:?}"),
    }
}

/// The curves a run reports beside its metric, each `None` where none applies.
/// The store writes `None` as NaN.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Curves {
    /// The exact expected metric (the digest's theory curve).
    pub theory: Option<f64>,
    /// The theorem's upper bound on the expected metric.
    pub bound: Option<f64>,
    /// A second curve drawn for comparison, e.g. the printed form of a bound
    /// the digest corrects (see [`AlgorithmDef::reference_name`]).
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
    /// Algorithm diagnostics, in the order of [`AlgorithmDef::diagnostics`].
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

/// The privacy definition an algorithm is calibrated for, which decides the
/// privacy parameters its studies set and sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivacyUnit {
    /// `(eps, delta)`-DP (pure when `delta = 0`): studies set `privacy.eps`
    /// and `privacy.delta`.
    EpsDelta,
    /// `rho`-zCDP (Bun–Steinke): studies set `privacy.rho`.
    Zcdp,
}

impl PrivacyUnit {
    /// The privacy parameters a study of this unit may set or sweep.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            PrivacyUnit::EpsDelta => &["eps", "delta"],
            PrivacyUnit::Zcdp => &["rho"],
        }
    }
}

/// The privacy guarantee a grid point asks of its algorithm, in the
/// algorithm's [`PrivacyUnit`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Privacy {
    /// `(eps, delta)`-DP (pure when `delta = 0`).
    Approx(PrivacyParams),
    /// `rho`-zCDP (Bun–Steinke).
    Zcdp(f64),
}

impl Privacy {
    /// The unit of the guarantee.
    pub fn unit(self) -> PrivacyUnit {
        match self {
            Privacy::Approx(_) => PrivacyUnit::EpsDelta,
            Privacy::Zcdp(_) => PrivacyUnit::Zcdp,
        }
    }

    /// `(eps, delta)` of an approximate-DP guarantee. The runner pairs an
    /// [`PrivacyUnit::EpsDelta`] algorithm only with such a guarantee (specs
    /// are validated), so asking a zCDP one is a programming error.
    pub fn approx(self) -> PrivacyParams {
        match self {
            Privacy::Approx(p) => p,
            Privacy::Zcdp(rho) => panic!("an (eps, delta) algorithm was given rho = {rho} zCDP"),
        }
    }

    /// `rho` of a zCDP guarantee (a programming error for an approximate-DP
    /// one, as in [`Privacy::approx`]).
    pub fn rho(self) -> f64 {
        match self {
            Privacy::Zcdp(rho) => rho,
            Privacy::Approx(p) => panic!(
                "a zCDP algorithm was given (eps, delta) = ({}, {})",
                p.eps, p.delta
            ),
        }
    }

    /// The parameters by name, in the order they enter seeds and stored
    /// columns: `eps` then `delta`, or `rho`.
    pub fn values(self) -> Vec<(&'static str, f64)> {
        match self {
            Privacy::Approx(p) => vec![("eps", p.eps), ("delta", p.delta)],
            Privacy::Zcdp(rho) => vec![("rho", rho)],
        }
    }

    /// The same guarantee with parameter `name` (`eps`, `delta` or `rho`) set
    /// to `value` (a grid sweeping it). A name of the other unit is a
    /// programming error (specs are validated).
    pub fn with(self, name: &str, value: f64) -> Privacy {
        match (self, name) {
            (Privacy::Approx(p), "eps") => Privacy::Approx(PrivacyParams { eps: value, ..p }),
            (Privacy::Approx(p), "delta") => Privacy::Approx(PrivacyParams { delta: value, ..p }),
            (Privacy::Zcdp(_), "rho") => Privacy::Zcdp(value),
            (other, _) => panic!("cannot set {name} of {other:?}"),
        }
    }
}

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
    /// Names of the diagnostic outputs stored per cell.
    pub diagnostics: &'static [&'static str],
    /// What the stored `bound` is, for legends (e.g. "Cor 2.2 bound").
    pub bound_name: &'static str,
    /// What the stored `theory` is, for legends.
    pub theory_name: &'static str,
    /// What the stored `reference` curve is, for legends (empty: none).
    pub reference_name: &'static str,
    /// Runner (its variant is the kind of problem it runs on).
    pub run: Run,
    /// Diagnostics that depend on the measured metric, filled in by the
    /// runner after it measures the release: called with the metric and the
    /// run's diagnostics (e.g. González Alg. 1's sparsification penalty, the
    /// gap minus the gap of the multiplicative-weights average). `None` for
    /// most entries.
    pub derive_diagnostics: Option<fn(metric: f64, diagnostics: &mut [f64])>,
}

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
        }
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
            derive_diagnostics: None,
        }
    }

    /// The same entry with diagnostics derived from the measured metric
    /// ([`AlgorithmDef::derive_diagnostics`]).
    pub const fn deriving_diagnostics(self, derive: fn(f64, &mut [f64])) -> Self {
        Self {
            derive_diagnostics: Some(derive),
            ..self
        }
    }

    /// The same entry with these options.
    pub const fn with_options(self, options: &'static [ParamDef]) -> Self {
        Self { options, ..self }
    }

    /// The same entry with these diagnostics (names of the values its runs
    /// return, in order).
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

pub mod kind;
pub mod metric;
pub mod release;
pub mod seeds;

pub use kind::{
    Build, BuildFn, Instance, ObjectiveBuildFn, ObjectiveRunFn, ProblemKind, Run, RunFn,
};
pub use metric::Metric;
pub use release::{Release, Released};

/// Names of the privacy parameters that a grid may sweep.
pub const PRIVACY_PARAMS: &[&str] = &["eps", "delta", "rho"];
