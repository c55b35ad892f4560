//! Algorithm 5: DP synthetic data by DP-SMD with Maurey sparsification
//! (digest §3.5, App. G, Thm G.1), and the MWEM baseline (Hardt, Ligett &
//! McSherry 2012; digest §7.4 item 6).
//!
//! **Alg. 5.** `f(x, y; z) = sum_j y_j (q_j(z) - <q_j, x>)` over
//! `Delta_Z x Delta_Q`, `Q` closed under negation (the "negated queries"
//! correction). Each step releases one query index `j_t ~ P_{y^t}`; then
//! `theta_x += tau_x q_{j_t}` (descent on `g_x = -q_{j_t}`, data independent)
//! and `theta_y += tau_y (q(S) - <q, x^t>)` (ascent, full batch). The output
//! is `n` i.i.d. draws from `P_{x_bar}`, `x_bar = (1/T) sum_t x^t`, returned
//! as the synthetic histogram.
//!
//! Privacy: replace-one moves every `q_j(S)` by at most `2/n`, so the
//! log-weights of `y^t` have sensitivity `<= 2 t tau_y / n <= 2 T tau_y / n`,
//! and each release is `4 T tau_y / n`-DP (Thm A.3; the paper's bound
//! `4 T L0 tau_y / n` with `L0 = 2` is twice this). Thm G.1's
//! `T = 6 n eps / (16 sqrt(2 Lambda) ln|Q|)`, `tau_x = sqrt(ln|Z| / (9T))`,
//! `tau_y = ln|Q| / (6 sqrt(ln|Z| T))` meet the paper's condition
//! `4 T L0 tau_y / n <= eps / (2 sqrt(2 T Lambda))` when `ln|Z| >= 1`;
//! `tau_y` is additionally capped by that condition with the per-release
//! budget of [`super::privacy::per_release_budget`] (binding only outside
//! the theorem's hypotheses). The spend is accounted with the exact `2/n`.
//!
//! **MWEM.** `T` rounds, each spending `eps/(2T)` on selecting a query by
//! the exponential mechanism (score `|q(S) - q(A)|`, sensitivity `2/n`) and
//! `eps/(2T)` on a Laplace measurement of `q(S)` (scale `2/(n eps/(2T))`),
//! then `A(z) ∝ A(z) exp(q(z) (m - q(A)) / 2)`; output the average of the
//! `A_t`. Pure `eps`-DP by basic composition. `T` balances MWEM's
//! `2 sqrt(ln|Z|/T) + 10 T ln|Q|/(n eps)`: `T = (n eps sqrt(ln|Z|) / (5 ln|Q|))^{2/3}`.

use dpcore::saddle::QueryRelease;
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::noise::laplace;
use mechanisms::selection::{exponential_mechanism, ScoreKind};
use rand::Rng;

use super::alg1::axpy;
use super::mw::{sample_sorted, LogWeights, SamplerScratch, SparseAverage};
use super::privacy::{account, per_release_budget, VertexAccount};

/// Output of a synthetic-data algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticRelease {
    /// The released histogram over `Z` (Alg. 5: counts of `n` draws over `n`).
    pub histogram: Vec<f64>,
    /// Rounds `T`.
    pub steps: usize,
    /// Privacy actually spent.
    pub account: VertexAccount,
    /// The non-private average `x_bar` (Alg. 5) or the MWEM average (equal to
    /// the output).
    pub average: Vec<f64>,
}

fn invalid(e: impl std::fmt::Display) -> RunFailure {
    RunFailure::InvalidParameters(e.to_string())
}

/// Thm G.1's `(T, tau_x, tau_y)` (module docs).
pub fn alg5_parameters(
    problem: &dyn QueryRelease,
    privacy: PrivacyParams,
) -> Result<(usize, f64, f64), RunFailure> {
    let n = problem.num_records() as f64;
    let (lz, lq) = (
        (problem.domain_size() as f64).ln(),
        (problem.num_queries() as f64).ln(),
    );
    let lam = (1.0 / privacy.delta).ln();
    let steps = (6.0 * n * privacy.eps / (16.0 * (2.0 * lam).sqrt() * lq)).max(1.0) as usize;
    let t = steps as f64;
    let eps0 = per_release_budget(privacy, steps)?;
    let cap = eps0 * n / (4.0 * t * 2.0);
    Ok((
        steps,
        (lz / (9.0 * t)).sqrt(),
        (lq / (6.0 * (lz * t).sqrt())).min(cap),
    ))
}

/// Runs Alg. 5 (module docs).
pub fn private_synthetic_data<R: Rng + ?Sized>(
    problem: &dyn QueryRelease,
    privacy: PrivacyParams,
    rng: &mut R,
) -> Result<SyntheticRelease, RunFailure> {
    let (steps, tau_x, tau_y) = alg5_parameters(problem, privacy)?;
    let (dz, dq, n) = (
        problem.domain_size(),
        problem.num_queries(),
        problem.num_records(),
    );
    let (mut wx, mut wy) = (LogWeights::uniform(dz), LogWeights::uniform(dq));
    let (mut px, mut py) = (vec![0.0; dz], vec![0.0; dq]);
    let (mut qs, mut qx, mut qvec) = (vec![0.0; dq], vec![0.0; dq], vec![0.0; dz]);
    problem.empirical_answers(&mut qs);
    let mut avg = vec![0.0; dz];
    let mut sampler = SamplerScratch::default();
    for _ in 0..steps {
        wx.probabilities_into(&mut px);
        wy.probabilities_into(&mut py);
        axpy(1.0 / steps as f64, &px, &mut avg);
        sample_sorted(&py, 1, rng, &mut sampler);
        problem.query_vector(sampler.draws[0], &mut qvec);
        problem.answers(&px, &mut qx);
        qx.iter_mut().zip(&qs).for_each(|(a, s)| *a = s - *a);
        wx.step(tau_x, &qvec);
        wy.step(tau_y, &qx);
    }
    sample_sorted(&avg, n, rng, &mut sampler);
    let mut out = SparseAverage::default();
    out.fill_from_sorted(&sampler.draws);
    let acct = account(4.0 * steps as f64 * tau_y / n as f64, steps, privacy.delta)?;
    Ok(SyntheticRelease {
        histogram: out.to_dense(dz),
        steps,
        account: acct,
        average: avg,
    })
}

/// MWEM's number of rounds (module docs), clamped to `[1, |Q|]`.
pub fn mwem_rounds(n: usize, eps: f64, domain: usize, queries: usize) -> usize {
    let (lz, lq) = ((domain as f64).ln(), (queries as f64).ln());
    (n as f64 * eps * lz.sqrt() / (5.0 * lq))
        .powf(2.0 / 3.0)
        .clamp(1.0, queries as f64) as usize
}

/// Runs MWEM (module docs), pure `eps`-DP.
pub fn mwem<R: Rng + ?Sized>(
    problem: &dyn QueryRelease,
    eps: f64,
    rounds: Option<usize>,
    rng: &mut R,
) -> Result<SyntheticRelease, RunFailure> {
    let (dz, dq, n) = (
        problem.domain_size(),
        problem.num_queries(),
        problem.num_records(),
    );
    let rounds = rounds.unwrap_or_else(|| mwem_rounds(n, eps, dz, dq));
    let mut eps_round = eps / (2.0 * rounds as f64);
    // Basic composition must not exceed `eps` through rounding.
    while 2.0 * rounds as f64 * eps_round > eps {
        eps_round *= 1.0 - f64::EPSILON;
    }
    let sens = 2.0 / n as f64;
    let mut w = LogWeights::uniform(dz);
    let (mut a, mut avg) = (vec![0.0; dz], vec![0.0; dz]);
    let (mut qs, mut qa, mut score, mut qvec) =
        (vec![0.0; dq], vec![0.0; dq], vec![0.0; dq], vec![0.0; dz]);
    problem.empirical_answers(&mut qs);
    for _ in 0..rounds {
        w.probabilities_into(&mut a);
        problem.answers(&a, &mut qa);
        score
            .iter_mut()
            .zip(qs.iter().zip(&qa))
            .for_each(|(s, (x, y))| *s = (x - y).abs());
        let j = exponential_mechanism(&score, eps_round, sens, ScoreKind::General, rng)
            .map_err(invalid)?;
        let m = qs[j] + laplace(1, sens / eps_round, rng)[0];
        problem.query_vector(j, &mut qvec);
        w.step((m - qa[j]) / 2.0, &qvec);
        w.probabilities_into(&mut a);
        axpy(1.0 / rounds as f64, &a, &mut avg);
    }
    let acct = VertexAccount {
        releases: 2 * rounds,
        eps_per_release: eps_round,
        eps_spent: 2.0 * rounds as f64 * eps_round,
        delta_spent: 0.0,
    };
    Ok(SyntheticRelease {
        histogram: avg.clone(),
        steps: rounds,
        account: acct,
        average: avg,
    })
}
