//! Tests of the geometric-median family (digest §8 E4).

mod common;

use common::{
    assert_gradient_matches_finite_differences, assert_record_gradients_average_to, grad, norm,
    rng, scaled,
};
use datagen::geometric_median::{GeometricMedian, GeometricMedianParams};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use datagen::sphere_atoms::SphereLayout;
use dpcore::Objective;

#[test]
fn constants_sensitivity_and_regularized_minimizer() {
    let f = GeometricMedian::generate(GeometricMedianParams::new(50, 4), &mut rng(1));
    let c = f.constants();
    assert_eq!((c.lipschitz, c.strong_convexity, c.radius), (1.0, 0.0, 1.0));
    assert!(c.smoothness.is_infinite());
    let s = f.minimizer_sensitivity();
    assert!(s.tight.is_infinite() && s.paper.is_infinite());
    assert_eq!(f.minimizer(), &[0.0; 4]);
    assert_eq!(f.regularized_minimizer(0.3), Some(vec![0.0; 4]));
    assert_eq!(f.regularized_minimizer(f64::NAN), None);
    assert_eq!(f.expected_minimizer_population_excess(), Some(0.0));
    let w = [0.1, -0.2, 0.05, 0.3];
    let reg = f.regularized_excess(0.4, &w).expect("known");
    let direct = f.value(&w) - f.value(&[0.0; 4]) + 0.2 * norm(&w).powi(2);
    assert!((reg - direct).abs() < 1e-14, "{reg} vs {direct}");
}

#[test]
fn zero_is_the_minimizer_for_both_layouts() {
    for layout in [SphereLayout::Antipodal, SphereLayout::Uniform] {
        let params = GeometricMedianParams {
            layout,
            ..GeometricMedianParams::new(300, 5)
        };
        let f = GeometricMedian::generate(params, &mut rng(2));
        let (n, m) = (300.0, f.data().atom_count() as f64);
        let slope = match layout {
            SphereLayout::Antipodal => m / n,
            SphereLayout::Uniform => (2.0 * m - n) / n,
        };
        let mut g = rng(3);
        for _ in 0..200 {
            let w = sample_unit_ball(5, &mut g);
            let (e, r) = (f.excess_risk(&w), norm(&w));
            assert!(
                e >= slope * r - 1e-14 && e <= r + 1e-14,
                "{layout:?}: {e} at r = {r}"
            );
        }
        // The kink is linear even at r = 1e-9.
        let w = scaled(&sample_unit_sphere(5, &mut g), 1e-9);
        assert!(f.excess_risk(&w) >= slope * 1e-9, "{layout:?}");
        let mut grad = [1.0; 5];
        f.gradient(&[0.0; 5], &mut grad);
        assert_eq!(grad, [0.0; 5]);
    }
}

#[test]
fn gradients_match_finite_differences_and_records() {
    let f = GeometricMedian::generate(GeometricMedianParams::new(41, 3), &mut rng(4));
    let fs = f.finite_sum().expect("ERM family");
    let mut g = rng(5);
    for _ in 0..5 {
        let w = scaled(&sample_unit_sphere(3, &mut g), 0.6);
        let gw = grad(&f, &w);
        assert_gradient_matches_finite_differences(&f, &w, &gw, 1e-6, 1e-7, "");
        let mut gi = [0.0; 3];
        for i in 0..41 {
            fs.record_gradient(i, &w, &mut gi);
            assert!(norm(&gi) <= 1.0 + 1e-15, "record gradient exceeds L = 1");
        }
        assert_record_gradients_average_to(fs, 41, &w, &gw, 1e-14);
        let direct = f.value(&w) - f.value(&[0.0; 3]);
        assert!((f.excess_risk(&w) - direct).abs() < 1e-14);
    }
}

#[test]
fn population_excess_closed_forms() {
    // d = 3 (Newton's shell theorem): p r + (1 - p) r^2/3 for r <= 1.
    let f = GeometricMedian::generate(GeometricMedianParams::new(8, 3), &mut rng(6));
    for r in [1e-8, 0.01, 0.5, 1.0] {
        let exact = 0.75 * r + 0.25 * r * r / 3.0;
        let got = f.population_excess(&[0.0, r, 0.0]).expect("population");
        assert!(
            (got - exact).abs() <= 1e-13 * exact,
            "r = {r}: {got} vs {exact}"
        );
    }
    // d = 2: theta uniform; the periodic trapezoid rule is spectrally accurate.
    let f2 = GeometricMedian::generate(GeometricMedianParams::new(8, 2), &mut rng(7));
    let r = 0.5;
    let m = 4096;
    let trap: f64 = (0..m)
        .map(|j| {
            let th = 2.0 * std::f64::consts::PI * j as f64 / m as f64;
            (1.0 + r * r - 2.0 * r * th.cos()).sqrt() - 1.0
        })
        .sum::<f64>()
        / m as f64;
    let exact = 0.75 * r + 0.25 * trap;
    let got = f2.population_excess(&[r, 0.0]).expect("population");
    assert!((got - exact).abs() < 1e-14, "{got} vs {exact}");
}
