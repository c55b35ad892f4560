//! Tests of the unit-ball sampler and the diagonal-quadratic family.
//! Statistical checks use fixed seeds and state their false-alarm rates.

mod common;

use common::{norm, rng};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use datagen::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::Objective;

/// Per-test false-alarm rate of the KS tests.
const KS_ALPHA: f64 = 1e-5;

/// Kolmogorov–Smirnov statistic `sup |F_n - F|`.
fn ks_statistic(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = s.len() as f64;
    s.iter().enumerate().fold(0.0f64, |d, (i, &x)| {
        let f = cdf(x);
        d.max(f - i as f64 / n).max((i + 1) as f64 / n - f)
    })
}

/// KS critical value at level `alpha`: Kolmogorov limit
/// `P(sqrt(n) D > x) ~ 2 exp(-2x^2)` with Stephens' finite-n correction.
fn ks_critical(n: usize, alpha: f64) -> f64 {
    let sn = (n as f64).sqrt();
    (-(alpha / 2.0).ln() / 2.0).sqrt() / (sn + 0.12 + 0.11 / sn)
}

fn params(n: usize, d: usize, beta: f64, kappa: f64) -> DiagonalQuadraticParams {
    DiagonalQuadraticParams { n, d, beta, kappa }
}

/// Every sampled point, and every record of a generated instance, has norm
/// <= 1 (deterministic property, checked on 20k points per dimension).
#[test]
fn points_lie_in_the_unit_ball() {
    let mut r = rng(11);
    for &d in &[1usize, 2, 5, 50] {
        for _ in 0..20_000 {
            let x = sample_unit_ball(d, &mut r);
            assert_eq!(x.len(), d);
            assert!(norm(&x) <= 1.0, "d={d}: norm {}", norm(&x));
        }
        let u = sample_unit_sphere(d, &mut r);
        assert!((norm(&u) - 1.0).abs() < 1e-12);
    }
    let q = DiagonalQuadratic::generate(params(5_000, 7, 1.0, 3.0), &mut r);
    assert!((0..5_000).all(|i| norm(q.record(i)) <= 1.0));
}

/// Radii of uniform points in the ball satisfy P(||x|| <= r) = r^d: KS test at
/// alpha = 1e-5 for d in {1, 3, 10} (sampler) and for the records of a
/// generated instance (d = 4). Power check: the d = 3 radii are rejected
/// against r^2 (the law of the wrong exponent 1/(d-1)).
#[test]
fn radius_distribution_is_r_to_the_d() {
    const N: usize = 20_000;
    let crit = ks_critical(N, KS_ALPHA);
    let mut r = rng(12);
    for &d in &[1usize, 3, 10] {
        let radii: Vec<f64> = (0..N).map(|_| norm(&sample_unit_ball(d, &mut r))).collect();
        let ks = ks_statistic(&radii, |t| t.clamp(0.0, 1.0).powi(d as i32));
        assert!(ks < crit, "d={d}: KS D = {ks} >= {crit}");
        if d == 3 {
            let wrong = ks_statistic(&radii, |t| t.clamp(0.0, 1.0).powi(2));
            assert!(wrong >= crit, "power check failed: D = {wrong}");
        }
    }
    let q = DiagonalQuadratic::generate(params(N, 4, 1.0, 2.0), &mut r);
    let radii: Vec<f64> = (0..N).map(|i| norm(q.record(i))).collect();
    let ks = ks_statistic(&radii, |t| t.clamp(0.0, 1.0).powi(4));
    assert!(ks < crit, "instance records: KS D = {ks} >= {crit}");
}

/// The measured excess risk of a fixed output equals the closed form:
/// `excess_risk(w) == value(w) - value(w*)` to relative 1e-9, for fixed and
/// random `w` on a small instance (kappa = 4, so H is not a multiple of I).
#[test]
fn excess_risk_equals_value_difference() {
    let mut r = rng(13);
    let q = DiagonalQuadratic::generate(params(50, 4, 2.0, 4.0), &mut r);
    let w_star = q.minimizer().to_vec();
    let f_star = q.value(&w_star);
    let mut points = vec![vec![0.3, -0.2, 0.5, 0.1], vec![0.0; 4]];
    points.extend((0..20).map(|_| sample_unit_ball(4, &mut r)));
    for w in points {
        let direct = q.value(&w) - f_star;
        let closed = q.excess_risk(&w);
        assert!(closed > 0.0);
        assert!(
            ((closed - direct) / closed).abs() < 1e-9,
            "w={w:?}: {closed} vs {direct}"
        );
    }
    assert_eq!(q.excess_risk(&w_star), 0.0);
}

/// The minimizer is the column mean, the gradient vanishes there, and the
/// gradient agrees with central finite differences of `value` elsewhere
/// (relative 1e-6), tying `gradient`, `value` and `minimizer` together.
#[test]
fn gradient_vanishes_at_minimizer_and_matches_value() {
    let mut r = rng(14);
    let (n, d) = (300usize, 5usize);
    let q = DiagonalQuadratic::generate(params(n, d, 3.0, 10.0), &mut r);
    for j in 0..d {
        let naive = (0..n).map(|i| q.record(i)[j]).sum::<f64>() / n as f64;
        assert!((q.minimizer()[j] - naive).abs() < 1e-15);
    }
    let mut g = vec![0.0; d];
    q.gradient(q.minimizer(), &mut g);
    assert!(norm(&g) < 1e-15, "gradient at w*: {g:?}");

    let w = vec![0.2, -0.4, 0.1, 0.7, -0.3];
    q.gradient(&w, &mut g);
    let h = 1e-5;
    for j in 0..d {
        let (mut wp, mut wm) = (w.clone(), w.clone());
        wp[j] += h;
        wm[j] -= h;
        let fd = (q.value(&wp) - q.value(&wm)) / (2.0 * h);
        assert!(
            ((fd - g[j]) / g[j]).abs() < 1e-6,
            "coord {j}: fd {fd} vs {}",
            g[j]
        );
    }
}

/// Hessian spectrum and analytic constants: h linearly spaced from mu to beta
/// (all beta for kappa = 1 or d = 1), L = 2 beta, R = 1, mu = beta/kappa,
/// tight sensitivity 2/n, paper sensitivity 2L/(mu n) = 4 kappa / n,
/// tr(H) = d (mu + beta)/2 for a linear spacing.
#[test]
fn spectrum_constants_and_sensitivities() {
    let mut r = rng(15);
    let (n, d, beta, kappa) = (200usize, 5usize, 3.0, 4.0);
    let q = DiagonalQuadratic::generate(params(n, d, beta, kappa), &mut r);
    let mu = beta / kappa;
    let h = q.hessian_diagonal();
    for (j, hj) in h.iter().enumerate() {
        let expect = mu + (beta - mu) * j as f64 / (d - 1) as f64;
        assert!((hj - expect).abs() < 1e-15, "h[{j}] = {hj}");
    }
    assert_eq!(h[0], mu);
    assert_eq!(h[d - 1], beta);
    let c = q.constants();
    assert_eq!(
        (c.lipschitz, c.smoothness, c.radius),
        (2.0 * beta, beta, 1.0)
    );
    assert!((c.strong_convexity - mu).abs() < 1e-15);
    assert!((c.condition_number() - kappa).abs() < 1e-12);
    let s = q.minimizer_sensitivity();
    assert!((s.tight - 2.0 / n as f64).abs() < 1e-15);
    assert!((s.paper - 4.0 * kappa / n as f64).abs() < 1e-12);
    let tr = q.hessian_trace().unwrap();
    assert!((tr - d as f64 * (mu + beta) / 2.0).abs() < 1e-12);
    assert_eq!((q.dim(), q.num_records()), (d, n));

    let iso = DiagonalQuadratic::generate(params(10, 3, 2.5, 1.0), &mut r);
    assert!(iso.hessian_diagonal().iter().all(|&x| x == 2.5));
    let one = DiagonalQuadratic::generate(params(10, 1, 2.5, 7.0), &mut r);
    assert_eq!(one.hessian_diagonal(), &[2.5]);
}

/// Invalid parameters are reported by `validate`.
#[test]
fn invalid_parameters_are_rejected() {
    assert!(params(0, 2, 1.0, 1.0).validate().is_err());
    assert!(params(2, 0, 1.0, 1.0).validate().is_err());
    assert!(params(2, 2, 0.0, 1.0).validate().is_err());
    assert!(params(2, 2, f64::NAN, 1.0).validate().is_err());
    assert!(params(2, 2, 1.0, 0.5).validate().is_err());
    assert!(params(2, 2, 1.0, f64::INFINITY).validate().is_err());
    assert!(params(2, 2, 1.0, 1.0).validate().is_ok());
}
