//! The Gaussian mechanism on the clipped mean: the oracle baseline of the
//! mean-estimation family F-A of Menart et al. (digest §4.3 F-A, "Oracle
//! baseline (the Gaussian mechanism on the clipped mean, optimal up to
//! constants): excess `= 1/2 d sigma^2` with `sigma = (2 R_x/n)/sqrt(2 rho)`,
//! i.e. `R_x^2 d/(n^2 rho)`").
//!
//! On F-A, `f(w; x) = 1/2 ||w - x||^2` with public record radius
//! `||x_i|| <= R_x`, so `grad f(0; x_i) = -x_i` and the family's clipped
//! full-batch oracle at the origin with clip `C = R_x` returns minus the
//! clipped mean of the records, `-(1/n) sum_i clip_C(x_i)`. The mechanism
//! releases
//!
//! `w = (1/n) sum_i clip_C(x_i) + N(0, sigma^2 I)`, `sigma = (2 C/n)/sqrt(2 rho)`,
//!
//! one oracle call (`n` gradient evaluations) and one Gaussian release.
//!
//! # Privacy (replace-one `rho`-zCDP; digest §1.6, P2)
//! Replacing one record moves the clipped mean by at most `Delta = 2 C/n`
//! whatever the data, and the Gaussian mechanism of L2 sensitivity `Delta`
//! is `Delta^2/(2 sigma^2)`-zCDP (Bun & Steinke 2016, Prop 1.6; digest §1.6).
//! `sigma` is that equation solved for `rho`
//! ([`mechanisms::zcdp::gaussian_sigma_for_rho`]) and multiplied by the
//! rounding margin `1 + 1e-9` of the other Menart et al. solvers, so the
//! ledger's realised spend is `rho (1 - 2e-9) <= rho`. `sigma` depends only on
//! the public `n`, `R_x` and `rho`, never on the records; clipping makes the
//! guarantee hold on any data, also off F-A.
//!
//! # Utility (exact)
//! When no record is clipped (always on F-A, where `||x_i|| <= R_x = C`; the
//! virtual records of `spread = 0` lie on the sphere of radius `R_x`, where
//! the rounding of their norm may clip them by a factor `1 - O(1e-16)`,
//! counted in [`MenartRun::clipped_records`] and otherwise immaterial),
//! `w - xbar ~ N(0, sigma^2 I)` and the excess `F(w) - F* = 1/2 ||w - xbar||^2`
//! is `sigma^2/2` times a chi-square with `d` degrees of freedom:
//! [`GaussianMean::expected_excess`] `= d sigma^2/2` exactly, and the gradient
//! norm `||grad F(w)|| = ||w - xbar||` has the chi mean
//! [`GaussianMean::expected_gradient_norm`]
//! `= sigma sqrt 2 Gamma((d+1)/2)/Gamma(d/2)`. Nothing is tuned: the only
//! hyperparameter, `C = R_x`, is the family's public record radius.

use super::{
    add_gaussian, check_finite, check_positive, MenartRun, ZcdpLedger, SIGMA_ROUNDING_MARGIN,
};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use mechanisms::zcdp::gaussian_sigma_for_rho;
use rand::Rng;

/// The Gaussian mechanism on the clipped mean of F-A's records (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianMean {
    /// The public record radius `R_x >= ||x_i||`, used as the clip `C`.
    pub data_radius: f64,
}

/// One run of [`GaussianMean`].
#[derive(Debug, Clone, PartialEq)]
pub struct GaussianMeanRun {
    /// The released point and the accounting.
    pub run: MenartRun,
    /// The noise scale `sigma` actually used.
    pub sigma: f64,
    /// The replace-one L2 sensitivity `2 C/n` of the clipped mean.
    pub sensitivity: f64,
}

impl GaussianMean {
    /// The replace-one L2 sensitivity `2 R_x/n` of the clipped mean.
    pub fn sensitivity(&self, n: usize) -> f64 {
        2.0 * self.data_radius / n as f64
    }

    /// The noise scale `(1 + 1e-9) (2 R_x/n)/sqrt(2 rho)` (Bun & Steinke
    /// Prop 1.6 solved for `sigma`, with the rounding margin).
    pub fn sigma(&self, n: usize, rho: f64) -> Result<f64, RunFailure> {
        check_positive("rho", rho)?;
        check_positive("R_x", self.data_radius)?;
        if n == 0 {
            return Err(RunFailure::InvalidParameters("n must be >= 1".into()));
        }
        let sigma = gaussian_sigma_for_rho(rho, self.sensitivity(n))
            .map_err(|e| RunFailure::InvalidParameters(format!("calibration: {e}")))?;
        Ok(SIGMA_ROUNDING_MARGIN * sigma)
    }

    /// The exact expected excess `d sigma^2/2` at noise scale `sigma`
    /// (no record clipped).
    pub fn expected_excess(d: usize, sigma: f64) -> f64 {
        0.5 * d as f64 * sigma * sigma
    }

    /// The exact expected gradient norm `E||N(0, sigma^2 I_d)||`
    /// `= sigma sqrt 2 Gamma((d+1)/2)/Gamma(d/2)` (no record clipped), the
    /// Gamma ratio by the recursion `r_1 = 1/sqrt(pi)`, `r_(k+1) = k/(2 r_k)`.
    pub fn expected_gradient_norm(d: usize, sigma: f64) -> f64 {
        let mut ratio = 1.0 / std::f64::consts::PI.sqrt();
        for k in 1..d {
            ratio = k as f64 / (2.0 * ratio);
        }
        sigma * std::f64::consts::SQRT_2 * ratio
    }

    /// Releases the noisy clipped mean of `problem`'s records at budget `rho`
    /// (module docs). `problem` must be F-A (`f(w; x) = 1/2 ||w - x||^2`) for
    /// the output to be the mean; the guarantee holds on any problem.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        rho: f64,
        rng: &mut R,
    ) -> Result<GaussianMeanRun, RunFailure> {
        let (n, d) = (problem.num_records(), problem.dim());
        let sigma = self.sigma(n, rho)?;
        let sensitivity = self.sensitivity(n);
        let origin = vec![0.0; d];
        let mut w = vec![0.0; d];
        let clipped = problem.clipped_mean_gradient(&origin, self.data_radius, &mut w);
        // grad f(0; x_i) = -x_i: minus the oracle is the clipped mean.
        w.iter_mut().for_each(|x| *x = -*x);
        add_gaussian(&mut w, sigma, rng);
        let mut ledger = ZcdpLedger::new();
        ledger.charge_gaussian(sigma, sensitivity)?;
        check_finite(&w, "Gaussian-mechanism release")?;
        Ok(GaussianMeanRun {
            run: MenartRun {
                w,
                gradient_evaluations: n as u64,
                rho_spent: ledger.spent(),
                iterations: 1,
                releases: ledger.releases(),
                clipped_records: clipped as u64,
                trivial: false,
            },
            sigma,
            sensitivity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::GaussianMean;

    #[test]
    fn the_gamma_ratio_recursion_matches_closed_forms() {
        // E||N(0, I_1)|| = sqrt(2/pi), E||N(0, I_2)|| = sqrt(pi/2),
        // E||N(0, I_3)|| = 2 sqrt(2/pi).
        let pi = std::f64::consts::PI;
        let e = |d| GaussianMean::expected_gradient_norm(d, 1.0);
        assert!((e(1) - (2.0 / pi).sqrt()).abs() < 1e-15);
        assert!((e(2) - (pi / 2.0).sqrt()).abs() < 1e-15);
        assert!((e(3) - 2.0 * (2.0 / pi).sqrt()).abs() < 1e-15);
        // sqrt(d - 1/2) < E chi_d < sqrt(d) for large d.
        let e = e(1000);
        assert!(e < 1000f64.sqrt() && e > 999.5f64.sqrt(), "{e}");
    }
}
