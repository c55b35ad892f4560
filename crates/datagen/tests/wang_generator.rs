//! Tests of the Wang–Zhu–Wang generators G and G2 (digest §6.1): unit norm,
//! the planted margin structure under `w*`, every outlier type, and the
//! scalar-reduced population sampler against brute-force sampling.
//! (The exact margin `gamma(S_in) = gamma*` is verified by the certified
//! margin solver in `crates/solvers/tests/wang_margin.rs`.)

mod common;

use common::{norm, rng};
use datagen::wang::{
    Family, HalfspaceParams, MarginProfile, OutlierType, PlantedHalfspace, G2_CLUSTER_OFFSET,
};
use dpcore::halfspace::HalfspaceProblem;

const TOL: f64 = 1e-12;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

fn margin(p: &PlantedHalfspace, i: usize, w: &[f64]) -> f64 {
    p.labels()[i] * dot(p.row(i), w)
}

fn check_common(p: &PlantedHalfspace) {
    let prm = *p.params();
    assert_eq!(p.features().len(), prm.n * prm.d);
    assert!((norm(p.w_star()) - 1.0).abs() < TOL);
    assert!(dot(p.w_star(), p.u2()).abs() < TOL);
    for i in 0..prm.n {
        let nx = norm(p.row(i));
        assert!(nx <= 1.0 && nx > 1.0 - 1e-12, "row {i} norm {nx}");
        assert!(p.labels()[i] == 1.0 || p.labels()[i] == -1.0);
        assert_eq!(p.is_outlier(i), i >= prm.n - prm.outliers);
    }
    // The anchor pair: margin exactly gamma*, and x_+ - x_- = 2 gamma* w*.
    for i in 0..2 {
        assert!((margin(p, i, p.w_star()) - prm.margin).abs() < TOL);
    }
    for j in 0..prm.d {
        let diff = p.row(0)[j] - p.row(1)[j];
        assert!((diff - 2.0 * prm.margin * p.w_star()[j]).abs() < TOL);
    }
    for i in 2..prm.n - prm.outliers {
        assert!(margin(p, i, p.w_star()) >= prm.margin - TOL, "inlier {i}");
    }
}

#[test]
fn isotropic_spread_and_tight_profiles() {
    let spread =
        PlantedHalfspace::generate(HalfspaceParams::isotropic(300, 50, 0.2, 0), &mut rng(1))
            .unwrap();
    check_common(&spread);
    // w* is dense: a normalised Gaussian has max |w_j| ~ sqrt(2 ln d / d) ~ 0.4 at d = 50.
    assert!(spread.w_star().iter().all(|v| v.abs() < 0.8));
    let max_margin = (2..300)
        .map(|i| margin(&spread, i, spread.w_star()))
        .fold(0.0, f64::max);
    assert!(max_margin > 0.9, "spread profile reaches 1: {max_margin}");
    let mut prm = HalfspaceParams::isotropic(200, 30, 0.3, 0);
    prm.family = Family::Isotropic(MarginProfile::Tight);
    let tight = PlantedHalfspace::generate(prm, &mut rng(2)).unwrap();
    check_common(&tight);
    for i in 0..200 {
        assert!((margin(&tight, i, tight.w_star()) - 0.3).abs() < TOL);
    }
}

#[test]
fn two_cluster_structure() {
    let n = 4000;
    let p = PlantedHalfspace::generate(HalfspaceParams::two_cluster(n, 40, 0.5, 0), &mut rng(3))
        .unwrap();
    check_common(&p);
    let mut minority = 0usize;
    for i in 2..n {
        assert!((margin(&p, i, p.w_star()) - 0.5).abs() < TOL);
        let along = margin(&p, i, p.u2());
        assert!((along.abs() - G2_CLUSTER_OFFSET).abs() < TOL);
        minority += usize::from(along < 0.0);
    }
    // Binomial(3998, 0.1): sd = 19; |z| < 5 has false-alarm rate 6e-7.
    let z = (minority as f64 - 399.8) / (3998.0f64 * 0.09).sqrt();
    assert!(z.abs() < 5.0, "minority count {minority}, z = {z}");
}

#[test]
fn twin_and_flip_outliers() {
    let (n, m) = (200, 7);
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(n, 20, 0.25, m), &mut rng(4))
        .unwrap();
    check_common(&p);
    for i in p.outlier_indices() {
        let j = p.twin_of(i).expect("twins record their original");
        assert!((2..n - m).contains(&j));
        assert_eq!(p.row(i), p.row(j));
        assert_eq!(p.labels()[i], -p.labels()[j]);
        assert!(margin(&p, i, p.w_star()) <= -0.25 + TOL);
    }
    let mut originals: Vec<usize> = p.outlier_indices().map(|i| p.twin_of(i).unwrap()).collect();
    originals.sort_unstable();
    originals.dedup();
    assert_eq!(originals.len(), m, "twins copy distinct inliers");
    // w* misclassifies exactly the m twins.
    assert_eq!(p.zero_one_error(p.w_star()), m as f64 / n as f64);
    let mut prm = HalfspaceParams::isotropic(n, 20, 0.25, m);
    prm.outlier_type = OutlierType::Flips;
    let f = PlantedHalfspace::generate(prm, &mut rng(5)).unwrap();
    for i in f.outlier_indices() {
        assert!(f.twin_of(i).is_none());
        assert!(margin(&f, i, f.w_star()) <= -0.25 + TOL);
    }
}

#[test]
fn band_and_adversarial_outliers() {
    for family in [
        Family::Isotropic(MarginProfile::Spread { rho: 0.5 }),
        Family::TwoCluster,
    ] {
        let mut prm = HalfspaceParams::isotropic(300, 25, 0.3, 40);
        prm.family = family;
        prm.outlier_type = OutlierType::Band;
        let p = PlantedHalfspace::generate(prm, &mut rng(6)).unwrap();
        check_common(&p);
        for i in p.outlier_indices() {
            let s = margin(&p, i, p.w_star());
            assert!((-0.3 - TOL..0.3 + TOL).contains(&s), "band margin {s}");
        }
    }
    let mut prm = HalfspaceParams::two_cluster(100, 10, 0.4, 5);
    prm.outlier_type = OutlierType::Adversarial { angle: 0.7 };
    let p = PlantedHalfspace::generate(prm, &mut rng(7)).unwrap();
    check_common(&p);
    for i in p.outlier_indices() {
        assert_eq!(p.labels()[i], 1.0);
        assert!((dot(p.row(i), p.w_star()) + 0.7f64.cos()).abs() < TOL);
        assert!((dot(p.row(i), p.u2()) + 0.7f64.sin()).abs() < TOL);
    }
}

#[test]
fn validation_rejects_bad_parameters() {
    let ok = HalfspaceParams::isotropic(10, 5, 0.2, 2);
    assert!(ok.validate().is_ok());
    assert!(HalfspaceParams { margin: 1.0, ..ok }.validate().is_err());
    assert!(HalfspaceParams { margin: 0.0, ..ok }.validate().is_err());
    assert!(
        HalfspaceParams { outliers: 5, ..ok }.validate().is_err(),
        "twins: n >= 2 + 2m"
    );
    let flips = HalfspaceParams {
        outlier_type: OutlierType::Flips,
        ..ok
    };
    assert!(HalfspaceParams {
        outliers: 8,
        ..flips
    }
    .validate()
    .is_ok());
    assert!(HalfspaceParams {
        outliers: 9,
        ..flips
    }
    .validate()
    .is_err());
    assert!(HalfspaceParams { d: 1, ..ok }.validate().is_err());
    assert!(HalfspaceParams::two_cluster(10, 5, 0.85, 0)
        .validate()
        .is_err());
    assert!(HalfspaceParams::two_cluster(10, 2, 0.5, 0)
        .validate()
        .is_err());
}

#[test]
fn population_error_exact_cases() {
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(100, 30, 0.2, 10), &mut rng(8))
        .unwrap();
    let at_star = p.population_error(p.w_star()).unwrap();
    // Inliers have margin >= gamma* > 0 under w*; twins are all wrong: R_D = m/n exactly.
    assert_eq!(at_star.clean_error, 0.0);
    assert!((at_star.error - 0.1).abs() < 1e-15);
    let neg: Vec<f64> = p.w_star().iter().map(|v| -v).collect();
    let at_neg = p.population_error(&neg).unwrap();
    assert_eq!(at_neg.clean_error, 1.0);
    // The zero vector errs everywhere (ties are errors, digest P9).
    assert_eq!(p.population_error(&[0.0; 30]).unwrap().error, 1.0);
}

/// The scalar reduction against brute force: the inliers of a large fresh
/// instance (same `w*` law but another instance) cannot share `w*`, so we
/// compare on the *same* instance: its inliers are i.i.d. from the inlier law.
#[test]
fn population_sampler_matches_brute_force() {
    for prm in [
        HalfspaceParams::isotropic(20_000, 12, 0.1, 0),
        HalfspaceParams::two_cluster(20_000, 12, 0.3, 0),
    ] {
        let p = PlantedHalfspace::generate(prm, &mut rng(9)).unwrap();
        // A predictor that errs on a sizeable fraction: w* tilted towards -u2 and a random axis.
        let w: Vec<f64> = (0..12)
            .map(|j| 0.3 * p.w_star()[j] - 0.5 * p.u2()[j] + if j == 3 { 0.4 } else { 0.0 })
            .collect();
        let pop = p.population_error(&w).unwrap();
        let errs = (2..20_000).filter(|&i| margin(&p, i, &w) <= 0.0).count() as f64;
        let emp = errs / 19_998.0;
        let se = (pop.clean_error * (1.0 - pop.clean_error) * (1.0 / 1e5 + 1.0 / 19_998.0)).sqrt();
        // Two independent binomial estimates of the same probability: |z| < 5 (false alarm 6e-7).
        let z = (emp - pop.clean_error) / se;
        assert!(pop.clean_error > 0.05 && pop.clean_error < 0.95, "{pop:?}");
        assert!(
            z.abs() < 5.0,
            "brute {emp} vs reduced {} (z = {z})",
            pop.clean_error
        );
    }
}

#[test]
fn smallest_dimensions_work() {
    // d = 2 for G (v is +-u_2, the population's t is a sign), d = 3 for G2.
    let mut prm = HalfspaceParams::isotropic(50, 2, 0.3, 4);
    prm.outlier_type = OutlierType::adversarial_default();
    let p = PlantedHalfspace::generate(prm, &mut rng(10)).unwrap();
    check_common(&p);
    let pop = p.population_error(p.w_star()).unwrap();
    assert_eq!(pop.clean_error, 0.0);
    // The pull cluster sits at angle pi/4 behind w*: always wrong under w*.
    assert!((pop.error - 4.0 / 50.0).abs() < 1e-15);
    let g2 = PlantedHalfspace::generate(HalfspaceParams::two_cluster(50, 3, 0.5, 0), &mut rng(11))
        .unwrap();
    check_common(&g2);
}
