//! Tests of the PLD accountant (`mechanisms::pld`).
//!
//! * One release: the discretised profile equals the exact one at every grid
//!   point (Gaussian: Balle–Wang; Laplace: closed form; Poisson-subsampled
//!   Gaussian, both orderings and replace-one: closed forms in the normal CDF)
//!   and is never below it in between; eps(delta) lies in
//!   `[exact, exact + h]`.
//! * Composition: `k` Gaussians against the exact Gaussian with
//!   `sigma / sqrt(k)`; never below, within [`COMPOSED_GAUSSIAN_TOL`].
//! * Held-out points against Google's `dp_accounting` PLD (fixture
//!   `tests/fixtures/pld_reference.csv`, written by
//!   `scripts/pld_reference.py`): within [`REFERENCE_ABS_TOL`] of its
//!   pessimistic eps, never below its optimistic (lower) estimate, nor below
//!   the exact eps where one exists.
//! * Structure: add/remove takes the worse ordering, `q = 1` is the Gaussian,
//!   `q = 0` is free, PLD is never looser than the RDP accountant, errors.

use mechanisms::calibration::exact_gaussian_delta;
use mechanisms::pld::{
    laplace_delta, poisson_gaussian_delta, poisson_gaussian_epsilon, Pld, PldAccountant, PldError,
    DEFAULT_GRID, TAIL_MASS,
};
use mechanisms::rdp::RdpAccountant;
use mechanisms::Neighbouring::{self, AddRemove, ReplaceOne};

const FIXTURE: &str = include_str!("fixtures/pld_reference.csv");

/// Held-out points: largest allowed `|eps - eps_dp_accounting|` (both
/// pessimistic connect-the-dots PLDs on the grid `h = 1e-4`). Fixed before
/// the fixture was compared; the largest difference measured is in the
/// test's message.
const REFERENCE_ABS_TOL: f64 = 1e-3;

/// The same, relative to the reference eps (for the large eps of the
/// Gaussian and Laplace rows, `eps` up to 150): `|diff| <= ABS + REL eps`.
const REFERENCE_REL_TOL: f64 = 1e-4;

/// `k` Gaussians: largest allowed excess of the PLD's eps over the exact one.
const COMPOSED_GAUSSIAN_TOL: f64 = 1e-3;

/// The smallest eps >= 0 with `profile(eps) <= delta`, by bisection on a
/// decreasing profile (to 1e-13).
fn invert(profile: impl Fn(f64) -> f64, delta: f64) -> f64 {
    if profile(0.0) <= delta {
        return 0.0;
    }
    let mut hi = 1.0;
    while profile(hi) > delta {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    while hi - lo > 1e-13 {
        let mid = 0.5 * (lo + hi);
        if profile(mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The exact eps of `k` Gaussian releases with noise multiplier `sigma`: the
/// Gaussian with `sigma / sqrt(k)` (Balle–Wang profile).
fn exact_gaussian_eps(sigma: f64, k: u64, delta: f64) -> f64 {
    let s = sigma / (k as f64).sqrt();
    invert(|e| exact_gaussian_delta(e, s, 1.0), delta)
}

/// A named release, its PLD and its exact profile.
type Release = (String, Pld, Box<dyn Fn(f64) -> f64>);

/// One release of each kind, with its exact profile.
fn single_releases() -> Vec<Release> {
    let h = DEFAULT_GRID;
    let mut v: Vec<Release> = Vec::new();
    for sigma in [0.7, 2.0, 10.0] {
        v.push((
            format!("gaussian {sigma}"),
            Pld::gaussian(sigma, h).unwrap(),
            Box::new(move |e| exact_gaussian_delta(e, sigma, 1.0)),
        ));
    }
    for scale in [0.5, 1.3, 4.0] {
        v.push((
            format!("laplace {scale}"),
            Pld::laplace(scale, h).unwrap(),
            Box::new(move |e| laplace_delta(e, scale)),
        ));
    }
    for relation in [AddRemove, ReplaceOne] {
        for (q, sigma) in [(0.001, 0.8), (0.02, 1.5), (0.3, 3.0), (0.9, 0.6)] {
            v.push((
                format!("poisson {q} {sigma} {relation}"),
                Pld::poisson_gaussian(q, sigma, relation, h).unwrap(),
                Box::new(move |e| poisson_gaussian_delta(e, q, sigma, relation)),
            ));
        }
    }
    v
}

/// Connect-the-dots is exact at the grid points (to 1e-9 relative, the
/// quadrature's and the closed forms' accuracy, plus up to `TAIL_MASS` of
/// truncated tail mass, placed at loss `+inf`) and an upper bound in between
/// (down to -1e-15 absolute).
#[test]
fn single_release_profile_is_exact_at_grid_points_and_above_between() {
    let h = DEFAULT_GRID;
    for (name, pld, exact) in single_releases() {
        for j in (0..60_000).step_by(997) {
            let on_grid = j as f64 * h;
            let (got, want) = (pld.delta(on_grid).unwrap(), exact(on_grid));
            assert!(
                (got - want).abs() <= 1e-9 * want + 1e-15 + TAIL_MASS,
                "{name}: at grid eps {on_grid}: {got:e} vs exact {want:e}"
            );
            let between = on_grid + 0.37 * h;
            let (got, want) = (pld.delta(between).unwrap(), exact(between));
            assert!(
                got >= want - 1e-15 - 1e-12 * want,
                "{name}: between grid points at {between}: {got:e} < exact {want:e}"
            );
        }
    }
}

/// One release: eps(delta) is in `[exact, exact + h]` at delta from 1e-3 to
/// 1e-10.
#[test]
fn single_release_epsilon_is_within_one_grid_step_above_exact() {
    let h = DEFAULT_GRID;
    for (name, pld, exact) in single_releases() {
        for delta in [1e-3, 1e-5, 1e-8, 1e-10] {
            let got = pld.epsilon(delta).unwrap();
            let want = invert(&exact, delta);
            assert!(
                got >= want - 1e-9 && got <= want + h,
                "{name} at delta {delta}: {got} vs exact {want}"
            );
        }
    }
}

/// `k` Gaussian releases compose to the Gaussian with `sigma/sqrt(k)`: the
/// PLD's eps is never below the exact one and at most
/// [`COMPOSED_GAUSSIAN_TOL`] above it, in total GDP mu = sqrt(k)/sigma from
/// 0.3 to 2.
#[test]
fn composed_gaussians_match_the_exact_gaussian() {
    let mut worst: f64 = 0.0;
    for (sigma, k) in [
        (2.0, 4u64),
        (5.0, 16),
        (10.0, 100),
        (30.0, 1000),
        (50.0, 250),
    ] {
        let mut acc = PldAccountant::new(AddRemove);
        acc.compose_gaussian(sigma, k).unwrap();
        for delta in [1e-5, 1e-8] {
            let got = acc.epsilon(delta).unwrap();
            let want = exact_gaussian_eps(sigma, k, delta);
            let excess = got - want;
            worst = worst.max(excess);
            assert!(
                (-1e-9..=COMPOSED_GAUSSIAN_TOL).contains(&excess),
                "sigma {sigma}, k {k}, delta {delta}: {got} vs exact {want}"
            );
        }
    }
    eprintln!("k Gaussians: largest excess over the exact eps {worst:.3e}");
}

/// Heterogeneous composition: Gaussians with different noise compose to the
/// Gaussian with `1/sigma^2 = sum_i k_i/sigma_i^2`.
#[test]
fn heterogeneous_gaussians_compose() {
    let mut acc = PldAccountant::new(ReplaceOne);
    acc.compose_gaussian(3.0, 5)
        .unwrap()
        .compose_gaussian(12.0, 40)
        .unwrap();
    let sigma = (5.0 / 9.0 + 40.0 / 144.0f64).powf(-0.5);
    for delta in [1e-6, 1e-9] {
        let got = acc.epsilon(delta).unwrap();
        let want = invert(|e| exact_gaussian_delta(e, sigma, 1.0), delta);
        assert!(
            got >= want - 1e-9 && got - want <= COMPOSED_GAUSSIAN_TOL,
            "{got} vs {want}"
        );
    }
}

/// One row of the fixture.
struct Reference {
    mechanism: u32,
    relation: Neighbouring,
    q: f64,
    noise: f64,
    steps: u64,
    delta: f64,
    pessimistic: f64,
    optimistic: f64,
}

fn references() -> Vec<Reference> {
    let mut lines = FIXTURE.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("mechanism,relation,q,noise,steps,delta,eps_pessimistic,eps_optimistic"),
        "fixture header changed"
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 8, "bad fixture line {l:?}");
            let num = |s: &str| s.parse::<f64>().unwrap_or_else(|e| panic!("{s:?}: {e}"));
            Reference {
                mechanism: f[0].parse().unwrap(),
                relation: match f[1] {
                    "0" => AddRemove,
                    "1" => ReplaceOne,
                    other => panic!("relation {other}"),
                },
                q: num(f[2]),
                noise: num(f[3]),
                steps: f[4].parse().unwrap(),
                delta: num(f[5]),
                pessimistic: num(f[6]),
                optimistic: num(f[7]),
            }
        })
        .collect()
}

/// Rows whose reference eps is above this are checked by the ignored test
/// [`held_out_points_at_large_eps_match_dp_accounting`] only: their composed
/// PLDs span up to 2e6 grid points (about 12 s of the test time on one core),
/// and eps > 20 is far outside what the harness accounts.
const LARGE_EPS: f64 = 20.0;

/// Held-out points (reference eps <= [`LARGE_EPS`]: 90 of the 100) against
/// dp_accounting's PLD: within `REFERENCE_ABS_TOL + REFERENCE_REL_TOL eps` of
/// its pessimistic eps, at or above its optimistic (lower) estimate, and at or
/// above the exact eps where it is known (every Gaussian row; Laplace with one
/// step).
#[test]
fn held_out_points_match_dp_accounting() {
    let rows = references();
    assert_eq!(rows.len(), 100, "fixture rows");
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| r.pessimistic <= LARGE_EPS)
        .collect();
    assert_eq!(rows.len(), 90, "rows at eps <= {LARGE_EPS}");
    check_references(&rows);
}

/// The 10 held-out points at eps > [`LARGE_EPS`] (Gaussian noise 0.8 or 2 over
/// 10 or 100 steps, Laplace 0.5 over 50 steps), same checks; about 12 s, so
/// run on demand: `cargo test -p mechanisms --test pld_accountant -- --ignored`.
#[test]
#[ignore = "about 12 s: large-eps rows, run with --ignored"]
fn held_out_points_at_large_eps_match_dp_accounting() {
    let rows: Vec<_> = references()
        .into_iter()
        .filter(|r| r.pessimistic > LARGE_EPS)
        .collect();
    assert_eq!(rows.len(), 10, "rows at eps > {LARGE_EPS}");
    check_references(&rows);
}

fn check_references(rows: &[Reference]) {
    let (mut worst_abs, mut worst_rel, mut lowest_margin) = (0.0f64, 0.0f64, f64::INFINITY);
    // Consecutive rows differing only in delta share one composed PLD.
    type Key = (u32, Neighbouring, u64, u64, u64);
    let mut cache: Option<(Key, Pld)> = None;
    for r in rows {
        let key = (
            r.mechanism,
            r.relation,
            r.q.to_bits(),
            r.noise.to_bits(),
            r.steps,
        );
        let pld = match &cache {
            Some((k, pld)) if *k == key => pld.clone(),
            _ => {
                let one = match r.mechanism {
                    0 => Pld::gaussian(r.noise, DEFAULT_GRID),
                    1 => Pld::laplace(r.noise, DEFAULT_GRID),
                    2 => Pld::poisson_gaussian(r.q, r.noise, r.relation, DEFAULT_GRID),
                    m => panic!("mechanism {m}"),
                }
                .unwrap();
                let pld = one.self_compose(r.steps);
                cache = Some((key, pld.clone()));
                pld
            }
        };
        let got = pld.epsilon(r.delta).unwrap();
        let diff = got - r.pessimistic;
        let what = format!(
            "mechanism {} {} q {} noise {} steps {} delta {}",
            r.mechanism, r.relation, r.q, r.noise, r.steps, r.delta
        );
        assert!(
            diff.abs() <= REFERENCE_ABS_TOL + REFERENCE_REL_TOL * r.pessimistic,
            "{what}: {got} vs dp_accounting {}",
            r.pessimistic
        );
        worst_abs = worst_abs.max(diff.abs());
        worst_rel = worst_rel.max(diff.abs() / r.pessimistic);
        assert!(
            got >= r.optimistic,
            "{what}: {got} below dp_accounting's lower estimate {}",
            r.optimistic
        );
        let exact = match r.mechanism {
            0 => Some(exact_gaussian_eps(r.noise, r.steps, r.delta)),
            1 if r.steps == 1 => Some(invert(|e| laplace_delta(e, r.noise), r.delta)),
            _ => None,
        };
        if let Some(exact) = exact {
            assert!(got >= exact - 1e-9, "{what}: {got} below exact {exact}");
            lowest_margin = lowest_margin.min(got - exact);
        }
    }
    eprintln!(
        "{} dp_accounting held-out points: max |diff| {worst_abs:.3e}, max relative {worst_rel:.3e}; \
         smallest margin above the exact eps {lowest_margin:.3e}",
        rows.len()
    );
}

/// Under add/remove the subsampled Gaussian has two orderings with different
/// PLDs; the accountant reports the worse, which is not always the same one.
#[test]
fn add_remove_takes_the_worse_ordering() {
    let pld = Pld::poisson_gaussian(0.05, 1.0, AddRemove, DEFAULT_GRID)
        .unwrap()
        .self_compose(50);
    let (remove, add) = pld.orderings();
    let add = add.expect("add/remove subsampling is asymmetric");
    let mut remove_worse = false;
    let mut add_worse = false;
    for delta in [0.5, 0.2, 0.1, 1e-2, 1e-5, 1e-8] {
        let (r, a) = (remove.epsilon(delta), add.epsilon(delta));
        assert_eq!(pld.epsilon(delta).unwrap(), r.max(a));
        remove_worse |= r > a;
        add_worse |= a > r;
    }
    assert!(remove_worse, "remove is the worse ordering at small delta");
    let one = Pld::poisson_gaussian(0.5, 0.7, AddRemove, DEFAULT_GRID).unwrap();
    let (r, a) = one.orderings();
    let a = a.unwrap();
    add_worse |= (0..50).any(|i| a.delta(0.1 * f64::from(i)) > r.delta(0.1 * f64::from(i)));
    assert!(add_worse, "add is the worse ordering somewhere");
    // Replace-one is symmetric: one ordering.
    let replace = Pld::poisson_gaussian(0.05, 1.0, ReplaceOne, DEFAULT_GRID).unwrap();
    assert!(replace.orderings().1.is_none());
}

/// `q = 1` is the plain Gaussian under both relations, `q = 0` releases
/// nothing.
#[test]
fn subsampling_edge_cases() {
    let g = Pld::gaussian(1.3, DEFAULT_GRID).unwrap();
    for relation in [AddRemove, ReplaceOne] {
        let p = Pld::poisson_gaussian(1.0, 1.3, relation, DEFAULT_GRID).unwrap();
        assert_eq!(p, g);
        let none = Pld::poisson_gaussian(0.0, 1.3, relation, DEFAULT_GRID).unwrap();
        assert_eq!(none.epsilon(1e-10).unwrap(), 0.0);
        assert_eq!(none.delta(0.0).unwrap(), 0.0);
    }
    // A replace-one q close to 1 approaches the Gaussian from below.
    let near = Pld::poisson_gaussian(0.999, 1.3, ReplaceOne, DEFAULT_GRID).unwrap();
    let (e_near, e_g) = (near.epsilon(1e-6).unwrap(), g.epsilon(1e-6).unwrap());
    assert!(e_near <= e_g && e_near > 0.99 * e_g, "{e_near} vs {e_g}");
}

/// Both accountants are upper bounds; the PLD is the tighter one on DP-SGD
/// settings (add/remove) and never below dp_accounting's lower estimate
/// (checked above), so this is where the harness's tightest figure comes
/// from.
#[test]
fn pld_is_never_looser_than_rdp() {
    for (q, sigma, steps) in [
        (0.01, 1.0, 1000u64),
        (0.0142, 6.0945, 1250),
        (0.1, 2.0, 100),
    ] {
        for delta in [1e-5, 1e-8] {
            let pld = poisson_gaussian_epsilon(q, sigma, steps, delta, AddRemove).unwrap();
            let mut rdp = RdpAccountant::new(AddRemove);
            rdp.compose_poisson_gaussian(q, sigma, steps).unwrap();
            let rdp = rdp.epsilon(delta).unwrap();
            assert!(
                pld < rdp,
                "q {q} sigma {sigma} steps {steps}: {pld} vs RDP {rdp}"
            );
        }
    }
}

/// Invalid inputs are refused with the matching error.
#[test]
fn invalid_inputs_are_refused() {
    assert_eq!(
        Pld::gaussian(1.0, 0.0).unwrap_err(),
        PldError::InvalidGrid(0.0)
    );
    assert_eq!(
        Pld::gaussian(-1.0, DEFAULT_GRID).unwrap_err(),
        PldError::InvalidNoise(-1.0)
    );
    assert!(Pld::laplace(f64::NAN, DEFAULT_GRID)
        .unwrap_err()
        .to_string()
        .contains("noise"));
    assert_eq!(
        Pld::poisson_gaussian(1.5, 1.0, AddRemove, DEFAULT_GRID).unwrap_err(),
        PldError::InvalidSamplingRate(1.5)
    );
    assert_eq!(
        Pld::poisson_gaussian(0.5, 0.01, AddRemove, DEFAULT_GRID).unwrap_err(),
        PldError::InvalidNoise(0.01)
    );
    assert!(matches!(
        Pld::gaussian(0.01, DEFAULT_GRID).unwrap_err(),
        PldError::GridTooFine { .. }
    ));
    let g = Pld::gaussian(1.0, DEFAULT_GRID).unwrap();
    assert_eq!(g.epsilon(0.0).unwrap_err(), PldError::InvalidDelta(0.0));
    assert_eq!(g.delta(-1.0).unwrap_err(), PldError::InvalidEpsilon(-1.0));
    let coarse = Pld::gaussian(1.0, 1e-3).unwrap();
    assert_eq!(
        g.compose(&coarse).unwrap_err(),
        PldError::GridMismatch(DEFAULT_GRID, 1e-3)
    );
}

/// `delta(eps)` of `k` composed `eps0`-randomised responses: the privacy
/// loss is `(k - 2i) eps0` with `i ~ Binomial(k, 1/(1 + e^eps0))`, and
/// `delta(eps) = E[(1 - e^(eps - L))^+]`. Every `eps0`-DP mechanism's loss
/// is dominated by it (Kairouz, Oh & Viswanath 2015), Laplace's included.
fn randomised_response_delta(eps0: f64, k: u64, eps: f64) -> f64 {
    let flip = 1.0 / (1.0 + eps0.exp());
    let mut ln_choose = 0.0_f64;
    let mut delta = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((k - i + 1) as f64).ln() - (i as f64).ln();
        }
        let loss = (k as f64 - 2.0 * i as f64) * eps0;
        if loss > eps {
            let ln_p = ln_choose + (k - i) as f64 * (1.0 - flip).ln() + i as f64 * flip.ln();
            delta += ln_p.exp() * (1.0 - (eps - loss).exp());
        }
    }
    delta
}

/// `compose_laplace`: one release is the exact Laplace profile (from above,
/// within the composed tolerance); `k` releases sit below the optimal
/// composition of `k` pure `1/b`-DP mechanisms (randomised response, a
/// strict upper bound for Laplace), below basic composition `k/b`, and
/// compose associatively (`k1 + k2` steps in two calls as in one).
#[test]
fn composed_laplace_is_bounded_by_optimal_pure_composition() {
    for scale in [1.0, 2.5] {
        let mut one = PldAccountant::new(AddRemove);
        one.compose_laplace(scale, 1).unwrap();
        for delta in [1e-3, 1e-6] {
            let got = one.epsilon(delta).unwrap();
            let want = invert(|e| laplace_delta(e, scale), delta);
            assert!(
                got >= want - 1e-9 && got - want <= COMPOSED_GAUSSIAN_TOL,
                "laplace {scale}: {got} vs exact {want}"
            );
        }
        for k in [5u64, 20] {
            let mut acc = PldAccountant::new(AddRemove);
            acc.compose_laplace(scale, k).unwrap();
            let mut split = PldAccountant::new(AddRemove);
            split
                .compose_laplace(scale, 2)
                .unwrap()
                .compose_laplace(scale, k - 2)
                .unwrap();
            for delta in [1e-3, 1e-6] {
                let got = acc.epsilon(delta).unwrap();
                let rr = invert(|e| randomised_response_delta(1.0 / scale, k, e), delta);
                let single = invert(|e| laplace_delta(e, scale), delta);
                assert!(
                    got <= rr + COMPOSED_GAUSSIAN_TOL && got < k as f64 / scale && got > single,
                    "laplace {scale} x{k}, delta {delta}: {got} vs optimal pure composition {rr}"
                );
                let two_calls = split.epsilon(delta).unwrap();
                assert!(
                    (two_calls - got).abs() <= COMPOSED_GAUSSIAN_TOL,
                    "laplace {scale} x{k}: {two_calls} in two calls vs {got} in one"
                );
            }
        }
    }
}
