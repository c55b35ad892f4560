//! Problem families of Lowy–Razaviyayn digest §8 (E1b–E7), as registry entries.

use datagen::adversarial::{Adversarial, AdversarialParams};
use datagen::coordinate_sco::{CoordinateLoss, CoordinateSco, CoordinateScoParams};
use datagen::geometric_median::{GeometricMedian, GeometricMedianParams};
use datagen::logistic::{FeatureModel, Logistic, LogisticParams};
use datagen::pseudo_huber::{PseudoHuber, PseudoHuberParams};
use datagen::sco_quadratic::{ScoQuadratic, ScoQuadraticParams};
use datagen::sharp::{Sharp, SharpParams};
use datagen::sphere_atoms::SphereLayout;
use datagen::term::{Term, TermLoss, TermParams};
use dpcore::{Objective, RunFailure};
use rand_pcg::Pcg64;

use contract::{num, read, Build, FamilyDef, Metric, ParamDef, Values, POSITIVE};

const N: ParamDef = ParamDef::int("n", 2, "number of records").size();
const D: ParamDef = ParamDef::int("d", 1, "dimension").size();
const D2: ParamDef =
    ParamDef::int("d", 2, "dimension (at least 2: data on the sphere S^(d-1))").size();
const ATOMS: ParamDef = ParamDef::float(
    "p",
    (0.0, 1.0, false),
    "fraction of records at 0 (the rest antipodal pairs on the unit sphere)",
)
.default("0.75");
const LABEL_NOISE: ParamDef = ParamDef::float(
    "label_noise",
    (0.0, 0.5, false),
    "fraction of labels flipped",
)
.default("0.1");
const SIGNAL: ParamDef =
    ParamDef::float("signal", POSITIVE, "norm of w_true = signal e_1").default("2.0");

fn fail(e: String) -> RunFailure {
    RunFailure::InvalidParameters(e)
}

fn n_d(v: &Values) -> (usize, usize) {
    (num(v, "n") as usize, num(v, "d") as usize)
}

fn build_logistic(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = LogisticParams {
        label_noise: num(v, "label_noise"),
        signal: num(v, "signal"),
        features: FeatureModel::UniformBall,
        ..LogisticParams::new(n, d, num(v, "mu"))
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(Logistic::generate(params, rng).map_err(fail)?))
}

fn build_logistic_scaled_signal(
    v: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = LogisticParams {
        label_noise: num(v, "label_noise"),
        signal: num(v, "signal"),
        features: FeatureModel::ScaledSignal {
            sigma: num(v, "sigma"),
        },
        ..LogisticParams::new(n, d, num(v, "mu"))
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(Logistic::generate(params, rng).map_err(fail)?))
}

fn build_sco_quadratic(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = ScoQuadraticParams {
        center: num(v, "center"),
        r0: num(v, "r0"),
        ..ScoQuadraticParams::new(n, d, num(v, "beta"), num(v, "kappa"))
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(ScoQuadratic::generate(params, rng).map_err(fail)?))
}

fn build_sharp(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = SharpParams {
        mu: num(v, "mu"),
        p: num(v, "p"),
        layout: SphereLayout::Antipodal,
        ..SharpParams::new(n, d)
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(Sharp::generate(params, rng)))
}

fn build_geometric_median(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = GeometricMedianParams {
        n,
        d,
        p: num(v, "p"),
        layout: SphereLayout::Antipodal,
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(GeometricMedian::generate(params, rng)))
}

fn build_pseudo_huber(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = PseudoHuberParams {
        n,
        d,
        s: num(v, "s"),
        p: num(v, "p"),
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(PseudoHuber::generate(params, rng)))
}

contract::choices! {
    /// The per-coordinate `loss` of the coordinate-separable SCO family.
    enum CoordinateLossName {
        /// `|t|`: non-smooth (E2 with `mu > 0`, E4).
        Abs = "abs",
        /// `s (sqrt(1 + t²/s²) - 1)`: smooth (E5).
        PseudoHuber = "pseudo_huber",
    }
}

fn build_coordinate_sco(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    build_coordinate(v, 0.0, rng)
}

fn build_coordinate_sco_strong(
    v: &Values,
    rng: &mut Pcg64,
) -> Result<Box<dyn Objective>, RunFailure> {
    build_coordinate(v, num(v, "mu"), rng)
}

fn build_coordinate(
    v: &Values,
    mu: f64,
    rng: &mut Pcg64,
) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let loss = match read::<CoordinateLossName>(v, "loss")? {
        CoordinateLossName::Abs => CoordinateLoss::Abs,
        CoordinateLossName::PseudoHuber => CoordinateLoss::PseudoHuber { s: num(v, "s") },
    };
    let params = CoordinateScoParams { n, d, loss, mu };
    Ok(Box::new(
        CoordinateSco::generate(params, rng).map_err(fail)?,
    ))
}

/// `loss` of the coordinate-separable SCO families.
const COORDINATE_LOSS: ParamDef =
    ParamDef::choice("loss", CoordinateLossName::NAMES, "per-coordinate loss psi")
        .default("\"abs\"");
/// `s` of the coordinate-separable SCO families.
const COORDINATE_S: ParamDef =
    ParamDef::float("s", POSITIVE, "pseudo-Huber scale (ignored for abs)").default("1.0");

contract::choices! {
    /// The `loss` of the tilted-ERM family.
    enum Loss {
        /// The smooth quadratic loss.
        Quadratic = "quadratic",
        /// The non-smooth loss (digest §8 E6).
        NonSmooth = "nonsmooth",
    }
}

/// `mu` of the TERM families (`term`, `term_sharp`).
const TERM_MU: ParamDef = ParamDef::float("mu", POSITIVE, "strong convexity").default("1.0");
/// `tau` of the TERM families.
const TERM_TAU: ParamDef = ParamDef::float("tau", POSITIVE, "tilt");

fn build_term(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let loss = match read::<Loss>(v, "loss")? {
        Loss::NonSmooth => TermLoss::NonSmooth,
        Loss::Quadratic => TermLoss::Quadratic,
    };
    let params = TermParams {
        mu: num(v, "mu"),
        ..TermParams::new(n, d, num(v, "tau"), loss)
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(Term::generate(params, rng).map_err(fail)?))
}

fn build_term_sharp(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = TermParams {
        mu: num(v, "mu"),
        atom_fraction: num(v, "atom_fraction"),
        ..TermParams::new(n, d, num(v, "tau"), TermLoss::NonSmooth)
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(Term::generate(params, rng).map_err(fail)?))
}

fn build_adversarial(v: &Values, rng: &mut Pcg64) -> Result<Box<dyn Objective>, RunFailure> {
    let (n, d) = n_d(v);
    let params = AdversarialParams {
        label_noise: num(v, "label_noise"),
        signal: num(v, "signal"),
        ..AdversarialParams::new(n, d, num(v, "mu"), num(v, "r"))
    };
    params.validate().map_err(fail)?;
    Ok(Box::new(Adversarial::generate(params, rng).map_err(fail)?))
}

const EMPIRICAL: &[Metric] = &[Metric::ExcessEmpiricalRisk];
const BOTH: &[Metric] = &[Metric::ExcessEmpiricalRisk, Metric::ExcessPopulationRisk];

/// Families of Lowy–Razaviyayn digest §8 beyond E1.
pub(crate) const FAMILIES: &[FamilyDef] = &[
    FamilyDef::new(
        "logistic",
        "Lowy–Razaviyayn §8 E1b: L2-regularized logistic regression, x uniform in the unit ball, \
              labels from a logistic model with w_true = signal e_1 and label flips; w* certified by its \
              gradient norm (<= 1e-13), by L-BFGS or by Newton where d is small enough that it is \
              cheaper; beta = 1/4 + mu, R = min(1/mu, sqrt(2 ln2/mu)), L = 1 + mu R",
        &[
            N,
            D,
            ParamDef::float(
                "mu",
                POSITIVE,
                "regularization (strong convexity)",
            )
            .default("0.1"),
            LABEL_NOISE,
            SIGNAL,
        ],
        EMPIRICAL,
        Build::Objective(build_logistic),
    )
    .ground_truth_revision(1),
    // A family of its own rather than a `logistic` parameter: a new parameter
    // with a default would re-seed every committed logistic study.
    FamilyDef::new(
        "logistic_scaled_signal",
        "Lowy–Razaviyayn E1b logistic with the signal coordinate shrunk to sigma x_1 after the \
              label is drawn (issue 39 item 5): the empirical Hessian's curvature along e_1 shrinks by \
              sigma² while w*_1 grows to about signal/sigma, a low-curvature direction a first-order \
              method must travel; constants as logistic (beta = 1/4 + mu, R = min(1/mu, \
              sqrt(2 ln2/mu)), L = 1 + mu R)",
        &[
            N,
            D,
            ParamDef::float("mu", POSITIVE, "regularization (strong convexity)"),
            ParamDef::float("sigma", (0.0, 1.0, true), "scale of the signal coordinate"),
            LABEL_NOISE,
            SIGNAL,
        ],
        EMPIRICAL,
        Build::Objective(build_logistic_scaled_signal),
    ),
    FamilyDef::new(
        "sco_quadratic",
        "Lowy–Razaviyayn §8 E3: the E1 quadratic with x uniform in B(center e_1, r0); population \
              excess 1/2 (w-m)ᵀH(w-m) in closed form, fresh data every repetition",
        &[
            N,
            D,
            ParamDef::float(
                "beta",
                POSITIVE,
                "largest Hessian eigenvalue",
            )
            .default("1.0"),
            ParamDef::float(
                "kappa",
                (1.0, f64::INFINITY, false),
                "condition number",
            )
            .default("1.0"),
            ParamDef::float(
                "center",
                (0.0, 1.0, false),
                "first coordinate of the data mean m",
            )
            .default("0.3"),
            ParamDef::float(
                "r0",
                (0.0, 1.0, true),
                "radius of the data ball (center + r0 <= 1)",
            )
            .default("0.5"),
        ],
        BOTH,
        Build::Objective(build_sco_quadratic),
    ),
    FamilyDef::new(
        "sharp",
        "Lowy–Razaviyayn §8 E2: f = mu/2 ||w||² + ||w - x||, a fraction p of records at 0 and \
              antipodal pairs on the sphere: w* = 0 exactly and a linear kink (sharp); p = 0 is the \
              benign, locally quadratic control (P17). L = 1 + mu, R = 1",
        &[
            N,
            D2,
            ParamDef::float(
                "mu",
                POSITIVE,
                "strong convexity",
            )
            .default("0.1"),
            ATOMS,
        ],
        BOTH,
        Build::Objective(build_sharp),
    ),
    FamilyDef::new(
        "geometric_median",
        "Lowy–Razaviyayn §8 E4: f = ||w - x|| (convex, L = 1, R = 1) on the E2 data: \
              w* = w*_lambda = 0 exactly",
        &[N, D2, ATOMS],
        BOTH,
        Build::Objective(build_geometric_median),
    ),
    FamilyDef::new(
        "pseudo_huber",
        "Lowy–Razaviyayn §8 E5: f = s(sqrt(1 + ||w-x||²/s²) - 1) (convex, beta = 1/s, L = 1, \
              R = 1) on antipodal data with atoms at 0: w* = w*_lambda = 0",
        &[
            N,
            D2,
            ParamDef::float(
                "s",
                POSITIVE,
                "pseudo-Huber scale (beta = 1/s)",
            )
            .default("1.0"),
            ATOMS,
        ],
        BOTH,
        Build::Objective(build_pseudo_huber),
    ),
    // A family of its own (issue 39 item 5): on the sphere-with-atom data of
    // E2/E4/E5 every sample's minimizer is the population's, so their SCO
    // rows see no statistical term; here it is about 1/(2n) and exact.
    FamilyDef::new(
        "coordinate_sco",
        "Lowy–Razaviyayn SCO rows E4/E5 with a statistical term: f = (1/sqrt d) sum_j \
              psi(w_j - x_j), psi = |t| or pseudo-Huber, x_j iid uniform on [-1/sqrt d, 1/sqrt d]; \
              exact empirical and regularized minimizers (shrunk median, bracketed Newton), \
              population minimizer 0 with the excess in closed form or by quadrature; ERM's \
              population excess is 1/(2(n+2)) for |t|. L = 1, R = 1, beta = 1/(s sqrt d)",
        &[N, D, COORDINATE_LOSS, COORDINATE_S],
        BOTH,
        Build::Objective(build_coordinate_sco),
    ),
    FamilyDef::new(
        "coordinate_sco_strong",
        "Lowy–Razaviyayn SCO row E2 with a statistical term: coordinate_sco plus mu/2 ||w||² \
              (strongly convex, non-smooth for |t|); tight minimizer sensitivity 2/(mu n). \
              L = 1 + mu, R = 1",
        &[
            N,
            D,
            COORDINATE_LOSS,
            COORDINATE_S,
            ParamDef::float("mu", POSITIVE, "strong convexity").default("0.1"),
        ],
        BOTH,
        Build::Objective(build_coordinate_sco_strong),
    ),
    FamilyDef::new(
        "term",
        "Lowy–Razaviyayn §8 E6: tilted ERM F_tau = (1/tau) log mean exp(tau f) of \
              f = mu/2 ||w-x||² (x in the unit ball) or f = mu/2||w||² + ||w-x|| (x on the sphere); \
              w*_tau certified by L-BFGS or Newton (log-sum-exp weights); sensitivity (2L/mu) min(1, C_tau/n)",
        &[
            N,
            D,
            TERM_MU,
            TERM_TAU,
            ParamDef::choice(
                "loss",
                Loss::NAMES,
                "loss f",
            )
            .default("\"quadratic\""),
        ],
        EMPIRICAL,
        Build::Objective(build_term),
    )
    .ground_truth_revision(1),
    // A family of its own rather than a parameter of `term`: a new parameter
    // with a default enters every term study's cell seeds and would re-seed
    // the committed ones.
    FamilyDef::new(
        "term_sharp",
        "Lowy–Razaviyayn §8 E6, sharp: the non-smooth TERM loss f = mu/2||w||² + ||w-x|| with a fraction \
              of the records at the origin and the rest in antipodal sphere pairs, so w*_tau = 0 exactly and \
              F_tau - F* >= c ||w|| (c the atoms' tilted weight): output perturbation's excess is linear in \
              its noise (the instance on which Thm 5.1's d/(eps n) is attained)",
        &[
            N,
            D,
            TERM_MU,
            TERM_TAU,
            ParamDef::float(
                "atom_fraction",
                (0.0, 0.999, true),
                "fraction of the records at the origin (rounded up, one more for an even remainder)",
            ),
        ],
        EMPIRICAL,
        Build::Objective(build_term_sharp),
    ),
    FamilyDef::new(
        "adversarial_logistic",
        "Lowy–Razaviyayn §8 E7: adversarial logistic regression against the L2 ball of radius r \
              with the closed-form inner maximum; G_D is mu-strongly convex, L = 1 + r + mu R, \
              R = sqrt(2 ln2/mu), smooth away from 0",
        &[
            N,
            D,
            ParamDef::float(
                "mu",
                POSITIVE,
                "regularization (strong convexity)",
            )
            .default("0.1"),
            ParamDef::float(
                "r",
                (0.0, 1.0, false),
                "adversary radius",
            )
            .default("0.1"),
            LABEL_NOISE,
            SIGNAL,
        ],
        EMPIRICAL,
        Build::Objective(build_adversarial),
    )
    .ground_truth_revision(1),
];
