//! Tests of the sphere-with-atom generator and the sharp family (digest §8 E2,
//! P17). Statistical checks use fixed seeds and state their false-alarm rates.

mod common;

use common::{
    assert_gradient_matches_finite_differences, assert_record_gradients_average_to, grad, norm,
    rng, scaled,
};
use datagen::geometry::{sample_unit_ball, sample_unit_sphere};
use datagen::sharp::{Sharp, SharpParams};
use datagen::sphere_atoms::{SphereAtoms, SphereAtomsParams, SphereLayout};
use dpcore::Objective;
use rand::RngExt;

#[test]
fn generator_counts_and_pairs() {
    let mut g = rng(1);
    let p10 = SphereAtomsParams::new(10, 4);
    assert_eq!(p10.atom_count(), 8); // round(7.5) = 8, remainder 2 even
    let p11 = SphereAtomsParams::new(11, 4);
    assert_eq!(p11.atom_count(), 9); // round(8.25) = 8, remainder 3 odd -> 9
    let data = SphereAtoms::generate(SphereAtomsParams::new(1001, 6), &mut g);
    assert_eq!(data.atom_count(), 751);
    assert_eq!(data.sphere_count(), 250);
    assert_eq!(data.sphere_data().len(), 250 * 6);
    assert!(data
        .record(0)
        .iter()
        .chain(data.record(750))
        .all(|v| *v == 0.0));
    for k in 0..125 {
        let (x, y) = (data.record(751 + 2 * k), data.record(752 + 2 * k));
        assert!(
            x.iter().zip(y).all(|(a, b)| *a == -*b),
            "pair {k} not antipodal"
        );
        assert!((norm(x) - 1.0).abs() < 1e-15);
    }
    // Uniform layout needs m >= n - m.
    let mut u = SphereAtomsParams::new(10, 3);
    u.layout = SphereLayout::Uniform;
    u.p = 0.5;
    assert!(u.validate().is_ok());
    u.p = 0.4;
    assert!(u.validate().is_err());
    u.p = 1.1;
    assert!(u.validate().is_err());
    assert!(SharpParams::benign(11, 3).validate().is_err());
    assert!(SharpParams {
        mu: 0.0,
        ..SharpParams::new(10, 3)
    }
    .validate()
    .is_err());
}

#[test]
fn constants_and_sensitivity() {
    let f = Sharp::generate(SharpParams::new(100, 5), &mut rng(2));
    let c = f.constants();
    assert_eq!((c.lipschitz, c.strong_convexity, c.radius), (1.1, 0.1, 1.0));
    assert!(c.smoothness.is_infinite());
    let s = f.minimizer_sensitivity();
    assert!((s.tight - 0.2).abs() < 1e-15 && (s.paper - 0.22).abs() < 1e-15);
    assert_eq!(f.minimizer(), &[0.0; 5]);
    assert_eq!(f.expected_minimizer_population_excess(), Some(0.0));
    // m = round(75) = 75 leaves 25 (odd), so m = 76; F(0) = (n - m)/n = 0.24.
    assert_eq!(f.data().atom_count(), 76);
    assert!((f.value(&[0.0; 5]) - 0.24).abs() < 1e-14);
    let mut g = [1.0; 5];
    f.gradient(&[0.0; 5], &mut g);
    assert_eq!(g, [0.0; 5]);
}

#[test]
fn zero_is_the_minimizer_with_linear_growth() {
    for layout in [SphereLayout::Antipodal, SphereLayout::Uniform] {
        let params = SharpParams {
            layout,
            ..SharpParams::new(401, 7)
        };
        let f = Sharp::generate(params, &mut rng(3));
        let (n, m) = (401.0, f.data().atom_count() as f64);
        // Subgradient optimality: ||(1/n) sum x_i|| <= m/n, so 0 is in dF(0).
        let mut s = vec![0.0; 7];
        for x in f.data().sphere_data().chunks_exact(7) {
            s.iter_mut().zip(x).for_each(|(a, b)| *a += b);
        }
        assert!(
            norm(&s) <= m + 1e-12,
            "{layout:?}: ||sum x|| = {}",
            norm(&s)
        );
        let slope = match layout {
            SphereLayout::Antipodal => m / n,
            SphereLayout::Uniform => (2.0 * m - n) / n,
        };
        let mut g = rng(4);
        for _ in 0..200 {
            let w = sample_unit_ball(7, &mut g);
            let r = norm(&w);
            let e = f.excess_risk(&w);
            let quad = 0.05 * r * r;
            assert!(
                e >= slope * r + quad - 1e-14,
                "{layout:?}: excess {e} at r = {r}"
            );
            assert!(e <= r + quad + 1e-14, "{layout:?}: excess {e} at r = {r}");
        }
    }
}

#[test]
fn gradients_match_finite_differences_and_records() {
    let f = Sharp::generate(SharpParams::new(60, 5), &mut rng(5));
    let fs = f.finite_sum().expect("ERM family");
    let mut g = rng(6);
    for _ in 0..5 {
        let w = scaled(&sample_unit_sphere(5, &mut g), 0.5);
        let gw = grad(&f, &w);
        assert_gradient_matches_finite_differences(&f, &w, &gw, 1e-6, 1e-7, "");
        assert_record_gradients_average_to(fs, 60, &w, &gw, 1e-14);
    }
    // Atom record at w = 0: subgradient mu w + 0 = 0.
    let mut gi = vec![1.0; 5];
    fs.record_gradient(0, &[0.0; 5], &mut gi);
    assert_eq!(gi, vec![0.0; 5]);
}

#[test]
fn stable_excess_matches_direct_difference() {
    let f = Sharp::generate(SharpParams::new(201, 6), &mut rng(7));
    let mut g = rng(8);
    for _ in 0..20 {
        let w = scaled(&sample_unit_sphere(6, &mut g), 0.3);
        let direct = f.value(&w) - f.value(&[0.0; 6]);
        assert!((f.excess_risk(&w) - direct).abs() < 1e-14, "{direct}");
        let lam = 0.37;
        let reg = f.regularized_excess(lam, &w).expect("known");
        let direct_reg = direct + 0.5 * lam * norm(&w).powi(2);
        assert!((reg - direct_reg).abs() < 1e-14);
    }
    assert_eq!(f.regularized_minimizer(0.5), Some(vec![0.0; 6]));
    assert_eq!(f.regularized_minimizer(-1.0), None);
}

#[test]
fn benign_is_quadratic_and_sharp_is_linear() {
    let d = 8;
    let benign = Sharp::generate(SharpParams::benign(400, d), &mut rng(9));
    let sharp = Sharp::generate(SharpParams::new(400, d), &mut rng(9));
    assert!(benign.is_benign() && !sharp.is_benign());
    assert!(sharp.hessian_trace_at_zero().is_none());
    let tr = benign.hessian_trace_at_zero().expect("benign");
    assert!(
        (tr - (0.1 * d as f64 + (d - 1) as f64)).abs() < 1e-12,
        "tr H = {tr}"
    );
    let h = benign.hessian_at_zero().expect("benign");
    let dense_tr: f64 = (0..d).map(|j| h[j * d + j]).sum();
    assert!((dense_tr - tr).abs() < 1e-12);
    let mut g = rng(10);
    for _ in 0..10 {
        let w = scaled(&sample_unit_sphere(d, &mut g), 1e-4);
        let qf = benign.hessian_quadratic_form_at_zero(&w).expect("benign");
        let dense: f64 = (0..d)
            .map(|j| (0..d).map(|k| w[j] * h[j * d + k] * w[k]).sum::<f64>())
            .sum();
        assert!((qf - dense).abs() < 1e-12 * qf);
        // F is even, so the remainder is O(r^4): ratio within 1e-6 of 1 at r = 1e-4.
        let ratio = benign.excess_risk(&w) / (0.5 * qf);
        assert!((ratio - 1.0).abs() < 1e-6, "benign ratio {ratio}");
        let ws = scaled(&w, 1e-4); // r = 1e-8
        let lin = sharp.excess_risk(&ws) / 1e-8;
        assert!(
            (0.75..=1.0 + 1e-6).contains(&lin),
            "sharp excess / r = {lin}"
        );
    }
}

#[test]
fn population_excess_closed_form_d3() {
    // d = 3: E_t[sqrt(r^2 - 2rt + 1)] = 1 + r^2/3 (r <= 1), r + 1/(3r) (r >= 1).
    let f = Sharp::generate(SharpParams::new(10, 3), &mut rng(11));
    for r in [1e-9, 1e-4, 0.3, 1.0, 2.5] {
        let w = [r, 0.0, 0.0];
        let sphere = if r <= 1.0 {
            r * r / 3.0
        } else {
            r + 1.0 / (3.0 * r) - 1.0
        };
        let exact = 0.05 * r * r + 0.75 * r + 0.25 * sphere;
        let got = f.population_excess(&w).expect("population");
        assert!(
            (got - exact).abs() <= 1e-13 * exact,
            "r = {r}: {got} vs {exact}"
        );
    }
    assert_eq!(f.population_excess(&[0.0; 3]), Some(0.0));
}

#[test]
fn population_excess_matches_monte_carlo() {
    // 2e5 fresh draws from D; 5 standard errors: false-alarm rate ~ 6e-7.
    let (d, r) = (5, 0.4);
    let f = Sharp::generate(SharpParams::new(10, d), &mut rng(12));
    let mut g = rng(13);
    let w = scaled(&sample_unit_sphere(d, &mut g), r);
    let (mut s, mut s2, n) = (0.0, 0.0, 200_000);
    for _ in 0..n {
        let v = if g.random::<f64>() < 0.75 {
            r
        } else {
            let u = sample_unit_sphere(d, &mut g);
            let diff: Vec<f64> = w.iter().zip(&u).map(|(a, b)| a - b).collect();
            norm(&diff) - 1.0
        };
        s += v;
        s2 += v * v;
    }
    let mean = s / n as f64;
    let se = ((s2 / n as f64 - mean * mean) / n as f64).sqrt();
    let q = f.population_excess(&w).expect("population") - 0.05 * r * r;
    assert!(
        (q - mean).abs() < 5.0 * se,
        "quadrature {q} vs MC {mean} +- {se}"
    );
}
