//! Options of the González–Guzmán–Paquette algorithms, each declared once as
//! a typed struct (`contract::options!`): the regime of Alg. 1 and Alg. 4, the
//! corrected or printed release count (one declaration, shared by Algs. 1, 3
//! and 4), Alg. 1's absolute constants and DP-SGDA's clip. The runs and their
//! audit pairs read the same structs, so an audit plans the schedule its run
//! will use without importing the run's module.

use solvers::gonzalez::alg1::{Alg1Options, Regime};
use solvers::gonzalez::alg4::ScoRegime;
use solvers::gonzalez::ReleaseCount;

use contract::ParamDef;

contract::choices! {
    /// `release_count`'s values: which privacy cap the schedule uses.
    pub enum ReleaseCountOption {
        /// Both players' releases (Alg 1: `2T(K+1)`; Alg 3: per-vertex
        /// constant 20; Alg 4: the realised `(refreshes + 1) K`).
        Corrected = "corrected",
        /// The printed count, whose realised eps may exceed the target.
        Paper = "paper",
    }
}

impl From<ReleaseCountOption> for ReleaseCount {
    fn from(c: ReleaseCountOption) -> Self {
        match c {
            ReleaseCountOption::Corrected => ReleaseCount::Corrected,
            ReleaseCountOption::Paper => ReleaseCount::PaperPrinted,
        }
    }
}

/// The `release_count` option: corrected (default) or printed privacy cap.
const RELEASE_COUNT: ParamDef = ParamDef::choice(
    "release_count",
    ReleaseCountOption::NAMES,
    "privacy cap: \"corrected\" counts both players' releases (Alg 1: 2T(K+1); Alg 3: per-vertex constant 20; \
     Alg 4: the realised (refreshes + 1) K); \"paper\" is the printed Prop 4.1 / Prop E.1 / Thm 5.1 count \
     (T(K+1); 9; TK/q + qK), whose realised eps may exceed the target",
)
.default("\"corrected\"")
.option();

contract::choices! {
    /// `regime`'s values of Alg. 1 (digest §3.1 table).
    pub enum Alg1Regime {
        /// Thm 4.1 with `L2 = 0` (`K = 1`).
        Quadratic = "quadratic",
        /// Thm 4.1 second-order (`K = sqrt(T/l)`).
        SecondOrder = "second_order",
        /// Thm 4.2 first-order (`K = T/l`).
        FirstOrder = "first_order",
    }
}

impl From<Alg1Regime> for Regime {
    fn from(r: Alg1Regime) -> Self {
        match r {
            Alg1Regime::Quadratic => Regime::Quadratic,
            Alg1Regime::SecondOrder => Regime::SecondOrder,
            Alg1Regime::FirstOrder => Regime::FirstOrder,
        }
    }
}

contract::options! {
    /// Options of `ggp_alg1`.
    pub struct Alg1EntryOptions {
        /// The schedule's regime.
        pub regime: Alg1Regime = ParamDef::choice(
            "regime",
            Alg1Regime::NAMES,
            "schedule: Thm 4.1 with L2 = 0 (K = 1), Thm 4.1 second-order (K = sqrt(T/l)), Thm 4.2 first-order (K = T/l)",
        )
        .default("\"quadratic\"")
        .option(),
        /// The privacy cap.
        pub release_count: ReleaseCountOption = RELEASE_COUNT,
        /// The absolute constant on `T`.
        pub c_steps: f64 = ParamDef::float(
            "c_steps",
            (0.0, f64::INFINITY, true),
            "absolute constant c_T multiplying the schedule's T (sensitivity study: 0.5, 1, 2)",
        )
        .default("1.0")
        .option(),
        /// The absolute constant on the step size.
        pub c_tau: f64 = ParamDef::float(
            "c_tau",
            (0.0, f64::INFINITY, true),
            "absolute constant c_tau multiplying the statistical step size",
        )
        .default("1.0")
        .option(),
    }
}

impl Alg1EntryOptions {
    /// Alg. 1's solver options (shared by the run and its audit pair, which
    /// needs the schedule the run will use).
    pub fn alg1(&self) -> Alg1Options {
        Alg1Options {
            c_steps: self.c_steps,
            c_tau: self.c_tau,
            release_count: self.release_count.into(),
            ..Alg1Options::new(self.regime.into())
        }
    }
}

contract::options! {
    /// Options of `ggp_alg3`.
    pub struct Alg3EntryOptions {
        /// The privacy cap.
        pub release_count: ReleaseCountOption = RELEASE_COUNT,
    }
}

contract::choices! {
    /// `regime`'s values of Alg. 4 (Thm 5.1).
    pub enum Alg4Regime {
        /// Second-order smooth (`T = n eps/(l_x sqrt Lambda)`).
        SecondOrder = "second_order",
        /// First-order smooth.
        FirstOrder = "first_order",
    }
}

impl From<Alg4Regime> for ScoRegime {
    fn from(r: Alg4Regime) -> Self {
        match r {
            Alg4Regime::SecondOrder => ScoRegime::SecondOrder,
            Alg4Regime::FirstOrder => ScoRegime::FirstOrder,
        }
    }
}

contract::options! {
    /// Options of `ggp_alg4`.
    pub struct Alg4EntryOptions {
        /// Thm 5.1's schedule.
        pub regime: Alg4Regime = ParamDef::choice(
            "regime",
            Alg4Regime::NAMES,
            "Thm 5.1 schedule: second-order smooth (T = n eps/(l_x sqrt Lambda)) or first-order smooth",
        )
        .default("\"second_order\"")
        .option(),
        /// The privacy cap.
        pub release_count: ReleaseCountOption = RELEASE_COUNT,
    }
}

contract::options! {
    /// Options of `ggp_euclidean_dp_sgda`.
    pub struct SgdaOptions {
        /// The L2 clip (0: the worst case).
        pub clip: f64 = ParamDef::float(
            "clip",
            (0.0, f64::INFINITY, false),
            "L2 clip C; 0 means the worst case L0 sqrt(d_x + d_y) (a tuned C is not privacy-accounted)",
        )
        .default("0.0")
        .option(),
    }
}
