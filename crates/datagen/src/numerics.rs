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

/// Stable logistic sigmoid `1 / (1 + e^{-u})`, never overflowing.
pub fn sigmoid(u: f64) -> f64 {
    if u >= 0.0 {
        1.0 / (1.0 + (-u).exp())
    } else {
        let e = u.exp();
        e / (1.0 + e)
    }
}

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
    pub fn add_scaled(&mut self, a: f64, x: &[f64]) {
        for ((s, c), xj) in self.sum.iter_mut().zip(self.comp.iter_mut()).zip(x) {
            *c += neumaier_step(s, a * xj);
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
fn neumaier_step(s: &mut f64, x: f64) -> f64 {
    let t = *s + x;
    let err = if s.abs() >= x.abs() {
        (*s - t) + x
    } else {
        (x - t) + *s
    };
    *s = t;
    err
}
