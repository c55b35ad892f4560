//! Full-batch noisy GD on logistic regression (`solvers::full_batch_gd`):
//! without noise it is plain clipped GD (checked against a direct serial
//! implementation), the result does not depend on the thread count, the
//! noise is the GDP accountant's, and bad input is refused.

use dpcore::{PrivacyParams, RunFailure};
use mechanisms::gdp::{gdp_delta, gdp_mu};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use solvers::full_batch_gd::{FullBatchNoisyGd, LogisticRows, BLOCK_ROWS};

/// `n x d` rows uniform in a ball of radius `radius` (direction and radius
/// drawn crudely; only the norms matter) and ±1 labels.
fn data(n: usize, d: usize, radius: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n * d);
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        let r = radius * rng.random::<f64>();
        x.extend(row.iter().map(|v| v / norm * r));
    }
    let y = (0..n)
        .map(|i| {
            if (x[i * d] + 0.3 * rng.random::<f64>() - 0.15) > 0.0 {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    (x, y)
}

/// Plain clipped GD written directly from the definition, one record at a time.
fn reference_gd(x: &[f64], y: &[f64], d: usize, gd: &FullBatchNoisyGd) -> Vec<f64> {
    let n = y.len();
    let mut w = vec![0.0; d];
    for _ in 0..gd.steps {
        let mut g = vec![0.0; d];
        for (row, &yi) in x.chunks_exact(d).zip(y) {
            let margin: f64 = row.iter().zip(&w).map(|(a, b)| a * b).sum();
            let u = -yi * margin;
            let coef = -yi / (1.0 + (-u).exp());
            let mut grad: Vec<f64> = row.iter().map(|v| coef * v).collect();
            let norm = grad.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > gd.clip {
                grad.iter_mut().for_each(|v| *v *= gd.clip / norm);
            }
            g.iter_mut()
                .zip(&grad)
                .for_each(|(a, b)| *a += b / n as f64);
        }
        for (wj, gj) in w.iter_mut().zip(&g) {
            *wj -= gd.step_size * (gj + gd.l2 * *wj);
        }
    }
    w
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(u, v)| (u - v).abs())
        .fold(0.0, f64::max)
}

#[test]
fn noiseless_run_is_plain_gradient_descent() {
    // n below, at and above one block, and rows that need clipping (radius 3).
    for (n, d, radius, clip) in [
        (37, 5, 1.0, 1.0),
        (BLOCK_ROWS, 3, 1.0, 1.0),
        (1_000, 7, 3.0, 0.5),
    ] {
        let (x, y) = data(n, d, radius, n as u64);
        let rows = LogisticRows::new(&x, &y, d).unwrap();
        let gd = FullBatchNoisyGd {
            clip,
            ..FullBatchNoisyGd::logistic(40, 0.05)
        };
        let run = gd
            .run_with_sigma(&rows, 0.0, &mut Pcg64::seed_from_u64(1))
            .unwrap();
        let expect = reference_gd(&x, &y, d, &gd);
        assert!(
            max_diff(&run.w, &expect) <= 1e-12,
            "n = {n}: {:?} vs {expect:?}",
            run.w
        );
        assert_eq!(run.gradient_evaluations, 40 * n as u64);
        assert_eq!(run.clipped_records > 0, radius > clip);
        assert!(run.w.iter().any(|v| v.abs() > 1e-3), "the iterate moved");
    }
}

#[test]
fn result_does_not_depend_on_the_thread_count() {
    let (n, d) = (3 * BLOCK_ROWS + 17, 6);
    let (x, y) = data(n, d, 1.0, 9);
    let gd = FullBatchNoisyGd::logistic(25, 0.01);
    let privacy = PrivacyParams::approx(1.0, 1e-6);
    let runs: Vec<Vec<f64>> = [1, 2, 3]
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap();
            pool.install(|| {
                let rows = LogisticRows::new(&x, &y, d).unwrap();
                gd.run(&rows, privacy, &mut Pcg64::seed_from_u64(4))
                    .unwrap()
                    .0
                    .w
            })
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

#[test]
fn noise_is_the_gdp_accountants() {
    let (n, steps, eps, delta) = (5_000usize, 64u64, 0.7, 1e-7);
    let gd = FullBatchNoisyGd::logistic(steps, 0.1);
    let cal = gd.calibrate(n, PrivacyParams::approx(eps, delta)).unwrap();
    let mu = gdp_mu(eps, delta).unwrap();
    assert_eq!(cal.sensitivity, 2.0 / n as f64);
    assert_eq!(cal.gdp_mu, mu);
    assert!((cal.sigma - 2.0 / n as f64 * 8.0 / mu).abs() <= 1e-15 * cal.sigma);
    // The realised run is (eps, delta)-DP and tight: T steps of Delta/sigma-GDP.
    let realised_mu = (steps as f64).sqrt() * cal.sensitivity / cal.sigma;
    let realised_delta = gdp_delta(realised_mu, eps).unwrap();
    assert!(realised_delta <= delta * (1.0 + 1e-9) && realised_delta > 0.99 * delta);
    assert!(cal.realised_eps <= eps * (1.0 + 1e-12) && cal.realised_eps > 0.999 * eps);

    // The drawn noise has that standard deviation: one step of size 1 from
    // w = 0 with lambda = 0 releases w_1 = -(g(0) + z), and g(0) is the
    // noiseless step. 400 seeds x 4 coordinates: the sample variance of 1600
    // N(0, sigma^2) draws is within 5 standard errors (sqrt(2/1600)) of sigma^2.
    let (x, y) = data(200, 4, 1.0, 2);
    let rows = LogisticRows::new(&x, &y, 4).unwrap();
    let one = FullBatchNoisyGd {
        steps: 1,
        step_size: 1.0,
        clip: 1.0,
        l2: 0.0,
    };
    let sigma = one
        .calibrate(200, PrivacyParams::approx(1.0, 1e-5))
        .unwrap()
        .sigma;
    let plain = one
        .run_with_sigma(&rows, 0.0, &mut Pcg64::seed_from_u64(0))
        .unwrap()
        .w;
    let mut sum_sq = 0.0;
    for seed in 0..400 {
        let w = one
            .run(
                &rows,
                PrivacyParams::approx(1.0, 1e-5),
                &mut Pcg64::seed_from_u64(seed),
            )
            .unwrap()
            .0
            .w;
        sum_sq += w
            .iter()
            .zip(&plain)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>();
    }
    let ratio = sum_sq / 1600.0 / (sigma * sigma);
    assert!(
        (ratio - 1.0).abs() < 5.0 * (2.0f64 / 1600.0).sqrt(),
        "{ratio}"
    );
}

#[test]
fn bad_input_is_refused_with_a_clear_error() {
    let (x, y) = data(10, 2, 1.0, 1);
    let message = |r: Result<LogisticRows<'_>, RunFailure>| match r {
        Err(RunFailure::InvalidParameters(m)) => m,
        other => panic!("expected InvalidParameters, got {other:?}"),
    };
    assert!(message(LogisticRows::new(&x, &y[..9], 2)).contains("9 labels"));
    let mut y0 = y.clone();
    y0[3] = 0.0;
    assert!(message(LogisticRows::new(&x, &y0, 2)).contains("record 3"));
    let mut xn = x.clone();
    xn[5] = f64::NAN;
    assert!(message(LogisticRows::new(&xn, &y, 2)).contains("record 2"));
    assert!(LogisticRows::new(&x, &y, 0).is_err());

    let gd = FullBatchNoisyGd::logistic(10, 0.1);
    for privacy in [
        PrivacyParams::pure(1.0),
        PrivacyParams::approx(0.0, 1e-6),
        PrivacyParams::approx(1.0, 1.0),
        PrivacyParams::approx(f64::NAN, 1e-6),
    ] {
        assert!(matches!(
            gd.calibrate(10, privacy),
            Err(RunFailure::InvalidParameters(_))
        ));
    }
    assert!(gd.calibrate(0, PrivacyParams::approx(1.0, 1e-6)).is_err());
    let rows = LogisticRows::new(&x, &y, 2).unwrap();
    let mut rng = Pcg64::seed_from_u64(0);
    for bad in [
        FullBatchNoisyGd { steps: 0, ..gd },
        FullBatchNoisyGd {
            step_size: -1.0,
            ..gd
        },
        FullBatchNoisyGd { clip: 0.0, ..gd },
        FullBatchNoisyGd { l2: f64::NAN, ..gd },
    ] {
        assert!(bad.run_with_sigma(&rows, 0.1, &mut rng).is_err(), "{bad:?}");
    }
    assert!(gd.run_with_sigma(&rows, -1.0, &mut rng).is_err());
    assert!(gd.run_with_sigma(&rows, f64::INFINITY, &mut rng).is_err());
}
