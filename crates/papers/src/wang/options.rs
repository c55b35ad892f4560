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
    BudgetConversion, IterationMode, MStarOptions, Projection, SelectionCriterion,
};

use contract::{choice, num, ParamDef, Values};

/// `mode`: NGD iteration count (digest §7).
pub const MODE: ParamDef = ParamDef::choice(
    "mode",
    &["paper", "fast"],
    "NGD iterations: paper T = round(n^2 mu_p^2), or fast T = ceil(n^2 mu_p^2/k) (digest P5, same expectation bound)",
)
.default("\"paper\"")
.option();
/// `iterate`: averaged (Thm 6.5(1)) or last (Thm 6.5(2), 6.7).
pub const ITERATE: ParamDef = ParamDef::choice(
    "iterate",
    &["averaged", "last"],
    "released iterate: the average (Lemma C.1, eta) or the last (Lemma C.2, eta_hp with beta/|Gamma|, P12)",
)
.default("\"averaged\"")
.option();
/// `conversion`: GDP to `(eps, delta)`.
pub const CONVERSION: ParamDef = ParamDef::choice(
    "conversion",
    &["paper", "tight"],
    "total GDP budget: the paper's mu = eps/(2 sqrt(2 ln(1/delta))) (Cor. E.2) or the exact Dong–Roth–Su mu",
)
.default("\"paper\"")
.option();
/// `criterion`: the selection score of `M*`.
pub const CRITERION: ParamDef = ParamDef::choice(
    "criterion",
    &["empirical", "penalised"],
    "selection score: the 0-1 error R~_S (Thm 6.5) or R~_S + (5/(2n))(k ln(2n) + ln(4|Gamma|/beta)) (Thm 6.7)",
)
.default("\"empirical\"")
.option();
/// `drop_vacuous`: drop candidates with `1/(n gamma^2 eps) >= 1` (P6).
pub const DROP_VACUOUS: ParamDef = ParamDef::choice(
    "drop_vacuous",
    &["no", "yes"],
    "drop the candidates with 1/(n gamma^2 eps) >= 1 (public information only, shrinks |Gamma|; digest P6)",
)
.default("\"no\"")
.option();
/// `jl_constant`: the hidden JL constant `C_JL` (digest §2.6).
pub const JL_CONSTANT: ParamDef = ParamDef::positive(
    "jl_constant",
    "C_JL in k_gamma = min(d, ceil(C_JL ln(|Gamma|(n+1)(n+2)/beta)/gamma^2)); provable: 324/7 (digest §2.6)",
)
.default("1.0")
.option();
/// `budget`: the GDP budget of a known-margin run.
pub const BUDGET: ParamDef = ParamDef::choice(
    "budget",
    &["total", "per_call"],
    "GDP budget of the known-margin run: the whole mu, or M*'s per-call mu/sqrt(2|Gamma|) (E6)",
)
.default("\"total\"")
.option();
/// `radius_factor`: the clip radius of full-dimension DP-GD in units of `b`.
pub const RADIUS_FACTOR: ParamDef = ParamDef::float(
    "radius_factor",
    (1.0, 2.0, false),
    "clip radius / b of full-dimension DP-GD: 2 gives JLGD's conservative Delta = 12b/gamma, 1 the exact 6b/gamma",
)
.default("2.0")
.option();
/// `tuning`: how full-dimension DP-GD chooses its margin.
pub const TUNING: ParamDef = ParamDef::choice(
    "tuning",
    &["tuned", "known"],
    "full-dimension DP-GD tuned by A_Iter over M*'s grid (same budget split, fair) or run at the known gamma* with all of mu",
)
.default("\"tuned\"")
.option();

/// The iteration mode of `mode`.
pub fn mode(o: &Values) -> IterationMode {
    match choice(o, "mode") {
        "fast" => IterationMode::Fast,
        _ => IterationMode::Paper,
    }
}

/// Whether `iterate = "last"`.
pub fn last_iterate(o: &Values) -> bool {
    choice(o, "iterate") == "last"
}

/// The `M*` options of an algorithm's values with the given projection
/// (`criterion` and `drop_vacuous` read only when declared).
pub fn m_star_options(o: &Values, projection: Projection) -> MStarOptions {
    let criterion = match o.get("criterion") {
        Some(_) if choice(o, "criterion") == "penalised" => SelectionCriterion::Penalised,
        _ => SelectionCriterion::Empirical,
    };
    MStarOptions {
        mode: mode(o),
        last_iterate: last_iterate(o),
        conversion: match choice(o, "conversion") {
            "tight" => BudgetConversion::Tight,
            _ => BudgetConversion::Paper,
        },
        criterion,
        projection,
        beta: None,
        data_bound: 1.0,
        drop_vacuous: o.get("drop_vacuous").is_some() && choice(o, "drop_vacuous") == "yes",
    }
}

/// The JL projection of `jl_constant`.
pub fn jl_projection(o: &Values) -> Projection {
    Projection::Jl {
        constant: num(o, "jl_constant"),
    }
}

/// The full-dimension projection of `radius_factor`.
pub fn full_projection(o: &Values) -> Projection {
    Projection::FullDimension {
        radius_factor: num(o, "radius_factor"),
    }
}
