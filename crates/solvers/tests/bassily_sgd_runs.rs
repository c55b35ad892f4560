//! Runs of Bassily et al.'s `A_NSGD`, NSGD on the Moreau envelope,
//! `A_ProxGD` and one-pass SGD on the E1 (linear loss on the ball) and E3
//! (coordinate absolute deviation) objectives of the digest.

mod bassily_sgd_common;

use bassily_sgd_common::{CoordAbs, LinBall};
use dpcore::{Neighbouring, Objective, PrivacyParams, RunFailure};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::sgd::bounds::{
    b_moreau_unconstrained, b_nsgd, b_nsgd_implemented, CurvePoint,
};
use solvers::bassily::sgd::prox::{InexactProx, ProxScratch};
use solvers::bassily::sgd::{
    one_pass_sgd, one_pass_sgd_bound, NoiseCalibration, Nsgd, NsgdVariant,
};

/// One-sided z quantile for a false-alarm rate of 1e-6 (normal approximation
/// of a mean of bounded i.i.d. excesses).
const Z_1E6: f64 = 4.753;

fn mean_and_se(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

fn point(n: usize, d: usize, eps: f64, delta: f64) -> CurvePoint {
    CurvePoint {
        n: n as f64,
        d: d as f64,
        eps,
        delta,
        radius: 1.0,
        lipschitz: 1.0,
    }
}

/// Mean population excess of `nsgd` over `reps` fresh (data, coins) draws.
fn linball_excesses(
    nsgd: &Nsgd,
    n: usize,
    d: usize,
    r: f64,
    p: PrivacyParams,
    reps: usize,
    seed: u64,
) -> Vec<f64> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..reps)
        .map(|_| {
            let obj = LinBall::sample(n, d, r, &mut rng);
            let out = nsgd.run(&obj, p, &mut rng).unwrap();
            obj.population_excess(&out.w).unwrap()
        })
        .collect()
}

#[test]
fn nsgd_on_linball_respects_b_nsgd_and_improves_with_n() {
    let (d, eps, delta, r) = (8, 1.0, 1e-6, 0.1);
    let p = PrivacyParams::approx(eps, delta);
    for calibration in [NoiseCalibration::Paper, NoiseCalibration::Accountant] {
        let nsgd = Nsgd {
            calibration,
            ..Nsgd::default()
        };
        let n = 2000;
        let xs = linball_excesses(&nsgd, n, d, r, p, 40, 11);
        let (mean, se) = mean_and_se(&xs);
        let plan = nsgd
            .plan(&LinBall::sample(n, d, r, &mut Pcg64::seed_from_u64(0)), p)
            .unwrap();
        let s = plan.schedule;
        let bound = b_nsgd_implemented(
            &point(n, d, eps, delta),
            s.step_size,
            s.steps,
            s.batch,
            plan.noise.sigma,
        );
        // One-sided z-test of E[excess] <= bound at false-alarm rate 1e-6.
        assert!(
            mean - Z_1E6 * se <= bound,
            "{calibration:?}: {mean} +- {se} vs {bound}"
        );
        if calibration == NoiseCalibration::Paper {
            assert!(mean - Z_1E6 * se <= b_nsgd(&point(n, d, eps, delta), s.steps));
        }
        // 8x more records: the excess must drop (z-test on the difference at 1e-6).
        let big = 16000;
        let ys = linball_excesses(&nsgd, big, d, r, p, 40, 12);
        let (mean_big, se_big) = mean_and_se(&ys);
        let gap = mean - mean_big;
        assert!(
            gap > Z_1E6 * (se * se + se_big * se_big).sqrt(),
            "{mean} vs {mean_big}"
        );
    }
}

#[test]
fn release_reports_schedule_noise_and_evaluation_counts() {
    let mut rng = Pcg64::seed_from_u64(3);
    let obj = LinBall::sample(1000, 4, 0.2, &mut rng);
    let p = PrivacyParams::approx(0.5, 1e-6);
    let nsgd = Nsgd {
        relation: Neighbouring::AddRemove,
        ..Nsgd::default()
    };
    let out = nsgd.run(&obj, p, &mut rng).unwrap();
    let plan = out.plan;
    assert_eq!(
        (out.steps, out.batch),
        (plan.schedule.steps, plan.schedule.batch)
    );
    assert_eq!(
        out.theory_gradient_evaluations,
        out.steps * out.batch as u64
    );
    assert!(out.realised_eps <= 0.5 && out.realised_eps > 0.48);
    assert!((out.noise_multiplier * 1.0 / out.batch as f64 - out.sigma).abs() < 1e-15);
    // Poisson batches: sum of T Binomial(n, m/n) sizes, mean T m, sd sqrt(T m); 6 sd.
    let tm = out.theory_gradient_evaluations as f64;
    assert!((out.gradient_evaluations as f64 - tm).abs() < 6.0 * tm.sqrt());
    assert!(out.w.iter().map(|v| v * v).sum::<f64>() <= 1.0 + 1e-12);
}

#[test]
fn trivial_regime_outputs_the_origin_without_touching_data() {
    let mut rng = Pcg64::seed_from_u64(5);
    let obj = LinBall::sample(10, 100, 0.5, &mut rng);
    let out = Nsgd::default()
        .run(&obj, PrivacyParams::approx(0.1, 1e-4), &mut rng)
        .unwrap();
    assert!(out.plan.schedule.trivial);
    assert_eq!(out.w, vec![0.0; 100]);
    assert_eq!(
        (out.steps, out.gradient_evaluations, out.realised_eps),
        (0, 0, 0.0)
    );
}

#[test]
fn one_pass_sgd_meets_ml_over_sqrt_n() {
    let (n, d, r) = (1000, 8, 0.3);
    let mut rng = Pcg64::seed_from_u64(7);
    let xs: Vec<f64> = (0..40)
        .map(|_| {
            let obj = LinBall::sample(n, d, r, &mut rng);
            obj.population_excess(&one_pass_sgd(&obj).unwrap()).unwrap()
        })
        .collect();
    let (mean, se) = mean_and_se(&xs);
    // z-test at false-alarm rate 1e-6 of E[excess] <= M L/sqrt(n).
    assert!(
        mean - Z_1E6 * se <= one_pass_sgd_bound(1.0, 1.0, n),
        "{mean}"
    );
    // Hand check on two records: w_0 = 0, w_1 = eta z_1, output (w_0 + w_1)/2.
    let obj = LinBall::from_records(vec![vec![0.6, 0.8], vec![1.0, 0.0]], 0.5);
    let w = one_pass_sgd(&obj).unwrap();
    let eta = 1.0 / 2f64.sqrt();
    assert!((w[0] - 0.3 * eta).abs() < 1e-15 && (w[1] - 0.4 * eta).abs() < 1e-15);
}

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
    let (n, d) = (40, 2);
    let mut rng = Pcg64::seed_from_u64(13);
    let obj = CoordAbs::sample(n, d, 0.3, vec![1.0, -1.0], &mut rng);
    let p = PrivacyParams::approx(1.0, 5e-4);
    let plan = Nsgd {
        variant: NsgdVariant::ProxGd,
        ..Nsgd::default()
    }
    .plan(&obj, p)
    .unwrap();
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
            let err = exact
                .iter()
                .zip(&approx)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
                .sqrt();
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
