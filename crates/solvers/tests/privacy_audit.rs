//! Empirical privacy audit of conceptual output perturbation
//! (Lowy–Razaviyayn Eq. (2); noise of digest §2: l2-norm "Laplace" for pure
//! eps-DP, Gaussian with the Zhao et al. (2019) scale for (eps, delta)-DP).
//!
//! Method. Two replace-one neighbours `X`, `X'` of the diagonal-quadratic
//! family are built in the worst case: they share `n - 1` records and differ
//! in one record, `+e1` in `X` and `-e1` in `X'`, so
//! `w*(X) - w*(X') = (2/n) e1` has norm exactly the tight sensitivity
//! `Delta = 2/n` the mechanism is calibrated with. The released `w` is
//! reduced to `s = <w - w*(X'), e1>` and, for fixed thresholds `t_1..t_m`
//! (chosen from the calibration only, before sampling), the events
//! `S_t = {s >= t}` are counted over `N` independent releases on each data set.
//! If the mechanism is (eps, delta)-DP then `P[M(X) in S] <= e^eps P[M(X') in S] + delta`
//! for every `S`, so with one-sided Clopper–Pearson bounds
//! `p_lo(X) <= P[M(X) in S_t]` and `p_hi(X') >= P[M(X') in S_t]`,
//!
//! `eps_lb = max_t ln((p_lo(X) - delta) / p_hi(X'))`
//!
//! is a lower confidence bound on the realised eps. Every one of the `2m`
//! bounds is taken at level `ALPHA / (2m)` (Bonferroni), so all hold
//! simultaneously with probability `>= 1 - ALPHA`: **for a mechanism that is
//! (eps, delta)-DP, `eps_lb > eps` happens with probability at most
//! `ALPHA = 1e-6` per audit (the false-alarm rate)**, whatever the thresholds.
//! (The mirrored events `{s <= t}` with the roles of `X`, `X'` swapped give
//! the same test by the symmetry of the noise and are not repeated.)
//!
//! Power. The same audit is run on a deliberately under-noised mechanism
//! (the noise samplers called directly with half the calibrated scale) and
//! must then find `eps_lb > eps`.
//!
//! Clopper–Pearson bounds are the `audit` crate's (exact binomial tails,
//! checked there against closed forms, direct sums and mpmath). This file
//! keeps its own fixed thresholds and Bonferroni correction rather than the
//! crate's selection/estimation split: its thresholds come from the
//! calibration alone, before any sampling, so all `DRAWS` runs estimate.

use audit::ClopperPearson;
use datagen::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{MinimizerSensitivity, Objective, PrivacyParams, ProblemConstants};
use mechanisms::gdp::gdp_epsilon;
use mechanisms::noise::{gaussian, l2_laplace};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::{ConceptualOutputPerturbation, SensitivityChoice};

/// Family-wise false-alarm rate of one audit (over all its thresholds).
const ALPHA: f64 = 1e-6;

/// Number of releases per data set and per mechanism.
const DRAWS: usize = 1_000_000;

/// Records per data set; the tight sensitivity is `2/N_RECORDS`.
const N_RECORDS: usize = 4;

// ---------------------------------------------------------------------------
// Neighbouring data sets of the diagonal-quadratic family
// ---------------------------------------------------------------------------

/// A diagonal-quadratic instance with caller-chosen records.
///
/// `DiagonalQuadratic` only offers `generate` (random records), so this
/// wrapper keeps a generated instance for everything that depends on the
/// family's parameters only (dimension, `n`, Hessian, analytic constants,
/// minimizer sensitivity, `tr H`) and recomputes the data-dependent parts
/// (`F`, gradient, `w* = x_bar`, excess risk) from explicit records with the
/// family's formulas. [`wrapper_reproduces_diagonal_quadratic`] checks that
/// with the family's own records it is indistinguishable from the family.
struct WithRecords {
    family: DiagonalQuadratic,
    data: Vec<f64>,
    mean: Vec<f64>,
}

impl WithRecords {
    /// `data` is row-major `n x d`; every record must lie in the unit ball
    /// (the family's data universe, on which its constants are valid).
    fn new(family: DiagonalQuadratic, data: Vec<f64>) -> Self {
        let p = *family.params();
        assert_eq!(data.len(), p.n * p.d, "wrong number of coordinates");
        for row in data.chunks_exact(p.d) {
            let norm_sq: f64 = row.iter().map(|v| v * v).sum();
            assert!(norm_sq <= 1.0 + 1e-15, "record outside the unit ball");
        }
        let mut mean = vec![0.0; p.d];
        for row in data.chunks_exact(p.d) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        for m in &mut mean {
            *m /= p.n as f64;
        }
        Self { family, data, mean }
    }
}

impl Objective for WithRecords {
    fn dim(&self) -> usize {
        self.family.dim()
    }

    fn num_records(&self) -> usize {
        self.family.num_records()
    }

    fn value(&self, w: &[f64]) -> f64 {
        let h = self.family.hessian_diagonal();
        let total: f64 = self
            .data
            .chunks_exact(self.dim())
            .map(|x| {
                h.iter()
                    .zip(w.iter().zip(x))
                    .map(|(h, (wj, xj))| h * (wj - xj) * (wj - xj))
                    .sum::<f64>()
            })
            .sum();
        0.5 * total / self.num_records() as f64
    }

    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let h = self.family.hessian_diagonal();
        for ((o, h), (wj, mj)) in out.iter_mut().zip(h).zip(w.iter().zip(&self.mean)) {
            *o = h * (wj - mj);
        }
    }

    fn constants(&self) -> ProblemConstants {
        self.family.constants()
    }

    fn minimizer(&self) -> &[f64] {
        &self.mean
    }

    fn excess_risk(&self, w: &[f64]) -> f64 {
        let h = self.family.hessian_diagonal();
        0.5 * h
            .iter()
            .zip(w.iter().zip(&self.mean))
            .map(|(h, (wj, mj))| h * (wj - mj) * (wj - mj))
            .sum::<f64>()
    }

    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        self.family.minimizer_sensitivity()
    }

    fn hessian_trace(&self) -> Option<f64> {
        self.family.hessian_trace()
    }
}

fn family(d: usize, seed: u64) -> DiagonalQuadratic {
    let params = DiagonalQuadraticParams {
        n: N_RECORDS,
        d,
        beta: 1.0,
        kappa: 2.0,
    };
    DiagonalQuadratic::generate(params, &mut Pcg64::seed_from_u64(seed))
}

/// The worst-case replace-one pair `(X, X')`: records `1..n` of a generated
/// instance are shared, record 0 is `+e1` in `X` and `-e1` in `X'`.
fn worst_case_pair(d: usize, seed: u64) -> (WithRecords, WithRecords) {
    let base = family(d, seed);
    let mut e1 = vec![0.0; d];
    e1[0] = 1.0;
    let with_first = |first: &[f64]| {
        let mut data = first.to_vec();
        data.extend_from_slice(&base.data()[d..]);
        WithRecords::new(family(d, seed), data)
    };
    let x = with_first(&e1);
    let minus_e1: Vec<f64> = e1.iter().map(|v| -v).collect();
    let x_prime = with_first(&minus_e1);
    (x, x_prime)
}

/// With the family's own records the wrapper reproduces the family exactly
/// (value, gradient, minimizer, excess risk, constants, sensitivity, trace).
#[test]
fn wrapper_reproduces_diagonal_quadratic() {
    for d in [1, 3] {
        let q = family(d, 7);
        let w = WithRecords::new(family(d, 7), q.data().to_vec());
        let point: Vec<f64> = (0..d).map(|j| 0.3 - 0.2 * j as f64).collect();
        assert!((w.value(&point) - q.value(&point)).abs() < 1e-14);
        assert!((w.excess_risk(&point) - q.excess_risk(&point)).abs() < 1e-14);
        let (mut g1, mut g2) = (vec![0.0; d], vec![0.0; d]);
        w.gradient(&point, &mut g1);
        q.gradient(&point, &mut g2);
        for j in 0..d {
            assert!((g1[j] - g2[j]).abs() < 1e-14);
            assert!((w.minimizer()[j] - q.minimizer()[j]).abs() < 1e-15);
        }
        assert_eq!(w.constants(), q.constants());
        assert_eq!(w.minimizer_sensitivity(), q.minimizer_sensitivity());
        assert_eq!(w.hessian_trace(), q.hessian_trace());
    }
}

/// The pair is a replace-one pair (same n, exactly one record differs) and is
/// worst case: `||w*(X) - w*(X')|| = 2/n = Delta_tight`, along `e1`.
#[test]
fn worst_case_pair_attains_tight_sensitivity() {
    for d in [1, 2, 3] {
        let (x, xp) = worst_case_pair(d, 11);
        assert_eq!(x.num_records(), xp.num_records());
        let differing = x
            .data
            .chunks_exact(d)
            .zip(xp.data.chunks_exact(d))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differing, 1);
        let gap: Vec<f64> = x
            .minimizer()
            .iter()
            .zip(xp.minimizer())
            .map(|(a, b)| a - b)
            .collect();
        let norm = gap.iter().map(|v| v * v).sum::<f64>().sqrt();
        let tight = x.minimizer_sensitivity().tight;
        assert!((tight - 2.0 / N_RECORDS as f64).abs() < 1e-15);
        assert!((norm - tight).abs() < 1e-15, "d={d}: {norm} vs {tight}");
        assert!((gap[0] - tight).abs() < 1e-15);
    }
}

// ---------------------------------------------------------------------------
// The audit
// ---------------------------------------------------------------------------

/// Result of one audit.
#[derive(Debug)]
struct Audit {
    /// Lower confidence bound on eps (max over thresholds), `-inf` if no
    /// threshold gives a positive numerator.
    eps_lower: f64,
    /// Threshold attaining it.
    threshold: f64,
    /// Counts `#{s >= t}` on `X` and `X'` at that threshold.
    counts: (usize, usize),
}

/// `counts[j] = #{s in samples : s >= thresholds[j]}` (thresholds ascending).
fn tail_counts(samples: &[f64], thresholds: &[f64]) -> Vec<usize> {
    let mut hist = vec![0usize; thresholds.len() + 1];
    for &s in samples {
        hist[thresholds.partition_point(|&t| t <= s)] += 1;
    }
    // #{s >= t_j} = #{samples with index >= j + 1 in the partition}.
    let mut counts = vec![0usize; thresholds.len()];
    let mut acc = 0usize;
    for j in (0..thresholds.len()).rev() {
        acc += hist[j + 1];
        counts[j] = acc;
    }
    counts
}

/// The lower confidence bound `max_t ln((p_lo(X) - delta) / p_hi(X'))` with
/// every bound at level `ALPHA / (2 m)` (module docs).
fn audit(s_x: &[f64], s_xp: &[f64], thresholds: &[f64], delta: f64, cp: &ClopperPearson) -> Audit {
    assert_eq!(s_x.len(), cp.trials());
    assert_eq!(s_xp.len(), cp.trials());
    let level = ALPHA / (2 * thresholds.len()) as f64;
    let (cx, cxp) = (tail_counts(s_x, thresholds), tail_counts(s_xp, thresholds));
    let mut best = Audit {
        eps_lower: f64::NEG_INFINITY,
        threshold: f64::NAN,
        counts: (0, 0),
    };
    for (j, &t) in thresholds.iter().enumerate() {
        let p_lo = cp.lower(cx[j], level);
        let p_hi = cp.upper(cxp[j], level);
        if p_lo > delta {
            let lb = ((p_lo - delta) / p_hi).ln();
            if lb > best.eps_lower {
                best = Audit {
                    eps_lower: lb,
                    threshold: t,
                    counts: (cx[j], cxp[j]),
                };
            }
        }
    }
    best
}

/// Thresholds `t_j = j scale / 4`, `j = 0..=24`: fixed from the calibrated
/// noise scale before any sampling.
fn thresholds(scale: f64) -> Vec<f64> {
    (0..=24).map(|j| 0.25 * scale * f64::from(j)).collect()
}

/// `DRAWS` releases of `ConceptualOutputPerturbation { Tight }` on `data`,
/// projected to `s = <w - w*(X'), e1>`.
fn run_mechanism(
    data: &WithRecords,
    origin: f64,
    privacy: PrivacyParams,
    rng: &mut Pcg64,
) -> Vec<f64> {
    let mech = ConceptualOutputPerturbation {
        sensitivity: SensitivityChoice::Tight,
    };
    (0..DRAWS)
        .map(|_| mech.run(data, privacy, rng).expect("valid run").w[0] - origin)
        .collect()
}

/// `DRAWS` releases of `w*(X) + z` with `z` from `sample` (the under-noised
/// mechanism), projected like [`run_mechanism`].
fn run_custom(
    data: &WithRecords,
    origin: f64,
    rng: &mut Pcg64,
    sample: impl Fn(&mut Pcg64) -> Vec<f64>,
) -> Vec<f64> {
    let w0 = data.minimizer()[0];
    (0..DRAWS).map(|_| w0 + sample(rng)[0] - origin).collect()
}

/// One audited cell: the audits of the calibrated and of the half-noise
/// mechanism, with the true eps of each at the audited delta.
struct Cell {
    correct: Audit,
    under: Audit,
    /// Exact eps of the calibrated mechanism: `eps` for the l2-Laplace noise
    /// (its privacy loss is exactly `eps ||w - w'|| / Delta`), and the
    /// Balle–Wang / GDP value at `delta` for the Gaussian (below the claim, as
    /// the ZWB scale is conservative).
    exact_correct: f64,
    /// Exact eps of the half-noise mechanism: `2 eps`, resp. the GDP value for
    /// `mu = 2 Delta / sigma`.
    exact_under: f64,
}

/// Runs the calibrated and the half-noise audit for one (d, privacy) cell.
fn audit_cell(d: usize, privacy: PrivacyParams, seed: u64, cp: &ClopperPearson) -> Cell {
    let (x, xp) = worst_case_pair(d, seed);
    let delta_s = x.minimizer_sensitivity().tight;
    let scale = ConceptualOutputPerturbation::noise_scale(delta_s, privacy).unwrap();
    let ts = thresholds(scale);
    let origin = xp.minimizer()[0];
    let mut rng = Pcg64::seed_from_u64(seed);

    let s_x = run_mechanism(&x, origin, privacy, &mut rng);
    let s_xp = run_mechanism(&xp, origin, privacy, &mut rng);
    let correct = audit(&s_x, &s_xp, &ts, privacy.delta, cp);

    let half = 0.5 * scale;
    let sample = |r: &mut Pcg64| {
        if privacy.is_pure() {
            l2_laplace(d, half, r)
        } else {
            gaussian(d, half, r)
        }
    };
    let u_x = run_custom(&x, origin, &mut rng, sample);
    let u_xp = run_custom(&xp, origin, &mut rng, sample);
    let under = audit(&u_x, &u_xp, &ts, privacy.delta, cp);
    let (exact_correct, exact_under) = if privacy.is_pure() {
        (privacy.eps, 2.0 * privacy.eps)
    } else {
        (
            gdp_epsilon(delta_s / scale, privacy.delta).unwrap(),
            gdp_epsilon(delta_s / half, privacy.delta).unwrap(),
        )
    };
    eprintln!(
        "d={d} {privacy:?} scale={scale:.4}: calibrated eps_lb = {:.4} (t = {:.3}, counts {:?}, \
         exact eps {exact_correct:.4}); half noise eps_lb = {:.4} (t = {:.3}, counts {:?}, \
         exact eps {exact_under:.4}); claimed eps = {}",
        correct.eps_lower,
        correct.threshold,
        correct.counts,
        under.eps_lower,
        under.threshold,
        under.counts,
        privacy.eps
    );
    Cell {
        correct,
        under,
        exact_correct,
        exact_under,
    }
}

/// Checks one cell: the calibrated mechanism's lower bound is at most the
/// claimed eps and at most its exact eps; the half-noise lower bound exceeds
/// the claimed eps (power) but not its own exact eps. Each inequality can only
/// fail by a false alarm (probability <= ALPHA per audit) or a bug.
fn check_cell(cell: &Cell, privacy: PrivacyParams, what: &str) {
    let (c, u) = (&cell.correct, &cell.under);
    assert!(
        c.eps_lower <= privacy.eps,
        "{what}: audit found eps >= {} > claimed {}",
        c.eps_lower,
        privacy.eps
    );
    assert!(
        c.eps_lower <= cell.exact_correct,
        "{what}: audit bound {} above the exact eps {}",
        c.eps_lower,
        cell.exact_correct
    );
    assert!(
        u.eps_lower > privacy.eps,
        "{what}: half noise not detected, eps_lb = {}",
        u.eps_lower
    );
    assert!(
        u.eps_lower <= cell.exact_under,
        "{what}: half-noise bound {} above its exact eps {}",
        u.eps_lower,
        cell.exact_under
    );
}

/// Pure DP (l2-norm Laplace noise, scale Delta/eps, eps = 1): the audit's
/// lower bound stays below the claimed eps in d = 1 and d = 3, and is close to
/// it in d = 1 (> 0.9: there the mechanism is exactly tight, the likelihood
/// ratio of the 1-D Laplace tails is e^eps beyond Delta, so the audit is
/// sharp); with half the noise it exceeds eps (power check) and stays below
/// the half-noise mechanism's exact 2 eps. False-alarm rate 1e-6 per audit
/// (module docs).
#[test]
fn audit_pure_dp_l2_laplace() {
    let cp = ClopperPearson::new(DRAWS);
    let privacy = PrivacyParams::pure(1.0);
    for (d, seed) in [(1usize, 101u64), (3, 103)] {
        let cell = audit_cell(d, privacy, seed, &cp);
        check_cell(&cell, privacy, &format!("l2-Laplace d={d}"));
        if d == 1 {
            let lb = cell.correct.eps_lower;
            assert!(lb > 0.9, "d=1 audit not sharp: {lb}");
        }
    }
}

/// Approximate DP (Gaussian noise with the ZWB scale, eps = 2, delta = 1e-5):
/// the lower bound stays below eps (and below the exact eps at delta of the
/// calibrated Gaussian); with half the noise it exceeds eps (power check) but
/// not the half-noise Gaussian's exact eps. The coordinates are independent,
/// so d = 2 audits the same 1-D marginal as d = 1. False-alarm rate 1e-6 per
/// audit.
#[test]
fn audit_gaussian_zwb() {
    let cp = ClopperPearson::new(DRAWS);
    let privacy = PrivacyParams::approx(2.0, 1e-5);
    let cell = audit_cell(2, privacy, 202, &cp);
    check_cell(&cell, privacy, "Gaussian (ZWB)");
}
