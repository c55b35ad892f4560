//! What a study measures, and how each metric is measured on a released point.

use dpcore::halfspace::HalfspaceProblem;
use dpcore::saddle::{QueryRelease, SaddleProblem, SimplexSco};
use dpcore::{Objective, RunFailure};

/// What a study measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// `F(w) - F(w*(X))` on the sampled data set.
    ExcessEmpiricalRisk,
    /// `F(w, D) - min F(., D)` in closed form (fresh data every repetition).
    ExcessPopulationRisk,
    /// Gradient evaluations spent (one per record gradient, `n` per full gradient).
    GradientEvaluations,
    /// `F(w, D) - F(w, X)`: population minus empirical loss at the released
    /// point (Bassily et al. Lemmas 3.4 and 5.5 bound its expectation).
    GeneralizationGap,
    /// The privacy loss `eps` the algorithm's accountant certifies for the
    /// noise it actually used, under its declared neighbouring relation
    /// (reported by the algorithm, not measured on the family).
    RealisedEps,
    /// The zCDP `rho` the algorithm's accountant certifies for the noise it
    /// actually used (reported by the algorithm; Menart et al. E5).
    RealisedRho,
    /// `||grad F(w)||` at the released point (stationarity, Menart et al.
    /// Theorem 5).
    GradientNorm,
    /// Fraction of the sample the released halfspace misclassifies (ties
    /// count as errors).
    ZeroOneError,
    /// Population zero-one error of the released halfspace (test error).
    PopulationZeroOneError,
    /// The sample zero-one error minus the planted outlier fraction
    /// `|S_out|/n`: Wang–Zhu–Wang E5's excess over what the outliers force
    /// (exactly the minimum for contradictory twins, so never negative there;
    /// label flips and adversarial clusters can make it slightly negative).
    ExcessZeroOneError,
    /// Exact population duality gap of the released pair `(x, y)`.
    DualityGap,
    /// `max_j |q_j(D) - <q_j, h>|` of the released histogram `h`.
    MaxQueryError,
    /// `gamma(Phi S_in)/gamma*`: the certified margin of the JL-projected
    /// inliers relative to the planted margin (Wang–Zhu–Wang E9; reported
    /// by the measuring procedure).
    JlMarginRatio,
    /// `F~(u) - min F~` of Menart et al.'s Algorithm 4 run on its own
    /// (Theorem 9): the excess of its strongly convex prox objective
    /// `F(u) + Lt1 ||u - w0||^2` on the projection ball, in closed form
    /// (reported by the measuring entry `kl_noisy_pgd_theorem9`).
    ExcessProxObjective,
    /// `(J(y(t+1)) - J*)/(J(y(1)) - J*)` of Bassily et al.'s SVRG after `t`
    /// epochs on `A_ObjP-App`'s perturbed objective (Theorem 5.8 bounds its
    /// expectation by `0.9^t`), against the exact `J*` (reported by the
    /// measuring entry `svrg_theorem58`).
    SvrgContraction,
    /// The realised number of steps `T` of Menart et al.'s Algorithm 3 over
    /// Theorem 5's stated minimum count `(1/2) min(x^2 N*^2/(L0^2 d l), x)`
    /// (at least 1 when the statement holds; reported by the measuring entry
    /// `kl_adaptive_gd_steps`).
    RealisedOverStatedSteps,
}

impl Metric {
    /// Every metric with its name as written in TOML.
    pub const ALL: [(&'static str, Metric); 16] = [
        ("excess_empirical_risk", Metric::ExcessEmpiricalRisk),
        ("excess_population_risk", Metric::ExcessPopulationRisk),
        ("gradient_evaluations", Metric::GradientEvaluations),
        ("generalization_gap", Metric::GeneralizationGap),
        ("realised_eps", Metric::RealisedEps),
        ("realised_rho", Metric::RealisedRho),
        ("gradient_norm", Metric::GradientNorm),
        ("zero_one_error", Metric::ZeroOneError),
        ("population_zero_one_error", Metric::PopulationZeroOneError),
        ("excess_zero_one_error", Metric::ExcessZeroOneError),
        ("duality_gap", Metric::DualityGap),
        ("max_query_error", Metric::MaxQueryError),
        ("jl_margin_ratio", Metric::JlMarginRatio),
        ("excess_prox_objective", Metric::ExcessProxObjective),
        ("svrg_contraction", Metric::SvrgContraction),
        (
            "realised_over_stated_steps",
            Metric::RealisedOverStatedSteps,
        ),
    ];

    /// Whether the algorithm reports the metric itself (so any family can be
    /// used with it) rather than the family measuring it exactly.
    pub fn reported_by_algorithm(self) -> bool {
        matches!(
            self,
            Metric::GradientEvaluations
                | Metric::RealisedEps
                | Metric::RealisedRho
                | Metric::JlMarginRatio
                | Metric::ExcessProxObjective
                | Metric::SvrgContraction
                | Metric::RealisedOverStatedSteps
        )
    }

    /// The value any trivial (data-ignoring) release attains, where it is the
    /// same for every family: a 0-1 error never exceeds 1. A bound at or above
    /// it says nothing. Other metrics declare theirs per study
    /// (`expect.trivial_max`).
    pub fn trivial_maximum(self) -> Option<f64> {
        match self {
            Metric::ZeroOneError | Metric::PopulationZeroOneError | Metric::ExcessZeroOneError => {
                Some(1.0)
            }
            _ => None,
        }
    }

    /// The metric's name as written in TOML.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("unknown", |(n, _)| *n)
    }

    /// The zero-one metrics of a released halfspace `w`, or the run's cost.
    pub fn measure_halfspace(
        self,
        problem: &dyn HalfspaceProblem,
        w: &[f64],
        gradient_evaluations: f64,
    ) -> Result<f64, RunFailure> {
        match self {
            Metric::ZeroOneError => Ok(problem.zero_one_error(w)),
            Metric::ExcessZeroOneError => Ok(problem.zero_one_error(w)
                - problem.outlier_count() as f64 / problem.num_records() as f64),
            Metric::PopulationZeroOneError => {
                problem.population_error(w).map(|p| p.error).ok_or_else(|| {
                    RunFailure::InvalidParameters("the family has no population model".into())
                })
            }
            Metric::GradientEvaluations => Ok(gradient_evaluations),
            other => Err(RunFailure::InvalidParameters(format!(
                "{} is not a metric of a halfspace problem",
                other.name()
            ))),
        }
    }

    /// The metric of a released pair `(x, y)` of a saddle game (exact
    /// population duality gap), or of the run's cost.
    pub fn measure_saddle(
        self,
        problem: &dyn SaddleProblem,
        x: &[f64],
        y: &[f64],
        gradient_evaluations: f64,
    ) -> Result<f64, RunFailure> {
        match self {
            Metric::DualityGap => Ok(problem.duality_gap(x, y)),
            Metric::GradientEvaluations => Ok(gradient_evaluations),
            other => Err(RunFailure::InvalidParameters(format!(
                "{} is not a metric of a saddle problem",
                other.name()
            ))),
        }
    }

    /// The metric of a released point `w` of a simplex SCO problem (exact
    /// population excess risk), or of the run's cost.
    pub fn measure_simplex_sco(
        self,
        problem: &dyn SimplexSco,
        w: &[f64],
        gradient_evaluations: f64,
    ) -> Result<f64, RunFailure> {
        match self {
            Metric::ExcessPopulationRisk => Ok(problem.excess_risk(w)),
            Metric::GradientEvaluations => Ok(gradient_evaluations),
            other => Err(RunFailure::InvalidParameters(format!(
                "{} is not a metric of a simplex SCO problem",
                other.name()
            ))),
        }
    }

    /// The metric of a released histogram of a query-release problem
    /// (`max_j |q_j(D) - <q_j, h>|`, exact).
    pub fn measure_query_release(
        self,
        problem: &dyn QueryRelease,
        histogram: &[f64],
    ) -> Result<f64, RunFailure> {
        match self {
            Metric::MaxQueryError => Ok(problem.max_error(histogram)),
            other => Err(RunFailure::InvalidParameters(format!(
                "{} is not a metric of a query-release problem",
                other.name()
            ))),
        }
    }

    /// The names of `metrics`, as written in TOML.
    pub fn names(metrics: &[Metric]) -> Vec<&'static str> {
        metrics.iter().map(|m| m.name()).collect()
    }

    /// Looks a metric up by name.
    pub fn from_name(name: &str) -> Option<Metric> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
    }

    /// The metric of the released point `w` of an objective, or of the run's
    /// cost. The realised privacy is not measurable here (the algorithm's
    /// runner reports it from its accountant), nor are the metrics of other
    /// problem kinds (see [`Metric::measure_halfspace`] and the kind's trait).
    pub fn measure(
        self,
        problem: &dyn Objective,
        w: &[f64],
        gradient_evaluations: f64,
    ) -> Result<f64, RunFailure> {
        match self {
            Metric::GeneralizationGap => problem
                .population_loss(w)
                .map(|population| population - problem.value(w))
                .ok_or_else(|| {
                    RunFailure::InvalidParameters("the family has no population model".into())
                }),
            Metric::RealisedEps
            | Metric::RealisedRho
            | Metric::JlMarginRatio
            | Metric::ExcessProxObjective
            | Metric::SvrgContraction
            | Metric::RealisedOverStatedSteps => Err(RunFailure::InvalidParameters(
                "this metric is reported by the algorithm, not measured on the point".into(),
            )),
            Metric::GradientNorm => {
                let mut g = vec![0.0; w.len()];
                problem.gradient(w, &mut g);
                Ok(g.iter().map(|x| x * x).sum::<f64>().sqrt())
            }
            Metric::ZeroOneError
            | Metric::ExcessZeroOneError
            | Metric::PopulationZeroOneError
            | Metric::DualityGap
            | Metric::MaxQueryError => Err(RunFailure::InvalidParameters(format!(
                "{} is not a metric of a minimization objective",
                self.name()
            ))),
            Metric::ExcessEmpiricalRisk => Ok(problem.excess_risk(w)),
            Metric::ExcessPopulationRisk => problem.population_excess(w).ok_or_else(|| {
                RunFailure::InvalidParameters("the family has no population model".into())
            }),
            Metric::GradientEvaluations => Ok(gradient_evaluations),
        }
    }
}
