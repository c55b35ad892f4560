//! Bassily, Feldman, Talwar & Thakurta, "Private SCO with Optimal Rates".

use mechanisms::calibration::{classical_gaussian_sigma, exact_gaussian_delta};
use mechanisms::composition::ApproxDp;
use mechanisms::rdp::RdpAccountant;
use mechanisms::relation::Neighbouring;

use solvers::bassily::objp::ObjPSetting;

use crate::errata::erratum::Erratum;
use crate::errata::formulas::{
    log_inv, pld_poisson_gaussian_eps, smallest_meeting, smallest_passing,
};
use crate::errata::number_format::{num, param};
use crate::errata::privacy::{tightest, Accounting, Privacy};
use crate::errata::row::EPS;
use crate::errata::row::{erratum, noise};

const BASSILY: &str = "Bassily–Feldman–Talwar–Thakurta";

/// Theorem 3.2's parameters of Algorithm 1 (digest §2.1), with `L = 1`.
struct Nsgd {
    /// Steps `T = floor(min(n/8, eps^2 n^2 / (32 d ln(1/delta))))`.
    steps: f64,
    /// Batch size `m = ceil(n sqrt(eps / (4T)))`.
    batch: f64,
    /// Noise std on the mean gradient, `sqrt(8 T ln(1/delta)) / (n eps)` (units of L).
    sigma: f64,
}

impl Nsgd {
    fn new(n: f64, d: f64, eps: f64, delta: f64) -> Self {
        let lam = log_inv(delta);
        let steps = (n / 8.0)
            .min(eps * eps * n * n / (32.0 * d * lam))
            .floor()
            .max(1.0);
        let batch = (n * (eps / (4.0 * steps)).sqrt()).ceil().clamp(1.0, n);
        let sigma = (8.0 * steps * lam).sqrt() / (n * eps);
        Self {
            steps,
            batch,
            sigma,
        }
    }

    /// Noise multiplier of the batch sum in units of the per-example norm bound: `m sigma / L`.
    fn multiplier(&self) -> f64 {
        self.batch * self.sigma
    }

    /// The harness's RDP accountant ([`RdpAccountant::new`]: the 156 default
    /// orders, fractional ones included) after `T` Poisson-subsampled Gaussian
    /// steps at `q = m/n` with noise multiplier `z`, under add/remove.
    fn add_remove(&self, n: f64, z: f64) -> RdpAccountant {
        let mut accountant = RdpAccountant::new(Neighbouring::AddRemove);
        accountant
            .compose_poisson_gaussian(self.batch / n, z, self.steps as u64)
            .expect("q in (0, 1], z > 0 and T >= 1");
        accountant
    }

    /// Realised replace-one eps at `delta` by `route`, when one example's
    /// gradient has norm at most `norm` times L (so under add/remove the batch
    /// sum moves by `norm` L and under replace-one by `2 norm` L).
    fn eps(&self, route: Route, n: f64, multiplier: f64, norm: f64, delta: f64) -> f64 {
        match route {
            Route::DoubledSensitivity => self
                .add_remove(n, multiplier / (2.0 * norm))
                .epsilon(delta)
                .expect("delta in (0, 1)"),
            Route::GroupPrivacy => group_of_two_eps(&self.add_remove(n, multiplier / norm), delta),
        }
    }

    /// The tightest replace-one eps the harness gives (the smaller of the two
    /// routes) and the route attaining it.
    fn tightest(&self, n: f64, multiplier: f64, norm: f64, delta: f64) -> (f64, Route) {
        [Route::GroupPrivacy, Route::DoubledSensitivity]
            .into_iter()
            .map(|route| (self.eps(route, n, multiplier, norm, delta), route))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("two routes")
    }

    /// eps under add/remove (one example moves the batch sum by `norm` L).
    fn eps_add_remove(&self, n: f64, multiplier: f64, norm: f64, delta: f64) -> f64 {
        self.add_remove(n, multiplier / norm)
            .epsilon(delta)
            .expect("delta in (0, 1)")
    }

    /// The smallest multiplier `m sigma / L` meeting `eps` at `delta` under
    /// replace-one by the tightest route ([`Nsgd::tightest`]).
    fn calibrate(&self, n: f64, norm: f64, eps: f64, delta: f64) -> f64 {
        smallest_passing(0.05, 200.0, |z| self.tightest(n, z, norm, delta).0 <= eps)
    }
}

/// The two replace-one accountings the harness has for Poisson-subsampled
/// Gaussian steps (its RDP accountant covers `0 < q < 1` only under add/remove).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// The add/remove RDP accountant with the sensitivity doubled to `2 norm`
    /// (the digest's naive replace-one).
    DoubledSensitivity,
    /// The add/remove RDP accountant at sensitivity `norm`, converted to
    /// (eps1, delta1), then group privacy for the two add/remove steps of a
    /// replacement: (2 eps1, (1 + e^eps1) delta1) ([`ApproxDp::to_replace_one`]).
    GroupPrivacy,
}

impl Route {
    /// The route not taken.
    fn other(self) -> Route {
        match self {
            Route::DoubledSensitivity => Route::GroupPrivacy,
            Route::GroupPrivacy => Route::DoubledSensitivity,
        }
    }

    fn accounting(self) -> Accounting {
        match self {
            Route::DoubledSensitivity => Accounting::RdpDoubledSensitivity,
            Route::GroupPrivacy => Accounting::RdpGroupPrivacy,
        }
    }
}

/// Smallest replace-one `eps` at `delta` that group privacy certifies from an
/// add/remove accountant: `eps = 2 eps1` with `(1 + e^eps1) delta_ar(eps1) <=
/// delta`, where `delta_ar` is the accountant's tight conversion (`+inf` if no
/// `eps1 <= 1e4` meets it). Every `eps1`
/// meeting the constraint is a valid guarantee, and the bisection only ever
/// returns one that meets it.
fn group_of_two_eps(accountant: &RdpAccountant, delta: f64) -> f64 {
    let ok = |eps1: f64| {
        let delta1 = accountant.delta(eps1).expect("eps1 >= 0");
        ApproxDp::new(eps1, delta1, Neighbouring::AddRemove)
            .expect("valid (eps, delta)")
            .to_replace_one()
            .delta
            <= delta
    };
    if ok(0.0) {
        return 0.0;
    }
    let mut hi = 1.0;
    while !ok(hi) {
        if hi > 1e4 {
            // No finite group-privacy guarantee (e.g. far too little noise).
            return f64::INFINITY;
        }
        hi *= 2.0;
    }
    2.0 * smallest_passing(0.0, hi, ok)
}

/// The tightest bound the harness has on NSGD's release with noise
/// multiplier `z` (noise `z L` on the batch sum) and gradients of norm
/// `norm L` under replace-one: the better RDP route and the PLD accountant
/// with the substitution pair (sensitivity `2 norm L`, so the PLD's
/// multiplier is `z/(2 norm)`), the smaller bound, labelled.
fn tightest_of_all(p: &Nsgd, n: f64, z: f64, norm: f64, delta: f64) -> (f64, Accounting) {
    let (rdp, route) = p.tightest(n, z, norm, delta);
    let q = p.batch / n;
    let pld = pld_poisson_gaussian_eps(
        q,
        z / (2.0 * norm),
        p.steps as u64,
        delta,
        Neighbouring::ReplaceOne,
    );
    tightest([(rdp, route.accounting()), (pld, Accounting::Pld)])
}

/// Bassily §7 P4, P6: Algorithm 1's noise is asserted private via [ACG+16]
/// (Poisson sampling, add/remove); under the paper's replace-one relation the
/// batch sum moves by 2L. Judged by the tightest accountant the harness has:
/// the RDP routes and the PLD accountant with the replace-one substitution pair.
pub(crate) fn nsgd() -> Erratum {
    let (n, d, eps) = (1e4, 10.0, EPS);
    let delta = 1.0 / (n * n);
    let p = Nsgd::new(n, d, eps, delta);
    let printed = p.multiplier();
    let best = |z: f64| tightest_of_all(&p, n, z, 1.0, delta);
    // The RDP calibration meets the target; half of it does not.
    let rdp_corrected = p.calibrate(n, 1.0, eps, delta);
    let corrected = smallest_meeting(rdp_corrected / 2.0, rdp_corrected, eps, |z| best(z).0);
    let (realised, accounting) = best(printed);
    let (realised_corrected, _) = best(corrected);
    let (rdp, route) = p.tightest(n, printed, 1.0, delta);
    let other = route.other();
    erratum(
        "BFTT-P4",
        BASSILY,
        "§7 P4, P6",
        "Alg. 1 (NSGD) noise σ² = 8TL²ln(1/δ)/(n²ε²)",
        format!(
            "n = {}, d = {}, ε = {}, δ = 1/n², L = 1; T = {}, m = {} (Thm 3.2); replace-one",
            param(n),
            param(d),
            param(eps),
            param(p.steps),
            param(p.batch)
        ),
        noise("mσ/L", printed, corrected).accounted(
            Privacy::Epsilon { eps, delta },
            accounting,
            [realised, realised_corrected],
        ),
        format!(
            "the paper cites [ACG+16] without a derivation. Accounted with Poisson sampling at q = m/n \
             (the paper samples with replacement, P5, which no accountant here covers) by the tightest \
             accountant the harness has, here the {}: ε = {} for the substitution pair \
             (1−q)N(0, z²) + qN(∓1, z²) (a record of norm L replaced by its mirror image, z = mσ/L). \
             The harness's RDP accountant (156 orders, fractional ones included; Canonne–Kamath–Steinke \
             conversion) gives ε = {} ({}) and ε = {} ({}); add/remove alone, ε = {}. Corrected: the \
             smallest multiplier meeting the target by the tightest accountant. The digest's table \
             (integer orders, classical conversion, 2L) gives z = 6.10 and ε = 1.07 here; its correction \
             quotes 0.934 (2L), 0.903 (group privacy) and 0.833 by a tight replace-one PLD accountant, \
             which the harness now computes.",
            accounting.label(),
            num(realised),
            num(rdp),
            route.accounting().label(),
            num(p.eps(other, n, printed, 1.0, delta)),
            other.accounting().label(),
            num(p.eps_add_remove(n, printed, 1.0, delta))
        ),
    )
}

/// Bassily §7 P10: ProxGD reuses Theorem 3.2's noise because its
/// envelope gradients have norm at most `L(1 + 1/n)` (the exact envelope's
/// `L` plus the inexact prox's `L/n`). The corrected digest (2026-11-28)
/// withdraws the privacy gap it once saw here: every iterate lies in `W`,
/// and on `W` the constrained envelope's gradient has norm at most `L` by
/// the variational inequality of the projection onto `W` (Lemma 4.3's `2L`
/// is a loose proof constant), as the unconstrained envelope's does
/// everywhere. So the calibration is judged at the norm `L(1 + 1/n)`, the
/// clip `A_ProxGD` enforces; a `2L(1 + 1/n)` calibration would double the
/// noise for nothing.
pub(crate) fn proxgd() -> Erratum {
    let (n, d, eps) = (1e4, 10.0, EPS);
    let delta = 1.0 / (n * n);
    let p = Nsgd::new(n, d, eps, delta);
    let printed = p.multiplier();
    let clip = 1.0 + 1.0 / n;
    let best = |z: f64| tightest_of_all(&p, n, z, clip, delta);
    let rdp_corrected = p.calibrate(n, clip, eps, delta);
    let corrected = smallest_meeting(rdp_corrected / 2.0, rdp_corrected, eps, |z| best(z).0);
    let (realised, accounting) = best(printed);
    let (realised_corrected, _) = best(corrected);
    let (_, route) = p.tightest(n, printed, clip, delta);
    erratum(
        "BFTT-P10",
        BASSILY,
        "§7 P10",
        "ProxGD noise vs. envelope-gradient norm",
        format!(
            "as BFTT-P4 (n = {}, T = {}, m = {}); envelope gradient norm ≤ L(1+1/n) on W \
             (constrained or unconstrained envelope); replace-one",
            param(n),
            param(p.steps),
            param(p.batch)
        ),
        noise("mσ/L", printed, corrected).accounted(
            Privacy::Epsilon { eps, delta },
            accounting,
            [realised, realised_corrected],
        ),
        format!(
            "the text reuses Thm 3.2's σ (computed with L) because ‖∇̂ℓ_β‖ ≤ L(1+1/n). Lemma 4.3 states \
             2L for the constrained envelope, but every iterate lies in W, where the variational \
             inequality of the projection gives ‖∇ℓ_β‖ ≤ L (corrected digest, 2026-11-28): the \
             printed σ is judged at the clip norm L(1+1/n), for the constrained algorithm as for the \
             unconstrained variant, and is private; the 1/n of the inexact prox is what it costs \
             beyond BFTT-P4. Corrected: the smallest multiplier meeting the target at that norm by the \
             tightest accountant. Same accountants (RDP routes and the replace-one PLD), routes and \
             sampling assumption as BFTT-P4 (the RDP route {} gives ε = {}, the other ε = {}; under \
             add/remove the printed noise gives ε = {}).",
            route.accounting().label(),
            num(p.tightest(n, printed, clip, delta).0),
            num(p.eps(route.other(), n, printed, clip, delta)),
            num(p.eps_add_remove(n, printed, clip, delta))
        ),
    )
}

/// Bassily §2.4, §7 P12: Algorithm 3's first stage uses
/// `sigma_G^2 = 20 L^2 ln(1/delta)/eps^2` where (eps/2, delta/2) under
/// Theorem 5.2 needs `40 L^2 ln(2/delta)/eps^2`.
///
/// Judged on the harness's own instance where stage 1 has an exact profile:
/// the linear loss of LinBall (`l(w, z) = -L <w, z>`, digest §6 E1: convex,
/// L-Lipschitz, Hessian 0, so Assumption 5.1 and `beta = 0 <= eps n lambda`
/// hold for every lambda) in `d = 1`. There
/// `w1 = argmin_{|w| <= M} Lhat + G w/n + lambda w^2 = Proj_W((L sum z_i - G)/(2 n lambda))`,
/// a Gaussian release of `L sum z_i` (replace-one sensitivity `2L`) followed
/// by an affine map and a projection. On the pair `S = (0, ..., 0, 1)`,
/// `S' = (0, ..., 0, -1)` the projection binds only when `|G| > 2 n lambda M - L`,
/// so the realised `delta` at `eps/2` is the exact Gaussian one minus at most
/// that tail (`objp_first_stage_projection_tail`), here below 1e-150.
pub(crate) fn objp_first_stage() -> Erratum {
    let (n, eps) = (1e4, EPS);
    let delta = 1.0 / (n * n);
    let printed = (20.0 * log_inv(delta)).sqrt() / eps;
    let corrected = (40.0 * log_inv(delta / 2.0)).sqrt() / eps;
    // Units of L: replacing one record of norm <= 1 moves L sum z_i by 2L.
    let sens = 2.0;
    let (eps_1, delta_1) = (eps / 2.0, delta / 2.0);
    // Thm 5.2: sigma^2 = 10 L^2 ln(1/delta')/eps'^2 certifies (eps', delta');
    // the smallest eps' it certifies for the printed sigma at delta' = delta/2.
    let thm_5_2_eps = (10.0 * log_inv(delta_1)).sqrt() / printed;
    let tail = objp_first_stage_projection_tail(n, eps, delta, printed);
    erratum(
        "BFTT-P12a",
        BASSILY,
        "§2.4, §7 P12",
        "Alg. 3 (ObjP-App) objective noise σ_G",
        format!(
            "ε = {}, δ = {} (δ ≤ 1/n², n = {}), L = M = 1; stage 1 at (ε/2, δ/2); linear loss \
             (LinBall, d = 1, Hessian 0, β = 0), S = (0, …, 0, 1) vs S′ = (0, …, 0, −1), λ of Thm 5.7",
            param(eps),
            param(delta),
            param(n)
        ),
        noise("σ_G/L", printed, corrected).exact_gaussian(
            eps_1,
            delta_1,
            (printed, sens),
            (corrected, sens),
        ),
        format!(
            "on the linear loss stage 1's exact minimizer is Proj_W((L Σz_i − G)/(2nλ)): the Gaussian \
             mechanism on L Σz_i (replace-one sensitivity 2L, the same in every d) followed by \
             post-processing, with no Jacobian term (Hessian 0), so its profile is exact; the \
             projection binds with probability below {} on this pair, which is all it can take off \
             the δ shown. The printed σ_G² = 20L²ln(1/δ)/ε² therefore fails (ε/2, δ/2) on an \
             instance that meets every hypothesis of Thm 5.6 (β = 0 ≤ εnλ for every λ); Thm 5.2 \
             alone had certified only ε′ = {} for it at δ/2 (ε = {} for Alg. 3 by basic \
             composition). Whether Alg. 3's final release meets (ε, δ) on this instance depends on \
             the optimizer's w₂ and H and is not judged here. Corrected σ_G² = 40L²ln(2/δ)/ε² with \
             β ≤ εnλ/2: certified by Thm 5.2 on every loss; its δ on this instance is the one shown.",
            num(tail.max(f64::MIN_POSITIVE)),
            num(thm_5_2_eps),
            num(thm_5_2_eps + eps_1)
        ),
    )
}

/// Probability that the projection onto `W = [-M, M]` binds in stage 1 on
/// the pair of [`objp_first_stage`] (`L = M = 1`, `d = 1`, `sum z_i = +-1`):
/// `P(|G| > 2 n lambda M - L)` under either data set, bounded by
/// `2 Phi(-(2 n lambda M - L)/sigma_G)`, with Theorem 5.7's (= 5.3's)
/// lambda as the solver computes it ([`ObjPSetting::lambda`]).
fn objp_first_stage_projection_tail(n: f64, eps: f64, delta: f64, sigma_g: f64) -> f64 {
    let setting = ObjPSetting {
        n,
        d: 1.0,
        eps,
        delta,
        lipschitz: 1.0,
        radius: 1.0,
    };
    let margin = 2.0 * n * setting.lambda() - 1.0;
    2.0 * mechanisms::normal::normal_cdf(-margin / sigma_g)
}

/// Bassily §2.4: the output noise `H` of Algorithm 3 at (eps/2, delta/2); the
/// digest finds it sufficient with the 2λ-strong-convexity sensitivity.
pub(crate) fn objp_output_noise() -> Erratum {
    let (n, eps) = (1e4, EPS);
    let delta = 1.0 / (n * n);
    let (eps_h, delta_h) = (eps / 2.0, delta / 2.0);
    // Units of sqrt(alpha/lambda): ||w2 - w1|| <= sqrt(alpha/lambda) by 2λ-strong convexity.
    let sens = 2.0;
    let paper_sens = 8f64.sqrt();
    let printed = (40.0 * log_inv(delta)).sqrt() / eps;
    let corrected = classical_gaussian_sigma(eps_h, delta_h, sens).expect("eps/2 <= 1");
    let paper_delta = exact_gaussian_delta(eps_h, printed, paper_sens);
    erratum(
        "BFTT-P12b",
        BASSILY,
        "§2.4, §7 P12",
        "Alg. 3 (ObjP-App) output noise σ_H",
        format!(
            "ε = {}, δ = {}; H released at (ε/2, δ/2); sensitivity 2√(α/λ)",
            param(eps),
            param(delta)
        ),
        noise("σ_H/√(α/λ)", printed, corrected).exact_gaussian(
            eps_h,
            delta_h,
            (printed, sens),
            (corrected, sens),
        ),
        format!(
            "printed σ_H² = 40α ln(1/δ)/(λε²); the objective is 2λ-strongly convex, so ‖w₂ − w₁‖ ≤ √(α/λ) \
             and the sensitivity is 2√(α/λ); corrected = classical Gaussian at (ε/2, δ/2), \
             32α ln(2.5/δ)/(λε²). With the paper's own (looser) sensitivity √(8α/λ) the printed σ_H \
             would give δ = {} at ε/2 by the exact profile, {} the claimed δ/2 = {}.",
            num(paper_delta),
            if paper_delta > delta_h { "above" } else { "below" },
            num(delta_h)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errata::formulas::subsampled_gaussian_eps;

    #[test]
    fn tight_accounting_certifies_what_the_loose_one_did_not() {
        let (n, delta) = (1e4, 1e-8);
        let p = Nsgd::new(n, 10.0, 1.0, delta);
        let z = p.multiplier();
        // The old accountant (integer orders, classical conversion, 2L): 1.073.
        let loose = subsampled_gaussian_eps(p.steps, p.batch / n, z / 2.0, delta);
        assert!((loose - 1.073).abs() < 1e-3, "{loose}");
        // The harness's accountant, both routes; the digest's correction gives
        // 0.934 (2L) and 0.903 (group privacy) with dp_accounting.
        let doubled = p.eps(Route::DoubledSensitivity, n, z, 1.0, delta);
        let group = p.eps(Route::GroupPrivacy, n, z, 1.0, delta);
        assert!((doubled - 0.934).abs() < 2e-3, "{doubled}");
        assert!((group - 0.903).abs() < 2e-3, "{group}");
        assert_eq!(p.tightest(n, z, 1.0, delta), (group, Route::GroupPrivacy));
    }

    #[test]
    fn group_route_is_the_group_privacy_bound() {
        let (n, delta) = (1e4, 1e-8);
        let p = Nsgd::new(n, 10.0, 1.0, delta);
        let acc = p.add_remove(n, p.multiplier());
        let eps = group_of_two_eps(&acc, delta);
        let half = eps / 2.0;
        let at = |e1: f64| (1.0 + e1.exp()) * acc.delta(e1).unwrap();
        assert!(at(half) <= delta);
        assert!(at(half * (1.0 - 1e-6)) > delta);
    }
}
