//! Micro-benchmarks of digest §7.5 and the exact identities of §2 for the
//! Maurey sparsification primitives and log-domain multiplicative weights.
//!
//! Statistical tests use fixed seeds and z-tests at `|z| <= 5`
//! (two-sided false-alarm rate `5.7e-7` per test under a normal
//! approximation of a mean of `>= 20000` bounded draws); deterministic tests
//! use rounding tolerances.

use datagen::gonzalez::game::{GameNoise, SimplexGame};
use datagen::gonzalez::matrix::MeanMatrix;
use datagen::gonzalez::separable::{Potential, SeparablePenalty};
use dpcore::saddle::{SaddleProblem, SimplexPoint};
use rand::{Rng, RngExt, SeedableRng};
use rand_pcg::Pcg64;
use solvers::gonzalez::mw::{maurey_average, sample_sorted, LogWeights, SamplerScratch};

const Z: f64 = 5.0;

fn random_simplex<R: Rng>(d: usize, rng: &mut R) -> Vec<f64> {
    let v: Vec<f64> = (0..d).map(|_| -rng.random::<f64>().ln()).collect();
    let s: f64 = v.iter().sum();
    v.iter().map(|a| a / s).collect()
}

/// Mean and standard error of `f` over `reps` Maurey draws of size `k`.
fn mc<R: Rng>(
    p: &[f64],
    k: usize,
    reps: usize,
    rng: &mut R,
    f: impl Fn(&[f64]) -> f64,
) -> (f64, f64) {
    let (mut s, mut s2) = (0.0, 0.0);
    for _ in 0..reps {
        let v = f(&maurey_average(p, k, rng).to_dense(p.len()));
        s += v;
        s2 += v * v;
    }
    let m = s / reps as f64;
    (
        m,
        ((s2 / reps as f64 - m * m).max(0.0) / reps as f64).sqrt(),
    )
}

#[test]
fn sampler_matches_the_law_chi_square() {
    // Pearson chi-square, df = 4: P(X > 33.4) < 1e-6.
    let mut rng = Pcg64::seed_from_u64(11);
    let p = [0.05, 0.1, 0.2, 0.25, 0.4];
    let mut scratch = SamplerScratch::default();
    let mut counts = [0usize; 5];
    for _ in 0..2000 {
        sample_sorted(&p, 50, &mut rng, &mut scratch);
        assert!(scratch.draws.windows(2).all(|w| w[0] <= w[1]));
        scratch.draws.iter().for_each(|&i| counts[i] += 1);
    }
    let n = 100_000.0;
    let chi2: f64 = counts
        .iter()
        .zip(&p)
        .map(|(&c, &q)| (c as f64 - n * q).powi(2) / (n * q))
        .sum();
    assert!(chi2 < 33.4, "chi2 = {chi2}");
}

#[test]
fn log_weights_survive_huge_steps_and_recentring() {
    let mut w = LogWeights::uniform(3);
    for _ in 0..1000 {
        w.step(1.0, &[1e4, 1e4 - 2.0, -1e4]);
    }
    let mut p = [0.0; 3];
    w.probabilities_into(&mut p);
    // theta differences: 0, -2000, -2e7 -> probabilities 1, e^-2000 = 0, 0.
    assert_eq!(p, [1.0, 0.0, 0.0]);
    let mut w = LogWeights::uniform(2);
    w.step(1.0, &[700.0, 700.0 + 2f64.ln()]);
    w.probabilities_into(&mut p[..2]);
    // 700 + ln 2 is exact to ~1e-13 (ulp of 700), hence the tolerance.
    assert!((p[0] - 1.0 / 3.0).abs() < 1e-12 && (p[1] - 2.0 / 3.0).abs() < 1e-12);
}

#[test]
fn quadratic_maurey_bias_is_exactly_the_identity_and_scales_as_one_over_k() {
    // E F(x_K) - F(x) = (sum H_ii x_i - x^T H x) / (2K) for F = x^T H x / 2 (§2).
    let mut rng = Pcg64::seed_from_u64(12);
    let d = 6;
    let h: Vec<f64> = (0..d * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let x = random_simplex(d, &mut rng);
    let quad = |v: &[f64]| {
        (0..d)
            .map(|i| (0..d).map(|j| v[i] * h[i * d + j] * v[j]).sum::<f64>())
            .sum::<f64>()
            / 2.0
    };
    let fx = quad(&x);
    let diag: f64 = (0..d).map(|i| h[i * d + i] * x[i]).sum();
    for k in [1, 4, 16] {
        let exact = (diag - 2.0 * fx) / (2.0 * k as f64);
        let (m, se) = mc(&x, k, 40_000, &mut rng, |v| quad(v) - fx);
        assert!(
            (m - exact).abs() <= Z * se,
            "K = {k}: {m} vs {exact} (se {se})"
        );
        // Cor. 3.1: |bias| <= 2 L1 / K with L1 = max |H_ij| <= 1.
        assert!(exact.abs() <= 2.0 / k as f64);
    }
}

#[test]
fn cubic_gradient_bias_matches_identity_and_cor_d1() {
    // F = sum c_i x_i^3 / 6: E d_j F(x_K) - d_j F(x) = c_j x_j (1 - x_j) / (2K) <= 2 L2 / K.
    let mut rng = Pcg64::seed_from_u64(13);
    let d = 5;
    let c: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
    let x = random_simplex(d, &mut rng);
    let j = 2;
    for k in [1, 3, 9, 27] {
        let exact = c[j] * x[j] * (1.0 - x[j]) / (2.0 * k as f64);
        let (m, se) = mc(&x, k, 40_000, &mut rng, |v| {
            c[j] * v[j] * v[j] / 2.0 - c[j] * x[j] * x[j] / 2.0
        });
        assert!((m - exact).abs() <= Z * se, "K = {k}: {m} vs {exact}");
        assert!(exact.abs() <= 2.0 * 2.0 / k as f64);
    }
}

#[test]
fn bilinear_maurey_gradient_is_unbiased_and_huber_bias_obeys_cor_d2() {
    let mut rng = Pcg64::seed_from_u64(14);
    let (dx, dy) = (5, 4);
    let m = MeanMatrix::dense_uniform(dx, dy, 0.8, &mut rng);
    let huber = Potential::Huber { kappa: 0.25 };
    let game = SimplexGame::sample(
        m,
        GameNoise::None,
        Some(SeparablePenalty::uniform(huber, 1.0, dx)),
        None,
        1,
        &mut rng,
    );
    let c = game.constants();
    let (x, y) = (random_simplex(dx, &mut rng), random_simplex(dy, &mut rng));
    let (mut gx0, mut gy0) = (vec![0.0; dx], vec![0.0; dy]);
    game.population_gradient(
        SimplexPoint::Dense(&x),
        SimplexPoint::Dense(&y),
        &mut gx0,
        &mut gy0,
    );
    for k in [1, 4, 16] {
        let reps = 20_000;
        let (mut sx, mut sx2, mut sy, mut sy2) =
            (vec![0.0; dx], vec![0.0; dx], vec![0.0; dy], vec![0.0; dy]);
        let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
        for _ in 0..reps {
            let (hx, hy) = (
                maurey_average(&x, k, &mut rng),
                maurey_average(&y, k, &mut rng),
            );
            game.population_gradient(hx.point(), hy.point(), &mut gx, &mut gy);
            for i in 0..dx {
                sx[i] += gx[i] - gx0[i];
                sx2[i] += (gx[i] - gx0[i]).powi(2);
            }
            for i in 0..dy {
                sy[i] += gy[i] - gy0[i];
                sy2[i] += (gy[i] - gy0[i]).powi(2);
            }
        }
        let r = reps as f64;
        // y-gradient A^T x_hat is affine: unbiased (z-test per coordinate).
        for i in 0..dy {
            let (mean, se) = (sy[i] / r, ((sy2[i] / r - (sy[i] / r).powi(2)) / r).sqrt());
            assert!(mean.abs() <= Z * se, "affine bias {mean} (se {se})");
        }
        // x-gradient has the Huber term: bias <= 4 L1 / sqrt(K) (Cor. D.2).
        for i in 0..dx {
            let (mean, se) = (sx[i] / r, ((sx2[i] / r - (sx[i] / r).powi(2)) / r).sqrt());
            assert!(mean.abs() - Z * se <= 4.0 * c.l1 / (k as f64).sqrt());
        }
    }
}

#[test]
fn gradient_second_moment_obeys_cor_d3_and_decreases_with_k() {
    // log-cosh game: E ||grad F(x_K) - grad F(x)||_inf^2 <= 20 L2^2/K^2 + 8 L1^2 (6 + ln d)/K.
    let mut rng = Pcg64::seed_from_u64(15);
    let d = 8;
    let m = MeanMatrix::dense_uniform(d, d, 0.5, &mut rng);
    let phi = Potential::LogCosh { kappa: 3.0 };
    let game = SimplexGame::sample(
        m,
        GameNoise::None,
        Some(SeparablePenalty::uniform(phi, 1.0, d)),
        Some(SeparablePenalty::uniform(phi, 1.0, d)),
        1,
        &mut rng,
    );
    let c = game.constants();
    let (x, y) = (random_simplex(d, &mut rng), random_simplex(d, &mut rng));
    let (mut gx0, mut gy0) = (vec![0.0; d], vec![0.0; d]);
    game.population_gradient(
        SimplexPoint::Dense(&x),
        SimplexPoint::Dense(&y),
        &mut gx0,
        &mut gy0,
    );
    let mut previous = f64::INFINITY;
    for k in [1, 8, 64] {
        let reps = 20_000;
        let (mut s, mut s2) = (0.0, 0.0);
        let (mut gx, mut gy) = (vec![0.0; d], vec![0.0; d]);
        for _ in 0..reps {
            let (hx, hy) = (
                maurey_average(&x, k, &mut rng),
                maurey_average(&y, k, &mut rng),
            );
            game.population_gradient(hx.point(), hy.point(), &mut gx, &mut gy);
            let e = gx
                .iter()
                .zip(&gx0)
                .chain(gy.iter().zip(&gy0))
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max)
                .powi(2);
            s += e;
            s2 += e * e;
        }
        let mean = s / reps as f64;
        let se = ((s2 / reps as f64 - mean * mean) / reps as f64).sqrt();
        let kf = k as f64;
        let bound =
            20.0 * c.l2 * c.l2 / (kf * kf) + 8.0 * c.l1 * c.l1 * (6.0 + (2.0 * d as f64).ln()) / kf;
        assert!(mean - Z * se <= bound, "K = {k}: {mean} > {bound}");
        assert!(mean + Z * se < previous, "second moment must decrease in K");
        previous = mean - Z * se;
    }
}

#[test]
fn sequential_maurey_obeys_cor_3_1() {
    // |E F(mean a^t) - F(mean x^t)| <= 2 L1 / T for a fixed sequence x^t and
    // a quadratic F with L1 = max |H_ij|.
    let mut rng = Pcg64::seed_from_u64(16);
    let (d, t) = (5, 8);
    let h: Vec<f64> = (0..d * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let quad = |v: &[f64]| {
        (0..d)
            .map(|i| (0..d).map(|j| v[i] * h[i * d + j] * v[j]).sum::<f64>())
            .sum::<f64>()
            / 2.0
    };
    let seq: Vec<Vec<f64>> = (0..t).map(|_| random_simplex(d, &mut rng)).collect();
    let mut xbar = vec![0.0; d];
    seq.iter().for_each(|x| {
        x.iter()
            .zip(xbar.iter_mut())
            .for_each(|(a, b)| *b += a / t as f64)
    });
    let (mut s, mut s2, reps) = (0.0, 0.0, 40_000);
    for _ in 0..reps {
        let mut abar = vec![0.0; d];
        for x in &seq {
            let a = maurey_average(x, 1, &mut rng);
            a.indices.iter().for_each(|&i| abar[i] += 1.0 / t as f64);
        }
        let v = quad(&abar) - quad(&xbar);
        s += v;
        s2 += v * v;
    }
    let mean = s / reps as f64;
    let se = ((s2 / reps as f64 - mean * mean) / reps as f64).sqrt();
    let l1 = h.iter().fold(0.0f64, |m, a| m.max(a.abs()));
    assert!(mean.abs() - Z * se <= 2.0 * l1 / t as f64);
}

#[test]
fn runner_bias_diagnostic_matches_the_bounds() {
    use solvers::gonzalez::diagnostics::maurey_gradient_bias;
    use solvers::gonzalez::rates::maurey_gradient_bias_bound;
    let mut rng = Pcg64::seed_from_u64(17);
    let d = 6;
    let bilinear = SimplexGame::sample(
        MeanMatrix::dense_uniform(d, d, 0.9, &mut rng),
        GameNoise::None,
        None,
        None,
        1,
        &mut rng,
    );
    let (x, y) = (random_simplex(d, &mut rng), random_simplex(d, &mut rng));
    // Affine gradient: unbiased; the max over 12 coordinates of |z| <= 5.
    let (bias, se) = maurey_gradient_bias(&bilinear, &x, &y, 3, 20_000, &mut rng);
    assert!(bias <= Z * se, "{bias} vs {se}");
    assert_eq!(maurey_gradient_bias_bound(bilinear.constants(), 3), 0.0);
    let phi = Potential::LogCosh { kappa: 10.0 };
    let pen = Some(SeparablePenalty::uniform(phi, 1.0, d));
    let smooth = SimplexGame::sample(
        MeanMatrix::dense_uniform(d, d, 0.5, &mut rng),
        GameNoise::None,
        pen.clone(),
        pen,
        1,
        &mut rng,
    );
    for k in [1, 4, 16] {
        let (bias, se) = maurey_gradient_bias(&smooth, &x, &y, k, 20_000, &mut rng);
        assert!(bias - Z * se <= maurey_gradient_bias_bound(smooth.constants(), k));
    }
}
