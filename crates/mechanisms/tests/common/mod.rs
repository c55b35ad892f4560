//! Statistical helpers shared by the integration tests.
#![allow(dead_code)]

/// Two-sided z-bound used by every moment test: for a statistic that is
/// asymptotically normal, `P(|Z| >= 4.5) = 6.8e-6` (false-alarm rate per check).
pub const Z_BOUND: f64 = 4.5;

/// Per-test false-alarm rate of every Kolmogorov–Smirnov test.
pub const KS_ALPHA: f64 = 1e-5;

/// Sample mean and unbiased sample variance.
pub fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// z-score of a sample mean against a hypothesised mean when the per-sample
/// variance is known exactly under the null.
pub fn z_known_var(sample_mean: f64, true_mean: f64, true_var: f64, n: usize) -> f64 {
    (sample_mean - true_mean) / (true_var / n as f64).sqrt()
}

/// Kolmogorov–Smirnov statistic `D_n = sup |F_n - F|` of `xs` against `cdf`.
pub fn ks_statistic(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).expect("no NaN samples"));
    let n = sorted.len() as f64;
    sorted.iter().enumerate().fold(0.0f64, |d, (i, &x)| {
        let f = cdf(x);
        let lo = f - i as f64 / n;
        let hi = (i + 1) as f64 / n - f;
        d.max(lo).max(hi)
    })
}

/// Critical value of `D_n` at level `alpha` for a fully specified continuous
/// null. Uses the Kolmogorov limit `P(sqrt(n) D > x) ~ 2 exp(-2 x^2)` (the
/// first term of the series; relative error < 1e-9 at these tails) with
/// Stephens' (1970) finite-n correction `sqrt(n) + 0.12 + 0.11/sqrt(n)`.
pub fn ks_critical(n: usize, alpha: f64) -> f64 {
    let x = (-(alpha / 2.0).ln() / 2.0).sqrt();
    let sn = (n as f64).sqrt();
    x / (sn + 0.12 + 0.11 / sn)
}

/// Asserts that `xs` passes a KS test against `cdf` at [`KS_ALPHA`].
pub fn assert_ks(xs: &[f64], cdf: impl Fn(f64) -> f64, what: &str) {
    let d = ks_statistic(xs, cdf);
    let crit = ks_critical(xs.len(), KS_ALPHA);
    assert!(
        d < crit,
        "{what}: KS D = {d} >= critical {crit} (alpha = {KS_ALPHA})"
    );
}

/// Asserts that `xs` is *rejected* by the KS test against `cdf` (power check).
pub fn assert_ks_rejects(xs: &[f64], cdf: impl Fn(f64) -> f64, what: &str) {
    let d = ks_statistic(xs, cdf);
    let crit = ks_critical(xs.len(), KS_ALPHA);
    assert!(d >= crit, "{what}: KS failed to reject, D = {d} < {crit}");
}
