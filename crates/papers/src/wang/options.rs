//! Option schemas of the Wang–Zhu–Wang algorithms and the helpers that turn
//! them into `solvers::wang` options (digest §2, §7 modes, P5, P6, P12).
//!
//! Defaults are the paper's algorithm with the digest's corrections: paper
//! iteration count `T = n^2 mu_p^2`, averaged iterate, the paper's GDP
//! conversion (Cor. E.2), `C_JL = 1`, the empirical score, the full grid. The
//! named variants are the digest's fast mode (`T = ceil(n^2 mu_p^2/k)`, P5),
//! the last iterate (`eta_hp`, P12), the exact Dong–Roth–Su conversion
//! (`tight`), the VC-penalised score (Theorem 6.7) and dropping vacuous
//! candidates (P6).

use solvers::wang::{
    BudgetConversion, IterationMode, KnownMarginBudget, MStarOptions, Projection,
    SelectionCriterion,
};

use contract::ParamDef;

contract::choices! {
    /// `mode`'s values: the NGD iteration count (digest §7).
    pub enum Mode {
        /// `T = round(n^2 mu_p^2)`.
        Paper = "paper",
        /// `T = ceil(n^2 mu_p^2/k)` (digest P5).
        Fast = "fast",
    }
}

impl From<Mode> for IterationMode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Paper => IterationMode::Paper,
            Mode::Fast => IterationMode::Fast,
        }
    }
}

contract::choices! {
    /// `iterate`'s values: the released NGD iterate.
    pub enum Iterate {
        /// The average (Lemma C.1).
        Averaged = "averaged",
        /// The last (Lemma C.2, P12).
        Last = "last",
    }
}

impl Iterate {
    /// Whether the last iterate is released.
    pub fn is_last(self) -> bool {
        match self {
            Iterate::Averaged => false,
            Iterate::Last => true,
        }
    }
}

contract::choices! {
    /// `conversion`'s values: GDP to `(eps, delta)`.
    pub enum Conversion {
        /// The paper's `mu = eps/(2 sqrt(2 ln(1/delta)))` (Cor. E.2).
        Paper = "paper",
        /// The exact Dong–Roth–Su `mu`.
        Tight = "tight",
    }
}

impl From<Conversion> for BudgetConversion {
    fn from(c: Conversion) -> Self {
        match c {
            Conversion::Paper => BudgetConversion::Paper,
            Conversion::Tight => BudgetConversion::Tight,
        }
    }
}

contract::choices! {
    /// `criterion`'s values: the selection score of `M*`.
    pub enum Criterion {
        /// The 0-1 error (Thm 6.5).
        Empirical = "empirical",
        /// The VC-penalised error (Thm 6.7).
        Penalised = "penalised",
    }
}

impl From<Criterion> for SelectionCriterion {
    fn from(c: Criterion) -> Self {
        match c {
            Criterion::Empirical => SelectionCriterion::Empirical,
            Criterion::Penalised => SelectionCriterion::Penalised,
        }
    }
}

contract::choices! {
    /// `drop_vacuous`'s values (P6).
    pub enum DropVacuous {
        /// Keep every candidate.
        No = "no",
        /// Drop the candidates with `1/(n gamma^2 eps) >= 1`.
        Yes = "yes",
    }
}

contract::choices! {
    /// `budget`'s values: the GDP budget of a known-margin run.
    pub enum Budget {
        /// The whole `mu`.
        Total = "total",
        /// `M*`'s per-call `mu/sqrt(2|Gamma|)` (E6).
        PerCall = "per_call",
    }
}

impl From<Budget> for KnownMarginBudget {
    fn from(b: Budget) -> Self {
        match b {
            Budget::Total => KnownMarginBudget::Total,
            Budget::PerCall => KnownMarginBudget::PerCall,
        }
    }
}

contract::choices! {
    /// `tuning`'s values: how full-dimension DP-GD chooses its margin.
    pub enum Tuning {
        /// Tuned by `A_Iter` over `M*`'s grid.
        Tuned = "tuned",
        /// Run at the known `gamma*` with all of `mu`.
        Known = "known",
    }
}

/// `mode`: NGD iteration count (digest §7).
const MODE: ParamDef = ParamDef::choice(
    "mode",
    Mode::NAMES,
    "NGD iterations: paper T = round(n^2 mu_p^2), or fast T = ceil(n^2 mu_p^2/k) (digest P5, same expectation bound)",
)
.default("\"paper\"")
.option();
/// `iterate`: averaged (Thm 6.5(1)) or last (Thm 6.5(2), 6.7).
const ITERATE: ParamDef = ParamDef::choice(
    "iterate",
    Iterate::NAMES,
    "released iterate: the average (Lemma C.1, eta) or the last (Lemma C.2, eta_hp with beta/|Gamma|, P12)",
)
.default("\"averaged\"")
.option();
/// `conversion`: GDP to `(eps, delta)`.
const CONVERSION: ParamDef = ParamDef::choice(
    "conversion",
    Conversion::NAMES,
    "total GDP budget: the paper's mu = eps/(2 sqrt(2 ln(1/delta))) (Cor. E.2) or the exact Dong–Roth–Su mu",
)
.default("\"paper\"")
.option();
/// `jl_constant`: the hidden JL constant `C_JL` (digest §2.6).
const JL_CONSTANT: ParamDef = ParamDef::positive(
    "jl_constant",
    "C_JL in k_gamma = min(d, ceil(C_JL ln(|Gamma|(n+1)(n+2)/beta)/gamma^2)); provable: 324/7 (digest §2.6)",
)
.default("1.0")
.option();

/// `grid_copies`: every candidate repeated `k` times, `|Theta| = k |Gamma|`
/// (WZW-C-T7.1-gridsize; `solvers::wang::replicate_grid`).
const GRID_COPIES: ParamDef = ParamDef::int(
    "grid_copies",
    1,
    "candidate-set size |Theta| = grid_copies |Gamma|: every margin repeated with its own JL map and noise (1: the paper's grid; larger sweeps |Theta| for WZW-C-T7.1-gridsize; no explicit bound is stored above 1)",
)
.default("1")
.late_option();

/// The `M*` options of an entry: its iteration mode, iterate and conversion,
/// the selection score and candidate filter (`M*` itself declares them; the
/// others run `M*`'s defaults) and the projection.
fn m_star_options(
    (mode, iterate, conversion): (Mode, Iterate, Conversion),
    criterion: Criterion,
    drop_vacuous: DropVacuous,
    projection: Projection,
) -> MStarOptions {
    MStarOptions {
        mode: mode.into(),
        last_iterate: iterate.is_last(),
        conversion: conversion.into(),
        criterion: criterion.into(),
        projection,
        beta: None,
        data_bound: 1.0,
        drop_vacuous: match drop_vacuous {
            DropVacuous::No => false,
            DropVacuous::Yes => true,
        },
        grid_copies: 1,
    }
}

contract::options! {
    /// Options of `wang_m_star`.
    pub struct MStarEntryOptions {
        /// NGD iteration count.
        pub mode: Mode = MODE,
        /// The released iterate.
        pub iterate: Iterate = ITERATE,
        /// GDP to `(eps, delta)`.
        pub conversion: Conversion = CONVERSION,
        /// The selection score.
        pub criterion: Criterion = ParamDef::choice(
            "criterion",
            Criterion::NAMES,
            "selection score: the 0-1 error R~_S (Thm 6.5) or R~_S + (5/(2n))(k ln(2n) + ln(4|Gamma|/beta)) (Thm 6.7)",
        )
        .default("\"empirical\"")
        .option(),
        /// The JL constant `C_JL`.
        pub jl_constant: f64 = JL_CONSTANT,
        /// Whether vacuous candidates are dropped.
        pub drop_vacuous: DropVacuous = ParamDef::choice(
            "drop_vacuous",
            DropVacuous::NAMES,
            "drop the candidates with 1/(n gamma^2 eps) >= 1 (public information only, shrinks |Gamma|; digest P6)",
        )
        .default("\"no\"")
        .option(),
        /// Copies of every candidate (`|Theta| = grid_copies |Gamma|`).
        pub grid_copies: u64 = GRID_COPIES,
    }
}

impl MStarEntryOptions {
    /// The `M*` options (JL projection).
    pub fn m_star(&self) -> MStarOptions {
        MStarOptions {
            grid_copies: self.grid_copies as usize,
            ..m_star_options(
                (self.mode, self.iterate, self.conversion),
                self.criterion,
                self.drop_vacuous,
                Projection::Jl {
                    constant: self.jl_constant,
                },
            )
        }
    }
}

contract::options! {
    /// Options of `wang_m_prime`.
    pub struct MPrimeOptions {
        /// NGD iteration count.
        pub mode: Mode = MODE,
        /// The released iterate.
        pub iterate: Iterate = ITERATE,
        /// The JL constant `C_JL`.
        pub jl_constant: f64 = JL_CONSTANT,
        /// The stopping probability's factor over Algorithm 6's.
        pub r_factor: f64 = ParamDef::float(
            "r_factor",
            (1.0, f64::INFINITY, false),
            "stopping probability r = r_factor/(|Gamma|(n^2 - 1)) (1: Algorithm 6; larger stays private, P14)",
        )
        .default("1.0")
        .option(),
        /// The largest admissible realised `K`.
        pub max_runs: u64 = ParamDef::int(
            "max_runs",
            1,
            "largest admissible realised K (a larger draw fails the cell; K is never truncated, P13)",
        )
        .default("1000000")
        .option(),
        /// Copies of every grid point (`|Theta| = grid_copies |Gamma|`).
        pub grid_copies: u64 = GRID_COPIES,
    }
}

contract::options! {
    /// Options of `wang_oracle_jlgd`.
    pub struct OracleJlgdOptions {
        /// NGD iteration count.
        pub mode: Mode = MODE,
        /// The released iterate.
        pub iterate: Iterate = ITERATE,
        /// GDP to `(eps, delta)`.
        pub conversion: Conversion = CONVERSION,
        /// The JL constant `C_JL`.
        pub jl_constant: f64 = JL_CONSTANT,
        /// The GDP budget of the run.
        pub budget: Budget = ParamDef::choice(
            "budget",
            Budget::NAMES,
            "GDP budget of the known-margin run: the whole mu, or M*'s per-call mu/sqrt(2|Gamma|) (E6)",
        )
        .default("\"total\"")
        .option(),
    }
}

impl OracleJlgdOptions {
    /// The `M*` options of the run (JL projection, `M*`'s default score).
    pub fn m_star(&self) -> MStarOptions {
        m_star_options(
            (self.mode, self.iterate, self.conversion),
            Criterion::Empirical,
            DropVacuous::No,
            Projection::Jl {
                constant: self.jl_constant,
            },
        )
    }
}

contract::options! {
    /// Options of `wang_full_dim_dpgd`.
    pub struct FullDimOptions {
        /// NGD iteration count.
        pub mode: Mode = MODE,
        /// The released iterate.
        pub iterate: Iterate = ITERATE,
        /// GDP to `(eps, delta)`.
        pub conversion: Conversion = CONVERSION,
        /// The clip radius in units of `b`.
        pub radius_factor: f64 = ParamDef::float(
            "radius_factor",
            (1.0, 2.0, false),
            "clip radius / b of full-dimension DP-GD: 2 gives JLGD's conservative Delta = 12b/gamma, 1 the exact 6b/gamma",
        )
        .default("2.0")
        .option(),
        /// How the margin is chosen.
        pub tuning: Tuning = ParamDef::choice(
            "tuning",
            Tuning::NAMES,
            "full-dimension DP-GD tuned by A_Iter over M*'s grid (same budget split, fair) or run at the known gamma* with all of mu",
        )
        .default("\"tuned\"")
        .option(),
    }
}

impl FullDimOptions {
    /// The `M*` options of the run (full-dimension projection, `M*`'s
    /// default score).
    pub fn m_star(&self) -> MStarOptions {
        m_star_options(
            (self.mode, self.iterate, self.conversion),
            Criterion::Empirical,
            DropVacuous::No,
            Projection::FullDimension {
                radius_factor: self.radius_factor,
            },
        )
    }
}

contract::options! {
    /// Options of `wang_jl_margin_check`.
    pub struct JlMarginOptions {
        /// The JL constant `C_JL`.
        pub jl_constant: f64 = JL_CONSTANT,
    }
}
