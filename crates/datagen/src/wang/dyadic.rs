//! The dyadic-basis instance: large-margin data on which every
//! `(eps, delta)`-DP learner's 0-1 error is of order `1/(n eps)`, so the
//! eps-rate of Wang–Zhu–Wang's Theorem 4.1 (`O~(1/(gamma^2 n eps))`) is
//! attained.
//!
//! **Construction.** `k` orthonormal directions `q_1..q_k` of `R^d` (a
//! uniformly random frame, never coordinate axes, for the reason the module
//! [`super`] gives for `w*`), signs `s_i = ±1`, and `c_i = 2^(i-1)` copies
//! of the record `(q_i, s_i)`: `n = 2^k - 1` records. `w* = (1/sqrt k)
//! sum_i s_i q_i` has `y <w*, x> = 1/sqrt(k)` on every record, and no unit
//! `w` does better (`min_i s_i <w, q_i> <= sqrt(sum_i <w, q_i>^2 / k) <=
//! 1/sqrt(k)`), so the margin is exactly `gamma = 1/sqrt(k)`, with no
//! outliers.
//!
//! **Why it attains the eps-rate.** Flipping `s_i` changes the `c_i` records
//! on direction `i`; by group privacy an `(eps, delta)`-DP algorithm's
//! output distributions on the two data sets are within `(c_i eps,
//! c_i e^(c_i eps) delta)`, so on a direction with `c_i eps <~ 1` it
//! misclassifies those records with probability bounded below by a
//! constant. One direction per octave of counts puts about `2/eps` records
//! on such directions, an error of order `1/(n eps)`; Theorem 4.1 bounds
//! `M*`'s by `O~(k/(n eps))` here (`1/gamma^2 = k`). Both scale as `1/eps`
//! (the logarithmic factors are in `k`, `n` and `delta`), as long as the
//! count where `c eps ~ 1` lies inside `1..2^(k-1)`.
//!
//! **Errors are exact.** Empirical and population (the same dyadic law
//! over the `k` records) 0-1 errors of any `w` are
//! `sum_i (c_i/n) 1[s_i <w, q_i> <= 0]` (ties are errors, digest P9).

use super::generator::orth_unit;
use crate::numerics::{dot, norm2};
use dpcore::halfspace::{HalfspaceProblem, PopulationError};
use rand::{Rng, RngExt};

/// Largest number of directions: `n = 2^24 - 1` records.
pub const MAX_DIRECTIONS: usize = 24;

/// A sampled dyadic-basis instance (module doc).
#[derive(Debug, Clone)]
pub struct DyadicBasisHalfspace {
    d: usize,
    /// The frame `q_1..q_k`, row `i` is `q_i` (unit norm, at most 1 in
    /// floating point).
    directions: Vec<f64>,
    /// The signs `s_i`.
    signs: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
}

impl DyadicBasisHalfspace {
    /// Draws the frame and the signs, then writes `2^(i-1)` copies of each
    /// record, direction by direction.
    ///
    /// # Errors
    /// `k` outside `2..=MAX_DIRECTIONS` or `d < k`.
    pub fn generate<R: Rng + ?Sized>(k: usize, d: usize, rng: &mut R) -> Result<Self, String> {
        if !(2..=MAX_DIRECTIONS).contains(&k) {
            return Err(format!(
                "the dyadic-basis instance needs k in 2..={MAX_DIRECTIONS} directions, got {k}"
            ));
        }
        if d < k {
            return Err(format!(
                "k = {k} orthonormal directions need d >= k, got d = {d}"
            ));
        }
        let mut frame: Vec<Vec<f64>> = Vec::with_capacity(k);
        for _ in 0..k {
            let basis: Vec<&[f64]> = frame.iter().map(Vec::as_slice).collect();
            let mut q = orth_unit(d, &basis, rng);
            // Norm at most 1 in floating point, as every row must be.
            while norm2(&q) > 1.0 {
                q.iter_mut().for_each(|v| *v *= 1.0 - f64::EPSILON);
            }
            frame.push(q);
        }
        let signs: Vec<f64> = (0..k)
            .map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 })
            .collect();
        let n = (1usize << k) - 1;
        let (mut x, mut y) = (Vec::with_capacity(n * d), Vec::with_capacity(n));
        for (i, (q, &s)) in frame.iter().zip(&signs).enumerate() {
            for _ in 0..1usize << i {
                x.extend_from_slice(q);
                y.push(s);
            }
        }
        Ok(Self {
            d,
            directions: frame.concat(),
            signs,
            x,
            y,
        })
    }

    /// Number of directions `k`.
    pub fn directions(&self) -> usize {
        self.signs.len()
    }

    /// The planted separator `w* = (1/sqrt k) sum_i s_i q_i`.
    pub fn planted_separator(&self) -> Vec<f64> {
        let scale = 1.0 / (self.directions() as f64).sqrt();
        let mut w = vec![0.0; self.d];
        for (q, &s) in self.directions.chunks_exact(self.d).zip(&self.signs) {
            w.iter_mut()
                .zip(q)
                .for_each(|(wj, qj)| *wj += scale * s * qj);
        }
        w
    }

    /// `(1/n) sum_i c_i 1[s_i <w, q_i> <= 0]`: the 0-1 error of `w` on the
    /// records, computed from the `k` directions.
    pub fn exact_error(&self, w: &[f64]) -> f64 {
        let wrong: usize = self
            .directions
            .chunks_exact(self.d)
            .zip(&self.signs)
            .enumerate()
            .filter(|(_, (q, &s))| s * dot(q, w) <= 0.0)
            .map(|(i, _)| 1usize << i)
            .sum();
        wrong as f64 / self.y.len() as f64
    }
}

impl HalfspaceProblem for DyadicBasisHalfspace {
    fn dim(&self) -> usize {
        self.d
    }
    fn num_records(&self) -> usize {
        self.y.len()
    }
    fn features(&self) -> &[f64] {
        &self.x
    }
    fn labels(&self) -> &[f64] {
        &self.y
    }
    fn true_margin(&self) -> Option<f64> {
        Some(1.0 / (self.directions() as f64).sqrt())
    }
    fn outlier_count(&self) -> usize {
        0
    }
    fn inlier_rows(&self) -> Option<Vec<usize>> {
        Some((0..self.y.len()).collect())
    }
    /// The records' law is the dyadic law itself, so the population error
    /// is the empirical one, exactly.
    fn population_error(&self, w: &[f64]) -> Option<PopulationError> {
        let error = self.exact_error(w);
        Some(PopulationError {
            error,
            clean_error: error,
            standard_error: 0.0,
            samples: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn the_instance_has_dyadic_counts_unit_rows_and_margin_one_over_sqrt_k() {
        let mut rng = Pcg64::seed_from_u64(3);
        for (k, d) in [(2, 2), (5, 9), (10, 10), (12, 40)] {
            let p = DyadicBasisHalfspace::generate(k, d, &mut rng).unwrap();
            let n = (1 << k) - 1;
            assert_eq!((p.num_records(), p.dim(), p.outlier_count()), (n, d, 0));
            let rows: Vec<&[f64]> = p.features().chunks_exact(d).collect();
            assert!(rows
                .iter()
                .all(|r| norm2(r) <= 1.0 && norm2(r) > 1.0 - 1e-12));
            // Direction i holds 2^i identical records with one label.
            let mut start = 0;
            for i in 0..k {
                let c = 1usize << i;
                assert!(rows[start..start + c].iter().all(|r| *r == rows[start]));
                assert!(p.labels()[start..start + c]
                    .iter()
                    .all(|&y| y == p.labels()[start]));
                start += c;
            }
            // Orthonormal frame.
            for i in 0..k {
                for j in 0..k {
                    let g = dot(
                        &p.directions[i * d..(i + 1) * d],
                        &p.directions[j * d..(j + 1) * d],
                    );
                    assert!(
                        (g - f64::from(u8::from(i == j))).abs() < 1e-12,
                        "{i} {j} {g}"
                    );
                }
            }
            // w* separates every record with margin 1/sqrt(k).
            let w = p.planted_separator();
            let gamma = p.true_margin().unwrap();
            assert!((norm2(&w) - 1.0).abs() < 1e-12);
            for (r, &y) in rows.iter().zip(p.labels()) {
                assert!((y * dot(r, &w) - gamma).abs() < 1e-12);
            }
            assert_eq!(p.zero_one_error(&w), 0.0);
            assert_eq!(p.exact_error(&w), 0.0);
        }
    }

    /// The exact error counts each direction's records; it agrees with the
    /// row-by-row 0-1 error for predictors that get directions wrong, and
    /// flipping the largest direction alone costs 2^(k-1)/(2^k - 1).
    #[test]
    fn the_exact_error_is_the_row_by_row_error() {
        let mut rng = Pcg64::seed_from_u64(4);
        let p = DyadicBasisHalfspace::generate(8, 12, &mut rng).unwrap();
        let d = p.dim();
        let mut w = p.planted_separator();
        let top = &p.directions[7 * d..8 * d];
        let along = dot(&w, top);
        w.iter_mut()
            .zip(top)
            .for_each(|(wj, qj)| *wj -= 2.0 * along * qj);
        assert!((p.exact_error(&w) - 128.0 / 255.0).abs() < 1e-15);
        for _ in 0..50 {
            let w: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            assert_eq!(p.exact_error(&w), p.zero_one_error(&w));
            assert_eq!(p.population_error(&w).unwrap().error, p.exact_error(&w));
        }
        assert_eq!(p.exact_error(&vec![0.0; d]), 1.0, "ties are errors");
    }

    #[test]
    fn bad_sizes_are_refused() {
        let mut rng = Pcg64::seed_from_u64(5);
        assert!(DyadicBasisHalfspace::generate(1, 4, &mut rng).is_err());
        assert!(DyadicBasisHalfspace::generate(25, 30, &mut rng).is_err());
        assert!(DyadicBasisHalfspace::generate(6, 5, &mut rng).is_err());
    }
}
