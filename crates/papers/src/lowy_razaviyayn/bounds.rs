//! What the Lowy–Razaviyayn entries report besides the metric: the bound of
//! the theorem each run implements (and the theorem prescribing its accuracy),
//! the gradient evaluations a solver's guarantee prescribes, and the
//! mechanism diagnostics.

use dpcore::{Objective, ProblemConstants};
use solvers::inner::InnerSolver;
use solvers::lowy_razaviyayn::black_box::BlackBoxRelease;
use solvers::lowy_razaviyayn::bounds::{self, erm, sco, term};
use solvers::lowy_razaviyayn::prescriptions::Theorem;

use contract::{Diagnostics, Metric, RunContext};

/// Constants, number of records and dimension of a problem.
pub(super) fn dims(problem: &dyn Objective) -> (ProblemConstants, usize, usize) {
    (problem.constants(), problem.num_records(), problem.dim())
}

/// Tilted-ERM quantities of the instance: `ln C_tau` and `kappa_tau`
/// (`None` for an objective that is not tilted).
fn term_constants(problem: &dyn Objective, c: &ProblemConstants) -> Option<(f64, f64)> {
    // The family's constants are already F_tau's (smoothness beta_tau = beta +
    // tau L^2, Lemma 5.3's statement), so kappa_tau = beta_tau/mu is their
    // condition number: 1 + 4 mu tau on the quadratic loss (L = 2 mu).
    // `term::kappa_tau` adds tau L^2 to a *base* smoothness; applied here it
    // counted it twice (1 + 8 mu tau: 5 instead of 3 at mu = 1, tau = 0.5),
    // loosening Thm 5.2's bound and its prescribed alpha (issue 24, item 2).
    Some((problem.tilted_log_c()?, c.condition_number()))
}

/// Bound of `op_conceptual_projected`: Prop 4.1 (population), the conceptual
/// TERM bound (tilted ERM) or Cor 2.1.
pub(super) fn conceptual_projected_bound(ctx: &RunContext, problem: &dyn Objective) -> f64 {
    let (c, n, d) = dims(problem);
    let p = ctx.privacy.approx();
    match (ctx.metric, term_constants(problem, &c)) {
        (Metric::ExcessPopulationRisk, _) => sco::prop_4_1(&c, n, d, p),
        (_, Some((log_c, _))) => term::term_conceptual(&c, n, d, p, log_c),
        _ => erm::cor_2_1(&c, n, d, p),
    }
}

/// The theorem whose accuracy `alpha` Algorithm 1 is run to: Thm 5.2/5.1 on
/// tilted ERM, Thm 3.2/3.1 otherwise (smooth/non-smooth).
pub(super) fn black_box_theorem(problem: &dyn Objective, c: &ProblemConstants) -> Theorem {
    match term_constants(problem, c) {
        Some((log_c_tau, kappa_tau)) if c.smoothness.is_finite() => Theorem::Thm5_2 {
            log_c_tau,
            kappa_tau,
        },
        Some((log_c_tau, _)) => Theorem::Thm5_1 { log_c_tau },
        None if c.smoothness.is_finite() => Theorem::Thm3_2,
        None => Theorem::Thm3_1,
    }
}

/// Bound and reference of `op_black_box`: the corrected and printed Thm 5.2
/// (smooth tilted ERM), Thm 5.1, Cor 4.2/4.1 (population), Thm 3.2/3.1; only
/// Thm 5.2 has a printed form to compare with.
pub(super) fn black_box_bound(ctx: &RunContext, problem: &dyn Objective) -> (f64, Option<f64>) {
    let (c, n, d) = dims(problem);
    let p = ctx.privacy.approx();
    if let Some((log_c, kappa)) = term_constants(problem, &c) {
        return if c.smoothness.is_finite() {
            (
                term::thm_5_2(&c, n, d, p, log_c, kappa),
                Some(term::thm_5_2_printed(&c, n, d, p, log_c, kappa)),
            )
        } else {
            (term::thm_5_1(&c, n, d, p, log_c), None)
        };
    }
    let smooth = c.smoothness.is_finite();
    let bound = match (ctx.metric, smooth) {
        (Metric::ExcessPopulationRisk, true) => sco::cor_4_2(&c, n, d, p),
        (Metric::ExcessPopulationRisk, false) => sco::cor_4_1(&c, n, d, p),
        (_, true) => erm::thm_3_2_prescribed(&c, n, d, p),
        (_, false) => erm::thm_3_1_prescribed(&c, n, d, p),
    };
    (bound, None)
}

/// The gradient evaluations each solver's guarantee prescribes (P9): SGD's
/// `T = ceil(2L^2/(mu alpha))`, Katyusha's `O((n + sqrt(n kappa)) log(LR/alpha))`
/// with the constant of `bounds::katyusha_gradient_evaluations`, AGD's
/// iteration count times `n` (also the certified AGD's curve), the
/// subgradient method's `T n`.
pub(super) fn solver_cost(problem: &dyn Objective, solver: InnerSolver, alpha: f64) -> f64 {
    let (c, n, _) = dims(problem);
    match solver {
        InnerSolver::Sgd => bounds::sgd_gradient_evaluations(&c, alpha),
        InnerSolver::Subgradient => bounds::sgd_gradient_evaluations(&c, alpha) * n as f64,
        InnerSolver::Katyusha => bounds::katyusha_gradient_evaluations(&c, n, alpha),
        // The certified form's guarantee is the same count (it stops no
        // later, checking each step at n evaluations more).
        InnerSolver::Agd | InnerSolver::AgdCertified => {
            bounds::agd_iterations(&c, alpha) * n as f64
        }
    }
}

/// Bound of `op_regularized`: Prop 2.7/2.8 (conceptual), Thm C.1/C.2 (black
/// box), Prop/Cor D.1/D.2 (population); none for gradient evaluations.
pub(super) fn regularized_bound(
    ctx: &RunContext,
    problem: &dyn Objective,
    black_box: bool,
) -> Option<f64> {
    let (c, n, d) = dims(problem);
    let p = ctx.privacy.approx();
    let smooth = c.smoothness.is_finite();
    Some(match (ctx.metric, smooth, black_box) {
        (Metric::ExcessPopulationRisk, false, false) => sco::prop_d_1(&c, n, d, p),
        (Metric::ExcessPopulationRisk, true, false) => sco::prop_d_2(&c, n, d, p),
        (Metric::ExcessPopulationRisk, false, true) => sco::cor_d_1(&c, n, d, p),
        (Metric::ExcessPopulationRisk, true, true) => sco::cor_d_2(&c, n, d, p),
        (Metric::GradientEvaluations, _, _) => return None,
        (_, false, false) => erm::prop_2_7(&c, n, d, p),
        (_, true, false) => erm::prop_2_8(&c, n, d, p),
        (_, false, true) => erm::thm_c_1_prescribed(&c, n, d, p),
        (_, true, true) => erm::thm_c_2_prescribed(&c, n, d, p),
    })
}

/// Bound of `adversarial_black_box`; none for gradient evaluations.
pub(super) fn adversarial_bound(ctx: &RunContext, problem: &dyn Objective) -> Option<f64> {
    let (c, n, d) = dims(problem);
    match ctx.metric {
        Metric::GradientEvaluations => None,
        // G_D is strongly convex and Lipschitz but not globally smooth: the
        // guaranteed rate is the F-class one of Thm 3.1 (Lemma 5.4).
        _ => Some(erm::thm_3_1_prescribed(&c, n, d, ctx.privacy.approx())),
    }
}

/// Diagnostics of `op_regularized`: those of the black-box entries, then the
/// regularization `lambda`.
pub(super) const REGULARIZED_DIAGNOSTICS: &[&str] = &[
    "sensitivity",
    "inflated_sensitivity",
    "noise_scale",
    "noise_norm_sq",
    "alpha",
    "gradient_evaluations",
    "accuracy_certified_for_every_data_set",
    "lambda",
];

/// Diagnostics of the black-box entries, as `black_box_diagnostics` sets
/// them: `REGULARIZED_DIAGNOSTICS` without its final `lambda`.
pub(super) const BLACK_BOX_DIAGNOSTICS: &[&str] = match REGULARIZED_DIAGNOSTICS.split_last() {
    Some((_, black_box)) => black_box,
    None => &[],
};

/// The implemented-mechanism diagnostics shared by the black-box entries.
pub(super) fn black_box_diagnostics(r: &BlackBoxRelease) -> Diagnostics {
    Diagnostics::from([
        ("sensitivity", r.sensitivity),
        ("inflated_sensitivity", r.inflated_sensitivity),
        ("noise_scale", r.noise_scale),
        ("noise_norm_sq", r.noise_norm_sq),
        ("alpha", r.alpha),
        ("gradient_evaluations", r.gradient_evaluations as f64),
        (
            "accuracy_certified_for_every_data_set",
            if r.accuracy_holds_for_every_data_set {
                1.0
            } else {
                0.0
            },
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use datagen::term::{Term, TermLoss, TermParams};
    use rand::SeedableRng;

    /// Hand values on the tilted objective: `mu = 1`, `L = 2 mu = 2`,
    /// `beta_tau = mu + tau L^2`; the E6 studies' `tau = 0.5` gives
    /// `kappa_tau = 1 + 4 mu tau = 3` (the double count gave 5).
    #[test]
    fn kappa_tau_is_the_tilted_objectives_condition_number_counted_once() {
        for (tau, hand) in [(0.5, 3.0), (2.0, 9.0), (0.05, 1.2)] {
            let params = TermParams::new(200, 3, tau, TermLoss::Quadratic);
            let problem = Term::generate(params, &mut rand_pcg::Pcg64::seed_from_u64(7)).unwrap();
            let c = problem.constants();
            assert_eq!(
                c.smoothness,
                1.0 + tau * 4.0,
                "the family's beta_tau is tilted"
            );
            let Theorem::Thm5_2 {
                kappa_tau: kappa, ..
            } = black_box_theorem(&problem, &c)
            else {
                panic!("smooth tilted ERM runs to Thm 5.2's accuracy")
            };
            assert!((kappa - hand).abs() < 1e-12, "tau = {tau}: {kappa}");
            // The base-smoothness formula on the tilted constants is the
            // defect: it adds tau L^2 a second time.
            let doubled = term::kappa_tau(&c, tau, term::TermSmoothness::Statement);
            assert!((doubled - (1.0 + 8.0 * tau)).abs() < 1e-12);
        }
    }

    #[test]
    fn black_box_diagnostics_are_the_regularized_ones_without_lambda() {
        assert_eq!(BLACK_BOX_DIAGNOSTICS.len(), 7);
        assert_eq!(REGULARIZED_DIAGNOSTICS.last(), Some(&"lambda"));
        assert_eq!(
            BLACK_BOX_DIAGNOSTICS,
            &REGULARIZED_DIAGNOSTICS[..REGULARIZED_DIAGNOSTICS.len() - 1]
        );
    }
}
