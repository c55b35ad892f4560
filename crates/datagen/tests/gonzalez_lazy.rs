//! The lazily generated dense mean matrix of the González–Guzmán–Paquette
//! games (digest §6.3 G1-i/ii up to `d = 2^16`): entries are a pure
//! function of `(seed, i, j)` and within the guaranteed bound, the planted
//! saddle's structure holds, and the streamed mat-vecs and exact gap agree
//! with an explicitly materialised copy of the same matrix. Deterministic
//! (fixed seeds), small dimensions.

use datagen::gonzalez::game::{GameNoise, SimplexGame};
use datagen::gonzalez::matrix::{LazyDense, MeanMatrix, PlantedCross};
use dpcore::saddle::{SaddleProblem, SimplexPoint};
use rand::{Rng, RngExt, SeedableRng};
use rand_pcg::Pcg64;

fn random_simplex<R: Rng>(d: usize, rng: &mut R) -> Vec<f64> {
    let v: Vec<f64> = (0..d).map(|_| -rng.random::<f64>().ln()).collect();
    let s: f64 = v.iter().sum();
    v.iter().map(|a| a / s).collect()
}

/// A point of the simplex supported on `k` random coordinates (so the lazy
/// mat-vec takes its support path).
fn sparse_simplex<R: Rng>(d: usize, k: usize, rng: &mut R) -> Vec<f64> {
    let mut v = vec![0.0; d];
    for _ in 0..k {
        v[rng.random_range(0..d)] += rng.random::<f64>() + 0.1;
    }
    let s: f64 = v.iter().sum();
    v.iter().map(|a| a / s).collect()
}

fn vertex(d: usize, i: usize) -> Vec<f64> {
    let mut v = vec![0.0; d];
    v[i] = 1.0;
    v
}

fn lazy(m: &MeanMatrix) -> LazyDense {
    match m {
        MeanMatrix::Lazy(l) => l.clone(),
        other => panic!("not lazy: {other:?}"),
    }
}

#[test]
fn lazy_entries_are_deterministic_and_within_the_bound() {
    let (rows, cols, rho) = (61, 67, 0.7);
    let mut r1 = Pcg64::seed_from_u64(11);
    let mut r2 = Pcg64::seed_from_u64(11);
    let a = MeanMatrix::lazy_uniform(rows, cols, rho, &mut r1);
    let b = MeanMatrix::lazy_uniform(rows, cols, rho, &mut r2);
    let c = MeanMatrix::lazy_uniform(rows, cols, rho, &mut r1);
    assert_eq!(a, b);
    assert_eq!(a.max_abs_bound(), rho);
    let (mut sum, mut sum2, mut max, mut same_as_c) = (0.0, 0.0, 0.0f64, 0);
    // Entries are the same in any access order (columns first here).
    for j in (0..cols).rev() {
        for i in 0..rows {
            let e = a.entry(i, j);
            assert_eq!(e.to_bits(), b.entry(i, j).to_bits());
            assert_eq!(e.to_bits(), a.entry(i, j).to_bits());
            assert!((-rho..=rho).contains(&e), "{e}");
            same_as_c += usize::from(e == c.entry(i, j));
            sum += e;
            sum2 += e * e;
            max = max.max(e.abs());
        }
    }
    // Another seed gives another matrix; the entries look like U[-rho, rho]
    // (mean 0, variance rho^2/3, range close to rho): 4087 draws, so the
    // mean is within 5 standard errors and the variance within 10%.
    assert_eq!(same_as_c, 0);
    let n = (rows * cols) as f64;
    let (mean, var) = (sum / n, sum2 / n - (sum / n).powi(2));
    assert!(mean.abs() < 5.0 * rho / (3.0 * n).sqrt(), "{mean}");
    assert!((var / (rho * rho / 3.0) - 1.0).abs() < 0.1, "{var}");
    assert!(max > 0.99 * rho && max <= rho);
    // rho = 1 (the family's largest) keeps every entry in [-1, 1].
    let one = LazyDense::new(40, 40, 5, 1.0, None);
    assert!((0..40).all(|i| (0..40).all(|j| one.entry(i, j).abs() <= 1.0)));
}

#[test]
fn lazy_planted_saddle_has_its_structure_and_zero_gap() {
    let mut rng = Pcg64::seed_from_u64(12);
    for (rows, cols, rho, margin) in [(33, 29, 0.5, 0.5), (16, 16, 0.9, 0.2), (8, 40, 0.1, 1.0)] {
        let m = MeanMatrix::lazy_planted(rows, cols, rho, margin, &mut rng);
        let c = lazy(&m).cross().expect("planted");
        assert_eq!(m.max_abs_bound(), rho.max(margin));
        assert_eq!(m.entry(c.row, c.col), 0.0);
        for j in (0..cols).filter(|&j| j != c.col) {
            assert!(m.entry(c.row, j) <= -margin);
        }
        for i in (0..rows).filter(|&i| i != c.row) {
            assert!(m.entry(i, c.col) >= margin);
        }
        for i in (0..rows).filter(|&i| i != c.row) {
            for j in (0..cols).filter(|&j| j != c.col) {
                assert!(m.entry(i, j).abs() <= rho);
            }
        }
        let game = SimplexGame::sample(m.clone(), GameNoise::None, None, None, 4, &mut rng);
        assert_eq!(
            game.duality_gap(&vertex(rows, c.row), &vertex(cols, c.col)),
            0.0
        );
        // Moving off the saddle costs at least the margin on that side.
        let off = (c.col + 1) % cols;
        assert!(game.duality_gap(&vertex(rows, c.row), &vertex(cols, off)) >= margin);
    }
}

#[test]
fn lazy_mat_vecs_and_gap_match_a_materialised_copy() {
    let mut rng = Pcg64::seed_from_u64(13);
    let cross = PlantedCross {
        row: 3,
        col: 50,
        margin: 0.4,
    };
    let matrices = [
        MeanMatrix::lazy_uniform(45, 51, 0.6, &mut rng),
        MeanMatrix::lazy_planted(64, 64, 0.5, 0.5, &mut rng),
        MeanMatrix::Lazy(LazyDense::new(37, 53, 99, 0.8, Some(cross))),
        // Cross in the first row and the last column (edge stretches).
        MeanMatrix::Lazy(LazyDense::new(
            9,
            7,
            3,
            0.3,
            Some(PlantedCross {
                row: 0,
                col: 6,
                margin: 0.7,
            }),
        )),
    ];
    for m in matrices {
        let stored = m.materialise();
        assert!(matches!(stored, MeanMatrix::Dense { .. }));
        let (dx, dy) = m.dims();
        for i in 0..dx {
            for j in 0..dy {
                assert_eq!(m.entry(i, j).to_bits(), stored.entry(i, j).to_bits());
            }
        }
        let lazy_game = SimplexGame::sample(m.clone(), GameNoise::None, None, None, 3, &mut rng);
        let stored_game =
            SimplexGame::sample(stored.clone(), GameNoise::None, None, None, 3, &mut rng);
        let points = |rng: &mut Pcg64| {
            [
                (random_simplex(dx, rng), random_simplex(dy, rng)),
                (sparse_simplex(dx, 3, rng), sparse_simplex(dy, 2, rng)),
                (random_simplex(dx, rng), sparse_simplex(dy, 1, rng)),
            ]
        };
        for (x, y) in points(&mut rng) {
            let (gl, gs) = (
                lazy_game.duality_gap(&x, &y),
                stored_game.duality_gap(&x, &y),
            );
            assert!((gl - gs).abs() <= 1e-12, "{gl} vs {gs}");
            assert!(gl >= 0.0);
            let (mut ol, mut os) = (vec![0.5; dx], vec![0.5; dx]);
            m.add_mul(-2.0, SimplexPoint::Dense(&y), &mut ol);
            stored.add_mul(-2.0, SimplexPoint::Dense(&y), &mut os);
            assert!(ol.iter().zip(&os).all(|(p, q)| (p - q).abs() <= 1e-12));
            let (mut tl, mut ts) = (vec![0.0; dy], vec![0.0; dy]);
            m.add_tmul(1.5, SimplexPoint::Dense(&x), &mut tl);
            stored.add_tmul(1.5, SimplexPoint::Dense(&x), &mut ts);
            assert!(tl.iter().zip(&ts).all(|(p, q)| (p - q).abs() <= 1e-12));
        }
        // Sparse points (the Maurey points of the algorithms).
        let idx: Vec<usize> = vec![0, dy / 2, dy - 1];
        let w = [0.2, 0.5, 0.3];
        let sp = SimplexPoint::Sparse {
            indices: &idx,
            weights: &w,
        };
        let (mut ol, mut os) = (vec![0.0; dx], vec![0.0; dx]);
        m.add_mul(1.0, sp, &mut ol);
        stored.add_mul(1.0, sp, &mut os);
        assert!(ol.iter().zip(&os).all(|(p, q)| (p - q).abs() <= 1e-12));
        let xi: Vec<usize> = vec![0, dx - 1];
        let xw = [0.6, 0.4];
        let xp = SimplexPoint::Sparse {
            indices: &xi,
            weights: &xw,
        };
        let (mut tl, mut ts) = (vec![0.0; dy], vec![0.0; dy]);
        m.add_tmul(1.0, xp, &mut tl);
        stored.add_tmul(1.0, xp, &mut ts);
        assert!(tl.iter().zip(&ts).all(|(p, q)| (p - q).abs() <= 1e-12));
    }
}

#[test]
fn cached_entries_give_the_uncached_results_bit_for_bit() {
    let mut rng = Pcg64::seed_from_u64(15);
    let corner = PlantedCross {
        row: 0,
        col: 52,
        margin: 0.7,
    };
    for m in [
        LazyDense::new(45, 51, 4, 0.6, None),
        LazyDense::new(37, 53, 99, 0.8, Some(corner)),
        LazyDense::new(
            64,
            64,
            8,
            0.5,
            Some(PlantedCross {
                row: 40,
                col: 17,
                margin: 0.5,
            }),
        ),
        LazyDense::new(3, 2, 1, 0.5, None),
    ] {
        let c = m.clone().cached();
        assert!(c.is_cached() && !m.is_cached());
        assert_eq!(c, m);
        let (dx, dy) = m.dims();
        for i in 0..dx {
            for j in 0..dy {
                assert_eq!(c.entry(i, j).to_bits(), m.entry(i, j).to_bits());
            }
        }
        let (m, c) = (MeanMatrix::Lazy(m), MeanMatrix::Lazy(c));
        for (x, y) in [
            (random_simplex(dx, &mut rng), random_simplex(dy, &mut rng)),
            (
                sparse_simplex(dx, 2, &mut rng),
                sparse_simplex(dy, 1, &mut rng),
            ),
            (vertex(dx, 0), random_simplex(dy, &mut rng)),
        ] {
            let (mut om, mut oc) = (vec![0.25; dx], vec![0.25; dx]);
            m.add_mul(-1.5, SimplexPoint::Dense(&y), &mut om);
            c.add_mul(-1.5, SimplexPoint::Dense(&y), &mut oc);
            assert_eq!(om, oc);
            let (mut tm, mut tc) = (vec![0.25; dy], vec![0.25; dy]);
            m.add_tmul(0.5, SimplexPoint::Dense(&x), &mut tm);
            c.add_tmul(0.5, SimplexPoint::Dense(&x), &mut tc);
            assert_eq!(tm, tc);
            let gm = SimplexGame::sample(m.clone(), GameNoise::None, None, None, 2, &mut rng);
            let gc = SimplexGame::sample(c.clone(), GameNoise::None, None, None, 2, &mut rng);
            assert_eq!(
                gm.duality_gap(&x, &y).to_bits(),
                gc.duality_gap(&x, &y).to_bits()
            );
        }
    }
}

#[test]
fn lazy_games_at_large_d_need_no_quadratic_storage() {
    // d = 2^16: constructing the game and one gradient at a vertex pair
    // streams one row and one column (2^17 entries), no 2^32 storage.
    let d = 1 << 16;
    let mut rng = Pcg64::seed_from_u64(14);
    let m = MeanMatrix::lazy_planted(d, d, 0.5, 0.5, &mut rng);
    let c = lazy(&m).cross().unwrap();
    let game = SimplexGame::sample(
        m,
        GameNoise::RankOne { sigma: 0.5 },
        None,
        None,
        10,
        &mut rng,
    );
    assert_eq!(game.constants().l0, 1.0);
    let (i, j) = ((c.row + 1) % d, (c.col + 1) % d);
    let (ix, iy) = ([i], [j]);
    let one = [1.0];
    let (mut gx, mut gy) = (vec![0.0; d], vec![0.0; d]);
    game.population_gradient(
        SimplexPoint::Sparse {
            indices: &ix,
            weights: &one,
        },
        SimplexPoint::Sparse {
            indices: &iy,
            weights: &one,
        },
        &mut gx,
        &mut gy,
    );
    // grad_x = A_bar e_j (column j), grad_y = A_bar^T e_i (row i).
    assert_eq!(gx[c.row], -0.5);
    assert_eq!(gy[c.col], 0.5);
    assert!(gx.iter().chain(&gy).all(|g| g.abs() <= 0.5));
    assert_eq!(gx[i], game.matrix().entry(i, j));
}
