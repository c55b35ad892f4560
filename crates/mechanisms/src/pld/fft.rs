//! Linear convolution of two probability mass functions: direct for short
//! inputs, by a hand-written iterative radix-2 FFT otherwise.
//!
//! The direct sum adds non-negative terms only, so each output has a relative
//! error of a few ulps; the FFT's error is absolute, about `1e-16` times the
//! largest input mass per output bin, and can leave tiny negative values,
//! which [`convolve`] sets to zero. A privacy-loss pmf only feeds
//! `delta(eps)`-type sums, where an absolute error of `1e-19` per bin over
//! `1e5` bins is far below the `delta`s of interest (`>= 1e-12`).

use std::f64::consts::PI;

/// Below this product of the two lengths the direct `O(n m)` sum is used; it
/// is then at most as slow as the FFT and exact to rounding.
const DIRECT_BELOW: usize = 1 << 15;

/// The linear convolution `c[k] = sum_i a[i] b[k - i]` of two non-empty
/// sequences of non-negative masses (length `a.len() + b.len() - 1`), with
/// negative round-off set to zero.
pub(crate) fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    assert!(!a.is_empty() && !b.is_empty(), "empty pmf");
    let len = a.len() + b.len() - 1;
    if a.len().min(b.len()) <= 16 || a.len() * b.len() <= DIRECT_BELOW {
        let mut c = vec![0.0; len];
        for (i, &x) in a.iter().enumerate() {
            if x != 0.0 {
                for (cj, &y) in c[i..].iter_mut().zip(b) {
                    *cj += x * y;
                }
            }
        }
        return c;
    }
    let n = len.next_power_of_two();
    let twiddles = Twiddles::new(n);
    let spectrum = |x: &[f64]| {
        let mut re = vec![0.0; n];
        re[..x.len()].copy_from_slice(x);
        let mut im = vec![0.0; n];
        twiddles.transform(&mut re, &mut im, false);
        (re, im)
    };
    let (mut re, mut im) = spectrum(a);
    if std::ptr::eq(a, b) {
        for (r, i) in re.iter_mut().zip(im.iter_mut()) {
            (*r, *i) = (*r * *r - *i * *i, 2.0 * *r * *i);
        }
    } else {
        let (bre, bim) = spectrum(b);
        for k in 0..n {
            let (r, i) = (re[k], im[k]);
            re[k] = r * bre[k] - i * bim[k];
            im[k] = r * bim[k] + i * bre[k];
        }
    }
    twiddles.transform(&mut re, &mut im, true);
    let scale = 1.0 / n as f64;
    re.truncate(len);
    for x in &mut re {
        *x = (*x * scale).max(0.0);
    }
    re
}

/// `e^{-2 pi i k / n}` for `k < n/2`, each from `cos`/`sin` directly (no
/// recurrence, so no accumulated rounding).
struct Twiddles {
    n: usize,
    cos: Vec<f64>,
    sin: Vec<f64>,
}

impl Twiddles {
    fn new(n: usize) -> Self {
        debug_assert!(n.is_power_of_two());
        let (cos, sin) = (0..n / 2)
            .map(|k| {
                let angle = -2.0 * PI * k as f64 / n as f64;
                (angle.cos(), angle.sin())
            })
            .unzip();
        Self { n, cos, sin }
    }

    /// In-place iterative Cooley–Tukey transform (decimation in time, after a
    /// bit-reversal permutation); the inverse is unscaled.
    fn transform(&self, re: &mut [f64], im: &mut [f64], inverse: bool) {
        let n = self.n;
        let bits = n.trailing_zeros();
        if bits == 0 {
            return;
        }
        for i in 0..n {
            let j = i.reverse_bits() >> (usize::BITS - bits);
            if j > i {
                re.swap(i, j);
                im.swap(i, j);
            }
        }
        let sign = if inverse { -1.0 } else { 1.0 };
        let mut half = 1;
        while half < n {
            let stride = n / (2 * half);
            for start in (0..n).step_by(2 * half) {
                for k in 0..half {
                    let (wr, wi) = (self.cos[k * stride], sign * self.sin[k * stride]);
                    let (i, j) = (start + k, start + k + half);
                    let tr = wr * re[j] - wi * im[j];
                    let ti = wr * im[j] + wi * re[j];
                    re[j] = re[i] - tr;
                    im[j] = im[i] - ti;
                    re[i] += tr;
                    im[i] += ti;
                }
            }
            half *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct(a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut c = vec![0.0; a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                c[i + j] += x * y;
            }
        }
        c
    }

    /// The FFT path agrees with the direct sum to 1e-15 absolute on
    /// normalised pmfs of lengths that are not powers of two, including a
    /// self-convolution (the squaring branch).
    #[test]
    fn fft_matches_direct_sum() {
        let pmf = |n: usize, seed: f64| {
            let v: Vec<f64> = (0..n)
                .map(|i| ((i as f64 * seed).sin() + 1.1) * (-(i as f64) / n as f64).exp())
                .collect();
            let s: f64 = v.iter().sum();
            v.into_iter().map(|x| x / s).collect::<Vec<_>>()
        };
        let (a, b) = (pmf(1500, 0.37), pmf(333, 1.91));
        for (x, y) in [(&a, &b), (&a, &a)] {
            let want = direct(x, y);
            let got = convolve(x, y);
            assert_eq!(got.len(), want.len());
            let err = got
                .iter()
                .zip(&want)
                .map(|(g, w)| (g - w).abs())
                .fold(0.0, f64::max);
            assert!(err < 1e-15, "max abs error {err}");
            let total: f64 = got.iter().sum();
            assert!((total - 1.0).abs() < 1e-12, "{total}");
        }
    }
}
