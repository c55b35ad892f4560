//! Option schemas and run helpers shared by several registry entries.

use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;
use solvers::output_perturbation::{ConceptualOutputPerturbation, SensitivityChoice};

use contract::{CellOutput, Curves, Metric, Options, ParamDef, Release, RunContext};

contract::choices! {
    /// The `sensitivity` option's values: which bound on the minimizer's
    /// sensitivity calibrates the noise (both are private; digest P5).
    pub enum Sensitivity {
        /// The instance-tight bound.
        Tight = "tight",
        /// The paper's `2L/(mu n)`.
        Paper = "paper",
    }
}

impl From<Sensitivity> for SensitivityChoice {
    fn from(s: Sensitivity) -> Self {
        match s {
            Sensitivity::Tight => SensitivityChoice::Tight,
            Sensitivity::Paper => SensitivityChoice::Paper,
        }
    }
}

/// The `sensitivity` option: which bound on the minimizer's sensitivity
/// calibrates the noise (both are private; digest P5).
pub const SENSITIVITY: ParamDef = ParamDef::choice(
    "sensitivity",
    Sensitivity::NAMES,
    "minimizer sensitivity used for the noise: instance-tight bound or the paper's 2L/(mu n)",
)
.default("\"tight\"")
.option();

/// The `noise_multiplier` option of the conceptual output perturbation:
/// scales the calibrated noise by a factor `>= 1`, so the privacy guarantee
/// still holds while the accuracy degrades. The reported theory curve and
/// bound stay those of the calibrated mechanism, so the over-noised variant
/// is what a regression looks like to `check` (used by the test that table 1
/// catches a broken algorithm, and for sensitivity analyses).
pub const NOISE_MULTIPLIER: ParamDef = ParamDef::float(
    "noise_multiplier",
    (1.0, 1e6, false),
    "factor >= 1 on the calibrated noise (still private, less accurate; theory and bound stay the calibrated ones)",
)
.default("1.0")
.draw_scaling();

contract::options! {
    /// Options of the conceptual output perturbation
    /// (`output_perturbation_conceptual`).
    pub struct OutputPerturbationOptions {
        /// Which sensitivity bound calibrates the noise.
        pub sensitivity: Sensitivity = SENSITIVITY,
        /// Factor on the calibrated noise.
        pub noise_multiplier: f64 = NOISE_MULTIPLIER,
    }
}

/// Conceptual output perturbation, Eq. (2): exact minimizer plus noise, no
/// projection. Empirical metric: theory `tr(H) E||z||^2/(2d)` (quadratics),
/// bound Cor 2.2; population metric: theory adds the family's statistical
/// term, bound Prop 4.2.
pub fn run_output_perturbation_conceptual(
    ctx: &RunContext,
    problem: &dyn Objective,
    rng: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    let options = OutputPerturbationOptions::read(ctx.options)?;
    let algorithm = ConceptualOutputPerturbation {
        sensitivity: options.sensitivity.into(),
    };
    let privacy = ctx.privacy.approx();
    let mut release = algorithm.run(problem, privacy, rng)?;
    let multiplier = options.noise_multiplier;
    if multiplier != 1.0 {
        // w = w* + z  ->  w* + m z: the same draw, scaled.
        for (w, m) in release.w.iter_mut().zip(problem.minimizer()) {
            *w = m + multiplier * (*w - m);
        }
        release.noise_scale *= multiplier;
        release.noise_norm_sq *= multiplier * multiplier;
    }
    let noise_term = algorithm.exact_expected_excess(problem, privacy);
    let (c, n, d) = (problem.constants(), problem.num_records(), problem.dim());
    let erm_bound = algorithm.theorem_bound(&c, n, d, privacy);
    let (theory, bound) = match ctx.metric {
        Metric::ExcessPopulationRisk => {
            let stat = problem.expected_minimizer_population_excess();
            // Prop 4.2: L^2/mu (2/n + 4 kappa rho^2); the second term is Cor 2.2's.
            let generalization = 2.0 * c.lipschitz * c.lipschitz / (c.strong_convexity * n as f64);
            (
                stat.zip(noise_term).map(|(s, z)| s + z),
                erm_bound.map(|b| generalization + b),
            )
        }
        _ => (noise_term, erm_bound),
    };
    Ok(CellOutput::new(
        Release::point(release.w, 0.0),
        Curves::new(theory, bound, None),
        [
            ("sensitivity", release.sensitivity),
            ("noise_scale", release.noise_scale),
            ("noise_norm_sq", release.noise_norm_sq),
        ],
    ))
}
