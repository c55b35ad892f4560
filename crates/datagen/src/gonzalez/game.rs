//! Stochastic games over simplices (digest §6.3 G1 and G2):
//! `f(x, y; z) = x^T A(z) y + c_x phi_x(x_{k_x(z)}) - c_y phi_y(y_{k_y(z)})`
//! with `E A(z) = A_bar` ([`MeanMatrix`]), `k_x ~ p_x`, `k_y ~ p_y`, and the
//! population `F(x, y) = x^T A_bar y + psi_x(x) - psi_y(y)`
//! ([`SeparablePenalty`]; G1 is the case without penalties).
//!
//! Noise models for `A(z)` ([`GameNoise`]), generated lazily from
//! `(seed, record, coordinate)` ([`super::counter`]) so a record costs no
//! storage: rank-one `A_bar + sigma xi zeta^T` (G1(b), `O(d)` per record) and
//! sign-Bernoulli entries (G1(a), `O(d_x |supp y| + d_y |supp x|)` per record).
//!
//! **Exact gap** (digest §6.3): `Gap = M_y + psi_x(x) + M_x + psi_y(y)` with
//! `M_y = max_{w in Delta_y} <A_bar^T x, w> - psi_y(w)` and
//! `M_x = max_{v in Delta_x} <-A_bar y, v> - psi_x(v)`, each a max over
//! vertices (no penalty) or the water-filling of [`super::separable`].

use std::ops::Range;

use dpcore::saddle::{SaddleProblem, SimplexConstants, SimplexPoint};
use rand::{Rng, RngExt};

use super::matrix::MeanMatrix;
pub use super::noise::GameNoise;
use super::noise::{add_matrix_noise_with, NoiseScratch};
use super::separable::{max_linear_minus_penalty, SeparablePenalty};

/// A sampled stochastic game (module docs).
#[derive(Debug, Clone)]
pub struct SimplexGame {
    matrix: MeanMatrix,
    noise: GameNoise,
    x_penalty: Option<SeparablePenalty>,
    y_penalty: Option<SeparablePenalty>,
    k_x: Coordinates,
    k_y: Coordinates,
    n: usize,
    seed: u64,
}

fn draw_index<R: Rng + ?Sized>(cumulative: &[f64], rng: &mut R) -> u32 {
    let u: f64 = rng.random::<f64>() * cumulative[cumulative.len() - 1];
    cumulative
        .partition_point(|&c| c <= u)
        .min(cumulative.len() - 1) as u32
}

/// The records' penalty coordinates `k(z_i)`, stored in the narrowest
/// integer type that holds `d - 1`: at `d = 2^4` and `n = 1e8` (table 1's
/// `ggp_alg3_n`) two `u32` arrays took 800 MB of the run's 891 MB peak and
/// were streamed three times per record; as bytes they take 200 MB. The
/// values, and the draws that made them, are the same.
#[derive(Debug, Clone)]
enum Coordinates {
    Narrow(Vec<u8>),
    Medium(Vec<u16>),
    Wide(Vec<u32>),
}

impl Coordinates {
    /// Stores the draws (no penalty: empty).
    fn new(d: usize, draws: impl Iterator<Item = u32>) -> Self {
        // The draws are < d, so the narrowing casts below are exact.
        if d <= 1 << 8 {
            Coordinates::Narrow(draws.map(|k| k as u8).collect())
        } else if d <= 1 << 16 {
            Coordinates::Medium(draws.map(|k| k as u16).collect())
        } else {
            Coordinates::Wide(draws.collect())
        }
    }

    /// `k(z_i)`.
    #[inline]
    fn get(&self, i: usize) -> usize {
        match self {
            Coordinates::Narrow(v) => v[i] as usize,
            Coordinates::Medium(v) => v[i] as usize,
            Coordinates::Wide(v) => v[i] as usize,
        }
    }
}

fn draw_indices<R: Rng + ?Sized>(
    pen: Option<&SeparablePenalty>,
    n: usize,
    rng: &mut R,
) -> Coordinates {
    let Some(pen) = pen else {
        return Coordinates::Wide(Vec::new());
    };
    let mut acc = 0.0;
    let cumulative: Vec<f64> = pen
        .weights
        .iter()
        .map(|p| {
            acc += p;
            acc
        })
        .collect();
    let draws = (0..n).map(|_| draw_index(&cumulative, rng));
    Coordinates::new(cumulative.len(), draws)
}

impl SimplexGame {
    /// Samples a data set of `n` records: the penalty coordinates
    /// `k_x(z_i), k_y(z_i)` are drawn from `rng`, the matrix noise is keyed by
    /// a seed drawn from `rng`.
    ///
    /// # Panics
    /// If `n == 0`, a penalty's length does not match, or the noise model's
    /// entry bound (`|A(z)_ij| <= 1`) fails.
    pub fn sample<R: Rng + ?Sized>(
        matrix: MeanMatrix,
        noise: GameNoise,
        x_penalty: Option<SeparablePenalty>,
        y_penalty: Option<SeparablePenalty>,
        n: usize,
        rng: &mut R,
    ) -> Self {
        assert!(n > 0, "need at least one record");
        let (dx, dy) = matrix.dims();
        assert!(
            x_penalty.as_ref().is_none_or(|p| p.weights.len() == dx),
            "x penalty length"
        );
        assert!(
            y_penalty.as_ref().is_none_or(|p| p.weights.len() == dy),
            "y penalty length"
        );
        let bound = matrix.max_abs_bound();
        match noise {
            GameNoise::RankOne { sigma } => assert!(sigma >= 0.0 && bound + sigma <= 1.0 + 1e-12),
            GameNoise::SignBernoulli => assert!(bound <= 1.0),
            GameNoise::None => {}
        }
        let k_x = draw_indices(x_penalty.as_ref(), n, rng);
        let k_y = draw_indices(y_penalty.as_ref(), n, rng);
        let seed = rng.random();
        Self {
            matrix,
            noise,
            x_penalty,
            y_penalty,
            k_x,
            k_y,
            n,
            seed,
        }
    }

    /// The mean matrix.
    pub fn matrix(&self) -> &MeanMatrix {
        &self.matrix
    }

    /// Adds `weight * (grad f(z_i) - A_bar-part)`: the matrix noise and the
    /// penalty terms of record `i`. `phi_x`, `phi_y` hold `phi'` at every
    /// coordinate of `x`, `y` when the caller tabulated them
    /// ([`Self::penalty_table`]), else are empty.
    #[allow(clippy::too_many_arguments)]
    fn add_record_fluctuation(
        &self,
        i: usize,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        tables: (&[f64], &[f64]),
        scratch: &mut NoiseScratch,
    ) {
        add_matrix_noise_with(
            self.noise,
            &self.matrix,
            self.seed,
            i,
            x,
            y,
            weight,
            gx,
            gy,
            scratch,
        );
        self.add_record_penalties(i, x, y, weight, gx, gy, tables);
    }

    /// Adds record `i`'s penalty gradients at `(x, y)` (see
    /// [`Self::add_record_fluctuation`]).
    #[allow(clippy::too_many_arguments)]
    fn add_record_penalties(
        &self,
        i: usize,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        tables: (&[f64], &[f64]),
    ) {
        let derivative = |pen: &SeparablePenalty, table: &[f64], p: SimplexPoint<'_>, k: usize| {
            if table.is_empty() {
                pen.potential.derivative(p.coordinate(k))
            } else {
                table[k]
            }
        };
        if let Some(pen) = &self.x_penalty {
            let k = self.k_x.get(i);
            gx[k] += weight * pen.coefficient * derivative(pen, tables.0, x, k);
        }
        if let Some(pen) = &self.y_penalty {
            let k = self.k_y.get(i);
            gy[k] -= weight * pen.coefficient * derivative(pen, tables.1, y, k);
        }
    }

    /// `phi'(p_j)` for every coordinate `j` (the same values the records
    /// would compute one by one, so the same gradients bit for bit), when a
    /// batch of `records` records has at least as many records as
    /// coordinates: at `d = 16` and batches of thousands this replaces one
    /// `tanh` and one binary search per record by a load. Empty otherwise.
    fn penalty_table(
        pen: Option<&SeparablePenalty>,
        p: SimplexPoint<'_>,
        records: usize,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        if let Some(pen) = pen {
            let d = pen.weights.len();
            if records >= d {
                out.extend((0..d).map(|k| pen.potential.derivative(p.coordinate(k))));
            }
        }
    }
}

impl SaddleProblem for SimplexGame {
    fn dims(&self) -> (usize, usize) {
        self.matrix.dims()
    }
    fn num_records(&self) -> usize {
        self.n
    }
    fn constants(&self) -> SimplexConstants {
        let a = match self.noise {
            GameNoise::None => self.matrix.max_abs_bound(),
            GameNoise::RankOne { sigma } => self.matrix.max_abs_bound() + sigma,
            GameNoise::SignBernoulli => 1.0,
        };
        let pens = [self.x_penalty.as_ref(), self.y_penalty.as_ref()];
        let worst = |f: &dyn Fn(&SeparablePenalty) -> f64| {
            pens.iter()
                .flatten()
                .map(|p| p.coefficient * f(p))
                .fold(0.0, f64::max)
        };
        SimplexConstants {
            l0: a + worst(&|p| p.potential.derivative_bound()),
            l1: a + worst(&|p| p.potential.second_derivative_bound()),
            l2: worst(&|p| p.potential.third_derivative_bound()),
            affine_gradient: pens
                .iter()
                .flatten()
                .all(|p| p.potential.third_derivative_bound() == 0.0),
        }
    }
    fn accumulate_record_gradient(
        &self,
        i: usize,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        self.matrix.add_mul(weight, y, gx);
        self.matrix.add_tmul(weight, x, gy);
        let mut scratch = NoiseScratch::default();
        self.add_record_fluctuation(i, x, y, weight, gx, gy, (&[], &[]), &mut scratch);
    }
    fn batch_gradient(
        &self,
        records: Range<usize>,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        self.matrix.mul_into(y, gx);
        self.matrix.tmul_into(x, gy);
        let w = 1.0 / records.len() as f64;
        let (mut tx, mut ty) = (Vec::new(), Vec::new());
        Self::penalty_table(self.x_penalty.as_ref(), x, records.len(), &mut tx);
        Self::penalty_table(self.y_penalty.as_ref(), y, records.len(), &mut ty);
        let mut scratch = NoiseScratch::default();
        for i in records {
            self.add_record_fluctuation(i, x, y, w, gx, gy, (&tx, &ty), &mut scratch);
        }
    }
    /// With rank-one noise, one pass over the records: each record's sign
    /// words are hashed once and its penalty coordinates read once for all
    /// the points, and each output gets the operations of
    /// [`SaddleProblem::batch_gradient`] in the same order (so the same
    /// bits). Alg. 3 evaluates three points a batch: this pass took its
    /// `ggp_alg3_n` from three hashes of each record to one.
    fn batch_gradients(
        &self,
        records: Range<usize>,
        points: &[(SimplexPoint<'_>, SimplexPoint<'_>)],
        out: &mut [(&mut [f64], &mut [f64])],
    ) {
        let GameNoise::RankOne { sigma } = self.noise else {
            for (&(x, y), (gx, gy)) in points.iter().zip(out.iter_mut()) {
                self.batch_gradient(records.clone(), x, y, gx, gy);
            }
            return;
        };
        let mut tables = Vec::with_capacity(points.len());
        for (&(x, y), (gx, gy)) in points.iter().zip(out.iter_mut()) {
            self.matrix.mul_into(y, gx);
            self.matrix.tmul_into(x, gy);
            let (mut tx, mut ty) = (Vec::new(), Vec::new());
            Self::penalty_table(self.x_penalty.as_ref(), x, records.len(), &mut tx);
            Self::penalty_table(self.y_penalty.as_ref(), y, records.len(), &mut ty);
            tables.push((tx, ty));
        }
        let w = 1.0 / records.len() as f64;
        let (dx, dy) = self.matrix.dims();
        let mut scratch = NoiseScratch::default();
        for i in records {
            scratch.fill_rank_one(self.seed, i, dx, dy);
            for ((&(x, y), (gx, gy)), (tx, ty)) in points.iter().zip(out.iter_mut()).zip(&tables) {
                scratch.add_rank_one(sigma, x, y, w, gx, gy);
                self.add_record_penalties(i, x, y, w, gx, gy, (tx, ty));
            }
        }
    }
    fn population_gradient(
        &self,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        self.matrix.mul_into(y, gx);
        self.matrix.tmul_into(x, gy);
        if let Some(pen) = &self.x_penalty {
            x.for_each(|j, v| {
                gx[j] += pen.coefficient * pen.weights[j] * pen.potential.derivative(v)
            });
        }
        if let Some(pen) = &self.y_penalty {
            y.for_each(|j, v| {
                gy[j] -= pen.coefficient * pen.weights[j] * pen.potential.derivative(v)
            });
        }
    }
    fn duality_gap(&self, x: &[f64], y: &[f64]) -> f64 {
        let (dx, dy) = self.matrix.dims();
        let mut atx = vec![0.0; dy];
        self.matrix.add_tmul(1.0, SimplexPoint::Dense(x), &mut atx);
        let mut neg_ay = vec![0.0; dx];
        self.matrix
            .add_mul(-1.0, SimplexPoint::Dense(y), &mut neg_ay);
        let m_y = max_linear_minus_penalty(&atx, self.y_penalty.as_ref());
        let m_x = max_linear_minus_penalty(&neg_ay, self.x_penalty.as_ref());
        let psi_x = self.x_penalty.as_ref().map_or(0.0, |p| p.value(x));
        let psi_y = self.y_penalty.as_ref().map_or(0.0, |p| p.value(y));
        m_y + psi_x + m_x + psi_y
    }
}
