//! Constructors of the mean matrices of digest §6.3 G1 i–iv: dense
//! i.i.d. and dense with a planted pure saddle (stored, or generated lazily
//! up to `d = 2^16`), low rank with a planted cross (up to `d = 2^20`) and
//! the separable sanity game.

use rand::{Rng, RngExt};

use super::matrix::{LazyDense, MeanMatrix, PlantedCross, RankOneTerm, MAX_RANK};

fn uniform_vec<R: Rng + ?Sized>(len: usize, rho: f64, rng: &mut R) -> Vec<f64> {
    (0..len).map(|_| rng.random_range(-rho..=rho)).collect()
}

/// A planted cross at a uniformly drawn `(i*, j*)` (row first, then column)
/// with margin `margin`: the one draw every planted instance shares.
fn draw_cross<R: Rng + ?Sized>(rows: usize, cols: usize, margin: f64, rng: &mut R) -> PlantedCross {
    let row = rng.random_range(0..rows);
    let col = rng.random_range(0..cols);
    PlantedCross { row, col, margin }
}

impl MeanMatrix {
    /// G1-i: i.i.d. `U[-rho, rho]` entries.
    pub fn dense_uniform<R: Rng + ?Sized>(rows: usize, cols: usize, rho: f64, rng: &mut R) -> Self {
        MeanMatrix::Dense {
            rows,
            cols,
            data: uniform_vec(rows * cols, rho, rng),
        }
    }

    /// G1-ii: i.i.d. `U[-rho, rho]` entries and a planted cross at a uniformly
    /// drawn `(i*, j*)` with margin `margin` (module docs).
    pub fn dense_planted<R: Rng + ?Sized>(
        rows: usize,
        cols: usize,
        rho: f64,
        margin: f64,
        rng: &mut R,
    ) -> Self {
        let mut data = uniform_vec(rows * cols, rho, rng);
        let PlantedCross { row: r, col: c, .. } = draw_cross(rows, cols, margin, rng);
        for j in 0..cols {
            data[r * cols + j] = -margin;
        }
        for i in 0..rows {
            data[i * cols + c] = margin;
        }
        data[r * cols + c] = 0.0;
        MeanMatrix::Dense { rows, cols, data }
    }

    /// G1-i generated lazily ([`LazyDense`]): i.i.d. `U[-rho, rho]` entries
    /// keyed by a seed drawn from `rng`; no `d^2` storage.
    pub fn lazy_uniform<R: Rng + ?Sized>(rows: usize, cols: usize, rho: f64, rng: &mut R) -> Self {
        MeanMatrix::Lazy(LazyDense::new(rows, cols, rng.random(), rho, None))
    }

    /// G1-ii generated lazily ([`LazyDense`]): i.i.d. `U[-rho, rho]` entries
    /// keyed by a seed drawn from `rng`, then a planted cross at a uniformly
    /// drawn `(i*, j*)` with margin `margin` (row `i*` is `-margin`, column
    /// `j*` is `+margin`, `A_bar[i*][j*] = 0`); no `d^2` storage.
    pub fn lazy_planted<R: Rng + ?Sized>(
        rows: usize,
        cols: usize,
        rho: f64,
        margin: f64,
        rng: &mut R,
    ) -> Self {
        let seed = rng.random();
        let cross = draw_cross(rows, cols, margin, rng);
        MeanMatrix::Lazy(LazyDense::new(rows, cols, seed, rho, Some(cross)))
    }

    /// G1-iii: `rho sum_{k<rank} u_k v_k^T / rank` with `u_k, v_k` i.i.d.
    /// `U[-1, 1]` entries (so `|entries| <= rho`) and a planted cross at a
    /// uniformly drawn `(i*, j*)` with margin `margin`.
    ///
    /// # Panics
    /// If `rank` is 0 or exceeds [`MAX_RANK`].
    pub fn low_rank_planted<R: Rng + ?Sized>(
        rows: usize,
        cols: usize,
        rank: usize,
        rho: f64,
        margin: f64,
        rng: &mut R,
    ) -> Self {
        assert!(
            (1..=MAX_RANK).contains(&rank),
            "rank must be in 1..={MAX_RANK}"
        );
        let terms = (0..rank)
            .map(|_| RankOneTerm {
                coefficient: rho / rank as f64,
                u: uniform_vec(rows, 1.0, rng),
                v: uniform_vec(cols, 1.0, rng),
            })
            .collect();
        let cross = draw_cross(rows, cols, margin, rng);
        MeanMatrix::LowRank {
            rows,
            cols,
            terms,
            cross: Some(cross),
        }
    }

    /// G1-iv: the separable sanity game `A_bar[i][j] = (a_i - b_j) / 2`
    /// (`|a_i|, |b_j| <= 1`), whose gap is
    /// `(<a, x> - min a)/2 + (<b, y> - min b)/2`.
    pub fn separable(a: Vec<f64>, b: Vec<f64>) -> Self {
        let (rows, cols) = (a.len(), b.len());
        let terms = vec![
            RankOneTerm {
                coefficient: 0.5,
                u: a,
                v: vec![1.0; cols],
            },
            RankOneTerm {
                coefficient: -0.5,
                u: vec![1.0; rows],
                v: b,
            },
        ];
        MeanMatrix::LowRank {
            rows,
            cols,
            terms,
            cross: None,
        }
    }
}
