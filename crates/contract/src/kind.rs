//! Problem kinds: what a family generates and what an algorithm runs on.
//!
//! Most families are minimization problems with a known optimum
//! ([`dpcore::Objective`]). Other papers need other shapes (labelled halfspace
//! data measured by zero-one error, saddle games measured by the duality
//! gap), so a family declares how it builds its instance and an algorithm
//! declares which kind it runs on. The spec validator rejects a study that
//! pairs a family and an algorithm of different kinds before anything runs.
//!
//! For the kinds other than [`ProblemKind::Objective`] the algorithm's run
//! function measures the study's metric itself through the kind's trait
//! (zero-one error, duality gap, excess risk on the simplex, query error).

use dpcore::halfspace::HalfspaceProblem;
use dpcore::menart::KlObjective;
use dpcore::saddle::{QueryRelease, SaddleProblem, SimplexSco};
use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;

use crate::{CellOutput, RunContext, Values};

/// The kinds of problem the runner knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// A minimization objective with a known optimum ([`dpcore::Objective`]).
    Objective,
    /// An objective with public KL constants and clipped full-batch oracles
    /// ([`KlObjective`], Menart et al.); measured like an objective.
    KlObjective,
    /// Labelled halfspace data ([`HalfspaceProblem`], Wang–Zhu–Wang).
    Halfspace,
    /// A stochastic saddle game on simplices ([`SaddleProblem`],
    /// González–Guzmán–Paquette).
    Saddle,
    /// Stochastic convex optimization on the simplex ([`SimplexSco`]).
    SimplexSco,
    /// Linear-query release over a finite domain ([`QueryRelease`]).
    QueryRelease,
}

impl ProblemKind {
    /// Name used in error messages and `runner list`.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Objective => "objective",
            ProblemKind::KlObjective => "kl_objective",
            ProblemKind::Halfspace => "halfspace",
            ProblemKind::Saddle => "saddle",
            ProblemKind::SimplexSco => "simplex_sco",
            ProblemKind::QueryRelease => "query_release",
        }
    }
}

/// A generated problem instance.
pub enum Instance {
    /// A minimization objective.
    Objective(Box<dyn Objective>),
    /// A KL objective.
    KlObjective(Box<dyn KlObjective>),
    /// Labelled halfspace data.
    Halfspace(Box<dyn HalfspaceProblem>),
    /// A saddle game.
    Saddle(Box<dyn SaddleProblem>),
    /// Convex optimization on the simplex.
    SimplexSco(Box<dyn SimplexSco>),
    /// Query release.
    QueryRelease(Box<dyn QueryRelease>),
}

impl Instance {
    /// The instance's kind.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Instance::Objective(_) => ProblemKind::Objective,
            Instance::KlObjective(_) => ProblemKind::KlObjective,
            Instance::Halfspace(_) => ProblemKind::Halfspace,
            Instance::Saddle(_) => ProblemKind::Saddle,
            Instance::SimplexSco(_) => ProblemKind::SimplexSco,
            Instance::QueryRelease(_) => ProblemKind::QueryRelease,
        }
    }
}

/// Builds an instance of type `P` from validated values and the data stream.
pub type BuildFn<P> = fn(&Values, &mut Pcg64) -> Result<Box<P>, RunFailure>;
/// Runs an algorithm on an instance of type `P` with the noise stream and
/// measures the metric.
pub type RunFn<P> = fn(&RunContext, &P, &mut Pcg64) -> Result<CellOutput, RunFailure>;
/// Builds an objective.
pub type ObjectiveBuildFn = BuildFn<dyn Objective>;
/// Runs an algorithm on an objective.
pub type ObjectiveRunFn = RunFn<dyn Objective>;

/// How a family builds its instance, by kind.
#[derive(Debug, Clone, Copy)]
pub enum Build {
    /// The family is a minimization objective.
    Objective(ObjectiveBuildFn),
    /// The family is a KL objective.
    KlObjective(BuildFn<dyn KlObjective>),
    /// The family is labelled halfspace data.
    Halfspace(BuildFn<dyn HalfspaceProblem>),
    /// The family is a saddle game.
    Saddle(BuildFn<dyn SaddleProblem>),
    /// The family is convex optimization on the simplex.
    SimplexSco(BuildFn<dyn SimplexSco>),
    /// The family is a query-release problem.
    QueryRelease(BuildFn<dyn QueryRelease>),
}

impl Build {
    /// The kind of instance built.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Build::Objective(_) => ProblemKind::Objective,
            Build::KlObjective(_) => ProblemKind::KlObjective,
            Build::Halfspace(_) => ProblemKind::Halfspace,
            Build::Saddle(_) => ProblemKind::Saddle,
            Build::SimplexSco(_) => ProblemKind::SimplexSco,
            Build::QueryRelease(_) => ProblemKind::QueryRelease,
        }
    }

    /// Builds the instance.
    pub fn build(&self, values: &Values, rng: &mut Pcg64) -> Result<Instance, RunFailure> {
        match self {
            Build::Objective(f) => f(values, rng).map(Instance::Objective),
            Build::KlObjective(f) => f(values, rng).map(Instance::KlObjective),
            Build::Halfspace(f) => f(values, rng).map(Instance::Halfspace),
            Build::Saddle(f) => f(values, rng).map(Instance::Saddle),
            Build::SimplexSco(f) => f(values, rng).map(Instance::SimplexSco),
            Build::QueryRelease(f) => f(values, rng).map(Instance::QueryRelease),
        }
    }
}

/// How an algorithm runs, by the kind of instance it accepts.
#[derive(Debug, Clone, Copy)]
pub enum Run {
    /// The algorithm minimizes an objective.
    Objective(ObjectiveRunFn),
    /// The algorithm minimizes a KL objective.
    KlObjective(RunFn<dyn KlObjective>),
    /// The algorithm learns a halfspace.
    Halfspace(RunFn<dyn HalfspaceProblem>),
    /// The algorithm solves a saddle game.
    Saddle(RunFn<dyn SaddleProblem>),
    /// The algorithm minimizes on the simplex.
    SimplexSco(RunFn<dyn SimplexSco>),
    /// The algorithm releases query answers.
    QueryRelease(RunFn<dyn QueryRelease>),
}

impl Run {
    /// The kind of instance the algorithm accepts.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Run::Objective(_) => ProblemKind::Objective,
            Run::KlObjective(_) => ProblemKind::KlObjective,
            Run::Halfspace(_) => ProblemKind::Halfspace,
            Run::Saddle(_) => ProblemKind::Saddle,
            Run::SimplexSco(_) => ProblemKind::SimplexSco,
            Run::QueryRelease(_) => ProblemKind::QueryRelease,
        }
    }

    /// Runs the algorithm on an instance of its kind (spec validation rejects
    /// other pairings; one reaching here is an invalid-parameter failure).
    pub fn run(
        &self,
        ctx: &RunContext,
        instance: &Instance,
        rng: &mut Pcg64,
    ) -> Result<CellOutput, RunFailure> {
        match (self, instance) {
            (Run::Objective(f), Instance::Objective(p)) => f(ctx, p.as_ref(), rng),
            (Run::KlObjective(f), Instance::KlObjective(p)) => f(ctx, p.as_ref(), rng),
            (Run::Halfspace(f), Instance::Halfspace(p)) => f(ctx, p.as_ref(), rng),
            (Run::Saddle(f), Instance::Saddle(p)) => f(ctx, p.as_ref(), rng),
            (Run::SimplexSco(f), Instance::SimplexSco(p)) => f(ctx, p.as_ref(), rng),
            (Run::QueryRelease(f), Instance::QueryRelease(p)) => f(ctx, p.as_ref(), rng),
            _ => Err(RunFailure::InvalidParameters(format!(
                "an algorithm for {} problems cannot run on a {} instance",
                self.kind().name(),
                instance.kind().name()
            ))),
        }
    }
}
