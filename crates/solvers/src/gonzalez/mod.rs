//! González, Guzmán & Paquette (2024), "Mirror descent algorithms with nearly
//! dimension-independent rates for differentially-private stochastic
//! saddle-point problems"
//! (`../shared/papers/digests/gonzalez-guzman-paquette-dp-saddle.md`).
//!
//! Problems come through [`dpcore::saddle`]. Privacy comes only from sampling
//! vertices of the multiplicative-weights distribution (the exponential
//! mechanism, digest §3.0); no noise is added by the paper's algorithms.
//!
//! - [`mw`]: log-domain multiplicative weights and Maurey sparsification;
//! - [`privacy`]: calibration and accounting of vertex releases (§3.6);
//! - [`alg1`]: Algorithm 1 (Thms 4.1, 4.2);
//! - [`baselines`]: non-private entropic SMD, entropic MD with Gaussian
//!   gradient noise, Euclidean DP-SGDA (§7.4);
//! - [`bias_reduced`], [`alg3`]: Algorithm 2 (BiasReducedGradient) and
//!   Algorithm 3 (Thm 4.3);
//! - [`alg4`]: Algorithm 4 (DP-SCO, Thm 5.1), with [`dp_fw`], DP
//!   Frank–Wolfe, its baseline;
//! - [`alg5`]: Algorithm 5 (DP synthetic data, Thm G.1) and MWEM;
//! - [`sgda`], [`sco_baselines`]: the Euclidean DP-SGDA baseline and
//!   projected DP-SGD for the SCO rows;
//! - [`diagnostics`]: the measured Maurey gradient bias (NOT private);
//! - [`rates`]: the theorem bounds and theory curves (§4, §9).
//!
//! # Runner interface
//!
//! | algorithm | call | metric |
//! |---|---|---|
//! | Alg. 1 | [`alg1::private_smd`]`(&game, privacy, Alg1Options::new(regime), rng)` | `game.duality_gap(&out.x, &out.y)` |
//! | Alg. 3 | [`alg3::private_smd_bias_reduced`]`(&game, privacy, rng)` | gap, report quantiles |
//! | Alg. 4 | [`alg4::private_sco_smd`]`(&sco, privacy, regime, rng)` | `sco.excess_risk(&out.w)` |
//! | Alg. 5 | [`alg5::private_synthetic_data`]`(&queries, privacy, rng)` | `queries.max_error(&out.histogram)` |
//! | non-private SMD | [`baselines::nonprivate_smd`]`(&game, None)` | gap |
//! | Gaussian entropic MD | [`baselines::noisy_entropic_md`]`(&game, privacy, rng)` | gap |
//! | Euclidean DP-SGDA | [`sgda::euclidean_dp_sgda`]`(&game, privacy, None, rng)` | gap |
//! | DP Frank–Wolfe | [`dp_fw::dp_frank_wolfe`]`(&sco, privacy, None, rng)` | excess |
//! | DP-SGD (simplex) | [`sco_baselines::euclidean_dp_sgd_simplex`]`(&sco, privacy, rng)` | excess |
//! | MWEM | [`alg5::mwem`]`(&queries, eps, None, rng)` | max query error |
//!
//! Every private output carries the spend computed by the accountant
//! ([`SpentPrivacy::eps`] `<=` target); diagnostics (MW averages) are NOT
//! private and must be labelled so.

pub mod alg1;
pub mod alg3;
pub mod alg4;
pub mod alg5;
pub mod baselines;
pub mod bias_reduced;
pub mod diagnostics;
pub mod dp_fw;
pub mod mw;
pub mod privacy;
pub mod rates;
pub mod sco_baselines;
pub mod sgda;

pub use privacy::{GaussianAccount, SpentPrivacy, VertexAccount};

/// Which vertex-release count a privacy cap composes over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseCount {
    /// The digest's correction: every released vertex of both players.
    Corrected,
    /// The paper's printed count (Alg. 1: `T (K + 1)`; Alg. 4: `TK/q + qK`).
    PaperPrinted,
}

/// Non-private diagnostics of a saddle run (digest §7.1; never part of the
/// private output, pitfall 5).
#[derive(Debug, Clone, PartialEq)]
pub struct SaddleDiagnostics {
    /// Steps run.
    pub steps: usize,
    /// Batch size.
    pub batch: usize,
    /// Maurey samples per step (0 when not applicable).
    pub k: usize,
    /// Step size.
    pub tau: f64,
    /// The MW average `x_bar = (1/T) sum_t x^t` (NOT private).
    pub mw_average_x: Vec<f64>,
    /// The MW average `y_bar` (NOT private).
    pub mw_average_y: Vec<f64>,
}

/// The output of a saddle algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct SaddleRelease {
    /// The released `x` (dense, in `Delta_x`).
    pub x: Vec<f64>,
    /// The released `y` (dense, in `Delta_y`).
    pub y: Vec<f64>,
    /// Record-gradient evaluations (`sum over steps of the batch size`).
    pub gradient_evaluations: usize,
    /// Privacy actually spent (`None` for non-private algorithms).
    pub privacy: Option<SpentPrivacy>,
    /// Diagnostics (NOT private).
    pub diagnostics: SaddleDiagnostics,
}

/// Non-private diagnostics of a DP-SCO run (never released).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoDiagnostics {
    /// Steps run.
    pub steps: usize,
    /// Batch size.
    pub batch: usize,
    /// Maurey samples (0 when not applicable).
    pub k: usize,
    /// Refresh period `q` (0 when not applicable).
    pub q: usize,
    /// Step size (0 for Frank–Wolfe).
    pub tau: f64,
    /// The Cesàro average `w^T` of the MW iterates (Alg. 4; NOT private) or
    /// the final iterate (DP-FW, equal to the output).
    pub average: Vec<f64>,
}

/// The output of a DP-SCO algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoRelease {
    /// The released point of the simplex (dense).
    pub w: Vec<f64>,
    /// Record-gradient evaluations.
    pub gradient_evaluations: usize,
    /// Privacy actually spent.
    pub privacy: Option<SpentPrivacy>,
    /// Diagnostics (NOT private).
    pub diagnostics: ScoDiagnostics,
}
