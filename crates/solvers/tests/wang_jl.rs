//! Tests of the packed Rademacher JL map and `k_gamma` (digest §2.2, §2.6,
//! §2.7) and of the margin grid (Algorithm 3, P15).

use solvers::wang::jl::{jl_dimension, provable_jl_dimension, JlMap, PROVABLE_JL_CONSTANT};
use solvers::wang::margin_grid;

#[test]
fn dimension_matches_the_digest_table() {
    // Digest §2.7 (C_JL = 1, beta = 1/n^2): k_gamma for gamma = 1, 0.5, 0.2, 0.1.
    let rows: [(usize, usize, [f64; 4]); 2] = [
        (1000, 11, [31.0, 121.0, 751.0, 3004.0]),
        (10_000, 15, [40.0, 159.0, 989.0, 3955.0]),
    ];
    for (n, len, ks) in rows {
        assert_eq!(margin_grid(n, 1.0).len(), len);
        let beta = 1.0 / (n as f64 * n as f64);
        for (g, k) in [1.0, 0.5, 0.2, 0.1].into_iter().zip(ks) {
            assert_eq!(
                jl_dimension(n, len, g, beta, 1.0, 1.0),
                k,
                "n = {n}, gamma = {g}"
            );
        }
    }
    // The provable constant (digest §2.6): 46 567 at n = 1e4, gamma = 0.2.
    assert!((PROVABLE_JL_CONSTANT - 46.2857).abs() < 1e-4);
    let k = provable_jl_dimension(10_000, 15, 0.2, 1e-8, 1.0);
    assert!((k - 46_567.0).abs() <= 30.0, "provable k = {k}");
}

#[test]
fn grid_is_the_doubling_grid_deduplicated() {
    assert_eq!(margin_grid(5, 1.0), vec![0.2, 0.4, 0.8, 1.0]);
    assert_eq!(margin_grid(4, 1.0), vec![0.25, 0.5, 1.0]);
    assert_eq!(margin_grid(1, 2.0), vec![2.0]);
    assert_eq!(margin_grid(100_000, 1.0).len(), 18);
    assert_eq!(margin_grid(1024, 1.0).len(), 11);
}

#[test]
fn entries_projection_and_transpose_agree() {
    let (k, d) = (37, 150);
    let map = JlMap::new(k, d, 42);
    assert_eq!((map.output_dim(), map.input_dim()), (k, d));
    assert_eq!(map, JlMap::new(k, d, 42), "a pure function of the seed");
    assert_ne!(map, JlMap::new(k, d, 43));
    let s = 1.0 / (k as f64).sqrt();
    let x: Vec<f64> = (0..d).map(|j| ((j * 7 % 11) as f64 - 5.0) / 10.0).collect();
    let v: Vec<f64> = (0..k).map(|i| (i as f64 - 18.0) / 7.0).collect();
    let mut px = vec![0.0; k];
    map.project(&x, &mut px);
    let mut ptv = vec![0.0; d];
    map.transpose(&v, &mut ptv);
    for (i, pxi) in px.iter().enumerate() {
        let explicit: f64 = (0..d).map(|j| map.entry(i, j) * x[j]).sum();
        assert!((explicit - pxi).abs() < 1e-12);
    }
    for (j, ptvj) in ptv.iter().enumerate() {
        let explicit: f64 = (0..k).map(|i| map.entry(i, j) * v[i]).sum();
        assert!((explicit - ptvj).abs() < 1e-12);
        for i in 0..k {
            assert_eq!(map.entry(i, j).abs(), s);
        }
    }
    // <Phi x, v> = <x, Phi^T v>.
    let lhs: f64 = px.iter().zip(&v).map(|(a, b)| a * b).sum();
    let rhs: f64 = x.iter().zip(&ptv).map(|(a, b)| a * b).sum();
    assert!((lhs - rhs).abs() < 1e-10);
}

#[test]
fn identity_fallback() {
    let map = JlMap::with_dimension(1e30, 20, 1);
    assert!(map.is_identity());
    assert_eq!(map.output_dim(), 20);
    assert!(JlMap::new(20, 20, 1).is_identity());
    assert!(!JlMap::with_dimension(19.0, 20, 1).is_identity());
    let x: Vec<f64> = (0..20).map(f64::from).collect();
    let mut out = vec![0.0; 20];
    map.project(&x, &mut out);
    assert_eq!(out, x);
}

#[test]
fn signs_are_fair_and_norms_preserved_in_expectation() {
    let (k, d) = (64, 200);
    // Fair signs: 64 * 200 * 50 = 640 000 signs; |z| < 5 (false alarm 6e-7).
    let mut plus = 0usize;
    let mut sq = Vec::new();
    let x: Vec<f64> = (0..d)
        .map(|j| if j < 2 { 0.5f64.sqrt() } else { 0.0 })
        .collect();
    for seed in 0..50u64 {
        let map = JlMap::new(k, d, seed);
        for i in 0..k {
            for j in 0..d {
                plus += usize::from(map.entry(i, j) > 0.0);
            }
        }
        let mut z = vec![0.0; k];
        map.project(&x, &mut z);
        sq.push(z.iter().map(|v| v * v).sum::<f64>());
    }
    let total = (50 * k * d) as f64;
    let zf = (plus as f64 - total / 2.0) / (total / 4.0).sqrt();
    assert!(zf.abs() < 5.0, "sign balance z = {zf}");
    // x = (e_1 + e_2)/sqrt 2: ||Phi x||^2 = 1 + (1/k) sum_i s_i1 s_i2, mean 1,
    // variance 1/k per map. Mean of 50 maps: |z| < 5 (false alarm 6e-7).
    let mean = sq.iter().sum::<f64>() / 50.0;
    let z = (mean - 1.0) / (1.0 / k as f64 / 50.0).sqrt();
    assert!(z.abs() < 5.0, "E||Phi x||^2 = {mean}, z = {z}");
}

#[test]
fn projected_margin_pipeline_of_experiment_e9() {
    use datagen::wang::{HalfspaceParams, PlantedHalfspace};
    use dpcore::halfspace::HalfspaceProblem;
    use rand::SeedableRng;
    use solvers::wang::{exact_margin, MarginOptions};
    let (n, d, g) = (200, 1500, 0.5);
    let p = PlantedHalfspace::generate(
        HalfspaceParams::isotropic(n, d, g, 0),
        &mut rand_pcg::Pcg64::seed_from_u64(3),
    )
    .unwrap();
    let len = margin_grid(n, 1.0).len();
    let k = jl_dimension(n, len, g, 1.0 / (n * n) as f64, 1.0, 1.0);
    let map = JlMap::with_dimension(k, d, 17);
    assert_eq!(map.output_dim(), k as usize);
    let z = map.project_rows(p.features());
    let mut row = vec![0.0; k as usize];
    map.project(p.row(5), &mut row);
    assert_eq!(&z[5 * row.len()..6 * row.len()], &row[..]);
    let c = exact_margin(&z, p.labels(), row.len(), None, MarginOptions::default());
    assert!(c.lower <= c.upper && c.converged);
    // Lemma 6.2's event gamma(Phi S_in) >= gamma*/3 (probability >= 1 - beta
    // at the provable constant; at C_JL = 1 it held for this fixed seed).
    assert!(c.lower >= g / 3.0, "projected margin {}", c.lower);
}

#[test]
fn clipping_bounds_every_projected_row_for_any_phi() {
    use solvers::wang::jlgd::clipped_projection;
    use std::borrow::Cow;
    // Rows of norm 5, 0.3 and 1 (the first violates ||x|| <= b = 1), and a
    // badly distorting k = 2 map: P3 needs ||scale_i z_i|| <= 2b regardless.
    let d = 6;
    let x = [
        5.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
        0.0, 0.3, 0.0, 0.0, 0.0, 0.0, //
        0.5, 0.5, 0.5, 0.5, 0.0, 0.0,
    ];
    for seed in 0..20 {
        let map = JlMap::new(2, d, seed);
        let (z, scale) = clipped_projection(&x, d, &map, 1.0, 2.0);
        for (i, (row, s)) in z.chunks_exact(2).zip(&scale).enumerate() {
            let nz = s * row.iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!(nz <= 2.0 + 1e-12, "row {i}: {nz}");
            // scale_i z_i = Phi(clip_1(x_i)) shrunk only if that exceeds 2.
            let raw = if i == 0 { 0.2 } else { 1.0 };
            let mut proj = [0.0; 2];
            map.project(&x[i * d..(i + 1) * d], &mut proj);
            let pn = raw * proj.iter().map(|v| v * v).sum::<f64>().sqrt();
            let expected = raw * if pn > 2.0 { 2.0 / pn } else { 1.0 };
            assert!((s - expected).abs() < 1e-12);
        }
    }
    let (z, scale) = clipped_projection(&x, d, &JlMap::Identity { d }, 1.0, 1.0);
    assert!(
        matches!(z, Cow::Borrowed(_)),
        "the identity does not copy the data"
    );
    assert_eq!(scale, vec![0.2, 1.0, 1.0]);
}
