//! Planted large-margin halfspaces with outliers for Wang, Zhu & Wang (ICML
//! 2025), "Adapting to linear separable subsets with large margin in DP
//! learning" (`../shared/papers/digests/wang-zhu-wang-large-margin.md`, §6.1).
//!
//! - [`HalfspaceParams`]: the generator G (isotropic, margin profiles) and the
//!   hard two-cluster family G2 (digest §6.1 item 5), outlier types T/F/B/A.
//! - [`PlantedHalfspace`]: a sampled instance (unit-norm rows, labels `±1`),
//!   implementing [`dpcore::halfspace::HalfspaceProblem`], with the planted
//!   `w*`, the outlier mask and the twin map.
//! - [`ScaledHalfspace`]: the same instance with every row multiplied by a
//!   public bound `b` (rows of norm `<= b`, margin `b gamma*`; Appendix L).
//! - [`DyadicBasisHalfspace`]: `2^(i-1)` copies of each of `k` orthonormal
//!   labelled directions, margin exactly `1/sqrt(k)`: the instance on which
//!   every DP learner's error is of order `1/(n eps)` (Theorem 4.1's eps-rate
//!   attained), with exact errors.
//! - [`population`]: the population sampler for `R_D(w)` (digest §6.1 item 6),
//!   `O(d + N)` per call by reducing every draw to two or three scalars.
//!
//! **Exact margin.** Every instance contains the anchor pair
//! `(+gamma* u_1 + c z_0, +1)`, `(-gamma* u_1 + c z_0, -1)`, `c = sqrt(1 - gamma*^2)`,
//! so that for any unit `w`, `min(<w, x_+>, -<w, x_->) <= <w, x_+ - x_->/2 = gamma* <w, u_1> <= gamma*`:
//! the inlier set has geometric margin **exactly** `gamma*`, attained by
//! `w* = u_1`, and every inlier has `y <w*, x> >= gamma*` by construction.
//! `u_1 = w*` is a random dense unit vector (a normalised Gaussian), never a
//! coordinate axis, because the Rademacher JL matrix is not rotation invariant
//! and `||Phi e_j|| = 1` exactly would flatter JL (digest §6.1).
//!
//! The planted-twin data of the removal-margin experiment (digest §5 step 5)
//! are G with [`OutlierType::Twins`]: each twin is an exact copy of an inlier
//! with the opposite label, so exactly `m` removals are needed to restore
//! any positive margin.

pub mod dyadic;
pub mod generator;
pub mod params;
pub mod population;
pub mod scaled;

pub use dyadic::DyadicBasisHalfspace;
pub use generator::PlantedHalfspace;
pub use params::{
    Family, HalfspaceParams, MarginProfile, OutlierType, G2_CLUSTER_OFFSET, G2_MINORITY_FRACTION,
};
pub use scaled::ScaledHalfspace;
