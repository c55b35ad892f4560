//! Problem families of Wang–Zhu–Wang (digest §6.1): the planted
//! large-margin generators G (isotropic) and G2 (two-cluster) with exactly
//! `m` outliers of a chosen type, as registry entries of the halfspace kind.
//!
//! Both pin the inlier margin at exactly `gamma*` with an anchor pair and
//! estimate the population 0-1 error with the generator's scalar-reduced
//! sampler (`population_samples` draws per stratum, digest: `>= 1e5`). The
//! planted `(gamma*, m)` is what the theory curves use (digest §3.9); no margin
//! solver is needed.

use datagen::wang::{
    DyadicBasisHalfspace, Family, HalfspaceParams, MarginProfile, OutlierType, PlantedHalfspace,
    ScaledHalfspace,
};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::RunFailure;
use rand_pcg::Pcg64;

use contract::{
    num, read, Build, CostPoint, FamilyDef, FamilyWork, Metric, ParamDef, ParamKind, Values,
};

contract::choices! {
    /// `outlier_type`'s values.
    enum Outliers {
        /// Contradictory twins (exact `|S_out| = m`).
        Twins = "twins",
        /// Label flips.
        Flips = "flips",
        /// A margin band.
        Band = "band",
        /// A pull cluster at `pi/4`.
        Adversarial = "adversarial",
    }
}

contract::choices! {
    /// `profile`'s values: the inlier margins.
    enum Profile {
        /// `s = gamma* + (1 - gamma*) rho U`.
        Spread = "spread",
        /// `s = gamma*`.
        Tight = "tight",
    }
}

const N: ParamDef = ParamDef::int(
    "n",
    4,
    "number of records (anchor pair + inliers + outliers)",
)
.size();
const D_G: ParamDef = ParamDef::int("d", 2, "dimension (at least 2)").size();
const D_G2: ParamDef = ParamDef::int(
    "d",
    3,
    "dimension (at least 3: w*, u_2 and their complement)",
)
.size();
const OUTLIERS: ParamDef = ParamDef::int(
    "m",
    0,
    "number m of planted outliers (twins need n >= 2 + 2m)",
)
.default("0");
const POPULATION: ParamDef = ParamDef::int(
    "population_samples",
    1,
    "Monte-Carlo draws per stratum of the population sampler (digest §6.1: >= 1e5)",
)
.default("100000");
const MARGIN_G: ParamDef = ParamDef::float(
    "gamma",
    (0.0, 1.0, true),
    "planted margin gamma* in (0, 1), pinned exactly by the anchor pair",
);
const MARGIN_G2: ParamDef = ParamDef {
    doc:
        "planted margin gamma* with gamma*^2 + 0.36 <= 1 (gamma* <= 0.8), pinned by the anchor pair",
    kind: ParamKind::Float {
        min: 0.0,
        max: 0.8,
        min_open: true,
    },
    ..MARGIN_G
};
const OUTLIER_TYPE: ParamDef = ParamDef::choice(
    "outlier_type",
    Outliers::NAMES,
    "T: contradictory twins (exact |S_out| = m), F: label flips, B: margin band, A: pull cluster at pi/4",
)
.default("\"twins\"");
const PROFILE: ParamDef = ParamDef::choice(
    "profile",
    Profile::NAMES,
    "inlier margins s = gamma* + (1 - gamma*) rho U (spread) or s = gamma* (tight)",
)
.default("\"spread\"");
const RHO: ParamDef =
    ParamDef::float("rho", (0.0, 1.0, true), "spread rho of the spread profile").default("1.0");

const BOUND: ParamDef = ParamDef::positive(
    "b",
    "public bound b on the row norms, ||x|| <= b (Appendix L); the algorithms calibrate to it",
)
.default("1.0");
const MARGIN_ABSOLUTE: ParamDef = ParamDef::positive(
    "gamma",
    "planted margin gamma* in (0, b), absolute (not normalised by b), pinned exactly by the anchor pair",
);

fn outlier_type(v: &Values) -> Result<OutlierType, RunFailure> {
    Ok(match read::<Outliers>(v, "outlier_type")? {
        Outliers::Flips => OutlierType::Flips,
        Outliers::Band => OutlierType::Band,
        Outliers::Adversarial => OutlierType::adversarial_default(),
        Outliers::Twins => OutlierType::Twins,
    })
}

/// Draws the unit-norm instance of `family` at the (normalised) `margin`.
fn planted(
    v: &Values,
    family: Family,
    margin: f64,
    rng: &mut Pcg64,
) -> Result<PlantedHalfspace, RunFailure> {
    let params = HalfspaceParams {
        n: num(v, "n") as usize,
        d: num(v, "d") as usize,
        margin,
        outliers: num(v, "m") as usize,
        outlier_type: outlier_type(v)?,
        family,
        population_samples: num(v, "population_samples") as usize,
    };
    PlantedHalfspace::generate(params, rng).map_err(RunFailure::InvalidParameters)
}

fn generate(
    v: &Values,
    family: Family,
    rng: &mut Pcg64,
) -> Result<Box<dyn HalfspaceProblem>, RunFailure> {
    Ok(Box::new(planted(v, family, num(v, "gamma"), rng)?))
}

fn build_isotropic(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn HalfspaceProblem>, RunFailure> {
    let profile = match read::<Profile>(v, "profile")? {
        Profile::Tight => MarginProfile::Tight,
        Profile::Spread => MarginProfile::Spread { rho: num(v, "rho") },
    };
    generate(v, Family::Isotropic(profile), rng)
}

/// G at the normalised margin `gamma/b`, every row multiplied by `b`
/// (`datagen::wang::ScaledHalfspace`): rows of norm `<= b`, margin `gamma`.
fn build_isotropic_scaled(
    v: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn HalfspaceProblem>, RunFailure> {
    let (b, gamma) = (num(v, "b"), num(v, "gamma"));
    if gamma >= b {
        return Err(RunFailure::InvalidParameters(format!(
            "wang_isotropic_scaled: the margin gamma = {gamma} must be below the row-norm bound b = {b}"
        )));
    }
    let spread = Family::Isotropic(MarginProfile::Spread { rho: num(v, "rho") });
    let unit = planted(v, spread, gamma / b, rng)?;
    let scaled = ScaledHalfspace::new(unit, b).map_err(RunFailure::InvalidParameters)?;
    Ok(Box::new(scaled))
}

fn build_two_cluster(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn HalfspaceProblem>, RunFailure> {
    generate(v, Family::TwoCluster, rng)
}

const DIRECTIONS: ParamDef = ParamDef::int(
    "k",
    2,
    "number k of labelled directions (at most 24): direction i holds 2^(i-1) records, so n = 2^k - 1 and the margin is exactly 1/sqrt(k)",
)
.log2_size();
const D_DYADIC: ParamDef = ParamDef::int(
    "d",
    2,
    "dimension (at least k): the k directions are a uniformly random orthonormal frame of R^d",
)
.size();

fn build_dyadic_basis(
    v: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn HalfspaceProblem>, RunFailure> {
    let problem = DyadicBasisHalfspace::generate(num(v, "k") as usize, num(v, "d") as usize, rng)
        .map_err(RunFailure::InvalidParameters)?;
    Ok(Box::new(problem))
}

/// `n = 2^k - 1` records of dimension `d` (the frame: `k^2 d` to draw).
fn dyadic_basis_work(v: &CostPoint) -> FamilyWork {
    let k = v.num("k", 2.0).clamp(1.0, 60.0);
    let (n, d) = (k.exp2() - 1.0, v.num("d", 2.0).max(1.0));
    FamilyWork {
        n,
        d,
        generate_ops: n * d + k * k * d,
        data_numbers: n * (d + 1.0),
        oracle_ops: n * d,
        exact_minimizer_ops: d,
        kl_constants: None,
    }
}

const METRICS: &[Metric] = &[
    Metric::ZeroOneError,
    Metric::ExcessZeroOneError,
    Metric::PopulationZeroOneError,
];

pub(crate) const FAMILIES: &[FamilyDef] = &[
    FamilyDef::new(
        "wang_isotropic",
        "Wang–Zhu–Wang digest §6.1 generator G: unit-norm x = y s w* + sqrt(1 - s^2) v (v uniform on \
              w*^perp, w* a dense random unit vector), anchor pair pinning gamma(S_in) = gamma* exactly, m \
              outliers (twins by default: the planted-twin data of the removal-margin experiment); \
              population error by the scalar-reduced sampler",
        &[N, D_G, MARGIN_G, OUTLIERS, OUTLIER_TYPE, PROFILE, RHO, POPULATION],
        METRICS,
        Build::Halfspace(build_isotropic),
    ),
    FamilyDef::new(
        "wang_isotropic_scaled",
        "Wang–Zhu–Wang Appendix L: generator G (spread profile) drawn at the normalised margin \
              gamma/b and every row multiplied by the public bound b, so ||x|| <= b and the inlier margin is \
              exactly gamma; the same labels, outliers and population error as the unit instance (signs \
              do not change). A b-sweep at fixed gamma measures Theorems L.1/L.2's b-dependence",
        &[N, D_G, BOUND, MARGIN_ABSOLUTE, OUTLIERS, OUTLIER_TYPE, RHO, POPULATION],
        METRICS,
        Build::Halfspace(build_isotropic_scaled),
    ),
    FamilyDef::new(
        "wang_two_cluster",
        "Wang–Zhu–Wang digest §6.1 item 5, the hard family G2: x = y (gamma* w* + kappa 0.6 u_2 + \
              sqrt(1 - gamma*^2 - 0.36) v), kappa = -1 w.p. 0.1; every inlier at margin exactly gamma*, the \
              mean gradient points along u_2 so full-dimension DP-GD misses the minority cluster as d grows \
              (E4); anchor pair, m outliers",
        &[N, D_G2, MARGIN_G2, OUTLIERS, OUTLIER_TYPE, POPULATION],
        METRICS,
        Build::Halfspace(build_two_cluster),
    ),
    FamilyDef::new(
        "wang_dyadic_basis",
        "The dyadic-basis instance (datagen::wang::dyadic): 2^(i-1) copies of the record (q_i, s_i) \
              for k orthonormal directions q_i (a random frame of R^d) and random signs s_i, n = 2^k - 1, \
              margin exactly 1/sqrt(k), no outliers. Flipping s_i moves c_i = 2^(i-1) records, so by group \
              privacy every (eps, delta)-DP learner errs on the directions with c_i eps <~ 1: 0-1 error of \
              order 1/(n eps), the eps-rate of Theorem 4.1 attained. Empirical and population (the same \
              dyadic law) errors are exact",
        &[DIRECTIONS, D_DYADIC],
        METRICS,
        Build::Halfspace(build_dyadic_basis),
    )
    .with_work(dyadic_basis_work),
];

#[cfg(test)]
mod tests {
    use super::*;
    use contract::Value;
    use rand::SeedableRng;

    fn values(pairs: &[(&str, f64)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Num(*v)))
            .chain([
                ("outlier_type".to_string(), Value::Str("twins".into())),
                ("profile".to_string(), Value::Str("spread".into())),
            ])
            .collect()
    }

    /// `wang_isotropic_scaled` is `wang_isotropic` at `gamma/b` with every
    /// row times `b`, draw for draw: same labels, rows scaled exactly (b a
    /// power of two), margin `gamma`, bound `b`. Fails if the builder draws
    /// in another order, drops a parameter or scales the wrong quantity.
    #[test]
    fn the_scaled_family_is_the_unit_family_at_gamma_over_b() {
        let common = [
            ("n", 60.0),
            ("d", 8.0),
            ("m", 2.0),
            ("rho", 1.0),
            ("population_samples", 1000.0),
        ];
        let with = |extra: &[(&str, f64)]| values(&[&common[..], extra].concat());
        let unit = build_isotropic(&with(&[("gamma", 0.1)]), &mut Pcg64::seed_from_u64(5)).unwrap();
        let scaled = build_isotropic_scaled(
            &with(&[("gamma", 0.4), ("b", 4.0)]),
            &mut Pcg64::seed_from_u64(5),
        )
        .unwrap();
        assert_eq!(scaled.labels(), unit.labels());
        let times_b: Vec<f64> = unit.features().iter().map(|x| 4.0 * x).collect();
        assert_eq!(scaled.features(), &times_b[..]);
        assert_eq!(scaled.true_margin(), Some(0.4));
        assert_eq!(scaled.data_bound(), 4.0);
        assert_eq!(unit.data_bound(), 1.0);
        assert_eq!(scaled.outlier_count(), 2);
        let bad = build_isotropic_scaled(
            &with(&[("gamma", 4.0), ("b", 4.0)]),
            &mut Pcg64::seed_from_u64(5),
        );
        assert!(bad.is_err(), "gamma = b must be refused");
    }

    /// The registry entry builds the dyadic-basis instance from `k` and `d`
    /// (n = 2^k - 1, margin 1/sqrt(k), no outliers), refuses `d < k`, and
    /// the plan's work counts its records.
    #[test]
    fn the_dyadic_basis_entry_builds_the_instance() {
        let v = |k: f64, d: f64| -> Values {
            [("k", k), ("d", d)]
                .iter()
                .map(|(name, x)| (name.to_string(), Value::Num(*x)))
                .collect()
        };
        let p = build_dyadic_basis(&v(5.0, 7.0), &mut Pcg64::seed_from_u64(9)).unwrap();
        assert_eq!((p.num_records(), p.dim(), p.outlier_count()), (31, 7, 0));
        assert_eq!(p.true_margin(), Some(1.0 / 5f64.sqrt()));
        assert!(build_dyadic_basis(&v(8.0, 7.0), &mut Pcg64::seed_from_u64(9)).is_err());
        let problem = v(12.0, 12.0);
        let w = dyadic_basis_work(&CostPoint {
            problem: &problem,
            options: &Values::new(),
            privacy: contract::Privacy::Approx(dpcore::PrivacyParams::approx(1.0, 1e-5)),
        });
        assert_eq!((w.n, w.d), (4095.0, 12.0));
    }
}
