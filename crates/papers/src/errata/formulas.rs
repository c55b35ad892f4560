//! Local privacy formulas (see the module documentation of [`crate::errata`]
//! for sources), the harness's PLD accountant as the rows call it, the choice
//! of the tightest bound, and the root finders used to invert them.

use mechanisms::pld::PldAccountant;
use mechanisms::relation::Neighbouring;

/// Largest integer Rényi order searched by the (test-only) integer-order accountant.
/// The optimal order at the settings below is about 10 to 40.
#[cfg(test)]
const MAX_RDP_ORDER: u32 = 512;

/// `ln(1/delta)`.
pub(crate) fn log_inv(delta: f64) -> f64 {
    -delta.ln()
}

/// zCDP of a Gaussian release: `rho = Delta^2 / (2 sigma^2)` (Bun & Steinke 2016, Prop 1.6).
pub(crate) fn gaussian_zcdp(sensitivity: f64, sigma: f64) -> f64 {
    sensitivity * sensitivity / (2.0 * sigma * sigma)
}

/// `rho`-zCDP implies (`rho + 2 sqrt(rho ln(1/delta))`, delta)-DP (Bun & Steinke 2016, Prop 1.3).
pub(crate) fn zcdp_to_dp_eps(rho: f64, delta: f64) -> f64 {
    rho + 2.0 * (rho * log_inv(delta)).sqrt()
}

/// The `rho` whose conversion above is exactly (eps, delta):
/// `rho = (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2` (Menart digest §1.6).
pub(crate) fn dp_to_zcdp_rho(eps: f64, delta: f64) -> f64 {
    let l = log_inv(delta);
    ((l + eps).sqrt() - l.sqrt()).powi(2)
}

/// Advanced composition of `k` eps0-DP mechanisms (Dwork & Roth 2014, Thm 3.20):
/// `eps' = sqrt(2k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1)`, at `delta'` (plus `k delta0 = 0`).
pub(crate) fn advanced_composition_eps(k: f64, eps0: f64, delta_prime: f64) -> f64 {
    (2.0 * k * log_inv(delta_prime)).sqrt() * eps0 + k * eps0 * eps0.exp_m1()
}

/// Fully adaptive composition (Whitehouse et al. 2023, Thm 1, via the
/// González–Guzmán–Paquette digest Thm A.2): mechanisms with
/// `sum eps_m^2 = sum_sq` (and `delta_m = 0`) compose to
/// (`sqrt(2 ln(1/delta') sum_sq) + sum_sq / 2`, delta')-DP.
pub(crate) fn fully_adaptive_eps(sum_sq: f64, delta_prime: f64) -> f64 {
    (2.0 * log_inv(delta_prime) * sum_sq).sqrt() + 0.5 * sum_sq
}

/// Kept for tests only: the rows use the harness's RDP accountant, whose
/// fractional orders and tight conversion give smaller eps; the tests check
/// the old integer-order, classical-conversion value against it.
///
/// RDP of integer order `alpha >= 2` of one Poisson-subsampled Gaussian step
/// with sampling rate `q` in (0, 1) and noise multiplier `z` (noise std over
/// sensitivity), add/remove adjacency (Mironov, Talwar & Zhang 2019; Bassily
/// digest §7 P4):
///
/// `eps(alpha) = ln( sum_{k=0}^{alpha} C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 z^2)) ) / (alpha-1)`,
///
/// evaluated as a log-sum-exp.
#[cfg(test)]
pub(crate) fn subsampled_gaussian_rdp(alpha: u32, q: f64, z: f64) -> f64 {
    let a = f64::from(alpha);
    let (ln_q, ln_1mq) = (q.ln(), (-q).ln_1p());
    let mut ln_binom = 0.0;
    let mut logs = Vec::with_capacity(alpha as usize + 1);
    logs.push(a * ln_1mq);
    for k in 1..=alpha {
        let kf = f64::from(k);
        ln_binom += (a - kf + 1.0).ln() - kf.ln();
        logs.push(ln_binom + (a - kf) * ln_1mq + kf * ln_q + (kf * kf - kf) / (2.0 * z * z));
    }
    let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = logs.iter().map(|l| (l - max).exp()).sum();
    (max + sum.ln()) / (a - 1.0)
}

/// (eps, delta)-DP of `steps` compositions of the step above, via
/// `eps = min_alpha steps * eps_RDP(alpha) + ln(1/delta)/(alpha - 1)`
/// (Mironov 2017, Prop 3), over integer orders 2..=512.
#[cfg(test)]
pub(crate) fn subsampled_gaussian_eps(steps: f64, q: f64, z: f64, delta: f64) -> f64 {
    (2..=MAX_RDP_ORDER)
        .map(|a| steps * subsampled_gaussian_rdp(a, q, z) + log_inv(delta) / f64::from(a - 1))
        .fold(f64::INFINITY, f64::min)
}

/// eps at `delta` of `steps` Poisson-subsampled Gaussian steps (rate `q`,
/// noise multiplier `z` relative to the sensitivity under `relation`) by the
/// harness's PLD accountant ([`PldAccountant`], connect-the-dots on the grid
/// `h = 1e-4`, pessimistic: an upper bound within about 1e-4 of the exact
/// eps); `+inf` where it cannot be computed (e.g. too little noise for the
/// grid), which no row then takes as its tightest figure.
pub(crate) fn pld_poisson_gaussian_eps(
    q: f64,
    z: f64,
    steps: u64,
    delta: f64,
    relation: Neighbouring,
) -> f64 {
    PldAccountant::new(relation)
        .compose_poisson_gaussian(q, z, steps)
        .and_then(|acc| acc.epsilon(delta))
        .unwrap_or(f64::INFINITY)
}

/// The smallest `x` in `[lo, hi]` with `f(x) <= target`, for a continuous
/// decreasing `f` with `f(lo) > target >= f(hi)`, by the Illinois variant of
/// regula falsi (a handful of evaluations where bisection needs ~40, which
/// matters when one evaluation composes a PLD) until the bracket is
/// `1e-10` relative wide; returns its upper end, where `f <= target` holds.
pub(crate) fn smallest_meeting(lo: f64, hi: f64, target: f64, f: impl Fn(f64) -> f64) -> f64 {
    let (mut a, mut fa) = (lo, f(lo) - target);
    let (mut b, mut fb) = (hi, f(hi) - target);
    assert!(
        fa > 0.0 && fb <= 0.0,
        "bracket [{lo}, {hi}] does not straddle the target {target}"
    );
    // Which end was moved last (-1: a, 1: b); an end kept twice has its
    // value halved (Illinois), so the secant does not stall on one side.
    let mut moved = 0;
    for _ in 0..200 {
        if b - a <= 1e-10 * b {
            break;
        }
        let secant = b - fb * (b - a) / (fb - fa);
        let c = if secant > a && secant < b {
            secant
        } else {
            0.5 * (a + b)
        };
        let fc = f(c) - target;
        if fc > 0.0 {
            (a, fa) = (c, fc);
            if moved == -1 {
                fb *= 0.5;
            }
            moved = -1;
        } else {
            (b, fb) = (c, fc);
            if moved == 1 {
                fa *= 0.5;
            }
            moved = 1;
        }
    }
    b
}

/// The smallest `x` in `[lo, hi]` (to ~1e-12 relative) at which the monotone
/// predicate `ok` (false below, true above) holds; `ok(hi)` must hold.
pub(crate) fn smallest_passing(mut lo: f64, mut hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    assert!(
        ok(hi) && !ok(lo),
        "bisection bracket [{lo}, {hi}] is invalid"
    );
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_meeting_finds_the_crossing_from_above() {
        // f(x) = 1/x crosses 0.3 at x = 10/3.
        let x = smallest_meeting(0.5, 50.0, 0.3, |x| 1.0 / x);
        assert!(1.0 / x <= 0.3 && (x - 10.0 / 3.0).abs() < 1e-9, "{x}");
        // A kink does not stop it.
        let x = smallest_meeting(
            0.0,
            4.0,
            1.0,
            |x| if x < 1.0 { 3.0 - x } else { 2.0 - 0.5 * x },
        );
        assert!((x - 2.0).abs() < 1e-9, "{x}");
    }

    #[test]
    fn zcdp_conversion_round_trips() {
        let rho = dp_to_zcdp_rho(1.0, 1e-5);
        assert!((zcdp_to_dp_eps(rho, 1e-5) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn subsampled_rdp_reduces_to_gaussian_at_q_one() {
        // With q = 1 the sum is exp((a^2 - a)/(2 z^2)): the Gaussian RDP a/(2 z^2).
        for (a, z) in [(2, 1.0), (10, 3.0), (40, 0.7)] {
            let got = subsampled_gaussian_rdp(a, 1.0 - 1e-15, z);
            let want = f64::from(a) / (2.0 * z * z);
            assert!(
                (got - want).abs() < 1e-9 * want.max(1.0),
                "{a} {z}: {got} vs {want}"
            );
        }
    }
}
