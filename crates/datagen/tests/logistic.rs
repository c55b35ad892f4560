//! Tests of the shared Newton driver and helpers, the labelled-data generator
//! and the logistic family (digest §8 E1b). Statistical checks use fixed
//! seeds and state their false-alarm rates.

mod common;

use common::{
    assert_gradient_matches_finite_differences, assert_record_gradients_average_to, grad, rng,
};
use datagen::logistic::{FeatureModel, LabelledData, Logistic, LogisticParams};
use datagen::newton::{
    add_outer_lower, newton_minimize, norm2, symmetrize_lower, CompensatedSum, CompensatedVec,
    NewtonOptions,
};
use datagen::newton::{sigmoid, softplus, softplus_diff};
use dpcore::Objective;

fn instance(n: usize, d: usize, mu: f64, seed: u64) -> Logistic {
    Logistic::generate(LogisticParams::new(n, d, mu), &mut rng(seed)).expect("generate")
}

#[test]
fn softplus_helpers_are_stable_and_exact() {
    assert_eq!(softplus(0.0), std::f64::consts::LN_2);
    assert_eq!(softplus(800.0), 800.0);
    assert!(softplus(-800.0) >= 0.0 && softplus(-800.0) < 1e-300);
    assert!((softplus(1.5) - (1.0 + 1.5f64.exp()).ln()).abs() < 1e-15);
    assert_eq!(sigmoid(-800.0), 0.0);
    assert_eq!(sigmoid(800.0), 1.0);
    assert!((sigmoid(0.3) + sigmoid(-0.3) - 1.0).abs() < 1e-16);
    // softplus(b + t) - softplus(b) = sigmoid(b) t + sigmoid(b)(1-sigmoid(b)) t^2/2 + O(t^3).
    let (b, t) = (0.7, 1e-9);
    let s = sigmoid(b);
    let exact = s * t + 0.5 * s * (1.0 - s) * t * t;
    assert!((softplus_diff(b + t, b, t) - exact).abs() < 1e-24);
    assert!((softplus_diff(3.0, 0.5, 2.5) - (softplus(3.0) - softplus(0.5))).abs() < 1e-15);
}

/// `ScaledSignal` is `UniformBall` draw for draw with the first feature
/// times `sigma` (so the label model is unchanged), and refuses a `sigma`
/// outside `(0, 1]`; at `sigma = 0.01` and `mu = 1e-7` (far below the data's
/// curvature along `e_1`, about `0.03 sigma^2 = 3e-6`) the certified
/// minimizer's first coordinate is far larger than unscaled (the
/// low-curvature direction carries the signal).
#[test]
fn scaled_signal_shrinks_only_the_signal_coordinate() {
    let sigma = 0.01;
    let scaled = FeatureModel::ScaledSignal { sigma };
    let a = LabelledData::sample(500, 4, 0.1, 2.0, FeatureModel::UniformBall, &mut rng(8)).unwrap();
    let b = LabelledData::sample(500, 4, 0.1, 2.0, scaled, &mut rng(8)).unwrap();
    for ((xa, ya), (xb, yb)) in a.iter().zip(b.iter()) {
        assert_eq!(ya, yb);
        assert_eq!(xb[0], sigma * xa[0]);
        assert_eq!(xa[1..], xb[1..]);
    }
    for bad in [0.0, -0.5, 1.5, f64::NAN] {
        let model = FeatureModel::ScaledSignal { sigma: bad };
        assert!(LabelledData::sample(5, 2, 0.1, 1.0, model, &mut rng(1)).is_err());
    }
    let fit = |features| {
        let params = LogisticParams {
            features,
            ..LogisticParams::new(2000, 4, 1e-7)
        };
        Logistic::generate(params, &mut rng(9)).unwrap().minimizer()[0]
    };
    let (w1, w_sigma) = (fit(FeatureModel::UniformBall), fit(scaled));
    assert!(
        w1 > 0.5 && w_sigma > 10.0 * w1,
        "w*_1: {w1} unscaled, {w_sigma} scaled"
    );
}

/// Labels flip at the requested rate: with a huge signal the clean label is
/// `sign(x_1)`, so the disagreement fraction is Binomial(n, 0.1)/n; the
/// tolerance is 5 standard deviations (false-alarm rate < 1e-6).
#[test]
fn data_lie_in_the_ball_and_labels_flip_at_the_requested_rate() {
    let n = 100_000;
    for features in [FeatureModel::UniformBall, FeatureModel::SignalSlab] {
        let data = LabelledData::sample(n, 6, 0.1, 1e9, features, &mut rng(3)).unwrap();
        assert_eq!(data.len(), n);
        let flips = data
            .iter()
            .filter(|(x, y)| {
                assert!(norm2(x) <= 1.0 && (*y == 1.0 || *y == -1.0));
                (x[0] > 0.0) != (*y > 0.0)
            })
            .count() as f64
            / n as f64;
        let sd = (0.1 * 0.9 / n as f64).sqrt();
        assert!((flips - 0.1).abs() < 5.0 * sd, "{features:?}: {flips}");
    }
    assert!(LabelledData::sample(5, 2, 0.5, 1.0, FeatureModel::UniformBall, &mut rng(1)).is_err());
    assert!(LogisticParams::new(5, 2, 0.0).validate().is_err());
    assert!(LogisticParams::new(0, 2, 1.0).validate().is_err());
}

#[test]
fn newton_minimizer_is_certified() {
    for (d, mu) in [(1usize, 1.0), (5, 0.1), (20, 1e-3)] {
        let f = instance(3_000, d, mu, 10 + d as u64);
        let g = norm2(&grad(&f, f.minimizer()));
        assert!(
            f.certified_gradient_norm() <= 1e-10,
            "d={d}: {}",
            f.certified_gradient_norm()
        );
        assert!(g <= 1e-10 && g == f.certified_gradient_norm(), "d={d}: {g}");
        assert!(norm2(f.minimizer()) <= f.constants().radius);
        assert_eq!(f.excess_risk(f.minimizer()), 0.0);
    }
}

/// The subsampled-Hessian path (`n` above the row cap at `d = 200`) still
/// certifies the exact full gradient.
#[test]
fn subsampled_hessian_still_certifies() {
    let f = instance(40_001, 200, 0.05, 5);
    assert!(f.data().hessian_stride() > 1);
    assert!(
        f.certified_gradient_norm() <= 1e-10,
        "{}",
        f.certified_gradient_norm()
    );
}

#[test]
fn gradients_match_finite_differences_and_records() {
    let f = instance(500, 4, 0.2, 21);
    let w = [0.3, -0.7, 0.2, 1.1];
    let g = grad(&f, &w);
    assert_gradient_matches_finite_differences(&f, &w, &g, 1e-6, 1e-8, "");
    let fs = f.finite_sum().expect("ERM");
    assert_record_gradients_average_to(fs, 500, &w, &g, 1e-14);
}

/// Far from `w*` the excess equals the direct difference; very close to it,
/// where the direct difference is pure rounding, it matches the exact
/// second-order model `1/2 dw^T H dw` (third-order remainder ~ 1e-7 relative).
#[test]
fn excess_is_exact_and_cancellation_free() {
    let f = instance(2_000, 3, 0.1, 8);
    let ws = f.minimizer().to_vec();
    let far: Vec<f64> = ws.iter().map(|v| v + 0.4).collect();
    let direct = f.value(&far) - f.value(&ws);
    assert!((f.excess_risk(&far) - direct).abs() < 1e-13 * direct.abs().max(1.0));
    let dw = [1e-7, -2e-7, 5e-8];
    let w: Vec<f64> = ws.iter().zip(&dw).map(|(a, b)| a + b).collect();
    let mut quad = 0.0;
    for (x, _) in f.data().iter() {
        let s = sigmoid(x.iter().zip(&ws).map(|(a, b)| a * b).sum());
        let t: f64 = x.iter().zip(&dw).map(|(a, b)| a * b).sum();
        quad += s * (1.0 - s) * t * t / 2000.0;
    }
    quad = 0.5 * (quad + 0.1 * dw.iter().map(|v| v * v).sum::<f64>());
    let ex = f.excess_risk(&w);
    assert!((ex - quad).abs() < 1e-5 * quad, "{ex} vs {quad}");
}

#[test]
fn constants_and_sensitivity_are_analytic() {
    let f = instance(1_000, 3, 0.1, 2);
    let c = f.constants();
    let r = (2.0 * std::f64::consts::LN_2 / 0.1f64).sqrt(); // < 1/mu = 10
    assert!((c.radius - r).abs() < 1e-15);
    assert!((c.lipschitz - (1.0 + 0.1 * r)).abs() < 1e-15);
    assert_eq!(c.smoothness, 0.35);
    assert_eq!(c.strong_convexity, 0.1);
    let s = f.minimizer_sensitivity();
    assert!((s.tight - 2.0 / (0.1 * 1000.0)).abs() < 1e-15);
    assert!((s.paper - 2.0 * c.lipschitz / (0.1 * 1000.0)).abs() < 1e-15);
    // Large mu: R = 1/mu is the smaller bound.
    assert_eq!(instance(10, 2, 4.0, 1).constants().radius, 0.25);
}

// --- The shared Newton driver and accumulators (newton.rs). ---

/// `F(w) = sum_j (exp(w_j) - 2 w_j)` has minimizer `w_j = ln 2` and a
/// diagonal Hessian; Newton from 0 must certify it to 1e-14.
#[test]
fn minimizes_a_separable_convex_function() {
    let opts = NewtonOptions {
        tol: 1e-14,
        floor_tol: 1e-12,
        max_iter: 50,
    };
    let sol = newton_minimize(
        vec![0.0; 3],
        &opts,
        |w| w.iter().map(|x| x.exp() - 2.0 * x).sum(),
        |w, g| {
            w.iter()
                .zip(g.iter_mut())
                .for_each(|(x, gj)| *gj = x.exp() - 2.0)
        },
        |w, h| {
            h.fill(0.0);
            (0..3).for_each(|j| h[j * 3 + j] = w[j].exp());
        },
    )
    .expect("converges");
    assert!(sol.grad_norm <= 1e-14, "{sol:?}");
    assert!(sol.point.iter().all(|x| (x - 2f64.ln()).abs() < 1e-14));
}

#[test]
fn reports_an_iteration_cap_failure() {
    let opts = NewtonOptions {
        tol: 1e-14,
        floor_tol: 1e-14,
        max_iter: 1,
    };
    let r = newton_minimize(
        vec![5.0],
        &opts,
        |w| w[0].exp() - 2.0 * w[0],
        |w, g| g[0] = w[0].exp() - 2.0,
        |w, h| h[0] = w[0].exp(),
    );
    assert!(r.is_err());
}

#[test]
fn compensated_sums_recover_small_terms() {
    let mut s = CompensatedSum::default();
    let mut v = CompensatedVec::zeros(1);
    for x in [1e16, 1.0, -1e16, 1.0] {
        s.add(x);
        v.add_scaled(1.0, &[x]);
    }
    assert_eq!(s.total(), 2.0);
    assert_eq!(v.total(), vec![2.0]);
    let mut h = vec![0.0; 4];
    add_outer_lower(&mut h, 2.0, &[1.0, 3.0]);
    symmetrize_lower(&mut h, 2);
    assert_eq!(h, vec![2.0, 6.0, 6.0, 18.0]);
}

/// `Logistic::from_data` on the records of a generated instance is the same
/// objective with the same certified minimizer; `LabelledData::from_rows`
/// refuses rows outside the unit ball and labels other than ±1.
#[test]
fn from_data_reproduces_the_generated_instance_and_checks_its_input() {
    let f = instance(2_000, 4, 0.05, 21);
    let (x, y): (Vec<f64>, Vec<f64>) = {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for (xi, yi) in f.data().iter() {
            x.extend_from_slice(xi);
            y.push(yi);
        }
        (x, y)
    };
    let data = LabelledData::from_rows(4, x.clone(), y.clone()).unwrap();
    assert_eq!((data.len(), data.dim()), (2_000, 4));
    let g = Logistic::from_data(data, 0.05).unwrap();
    assert_eq!(g.minimizer(), f.minimizer());
    assert_eq!(g.certified_gradient_norm(), f.certified_gradient_norm());
    let w = [0.1, -0.2, 0.3, 0.0];
    assert_eq!(g.value(&w), f.value(&w));
    assert_eq!(g.excess_risk(&w), f.excess_risk(&w));

    let mut far = x.clone();
    far[4..8].copy_from_slice(&[1.0, 1.0, 0.0, 0.0]);
    let err = LabelledData::from_rows(4, far, y.clone()).unwrap_err();
    assert!(err.contains("record 1") && err.contains("norm"), "{err}");
    let mut bad_label = y.clone();
    bad_label[7] = 0.0;
    let err = LabelledData::from_rows(4, x.clone(), bad_label).unwrap_err();
    assert!(err.contains("record 7"), "{err}");
    assert!(LabelledData::from_rows(4, x.clone(), y[..10].to_vec()).is_err());
    assert!(LabelledData::from_rows(0, vec![], vec![]).is_err());
    let data = LabelledData::from_rows(4, x, y).unwrap();
    assert!(Logistic::from_data(data, 0.0).is_err());
}
