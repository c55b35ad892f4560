//! The catalogue of problem families, algorithms and metrics the runner knows.
//!
//! Each entry declares its parameters (name, kind, range, default, doc) so that
//! specs are validated before anything runs and `runner list` can document them.
//! Adding an algorithm or a family means adding one entry here and one module in
//! `solvers` or `datagen` (see README, "Adding an algorithm").

use std::collections::BTreeMap;

use datagen::quadratic::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{Objective, PrivacyParams, RunFailure};
use rand_pcg::Pcg64;
use solvers::output_perturbation::{ConceptualOutputPerturbation, SensitivityChoice};

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

/// One declared parameter.
#[derive(Debug, Clone, Copy)]
pub struct ParamDef {
    /// Name as written in TOML.
    pub name: &'static str,
    /// Kind and range.
    pub kind: ParamKind,
    /// Default when omitted (as TOML text); `None` means required.
    pub default: Option<&'static str>,
    /// Whether the value changes the generated data (and so the data seed).
    pub data_defining: bool,
    /// One-line documentation.
    pub doc: &'static str,
}

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

/// What one run of an algorithm produces for the store.
#[derive(Debug, Clone, PartialEq)]
pub struct CellOutput {
    /// The measured metric.
    pub metric: f64,
    /// The exact expected metric (the digest's theory curve); NaN when unknown.
    pub theory: f64,
    /// The theorem's upper bound on the expected metric; NaN when none applies.
    pub bound: f64,
    /// Algorithm diagnostics, in the order of [`AlgorithmDef::diagnostics`].
    pub diagnostics: Vec<f64>,
}

/// Builds a problem instance from validated values and the data stream.
pub type BuildFn = fn(&Values, &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure>;
/// Runs an algorithm on a problem with the noise stream and measures the metric.
pub type RunFn =
    fn(&Values, &dyn Objective, PrivacyParams, &mut Pcg64) -> Result<CellOutput, RunFailure>;

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
    pub metrics: &'static [&'static str],
    /// Constructor.
    pub build: BuildFn,
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
    /// Names of the diagnostic outputs stored per cell.
    pub diagnostics: &'static [&'static str],
    /// What the stored `bound` is, for legends (e.g. "Cor 2.2 bound").
    pub bound_name: &'static str,
    /// What the stored `theory` is, for legends.
    pub theory_name: &'static str,
    /// Runner.
    pub run: RunFn,
}

const DIAGONAL_QUADRATIC_PARAMS: &[ParamDef] = &[
    ParamDef {
        name: "n",
        kind: ParamKind::Int { min: 2 },
        default: None,
        data_defining: true,
        doc: "number of records",
    },
    ParamDef {
        name: "d",
        kind: ParamKind::Int { min: 1 },
        default: None,
        data_defining: true,
        doc: "dimension",
    },
    ParamDef {
        name: "beta",
        kind: ParamKind::Float {
            min: 0.0,
            max: f64::INFINITY,
            min_open: true,
        },
        default: Some("1.0"),
        data_defining: true,
        doc: "largest Hessian eigenvalue (smoothness)",
    },
    ParamDef {
        name: "kappa",
        kind: ParamKind::Float {
            min: 1.0,
            max: f64::INFINITY,
            min_open: false,
        },
        default: Some("1.0"),
        data_defining: true,
        doc: "condition number beta/mu; eigenvalues linearly spaced in [mu, beta]",
    },
];

fn build_diagonal_quadratic(
    values: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn Objective>, RunFailure> {
    let params = DiagonalQuadraticParams {
        n: num(values, "n") as usize,
        d: num(values, "d") as usize,
        beta: num(values, "beta"),
        kappa: num(values, "kappa"),
    };
    params.validate().map_err(RunFailure::InvalidParameters)?;
    Ok(Box::new(DiagonalQuadratic::generate(params, rng)))
}

const OUTPUT_PERTURBATION_OPTIONS: &[ParamDef] = &[ParamDef {
    name: "sensitivity",
    kind: ParamKind::Choice(&["tight", "paper"]),
    default: Some("\"tight\""),
    data_defining: false,
    doc: "minimizer sensitivity used for the noise: instance-tight bound or the paper's 2L/(mu n)",
}];

fn run_conceptual_output_perturbation(
    options: &Values,
    problem: &dyn Objective,
    privacy: PrivacyParams,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let sensitivity = match choice(options, "sensitivity") {
        "paper" => SensitivityChoice::Paper,
        _ => SensitivityChoice::Tight,
    };
    let algorithm = ConceptualOutputPerturbation { sensitivity };
    let release = algorithm.run(problem, privacy, rng)?;
    let metric = problem.excess_risk(&release.w);
    let theory = algorithm
        .exact_expected_excess(problem, privacy)
        .unwrap_or(f64::NAN);
    let bound = algorithm.theorem_bound(
        &problem.constants(),
        problem.num_records(),
        problem.dim(),
        privacy,
    );
    Ok(CellOutput {
        metric,
        theory,
        bound,
        diagnostics: vec![
            release.sensitivity,
            release.noise_scale,
            release.noise_norm_sq,
        ],
    })
}

/// Every registered problem family.
pub const FAMILIES: &[FamilyDef] = &[FamilyDef {
    name: "diagonal_quadratic",
    doc: "Lowy–Razaviyayn digest §8 E1: f(w,x) = ½(w−x)ᵀH(w−x), H diagonal in [mu, beta], \
          x uniform in the unit ball; w* = mean (closed form), L = 2 beta, R = 1",
    params: DIAGONAL_QUADRATIC_PARAMS,
    metrics: &["excess_empirical_risk"],
    build: build_diagonal_quadratic,
}];

/// Every registered algorithm.
pub const ALGORITHMS: &[AlgorithmDef] = &[AlgorithmDef {
    name: "output_perturbation_conceptual",
    doc: "Lowy–Razaviyayn Eq. (2): exact minimizer plus noise; delta = 0: Gamma(d, Delta/eps) \
          radius x uniform direction; delta > 0: Gaussian with the ZWB c_delta calibration. \
          Bound: Cor 2.2 (with the digest's corrected Prop 2.4(b))",
    options: OUTPUT_PERTURBATION_OPTIONS,
    delta_max: 0.5,
    diagnostics: &["sensitivity", "noise_scale", "noise_norm_sq"],
    bound_name: "Cor 2.2 bound (corrected Prop 2.4(b))",
    theory_name: "exact E[excess] (Prop 2.4, equality for H = βI)",
    run: run_conceptual_output_perturbation,
}];

/// Looks a family up by name.
pub fn family(name: &str) -> Option<&'static FamilyDef> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// Looks an algorithm up by name.
pub fn algorithm(name: &str) -> Option<&'static AlgorithmDef> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// Names of the privacy parameters that a grid may sweep.
pub const PRIVACY_PARAMS: &[&str] = &["eps", "delta"];
