//! Exact one-sided Clopper–Pearson bounds for a binomial proportion.
//!
//! The lower bound at level `a` for `k` successes in `n` trials is the `p`
//! at which `P[Bin(n, p) >= k] = a` (the Beta quantile
//! `Beta^{-1}(a; k, n - k + 1)`); the upper bound is the `p` at which
//! `P[Bin(n, p) <= k] = a`. The tails are summed in log space from a
//! compensated table of `ln k!` and inverted by bisection to adjacent
//! `f64`s: at the levels an audit uses (down to 1e-9) and `n` up to 1e7,
//! the Beta quantile of a general-purpose library loses digits in the
//! extreme tail, and an audit's verdict sits exactly there.

/// `ln k!` for `k = 0..=n`, by Neumaier-compensated cumulative sums of `ln i`
/// (plain summation drifts by about `n * 1e-16` relative, which at
/// `n = 1e6` moves a `1e-8`-level bound in its sixth digit).
pub(crate) fn ln_factorials(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    let (mut sum, mut comp) = (0.0f64, 0.0f64);
    out.push(0.0);
    for i in 1..=n {
        let term = (i as f64).ln();
        let t = sum + term;
        if sum.abs() >= term.abs() {
            comp += (sum - t) + term;
        } else {
            comp += (term - t) + sum;
        }
        sum = t;
        out.push(sum + comp);
    }
    out
}

/// Halves `[lo, hi]` to adjacent `f64`s (at most 200 steps) keeping
/// `below(lo)` true and `below(hi)` false; returns the final bracket.
pub(crate) fn bisect(mut lo: f64, mut hi: f64, below: impl Fn(f64) -> bool) -> (f64, f64) {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// Clopper–Pearson bounds for `n` Bernoulli trials (the table of `ln k!` is
/// built once per `n`).
#[derive(Debug, Clone)]
pub struct ClopperPearson {
    n: usize,
    ln_fact: Vec<f64>,
}

impl ClopperPearson {
    /// Bounds for `n >= 1` trials.
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "Clopper–Pearson needs at least one trial");
        Self {
            n,
            ln_fact: ln_factorials(n),
        }
    }

    /// Number of trials.
    pub fn trials(&self) -> usize {
        self.n
    }

    fn ln_pmf(&self, k: usize, p: f64) -> f64 {
        let n = self.n;
        self.ln_fact[n] - self.ln_fact[k] - self.ln_fact[n - k]
            + k as f64 * p.ln()
            + (n - k) as f64 * (-p).ln_1p()
    }

    /// `ln P[Bin(n, p) >= k]` for `p <= k/n` (terms decrease from `j = k`).
    fn ln_upper_tail(&self, k: usize, p: f64) -> f64 {
        let ratio = p / (1.0 - p);
        let (mut term, mut sum) = (1.0f64, 1.0f64);
        for j in k..self.n {
            term *= (self.n - j) as f64 / (j + 1) as f64 * ratio;
            sum += term;
            if term < 1e-18 * sum {
                break;
            }
        }
        self.ln_pmf(k, p) + sum.ln()
    }

    /// `ln P[Bin(n, p) <= k]` for `p >= k/n` (terms decrease from `j = k`).
    fn ln_lower_tail(&self, k: usize, p: f64) -> f64 {
        let ratio = (1.0 - p) / p;
        let (mut term, mut sum) = (1.0f64, 1.0f64);
        for j in (1..=k).rev() {
            term *= j as f64 / (self.n - j + 1) as f64 * ratio;
            sum += term;
            if term < 1e-18 * sum {
                break;
            }
        }
        self.ln_pmf(k, p) + sum.ln()
    }

    /// Lower bound at level `a` for `k <= n` successes: the `p` with
    /// `P[Bin(n, p) >= k] = a` (0 when `k = 0`), so that
    /// `P[p_true < bound] <= a`.
    pub fn lower(&self, k: usize, a: f64) -> f64 {
        assert!(k <= self.n, "k = {k} successes in {} trials", self.n);
        assert!(a > 0.0 && a < 1.0, "level {a} must lie in (0, 1)");
        if k == 0 {
            return 0.0;
        }
        // P[Bin(n, p) >= k] increases with p: below the bound it is < a.
        let target = a.ln();
        bisect(0.0, k as f64 / self.n as f64, |p| {
            self.ln_upper_tail(k, p) < target
        })
        .0
    }

    /// Upper bound at level `a` for `k <= n` successes: the `p` with
    /// `P[Bin(n, p) <= k] = a` (1 when `k = n`), so that
    /// `P[p_true > bound] <= a`.
    pub fn upper(&self, k: usize, a: f64) -> f64 {
        assert!(k <= self.n, "k = {k} successes in {} trials", self.n);
        assert!(a > 0.0 && a < 1.0, "level {a} must lie in (0, 1)");
        if k == self.n {
            return 1.0;
        }
        // P[Bin(n, p) <= k] decreases with p: below the bound it is >= a.
        let target = a.ln();
        bisect(k as f64 / self.n as f64, 1.0, |p| {
            self.ln_lower_tail(k, p) >= target
        })
        .1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed forms (`k = 0`: upper `1 - a^(1/n)`; `k = n`: lower `a^(1/n)`),
    /// a direct f64 binomial sum for n = 20, and mpmath references (binomial
    /// tails at 30 digits with `loggamma`; the n = 20 case also with
    /// `betainc`) to 1e-9 relative.
    #[test]
    fn matches_closed_forms_direct_sums_and_mpmath() {
        let cp20 = ClopperPearson::new(20);
        let a = 0.01f64;
        assert!((cp20.upper(0, a) - (1.0 - a.powf(1.0 / 20.0))).abs() < 1e-14);
        assert!((cp20.lower(20, a) - a.powf(1.0 / 20.0)).abs() < 1e-14);
        let (lo, hi) = (cp20.lower(5, a), cp20.upper(5, a));
        assert!((lo / 0.068_845_018_801_241_43 - 1.0).abs() < 1e-9, "{lo}");
        assert!((hi / 0.532_106_408_953_461_8 - 1.0).abs() < 1e-9, "{hi}");
        let binom =
            |n: u64, k: u64| (0..k).fold(1.0f64, |c, i| c * (n - i) as f64 / (i + 1) as f64);
        let tail_ge = |k: u64, p: f64| {
            (k..=20)
                .map(|j| binom(20, j) * p.powi(j as i32) * (1.0 - p).powi(20 - j as i32))
                .sum::<f64>()
        };
        for k in 1..20u64 {
            let p = cp20.lower(k as usize, a);
            assert!((tail_ge(k, p) / a - 1.0).abs() < 1e-9, "k={k}");
            let q = cp20.upper(k as usize, a);
            assert!(((1.0 - tail_ge(k + 1, q)) / a - 1.0).abs() < 1e-9, "k={k}");
        }
        let cp = ClopperPearson::new(1_000_000);
        let refs = [
            (
                1000,
                1e-7,
                0.000_844_231_115_831_435_6,
                0.001_174_163_632_214_772_5,
            ),
            (
                250_000,
                1e-8,
                0.247_574_782_905_656_6,
                0.252_435_885_075_293_96,
            ),
        ];
        for (k, a, lo_ref, hi_ref) in refs {
            let (lo, hi) = (cp.lower(k, a), cp.upper(k, a));
            assert!((lo / lo_ref - 1.0).abs() < 1e-9, "k={k}: {lo} vs {lo_ref}");
            assert!((hi / hi_ref - 1.0).abs() < 1e-9, "k={k}: {hi} vs {hi_ref}");
        }
    }

    #[test]
    #[should_panic(expected = "successes")]
    fn more_successes_than_trials_is_refused() {
        ClopperPearson::new(10).lower(11, 0.05);
    }
}
