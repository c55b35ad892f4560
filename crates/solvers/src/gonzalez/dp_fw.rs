//! DP Frank–Wolfe over the simplex (Talwar, Thakurta & Zhang 2015, ERM
//! version), the DP-SCO baseline of digest §7.4 item 5.
//!
//! `T` full-batch steps: the vertex `v_t` is selected by the exponential
//! mechanism on the scores `u_j = -d_j L_hat(x_t)` (sensitivity
//! `Delta = 2 L0 / n` under replace-one since `||grad f||_inf <= L0`),
//! `Pr(j) ∝ exp(eps_0 u_j / (2 Delta))`, each `eps_0`-DP; `eps_0` from
//! [`super::privacy::per_release_budget`] over `T` releases, spend from
//! [`super::privacy::account`]. `x_{t+1} = (1 - mu_t) x_t + mu_t e_{v_t}`,
//! `mu_t = 2/(t+2)`, `x_0` uniform.
//!
//! Schedule (derived here): FW's curvature term `2 C_f/(T+2)` with
//! `C_f <= L1 diam_1^2 = 4 L1` against the selection error
//! `~ 2 Delta ln(d) / eps_0` per step with `eps_0 ~ eps/sqrt(8 T Lambda)`
//! balance at `T = (2 L1 n eps / (L0 ln d sqrt(8 Lambda)))^{2/3}`, clamped
//! to `[1, n]`. Cost `O(T n d)` (full batches).

use dpcore::saddle::{SimplexPoint, SimplexSco};
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::selection::{exponential_mechanism, ScoreKind};
use rand::Rng;

use super::privacy::{account, per_release_budget};
use super::{ScoDiagnostics, ScoRelease, SpentPrivacy};

/// The number of steps of the module docs.
pub fn dp_frank_wolfe_steps(n: usize, d: usize, l0: f64, l1: f64, privacy: PrivacyParams) -> usize {
    let lam = (1.0 / privacy.delta).ln();
    let ln_d = (d as f64).ln().max(1.0);
    let t = (2.0 * l1.max(f64::MIN_POSITIVE) * n as f64 * privacy.eps
        / (l0 * ln_d * (8.0 * lam).sqrt()))
    .powf(2.0 / 3.0);
    t.clamp(1.0, n as f64) as usize
}

/// Runs DP-FW for `steps` steps (`None`: [`dp_frank_wolfe_steps`]).
pub fn dp_frank_wolfe<R: Rng + ?Sized>(
    problem: &dyn SimplexSco,
    privacy: PrivacyParams,
    steps: Option<usize>,
    rng: &mut R,
) -> Result<ScoRelease, RunFailure> {
    let (n, d) = (problem.num_records(), problem.dim());
    let c = problem.constants();
    let steps = steps.unwrap_or_else(|| dp_frank_wolfe_steps(n, d, c.l0, c.l1, privacy));
    let eps0 = per_release_budget(privacy, steps)?;
    let sensitivity = 2.0 * c.l0 / n as f64;
    let mut x = vec![1.0 / d as f64; d];
    let mut g = vec![0.0; d];
    for t in 0..steps {
        problem.batch_gradient(0..n, SimplexPoint::Dense(&x), &mut g);
        g.iter_mut().for_each(|v| *v = -*v);
        let v = exponential_mechanism(&g, eps0, sensitivity, ScoreKind::General, rng)
            .map_err(|e| RunFailure::InvalidParameters(e.to_string()))?;
        let mu = 2.0 / (t as f64 + 2.0);
        x.iter_mut().for_each(|xj| *xj *= 1.0 - mu);
        x[v] += mu;
    }
    let acct = account(eps0, steps, privacy.delta)?;
    Ok(ScoRelease {
        w: x.clone(),
        gradient_evaluations: steps * n,
        privacy: Some(SpentPrivacy::Vertices(acct)),
        diagnostics: ScoDiagnostics {
            steps,
            batch: n,
            k: 0,
            q: 0,
            tau: 0.0,
            average: x,
        },
    })
}
