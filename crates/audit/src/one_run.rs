//! One-run auditing (Steinke, Nasr & Jagielski 2023): a lower bound on `eps`
//! from a **single** run of the mechanism, through many canaries at once.
//!
//! # The game
//! `m` canary slots; slot `i` holds its canary (`S_i = +1`, "in") or not
//! (`S_i = -1`, "out"), each independently with probability 1/2. The
//! mechanism runs once on the resulting data; the auditor scores every slot
//! from the release and guesses `k_+` slots "in" (the highest scores), `k_-`
//! slots "out" (the lowest) and abstains on the rest: `r = k_+ + k_-`
//! guesses, fixed before the run, `v` of them correct.
//!
//! # The bound
//! If the mechanism is `(eps, delta)`-DP with respect to changing one `S_i`
//! (one canary slot, i.e. one record under the relation the slots realise),
//! the number of correct guesses `W` satisfies, for every `v`
//! (Steinke et al., Theorem 3.1 read as a tail bound),
//!
//! `P[W >= v] <= beta(v) + 2 m delta max_{1 <= i <= v} P[v - i <= B < v] / i`,
//!
//! with `B ~ Bin(r, q)`, `q = e^eps / (1 + e^eps)` the accuracy of
//! `eps`-randomised response and `beta(v) = P[B >= v]`; with `delta = 0`,
//! `W` is stochastically dominated by `B`. The right-hand side
//! ([`p_value`]) is a p-value for the null hypothesis "the mechanism is
//! `(eps, delta)`-DP", and the audit reports the smallest `eps` the
//! observed `v` does not reject at level `alpha`: [`eps_lower`].
//!
//! # Why a monotone envelope
//! `beta` increases with `eps` but the `delta` term need not (its mass moves
//! above `v` as `q -> 1`), so `{eps : p(eps) <= alpha}` need not be an
//! interval and a bisection on `p` could report an `eps` above one the data
//! do not reject. [`eps_lower`] bisects instead on
//! `p_hat(eps) = beta + 2 m delta max_i P[B >= v - i] / i`, which is
//! increasing in `eps` (each `P[B >= v - i]` is) and at least `p`; it
//! exceeds `p` by at most `2 m delta beta` (the two maxima differ by at most
//! `max_i beta / i = beta`), a relative `2e-5` at `m = 1000, delta = 1e-8`.
//! Then `eps_lower > eps*` implies `p_hat(eps*) <= alpha`, hence
//! `p(eps*) <= alpha`, an event of probability at most `alpha` under an
//! `(eps*, delta)`-DP mechanism: the false-alarm rate is `alpha`. Every
//! tail is an exact binomial sum (a table of `ln k!`), never a normal
//! approximation.

use crate::clopper_pearson::{bisect, ln_factorials};

/// The auditor's guess for one canary slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guess {
    /// The canary was included (`S_i = +1`).
    In,
    /// The canary was left out (`S_i = -1`).
    Out,
    /// No guess.
    Abstain,
}

/// Guesses from scores: the `k_plus` highest scores "in", the `k_minus`
/// lowest "out", the rest abstain. Ties are broken by slot index (the
/// guess stays a deterministic function of the release).
///
/// # Panics
/// When `k_plus + k_minus > scores.len()` or a score is NaN.
pub fn guess(scores: &[f64], k_plus: usize, k_minus: usize) -> Vec<Guess> {
    let m = scores.len();
    assert!(
        k_plus + k_minus <= m,
        "{k_plus} + {k_minus} guesses for {m} canaries"
    );
    assert!(scores.iter().all(|s| !s.is_nan()), "a canary score is NaN");
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
    let mut out = vec![Guess::Abstain; m];
    order[..k_minus].iter().for_each(|&i| out[i] = Guess::Out);
    order[m - k_plus..].iter().for_each(|&i| out[i] = Guess::In);
    out
}

/// `(r, v)`: the guesses made and how many match `included`.
///
/// # Panics
/// When the slices differ in length.
pub fn score_guesses(guesses: &[Guess], included: &[bool]) -> (usize, usize) {
    assert_eq!(guesses.len(), included.len(), "one guess per canary");
    guesses
        .iter()
        .zip(included)
        .fold((0, 0), |(r, v), (g, &inc)| match g {
            Guess::Abstain => (r, v),
            Guess::In => (r + 1, v + usize::from(inc)),
            Guess::Out => (r + 1, v + usize::from(!inc)),
        })
}

/// `P[Bin(r, q)]` at every `k = 0..=r`, `q = e^eps / (1 + e^eps)`, from a
/// table of `ln k!` (exact to rounding; a value below `1e-308` underflows
/// to 0, far below any level an audit uses).
fn binomial_pmf(r: usize, eps: f64, ln_fact: &[f64]) -> Vec<f64> {
    // ln q = -ln(1 + e^-eps), ln(1 - q) = -eps - ln(1 + e^-eps): no
    // cancellation for large eps, where 1 - q underflows in f64.
    let soft = (-eps).exp().ln_1p();
    let (ln_q, ln_1mq) = (-soft, -eps - soft);
    (0..=r)
        .map(|k| {
            (ln_fact[r] - ln_fact[k] - ln_fact[r - k] + k as f64 * ln_q + (r - k) as f64 * ln_1mq)
                .exp()
        })
        .collect()
}

/// `(beta, max_i P[v - i <= B < v]/i, max_i P[B >= v - i]/i)` at `eps`.
fn terms(r: usize, v: usize, eps: f64, ln_fact: &[f64]) -> (f64, f64, f64) {
    let pmf = binomial_pmf(r, eps, ln_fact);
    let beta: f64 = pmf[v..].iter().rev().sum::<f64>().min(1.0);
    let (mut window, mut paper, mut envelope) = (0.0f64, 0.0f64, 0.0f64);
    for i in 1..=v {
        window += pmf[v - i];
        paper = paper.max(window / i as f64);
        envelope = envelope.max((beta + window).min(1.0) / i as f64);
    }
    (beta, paper, envelope)
}

fn check(m: usize, r: usize, v: usize, delta: f64) {
    assert!(v <= r && r <= m, "need v <= r <= m, got {v}, {r}, {m}");
    assert!((0.0..=1.0).contains(&delta), "delta = {delta}");
}

/// The paper's bound on `P[W >= v]` for an `(eps, delta)`-DP mechanism with
/// `m` canaries and `r` guesses (module doc), capped at 1.
///
/// # Panics
/// Unless `v <= r <= m`, `eps >= 0` and `delta` lies in `[0, 1]`.
pub fn p_value(m: usize, r: usize, v: usize, eps: f64, delta: f64) -> f64 {
    check(m, r, v, delta);
    assert!(eps >= 0.0, "eps = {eps}");
    let (beta, paper, _) = terms(r, v, eps, &ln_factorials(r));
    (beta + 2.0 * m as f64 * delta * paper).min(1.0)
}

/// The increasing envelope `p_hat(eps) >= p_value(eps)` that
/// [`eps_lower`] inverts (module doc).
fn p_hat(m: usize, r: usize, v: usize, eps: f64, delta: f64, ln_fact: &[f64]) -> f64 {
    let (beta, _, envelope) = terms(r, v, eps, ln_fact);
    (beta + 2.0 * m as f64 * delta * envelope).min(1.0)
}

/// The one-run lower bound: the largest `eps` (to adjacent `f64`s) below
/// which every `eps` is rejected at level `alpha` by `v` correct of `r`
/// guesses over `m` canaries; 0 when `eps = 0` is not rejected. For an
/// `(eps*, delta)`-DP mechanism, `P[eps_lower > eps*] <= alpha`.
///
/// # Panics
/// Unless `v <= r <= m`, `delta` lies in `[0, 1]` and `alpha` in `(0, 1)`.
pub fn eps_lower(m: usize, r: usize, v: usize, delta: f64, alpha: f64) -> f64 {
    check(m, r, v, delta);
    assert!(alpha > 0.0 && alpha < 1.0, "alpha = {alpha}");
    let ln_fact = ln_factorials(r);
    let rejected = |eps: f64| p_hat(m, r, v, eps, delta, &ln_fact) <= alpha;
    if !rejected(0.0) {
        return 0.0;
    }
    // p_hat -> 1 as eps grows (beta -> 1 once q rounds to 1, by eps = 40),
    // so the doubling stops.
    let mut hi = 1.0;
    while rejected(hi) {
        hi *= 2.0;
    }
    bisect(0.0, hi, rejected).0
}

/// The pure-DP bound when all `r` guesses are correct, in closed form:
/// `q^r = alpha` at `q = alpha^(1/r)`, so `eps = ln(q / (1 - q))`. It is
/// the most one run with `r` guesses can certify at level `alpha`.
pub fn all_correct_eps(r: usize, alpha: f64) -> f64 {
    // ln q = ln(alpha)/r; 1 - q = -expm1(ln q) keeps its digits as q -> 1.
    let ln_q = alpha.ln() / r as f64;
    ln_q - (-ln_q.exp_m1()).ln()
}

/// One one-run audit's result.
#[derive(Debug, Clone, PartialEq)]
pub struct OneRun {
    /// Lower confidence bound on `eps` at `delta` ([`eps_lower`]).
    pub eps_lower: f64,
    /// Canary slots `m`.
    pub canaries: usize,
    /// Guesses `r = k_+ + k_-`.
    pub guesses: usize,
    /// Correct guesses `v`.
    pub correct: usize,
    /// The `delta` the bound holds at.
    pub delta: f64,
    /// False-alarm rate.
    pub alpha: f64,
}

/// A one-run audit from the canaries' scores (higher: more likely "in")
/// and their true inclusion: [`guess`], [`score_guesses`], [`eps_lower`].
///
/// # Panics
/// As [`guess`] and [`eps_lower`]; when `scores` and `included` differ in
/// length.
pub fn audit(
    scores: &[f64],
    included: &[bool],
    k_plus: usize,
    k_minus: usize,
    delta: f64,
    alpha: f64,
) -> OneRun {
    let guesses = guess(scores, k_plus, k_minus);
    let (r, v) = score_guesses(&guesses, included);
    OneRun {
        eps_lower: eps_lower(scores.len(), r, v, delta, alpha),
        canaries: scores.len(),
        guesses: r,
        correct: v,
        delta,
        alpha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `P[Bin(r, q) >= v]` by a direct f64 sum (small `r`).
    fn tail(r: u64, v: u64, q: f64) -> f64 {
        let binom =
            |n: u64, k: u64| (0..k).fold(1.0f64, |c, i| c * (n - i) as f64 / (i + 1) as f64);
        (v..=r)
            .map(|k| binom(r, k) * q.powi(k as i32) * (1.0 - q).powi((r - k) as i32))
            .sum()
    }

    #[test]
    fn pure_p_value_is_the_binomial_tail() {
        for (r, v, eps) in [(20, 15, 0.5f64), (20, 20, 2.0), (30, 0, 1.0), (30, 17, 0.0)] {
            let q = 1.0 / (1.0 + (-eps).exp());
            let p = p_value(100, r, v, eps, 0.0);
            assert!(
                (p / tail(r as u64, v as u64, q) - 1.0).abs() < 1e-12,
                "{r} {v} {eps}"
            );
        }
    }

    /// The delta term by its definition, a sum of direct pmfs over every
    /// window `v - i .. v`.
    #[test]
    fn delta_term_matches_its_definition() {
        let (m, r, v, eps, delta) = (50usize, 24usize, 19usize, 0.7f64, 1e-3f64);
        let q = 1.0 / (1.0 + (-eps).exp());
        let pmf = |k: u64| tail(r as u64, k, q) - tail(r as u64, k + 1, q);
        let max = (1..=v)
            .map(|i| ((v - i)..v).map(|k| pmf(k as u64)).sum::<f64>() / i as f64)
            .fold(0.0f64, f64::max);
        let want = tail(r as u64, v as u64, q) + 2.0 * m as f64 * delta * max;
        let got = p_value(m, r, v, eps, delta);
        assert!((got / want - 1.0).abs() < 1e-10, "{got} vs {want}");
    }

    #[test]
    fn all_correct_pure_bound_is_the_closed_form() {
        for (r, alpha) in [(1usize, 0.5), (10, 0.05), (100, 0.05), (1000, 1e-3)] {
            let got = eps_lower(r, r, r, 0.0, alpha);
            let want = all_correct_eps(r, alpha);
            assert!(
                (got - want).abs() < 1e-9 * want.max(1.0),
                "{r}: {got} vs {want}"
            );
        }
        // q = 0.05^(1/100) = 0.970_486..., eps = ln(q / (1 - q)) = 3.492_965_4
        // (Python's math.log and math.expm1).
        assert!((all_correct_eps(100, 0.05) - 3.492_965_431).abs() < 1e-8);
    }

    /// The bound grows with the correct guesses and alpha, and shrinks
    /// as delta grows; with delta = 0 at v = r/2 nothing is rejected.
    #[test]
    fn the_bound_is_monotone() {
        let (m, r) = (1000, 200);
        let mut last = 0.0;
        for v in (100..=200).step_by(5) {
            let e = eps_lower(m, r, v, 1e-5, 0.05);
            assert!(e >= last, "v = {v}: {e} < {last}");
            last = e;
        }
        assert_eq!(eps_lower(m, r, 100, 0.0, 0.05), 0.0);
        let v = 160;
        assert!(eps_lower(m, r, v, 0.0, 0.1) >= eps_lower(m, r, v, 0.0, 0.01));
        let (e0, e1) = (
            eps_lower(m, r, v, 0.0, 0.05),
            eps_lower(m, r, v, 1e-4, 0.05),
        );
        assert!(e0 > e1 && e1 > 0.0, "{e0} {e1}");
    }

    /// Just below the reported bound the paper's p-value rejects; just
    /// above it the p-value is within the envelope's slack `2 m delta
    /// alpha` of `alpha` (module doc), and exactly at `alpha` for delta = 0.
    #[test]
    fn the_bound_inverts_the_p_value() {
        for (m, r, v, delta, alpha) in [(1000, 200, 150, 1e-5, 0.05), (1000, 200, 150, 0.0, 0.05)] {
            let e = eps_lower(m, r, v, delta, alpha);
            let slack = 2.0 * m as f64 * delta * alpha;
            assert!(p_value(m, r, v, e * (1.0 - 1e-9), delta) <= alpha);
            let above = p_value(m, r, v, e * (1.0 + 1e-6), delta);
            assert!(above > alpha - slack - 1e-6 * alpha, "{above}");
        }
    }

    #[test]
    fn guesses_take_the_extremes() {
        let scores = [0.3, -1.0, 2.0, 0.0, 0.0, 5.0];
        let g = guess(&scores, 2, 1);
        use Guess::*;
        assert_eq!(g, vec![Abstain, Out, In, Abstain, Abstain, In]);
        let (r, v) = score_guesses(&g, &[true, false, false, true, true, true]);
        assert_eq!((r, v), (3, 2));
    }
}
