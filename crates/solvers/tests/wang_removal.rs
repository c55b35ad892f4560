//! Tests of the removal-margin procedure (Appendix N, digest §5) on the
//! planted-twin data: the curve is 0 for the first `m` points (one member of
//! every twin pair must go) and jumps to `gamma*` exactly after `m`
//! removals when the flipped copies were the ones removed.

use datagen::wang::{Family, HalfspaceParams, MarginProfile, PlantedHalfspace};
use dpcore::halfspace::HalfspaceProblem;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::wang::{removal_margin_curve, RemovalOptions};

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

#[test]
fn planted_twins_curve_jumps_to_gamma_star_after_m_removals() {
    let (n, d, m, g) = (400, 30, 6, 0.2);
    for (seed, family) in [
        (1u64, Family::Isotropic(MarginProfile::Spread { rho: 1.0 })),
        (2, Family::TwoCluster),
    ] {
        let mut prm = HalfspaceParams::isotropic(n, d, g, m);
        prm.family = family;
        let p = PlantedHalfspace::generate(prm, &mut Pcg64::seed_from_u64(seed)).unwrap();
        let opts = RemovalOptions {
            max_removals: Some(m + 2),
            ..Default::default()
        };
        let curve = removal_margin_curve(p.features(), p.labels(), d, opts).unwrap();
        assert_eq!(curve.len(), m + 3);
        for (r, pt) in curve.iter().enumerate() {
            assert_eq!(pt.removed, r);
            assert!((pt.removed_percent - 100.0 * r as f64 / n as f64).abs() < 1e-12);
            assert!(pt.svm_converged);
        }
        // Before m removals a twin pair remains: no direction separates it.
        for pt in &curve[..m] {
            assert_eq!(pt.svm_margin, 0.0);
            assert!(pt.exact.is_none());
        }
        // Every removal so far hit a different twin pair, on the side w* misclassifies.
        let removed: Vec<usize> = curve[..m]
            .iter()
            .map(|pt| pt.removed_index.unwrap())
            .collect();
        for &i in &removed {
            assert!(
                p.labels()[i] * dot(p.row(i), p.w_star()) < 0.0,
                "removed a correct point {i}"
            );
        }
        let mut originals: Vec<usize> = removed.iter().map(|&i| p.twin_of(i).unwrap()).collect();
        originals.sort_unstable();
        originals.dedup();
        assert_eq!(originals.len(), m);
        // After exactly m removals the remainder is S_in: exact margin gamma*.
        let after = &curve[m];
        assert!(after.svm_margin > 0.0 && after.svm_margin <= g + 1e-12);
        let exact = after.exact.as_ref().expect("separable after m removals");
        assert!(exact.lower <= g + 1e-12 && g <= exact.upper + 1e-12);
        assert!(
            (exact.lower - g).abs() < 1e-8,
            "exact margin {}",
            exact.lower
        );
        assert!(
            curve[m + 1].exact.as_ref().unwrap().lower >= g - 1e-8,
            "the margin never decreases"
        );
    }
}

#[test]
fn removal_rejects_bad_input() {
    assert!(removal_margin_curve(
        &[1.0, 0.0, 0.0, 0.0],
        &[1.0, -1.0],
        2,
        RemovalOptions::default()
    )
    .is_err());
    assert!(removal_margin_curve(
        &[1.0, 0.0, 0.0, 1.0],
        &[1.0, 2.0],
        2,
        RemovalOptions::default()
    )
    .is_err());
    let opts = RemovalOptions {
        max_removals: Some(2),
        ..Default::default()
    };
    assert!(removal_margin_curve(&[1.0, 0.0, 0.0, 1.0], &[1.0, -1.0], 2, opts).is_err());
}
