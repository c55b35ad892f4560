//! Algorithm 4 of Menart et al. run on its own, as Theorem 9 states it: one
//! call on the strongly convex prox objective
//! `F~(u) = F(u) + Lt1 ||u - v0||^2` centred at the start point `v0 = w0`, at
//! the whole budget `rho` and failure probability `beta` (digest §2.3, §3.3
//! "Lemma 3 = Thm 9"). Inside Algorithm 2 the same loop runs at `rho/T`
//! ([`super::ProximalPoint`]); here its own excess `F~(u_bar) - min F~` is
//! what Theorem 9 bounds, `O(L0^2 d log(n^2 log^2(2/beta)/(d beta))/(Lt1 n^2 rho))`
//! with probability `1 - beta`.
//!
//! # Assumptions checked before anything runs
//! - `Lt1 > 0` and at least the family's weak-convexity modulus, so `F~` is
//!   `Lt1`-strongly convex (`2 Lt1 - modulus >= Lt1`).
//! - The ball `B(v0, L0/(2 Lt1))` the iterates are projected on lies inside
//!   the family's region `B_B(w0)`, where `L0` is a Lipschitz constant: the
//!   theorem assumes `F` `L0`-Lipschitz on the domain, so the clip is inactive.
//! - `T_in d` within [`super::MAX_WORK`].
//!
//! # Privacy
//! As in Algorithm 2 (module [`super::noisy_pgd`]): `T_in - 1` releases of
//! the clipped mean gradient with sensitivity `2 L0/n`, each charged by the
//! ledger; recommended calibration spends `< rho`, the paper's `< rho/2`.

use super::noisy_pgd::{noisy_projected_gd, PgdBuffers};
use super::{InnerSteps, NoisyPgdInputs, MAX_WORK};
use crate::menart::{check_finite, check_positive, Calibration, MenartRun, ZcdpLedger};
use crate::transcript::Unobserved;
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand::Rng;

/// Configuration of a standalone Algorithm 4 call.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StandaloneNoisyPgd {
    /// Noise calibration (default recommended).
    pub calibration: Calibration,
    /// Inner step rule (default Theorem 9's).
    pub inner_steps: InnerSteps,
}

/// The outcome of [`StandaloneNoisyPgd::run`].
#[derive(Debug, Clone, PartialEq)]
pub struct StandaloneOutcome {
    /// The run (released point `u_bar`, spend, releases, clipped records).
    pub run: MenartRun,
    /// The call's public inputs (centre `w0`, budget `rho`, weight `Lt1`).
    pub inputs: NoisyPgdInputs,
    /// `T_in`.
    pub inner_steps: u64,
    /// The noise scale of every release.
    pub sigma: f64,
    /// Radius `L0/(2 Lt1)` of the projection ball around `w0`.
    pub ball_radius: f64,
}

impl StandaloneNoisyPgd {
    /// The public inputs of the call on `problem` with weight `prox_weight`,
    /// checked against the module's assumptions.
    pub fn inputs(
        &self,
        problem: &dyn KlObjective,
        prox_weight: f64,
        rho: f64,
        beta: f64,
    ) -> Result<NoisyPgdInputs, RunFailure> {
        let k = problem.kl_constants();
        check_positive("rho", rho)?;
        check_positive("prox_weight", prox_weight)?;
        check_positive("L0", k.lipschitz)?;
        if !(beta > 0.0 && beta < 1.0) {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 4 needs beta in (0, 1), got {beta}"
            )));
        }
        if prox_weight < k.weak_convexity {
            return Err(RunFailure::InvalidParameters(format!(
                "Theorem 9 needs an Lt1-strongly convex F~: prox_weight {prox_weight} is below the \
                 family's weak-convexity modulus {}",
                k.weak_convexity
            )));
        }
        let ball = k.lipschitz / (2.0 * prox_weight);
        if problem.region_center() != problem.start_point() || ball > k.region_radius {
            return Err(RunFailure::InvalidParameters(format!(
                "Theorem 9 assumes F L0-Lipschitz on the projection ball B(w0, L0/(2 Lt1)) = \
                 B(w0, {ball}); the family's L0 holds on a ball of radius {} around its region \
                 centre (the start point: {}): raise prox_weight to at least {}",
                k.region_radius,
                problem.region_center() == problem.start_point(),
                k.lipschitz / (2.0 * k.region_radius)
            )));
        }
        let inputs = NoisyPgdInputs {
            n: problem.num_records(),
            d: problem.dim(),
            rho,
            beta,
            l0: k.lipschitz,
            prox_weight,
        };
        let work = inputs.inner_steps(self.inner_steps) * inputs.d as f64;
        if work > MAX_WORK {
            return Err(RunFailure::InvalidParameters(format!(
                "Algorithm 4 needs T_in d = {work:.3e} > {MAX_WORK:e}"
            )));
        }
        Ok(inputs)
    }

    /// Runs Algorithm 4 once on `F(u) + prox_weight ||u - w0||^2` from the
    /// family's start point `w0` at budget `rho`.
    pub fn run<R: Rng + ?Sized>(
        &self,
        problem: &dyn KlObjective,
        prox_weight: f64,
        rho: f64,
        beta: f64,
        rng: &mut R,
    ) -> Result<StandaloneOutcome, RunFailure> {
        let inputs = self.inputs(problem, prox_weight, rho, beta)?;
        let t_in = inputs.inner_steps(self.inner_steps) as u64;
        let mut ledger = ZcdpLedger::new();
        let mut buf = PgdBuffers::new(inputs.d);
        let mut w = problem.start_point().to_vec();
        let (steps, clipped) = noisy_projected_gd(
            problem,
            &mut w,
            &inputs,
            t_in,
            self.calibration,
            &mut ledger,
            &mut buf,
            &mut Unobserved,
            rng,
        )?;
        check_finite(&w, "Algorithm 4 output")?;
        Ok(StandaloneOutcome {
            run: MenartRun {
                w,
                gradient_evaluations: steps * inputs.n as u64,
                rho_spent: ledger.spent(),
                iterations: steps,
                releases: ledger.releases(),
                clipped_records: clipped,
                trivial: false,
            },
            sigma: inputs.sigma(t_in as f64, self.calibration),
            ball_radius: inputs.l0 / (2.0 * prox_weight),
            inputs,
            inner_steps: t_in,
        })
    }
}

/// `F~(u) - min over B(center, radius) of F~` for `F~(u) = F(u) + weight
/// ||u - center||^2` when `F(u) - F* = 1/2 ||u - minimizer||^2` exactly (Hessian
/// `I`: a function both 1-smooth and 1-strongly convex).
///
/// `F~ = (1/2 + weight) ||u - u*||^2 + const` with
/// `u* = (minimizer + 2 weight center)/(1 + 2 weight)`, and its level sets are
/// spheres around `u*`, so its minimiser on the ball is the projection `p` of
/// `u*`: the excess is `(1/2 + weight)(||u - u*||^2 - ||p - u*||^2)`, computed
/// in that difference form (no cancellation of two `F~` values).
pub fn isotropic_prox_excess(
    minimizer: &[f64],
    center: &[f64],
    weight: f64,
    radius: f64,
    u: &[f64],
) -> f64 {
    let scale = 1.0 + 2.0 * weight;
    let u_star: Vec<f64> = minimizer
        .iter()
        .zip(center)
        .map(|(m, c)| (m + 2.0 * weight * c) / scale)
        .collect();
    let from_center = dist(&u_star, center);
    // The projection of u* lies on the segment from the centre, at distance
    // max(0, ||u* - c|| - r) from u*.
    let outside = (from_center - radius).max(0.0);
    let to_u = dist(u, &u_star);
    (0.5 + weight) * (to_u * to_u - outside * outside)
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the minimum of `F~` over the ball by projected gradient
    /// descent with step `1/(1 + 2 weight)` (exact on an isotropic quadratic
    /// without the ball, a contraction with it), against the closed form.
    fn brute_force_min(m: &[f64], c: &[f64], weight: f64, r: f64) -> Vec<f64> {
        let mut u = c.to_vec();
        let step = 1.0 / (1.0 + 2.0 * weight);
        for _ in 0..10_000 {
            for i in 0..u.len() {
                u[i] -= step * ((u[i] - m[i]) + 2.0 * weight * (u[i] - c[i]));
            }
            let d = dist(&u, c);
            if d > r {
                for i in 0..u.len() {
                    u[i] = c[i] + (u[i] - c[i]) * r / d;
                }
            }
        }
        u
    }

    fn f_tilde(m: &[f64], c: &[f64], weight: f64, u: &[f64]) -> f64 {
        let a = dist(u, m);
        let b = dist(u, c);
        0.5 * a * a + weight * b * b
    }

    #[test]
    fn the_closed_form_excess_matches_a_brute_force_minimum_inside_and_outside_the_ball() {
        let m = [3.0, -1.0, 0.5];
        let c = [0.2, 0.1, -0.3];
        let u = [0.9, -0.4, 0.0];
        // Radius 5: u* inside (the excess is (1/2 + w)||u - u*||^2); radius
        // 0.2: u* outside, the minimum sits on the sphere.
        for (weight, radius) in [(1.0, 5.0), (1.0, 0.2), (0.3, 0.5), (4.0, 10.0)] {
            let p = brute_force_min(&m, &c, weight, radius);
            let want = f_tilde(&m, &c, weight, &u) - f_tilde(&m, &c, weight, &p);
            let got = isotropic_prox_excess(&m, &c, weight, radius, &u);
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "weight {weight}, radius {radius}: {got} vs {want}"
            );
        }
        // At the constrained minimiser the excess is 0.
        let p = brute_force_min(&m, &c, 1.0, 0.2);
        assert!(isotropic_prox_excess(&m, &c, 1.0, 0.2, &p).abs() < 1e-9);
    }
}
