//! The one-dimensional KNS function `h` and its PL constant on `[-R, R]`
//! (digest §4.3 F-D).

use super::super::common::check_pos;
use std::sync::Mutex;

/// `h(s) = s^2 + 3 sin^2 s`.
pub fn kns_h(s: f64) -> f64 {
    let t = s.sin();
    s * s + 3.0 * t * t
}

/// `h'(s) = 2 s + 3 sin 2s`.
pub fn kns_h_prime(s: f64) -> f64 {
    2.0 * s + 3.0 * (2.0 * s).sin()
}

fn pl_ratio(s: f64) -> f64 {
    let g = kns_h_prime(s);
    g * g / (2.0 * kns_h(s))
}

/// `mu_R = inf_{0 < |s| <= R} h'(s)^2 / (2 h(s))` (even in `s`).
///
/// Computed on `(0, min(R, 10)]` by a grid of `2e5` points and a golden-section
/// refinement of the best cell (to `1e-13` in `s`). Beyond `|s| = 10` the ratio
/// exceeds `(2|s| - 3)^2 / (2 (s^2 + 3)) > 1.4`, far above the global minimum
/// `0.1755` (attained near `|s| = 2.2`), so the cap loses nothing. As `s -> 0`
/// the ratio tends to `8`.
///
/// # Panics
/// If `radius <= 0`.
pub fn kns_pl_constant(radius: f64) -> f64 {
    check_pos("radius", radius);
    // A pure function of the radius, asked for by every instance and by
    // `runner plan` / `calibrate` at every grid point or stored cell (448
    // cells of `mn_e1_kns_n_far` spent about 2 s in it): the values already
    // computed are kept (a handful of radii per process).
    let key = radius.to_bits();
    let known = |k: &Vec<(u64, f64)>| k.iter().find(|(r, _)| *r == key).map(|&(_, mu)| mu);
    if let Some(mu) = known(&KNOWN.lock().unwrap_or_else(|e| e.into_inner())) {
        return mu;
    }
    let mu = pl_constant_uncached(radius);
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    // Bounded: a sweep over many radii computes the ones past the bound
    // afresh (about 4.5 ms each: 448 cells of `mn_e1_kns_n_far` spent 2 s
    // here) rather than growing the list without end.
    if known.len() < KNOWN_RADII {
        known.push((key, mu));
    }
    mu
}

/// How many radii [`kns_pl_constant`] keeps (a spec uses a handful).
const KNOWN_RADII: usize = 64;

/// The radii (as bits) and constants [`kns_pl_constant`] has computed.
static KNOWN: Mutex<Vec<(u64, f64)>> = Mutex::new(Vec::new());

/// [`kns_pl_constant`] computed afresh.
fn pl_constant_uncached(radius: f64) -> f64 {
    let hi = radius.min(10.0);
    let m = 200_000;
    let step = hi / m as f64;
    let (mut best, mut best_i) = (8.0_f64, 0usize);
    for i in 1..=m {
        let v = pl_ratio(i as f64 * step);
        if v < best {
            best = v;
            best_i = i;
        }
    }
    if best_i == 0 {
        return best;
    }
    let (mut a, mut b) = ((best_i as f64 - 1.0) * step, (best_i as f64 + 1.0) * step);
    a = a.max(step * 1e-3);
    b = b.min(hi);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    while b - a > 1e-13 {
        let (x1, x2) = (b - g * (b - a), a + g * (b - a));
        if pl_ratio(x1) < pl_ratio(x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    best.min(pl_ratio(0.5 * (a + b))).min(pl_ratio(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radii_past_the_memo_bound_get_the_same_constant() {
        // More distinct radii than the memo keeps: each value, asked twice
        // (the second time from the memo or recomputed past the bound),
        // equals the uncached one bit for bit.
        for i in 0..KNOWN_RADII + 6 {
            let r = 0.5 + 0.031 * i as f64;
            let want = pl_constant_uncached(r).to_bits();
            assert_eq!(kns_pl_constant(r).to_bits(), want, "radius {r}");
            assert_eq!(kns_pl_constant(r).to_bits(), want, "radius {r} again");
        }
        let kept = KNOWN.lock().unwrap_or_else(|e| e.into_inner()).len();
        assert!(kept <= KNOWN_RADII, "{kept} radii kept");
    }
}
