//! Problem families of González, Guzmán & Paquette (digest §6.3), as
//! registry entries: the stochastic games G1/G2 (`saddle` kind), the DP-SCO
//! instances G4 (`simplex_sco` kind) and the marginal queries G5
//! (`query_release` kind). Every metric is exact: the population duality
//! gap by a max over vertices or water-filling, the excess risk in closed
//! form, the query error from closed-form population answers.
//!
//! The games are square, `d_x = d_y = 2^log2_d`, so that
//! `l = ln d_x + ln d_y = 2 ln(2) log2_d` and a log-log slope along `log2_d`
//! is the slope along `l` of digest §7.3.

use datagen::gonzalez::game::{GameNoise, SimplexGame};
use datagen::gonzalez::matrix::{MeanMatrix, MAX_RANK};
use datagen::gonzalez::queries::{MarginalQueries, ProductComponent};
use datagen::gonzalez::sco::{LeastSquaresSimplex, SeparableSco, VertexLinearSco};
use datagen::gonzalez::separable::{Potential, SeparablePenalty};
use dpcore::saddle::{QueryRelease, SaddleProblem, SimplexSco};
use dpcore::RunFailure;
use rand::RngExt;
use rand_pcg::Pcg64;

use contract::{num, read, Build, FamilyDef, Metric, ParamDef, Value, Values};

contract::choices! {
    /// `matrix`'s values: the mean payoff matrix `A_bar` of a game.
    enum Matrix {
        /// G1-ii planted pure saddle (dense, lazy).
        Planted = "planted",
        /// G1-i dense i.i.d. (lazy).
        Dense = "dense",
        /// G1-iii low rank plus a planted cross.
        LowRank = "low_rank",
        /// G1-iv separable.
        Separable = "separable",
    }
}

contract::choices! {
    /// `noise`'s values: the record noise `A(z) - A_bar` of a game.
    enum Noise {
        /// Rank one `sigma xi zeta^T`.
        RankOne = "rank_one",
        /// Sign-Bernoulli (maximal variance).
        SignBernoulli = "sign_bernoulli",
        /// No noise.
        Noiseless = "none",
    }
}

contract::choices! {
    /// `penalty`'s values: the separable term `phi` of a game.
    enum Penalty {
        /// None (bilinear).
        Unpenalised = "none",
        /// `u^2/2`.
        Quadratic = "quadratic",
        /// `log cosh(kappa u)/kappa`.
        LogCosh = "log_cosh",
        /// Huber with kink `kappa`.
        Huber = "huber",
    }
}

contract::choices! {
    /// `potential`'s values of the separable SCO family.
    enum PotentialName {
        /// Huber with kink `kappa`.
        Huber = "huber",
        /// `log cosh(kappa u)/kappa`.
        LogCosh = "log_cosh",
    }
}

/// Largest `log2_d` of a game (digest §7.2: `d` up to `2^20`).
pub const MAX_LOG2_D: i64 = 20;

/// Largest `log2_d` of a dense game (`matrix = "planted"` or `"dense"`):
/// the entries are generated lazily (no `d^2` storage), but every gap
/// evaluation streams `d^2` of them (`2^32` hash evaluations at `2^16`).
pub const MAX_DENSE_LOG2_D: i64 = 16;

/// Up to this `log2_d` a dense game also stores its entries (8 MiB at
/// `2^10`), which makes the mat-vecs at dense points 2-3x faster (measured:
/// about 0.5 against 1.2 ns per entry; non-private SMD multiplies at dense
/// iterates every step) and changes no result (the same entries summed in
/// the same order). Above it the cache stops paying for its construction.
pub const CACHED_DENSE_LOG2_D: i64 = 10;

const N: ParamDef = ParamDef::int("n", 2, "number of records").size();
const LOG2_D: ParamDef = ParamDef::int(
    "log2_d",
    1,
    "d_x = d_y = 2^log2_d (<= 20), so l = 2 ln(2) log2_d; dense and planted matrices are generated lazily from (seed, i, j), <= 2^16 (O(d^2) hashes per gap)",
).log2_size();
const D: ParamDef = ParamDef::int("d", 2, "dimension of the simplex").size();
/// `ggp_least_squares`'s label noise.
const LS_NOISE: ParamDef = ParamDef::unit("noise", "label-noise half-width s").default("0.5");
/// `ggp_separable_sco`'s potential, its coefficient and sharpness, and the
/// noise of its linear term.
const SEP_POTENTIAL: ParamDef =
    ParamDef::choice("potential", PotentialName::NAMES, "separable potential phi")
        .default("\"huber\"");
const SEP_PENALTY_COEF: ParamDef =
    ParamDef::positive("penalty_coef", "coefficient c of phi").default("1.0");
const SEP_KAPPA: ParamDef =
    ParamDef::positive("kappa", "Huber kink in (0, 1] or log-cosh sharpness").default("0.2");
const SEP_SIGMA: ParamDef =
    ParamDef::unit("sigma", "Rademacher noise scale of the linear term").default("0.3");
/// `ggp_vertex_linear`'s gap and noise.
const VL_GAP: ParamDef = ParamDef::positive(
    "gap",
    "mean gradient on every coordinate but the optimal vertex's",
)
.default("1.0");
const VL_SIGMA: ParamDef =
    ParamDef::unit("sigma", "Rademacher noise scale of the linear term").default("0.0");
/// The simplex SCO families' dimension on a log scale, for a sweep whose fit
/// reads the exponent of `l_x = ln d` (Thm 5.1's `l_x` and `l_x^(7/10)`): a
/// log-log slope along `log2_d` is the exponent of `l_x`, where one along `d`
/// would read `(exponent)/ln d`.
const SCO_LOG2_D: ParamDef =
    ParamDef::int("log2_d", 1, "d = 2^log2_d (<= 20), so l_x = ln(2) log2_d").log2_size();

/// Largest `log2_d` of the simplex SCO families (`2^20` coordinates, 8 MiB per
/// iterate).
const MAX_SCO_LOG2_D: i64 = 20;

/// The `log2_d` families' parameters with `d = 2^log2_d` put in, so that the
/// `d` families' builders serve both.
fn with_d_from_log2(v: &Values) -> Result<Values, RunFailure> {
    let log2_d = num(v, "log2_d") as i64;
    if log2_d > MAX_SCO_LOG2_D {
        return Err(invalid(format!(
            "log2_d = {log2_d} exceeds {MAX_SCO_LOG2_D}"
        )));
    }
    let mut out = v.clone();
    out.insert("d".to_string(), Value::Num((1u64 << log2_d) as f64));
    Ok(out)
}

fn invalid(message: impl Into<String>) -> RunFailure {
    RunFailure::InvalidParameters(message.into())
}

/// Huber's potential, refused above the kink `kappa = 1`.
fn huber(kappa: f64) -> Result<Potential, RunFailure> {
    if kappa <= 1.0 {
        Ok(Potential::Huber { kappa })
    } else {
        Err(invalid("the Huber kink kappa must lie in (0, 1]"))
    }
}

fn build_game(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn SaddleProblem>, RunFailure> {
    let log2_d = num(v, "log2_d") as i64;
    if log2_d > MAX_LOG2_D {
        return Err(invalid(format!("log2_d = {log2_d} exceeds {MAX_LOG2_D}")));
    }
    let d = 1usize << log2_d;
    let (rho, margin) = (num(v, "rho"), num(v, "margin"));
    let rank = num(v, "rank") as usize;
    let kind = read::<Matrix>(v, "matrix")?;
    let matrix = match kind {
        Matrix::Planted | Matrix::Dense if log2_d > MAX_DENSE_LOG2_D => {
            return Err(invalid(format!(
                "log2_d = {log2_d}: dense matrices stop at log2_d = {MAX_DENSE_LOG2_D} \
                 (each gap evaluation streams d^2 = 2^{} entries); use matrix = \"low_rank\"",
                2 * log2_d
            )))
        }
        Matrix::Planted | Matrix::Dense => {
            let m = if kind == Matrix::Planted {
                MeanMatrix::lazy_planted(d, d, rho, margin, rng)
            } else {
                MeanMatrix::lazy_uniform(d, d, rho, rng)
            };
            if log2_d <= CACHED_DENSE_LOG2_D {
                m.with_cached_entries()
            } else {
                m
            }
        }
        Matrix::LowRank if rank > MAX_RANK => {
            return Err(invalid(format!("rank = {rank} exceeds {MAX_RANK}")))
        }
        Matrix::LowRank => MeanMatrix::low_rank_planted(d, d, rank, rho, margin, rng),
        Matrix::Separable => {
            let a = (0..d).map(|_| rng.random_range(-1.0..=1.0)).collect();
            let b = (0..d).map(|_| rng.random_range(-1.0..=1.0)).collect();
            MeanMatrix::separable(a, b)
        }
    };
    let noise = match read::<Noise>(v, "noise")? {
        Noise::RankOne => GameNoise::RankOne {
            sigma: num(v, "sigma"),
        },
        Noise::SignBernoulli => GameNoise::SignBernoulli,
        Noise::Noiseless => GameNoise::None,
    };
    let bound = matrix.max_abs_bound();
    let entry = match noise {
        GameNoise::RankOne { sigma } => bound + sigma,
        _ => bound,
    };
    if entry > 1.0 + 1e-12 {
        return Err(invalid(format!(
            "max |A(z)_ij| <= {entry} exceeds 1: lower rho, margin or sigma"
        )));
    }
    let penalty = match read::<Penalty>(v, "penalty")? {
        Penalty::Unpenalised => None,
        Penalty::Quadratic => Some(Potential::Quadratic),
        Penalty::LogCosh => Some(Potential::LogCosh {
            kappa: num(v, "kappa"),
        }),
        Penalty::Huber => Some(huber(num(v, "kappa"))?),
    };
    let coef = num(v, "penalty_coef");
    let pen = |p: Potential| SeparablePenalty::uniform(p, coef, d);
    let game = SimplexGame::sample(
        matrix,
        noise,
        penalty.map(pen),
        penalty.map(pen),
        num(v, "n") as usize,
        rng,
    );
    Ok(Box::new(game))
}

fn build_least_squares(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn SimplexSco>, RunFailure> {
    let d = num(v, "d") as usize;
    let n = num(v, "n") as usize;
    Ok(Box::new(LeastSquaresSimplex::sample(
        d,
        0,
        num(v, "noise"),
        n,
        rng,
    )))
}

fn build_vertex_linear(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn SimplexSco>, RunFailure> {
    let gap = num(v, "gap");
    if !gap.is_finite() {
        return Err(RunFailure::InvalidParameters(format!(
            "ggp_vertex_linear: gap must be finite (the excess is gap (1 - x_1)), got {gap}"
        )));
    }
    Ok(Box::new(VertexLinearSco::sample(
        num(v, "d") as usize,
        0,
        gap,
        num(v, "sigma"),
        num(v, "n") as usize,
        rng,
    )))
}

fn build_least_squares_log2d(
    v: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn SimplexSco>, RunFailure> {
    build_least_squares(&with_d_from_log2(v)?, rng)
}

fn build_separable_sco_log2d(
    v: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn SimplexSco>, RunFailure> {
    build_separable_sco(&with_d_from_log2(v)?, rng)
}

fn build_separable_sco(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn SimplexSco>, RunFailure> {
    let d = num(v, "d") as usize;
    let kappa = num(v, "kappa");
    let p = match read::<PotentialName>(v, "potential")? {
        PotentialName::Huber => huber(kappa)?,
        PotentialName::LogCosh => Potential::LogCosh { kappa },
    };
    // Linear mean ramping from -0.3 to 0.3 (the library tests' instance):
    // the penalty spreads the minimiser over the low-cost coordinates.
    let lin = (0..d)
        .map(|j| 0.6 * j as f64 / (d - 1) as f64 - 0.3)
        .collect();
    let pen = SeparablePenalty::uniform(p, num(v, "penalty_coef"), d);
    let n = num(v, "n") as usize;
    Ok(Box::new(SeparableSco::sample(
        lin,
        num(v, "sigma"),
        pen,
        n,
        rng,
    )))
}

/// The two-component product mixture of the G5 instance (the library tests'
/// mixture): alternating and decreasing bit means.
pub fn marginal_mixture(bits: usize) -> Vec<ProductComponent> {
    vec![
        ProductComponent {
            weight: 0.6,
            means: (0..bits).map(|i| 0.2 + 0.6 * (i % 2) as f64).collect(),
        },
        ProductComponent {
            weight: 0.4,
            means: (0..bits)
                .map(|i| (0.9 - 0.8 * i as f64 / bits as f64).max(0.05))
                .collect(),
        },
    ]
}

fn build_marginals(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn QueryRelease>, RunFailure> {
    let bits = num(v, "bits") as usize;
    if bits > 16 {
        return Err(invalid("bits <= 16 (|Z| = 2^bits, digest G5)"));
    }
    let n = num(v, "n") as usize;
    Ok(Box::new(MarginalQueries::sample(
        bits,
        &marginal_mixture(bits),
        n,
        rng,
    )))
}

pub(crate) const FAMILIES: &[FamilyDef] = &[
    FamilyDef::new(
        "ggp_game",
        "González et al. digest §6.3 G1/G2: f(x, y; z) = x^T A(z) y + c phi(x_k) - c phi(y_k') on Delta_d x Delta_d, \
              E A(z) = A_bar (planted pure saddle or dense i.i.d., generated lazily from (seed, i, j) to d = 2^16; \
              low rank + planted cross to d = 2^20; separable sanity game), rank-one or sign-Bernoulli payoff noise, optional separable quadratic / log-cosh / \
              Huber terms; exact population gap (max over vertices or water-filling)",
        &[
            N,
            LOG2_D,
            ParamDef::choice(
                "matrix",
                Matrix::NAMES,
                "A_bar: G1-ii planted pure saddle (dense), G1-i dense i.i.d., G1-iii low rank + planted cross, G1-iv separable",
            )
            .default("\"planted\""),
            ParamDef::unit(
                "rho",
                "off-cross entries of A_bar in [-rho, rho]",
            )
            .default("0.5"),
            ParamDef::unit(
                "margin",
                "planted-saddle margin Delta_m",
            )
            .default("0.5"),
            ParamDef::int(
                "rank",
                1,
                "rank of the low-rank part (<= 16)",
            )
            .default("4"),
            ParamDef::choice(
                "noise",
                Noise::NAMES,
                "A(z) - A_bar: rank one sigma xi zeta^T (O(d) per record), sign-Bernoulli (maximal variance), none",
            )
            .default("\"rank_one\""),
            ParamDef::unit(
                "sigma",
                "rank-one noise scale (max |A_bar| + sigma <= 1)",
            )
            .default("0.5"),
            ParamDef::choice(
                "penalty",
                Penalty::NAMES,
                "G2 separable term phi on both players: none (bilinear, L2 = 0), u^2/2 (L2 = 0), log cosh(kappa u)/kappa (L2 ~ kappa^2), Huber with kink kappa (first-order only)",
            )
            .default("\"none\""),
            ParamDef::positive(
                "penalty_coef",
                "coefficient c of the separable terms",
            )
            .default("0.5"),
            ParamDef::positive(
                "kappa",
                "log-cosh sharpness, or Huber kink in (0, 1]",
            )
            .default("1.0"),
        ],
        &[Metric::DualityGap],
        Build::Saddle(build_game),
    )
.with_work(super::cost::game),
    FamilyDef::new(
        "ggp_least_squares",
        "González et al. digest §6.3 G4(a): f(x; z) = (a^T x - b)^2/2 on Delta_d, a Rademacher, b = a_1 + U[-s, s]; \
              excess risk ||x - e_1||^2/2 exactly; L0 = 2 + s, L1 = 1, L2 = 0",
        &[N, D, LS_NOISE],
        &[Metric::ExcessPopulationRisk],
        Build::SimplexSco(build_least_squares),
    )
.with_work(super::cost::counter_based),
    FamilyDef::new(
        "ggp_vertex_linear",
        "González et al. SCO instance where Alg 4's private term shows at its rate: f(x; z) = <g_bar + sigma xi, x>, \
              g_bar = gap on every coordinate but e_1 (0 there), xi Rademacher; excess gap (1 - x_1) exactly; \
              L0 = gap + sigma, L1 = L2 = 0. Mirror descent from the uniform point pays its whole regret ln d/(tau T) \
              here, which Alg 4's privacy-capped step makes l_x Lambda^(1/4)/sqrt(n eps)",
        &[N, D, VL_GAP, VL_SIGMA],
        &[Metric::ExcessPopulationRisk],
        Build::SimplexSco(build_vertex_linear),
    )
.with_work(super::cost::vertex_linear),
    FamilyDef::new(
        "ggp_separable_sco",
        "González et al. SCO instance (library substitute for G4(b)/(c)): f(x; z) = <g_bar + sigma xi, x> + c phi(x_k), \
              g_bar ramping from -0.3 to 0.3, Huber (first-order smooth only) or log-cosh (second-order smooth) phi; \
              exact minimum by water-filling",
        &[
            N,
            D,
            SEP_POTENTIAL,
            SEP_PENALTY_COEF,
            SEP_KAPPA,
            SEP_SIGMA,
        ],
        &[Metric::ExcessPopulationRisk],
        Build::SimplexSco(build_separable_sco),
    )
.with_work(super::cost::separable),
    FamilyDef::new(
        "ggp_least_squares_log2d",
        "ggp_least_squares with d = 2^log2_d, for sweeps whose fit reads the exponent of l_x = ln d \
              (Thm 5.1's l_x terms); otherwise identical, draw for draw",
        &[N, SCO_LOG2_D, LS_NOISE],
        &[Metric::ExcessPopulationRisk],
        Build::SimplexSco(build_least_squares_log2d),
    )
.with_work(super::cost::counter_based_log2d),
    FamilyDef::new(
        "ggp_separable_sco_log2d",
        "ggp_separable_sco with d = 2^log2_d, for sweeps whose fit reads the exponent of l_x = ln d \
              (Thm 5.1's l_x^(7/10)); otherwise identical, draw for draw",
        &[
            N,
            SCO_LOG2_D,
            SEP_POTENTIAL,
            SEP_PENALTY_COEF,
            SEP_KAPPA,
            SEP_SIGMA,
        ],
        &[Metric::ExcessPopulationRisk],
        Build::SimplexSco(build_separable_sco_log2d),
    )
.with_work(super::cost::separable_log2d),
    FamilyDef::new(
        "ggp_marginals",
        "González et al. digest §6.3 G5: Z = {0,1}^bits, all 2-way marginal conjunctions and their negations \
              (|Q| = 8 C(bits, 2)), D a two-component product mixture; exact population answers",
        &[N, ParamDef::int(
            "bits",
            2,
            "bits k of the domain (|Z| = 2^k, k <= 16)",
        ).log2_size()
        .default("10")],
        &[Metric::MaxQueryError],
        Build::QueryRelease(build_marginals),
    )
.with_work(super::cost::marginals),
];

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn values(pairs: &[(&str, Value)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    /// The `log2_d` families are the `d` families at `d = 2^log2_d`, draw
    /// for draw: same dimension, same records, same excess at a fixed point.
    /// Fails if the conversion or the parameter order of either builder
    /// changes.
    #[test]
    fn log2d_families_match_the_d_families_draw_for_draw() {
        let n = Value::Num(50.0);
        let ls = values(&[
            ("n", n.clone()),
            ("d", Value::Num(64.0)),
            ("noise", Value::Num(0.5)),
        ]);
        let ls2 = values(&[
            ("n", n.clone()),
            ("log2_d", Value::Num(6.0)),
            ("noise", Value::Num(0.5)),
        ]);
        let sep = |dim: (&str, f64)| {
            values(&[
                ("n", n.clone()),
                (dim.0, Value::Num(dim.1)),
                ("potential", Value::Str("huber".into())),
                ("penalty_coef", Value::Num(1.0)),
                ("kappa", Value::Num(0.2)),
                ("sigma", Value::Num(0.3)),
            ])
        };
        let point: Vec<f64> = (0..64).map(|j| (j + 1) as f64).collect();
        let total: f64 = point.iter().sum();
        let point: Vec<f64> = point.iter().map(|x| x / total).collect();
        let pairs = [
            (
                build_least_squares(&ls, &mut Pcg64::seed_from_u64(7)).unwrap(),
                build_least_squares_log2d(&ls2, &mut Pcg64::seed_from_u64(7)).unwrap(),
            ),
            (
                build_separable_sco(&sep(("d", 64.0)), &mut Pcg64::seed_from_u64(7)).unwrap(),
                build_separable_sco_log2d(&sep(("log2_d", 6.0)), &mut Pcg64::seed_from_u64(7))
                    .unwrap(),
            ),
        ];
        for (a, b) in &pairs {
            assert_eq!(a.dim(), 64);
            assert_eq!(b.dim(), 64);
            assert_eq!(a.num_records(), b.num_records());
            assert_eq!(
                a.excess_risk(&point).to_bits(),
                b.excess_risk(&point).to_bits()
            );
        }
        let too_big = values(&[
            ("n", n),
            ("log2_d", Value::Num(21.0)),
            ("noise", Value::Num(0.5)),
        ]);
        assert!(build_least_squares_log2d(&too_big, &mut Pcg64::seed_from_u64(7)).is_err());
    }

    /// `ggp_vertex_linear` builds at finite gaps and refuses an infinite one
    /// with a message, not the instance's assertion.
    #[test]
    fn vertex_linear_refuses_an_infinite_gap() {
        let at = |gap: f64| {
            values(&[
                ("n", Value::Num(10.0)),
                ("d", Value::Num(8.0)),
                ("gap", Value::Num(gap)),
                ("sigma", Value::Num(0.0)),
            ])
        };
        let sco = build_vertex_linear(&at(0.5), &mut Pcg64::seed_from_u64(7)).unwrap();
        assert_eq!(sco.dim(), 8);
        assert_eq!(
            sco.excess_risk(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            0.0
        );
        let Err(RunFailure::InvalidParameters(message)) =
            build_vertex_linear(&at(f64::INFINITY), &mut Pcg64::seed_from_u64(7))
        else {
            panic!("an infinite gap was accepted");
        };
        assert!(message.contains("gap must be finite"), "{message}");
    }
}
