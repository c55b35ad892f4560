//! Tests of the SCO diagonal quadratic (digest §8 E3): exact empirical ground
//! truth and the closed-form population quantities against Monte Carlo.
//! Statistical checks use fixed seeds and state their false-alarm rates.

mod common;

use common::{assert_record_gradients_average_to, rng};
use datagen::newton::norm2;
use datagen::sco_quadratic::{ScoQuadratic, ScoQuadraticParams};
use datagen::DiagonalQuadraticParams;
use dpcore::Objective;

fn instance(n: usize, d: usize, seed: u64) -> ScoQuadratic {
    ScoQuadratic::generate(ScoQuadraticParams::new(n, d, 2.0, 4.0), &mut rng(seed)).unwrap()
}

/// Mean and standard error of a sample.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

#[test]
fn validation_and_data_support() {
    let mut p = ScoQuadraticParams::new(10, 3, 1.0, 2.0);
    assert!(p.validate().is_ok());
    p.r0 = 0.71;
    assert!(p.validate().is_err(), "center + r0 > 1");
    p.r0 = 0.0;
    assert!(p.validate().is_err());
    assert!(ScoQuadraticParams::new(10, 3, 1.0, 0.5).validate().is_err());
    // Boundary case center + r0 = 1: every record in B(m, r0) and in the unit ball.
    let q = ScoQuadratic::generate(
        ScoQuadraticParams {
            center: 0.5,
            r0: 0.5,
            ..ScoQuadraticParams::new(20_000, 3, 1.0, 2.0)
        },
        &mut rng(4),
    )
    .unwrap();
    for i in 0..20_000 {
        let x = q.record(i);
        let dm = ((x[0] - 0.5).powi(2) + x[1] * x[1] + x[2] * x[2]).sqrt();
        assert!(norm2(x) <= 1.0 && dm <= 0.5 + 1e-15);
    }
}

#[test]
fn empirical_ground_truth_is_the_mean() {
    let q = instance(1_000, 4, 7);
    let h = DiagonalQuadraticParams {
        n: 1_000,
        d: 4,
        beta: 2.0,
        kappa: 4.0,
    }
    .hessian_diagonal();
    assert_eq!(q.hessian_diagonal(), &h[..]);
    assert_eq!(h, vec![0.5, 1.0, 1.5, 2.0]);
    let mut mean = [0.0; 4];
    (0..1_000).for_each(|i| {
        mean.iter_mut()
            .zip(q.record(i))
            .for_each(|(m, x)| *m += x / 1e3)
    });
    assert!(mean
        .iter()
        .zip(q.minimizer())
        .all(|(a, b)| (a - b).abs() < 1e-15));
    let mut g = [0.0; 4];
    q.gradient(q.minimizer(), &mut g);
    assert!(norm2(&g) < 1e-15);
    let w = [0.2, -0.5, 0.9, 0.1];
    let direct = q.value(&w) - q.value(q.minimizer());
    assert!((q.excess_risk(&w) - direct).abs() < 1e-13);
    let fs = q.finite_sum().unwrap();
    q.gradient(&w, &mut g);
    assert_record_gradients_average_to(fs, 1_000, &w, &g, 1e-13);
}

#[test]
fn constants_sensitivity_and_trace() {
    let q = instance(500, 4, 1);
    let c = q.constants();
    assert_eq!(
        (c.lipschitz, c.smoothness, c.strong_convexity, c.radius),
        (4.0, 2.0, 0.5, 1.0)
    );
    let s = q.minimizer_sensitivity();
    assert_eq!(s.tight, 2.0 * 0.5 / 500.0);
    assert_eq!(s.paper, 2.0 * 4.0 / (0.5 * 500.0));
    assert_eq!(q.hessian_trace(), Some(5.0));
    // tr(H Sigma)/(2n) = 5 * 0.25/6 / 1000.
    let e = q.expected_minimizer_population_excess().unwrap();
    assert!((e - 5.0 * 0.25 / 6.0 / 1000.0).abs() < 1e-18);
}

/// Population law of one large sample (400k records, d = 4): the mean is `m`,
/// the per-coordinate variance `r0^2/(d+2)`, and the average of
/// `f(w, x) - f(m, x)` is `population_excess(w)`. Each comparison allows
/// 5 standard errors (false-alarm rate < 1e-6 per check, CLT).
#[test]
fn population_excess_matches_monte_carlo() {
    let n = 400_000;
    let q = instance(n, 4, 99);
    let h = q.hessian_diagonal().to_vec();
    let m = q.population_minimizer().to_vec();
    assert_eq!(m, vec![0.3, 0.0, 0.0, 0.0]);
    for (j, &mj) in m.iter().enumerate() {
        let xs: Vec<f64> = (0..n).map(|i| q.record(i)[j]).collect();
        let (mean, se) = mean_se(&xs);
        assert!((mean - mj).abs() < 5.0 * se, "coordinate {j}: mean {mean}");
        let sq: Vec<f64> = xs.iter().map(|x| (x - mj).powi(2)).collect();
        let (var, se) = mean_se(&sq);
        assert!(
            (var - q.population_variance()).abs() < 5.0 * se,
            "coordinate {j}: var {var}"
        );
    }
    let f = |w: &[f64], x: &[f64]| -> f64 {
        0.5 * h
            .iter()
            .zip(w.iter().zip(x))
            .map(|(hj, (a, b))| hj * (a - b) * (a - b))
            .sum::<f64>()
    };
    for w in [
        [0.1, 0.2, -0.3, 0.0],
        [0.3, 0.0, 0.0, 0.5],
        [-0.5, 0.4, 0.4, 0.4],
    ] {
        let diffs: Vec<f64> = (0..n)
            .map(|i| f(&w, q.record(i)) - f(&m, q.record(i)))
            .collect();
        let (mc, se) = mean_se(&diffs);
        let exact = q.population_excess(&w).unwrap();
        assert!(
            (mc - exact).abs() < 5.0 * se,
            "{w:?}: {mc} vs {exact} (se {se})"
        );
    }
    assert_eq!(q.population_excess(&m), Some(0.0));
}

/// `E[population_excess(x_bar)] = tr(H Sigma)/(2n)` over 4000 data sets of
/// n = 20 (5 standard errors, false-alarm rate < 1e-6 by the CLT).
#[test]
fn expected_minimizer_excess_matches_monte_carlo() {
    let mut r = rng(5);
    let p = ScoQuadraticParams::new(20, 3, 2.0, 4.0);
    let reps: Vec<f64> = (0..4_000)
        .map(|_| {
            let q = ScoQuadratic::generate(p, &mut r).unwrap();
            q.population_excess(q.minimizer()).unwrap()
        })
        .collect();
    let (mc, se) = mean_se(&reps);
    let q = ScoQuadratic::generate(p, &mut r).unwrap();
    let exact = q.expected_minimizer_population_excess().unwrap();
    assert!((mc - exact).abs() < 5.0 * se, "{mc} vs {exact} (se {se})");
}
