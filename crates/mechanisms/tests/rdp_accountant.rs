//! Tests of the Rényi-DP accountant (`mechanisms::rdp`).
//!
//! * Agreement with Google's `dp_accounting` 0.6.0, an independent
//!   implementation, on the fixture `tests/fixtures/rdp_dp_accounting.csv`
//!   written by `scripts/dp_accounting_fixture.py` (eps on a 504-point grid,
//!   the inverse delta, and noise calibration), to 1e-6 relative.
//! * The closed form (integer orders) and both fractional-order series against
//!   a direct numerical integration of the Rényi divergence between the
//!   mixture `(1-q) N(0, s^2) + q N(1, s^2)` and `N(0, s^2)`.
//! * Structural properties: `q = 1` is the Gaussian, `q = 0` is free,
//!   monotonicity, composition, conversions, calibration round trip, errors.

use mechanisms::calibration::exact_gaussian_delta;
use mechanisms::rdp::{
    calibrate_noise_multiplier, default_orders, delta_from_rdp, epsilon_from_rdp, gaussian_rdp,
    poisson_gaussian_epsilon, poisson_gaussian_rdp, poisson_gaussian_rdp_with, Conversion,
    FractionalSeries, RdpAccountant, RdpError, CALIBRATION_SIGMA_RANGE,
};
use mechanisms::Neighbouring::{AddRemove, ReplaceOne};

const FIXTURE: &str = include_str!("fixtures/rdp_dp_accounting.csv");

/// Required relative agreement with `dp_accounting`.
const REFERENCE_RTOL: f64 = 1e-6;

/// One data row of the fixture; see the generating script for the columns.
#[derive(Debug, Clone)]
struct Row {
    kind: String,
    q: f64,
    sigma: f64,
    steps: u64,
    delta: f64,
    eps: f64,
    order: Option<f64>,
}

fn fixture_rows(kind: &str) -> Vec<Row> {
    let mut lines = FIXTURE.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("kind,q,noise_multiplier,steps,delta,epsilon,optimal_order"),
        "fixture header changed"
    );
    let rows: Vec<Row> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 7, "bad fixture line {l:?}");
            let num = |s: &str| s.parse::<f64>().unwrap_or_else(|e| panic!("{s:?}: {e}"));
            Row {
                kind: f[0].to_string(),
                q: num(f[1]),
                sigma: num(f[2]),
                steps: f[3].parse().unwrap(),
                delta: num(f[4]),
                eps: num(f[5]),
                order: (!f[6].is_empty()).then(|| num(f[6])),
            }
        })
        .collect();
    rows.into_iter().filter(|r| r.kind == kind).collect()
}

/// Relative error, with exact agreement required where the reference is 0.
fn rel_err(got: f64, reference: f64) -> f64 {
    if reference == 0.0 {
        if got == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        ((got - reference) / reference).abs()
    }
}

/// eps rows: every (q, sigma, steps, delta) of the grid q in {1e-4, 1e-3,
/// 1e-2, 0.1, 0.5, 1}, sigma in {0.5, 0.8, 1, 2, 5, 10, 20}, steps in {1, 10,
/// ..., 1e5}, delta in {1e-5, 1e-8}. One accountant per (q, sigma, steps)
/// serves both deltas.
#[test]
fn epsilon_matches_dp_accounting_on_grid() {
    let rows = fixture_rows("epsilon");
    assert_eq!(rows.len(), 6 * 7 * 6 * 2, "fixture grid changed");
    let qs: Vec<f64> = rows.iter().map(|r| r.q).collect();
    assert!(qs.contains(&1e-4) && qs.contains(&1.0));
    let mut worst = (0.0f64, None::<Row>);
    let mut order_mismatches = 0;
    let mut zeros = 0;
    let mut acc_key = None;
    let mut acc = RdpAccountant::new(AddRemove);
    for row in &rows {
        let key = (row.q.to_bits(), row.sigma.to_bits(), row.steps);
        if acc_key != Some(key) {
            acc = RdpAccountant::new(AddRemove);
            acc.compose_poisson_gaussian(row.q, row.sigma, row.steps)
                .unwrap();
            acc_key = Some(key);
        }
        let (eps, order) = acc.epsilon_and_order(row.delta, Conversion::Tight).unwrap();
        let err = rel_err(eps, row.eps);
        assert!(
            err <= REFERENCE_RTOL,
            "{row:?}: eps {eps} (order {order}) vs dp_accounting {} (rel err {err:e})",
            row.eps
        );
        if Some(order) != row.order {
            order_mismatches += 1;
        }
        if row.eps == 0.0 {
            zeros += 1;
        }
        if err >= worst.0 {
            worst = (err, Some(row.clone()));
        }
    }
    eprintln!(
        "eps vs dp_accounting: {} rows ({zeros} with eps = 0), max rel err {:e} at {:?}, \
         optimal order differs in {order_mismatches} rows",
        rows.len(),
        worst.0,
        worst.1
    );
}

/// The same grid through the one-call convenience function, on a few rows
/// including the corners (q = 1e-4 and 1, sigma = 0.5 and 20, steps = 1e5).
#[test]
fn convenience_epsilon_matches_fixture_corners() {
    let rows = fixture_rows("epsilon");
    for row in rows.iter().filter(|r| {
        (r.q == 1e-4 || r.q == 1.0) && (r.sigma == 0.5 || r.sigma == 20.0) && r.steps == 100_000
    }) {
        let eps =
            poisson_gaussian_epsilon(row.q, row.sigma, row.steps, row.delta, AddRemove).unwrap();
        assert!(rel_err(eps, row.eps) <= REFERENCE_RTOL, "{row:?}: {eps}");
    }
}

/// delta rows: `get_delta` of dp_accounting (the inverse conversion).
#[test]
fn delta_matches_dp_accounting() {
    let rows = fixture_rows("delta");
    assert!(rows.len() >= 32);
    let mut worst = 0.0f64;
    for row in &rows {
        let mut acc = RdpAccountant::new(AddRemove);
        acc.compose_poisson_gaussian(row.q, row.sigma, row.steps)
            .unwrap();
        let delta = acc.delta(row.eps).unwrap();
        let err = rel_err(delta, row.delta);
        assert!(
            err <= REFERENCE_RTOL,
            "{row:?}: delta {delta} vs dp_accounting {} (rel err {err:e})",
            row.delta
        );
        worst = worst.max(err);
    }
    eprintln!(
        "delta vs dp_accounting: {} rows, max rel err {worst:e}",
        rows.len()
    );
}

/// calibration rows: `calibrate_dp_mechanism` of dp_accounting (tolerance
/// 1e-12 in sigma) against our bisection.
#[test]
fn calibration_matches_dp_accounting() {
    let rows = fixture_rows("calibration");
    assert!(rows.len() >= 5);
    let mut worst = 0.0f64;
    for row in &rows {
        let sigma =
            calibrate_noise_multiplier(row.eps, row.delta, row.q, row.steps, AddRemove).unwrap();
        let err = rel_err(sigma, row.sigma);
        assert!(
            err <= REFERENCE_RTOL,
            "{row:?}: sigma {sigma} vs dp_accounting {} (rel err {err:e})",
            row.sigma
        );
        worst = worst.max(err);
    }
    eprintln!(
        "calibration vs dp_accounting: {} rows, max rel err {worst:e}",
        rows.len()
    );
}

// ---------------------------------------------------------------------------
// Independent check by numerical integration.
// ---------------------------------------------------------------------------

/// `ln m(z)` with `m(z) = (1-q) + q exp((2z-1)/(2 s^2))`, the likelihood ratio
/// of the mixture `(1-q) N(0,s^2) + q N(1,s^2)` to `N(0,s^2)`.
fn ln_ratio(z: f64, q: f64, s: f64) -> f64 {
    let u = (2.0 * z - 1.0) / (2.0 * s * s);
    if u > 30.0 {
        let (a, b) = ((-q).ln_1p(), q.ln() + u);
        b + (a - b).exp().ln_1p()
    } else {
        (q * u.exp_m1()).ln_1p()
    }
}

/// Compensated (Neumaier) sum.
fn neumaier_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut comp) = (0.0f64, 0.0f64);
    for v in values {
        let t = sum + v;
        if sum.abs() >= v.abs() {
            comp += (sum - t) + v;
        } else {
            comp += (v - t) + sum;
        }
        sum = t;
    }
    sum + comp
}

/// `ln E_{z ~ N(0, s^2)}[m(z)^lambda]` by the trapezoidal rule on a uniform
/// grid. The integrand is analytic in the strip `|Im z| < pi s^2` and
/// Gaussian-tailed, so the rule converges geometrically: with step
/// `h = min(s^2/16, s/8)` the discretisation error is far below 1e-15; the
/// range covers every point where the integrand exceeds `e^-100` times its
/// maximum (mass sits near 0 and, for `lambda = alpha`, near `alpha`).
///
/// When the exponent `lambda ln m` stays moderate, `E[m^lambda] - 1` is
/// integrated directly as `E[expm1(lambda ln m)]`, which keeps the relative
/// accuracy of tiny results (small `q`); otherwise in log space.
fn log_moment_by_quadrature(q: f64, s: f64, lambda: f64) -> f64 {
    let lo = -(15.0 * s + 1.0);
    let hi = lambda.max(1.0) + 15.0 * s + 1.0;
    let h_max = (s * s / 16.0).min(s / 8.0);
    let n = ((hi - lo) / h_max).ceil().max(4000.0) as usize;
    let h = (hi - lo) / n as f64;
    let ln_norm = -(s * (2.0 * std::f64::consts::PI).sqrt()).ln();
    let grid = || (0..=n).map(move |i| lo + i as f64 * h);
    let ln_phi = move |z: f64| ln_norm - z * z / (2.0 * s * s);
    let max_exponent = grid()
        .map(|z| lambda * ln_ratio(z, q, s))
        .fold(f64::NEG_INFINITY, f64::max);
    if max_exponent < 600.0 {
        let a_minus_1 = h * neumaier_sum(
            grid().map(|z| ln_phi(z).exp() * (lambda * ln_ratio(z, q, s)).exp_m1()),
        );
        a_minus_1.ln_1p()
    } else {
        let logs: Vec<f64> = grid()
            .map(|z| ln_phi(z) + lambda * ln_ratio(z, q, s))
            .collect();
        let m = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        m + (h * neumaier_sum(logs.iter().map(|l| (l - m).exp()))).ln()
    }
}

/// RDP `D_alpha(mixture || N(0, s^2))` by quadrature.
fn rdp_by_quadrature(q: f64, s: f64, alpha: f64) -> f64 {
    log_moment_by_quadrature(q, s, alpha) / (alpha - 1.0)
}

/// Sanity of the quadrature itself against closed forms: `q = 1` gives the
/// Gaussian `alpha/(2 s^2)` and the second moment of the mixture ratio is
/// `1 + q^2 (e^{1/s^2} - 1)`.
#[test]
fn quadrature_reproduces_closed_forms() {
    for &(s, alpha) in &[(0.5, 7.5), (1.0, 2.0), (3.0, 40.0)] {
        let got = rdp_by_quadrature(1.0 - 1e-15, s, alpha);
        let exact = alpha / (2.0 * s * s);
        assert!(
            ((got - exact) / exact).abs() < 1e-9,
            "s={s} a={alpha}: {got} vs {exact}"
        );
    }
    for &(q, s) in &[(1e-4, 1.0), (0.3, 0.7), (0.05, 5.0)] {
        let got = log_moment_by_quadrature(q, s, 2.0);
        let exact = (q * q * (1.0 / (s * s)).exp_m1()).ln_1p();
        assert!(
            ((got - exact) / exact).abs() < 1e-10,
            "q={q} s={s}: {got} vs {exact}"
        );
    }
}

/// The integer-order closed form equals the numerically integrated Rényi
/// divergence, from tiny (q = 1e-4) to huge (sigma = 0.5, alpha = 256) values.
/// Also checks the other direction `D_alpha(N(0,s^2) || mixture)` is not
/// larger, so the closed form is the add/remove worst case.
#[test]
fn integer_orders_match_numerical_integration() {
    let cases = [
        (1e-4, 1.0, 2.0),
        (1e-3, 0.8, 5.0),
        (0.01, 1.0, 8.0),
        (0.01, 5.0, 63.0),
        (0.05, 1.5, 20.0),
        (0.1, 2.0, 3.0),
        (0.3, 0.5, 12.0),
        (0.5, 5.0, 4.0),
        (0.5, 0.5, 256.0),
        (0.9, 1.0, 30.0),
        (1e-4, 20.0, 1024.0),
    ];
    for &(q, s, alpha) in &cases {
        let closed = poisson_gaussian_rdp(q, s, alpha, AddRemove).unwrap();
        let quad = rdp_by_quadrature(q, s, alpha);
        let err = ((closed - quad) / quad).abs();
        assert!(
            err < 1e-9,
            "q={q} s={s} a={alpha}: closed {closed} vs quadrature {quad} ({err:e})"
        );
        let reverse = log_moment_by_quadrature(q, s, 1.0 - alpha) / (alpha - 1.0);
        assert!(
            reverse <= closed * (1.0 + 1e-12),
            "q={q} s={s} a={alpha}: reverse {reverse}"
        );
    }
}

/// Fractional orders: the signed series is exact (matches quadrature to
/// 1e-9); the absolute-terms series (dp_accounting's) is never below it, is
/// close where the negative terms are negligible, and is markedly loose at
/// low orders with large q.
#[test]
fn fractional_orders_match_numerical_integration() {
    let cases = [
        (1e-4, 1.0, 1.5),
        (0.01, 1.0, 2.5),
        (0.1, 2.0, 1.3),
        (0.1, 0.5, 1.7),
        (1e-3, 0.8, 10.5),
        (0.5, 5.0, 3.7),
        (0.3, 3.0, 40.5),
        (0.02, 0.6, 7.25),
    ];
    for &(q, s, alpha) in &cases {
        let quad = rdp_by_quadrature(q, s, alpha);
        let signed =
            poisson_gaussian_rdp_with(q, s, alpha, AddRemove, FractionalSeries::SignedTerms)
                .unwrap();
        let absolute =
            poisson_gaussian_rdp_with(q, s, alpha, AddRemove, FractionalSeries::AbsoluteTerms)
                .unwrap();
        let err = ((signed - quad) / quad).abs();
        assert!(
            err < 1e-9,
            "q={q} s={s} a={alpha}: signed {signed} vs quadrature {quad} ({err:e})"
        );
        assert!(
            absolute >= quad * (1.0 - 1e-12),
            "q={q} s={s} a={alpha}: {absolute} < {quad}"
        );
        assert_eq!(
            poisson_gaussian_rdp(q, s, alpha, AddRemove).unwrap(),
            absolute,
            "default series is AbsoluteTerms"
        );
    }
    // Small q: the negative terms are negligible.
    let (q, s, a) = (1e-3, 0.8, 10.5);
    let abs = poisson_gaussian_rdp(q, s, a, AddRemove).unwrap();
    assert!(abs / rdp_by_quadrature(q, s, a) - 1.0 < 1e-6);
    // Large q, low order: the majorant is 43% above the exact value.
    let (q, s, a) = (0.1, 2.0, 1.3);
    let ratio = poisson_gaussian_rdp(q, s, a, AddRemove).unwrap() / rdp_by_quadrature(q, s, a);
    assert!((1.4..1.5).contains(&ratio), "ratio {ratio}");
}

/// A fractional order next to integer ones interpolates sensibly: RDP is
/// non-decreasing in the order (Rényi divergence is), for the exact series.
#[test]
fn rdp_is_monotone_in_the_order() {
    for &(q, s) in &[(0.01, 1.0), (0.1, 2.0), (0.5, 5.0), (1e-3, 0.6)] {
        let mut last = 0.0;
        for alpha in (11..=120).map(|x| f64::from(x) / 10.0) {
            let r =
                poisson_gaussian_rdp_with(q, s, alpha, AddRemove, FractionalSeries::SignedTerms)
                    .unwrap();
            if r.is_finite() {
                assert!(
                    r >= last * (1.0 - 1e-10),
                    "q={q} s={s} a={alpha}: {r} < {last}"
                );
                last = r;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Structural properties.
// ---------------------------------------------------------------------------

#[test]
fn q_one_is_the_gaussian_and_q_zero_is_free() {
    for &s in &[0.5, 0.8, 1.0, 2.0, 20.0] {
        for &alpha in &[1.1, 1.5, 2.0, 3.7, 32.0, 1024.0] {
            let exact = alpha / (2.0 * s * s);
            for relation in [AddRemove, ReplaceOne] {
                assert_eq!(
                    poisson_gaussian_rdp(1.0, s, alpha, relation).unwrap(),
                    exact
                );
                assert_eq!(poisson_gaussian_rdp(0.0, s, alpha, relation).unwrap(), 0.0);
            }
            assert_eq!(gaussian_rdp(s, alpha).unwrap(), exact);
            // Continuity at q -> 1 (integer orders: closed form).
            if alpha.fract() == 0.0 {
                let near_one = poisson_gaussian_rdp(1.0 - 1e-12, s, alpha, AddRemove).unwrap();
                assert!(
                    ((near_one - exact) / exact).abs() < 1e-9,
                    "{near_one} vs {exact}"
                );
            }
        }
        // At alpha = 2 the RDP is ln(1 + q^2 (e^{1/s^2} - 1)) exactly; this
        // also checks the approach to q = 0.
        for &q in &[1e-150, 1e-12, 1e-6, 1e-3, 0.3, 0.9] {
            let got = poisson_gaussian_rdp(q, s, 2.0, AddRemove).unwrap();
            let exact = (q * q * (1.0 / (s * s)).exp_m1()).ln_1p();
            assert!(
                ((got - exact) / exact).abs() < 1e-12,
                "q={q} s={s}: {got} vs {exact}"
            );
        }
    }
    // The accountant's Gaussian composition equals q = 1.
    let mut a = RdpAccountant::new(AddRemove);
    a.compose_gaussian(1.3, 50).unwrap();
    let mut b = RdpAccountant::new(AddRemove);
    b.compose_poisson_gaussian(1.0, 1.3, 50).unwrap();
    assert_eq!(a.rdp(), b.rdp());
}

#[test]
fn default_orders_are_dp_accountings() {
    let orders = default_orders();
    assert_eq!(orders.len(), 156);
    assert_eq!(orders[0], 1.1);
    assert_eq!(orders[98], 10.9);
    assert_eq!(orders[99], 11.0);
    assert_eq!(&orders[152..], &[128.0, 256.0, 512.0, 1024.0]);
    assert!(orders.windows(2).all(|w| w[0] < w[1]));
    let acc = RdpAccountant::new(ReplaceOne);
    assert_eq!(acc.orders(), &orders[..]);
    assert_eq!(acc.relation(), ReplaceOne);
    assert_eq!(acc.fractional_series(), FractionalSeries::AbsoluteTerms);
    assert!(acc.rdp().iter().all(|&r| r == 0.0));
}

/// No overflow at the largest orders, smallest sigma and most steps; the
/// values stay finite and eps grows with steps.
#[test]
fn extreme_orders_and_steps_do_not_overflow() {
    for &q in &[1e-4, 0.5, 0.999] {
        for &alpha in &[256.0, 512.0, 1024.0] {
            let r = poisson_gaussian_rdp(q, 0.5, alpha, AddRemove).unwrap();
            assert!(r.is_finite() && r > 0.0, "q={q} a={alpha}: {r}");
            assert!(
                r <= alpha / (2.0 * 0.25) * (1.0 + 1e-12),
                "exceeds the Gaussian: {r}"
            );
        }
        let mut acc = RdpAccountant::new(AddRemove);
        acc.compose_poisson_gaussian(q, 0.5, 100_000).unwrap();
        let eps = acc.epsilon(1e-8).unwrap();
        assert!(eps.is_finite() && eps > 0.0, "q={q}: {eps}");
    }
}

/// eps is non-increasing in sigma and non-decreasing in steps and in q.
#[test]
fn epsilon_is_monotone() {
    let sigmas = [0.5, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0];
    for &q in &[1e-3, 0.01, 0.1, 1.0] {
        for &steps in &[1u64, 100, 10_000] {
            let eps: Vec<f64> = sigmas
                .iter()
                .map(|&s| poisson_gaussian_epsilon(q, s, steps, 1e-5, AddRemove).unwrap())
                .collect();
            assert!(
                eps.windows(2).all(|w| w[1] <= w[0]),
                "q={q} steps={steps}: not monotone in sigma: {eps:?}"
            );
            assert!(
                eps[0] > eps[eps.len() - 1],
                "q={q} steps={steps}: flat {eps:?}"
            );
        }
        for &s in &[0.8, 2.0, 10.0] {
            let eps: Vec<f64> = [1u64, 10, 100, 1000, 10_000, 100_000]
                .iter()
                .map(|&n| poisson_gaussian_epsilon(q, s, n, 1e-5, AddRemove).unwrap())
                .collect();
            assert!(
                eps.windows(2).all(|w| w[1] >= w[0]),
                "q={q} s={s}: not monotone in steps: {eps:?}"
            );
        }
    }
    let by_q: Vec<f64> = [1e-4, 1e-3, 1e-2, 0.05, 0.2, 1.0]
        .iter()
        .map(|&q| poisson_gaussian_epsilon(q, 1.0, 1000, 1e-5, AddRemove).unwrap())
        .collect();
    assert!(
        by_q.windows(2).all(|w| w[1] > w[0]),
        "not monotone in q: {by_q:?}"
    );
}

/// Composition is additive at every order: n steps then m steps equals n + m.
#[test]
fn composition_adds_over_steps() {
    let mut a = RdpAccountant::new(AddRemove);
    a.compose_poisson_gaussian(0.01, 1.1, 300).unwrap();
    a.compose_poisson_gaussian(0.01, 1.1, 700).unwrap();
    let mut b = RdpAccountant::new(AddRemove);
    b.compose_poisson_gaussian(0.01, 1.1, 1000).unwrap();
    for (x, y) in a.rdp().iter().zip(b.rdp()) {
        assert!((x - y).abs() <= 1e-12 * y.abs(), "{x} vs {y}");
    }
    // Heterogeneous steps: the sum of the two curves.
    let mut c = RdpAccountant::new(AddRemove);
    c.compose_poisson_gaussian(0.01, 1.1, 5).unwrap();
    c.compose_gaussian(3.0, 2).unwrap();
    for (i, &alpha) in c.orders().iter().enumerate() {
        let expected =
            5.0 * poisson_gaussian_rdp(0.01, 1.1, alpha, AddRemove).unwrap() + 2.0 * alpha / 18.0;
        assert!((c.rdp()[i] - expected).abs() <= 1e-12 * expected);
    }
}

/// The classical conversion is never tighter than the CKS one, for eps and
/// for delta, on a range of accountants.
#[test]
fn classical_conversion_is_never_smaller() {
    for &q in &[1e-3, 0.01, 0.1, 0.5, 1.0] {
        for &s in &[0.5, 1.0, 4.0, 20.0] {
            for &steps in &[1u64, 100, 10_000] {
                let mut acc = RdpAccountant::new(AddRemove);
                acc.compose_poisson_gaussian(q, s, steps).unwrap();
                for &delta in &[1e-3, 1e-5, 1e-10] {
                    let tight = acc.epsilon_and_order(delta, Conversion::Tight).unwrap().0;
                    let classical = acc
                        .epsilon_and_order(delta, Conversion::Classical)
                        .unwrap()
                        .0;
                    assert!(
                        classical >= tight,
                        "q={q} s={s} n={steps}: {classical} < {tight}"
                    );
                }
                for &eps in &[0.1, 1.0, 8.0] {
                    let tight = acc.delta_and_order(eps, Conversion::Tight).unwrap().0;
                    let classical = acc.delta_and_order(eps, Conversion::Classical).unwrap().0;
                    assert!(
                        classical >= tight,
                        "q={q} s={s} n={steps}: {classical} < {tight}"
                    );
                }
            }
        }
    }
}

/// Both conversions are sound for the Gaussian mechanism: the (eps, delta)
/// they certify is never better than the exact privacy profile (Balle & Wang
/// 2018), where `n` compositions of noise multiplier `s` are one Gaussian with
/// multiplier `s / sqrt(n)`. And the tight one is close to it.
#[test]
fn conversions_are_sound_against_exact_gaussian_profile() {
    for &s in &[0.5, 1.0, 3.0, 10.0] {
        for &steps in &[1u64, 10, 1000] {
            let mut acc = RdpAccountant::new(AddRemove);
            acc.compose_gaussian(s, steps).unwrap();
            let effective = s / (steps as f64).sqrt();
            for &delta in &[1e-5, 1e-8] {
                for conversion in [Conversion::Tight, Conversion::Classical] {
                    let eps = acc.epsilon_and_order(delta, conversion).unwrap().0;
                    let exact = exact_gaussian_delta(eps, effective, 1.0);
                    assert!(
                        exact <= delta * (1.0 + 1e-9),
                        "s={s} n={steps}: {exact} > {delta}"
                    );
                }
            }
            for &eps in &[0.5, 2.0] {
                let delta = acc.delta(eps).unwrap();
                assert!(exact_gaussian_delta(eps, effective, 1.0) <= delta * (1.0 + 1e-9));
            }
        }
    }
    // Round trip of the two conversions.
    let mut acc = RdpAccountant::new(AddRemove);
    acc.compose_poisson_gaussian(0.01, 1.0, 1000).unwrap();
    let eps = acc.epsilon(1e-5).unwrap();
    let delta = acc.delta(eps).unwrap();
    assert!(delta <= 1e-5 * (1.0 + 1e-9) && delta > 0.5e-5, "{delta}");
}

/// The calibrated sigma reproduces the target eps to 1e-9 relative, and a
/// slightly smaller sigma misses it (it is the smallest).
#[test]
fn calibration_round_trip() {
    let cases = [
        (1.0, 1e-5, 0.01, 1000u64),
        (8.0, 1e-5, 0.01, 10_000),
        (0.5, 1e-6, 1e-3, 100_000),
        (3.0, 1e-8, 0.1, 100),
        (2.0, 1e-5, 1.0, 10),
        (0.1, 1e-5, 0.004, 50),
    ];
    for &(target, delta, q, steps) in &cases {
        let sigma = calibrate_noise_multiplier(target, delta, q, steps, AddRemove).unwrap();
        let eps = poisson_gaussian_epsilon(q, sigma, steps, delta, AddRemove).unwrap();
        assert!(
            eps <= target,
            "q={q} n={steps}: eps {eps} > target {target}"
        );
        assert!(
            (target - eps) / target < 1e-9,
            "q={q} n={steps}: eps {eps} vs {target}"
        );
        let smaller =
            poisson_gaussian_epsilon(q, sigma * (1.0 - 1e-9), steps, delta, AddRemove).unwrap();
        assert!(
            smaller > target,
            "q={q} n={steps}: sigma {sigma} is not the smallest"
        );
    }
    // Replace-one without subsampling is the Gaussian: same multiplier, which
    // then refers to the replace-one sensitivity.
    let a = calibrate_noise_multiplier(2.0, 1e-5, 1.0, 10, AddRemove).unwrap();
    let b = calibrate_noise_multiplier(2.0, 1e-5, 1.0, 10, ReplaceOne).unwrap();
    assert_eq!(a, b);
    // Spending the rest of a budget: calibrating on a used accountant needs
    // more noise than on a fresh one.
    let mut used = RdpAccountant::new(AddRemove);
    used.compose_poisson_gaussian(0.01, 1.0, 500).unwrap();
    let rest = used
        .calibrate_noise_multiplier(3.0, 1e-5, 0.01, 500)
        .unwrap();
    let fresh = calibrate_noise_multiplier(3.0, 1e-5, 0.01, 500, AddRemove).unwrap();
    assert!(rest > fresh);
    used.compose_poisson_gaussian(0.01, rest, 500).unwrap();
    let total = used.epsilon(1e-5).unwrap();
    assert!(total <= 3.0 && total > 3.0 * (1.0 - 1e-9), "{total}");
}

// ---------------------------------------------------------------------------
// Errors.
// ---------------------------------------------------------------------------

#[test]
fn invalid_inputs_are_rejected() {
    for q in [-0.1, 1.1, f64::NAN] {
        assert_eq!(
            poisson_gaussian_rdp(q, 1.0, 2.0, AddRemove).map_err(|e| format!("{e}")),
            Err(format!("sampling rate q must lie in [0, 1], got {q}"))
        );
    }
    for s in [0.0, -1.0, f64::INFINITY] {
        assert_eq!(
            gaussian_rdp(s, 2.0),
            Err(RdpError::InvalidNoiseMultiplier(s))
        );
        assert_eq!(
            poisson_gaussian_rdp(0.1, s, 2.0, AddRemove),
            Err(RdpError::InvalidNoiseMultiplier(s))
        );
    }
    assert!(matches!(
        gaussian_rdp(f64::NAN, 2.0),
        Err(RdpError::InvalidNoiseMultiplier(_))
    ));
    for alpha in [1.0, 0.5, -2.0, f64::INFINITY, 2e6] {
        assert_eq!(gaussian_rdp(1.0, alpha), Err(RdpError::InvalidOrder(alpha)));
    }
    assert!(matches!(
        RdpAccountant::with_orders(vec![], AddRemove),
        Err(RdpError::NoOrders)
    ));
    assert_eq!(
        RdpAccountant::with_orders(vec![2.0, 1.0], AddRemove),
        Err(RdpError::InvalidOrder(1.0))
    );
    let mut acc = RdpAccountant::new(AddRemove);
    assert!(matches!(
        acc.compose_gaussian(1.0, 0),
        Err(RdpError::ZeroSteps)
    ));
    assert!(matches!(
        acc.compose_poisson_gaussian(0.1, 1.0, 0),
        Err(RdpError::ZeroSteps)
    ));
    for delta in [0.0, 1.0, -1e-5, 1.5, f64::NAN] {
        assert!(matches!(acc.epsilon(delta), Err(RdpError::InvalidDelta(_))));
        assert!(matches!(
            calibrate_noise_multiplier(1.0, delta, 0.01, 10, AddRemove),
            Err(RdpError::InvalidDelta(_))
        ));
    }
    for eps in [-1.0, f64::INFINITY, f64::NAN] {
        assert!(matches!(acc.delta(eps), Err(RdpError::InvalidEpsilon(_))));
    }
    for target in [0.0, -1.0, f64::INFINITY, f64::NAN] {
        assert!(matches!(
            calibrate_noise_multiplier(target, 1e-5, 0.01, 10, AddRemove),
            Err(RdpError::InvalidTargetEpsilon(_))
        ));
    }
    assert!(matches!(
        calibrate_noise_multiplier(1.0, 1e-5, 0.01, 0, AddRemove),
        Err(RdpError::ZeroSteps)
    ));
    assert_eq!(
        epsilon_from_rdp(&[2.0, 3.0], &[1.0], 1e-5, Conversion::Tight),
        Err(RdpError::LengthMismatch {
            orders: 2,
            values: 1
        })
    );
    assert_eq!(
        delta_from_rdp(&[2.0], &[-0.5], 1.0, Conversion::Tight),
        Err(RdpError::InvalidRdpValue(-0.5))
    );
    assert!(matches!(
        epsilon_from_rdp(&[], &[], 1e-5, Conversion::Tight),
        Err(RdpError::NoOrders)
    ));
}

/// Replace-one with Poisson subsampling is refused everywhere, never answered
/// with the add/remove value; a failed composition leaves the accountant as
/// it was.
#[test]
fn replace_one_subsampling_is_an_explicit_error() {
    let expected = RdpError::UnsupportedRelation {
        relation: ReplaceOne,
        q: 0.01,
    };
    assert_eq!(
        poisson_gaussian_rdp(0.01, 1.0, 2.0, ReplaceOne),
        Err(expected)
    );
    assert_eq!(
        poisson_gaussian_rdp(0.01, 1.0, 2.5, ReplaceOne),
        Err(expected)
    );
    assert!(format!("{expected}").contains("replace-one"));
    let mut acc = RdpAccountant::new(ReplaceOne);
    acc.compose_gaussian(2.0, 3).unwrap();
    let before = acc.clone();
    assert!(matches!(
        acc.compose_poisson_gaussian(0.01, 1.0, 10),
        Err(RdpError::UnsupportedRelation { .. })
    ));
    assert_eq!(acc, before);
    assert_eq!(
        calibrate_noise_multiplier(1.0, 1e-5, 0.01, 10, ReplaceOne),
        Err(expected)
    );
    assert!(matches!(
        poisson_gaussian_epsilon(0.01, 1.0, 10, 1e-5, ReplaceOne),
        Err(RdpError::UnsupportedRelation { .. })
    ));
}

/// Unreachable and vacuous calibration targets give explicit errors.
#[test]
fn calibration_reports_unreachable_targets() {
    // Budget already spent by earlier steps: no amount of noise helps.
    let mut spent = RdpAccountant::new(AddRemove);
    spent.compose_gaussian(0.5, 100).unwrap();
    let err = spent
        .calibrate_noise_multiplier(1.0, 1e-5, 0.01, 10)
        .unwrap_err();
    match err {
        RdpError::TargetUnreachable {
            target_eps,
            max_sigma,
            eps_at_max_sigma,
        } => {
            assert_eq!(target_eps, 1.0);
            assert_eq!(max_sigma, CALIBRATION_SIGMA_RANGE.1);
            assert!(eps_at_max_sigma > 1.0);
        }
        other => panic!("unexpected {other:?}"),
    }
    // q = 0: nothing depends on the data, no noise is needed.
    assert!(matches!(
        calibrate_noise_multiplier(1.0, 1e-5, 0.0, 10, AddRemove),
        Err(RdpError::NoiseNotNeeded { .. })
    ));
}
