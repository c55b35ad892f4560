//! NSGD on the Moreau envelope and `A_ProxGD` (Bassily et al. Theorem 4.4,
//! Fact 4.6) on the E3 objective (coordinate absolute deviation) of the
//! digest: clip, inexact prox accuracy, coupled agreement, bound.

mod bassily_sgd_common;

use bassily_sgd_common::{distance, e3_prox_setting, mean_and_se, point, CoordAbs, LinBall, Z_1E6};
use dpcore::{Objective, PrivacyParams, RunFailure};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::sgd::bounds::b_moreau_unconstrained;
use solvers::bassily::sgd::prox::{InexactProx, ProxScratch};
use solvers::bassily::sgd::{Nsgd, NsgdVariant};

/// An E3 objective whose envelope oracle ignores its Lipschitz bound: the
/// gradient is `scale` times the honest one.
struct Inflated(CoordAbs, f64);

impl dpcore::RecordEnvelope for Inflated {
    fn record_envelope_gradient(&self, i: usize, beta: f64, w: &[f64], out: &mut [f64]) {
        let (j, s) = self.0.records[i];
        out.iter_mut().for_each(|o| *o = 0.0);
        out[j] = self.1 * s;
        let _ = (beta, w);
    }
    fn envelope_value(&self, beta: f64, w: &[f64]) -> f64 {
        self.0.envelope_value(beta, w)
    }
}

#[test]
fn moreau_clip_bounds_every_record_contribution() {
    let mut rng = Pcg64::seed_from_u64(9);
    let rho = vec![1.0, -1.0, 1.0];
    let base = CoordAbs::sample(500, 3, 0.5, rho, &mut rng);
    let p = PrivacyParams::approx(1.0, 1e-6);
    let moreau = Nsgd {
        variant: NsgdVariant::MoreauEnvelope,
        ..Nsgd::default()
    };
    let plan = moreau.plan(&base, p).unwrap();
    assert_eq!(plan.noise.clip, 1.0);
    // Two oracles that return +-e_j with norm 1 (honest) and 1000 (broken):
    // after clipping to C = L = 1 they coincide, so equal seeds give equal releases.
    let run = |scale: f64| {
        let obj = EnvelopeOnly(Inflated(clone_coord(&base), scale));
        moreau
            .run_planned(&obj, &plan, &mut Pcg64::seed_from_u64(1))
            .unwrap()
            .w
    };
    let (honest, broken) = (run(1.0), run(1000.0));
    for (a, b) in honest.iter().zip(&broken) {
        assert!((a - b).abs() <= 1e-13, "{a} vs {b}");
    }
    // A_ProxGD clips to L (1 + 1/n).
    let prox_plan = Nsgd {
        variant: NsgdVariant::ProxGd,
        ..Nsgd::default()
    }
    .plan(
        &CoordAbs::sample(40, 2, 0.5, vec![1.0, 1.0], &mut rng),
        PrivacyParams::approx(1.0, 5e-4),
    )
    .unwrap();
    assert!((prox_plan.noise.clip - 1.025).abs() < 1e-15);
    // No envelope: an error, not a silent fallback.
    let lin = LinBall::sample(100, 2, 0.5, &mut rng);
    assert!(matches!(
        moreau.plan(&lin, p),
        Err(RunFailure::InvalidParameters(_))
    ));
}

fn clone_coord(c: &CoordAbs) -> CoordAbs {
    CoordAbs {
        records: c.records.clone(),
        rho: c.rho.clone(),
        r: c.r,
        d: c.d,
        lipschitz: c.lipschitz,
        radius: c.radius,
        minimizer: c.minimizer.clone(),
    }
}

/// Wraps [`Inflated`] as an objective whose envelope is the inflated one.
struct EnvelopeOnly(Inflated);

impl Objective for EnvelopeOnly {
    fn dim(&self) -> usize {
        self.0 .0.dim()
    }
    fn num_records(&self) -> usize {
        self.0 .0.num_records()
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.0 .0.value(w)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        self.0 .0.gradient(w, out)
    }
    fn constants(&self) -> dpcore::ProblemConstants {
        self.0 .0.constants()
    }
    fn minimizer(&self) -> &[f64] {
        self.0 .0.minimizer()
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.0 .0.excess_risk(w)
    }
    fn minimizer_sensitivity(&self) -> dpcore::MinimizerSensitivity {
        self.0 .0.minimizer_sensitivity()
    }
    fn envelope(&self) -> Option<&dyn dpcore::RecordEnvelope> {
        Some(&self.0)
    }
}

#[test]
fn inexact_prox_is_within_l_over_n_of_the_closed_form() {
    let (obj, plan) = e3_prox_setting();
    let (n, d) = (obj.num_records(), obj.dim());
    let beta = plan.envelope_smoothness.unwrap();
    let prox = InexactProx {
        records: &obj,
        beta,
        lipschitz: 1.0,
        iterations: plan.inner_iterations.unwrap(),
    };
    let mut scratch = ProxScratch::new(d);
    let (mut exact, mut approx) = (vec![0.0; d], vec![0.0; d]);
    let env = obj.envelope().unwrap();
    for k in 0..20 {
        let w = [0.9 * (k as f64 / 10.0 - 1.0), 0.05 * k as f64 - 0.4];
        for i in [0, 7, 23] {
            env.record_envelope_gradient(i, beta, &w, &mut exact);
            prox.envelope_gradient(i, &w, &mut approx, &mut scratch);
            let err = distance(&exact, &approx);
            // Fact 4.6 (corrected): ||grad_hat - grad|| <= beta xi = L/n.
            assert!(err <= 1.0 / n as f64, "w = {w:?}, i = {i}: {err}");
        }
    }
}

#[test]
fn coupled_proxgd_and_moreau_runs_agree_within_the_error_argument() {
    let (n, d) = (40, 2);
    let mut rng = Pcg64::seed_from_u64(17);
    let obj = CoordAbs::sample(n, d, 0.3, vec![1.0, -1.0], &mut rng);
    let p = PrivacyParams::approx(1.0, 5e-4);
    let prox_gd = Nsgd {
        variant: NsgdVariant::ProxGd,
        ..Nsgd::default()
    };
    let plan = prox_gd.plan(&obj, p).unwrap();
    let moreau = Nsgd {
        variant: NsgdVariant::MoreauEnvelope,
        ..prox_gd
    };
    for seed in 0..3 {
        let a = prox_gd
            .run_planned(&obj, &plan, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        let b = moreau
            .run_planned(&obj, &plan, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        let (s, beta) = (plan.schedule, plan.envelope_smoothness.unwrap());
        let m = s.batch as f64;
        // Same batches: evaluation counts agree up to the inner iterations per prox.
        assert_eq!(
            a.gradient_evaluations,
            b.gradient_evaluations * plan.inner_iterations.unwrap()
        );
        // Steps on the batch objective are non-expansive when eta beta |B|/m <= 2;
        // then ||w_t - w'_t|| <= sum_t eta |B_t| (L/n)/m, and so is the averages' distance.
        assert!(s.step_size * beta * b.largest_batch as f64 / m <= 2.0);
        let bound = s.step_size * b.gradient_evaluations as f64 / (m * n as f64);
        let dist =
            a.w.iter()
                .zip(&b.w)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
        assert!(dist <= bound, "seed {seed}: {dist} > {bound}");
        assert!(dist > 0.0);
    }
}

#[test]
fn moreau_nsgd_on_coordinate_abs_respects_14_mlr() {
    let (n, d, eps, delta, r) = (4000, 4, 1.0, 1e-6, 0.3);
    let p = PrivacyParams::approx(eps, delta);
    let moreau = Nsgd {
        variant: NsgdVariant::MoreauEnvelope,
        ..Nsgd::default()
    };
    let mut rng = Pcg64::seed_from_u64(19);
    let rho = vec![1.0, -1.0, -1.0, 1.0];
    let xs: Vec<f64> = (0..40)
        .map(|_| {
            let obj = CoordAbs::sample(n, d, r, rho.clone(), &mut rng);
            let out = moreau.run(&obj, p, &mut rng).unwrap();
            obj.population_excess(&out.w).unwrap()
        })
        .collect();
    let (mean, se) = mean_and_se(&xs);
    // z-test at false-alarm rate 1e-6 of E[excess] <= 14 M L R.
    assert!(
        mean - Z_1E6 * se <= b_moreau_unconstrained(&point(n, d, eps, delta)),
        "{mean}"
    );
    assert!(mean > 0.0);
}

#[test]
fn proxgd_refuses_outside_fact_4_6_and_above_the_cost_cap_and_plans_must_match() {
    let mut rng = Pcg64::seed_from_u64(23);
    let prox_gd = Nsgd {
        variant: NsgdVariant::ProxGd,
        ..Nsgd::default()
    };
    let p = PrivacyParams::approx(1.0, 5e-4);
    // n = 12 < 16: beta_env = (L/M) sqrt(12)/4 < L/M, outside Fact 4.6.
    let small = CoordAbs::sample(12, 1, 0.3, vec![1.0], &mut rng);
    assert!(matches!(
        prox_gd.plan(&small, p),
        Err(RunFailure::InvalidParameters(_))
    ));
    // n = 2000: T m d ceil(36 M^2/xi^2) is far above MAX_PROX_WORK.
    let big = CoordAbs::sample(2000, 2, 0.3, vec![1.0, 1.0], &mut rng);
    let err = prox_gd
        .plan(&big, PrivacyParams::approx(1.0, 1e-7))
        .unwrap_err();
    assert!(format!("{err}").contains("A_ProxGD would cost"), "{err}");
    // A plan for one problem size cannot be run on another.
    let moreau = Nsgd {
        variant: NsgdVariant::MoreauEnvelope,
        ..Nsgd::default()
    };
    let plan = moreau.plan(&big, PrivacyParams::approx(1.0, 1e-7)).unwrap();
    let other = CoordAbs::sample(1999, 2, 0.3, vec![1.0, 1.0], &mut rng);
    assert!(moreau.run_planned(&other, &plan, &mut rng).is_err());
    // The smooth variant's plan has no beta_env, so the envelope variant refuses it.
    let smooth_plan = Nsgd::default()
        .plan(&big, PrivacyParams::approx(1.0, 1e-7))
        .unwrap();
    assert!(moreau.run_planned(&big, &smooth_plan, &mut rng).is_err());
    assert!(!smooth_plan.smoothness_condition_holds);
}

/// On a linear loss (datagen's LinBall) the envelope gradient is the loss's
/// gradient, so NSGD on the envelope must release A_NSGD's point bit for
/// bit from the same seed: the same schedule (Theorem 3.2's `T, m, eta`),
/// the same noise and the same steps. This is what lets `bftt_e1_moreau_d`
/// measure Theorem 4.4's d-rate on the instance that attains it; an
/// envelope oracle with a wrong sign or scale would break the equality.
#[test]
fn moreau_on_a_linear_loss_takes_nsgd_steps() {
    use datagen::bassily::{LinBall as DataLinBall, LinBallParams};
    let params = LinBallParams::new(3_000, 24, 0.2);
    let problem = DataLinBall::generate(params, &mut Pcg64::seed_from_u64(4)).unwrap();
    let p = PrivacyParams::approx(0.5, 1e-9);
    let release = |variant: NsgdVariant| {
        let algorithm = Nsgd {
            variant,
            ..Nsgd::default()
        };
        let plan = algorithm.plan(&problem, p).unwrap();
        let r = algorithm
            .run_planned(&problem, &plan, &mut Pcg64::seed_from_u64(77))
            .unwrap();
        (plan.schedule.steps, r.w)
    };
    let (smooth, moreau) = (
        release(NsgdVariant::Smooth),
        release(NsgdVariant::MoreauEnvelope),
    );
    assert!(smooth.0 > 1);
    assert_eq!(smooth.0, moreau.0);
    let bits = |w: &[f64]| w.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&smooth.1), bits(&moreau.1));
    assert!(smooth.1.iter().any(|v| *v != 0.0));
}
