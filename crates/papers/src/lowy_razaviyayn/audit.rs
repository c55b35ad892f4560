//! Empirical privacy audits (issue 25, `runner audit`) of the Lowy–Razaviyayn
//! entries, of their baselines and of the conceptual output perturbation of
//! Eq. (2) (`output_perturbation_conceptual`, registered with the E1 family).
//!
//! Every pair is replace-one (the paper's relation, digest §1.3) and built
//! from explicit records, the canary first:
//! - the diagonal quadratic (`beta = kappa = 1`, so `H = I`): `n - 1` shared
//!   records and the canary `+e_1` in `D`, `-e_1` in `D'`, moving
//!   `w* = x_bar` by exactly the tight sensitivity `2/n` along `e_1`;
//! - for the black-box entries whose solver stops on a gradient certificate
//!   (Katyusha in Algorithm 1, the certified gradient descent of Algorithm
//!   6), shared records that put `||grad F_{D'}(0)||` just below the stopping
//!   threshold `sqrt(2 mu alpha)`: `D'` then stops at its start `w_0 = 0`,
//!   `sqrt(2 alpha/mu)` from its minimizer (the error Prop 3.1 charges, here
//!   attained), while `D` runs on to its own minimizer;
//! - for the regularized mechanisms (Eq. 6, Algorithm 7) the geometric median
//!   on records of the `e_1` axis, half the shared ones at `+e_1` and half at
//!   `-e_1`, so that `F` is flat between them and the canary moves
//!   `w*_lambda` by exactly the tight `Delta_lambda = 2L/(lambda n)`.
//!
//! The statistic is the release's first coordinate. Where the release is
//! `c + z` with `z` Gaussian and the centre `c` independent of `z` (a
//! deterministic function of the data, or an inner solver's output drawn
//! from its own stream), a threshold event `{s >= t}` has
//! `Phi^-1(TPR) - Phi^-1(FPR) <= (sup c_1(D) - inf c_1(D'))/sigma`, which the
//! algorithm's proof bounds by `Delta_T/sigma`: the Gaussian-DP fit is then
//! sound against the calibration the proof claims, and those audits declare
//! it. They run only at `delta > 0` (at `delta = 0` the noise is the
//! Gamma-radius l2 "Laplace", not Gaussian) and only where the projection
//! onto `B(0, R)` stays inactive except with probability `e^-40` per run
//! ([`projection_stays_inactive`]). Noisy SGD's release is not of that form
//! (Poisson batches, projected steps): threshold audit.

use contract::audit::first_coordinate;
use contract::{AuditDef, AuditPair, AuditSetting, Estimator, Instance, Relation, Value, Values};
use datagen::adversarial::{Adversarial, AdversarialParams};
use datagen::geometric_median::AxisGeometricMedian;
use datagen::labelled::LabelledData;
use datagen::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{Objective, PrivacyParams, ProblemConstants, RunFailure};
use solvers::lowy_razaviyayn::adversarial::AdversarialOutputPerturbation;
use solvers::lowy_razaviyayn::prescriptions::{alpha_thm_5_3, Setting};
use solvers::lowy_razaviyayn::regularized::{prescribed_alpha, RegularizedOutputPerturbation};
use solvers::output_perturbation::{ConceptualOutputPerturbation, SensitivityChoice};

use super::bounds::black_box_theorem;
use contract::Options;

use super::options::{AdversarialOptions, Mode, ProjectedOptions, RegularizedOptions};

/// Relative margin below a solver's stopping threshold at which `D'`'s start
/// gradient is placed: far above rounding (1e-16 relative) yet leaving the
/// attained error `sqrt(2 alpha/mu)` short by only 1e-9 of it.
const BELOW_THRESHOLD: f64 = 1e-9;

/// `x` in the Laurent–Massart bound `P(||z||^2 >= sigma^2 (d + 2 sqrt(d x) +
/// 2x)) <= e^-x` for `z ~ N(0, sigma^2 I_d)` (2000, Lemma 1): with `x = 40` a
/// projection binds in fewer than one run in 2e17, none in any audit.
const TAIL_EXPONENT: f64 = 40.0;

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

/// The Gaussian-DP fit needs Gaussian noise, i.e. `delta > 0`.
fn gaussian_only(p: PrivacyParams) -> Result<(), RunFailure> {
    if p.delta > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            "this audit uses the Gaussian-DP fit, sound only for the Gaussian noise of \
             delta > 0; at delta = 0 the noise is the l2 \"Laplace\" (Gamma radius)"
                .into(),
        ))
    }
}

/// Refuses a Gaussian-DP pair where `Pi_{B(0, R)}(c + z)` could bind: with
/// `||c|| <= centre` it is inactive whenever `||z|| < R - centre`, which
/// fails with probability at most `e^-40` ([`TAIL_EXPONENT`]) if
/// `(R - centre)^2 >= sigma^2 (d + 2 sqrt(40 d) + 80)`. A binding projection
/// would make the statistic non-Gaussian.
fn projection_stays_inactive(
    centre: f64,
    sigma: f64,
    radius: f64,
    d: usize,
) -> Result<(), RunFailure> {
    let (df, x) = (d as f64, TAIL_EXPONENT);
    let reach = sigma * (df + 2.0 * (df * x).sqrt() + 2.0 * x).sqrt();
    if centre + reach <= radius {
        Ok(())
    } else {
        Err(invalid(format!(
            "the projection onto B(0, {radius}) would bind (centre {centre:.3e} + noise reach \
             {reach:.3e} at e^-40): the statistic would not be Gaussian; audit at a larger n"
        )))
    }
}

fn size(s: &AuditSetting) -> Result<(usize, usize), RunFailure> {
    if s.n < 2 || s.d < 1 {
        return Err(invalid(format!(
            "a replace-one pair needs n >= 2 and d >= 1, got n = {}, d = {}",
            s.n, s.d
        )));
    }
    Ok((s.n, s.d))
}

/// `a e_1` in `R^d`.
fn on_axis(d: usize, a: f64) -> Vec<f64> {
    let mut v = vec![0.0; d];
    v[0] = a;
    v
}

/// Coordinates `a_i >= 0` on the axis with sum `total`: `floor(total)` ones,
/// the remainder, then zeros, `count` in all (`None` if `total > count`).
fn axis_mass(total: f64, count: usize) -> Option<Vec<f64>> {
    if !(total >= 0.0 && total <= count as f64) {
        return None;
    }
    let whole = total.floor() as usize;
    let mut a = vec![1.0; whole];
    if a.len() < count {
        a.push(total - whole as f64);
    }
    a.resize(count, 0.0);
    Some(a)
}

/// `[D, D']`: the canary first, then the shared rows.
fn with_canary(canary: [Vec<f64>; 2], shared: &[Vec<f64>]) -> [Vec<Vec<f64>>; 2] {
    canary.map(|c| std::iter::once(c).chain(shared.iter().cloned()).collect())
}

fn values(pairs: &[(&str, Value)]) -> Values {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// The `diagonal_quadratic` family values of the pairs: `beta = kappa = 1`
/// (`H = I`: the tight sensitivity `2/n` is the minimizer's shift, and
/// `kappa = 1` makes the paper's `2L/(mu n) = 4/n` as small as it gets).
fn quadratic_values(n: usize, d: usize) -> Values {
    values(&[
        ("n", Value::Num(n as f64)),
        ("d", Value::Num(d as f64)),
        ("beta", Value::Num(1.0)),
        ("kappa", Value::Num(1.0)),
    ])
}

fn quadratic(n: usize, d: usize, rows: &[Vec<f64>]) -> Result<DiagonalQuadratic, RunFailure> {
    let params = DiagonalQuadraticParams {
        n,
        d,
        beta: 1.0,
        kappa: 1.0,
    };
    DiagonalQuadratic::from_records(params, rows.concat()).map_err(invalid)
}

/// The diagonal-quadratic pair with these shared rows and the canary `+e_1`
/// (`D`) / `-e_1` (`D'`).
fn quadratic_pair(
    n: usize,
    d: usize,
    shared: &[Vec<f64>],
    description: String,
) -> Result<AuditPair, RunFailure> {
    let records = with_canary([on_axis(d, 1.0), on_axis(d, -1.0)], shared);
    let instances = [
        Instance::Objective(Box::new(quadratic(n, d, &records[0])?)),
        Instance::Objective(Box::new(quadratic(n, d, &records[1])?)),
    ];
    Ok(AuditPair {
        instances,
        records,
        relation: Relation::ReplaceOne,
        problem: quadratic_values(n, d),
        description,
    })
}

/// `n - 1` shared records at `0`: `w* = +-e_1/n`, shift `2/n` = the tight
/// sensitivity.
fn canary_at_origin(n: usize, d: usize) -> Result<AuditPair, RunFailure> {
    quadratic_pair(
        n,
        d,
        &vec![vec![0.0; d]; n - 1],
        format!(
            "diagonal quadratic (beta = kappa = 1), n - 1 = {} records at 0; the canary +e1 \
             replaced by -e1: w* moves by 2/n along e1",
            n - 1
        ),
    )
}

/// `output_perturbation_conceptual` and `zzmw17`: Gaussian release of a
/// deterministic centre, no projection. At `delta = 0` (the Gamma-radius
/// noise) the same pair serves: the runner audits a pure-DP claim with the
/// threshold estimator ([`contract::audit::Estimator::GaussianDp`]).
fn gaussian_origin_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let (n, d) = size(s)?;
    canary_at_origin(n, d)
}

/// The diagonal quadratic's family-level pair, for an algorithm that
/// declares only the families it accepts (a Python entry, `crate::family_audit`):
/// the canary `+e_1` against `-e_1` among `n - 1` records at 0. Worst case for
/// any release built from the minimizer `w* = x_bar`, which moves by the
/// tight sensitivity `2/n` along `e_1`.
pub(crate) const DIAGONAL_QUADRATIC_FAMILY: crate::FamilyAudit = crate::FamilyAudit {
    pair: gaussian_origin_pair,
    statistic: first_coordinate,
    method: "Canary +e1 vs -e1 among n - 1 records at 0 on the diagonal quadratic (H = I): the \
             minimizer moves by exactly the tight sensitivity 2/n along e1; the statistic is the \
             release's first coordinate (family-level pair: the algorithm declares no pair of its own)",
};

/// `op_conceptual_projected`: as [`gaussian_origin_pair`], refused where the
/// projection onto `B(0, 1)` could bind.
fn projected_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let (n, d) = size(s)?;
    let p = s.privacy.approx();
    gaussian_only(p)?;
    let pair = canary_at_origin(n, d)?;
    let Instance::Objective(q) = &pair.instances[0] else {
        unreachable!("quadratic pairs are objectives")
    };
    let options = ProjectedOptions::read(s.options)?;
    let sens = SensitivityChoice::from(options.sensitivity).select(q.minimizer_sensitivity());
    let sigma = ConceptualOutputPerturbation::noise_scale(sens, p)?;
    projection_stays_inactive(1.0 / n as f64, sigma, q.constants().radius, d)?;
    Ok(pair)
}

/// `noisy_sgd`: the canary pair at any `delta` (threshold audit).
fn noisy_sgd_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let (n, d) = size(s)?;
    canary_at_origin(n, d)
}

/// `op_black_box`: Algorithm 1's target `alpha` (as its run computes it) and
/// shared records summing to `1 + n sqrt(2 alpha/mu) (1 - 1e-9)` along `e_1`,
/// so `||grad F_{D'}(0)|| = ||x_bar(D')||` lies just below Katyusha's
/// threshold `sqrt(2 mu alpha)` (`H = mu I`).
fn black_box_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let (n, d) = size(s)?;
    let p = s.privacy.approx();
    gaussian_only(p)?;
    let centred = quadratic(n, d, &vec![vec![0.0; d]; n])?;
    let c = centred.constants();
    let alpha = black_box_theorem(&centred, &c).alpha(&c, &Setting { n, d, privacy: p })?;
    let gap = (2.0 * alpha / c.strong_convexity).sqrt() * (1.0 - BELOW_THRESHOLD);
    let total = 1.0 + n as f64 * gap;
    let shared: Vec<Vec<f64>> = axis_mass(total, n - 1)
        .ok_or_else(|| {
            invalid(format!(
                "n = {n} is too small: the shared records must sum to {total:.3} e1 \
                 (at most n - 1)"
            ))
        })?
        .into_iter()
        .map(|a| on_axis(d, a))
        .collect();
    quadratic_pair(
        n,
        d,
        &shared,
        format!(
            "diagonal quadratic (beta = kappa = 1), n - 1 = {} shared records summing to \
             {total:.4} e1, so ||grad F(0)|| on D' is sqrt(2 alpha/mu) (1 - 1e-9) = {gap:.4e} \
             (alpha = {alpha:.3e}): Katyusha stops D' at w0 = 0, a distance sqrt(2 alpha/mu) \
             from w*; the canary +e1 replaced by -e1 (w* moves by 2/n)",
            n - 1
        ),
    )
}

/// `op_regularized`: the geometric median on the `e_1` axis. Of the `n - 1`
/// shared records `ceil((n-1)/2)` sit at `+e_1`, the rest at `-e_1`; the
/// canary is `+e_1` (`D`) or `-e_1` (`D'`). Between the records `F` is
/// linear with slope `(#left - #right)/n` along `e_1`, so `w*_lambda =
/// (#right - #left)/(lambda n) e_1` and the canary moves it by `2/(lambda n)`
/// as long as that stays inside `(-1, 1)` (`lambda n > 2`).
fn regularized_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let (n, d) = size(s)?;
    let p = s.privacy.approx();
    gaussian_only(p)?;
    let right = n / 2; // ceil((n - 1)/2)
    let shared: Vec<Vec<f64>> = (0..n - 1)
        .map(|i| on_axis(d, if i < right { 1.0 } else { -1.0 }))
        .collect();
    let records = with_canary([on_axis(d, 1.0), on_axis(d, -1.0)], &shared);
    let build = |rows: &[Vec<f64>]| AxisGeometricMedian::from_records(d, rows.concat());
    let (q, q_prime) = (
        build(&records[0]).map_err(invalid)?,
        build(&records[1]).map_err(invalid)?,
    );
    let options = RegularizedOptions::read(s.options)?;
    let mech = RegularizedOutputPerturbation::prescribed(
        &q,
        p,
        options.sensitivity.into(),
        options.calibration.into(),
    )?;
    let lambda = mech.lambda;
    if lambda * n as f64 <= 2.0 {
        return Err(invalid(format!(
            "lambda n = {:.3} <= 2: w*_lambda would reach the records at +-e1",
            lambda * n as f64
        )));
    }
    let alpha = match options.mode {
        Mode::BlackBox => prescribed_alpha(&q, p)?,
        Mode::Conceptual => 0.0,
    };
    let sigma = mech.calibrate(&q, p, alpha)?.noise_scale;
    let centre = |o: &AxisGeometricMedian| {
        o.regularized_minimizer(lambda)
            .map_or(f64::INFINITY, |w| w[0].abs())
    };
    // An inner solver's output lies within sqrt(2 alpha/lambda) of w*_lambda.
    let reach = centre(&q).max(centre(&q_prime)) + (2.0 * alpha / lambda).sqrt();
    projection_stays_inactive(reach, sigma, q.constants().radius, d)?;
    let description = format!(
        "geometric median on the e1 axis, {right} shared records at +e1 and {} at -e1 \
         (F flat between them); the canary +e1 replaced by -e1 moves w*_lambda by \
         2/(lambda n) = {:.4e} (lambda = {lambda:.4e})",
        n - 1 - right,
        2.0 / (lambda * n as f64)
    );
    Ok(AuditPair {
        instances: [
            Instance::Objective(Box::new(q)),
            Instance::Objective(Box::new(q_prime)),
        ],
        records,
        relation: Relation::ReplaceOne,
        problem: values(&[
            ("n", Value::Num(n as f64)),
            ("d", Value::Num(d as f64)),
            ("p", Value::Num(0.0)),
        ]),
        description,
    })
}

/// `mu` of the adversarial pair: at `mu = 1` (`L = 1 + sqrt(2 ln 2)`,
/// `R = sqrt(2 ln 2)`) the tolerance `sqrt(2 mu alpha) = sqrt(2) L/n` puts
/// `D'`'s stop `sqrt(2) L/(mu n) = 3.08/n` from its minimizer against the
/// tight `Delta = 2/(mu n)`.
const ADVERSARIAL_MU: f64 = 1.0;

/// The constants `Adversarial::constants` reports at `(mu, r)` (checked
/// against the built instances).
fn adversarial_constants(mu: f64, r: f64) -> ProblemConstants {
    let radius = (2.0 * std::f64::consts::LN_2 / mu).sqrt();
    ProblemConstants {
        lipschitz: 1.0 + r + mu * radius,
        smoothness: f64::INFINITY,
        strong_convexity: mu,
        radius,
    }
}

/// `adversarial_black_box`: the adversarial logistic objective with `r = 0`
/// (no kink at 0), `mu = 1`, features on the `e_1` axis. At `w = 0` every
/// sigmoid is `1/2`, so `grad G(0) = -(1/(2n)) sum_i y_i x_i`; the shared
/// records (`x = a e_1`, `y = +1`, the rest `x = 0`, which add nothing to
/// `G` but `ln 2`) make `sum_i y_i x_i` on `D'` equal `2 n sqrt(2 mu alpha)
/// (1 - 1e-9)`, just below the certified descent's tolerance: `D'` stops at
/// `w_0 = 0`, `D` (canary `(+e_1, +1)` in place of `(-e_1, +1)`) at its
/// minimizer about `(sqrt 2 L + 1)/(mu n)` away.
fn adversarial_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let (n, d) = size(s)?;
    let p = s.privacy.approx();
    gaussian_only(p)?;
    let (mu, r) = (ADVERSARIAL_MU, 0.0);
    let c = adversarial_constants(mu, r);
    let alpha = alpha_thm_5_3(&c, &Setting { n, d, privacy: p })?;
    let tol = (2.0 * mu * alpha).sqrt();
    let total = 1.0 + 2.0 * n as f64 * tol * (1.0 - BELOW_THRESHOLD);
    let mass = axis_mass(total, n - 1).ok_or_else(|| {
        invalid(format!(
            "n = {n} is too small: the shared y x must sum to {total:.3} (at most n - 1)"
        ))
    })?;
    let row = |a: f64| {
        let mut v = on_axis(d, a);
        v.push(1.0);
        v
    };
    let shared: Vec<Vec<f64>> = mass.into_iter().map(row).collect();
    let records = with_canary([row(1.0), row(-1.0)], &shared);
    let params = AdversarialParams {
        label_noise: 0.1,
        signal: 2.0,
        ..AdversarialParams::new(n, d, mu, r)
    };
    let build = |rows: &[Vec<f64>]| -> Result<Adversarial, RunFailure> {
        let x: Vec<f64> = rows.iter().flat_map(|v| v[..d].to_vec()).collect();
        let y: Vec<f64> = rows.iter().map(|v| v[d]).collect();
        let data = LabelledData::from_rows(d, x, y).map_err(invalid)?;
        let a = Adversarial::from_records(params, data).map_err(invalid)?;
        if a.constants() != c {
            return Err(invalid(format!(
                "adversarial constants {:?} differ from the pair's {c:?}",
                a.constants()
            )));
        }
        Ok(a)
    };
    let (g, g_prime) = (build(&records[0])?, build(&records[1])?);
    let options = AdversarialOptions::read(s.options)?;
    let mut mech = AdversarialOutputPerturbation::prescribed(&g, p, options.sensitivity.into())?;
    mech.inflation = options.inflation.into();
    let sigma = mech.calibrate(&g, p)?.noise_scale;
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let reach = norm(g.minimizer()).max(norm(g_prime.minimizer())) + (2.0 * alpha / mu).sqrt();
    projection_stays_inactive(reach, sigma, c.radius, d)?;
    let description = format!(
        "adversarial logistic (mu = 1, r = 0) on the e1 axis: n - 1 = {} shared records \
         (x = a e1, y = +1; sum of a = {total:.4}) put ||grad G(0)|| on D' at the certified \
         descent's tolerance sqrt(2 mu alpha) (1 - 1e-9) = {tol:.4e}, so D' stops at w0 = 0; \
         the canary (+e1, +1) replaced by (-e1, +1)",
        n - 1
    );
    Ok(AuditPair {
        instances: [
            Instance::Objective(Box::new(g)),
            Instance::Objective(Box::new(g_prime)),
        ],
        records,
        relation: Relation::ReplaceOne,
        problem: values(&[
            ("n", Value::Num(n as f64)),
            ("d", Value::Num(d as f64)),
            ("mu", Value::Num(mu)),
            ("r", Value::Num(r)),
            ("label_noise", Value::Num(0.1)),
            ("signal", Value::Num(2.0)),
        ]),
        description,
    })
}

/// `output_perturbation_conceptual` (Eq. 2).
pub(crate) const OUTPUT_PERTURBATION_CONCEPTUAL: AuditDef = AuditDef {
    pair: gaussian_origin_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Canary +e1 vs -e1 among n - 1 records at 0 on the diagonal quadratic (H = I): \
             w* moves by exactly the tight sensitivity 2/n; the release w* + N(0, sigma^2 I) \
             is Gaussian with a pure mean shift, so the Gaussian-DP fit applies (at delta = 0 the \
             noise is the Gamma-radius l2 \"Laplace\": threshold audit)",
};

/// `op_conceptual_projected` (Eq. 3).
pub(crate) const OP_CONCEPTUAL_PROJECTED: AuditDef = AuditDef {
    pair: projected_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Canary +e1 vs -e1 among n - 1 records at 0 on the diagonal quadratic: w* moves by \
             the tight 2/n; the pair is refused unless the projection onto B(0,1) stays \
             inactive (probability e^-40 per run), so the release is Gaussian with a pure mean \
             shift: Gaussian-DP fit (delta > 0 only)",
};

/// `op_black_box` (Algorithm 1).
pub(crate) const OP_BLACK_BOX: AuditDef = AuditDef {
    pair: black_box_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Diagonal quadratic whose shared records put D' at Katyusha's stopping threshold at \
             w0 = 0, so its output sits sqrt(2 alpha/mu) from w* (the error Prop 3.1 charges), \
             plus the canary +e1 vs -e1 (2/n); the release is the solver output plus independent \
             Gaussian noise, so a threshold event's probit gap is at most the outputs' \
             separation over sigma: Gaussian-DP fit (delta > 0 only)",
};

/// `op_regularized` (Eq. 6/7, Algorithm 7).
pub(crate) const OP_REGULARIZED: AuditDef = AuditDef {
    pair: regularized_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Geometric median on the e1 axis with the shared records split between +e1 and -e1 \
             (F flat between them), canary +e1 vs -e1: w*_lambda moves by exactly the tight \
             2L/(lambda n); the projection is refused unless inactive (e^-40 per run), so the \
             release is Gaussian with a mean shift: Gaussian-DP fit (delta > 0 only)",
};

/// `adversarial_black_box` (Algorithm 6).
pub(crate) const ADVERSARIAL_BLACK_BOX: AuditDef = AuditDef {
    pair: adversarial_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Adversarial logistic (mu = 1, r = 0) on the e1 axis whose shared records put D' at \
             the certified descent's tolerance at w0 = 0, so D' stops there, sqrt(2 alpha/mu) \
             from its minimizer, while D (canary (+e1, +1) vs (-e1, +1)) reaches its own: the \
             solver error Algorithm 6 must cover; deterministic solver plus Gaussian noise, \
             projection refused unless inactive: Gaussian-DP fit (delta > 0 only)",
};

/// `zzmw17` (GD + output perturbation).
pub(crate) const ZZMW17: AuditDef = AuditDef {
    pair: gaussian_origin_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Canary +e1 vs -e1 among n - 1 records at 0 on the diagonal quadratic (kappa = 1): \
             the GD iterate moves by 2/n, half the calibrated 2L/(mu n) (a record's gradient \
             changes by at most 2 beta = L on this family); deterministic GD plus Gaussian \
             noise: Gaussian-DP fit (at delta = 0 the Gamma-radius noise: threshold audit)",
};

/// `noisy_gd` (gradient perturbation, rho-zCDP).
pub(crate) const NOISY_GD: AuditDef = AuditDef {
    pair: gaussian_origin_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "Canary +e1 vs -e1 among n - 1 records at 0 on the diagonal quadratic (H = I): every \
             full gradient moves by 2/n = L/n, exactly the calibrated sensitivity, and w_T is a \
             linear function of the T Gaussian noises plus the data's mean: Gaussian, so the \
             Gaussian-DP fit",
};

/// `noisy_sgd` (BST14 baseline).
pub(crate) const NOISY_SGD: AuditDef = AuditDef {
    pair: noisy_sgd_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: None,
    method: "Canary +e1 vs -e1 among n - 1 records at 0 on the diagonal quadratic: whenever \
             sampled, the canary's gradient differs by 2 e1 (the most a record can on this \
             family, L = 2); the averaged, projected, subsampled iterate is not Gaussian, so \
             the threshold audit",
};
