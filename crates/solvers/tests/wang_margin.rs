//! Tests of the certified exact margin (digest §6.2), the bias-free SVM
//! (§6.3) and, through them, of the planted generators G and G2 (§6.1):
//! `gamma(S_in) = gamma*` exactly, attained by `w*`, and twins give 0.

use datagen::wang::{Family, HalfspaceParams, MarginProfile, OutlierType, PlantedHalfspace};
use dpcore::halfspace::HalfspaceProblem;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::wang::{exact_margin, fit_svm, hard_margin_svm, MarginOptions, SvmOptions};

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(u, v)| (u - v) * (u - v))
        .sum::<f64>()
        .sqrt()
}

#[test]
fn hand_instance_needs_away_steps() {
    // z = (1, 1), (1, -1), (3, 0), (2, 2): the min-norm point of the hull is
    // (1, 0), so gamma = 1 with direction e_1.
    let x = [1.0, 1.0, 1.0, -1.0, -3.0, 0.0, 2.0, 2.0];
    let y = [1.0, 1.0, -1.0, 1.0];
    let c = exact_margin(&x, &y, 2, None, MarginOptions::default());
    assert!(c.converged);
    assert!(c.lower <= 1.0 && 1.0 <= c.upper + 1e-15, "{c:?}");
    assert!(c.upper - c.lower <= 1e-9);
    assert!(!c.below_abs_tol && c.margin() == c.lower);
    assert!(dist(&c.direction, &[1.0, 0.0]) < 1e-6);
    // A subset: (3, 0) and (2, 2) alone have min-norm point at distance
    // |det|/|z1 - z2| = 6/sqrt(5) from 0.
    let c = exact_margin(&x, &y, 2, Some(&[2, 3]), MarginOptions::default());
    let exact = 6.0 / 5f64.sqrt();
    assert!(c.lower <= exact + 1e-12 && exact <= c.upper + 1e-12);
    assert!((c.lower - exact).abs() < 1e-8);
}

#[test]
fn generators_have_exact_margin_gamma_star() {
    let mut tight = HalfspaceParams::isotropic(300, 40, 0.3, 0);
    tight.family = Family::Isotropic(MarginProfile::Tight);
    for (seed, prm) in [
        (1, HalfspaceParams::isotropic(500, 60, 0.2, 0)),
        (2, tight),
        (3, HalfspaceParams::two_cluster(400, 30, 0.5, 0)),
        (4, HalfspaceParams::two_cluster(200, 300, 0.1, 0)),
    ] {
        let p = PlantedHalfspace::generate(prm, &mut rng(seed)).unwrap();
        let c = hard_margin_svm(&p, MarginOptions::default());
        let g = prm.margin;
        assert!(c.converged, "{prm:?}");
        assert!(
            c.lower <= g + 1e-12 && g <= c.upper + 1e-12,
            "{prm:?}: {c:?}"
        );
        assert!(c.upper - c.lower <= 1e-9 * c.upper);
        assert!(
            dist(&c.direction, p.w_star()) < 1e-6,
            "max-margin direction is w*"
        );
    }
}

#[test]
fn twins_are_not_separable_and_removing_them_restores_gamma_star() {
    let prm = HalfspaceParams::isotropic(200, 20, 0.25, 5);
    let p = PlantedHalfspace::generate(prm, &mut rng(5)).unwrap();
    let c = hard_margin_svm(&p, MarginOptions::default());
    assert_eq!(c.lower, 0.0);
    assert!(c.upper < 1e-9, "upper certificate {}", c.upper);
    assert!(c.below_abs_tol && c.converged);
    assert_eq!(c.margin(), 0.0);
    let inliers: Vec<usize> = (0..195).collect();
    let c = exact_margin(
        p.features(),
        p.labels(),
        20,
        Some(&inliers),
        MarginOptions::default(),
    );
    assert!((c.lower - 0.25).abs() < 1e-9 && c.upper >= 0.25 - 1e-12);
}

#[test]
fn band_outliers_lower_the_margin_below_gamma_star() {
    let mut prm = HalfspaceParams::isotropic(300, 10, 0.3, 10);
    prm.outlier_type = OutlierType::Band;
    let p = PlantedHalfspace::generate(prm, &mut rng(6)).unwrap();
    let c = hard_margin_svm(&p, MarginOptions::default());
    // Band points have |<w*, x>| < gamma*, so the margin drops strictly (certified).
    assert!(c.upper < 0.3);
}

#[test]
fn hard_margin_svm_dual_matches_the_exact_margin() {
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(150, 15, 0.4, 0), &mut rng(7))
        .unwrap();
    let all: Vec<usize> = (0..150).collect();
    let opts = SvmOptions {
        c: f64::INFINITY,
        tol: 1e-10,
        max_epochs: 100_000,
        shuffle: false,
    };
    let fit = fit_svm(p.features(), p.labels(), 15, &all, vec![0.0; 150], opts);
    assert!(fit.converged);
    let wn = fit.w.iter().map(|v| v * v).sum::<f64>().sqrt();
    // At the hard-margin optimum gamma = 1/||w|| (digest §6.3).
    assert!((1.0 / wn - 0.4).abs() < 1e-6, "1/||w|| = {}", 1.0 / wn);
    let shuffled = fit_svm(
        p.features(),
        p.labels(),
        15,
        &all,
        vec![0.0; 150],
        SvmOptions {
            shuffle: true,
            ..opts
        },
    );
    assert!(shuffled.converged);
    assert!(shuffled
        .w
        .iter()
        .zip(&fit.w)
        .all(|(a, b)| (a - b).abs() < 1e-4));
    let soft = fit_svm(
        p.features(),
        p.labels(),
        15,
        &all,
        vec![0.0; 150],
        SvmOptions::default(),
    );
    assert!(soft.converged);
    assert!(soft.alpha.iter().all(|&a| (0.0..=1.0).contains(&a)));
}

#[test]
fn warm_start_from_the_optimal_weights_is_immediate() {
    use solvers::wang::exact_margin_warm;
    let mut prm = HalfspaceParams::isotropic(300, 8, 0.3, 0);
    prm.outlier_type = OutlierType::Band;
    prm.outliers = 30;
    let p = PlantedHalfspace::generate(prm, &mut rng(8)).unwrap();
    let cold = hard_margin_svm(&p, MarginOptions::default());
    assert!(cold.iterations > 1 && cold.converged);
    assert_eq!(cold.weights.len(), 300);
    assert!((cold.weights.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let warm = exact_margin_warm(
        p.features(),
        p.labels(),
        8,
        None,
        Some(&cold.weights),
        MarginOptions::default(),
    );
    assert_eq!(warm.iterations, 0);
    assert!((warm.lower - cold.lower).abs() < 1e-12 && (warm.upper - cold.upper).abs() < 1e-12);
    // No positive weight: falls back to the cold start.
    let zero = exact_margin_warm(
        p.features(),
        p.labels(),
        8,
        None,
        Some(&[0.0; 300]),
        MarginOptions::default(),
    );
    assert_eq!(zero.iterations, cold.iterations);
}
