//! The plan's work formulas of the Lowy–Razaviyayn entries (operations of one
//! run; see `contract::cost`). The exact-minimizer mechanisms keep the default
//! (one pass: a closed form or a certified L-BFGS / Newton solve of a few
//! passes, plus noise). The calibration absorbs constant factors.

use contract::{CostPoint, FamilyWork, Privacy};
use dpcore::ProblemConstants;
use solvers::inner::sgd::{steps_for_accuracy, MAX_ITERATIONS};
use solvers::lowy_razaviyayn::prescriptions::{
    alpha_thm_c_1, lambda_prop_2_7, privacy_scale, Form, Setting,
};

/// Katyusha and AGD take about `sqrt(kappa) log n` passes (docs/papers/
/// lowy_razaviyayn.md E1/E6: cost slope +1 in n up to a log); SGD takes
/// Thm 3.1's `2 n max{n, 1/s}` steps of `O(d)` under Algorithm 1 and
/// [`thm_c_1_sgd_steps`] under Algorithm 7 ([`sgd_work`]); the full subgradient method
/// takes [`subgradient_iterations`] passes of `O(n d)`; the conceptual mode
/// solves exactly (`n d log n`).
fn inner_solver_work(v: &CostPoint, w: &FamilyWork, black_box: bool) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let nd = n * d;
    let log_n = n.max(2.0).log2();
    let kappa = v.num("kappa", 1.0).max(1.0);
    let ops = match (black_box, v.choice("inner")) {
        (false, _) => nd * log_n,
        (true, "sgd") if v.choice("mode") == "black_box" => sgd_work(thm_c_1_sgd_steps(v, n, d), d),
        (true, "sgd") => sgd_work(2.0 * n * n.max(1.0 / scale(v, d)), d),
        (true, "subgradient") => subgradient_iterations(v, n, d) * nd,
        (true, _) => nd * log_n * kappa.sqrt(),
    };
    (ops, 16.0 * d)
}

/// Full-gradient passes `T = 2 L^2/(mu alpha)` of Algorithm 1's subgradient
/// method at its prescribed accuracy (`solvers::lowy_razaviyayn::
/// prescriptions::accuracy`): Thm 3.1's `alpha = L^2/(mu n) min{1/n, s}` gives
/// `2 n max{n, 1/s}`; on the TERM families (a `tau` value) Thm 5.1's
/// `alpha = L^2 C_tau/(mu n) min{C_tau/n, s}` gives
/// `(2/C_tau) max{n^2/C_tau, n/s}`, `ln C_tau = tau (A_R - a_R)` with the
/// range `2 mu` (quadratic loss) or `mu/2 + 2` (non-smooth). `s = d/eps` for
/// pure DP, `sqrt(d) (c + sqrt(c^2 + eps))/eps` otherwise. Measured on the
/// sharp TERM study (8468 cells, 2026-11-29): the former `n^2 d` read 0.028
/// of its 3 943 core-seconds.
fn subgradient_iterations(v: &CostPoint, n: f64, d: f64) -> f64 {
    let s = scale(v, d);
    let tau = v.num("tau", 0.0);
    if tau > 0.0 {
        let mu = v.num("mu", 1.0);
        let range = if v.choice("loss") == "quadratic" {
            2.0 * mu
        } else {
            0.5 * mu + 2.0
        };
        // C_tau overflows for large tau; the cap keeps the estimate finite.
        let c_tau = (tau * range).min(700.0).exp();
        (2.0 / c_tau) * (n * n / c_tau).max(n / s)
    } else {
        2.0 * n * n.max(1.0 / s)
    }
    .max(1.0)
}

/// The privacy scale `s` of the grid point (`d` where it is undefined).
fn scale(v: &CostPoint, d: f64) -> f64 {
    match v.privacy {
        Privacy::Approx(p) => privacy_scale(d as usize, p).unwrap_or(d),
        Privacy::Zcdp(_) => d,
    }
}

/// Operations of `steps` SGD steps (Algorithm 2): `d + 20` a step (a record
/// draw, its gradient, the projection and the weighted average), in units
/// of about 1.4 ns: on the Lowy–Razaviyayn quick profile's SGD cells (CI's
/// clean-clone run of `1c300d8`, 2026-12-01) a step took 33-35 ns at
/// `d = 4`, 38-40 at 8 and 50-51 at 16. Past the solver's cap
/// ([`MAX_ITERATIONS`]) the cell fails before its first step: no run work.
fn sgd_work(steps: f64, d: f64) -> f64 {
    if steps > MAX_ITERATIONS as f64 {
        0.0
    } else {
        steps.max(1.0) * (d + 20.0)
    }
}

/// SGD's steps under Algorithm 7 (Thm C.1): `T = 2 L_lambda^2/(m alpha)`
/// (`solvers::inner::sgd::iteration_count`) with `L_lambda = L + lambda
/// R`, `m = mu + lambda`, Prop 2.7's `lambda` and Thm C.1's `alpha` (ERM
/// form). With `mu = 0` (`geometric_median`, every Algorithm 7 + SGD study)
/// `L` and `R` cancel, so they are taken as 1 and `T` is about `2 (n/s)^2`
/// times `(1 + s)^2` for pure DP: 2.9 n^2 at `d = 5`, `eps = 1`, 3.6e-3 n^2
/// with `delta = 1e-6` (the stored counts of the quick cells, e.g. 1.272e7
/// at `n = 2000` pure and 1.288e7 at `n = 40000` Gaussian). The former
/// `n^2 d` read 0.40 and 3.2 of the two on the default profile.
fn thm_c_1_sgd_steps(v: &CostPoint, n: f64, d: f64) -> f64 {
    let Privacy::Approx(privacy) = v.privacy else {
        return n * n;
    };
    let mu = v.num("mu", 0.0).max(0.0);
    let c = ProblemConstants {
        lipschitz: 1.0,
        smoothness: f64::INFINITY,
        strong_convexity: mu,
        radius: 1.0,
    };
    let at = Setting {
        n: n as usize,
        d: d as usize,
        privacy,
    };
    match (lambda_prop_2_7(&c, &at, Form::Erm), alpha_thm_c_1(&c, &at)) {
        (Ok(lambda), Ok(alpha)) => steps_for_accuracy(1.0 + lambda, mu + lambda, alpha),
        _ => n * n,
    }
}

/// The cost variant of `op_black_box` (`contract::AlgorithmDef::cost_variant`):
/// SGD's steps of `O(d)` are priced apart from the other inner solvers'
/// passes, whose per-operation cost the shared constant was fitted on.
pub(crate) fn black_box_variant(v: &CostPoint, _: &FamilyWork) -> &'static str {
    if v.choice("inner") == "sgd" {
        "sgd"
    } else {
        ""
    }
}

/// The cost variant of `op_regularized`: SGD in the black-box mode, as
/// [`black_box_variant`].
pub(crate) fn regularized_variant(v: &CostPoint, _: &FamilyWork) -> &'static str {
    if v.choice("mode") == "black_box" && v.choice("inner") == "sgd" {
        "sgd"
    } else {
        ""
    }
}

/// `op_black_box`: Algorithm 1 with its inner solver.
pub(crate) fn black_box(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    inner_solver_work(v, w, true)
}

/// `op_regularized`: exact (conceptual) or by the inner solver (black box).
pub(crate) fn regularized(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    inner_solver_work(v, w, v.choice("mode") == "black_box")
}

/// `adversarial_black_box`: certified gradient descent, about `(1/mu) log n`
/// passes.
pub(crate) fn adversarial(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let mu = v.num("mu", 0.1).max(1e-12);
    (w.n * w.d * w.n.max(2.0).log2() / mu, 16.0 * w.d)
}

/// \[ZZMW17\]: `T = ceil(kappa ln(...))` full gradients.
pub(crate) fn zzmw17(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let kappa = v.num("kappa", 1.0).max(1.0);
    (w.n * w.d * kappa * w.n.max(2.0).log2(), 16.0 * w.d)
}

/// \[BST14\]: `T = n^2` steps on Poisson batches of expected size `b`.
pub(crate) fn noisy_sgd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.n * v.num("expected_batch", 1.0) * w.d, 16.0 * w.d)
}

/// Noisy GD: one pass for the mean, then `T` closed-form gradients of `d`.
pub(crate) fn noisy_gd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.d + v.num("steps", 100.0) * w.d, 16.0 * w.d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::{Value, Values};
    use datagen::geometric_median::{GeometricMedian, GeometricMedianParams};
    use datagen::sphere_atoms::SphereLayout;
    use dpcore::{Objective, PrivacyParams};
    use rand::SeedableRng;
    use solvers::inner::regularized::Regularized;
    use solvers::inner::sgd::iteration_count;
    use solvers::lowy_razaviyayn::regularized::{
        prescribed_alpha, Calibration, RegularizedOutputPerturbation,
    };
    use solvers::output_perturbation::SensitivityChoice;

    /// The solver's own count: Algorithm 7's `lambda` and `alpha` on a
    /// generated `geometric_median`, then Algorithm 2's `T`.
    fn solver_steps(n: usize, d: usize, privacy: PrivacyParams) -> f64 {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let params = GeometricMedianParams {
            n,
            d,
            p: 0.75,
            layout: SphereLayout::Antipodal,
        };
        let problem = GeometricMedian::generate(params, &mut rng);
        let op = RegularizedOutputPerturbation::prescribed(
            &problem,
            privacy,
            SensitivityChoice::Paper,
            Calibration::Corrected,
        )
        .unwrap();
        let alpha = prescribed_alpha(&problem, privacy).unwrap();
        let reg = Regularized::new(&problem as &dyn Objective, op.lambda);
        iteration_count(&reg, alpha).unwrap() as f64
    }

    fn point_steps(n: usize, d: usize, privacy: PrivacyParams) -> f64 {
        let problem: Values = [("n", n as f64), ("d", d as f64)]
            .into_iter()
            .map(|(k, x)| (k.to_string(), Value::Num(x)))
            .collect();
        let options = Values::new();
        let v = CostPoint {
            problem: &problem,
            options: &options,
            privacy: Privacy::Approx(privacy),
        };
        thm_c_1_sgd_steps(&v, n as f64, d as f64)
    }

    /// The plan's Algorithm 7 + SGD count is the solver's (up to its
    /// ceiling), pure and Gaussian, where they differ by a factor of about
    /// 800 at the same `n`: a formula that ignored `alpha` (the former
    /// `n^2 d`) fails here.
    #[test]
    fn algorithm_7_sgd_steps_are_the_solvers() {
        for (n, d, eps, delta) in [
            (500, 5, 1.0, 0.0),
            (2000, 5, 1.0, 0.0),
            (3000, 16, 1.0, 0.0),
            (10_000, 5, 1.0, 1e-6),
            (40_000, 5, 1.0, 1e-6),
        ] {
            let privacy = PrivacyParams { eps, delta };
            let (plan, solver) = (point_steps(n, d, privacy), solver_steps(n, d, privacy));
            assert!(
                (solver - plan).abs() <= 1.0 + 1e-9 * solver,
                "n = {n}, d = {d}, delta = {delta}: plan {plan}, solver {solver}"
            );
        }
    }
}
