//! `A_NGD`, Noisy Gradient Descent (Algorithm 5, Appendix C.1; digest §2.1,
//! P4, P5, P11, P12) on the **summed** hinge loss `L^_c(w) = sum_i
//! max(0, 1 - y_i <w, z_i>/c)` of rows clipped to norm `R`.
//!
//! # Noise and its justification
//! Each clipped record's hinge subgradient has norm `<= R/c`, so the summed
//! gradient has replace-one L2 sensitivity `Delta = 2R/c` (Lemma A.10(b),
//! digest P1; `12 b/gamma` for JLGD's `R = 2b`, `c = gamma/3`). A step adds
//! `N(0, sigma^2 I_k)`, a `Delta/sigma`-GDP Gaussian mechanism (Dong–Roth–Su
//! Thm 2.7); `T` adaptive steps compose to `sqrt(T) Delta/sigma`-GDP (Cor
//! 3.3). With `sigma = Delta sqrt(T)/mu`, recomputed from the **integer**
//! `T` (P4), the run is exactly `mu`-GDP; [`NgdPlan::realised_mu`] is that
//! accountant value from the realised `(T, sigma, Delta)`.
//!
//! # Iterations and step sizes
//! - [`IterationMode::Paper`]: `T = round(n^2 mu^2)`, at least 1 (`sigma = n Delta`
//!   up to rounding; the rounding of the digest's §2.7 table).
//! - [`IterationMode::Fast`]: `T = ceil(n^2 mu^2/k)` (P5, (ours)): keeps the
//!   expectation bound within a factor `sqrt 2` at `k`-fold less compute.
//! - Averaged iterate (Lemma C.1): `eta = 1/sqrt(T (n^2 Delta^2 + k sigma^2))`,
//!   output `(1/T) sum_{t=0}^{T-1} w_t` (includes `w_0 = 0`; erratum E-b).
//! - Last iterate (Lemma C.2): `eta_hp = 1/sqrt(T (n^2 Delta^2 + k sigma^2 ln(1/beta)))`.
//!
//! `||w_ref - w_0|| = 1` (unit-norm reference separator, `w_0 = 0`), so the
//! step size is data independent. f64 throughout (P11).

use crate::transcript::{Query, Transcript, Unobserved};
use dpcore::RunFailure;
use mechanisms::gdp::Gdp;
use mechanisms::Neighbouring;
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// How many iterations NGD runs (digest §7 modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IterationMode {
    /// `T = round(n^2 mu^2)` (at least 1), the paper's.
    Paper,
    /// `T = ceil(n^2 mu^2 / k)` (digest P5).
    Fast,
}

/// Which iterate is released (digest P12).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IterateChoice {
    /// The average `(1/T) sum_{t<T} w_t` (Lemma C.1, Theorem 6.5(1)).
    Averaged,
    /// The last iterate `w_T` with `eta_hp` at failure probability `beta`
    /// (Lemma C.2, Theorems 6.5(2), 6.7).
    Last {
        /// The `beta` of `ln(1/beta)` in `eta_hp`.
        beta: f64,
    },
}

/// The data-independent hyperparameters of one NGD run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NgdPlan {
    /// Records `n`.
    pub n: usize,
    /// Dimension `k` NGD runs in.
    pub k: usize,
    /// Hinge parameter `c`.
    pub hinge: f64,
    /// Clip radius `R` of the rows.
    pub clip_radius: f64,
    /// Replace-one sensitivity `Delta = 2R/c` of the summed gradient.
    pub sensitivity: f64,
    /// The GDP budget `mu` the plan was made for.
    pub target_mu: f64,
    /// Integer iterations `T >= 1`.
    pub steps: u64,
    /// Noise std `sigma = Delta sqrt(T)/mu`.
    pub sigma: f64,
    /// Step size (`eta` or `eta_hp`).
    pub step_size: f64,
    /// The released iterate.
    pub iterate: IterateChoice,
}

impl NgdPlan {
    /// Plans a run (module docs).
    ///
    /// # Errors
    /// `InvalidParameters` unless `n, k >= 1`, `hinge, clip_radius, mu > 0`
    /// are finite and `beta` (last iterate) lies in `(0, 1)`.
    pub fn new(
        n: usize,
        k: usize,
        hinge: f64,
        clip_radius: f64,
        mu: f64,
        mode: IterationMode,
        iterate: IterateChoice,
    ) -> Result<Self, RunFailure> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if n == 0 || k == 0 || !pos(hinge) || !pos(clip_radius) || !pos(mu) {
            return Err(RunFailure::InvalidParameters(format!(
                "NGD needs n, k >= 1 and positive finite c, R, mu; got n={n}, k={k}, c={hinge}, R={clip_radius}, mu={mu}"
            )));
        }
        let (nf, kf) = (n as f64, k as f64);
        let base = nf * nf * mu * mu;
        let steps = match mode {
            IterationMode::Paper => base.round(),
            IterationMode::Fast => (base / kf).ceil(),
        }
        .max(1.0) as u64;
        let t = steps as f64;
        let sensitivity = 2.0 * clip_radius / hinge;
        let sigma = sensitivity * t.sqrt() / mu;
        let noise_factor = match iterate {
            IterateChoice::Averaged => 1.0,
            IterateChoice::Last { beta } => {
                if !(beta > 0.0 && beta < 1.0) {
                    return Err(RunFailure::InvalidParameters(format!(
                        "last-iterate beta must be in (0, 1), got {beta}"
                    )));
                }
                -beta.ln()
            }
        };
        let gd = nf * sensitivity;
        let step_size = 1.0 / (t * (gd * gd + kf * sigma * sigma * noise_factor)).sqrt();
        Ok(Self {
            n,
            k,
            hinge,
            clip_radius,
            sensitivity,
            target_mu: mu,
            steps,
            sigma,
            step_size,
            iterate,
        })
    }

    /// The GDP parameter of the run from the realised `(T, sigma, Delta)`:
    /// `sqrt(T) Delta/sigma` under replace-one (module docs).
    pub fn realised_mu(&self) -> f64 {
        let step = Gdp::gaussian(self.sigma, self.sensitivity, Neighbouring::ReplaceOne)
            .expect("sigma > 0 and Delta finite by construction");
        (self.steps as f64).sqrt() * step.mu
    }
}

/// Runs the plan on `n x k` row-major rows `z` whose record `i` is used as
/// `scale[i] z_i` (the clipping factor, `scale[i] ||z_i|| <= R`, P3).
/// Returns the released iterate. `T n` record-gradient evaluations.
///
/// # Panics
/// On inconsistent shapes.
pub fn run_ngd<R: Rng + ?Sized>(
    z: &[f64],
    labels: &[f64],
    scale: &[f64],
    plan: &NgdPlan,
    rng: &mut R,
) -> Vec<f64> {
    run_ngd_observed(z, labels, scale, plan, &mut Unobserved, rng)
}

/// [`run_ngd`], handing `transcript` the rows and every step's noisy summed
/// gradient `g + N(0, sigma^2 I_k)` as a [`Query::HingeGradientSum`] at the
/// step's point. The random stream and the release are those of `run_ngd`.
///
/// # Panics
/// On inconsistent shapes.
pub fn run_ngd_observed<R: Rng + ?Sized>(
    z: &[f64],
    labels: &[f64],
    scale: &[f64],
    plan: &NgdPlan,
    transcript: &mut dyn Transcript,
    rng: &mut R,
) -> Vec<f64> {
    let (n, k) = (plan.n, plan.k);
    assert!(
        z.len() == n * k && labels.len() == n && scale.len() == n,
        "run_ngd: shape"
    );
    let mut w = vec![0.0; k];
    let mut grad = vec![0.0; k];
    let averaged = matches!(plan.iterate, IterateChoice::Averaged);
    let mut sum = vec![0.0; if averaged { k } else { 0 }];
    let (c, eta, sigma) = (plan.hinge, plan.step_size, plan.sigma);
    let observed = transcript.observes();
    if observed {
        transcript.rows(z, labels, scale);
    }
    let query = Query::HingeGradientSum { hinge: c };
    let mut released = vec![0.0; if observed { k } else { 0 }];
    for _ in 0..plan.steps {
        if averaged {
            sum.iter_mut().zip(&w).for_each(|(s, wj)| *s += wj);
        }
        grad.iter_mut().for_each(|g| *g = 0.0);
        for ((row, &y), &s) in z.chunks_exact(k).zip(labels).zip(scale) {
            let ys = y * s;
            let margin = ys * row.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>();
            if margin < c {
                let coef = -ys / c;
                grad.iter_mut().zip(row).for_each(|(g, zj)| *g += coef * zj);
            }
        }
        if observed {
            // The same sums the update below applies (one draw a
            // coordinate, in order), so the observer sees exactly the noisy
            // gradient the iterate moves by.
            for (r, gj) in released.iter_mut().zip(&grad) {
                let xi: f64 = StandardNormal.sample(rng);
                *r = gj + sigma * xi;
            }
            transcript.gaussian(query, &w, &grad, &released, sigma);
            for (wj, r) in w.iter_mut().zip(&released) {
                *wj -= eta * r;
            }
        } else {
            for (wj, gj) in w.iter_mut().zip(&grad) {
                let xi: f64 = StandardNormal.sample(rng);
                *wj -= eta * (gj + sigma * xi);
            }
        }
    }
    if averaged {
        let t = plan.steps as f64;
        sum.iter_mut().for_each(|s| *s /= t);
        sum
    } else {
        w
    }
}
