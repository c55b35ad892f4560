//! Small statistical routines: per-grid-point sample statistics, confidence
//! intervals and log-log slope fits.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Two-sided `1 - alpha` quantile of Student's t with `df` degrees of freedom
/// (the normal quantile when `df` is infinite or huge).
pub fn t_quantile(alpha: f64, df: f64) -> f64 {
    let p = 1.0 - alpha / 2.0;
    if !df.is_finite() || df > 1e7 {
        return Normal::standard().inverse_cdf(p);
    }
    StudentsT::new(0.0, 1.0, df).expect("df > 0").inverse_cdf(p)
}

/// A fitted line `ln y = intercept + slope ln x`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogLogFit {
    /// Fitted slope.
    pub slope: f64,
    /// Fitted intercept (natural logs).
    pub intercept: f64,
    /// Standard error of the slope.
    pub slope_se: f64,
    /// Half-width of the 95% confidence interval of the slope.
    pub ci_half_width: f64,
    /// Points used.
    pub points: usize,
    /// chi²/(k-2) of the residuals against the per-point errors (the Birge
    /// ratio squared; about 1 when the points scatter as their error bars
    /// say). For an ordinary least-squares fit, NaN (no known errors).
    pub chi2_df: f64,
}

/// Weighted least-squares fit of `ln(mean)` on `ln(x)`.
///
/// Each point's variance is known from the repetitions: by the delta method
/// `Var ln(mean) ≈ (se/mean)²`, so the weights are `(mean/se)²`. The slope's
/// standard error from the known variances is inflated by the Birge ratio
/// `sqrt(chi²/(k-2))` when the points scatter more than their error bars say
/// (model misfit), never deflated; the CI uses Student's t with `k-2` degrees
/// of freedom. When any standard error is zero or missing (a deterministic
/// metric), it falls back to ordinary least squares with the residual variance.
pub fn fit_loglog(x: &[f64], mean: &[f64], se: &[f64]) -> Option<LogLogFit> {
    let k = x.len();
    if k < 3 || mean.len() != k || se.len() != k {
        return None;
    }
    if x.iter().chain(mean).any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let ly: Vec<f64> = mean.iter().map(|v| v.ln()).collect();
    let known = se.iter().all(|s| s.is_finite() && *s > 0.0);
    let w: Vec<f64> = if known {
        mean.iter().zip(se).map(|(m, s)| (m / s).powi(2)).collect()
    } else {
        vec![1.0; k]
    };
    let sw: f64 = w.iter().sum();
    let mx = w.iter().zip(&lx).map(|(w, x)| w * x).sum::<f64>() / sw;
    let my = w.iter().zip(&ly).map(|(w, y)| w * y).sum::<f64>() / sw;
    let sxx: f64 = w.iter().zip(&lx).map(|(w, x)| w * (x - mx).powi(2)).sum();
    // All x equal (up to rounding): the slope is undefined.
    if sxx <= 1e-12 * sw {
        return None;
    }
    let sxy: f64 = (0..k).map(|i| w[i] * (lx[i] - mx) * (ly[i] - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let chi2: f64 = (0..k)
        .map(|i| w[i] * (ly[i] - intercept - slope * lx[i]).powi(2))
        .sum();
    let df = (k - 2) as f64;
    let slope_se = if known {
        (1.0 / sxx).sqrt() * (chi2 / df).sqrt().max(1.0)
    } else {
        (chi2 / df / sxx).sqrt()
    };
    Some(LogLogFit {
        slope,
        intercept,
        slope_se,
        ci_half_width: t_quantile(0.05, df) * slope_se,
        points: k,
        chi2_df: if known { chi2 / df } else { f64::NAN },
    })
}

/// Ordinary least squares of `ln(mean)` on `ln(x)`, ignoring the per-point
/// errors: the slope's CI comes from the residual scatter alone (Student t,
/// `k-2` degrees of freedom). The second estimator a decisive slope verdict
/// must agree with: it does not lean on the delta-method weights, which a
/// few very precise points can dominate.
pub fn fit_loglog_ols(x: &[f64], mean: &[f64]) -> Option<LogLogFit> {
    fit_loglog(x, mean, &vec![0.0; x.len()])
}

/// The curvature test of a log-log fit: `ln y = a + b ln x + c (ln x)²`,
/// weighted as [`fit_loglog`] (OLS when an error is unknown), and the
/// two-sided p-value of `c = 0` (Student t, `k-3` degrees of freedom, the
/// error scale inflated by the residual scatter when it exceeds the error
/// bars). A small p-value says the points bend: a single exponent does not
/// describe the window (a regime change, or lower-order terms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curvature {
    /// The quadratic coefficient `c`.
    pub coefficient: f64,
    /// Two-sided p-value of `c = 0`.
    pub p_value: f64,
}

/// [`Curvature`] of the points; `None` with fewer than 4 usable points.
pub fn curvature_test(x: &[f64], mean: &[f64], se: &[f64]) -> Option<Curvature> {
    let k = x.len();
    if k < 4 || mean.len() != k || se.len() != k {
        return None;
    }
    if x.iter().chain(mean).any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let known = se.iter().all(|s| s.is_finite() && *s > 0.0);
    let w: Vec<f64> = (0..k)
        .map(|i| {
            if known {
                (mean[i] / se[i]).powi(2)
            } else {
                1.0
            }
        })
        .collect();
    // Centre ln x for conditioning; c is unchanged by the shift.
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let sw: f64 = w.iter().sum();
    let mx = w.iter().zip(&lx).map(|(w, x)| w * x).sum::<f64>() / sw;
    let rows: Vec<[f64; 3]> = lx.iter().map(|x| [1.0, x - mx, (x - mx).powi(2)]).collect();
    let ly: Vec<f64> = mean.iter().map(|v| v.ln()).collect();
    // Normal equations (X'WX) beta = X'Wy, solved by Gauss-Jordan on 3x3.
    let mut a = [[0.0f64; 4]; 3];
    for i in 0..k {
        for r in 0..3 {
            for c in 0..3 {
                a[r][c] += w[i] * rows[i][r] * rows[i][c];
            }
            a[r][3] += w[i] * rows[i][r] * ly[i];
        }
    }
    let inv = invert3([
        [a[0][0], a[0][1], a[0][2]],
        [a[1][0], a[1][1], a[1][2]],
        [a[2][0], a[2][1], a[2][2]],
    ])?;
    let beta: Vec<f64> = (0..3)
        .map(|r| (0..3).map(|c| inv[r][c] * a[c][3]).sum())
        .collect();
    let chi2: f64 = (0..k)
        .map(|i| {
            let fit: f64 = (0..3).map(|j| beta[j] * rows[i][j]).sum();
            w[i] * (ly[i] - fit).powi(2)
        })
        .sum();
    let df = (k - 3) as f64;
    let scale = if known {
        (chi2 / df).max(1.0)
    } else {
        chi2 / df
    };
    let se_c = (inv[2][2] * scale).sqrt();
    if !(se_c.is_finite() && se_c > 0.0) {
        return None;
    }
    let t = beta[2] / se_c;
    let p_value = 2.0 * (1.0 - StudentsT::new(0.0, 1.0, df).ok()?.cdf(t.abs()));
    Some(Curvature {
        coefficient: beta[2],
        p_value,
    })
}

/// Inverse of a 3x3 matrix by cofactors; `None` when it is singular.
fn invert3(m: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c =
        |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let cof = [
        [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
        [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
        [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
    ];
    let det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
    let norm = m.iter().flatten().map(|v| v.abs()).fold(0.0, f64::max);
    if det.is_nan() || det.abs() <= 1e-12 * norm.powi(3) {
        return None;
    }
    let mut inv = [[0.0; 3]; 3];
    for (r, row) in inv.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            // The inverse is the transposed cofactor matrix over the determinant.
            *v = cof[c][r] / det;
        }
    }
    Some(inv)
}

// Per-grid-point sample statistics. They reproduce, operation for operation,
// what the polars 0.55 group-by that computed them before did (a hash
// group-by, so each group's values in row order): the committed summaries hold
// these numbers at full precision, and re-analysing stored cells must give the
// same bytes. A different summation order or interpolation formula would move
// the last bits.

/// Compensated (Kahan) sum in slice order, as polars' `KahanSum`: the error
/// term is only updated while it stays finite, so an infinite value does not
/// turn the sum into NaN through `inf - inf`.
fn kahan_sum(values: &[f64]) -> f64 {
    let (mut sum, mut err) = (0.0f64, 0.0f64);
    for &v in values {
        let y = v - err;
        let new_sum = sum + y;
        let new_err = (new_sum - sum) - y;
        sum = new_sum;
        if new_err.is_finite() {
            err = new_err;
        }
    }
    sum
}

/// Mean of a sample: the value itself for one value, the Kahan sum over the
/// count otherwise; NaN for an empty sample (polars gave null, read as NaN).
/// A NaN anywhere makes the mean NaN (so a point whose theory is unknown in
/// any cell has an unknown mean theory).
pub fn sample_mean(values: &[f64]) -> f64 {
    match values {
        [] => f64::NAN,
        [v] => *v,
        _ => kahan_sum(values) / values.len() as f64,
    }
}

/// The order polars sorts floats in: NaN above everything (all NaNs equal),
/// and `-0.0 == 0.0`.
fn polars_total_cmp(a: &f64, b: &f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        (false, false) => a.partial_cmp(b).expect("neither is NaN"),
    }
}

/// Quantile `q` (in [0, 1]) with linear interpolation between the order
/// statistics at `floor((n-1) q)` and the next one, the formula of polars'
/// `QuantileMethod::Linear`: `lower + (h - floor(h)) (upper - lower)` with
/// `h = (n-1) q`, and `lower` itself when the two are equal (so equal
/// infinities give that infinity, not NaN). NaN sorts above every number, so
/// a NaN reaches the result only when it is one of the two order statistics
/// used. NaN for an empty sample or `q` outside [0, 1].
pub fn sample_quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    if values.len() == 1 {
        return values[0];
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(polars_total_cmp);
    let n = sorted.len();
    let h = (n as f64 - 1.0) * q;
    let idx = (h as usize).min(n - 1);
    let top = h.ceil() as usize;
    let lower = sorted[idx];
    if idx == top {
        return lower;
    }
    let upper = sorted[idx + 1];
    if lower == upper {
        lower
    } else {
        (h - idx as f64) * (upper - lower) + lower
    }
}

/// Median: [`sample_quantile`] at 0.5.
pub fn sample_median(values: &[f64]) -> f64 {
    sample_quantile(values, 0.5)
}

/// Sample standard deviation with `ddof = 1` by Welford's online update in
/// slice order (polars' `online_variance`), then the square root; NaN with
/// fewer than two values (polars gave null).
pub fn sample_std(values: &[f64]) -> f64 {
    let (mut mean, mut m2, mut count) = (0.0f64, 0.0f64, 0u64);
    for &v in values {
        count += 1;
        let delta_1 = v - mean;
        let new_mean = delta_1 / count as f64 + mean;
        let delta_2 = v - new_mean;
        m2 += delta_1 * delta_2;
        mean = new_mean;
    }
    if count <= 1 {
        return f64::NAN;
    }
    (m2 / (count as f64 - 1.0)).sqrt()
}

/// Summary statistics of one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleSummary {
    /// Sample size.
    pub count: usize,
    /// Mean.
    pub mean: f64,
    /// Standard deviation (ddof = 1).
    pub std: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// Half-width of the 95% CI of the mean (Student t).
    pub ci_half_width: f64,
}

/// Mean, standard error and 95% CI half-width from a mean, a standard deviation and a count.
pub fn summarize(count: usize, mean: f64, std: f64) -> SampleSummary {
    let se = if count > 0 {
        std / (count as f64).sqrt()
    } else {
        f64::NAN
    };
    let ci = if count >= 2 {
        t_quantile(0.05, (count - 1) as f64) * se
    } else {
        f64::INFINITY
    };
    SampleSummary {
        count,
        mean,
        std,
        se,
        ci_half_width: ci,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kahan_mean_compensates_and_propagates_nan() {
        assert!(sample_mean(&[]).is_nan());
        assert_eq!(sample_mean(&[-0.0]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(sample_mean(&[1.0, 2.0, 4.0]), 7.0 / 3.0);
        // A naive left-to-right sum loses the small terms next to 1e16;
        // the compensated one keeps them.
        let v = [1e16, 1.0, 1.0, 1.0, 1.0, -1e16];
        let naive = v.iter().sum::<f64>() / 6.0;
        assert_eq!(naive, 0.0);
        assert_eq!(sample_mean(&v), 4.0 / 6.0);
        // Ten 0.1s: the plain sum is 0.9999999999999999, Kahan's is 1.
        assert_eq!(sample_mean(&[0.1; 10]), 0.1);
        assert!(sample_mean(&[1.0, f64::NAN, 2.0]).is_nan());
        // An infinity does not make NaN through the error term.
        assert_eq!(sample_mean(&[1.0, f64::INFINITY, 2.0]), f64::INFINITY);
        assert!(sample_mean(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
    }

    #[test]
    fn linear_quantiles_interpolate_between_order_statistics() {
        let v = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(sample_median(&v), 3.0);
        assert_eq!(sample_median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        // h = 4 * 0.1 = 0.4: 1 + 0.4 * (2 - 1).
        assert_eq!(sample_quantile(&v, 0.1), 1.4);
        // h = 4 * 0.9 = 3.6: the proportion is 3.6 - 3, not exactly 0.6.
        assert_eq!(sample_quantile(&v, 0.9), (3.6f64 - 3.0) * (5.0 - 4.0) + 4.0);
        assert_eq!(sample_quantile(&v, 0.0), 1.0);
        assert_eq!(sample_quantile(&v, 1.0), 5.0);
        // n = 20, q = 0.1: h = 1.9000000000000001, as polars computes it.
        let w: Vec<f64> = (0..20).map(f64::from).collect();
        assert_eq!(sample_quantile(&w, 0.1), (19.0f64 * 0.1 - 1.0) * 1.0 + 1.0);
        assert_eq!(sample_quantile(&[7.0], 0.9), 7.0);
        assert!(sample_quantile(&[], 0.5).is_nan());
        assert!(sample_quantile(&v, 1.5).is_nan());
        // Equal neighbours give the value itself, even infinite.
        assert_eq!(
            sample_quantile(&[f64::INFINITY, f64::INFINITY, 0.0], 0.75),
            f64::INFINITY
        );
    }

    #[test]
    fn nan_sorts_last_in_quantiles() {
        let v = [f64::NAN, 1.0, 2.0, 3.0, 4.0];
        // The lower quantiles never touch the NaN at the top ...
        assert_eq!(sample_quantile(&v, 0.1), 1.4);
        assert_eq!(sample_median(&v), 3.0);
        // ... an interpolation with it is NaN, and so is the maximum.
        assert!(sample_quantile(&v, 0.9).is_nan());
        assert!(sample_quantile(&v, 1.0).is_nan());
    }

    #[test]
    fn std_has_one_degree_of_freedom_removed() {
        assert!(sample_std(&[]).is_nan());
        assert!(sample_std(&[3.0]).is_nan());
        assert_eq!(sample_std(&[2.0, 2.0, 2.0]), 0.0);
        // Deviations -1, 0, 1: sum of squares 2 over n - 1 = 2.
        assert_eq!(sample_std(&[1.0, 2.0, 3.0]), 1.0);
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert!((sample_std(&v) - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);
        // Welford's update stays accurate far from zero, where the
        // textbook sum-of-squares formula cancels catastrophically.
        let far = [1e9 + 4.0, 1e9 + 7.0, 1e9 + 13.0, 1e9 + 16.0];
        assert_eq!(sample_std(&far), 30f64.sqrt());
        assert!(sample_std(&[1.0, f64::NAN]).is_nan());
    }

    #[test]
    fn exact_power_law_is_recovered() {
        let x = [1e3, 1e4, 1e5, 1e6];
        let y: Vec<f64> = x.iter().map(|v: &f64| 7.0 * v.powf(-2.0)).collect();
        let se: Vec<f64> = y.iter().map(|v| v * 0.01).collect();
        let fit = fit_loglog(&x, &y, &se).unwrap();
        assert!((fit.slope + 2.0).abs() < 1e-12, "{fit:?}");
        assert!((fit.intercept - 7f64.ln()).abs() < 1e-9);
        // Perfect fit: the CI comes from the known errors only (1% per point).
        assert!(fit.ci_half_width > 0.0 && fit.ci_half_width < 0.1);
    }

    #[test]
    fn misfit_inflates_the_interval() {
        let x = [1.0, 2.0, 4.0, 8.0, 16.0];
        let y = [1.0, 0.2, 0.3, 0.05, 0.07];
        let tight = vec![0.001; 5];
        let fit = fit_loglog(&x, &y, &tight).unwrap();
        let naive = (1.0
            / x.iter()
                .zip(&y)
                .map(|(_, m)| (m / 0.001f64).powi(2))
                .sum::<f64>())
        .sqrt();
        assert!(fit.slope_se > 10.0 * naive, "{fit:?}");
    }

    #[test]
    fn t_quantiles_match_tables() {
        assert!((t_quantile(0.05, 1.0) - 12.706).abs() < 1e-3);
        assert!((t_quantile(0.05, 10.0) - 2.228).abs() < 1e-3);
        assert!((t_quantile(0.05, f64::INFINITY) - 1.960).abs() < 1e-3);
    }

    #[test]
    fn curvature_is_flagged_on_a_bend_and_not_on_a_line() {
        let x = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        // An exact power law: no curvature (p = 1 up to rounding).
        let line: Vec<f64> = x.iter().map(|v: &f64| 3.0 * v.powf(-1.0)).collect();
        let se: Vec<f64> = line.iter().map(|v| v * 0.01).collect();
        let c = curvature_test(&x, &line, &se).unwrap();
        assert!(c.coefficient.abs() < 1e-9 && c.p_value > 0.99, "{c:?}");
        // 1/x + 1/x^2 bends strongly (slope -2 at the left, -1 at the right).
        let bend: Vec<f64> = x.iter().map(|v: &f64| 1.0 / v + 1.0 / (v * v)).collect();
        let se: Vec<f64> = bend.iter().map(|v| v * 0.01).collect();
        let c = curvature_test(&x, &bend, &se).unwrap();
        assert!(c.coefficient > 0.0 && c.p_value < 0.01, "{c:?}");
        assert!(curvature_test(&x[..3], &bend[..3], &se[..3]).is_none());
        // Chi²/df of the straight fit: exact data scatter not at all.
        let fit = fit_loglog(&x, &line, &[0.03; 6]).unwrap();
        assert!(fit.chi2_df < 1e-12);
        assert!(fit_loglog_ols(&x, &line).unwrap().chi2_df.is_nan());
    }

    #[test]
    fn degenerate_inputs_give_no_fit() {
        assert!(fit_loglog(&[1.0, 2.0], &[1.0, 2.0], &[0.1, 0.1]).is_none());
        assert!(fit_loglog(&[1.0, 2.0, 3.0], &[1.0, -2.0, 1.0], &[0.1; 3]).is_none());
        assert!(fit_loglog(&[2.0, 2.0, 2.0], &[1.0, 2.0, 1.0], &[0.1; 3]).is_none());
    }
}
