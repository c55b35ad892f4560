//! Problem kinds: what a family generates and what an algorithm runs on.
//!
//! Most families are minimization problems with a known optimum
//! ([`dpcore::Objective`]). Other papers need other shapes (labelled halfspace
//! data measured by zero-one error, saddle games measured by the duality
//! gap), so a family declares how it builds its instance and an algorithm
//! declares which kind it runs on. The spec validator rejects a study that
//! pairs a family and an algorithm of different kinds before anything runs.

use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;

use super::{CellOutput, RunContext, Values};

/// The kinds of problem the runner knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// A minimization objective with a known optimum ([`dpcore::Objective`]).
    Objective,
}

impl ProblemKind {
    /// Name used in error messages and `runner list`.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Objective => "objective",
        }
    }
}

/// A generated problem instance.
pub enum Instance {
    /// A minimization objective.
    Objective(Box<dyn Objective>),
}

impl Instance {
    /// The instance's kind.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Instance::Objective(_) => ProblemKind::Objective,
        }
    }
}

/// Builds an objective from validated values and the data stream.
pub type ObjectiveBuildFn = fn(&Values, &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure>;
/// Runs an algorithm on an objective with the noise stream and measures the metric.
pub type ObjectiveRunFn =
    fn(&RunContext, &dyn Objective, &mut Pcg64) -> Result<CellOutput, RunFailure>;

/// How a family builds its instance, by kind.
#[derive(Debug, Clone, Copy)]
pub enum Build {
    /// The family is a minimization objective.
    Objective(ObjectiveBuildFn),
}

impl Build {
    /// The kind of instance built.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Build::Objective(_) => ProblemKind::Objective,
        }
    }

    /// Builds the instance.
    pub fn build(&self, values: &Values, rng: &mut Pcg64) -> Result<Instance, RunFailure> {
        match self {
            Build::Objective(f) => f(values, rng).map(Instance::Objective),
        }
    }
}

/// How an algorithm runs, by the kind of instance it accepts.
#[derive(Debug, Clone, Copy)]
pub enum Run {
    /// The algorithm minimizes an objective.
    Objective(ObjectiveRunFn),
}

impl Run {
    /// The kind of instance the algorithm accepts.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Run::Objective(_) => ProblemKind::Objective,
        }
    }

    /// Runs the algorithm on an instance of its kind.
    pub fn run(
        &self,
        ctx: &RunContext,
        instance: &Instance,
        rng: &mut Pcg64,
    ) -> Result<CellOutput, RunFailure> {
        match (self, instance) {
            (Run::Objective(f), Instance::Objective(problem)) => f(ctx, problem.as_ref(), rng),
        }
    }
}
