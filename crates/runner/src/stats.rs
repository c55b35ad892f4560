//! Small statistical routines: confidence intervals and log-log slope fits.

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
    })
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
    fn degenerate_inputs_give_no_fit() {
        assert!(fit_loglog(&[1.0, 2.0], &[1.0, 2.0], &[0.1, 0.1]).is_none());
        assert!(fit_loglog(&[1.0, 2.0, 3.0], &[1.0, -2.0, 1.0], &[0.1; 3]).is_none());
        assert!(fit_loglog(&[2.0, 2.0, 2.0], &[1.0, 2.0, 1.0], &[0.1; 3]).is_none());
    }
}
