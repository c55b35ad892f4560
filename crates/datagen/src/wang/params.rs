//! Parameters of the generators G and G2 (digest §6.1).

use std::f64::consts::FRAC_PI_4;

/// Offset `0.6` of the two clusters of G2 along `u_2` (digest §6.1 item 5).
pub const G2_CLUSTER_OFFSET: f64 = 0.6;
/// Probability `0.1` of the minority cluster `kappa = -1` of G2.
pub const G2_MINORITY_FRACTION: f64 = 0.1;

/// The inlier family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Family {
    /// Generator G: `x = y s u_1 + sqrt(1 - s^2) v`, `v` uniform on the unit
    /// sphere of `u_1^perp`, `s` drawn from the [`MarginProfile`].
    Isotropic(MarginProfile),
    /// The hard two-cluster family G2:
    /// `x = y (gamma* u_1 + kappa 0.6 u_2 + sqrt(1 - gamma*^2 - 0.36) v)`,
    /// `kappa = -1` with probability 0.1, `v` uniform on the unit sphere of
    /// `{u_1, u_2}^perp`. Every inlier has margin exactly `gamma*` under `w*`;
    /// the mean gradient points mostly along `u_2`, so early GD steps
    /// misclassify the minority cluster. Needs `gamma*^2 + 0.36 <= 1`, `d >= 3`.
    TwoCluster,
}

/// Law of the inlier margins `s = y <w*, x>` in generator G (digest §6.1 item 3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarginProfile {
    /// `s = gamma* + (1 - gamma*) rho U`, `U ~ Uniform[0, 1)`, `rho` in `(0, 1]`.
    Spread {
        /// Spread `rho`.
        rho: f64,
    },
    /// `s = gamma*` for every inlier.
    Tight,
}

/// Outlier types (digest §6.1 item 4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutlierType {
    /// (T) contradictory twins: copies of `m` distinct random non-anchor
    /// inliers with the opposite label (needs `n >= 2 + 2m`). Exactly `m` removals are needed for any margin
    /// `0 < gamma' <= gamma*`, and `gamma(S) = 0`.
    Twins,
    /// (F) label flips: fresh inlier draws with the label flipped. May stay
    /// separable in high dimension (digest caution), so `m` is then only an
    /// upper bound on the relevant `|S_out|`.
    Flips,
    /// (B) margin band: `y <w*, x> = s`, `s ~ Uniform[-gamma*, gamma*)`.
    Band,
    /// (A) adversarial pull cluster: `m` copies of
    /// `x = -y_o (cos theta u_1 + sin theta u_2)` with label `y_o = +1`.
    Adversarial {
        /// The angle `theta`.
        angle: f64,
    },
}

impl OutlierType {
    /// The adversarial cluster at the default angle `pi/4` (our choice; the
    /// digest leaves `theta` free).
    pub fn adversarial_default() -> Self {
        OutlierType::Adversarial { angle: FRAC_PI_4 }
    }
}

/// Parameters of one planted instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfspaceParams {
    /// Records `n` (anchor pair + inliers + outliers).
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// Planted margin `gamma*` in `(0, 1)`.
    pub margin: f64,
    /// Number `m` of outliers.
    pub outliers: usize,
    /// Outlier type.
    pub outlier_type: OutlierType,
    /// Inlier family.
    pub family: Family,
    /// Monte-Carlo draws per stratum of the population sampler (digest:
    /// `N_test >= 1e5`).
    pub population_samples: usize,
}

impl HalfspaceParams {
    /// Generator G with the spread profile `rho = 1`, twin outliers and
    /// `1e5` population draws.
    pub fn isotropic(n: usize, d: usize, margin: f64, outliers: usize) -> Self {
        Self {
            n,
            d,
            margin,
            outliers,
            outlier_type: OutlierType::Twins,
            family: Family::Isotropic(MarginProfile::Spread { rho: 1.0 }),
            population_samples: 100_000,
        }
    }

    /// The two-cluster family G2 with twin outliers.
    pub fn two_cluster(n: usize, d: usize, margin: f64, outliers: usize) -> Self {
        Self {
            family: Family::TwoCluster,
            ..Self::isotropic(n, d, margin, outliers)
        }
    }

    /// Checks the ranges stated on every field.
    pub fn validate(&self) -> Result<(), String> {
        let g = self.margin;
        if !(g > 0.0 && g < 1.0) {
            return Err(format!("margin gamma* must be in (0, 1), got {g}"));
        }
        if self.n < 2 + self.outliers {
            return Err(format!(
                "n = {} must be >= 2 + m = {}",
                self.n,
                2 + self.outliers
            ));
        }
        if self.outlier_type == OutlierType::Twins && self.n < 2 + 2 * self.outliers {
            return Err(format!(
                "m = {} twins need as many distinct non-anchor inliers: n >= 2 + 2m",
                self.outliers
            ));
        }
        let min_d = match self.family {
            Family::Isotropic(_) => 2,
            Family::TwoCluster => 3,
        };
        if self.d < min_d {
            return Err(format!("d = {} too small for this family", self.d));
        }
        match self.family {
            Family::Isotropic(MarginProfile::Spread { rho }) if !(rho > 0.0 && rho <= 1.0) => {
                return Err(format!("spread rho must be in (0, 1], got {rho}"));
            }
            Family::TwoCluster if g * g + G2_CLUSTER_OFFSET * G2_CLUSTER_OFFSET > 1.0 => {
                return Err(format!("G2 needs gamma*^2 + 0.36 <= 1, got gamma* = {g}"));
            }
            _ => {}
        }
        if let OutlierType::Adversarial { angle } = self.outlier_type {
            if !angle.is_finite() {
                return Err(format!("adversarial angle must be finite, got {angle}"));
            }
        }
        if self.population_samples == 0 {
            return Err("population_samples must be >= 1".into());
        }
        Ok(())
    }
}
