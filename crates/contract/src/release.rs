//! What a run releases, and how the runner measures a metric on it.
//!
//! An algorithm returns its [`Release`]; the runner computes the study's
//! metric from the instance and the release ([`Instance::measure`]), so no
//! entry measures (or mis-measures) its own output. The algorithm adds only
//! what nobody else can know: its cost in gradient evaluations and the privacy
//! loss its accountant certifies for the noise it actually used.

use dpcore::{Objective, RunFailure};

use crate::{Instance, Metric};

/// The released output, in the form of the problem kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Released {
    /// A point `w` (objectives, KL objectives, halfspaces, simplex SCO).
    Point(Vec<f64>),
    /// A pair `(x, y)` of a saddle game.
    Pair {
        /// The min player's point.
        x: Vec<f64>,
        /// The max player's point.
        y: Vec<f64>,
    },
    /// A histogram over the domain of a query-release problem.
    Histogram(Vec<f64>),
    /// A value the entry reports in place of a release, stored as the metric
    /// whatever the study measures: a measuring procedure that releases
    /// nothing (the JL margin check, [`Metric::JlMarginRatio`]) or a theory
    /// curve evaluated at the grid point and drawn as a negative control
    /// (Bassily et al. E4's `theory_curve`).
    Measurement(f64),
}

/// What one run releases for the runner to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Release {
    /// The released output.
    pub output: Released,
    /// Gradient evaluations spent (one per record gradient, `n` per full
    /// gradient): the [`Metric::GradientEvaluations`] of the run.
    pub gradient_evaluations: f64,
    /// The privacy loss the algorithm's accountant certifies for the noise it
    /// used, in the algorithm's unit (`eps` or `rho`): the
    /// [`Metric::RealisedEps`] / [`Metric::RealisedRho`] of the run; `None`
    /// when the algorithm reports none.
    pub realised_privacy: Option<f64>,
}

impl Release {
    /// A released point with its cost.
    pub fn point(w: Vec<f64>, gradient_evaluations: f64) -> Self {
        Self {
            output: Released::Point(w),
            gradient_evaluations,
            realised_privacy: None,
        }
    }

    /// A released saddle pair with its cost.
    pub fn pair(x: Vec<f64>, y: Vec<f64>, gradient_evaluations: f64) -> Self {
        Self {
            output: Released::Pair { x, y },
            gradient_evaluations,
            realised_privacy: None,
        }
    }

    /// A released histogram with its cost.
    pub fn histogram(h: Vec<f64>, gradient_evaluations: f64) -> Self {
        Self {
            output: Released::Histogram(h),
            gradient_evaluations,
            realised_privacy: None,
        }
    }

    /// A measuring procedure's value.
    pub fn measurement(value: f64) -> Self {
        Self {
            output: Released::Measurement(value),
            gradient_evaluations: 0.0,
            realised_privacy: None,
        }
    }

    /// The same release with the privacy loss the accountant certifies.
    pub fn with_realised_privacy(self, realised: f64) -> Self {
        Self {
            realised_privacy: Some(realised),
            ..self
        }
    }
}

impl Instance {
    /// The value of `metric` for `release` on this instance: a reported
    /// [`Released::Measurement`] as is; the cost and the realised privacy
    /// from the release; every other metric measured exactly on the released
    /// output by the kind's oracle. A metric the instance cannot measure (no
    /// population model, an output of another kind) is an invalid-parameter
    /// failure.
    pub fn measure(&self, metric: Metric, release: &Release) -> Result<f64, RunFailure> {
        let evaluations = release.gradient_evaluations;
        if let Released::Measurement(value) = release.output {
            return Ok(value);
        }
        match metric {
            Metric::GradientEvaluations => return Ok(evaluations),
            Metric::RealisedEps | Metric::RealisedRho => {
                return release.realised_privacy.ok_or_else(|| {
                    RunFailure::InvalidParameters(format!(
                        "the algorithm reports no {}",
                        metric.name()
                    ))
                })
            }
            _ => {}
        }
        match (self, &release.output) {
            (Instance::Objective(p), Released::Point(w)) => {
                metric.measure(p.as_ref(), w, evaluations)
            }
            (Instance::KlObjective(p), Released::Point(w)) => {
                let objective: &dyn Objective = p.as_ref();
                metric.measure(objective, w, evaluations)
            }
            (Instance::Halfspace(p), Released::Point(w)) => {
                metric.measure_halfspace(p.as_ref(), w, evaluations)
            }
            (Instance::Saddle(p), Released::Pair { x, y }) => {
                metric.measure_saddle(p.as_ref(), x, y, evaluations)
            }
            (Instance::SimplexSco(p), Released::Point(w)) => {
                metric.measure_simplex_sco(p.as_ref(), w, evaluations)
            }
            (Instance::QueryRelease(p), Released::Histogram(h)) => {
                metric.measure_query_release(p.as_ref(), h)
            }
            (instance, output) => Err(RunFailure::InvalidParameters(format!(
                "{} cannot be measured on this release ({output:?}) of a {} instance",
                metric.name(),
                instance.kind().name()
            ))),
        }
    }
}
