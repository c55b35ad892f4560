//! Numerical kernels shared by the Newton-certified families (logistic,
//! tilted ERM, adversarial) and the sphere-with-atom evaluators: Euclidean
//! vector helpers, the stable softplus/sigmoid pieces of digest P15, and
//! Neumaier-compensated accumulators.

/// Euclidean norm.
pub fn norm2(x: &[f64]) -> f64 {
    dot(x, x).sqrt()
}

/// Dot product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// Euclidean distance `||a - b||`.
pub fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(u, v)| (u - v) * (u - v))
        .sum::<f64>()
        .sqrt()
}

/// `(w - v, w + v)` componentwise: the two factors of the cancellation-free
/// excess `q(w) - q(v) = (w - v).(w + v)` of a quadratic term (digest P15).
pub fn difference_and_sum(w: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let diff = w.iter().zip(v).map(|(a, b)| a - b).collect();
    let sum = w.iter().zip(v).map(|(a, b)| a + b).collect();
    (diff, sum)
}

/// Stable `softplus(u) = log(1 + e^u) = max(u, 0) + log1p(e^{-|u|})` (digest P15).
pub fn softplus(u: f64) -> f64 {
    u.max(0.0) + (-u.abs()).exp().ln_1p()
}

/// The logistic sigmoid, shared with the solvers (`dpcore::numerics`).
pub use dpcore::numerics::sigmoid;

/// `softplus(a) - softplus(b)` given `delta = a - b` computed without
/// cancellation: `log1p(sigmoid(b) expm1(delta))` (exact identity, since
/// `(1 + e^a)/(1 + e^b) = 1 + sigmoid(b) (e^delta - 1)`) for `|delta| <= 1`,
/// the plain difference otherwise (digest P15).
pub fn softplus_diff(a: f64, b: f64, delta: f64) -> f64 {
    if delta.abs() <= 1.0 {
        (sigmoid(b) * delta.exp_m1()).ln_1p()
    } else {
        softplus(a) - softplus(b)
    }
}

/// Neumaier-compensated accumulator of a sum of vectors, so that full
/// gradients over up to `1e6` records carry `O(eps)` rather than
/// `O(sqrt(n) eps)` rounding (the gradient norm is the ground-truth certificate).
#[derive(Debug, Clone)]
pub struct CompensatedVec {
    sum: Vec<f64>,
    comp: Vec<f64>,
}

impl CompensatedVec {
    /// A zero vector of length `d`.
    pub fn zeros(d: usize) -> Self {
        Self {
            sum: vec![0.0; d],
            comp: vec![0.0; d],
        }
    }

    /// Adds `a * x`.
    #[inline(always)]
    pub fn add_scaled(&mut self, a: f64, x: &[f64]) {
        for ((s, c), xj) in self.sum.iter_mut().zip(self.comp.iter_mut()).zip(x) {
            *c += neumaier_step(s, a * xj);
        }
    }

    /// Adds `a[0] * x[0]`, then `a[1] * x[1]`, `a[2] * x[2]` and
    /// `a[3] * x[3]`: bit for bit four [`CompensatedVec::add_scaled`] calls
    /// in that order (each coordinate sees the same operations in the same
    /// order), in one pass that keeps each coordinate's sum and
    /// compensation in registers across the four rows.
    #[inline(always)]
    pub fn add_scaled4(&mut self, a: [f64; 4], x: [&[f64]; 4]) {
        let rows = x[0].iter().zip(x[1]).zip(x[2]).zip(x[3]);
        for ((s, c), (((x0, x1), x2), x3)) in
            self.sum.iter_mut().zip(self.comp.iter_mut()).zip(rows)
        {
            let (mut sj, mut cj) = (*s, *c);
            cj += neumaier_step(&mut sj, a[0] * x0);
            cj += neumaier_step(&mut sj, a[1] * x1);
            cj += neumaier_step(&mut sj, a[2] * x2);
            cj += neumaier_step(&mut sj, a[3] * x3);
            (*s, *c) = (sj, cj);
        }
    }

    /// The compensated total.
    pub fn total(&self) -> Vec<f64> {
        self.sum
            .iter()
            .zip(&self.comp)
            .map(|(s, c)| s + c)
            .collect()
    }
}

/// The row-streaming passes' prefetch distance and threshold, shared with
/// the solvers (`dpcore::prefetch`).
pub use dpcore::prefetch::{PREFETCH_MIN_LEN, PREFETCH_ROWS};

/// `[dot(w, x[0]), .., dot(w, x[3])]`, each bit for bit equal to [`dot`]
/// (the same products summed in the same order from the same `-0.0` that
/// `Sum for f64` starts from), with the four chains of additions
/// interleaved so that they overlap instead of waiting on each other.
#[inline(always)]
pub fn dot4(w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
    let mut acc = [-0.0f64; 4];
    let rows = x[0].iter().zip(x[1]).zip(x[2]).zip(x[3]);
    for (wj, (((x0, x1), x2), x3)) in w.iter().zip(rows) {
        acc[0] += wj * x0;
        acc[1] += wj * x1;
        acc[2] += wj * x2;
        acc[3] += wj * x3;
    }
    acc
}

/// The compensated sum `sum_i coefficient(w.x_i, y_i) x_i` over labelled
/// rows `(x_i, y_i)` of length `w.len()`: the data term of a GLM gradient
/// (e.g. `coefficient(u, y) = -y sigmoid(-y u)` for the logistic loss).
///
/// Bit for bit the row-by-row loop
/// `acc.add_scaled(coefficient(dot(w, x), y), x)`, but four rows at a time
/// ([`dot4`], [`CompensatedVec::add_scaled4`]), so that a pass over a large
/// data set is not limited by the latency of one row's dot product, and,
/// for rows of at least [`PREFETCH_MIN_LEN`] coordinates, with the features
/// of the row [`PREFETCH_ROWS`] ahead hinted to the cache
/// ([`dpcore::prefetch`]): reading four rows side by side defeats the
/// hardware's stream detection once rows span a kilobyte (`d = 128`:
/// without the hint the blocked pass was slower than the plain loop on data
/// larger than the cache). A hint never changes a result.
pub fn compensated_glm_sum<'a>(
    rows: impl Iterator<Item = (&'a [f64], f64)> + Clone,
    w: &[f64],
    coefficient: impl FnMut(f64, f64) -> f64,
) -> CompensatedVec {
    compensated_glm_sum_at(dpcore::simd::level(), rows, w, coefficient)
}

dpcore::dispatch_by_level! {
    /// [`compensated_glm_sum`] at `level`: at AVX2 or wider, on a CPU with AVX2,
    /// a copy of the same code compiled for AVX2 (the same operations in the
    /// same order, so the same bits; [`dpcore::simd`]). The compensated updates
    /// of a coordinate are independent across coordinates, and four-double
    /// registers run 1.4-1.5 times as fast as the baseline's two-double ones at
    /// d = 128 (`datagen.full_gradient`, one thread: 15.8-17.3 ms against
    /// 23.5-25.4 for `logistic` and `logistic_glm` at n = 125 000) and 1.12
    /// times at d = 16 (27.7-27.9 ms against 31.1-31.2 at n = 1e6).
    fn compensated_glm_sum_at<'a>(
        rows: impl Iterator<Item = (&'a [f64], f64)> + Clone,
        w: &[f64],
        coefficient: impl FnMut(f64, f64) -> f64,
    ) -> CompensatedVec => compensated_glm_sum_portable
}

/// The pass itself, inlined into each level's copy.
#[inline(always)]
fn compensated_glm_sum_portable<'a>(
    rows: impl Iterator<Item = (&'a [f64], f64)> + Clone,
    w: &[f64],
    mut coefficient: impl FnMut(f64, f64) -> f64,
) -> CompensatedVec {
    let mut acc = CompensatedVec::zeros(w.len());
    let mut block: [(&[f64], f64); 4] = [(&[], 0.0); 4];
    let mut len = 0;
    let mut ahead = rows.clone().skip(PREFETCH_ROWS);
    let hint = w.len() >= PREFETCH_MIN_LEN;
    for row in rows {
        if hint {
            if let Some((x, _)) = ahead.next() {
                dpcore::prefetch::prefetch_slice(x);
            }
        }
        block[len] = row;
        len += 1;
        if len == block.len() {
            let x = block.map(|(x, _)| x);
            let u = dot4(w, x);
            let a = std::array::from_fn(|k| coefficient(u[k], block[k].1));
            acc.add_scaled4(a, x);
            len = 0;
        }
    }
    for &(x, y) in &block[..len] {
        acc.add_scaled(coefficient(dot(w, x), y), x);
    }
    acc
}

/// Column means of a row-major matrix with `d` columns (at least one row),
/// each column summed with a [`CompensatedVec`] so the means carry no
/// accumulated rounding.
pub fn column_means(data: &[f64], d: usize) -> Vec<f64> {
    let rows = data.chunks_exact(d);
    let n = rows.len() as f64;
    let mut acc = CompensatedVec::zeros(d);
    rows.for_each(|x| acc.add_scaled(1.0, x));
    acc.total().iter().map(|s| s / n).collect()
}

/// Neumaier-compensated scalar sum.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompensatedSum {
    sum: f64,
    comp: f64,
}

impl CompensatedSum {
    /// Adds `x`.
    pub fn add(&mut self, x: f64) {
        self.comp += neumaier_step(&mut self.sum, x);
    }

    /// The compensated total.
    pub fn total(&self) -> f64 {
        self.sum + self.comp
    }
}

/// `s += x`, returning the rounding error of that addition.
///
/// Knuth's branch-free TwoSum. Neumaier's step, `(s - t) + x` if
/// `|s| >= |x|` else `(x - t) + s`, is Dekker's Fast2Sum with the operands
/// ordered; both are error-free transformations that return the exact
/// rounding error `(s + x) - fl(s + x)` (barring overflow), so the results
/// are bit-identical, and TwoSum's six operations vectorise without the
/// compare-and-blend of the ordered form.
#[inline(always)]
fn neumaier_step(s: &mut f64, x: f64) -> f64 {
    let t = *s + x;
    let x_part = t - *s;
    let err = (*s - (t - x_part)) + (x - x_part);
    *s = t;
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values over many binades, with exact and signed zeros.
    fn values(count: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..count)
            .map(|k| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let mantissa = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                let exponent = ((state >> 3) % 61) as i32 - 30;
                match k % 13 {
                    0 => -0.0,
                    5 => 0.0,
                    _ => mantissa * 2f64.powi(exponent),
                }
            })
            .collect()
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The ordered (Neumaier) step that [`neumaier_step`] replaced.
    fn ordered_step(s: &mut f64, x: f64) -> f64 {
        let t = *s + x;
        let err = if s.abs() >= x.abs() {
            (*s - t) + x
        } else {
            (x - t) + *s
        };
        *s = t;
        err
    }

    #[test]
    fn two_sum_returns_the_ordered_steps_error_bit_for_bit() {
        let (xs, ys) = (values(20_000, 1), values(20_000, 2));
        for (&a, &b) in xs.iter().zip(&ys) {
            for (a, b) in [(a, b), (b, a), (a, -a), (a, a), (-0.0, b), (a, -0.0)] {
                let (mut s1, mut s2) = (a, a);
                let (e1, e2) = (neumaier_step(&mut s1, b), ordered_step(&mut s2, b));
                assert_eq!(
                    (s1.to_bits(), e1.to_bits()),
                    (s2.to_bits(), e2.to_bits()),
                    "{a} + {b}"
                );
            }
        }
    }

    #[test]
    fn branch_free_sigmoid_equals_the_two_branch_form() {
        let reference = |u: f64| {
            if u >= 0.0 {
                1.0 / (1.0 + (-u).exp())
            } else {
                let e = u.exp();
                e / (1.0 + e)
            }
        };
        let mut us = values(20_000, 3);
        us.extend([
            0.0,
            -0.0,
            745.0,
            -745.0,
            1e-320,
            -1e-320,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]);
        for u in us.iter().flat_map(|&u| [u, 1e6 * u, 1e-6 * u]) {
            assert_eq!(sigmoid(u).to_bits(), reference(u).to_bits(), "u = {u}");
        }
        assert!(sigmoid(f64::NAN).is_nan());
    }

    #[test]
    fn blocked_kernels_equal_the_row_by_row_loop_bit_for_bit() {
        for d in [1, 3, 16] {
            let w = values(d, 4);
            for n in 0..11 {
                let x = values(n * d, 5 + n as u64);
                let y: Vec<f64> = (0..n)
                    .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
                    .collect();
                let coefficient = |u: f64, y: f64| -y * sigmoid(-y * u);
                let mut reference = CompensatedVec::zeros(d);
                for (row, &label) in x.chunks_exact(d).zip(&y) {
                    reference.add_scaled(coefficient(dot(&w, row), label), row);
                }
                let rows = x.chunks_exact(d).zip(y.iter().copied());
                let blocked = compensated_glm_sum(rows, &w, coefficient);
                assert_eq!(
                    bits(&blocked.total()),
                    bits(&reference.total()),
                    "d={d} n={n}"
                );
                if n >= 4 {
                    let block: [&[f64]; 4] = std::array::from_fn(|k| &x[k * d..(k + 1) * d]);
                    let expected: Vec<f64> = block.iter().map(|row| dot(&w, row)).collect();
                    assert_eq!(bits(&dot4(&w, block)), bits(&expected), "dot4 d={d}");
                }
            }
        }
    }
}

#[cfg(test)]
mod level_tests {
    use super::compensated_glm_sum_at;
    use dpcore::simd::{supported_levels, SimdLevel};
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    #[test]
    fn every_vector_level_of_the_compensated_pass_gives_the_same_bits() {
        let mut rng = Pcg64::seed_from_u64(3);
        // Row counts around the block of four, rows shorter and longer than
        // a register and than the prefetch threshold (64), and a coefficient
        // closure with state (as the loss-summing passes use).
        for (n, d) in [
            (1, 1),
            (3, 5),
            (4, 4),
            (17, 7),
            (33, 16),
            (40, 13),
            (64, 100),
            (9, 257),
        ] {
            let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f64> = (0..n)
                .map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 })
                .collect();
            let w: Vec<f64> = (0..d).map(|_| rng.random_range(-3.0..3.0)).collect();
            let bits = |level: SimdLevel| {
                let mut seen = 0.0;
                let rows = x.chunks_exact(d).zip(y.iter().copied());
                let acc = compensated_glm_sum_at(level, rows, &w, |u, yi| {
                    seen += u * yi;
                    -yi * dpcore::numerics::sigmoid(-yi * u)
                });
                let mut b: Vec<u64> = acc.total().iter().map(|v| v.to_bits()).collect();
                b.push(f64::to_bits(seen));
                b
            };
            let scalar = bits(SimdLevel::Scalar);
            for level in supported_levels() {
                assert_eq!(bits(level), scalar, "{level:?}, n = {n}, d = {d}");
            }
        }
    }
}
