//! Tests of the inner solvers (Lowy–Razaviyayn Algorithms 2–4) on the E1
//! diagonal quadratic (closed-form minimizer) and on a small non-smooth,
//! sharp test objective defined here.

use datagen::quadratic::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{FiniteSum, MinimizerSensitivity, Objective, ProblemConstants, RunFailure};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::inner::{
    gradient_descent, project_ball, solve, Certificate, InnerSolver, Regularized, SolverOutput,
};

fn quadratic(n: usize, d: usize, kappa: f64, seed: u64) -> DiagonalQuadratic {
    let params = DiagonalQuadraticParams {
        n,
        d,
        beta: 1.0,
        kappa,
    };
    DiagonalQuadratic::generate(params, &mut Pcg64::seed_from_u64(seed))
}

/// `F_lambda(w) - min F_lambda` for the quadratic: `w_lambda,j = h_j xbar_j /
/// (h_j + lambda)`, excess `1/2 sum_j (h_j + lambda)(w_j - w_lambda,j)^2`.
fn quad_reg_excess(q: &DiagonalQuadratic, lambda: f64, w: &[f64]) -> f64 {
    let h = q.hessian_diagonal();
    (0..w.len())
        .map(|j| {
            let wl = h[j] * q.minimizer()[j] / (h[j] + lambda);
            0.5 * (h[j] + lambda) * (w[j] - wl).powi(2)
        })
        .sum()
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Forwards to a quadratic, overriding its constants and optionally hiding
/// its per-record oracle (for regularized and failure cases).
struct Wrapped<'a> {
    q: &'a DiagonalQuadratic,
    c: ProblemConstants,
    erm: bool,
}

impl<'a> Wrapped<'a> {
    /// `q` with constants `c`, keeping its per-record oracle.
    fn erm(q: &'a DiagonalQuadratic, c: ProblemConstants) -> Self {
        Self { q, c, erm: true }
    }
}

impl Objective for Wrapped<'_> {
    fn dim(&self) -> usize {
        self.q.dim()
    }
    fn num_records(&self) -> usize {
        self.q.num_records()
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.q.value(w)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        self.q.gradient(w, out)
    }
    fn constants(&self) -> ProblemConstants {
        self.c
    }
    fn minimizer(&self) -> &[f64] {
        self.q.minimizer()
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.q.excess_risk(w)
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        self.q.minimizer_sensitivity()
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        if self.erm {
            self.q.finite_sum()
        } else {
            None
        }
    }
}

/// Non-smooth, sharp: `f(w, x_i) = mu/2 ||w||^2 + ||w - x||` with all records
/// equal to `x`, `||x|| = r`. On the ray through `x`, `F_lambda` is minimized at
/// `min{r, 1/(mu + lambda)} x/r` (a kink at `x` when `(mu + lambda) r <= 1`).
struct Sharp {
    mu: f64,
    x: Vec<f64>,
    n: usize,
}

impl Sharp {
    fn reg_min(&self, lambda: f64) -> Vec<f64> {
        let r = norm(&self.x);
        let t = r.min(1.0 / (self.mu + lambda)) / r;
        self.x.iter().map(|v| t * v).collect()
    }
    fn reg_excess(&self, lambda: f64, w: &[f64]) -> f64 {
        let fl = |v: &[f64]| self.value(v) + 0.5 * lambda * norm(v).powi(2);
        fl(w) - fl(&self.reg_min(lambda))
    }
}

impl Objective for Sharp {
    fn dim(&self) -> usize {
        self.x.len()
    }
    fn num_records(&self) -> usize {
        self.n
    }
    fn value(&self, w: &[f64]) -> f64 {
        let diff: Vec<f64> = w.iter().zip(&self.x).map(|(a, b)| a - b).collect();
        0.5 * self.mu * norm(w).powi(2) + norm(&diff)
    }
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        self.record_gradient(0, w, out)
    }
    fn constants(&self) -> ProblemConstants {
        let r = norm(&self.x);
        ProblemConstants {
            lipschitz: self.mu * r + 1.0,
            smoothness: f64::INFINITY,
            strong_convexity: self.mu,
            radius: r,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.x
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        self.reg_excess(0.0, w)
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: 0.0,
            paper: 0.0,
        }
    }
    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }
}

impl FiniteSum for Sharp {
    fn record_gradient(&self, _i: usize, w: &[f64], out: &mut [f64]) {
        let diff: Vec<f64> = w.iter().zip(&self.x).map(|(a, b)| a - b).collect();
        let dn = norm(&diff);
        for j in 0..w.len() {
            out[j] = self.mu * w[j] + if dn > 0.0 { diff[j] / dn } else { 0.0 };
        }
    }
}

fn run(
    s: InnerSolver,
    p: &dyn Objective,
    lambda: f64,
    alpha: f64,
    seed: u64,
) -> Result<SolverOutput, RunFailure> {
    solve(s, p, lambda, alpha, &mut Pcg64::seed_from_u64(seed))
}

#[test]
fn project_ball_and_regularized_oracles_match_hand_values() {
    let mut w = vec![3.0, 4.0];
    project_ball(&mut w, 2.0);
    assert!((w[0] - 1.2).abs() < 1e-15 && (w[1] - 1.6).abs() < 1e-15);
    let mut inside = vec![0.3, -0.4];
    project_ball(&mut inside, 1.0);
    assert_eq!(inside, vec![0.3, -0.4]);
    // Regularized gradient vs central finite differences of the value.
    let q = quadratic(7, 3, 5.0, 1);
    let reg = Regularized::new(&q, 0.3);
    assert!((reg.strong_convexity() - 0.5).abs() < 1e-15 && (reg.lipschitz() - 2.3).abs() < 1e-15);
    let w = [0.2, -0.5, 0.9];
    let mut g = [0.0; 3];
    reg.gradient(&w, &mut g);
    for j in 0..3 {
        let (mut a, mut b) = (w, w);
        a[j] += 1e-6;
        b[j] -= 1e-6;
        assert!(((reg.value(&a) - reg.value(&b)) / 2e-6 - g[j]).abs() < 1e-7);
    }
    // Record gradient: H (w - x_i) + lambda w.
    let mut gi = [0.0; 3];
    reg.finite_sum()
        .expect("ERM")
        .record_gradient(2, &w, &mut gi);
    for j in 0..3 {
        let want = q.hessian_diagonal()[j] * (w[j] - q.record(2)[j]) + 0.3 * w[j];
        assert!((gi[j] - want).abs() < 1e-15);
    }
}

/// Three hand-computed steps of Algorithm 2 (n = d = 1, H = 1, R = 1, m = 1):
/// alpha = 3.2 gives T = ceil(8/3.2) = 3, w1 = Pi(2x), w2 = w3 = x, output
/// (2 w1 + 4 x + 6 x)/12; SGD with n = 1 must agree exactly.
#[test]
fn subgradient_method_matches_hand_recursion() {
    let q = quadratic(1, 1, 1.0, 3);
    let x = q.record(0)[0];
    let w1 = (2.0 * x).clamp(-1.0, 1.0);
    let want = (2.0 * w1 + 10.0 * x) / 12.0;
    for s in [InnerSolver::Subgradient, InnerSolver::Sgd] {
        let out = run(s, &q, 0.0, 3.2, 0).expect("runs");
        assert_eq!((out.iterations, out.gradient_evaluations), (3, 3));
        assert!(
            (out.w[0] - want).abs() < 1e-15,
            "{s:?}: {} vs {want}",
            out.w[0]
        );
        assert!((out.certificate.bound() - 2.0 * 4.0 / 4.0).abs() < 1e-15);
    }
}

#[test]
fn subgradient_reaches_alpha_with_counted_cost() {
    let q = quadratic(20, 4, 4.0, 5);
    let alpha: f64 = 1e-3;
    let out = run(InnerSolver::Subgradient, &q, 0.0, alpha, 0).expect("runs");
    let t = (2.0 * 4.0 / (0.25 * alpha)).ceil() as u64; // L = 2, m = 1/4
    assert_eq!((out.iterations, out.gradient_evaluations), (t, 20 * t));
    assert_eq!(
        out.certificate,
        Certificate::Deterministic(8.0 / (0.25 * (t as f64 + 1.0)))
    );
    assert!(q.excess_risk(&out.w) <= out.certificate.bound());
    // Non-smooth sharp instance: minimizer at the kink x (mu r = 0.5 <= 1).
    let sharp = Sharp {
        mu: 1.0,
        x: vec![0.3, -0.4, 0.0],
        n: 5,
    };
    let out = run(InnerSolver::Subgradient, &sharp, 0.0, alpha, 0).expect("runs");
    assert!(
        sharp.excess_risk(&out.w) <= alpha,
        "excess {}",
        sharp.excess_risk(&out.w)
    );
}

/// The bound holds for the expectation, so a check on the mean of 20 runs can
/// fail only by chance: by Markov, with probability at most E[excess]/bound;
/// the observed mean is about 2% of the bound, so the false-alarm rate is
/// tiny (and the seeds are fixed, so the test is deterministic).
#[test]
fn sgd_mean_excess_within_in_expectation_bound() {
    let q = quadratic(50, 4, 2.0, 7);
    let alpha: f64 = 2e-3;
    let t = (2.0 * 4.0 / (0.5 * alpha)).ceil() as u64; // L = 2, m = 1/2
    let mut total = 0.0;
    for seed in 0..20 {
        let out = run(InnerSolver::Sgd, &q, 0.0, alpha, seed).expect("runs");
        assert_eq!((out.iterations, out.gradient_evaluations), (t, t));
        assert!(!out.certificate.holds_for_every_data_set());
        assert!(out.certificate.bound() <= alpha);
        total += q.excess_risk(&out.w);
    }
    assert!(
        total / 20.0 <= 2.0 * 4.0 / (0.5 * (t as f64 + 1.0)),
        "mean {}",
        total / 20.0
    );
}

/// Checks the Katyusha output: recomputed gradient norm, certificate, cost.
fn check_katyusha(q: &DiagonalQuadratic, lambda: f64, alpha: f64, seed: u64) -> u64 {
    let out = run(InnerSolver::Katyusha, q, lambda, alpha, seed).expect("Katyusha converges");
    let m = q.constants().strong_convexity + lambda;
    let reg = Regularized::new(q, lambda);
    let mut g = vec![0.0; q.dim()];
    reg.gradient(&out.w, &mut g);
    let gn = norm(&g);
    assert!(gn <= (2.0 * m * alpha).sqrt());
    match out.certificate {
        Certificate::GradientNorm { norm, bound } => {
            assert!((norm - gn).abs() <= 1e-12 * gn.max(1e-300));
            assert!((bound - norm * norm / (2.0 * m)).abs() <= 1e-15 && bound <= alpha);
        }
        c => panic!("unexpected certificate {c:?}"),
    }
    assert!(quad_reg_excess(q, lambda, &out.w) <= out.certificate.bound() * (1.0 + 1e-9));
    let n = q.num_records() as u64;
    assert_eq!(out.iterations % (2 * n), 0);
    let epochs = out.iterations / (2 * n);
    assert!(epochs >= 1, "the test must run at least one epoch");
    assert_eq!(out.gradient_evaluations, n * (5 * epochs + 1));
    epochs
}

#[test]
fn katyusha_certificate_holds() {
    let q = quadratic(500, 5, 20.0, 11);
    check_katyusha(&q, 0.0, 1e-10, 1);
    check_katyusha(&q, 0.5, 1e-10, 2);
}

/// kappa = 1, n = 1e5: gamma m = 2/3 and (1 + gamma m)^(2n - 1) overflows f64 (P14).
#[test]
fn katyusha_large_n_does_not_overflow() {
    let q = quadratic(100_000, 3, 1.0, 13);
    assert!((5.0f64 / 3.0).powi(200_000).is_infinite());
    check_katyusha(&q, 0.0, 1e-14, 3);
}

#[test]
fn katyusha_epochs_do_not_grow_with_n() {
    let epochs: Vec<u64> = [1_000, 3_000, 10_000]
        .iter()
        .map(|&n| check_katyusha(&quadratic(n, 5, 10.0, 17), 0.0, 1e-12, 4))
        .collect();
    let (lo, hi) = (epochs.iter().min().unwrap(), epochs.iter().max().unwrap());
    assert!(
        *hi <= 2 * lo + 2,
        "epochs {epochs:?}: cost per n should be ~constant"
    );
}

#[test]
fn agd_reaches_alpha_and_iterations_grow_like_sqrt_kappa() {
    let alpha: f64 = 1e-8;
    let mut iters = Vec::new();
    for kappa in [1.0, 100.0, 10_000.0] {
        let q = quadratic(10, 8, kappa, 19);
        let out = run(InnerSolver::Agd, &q, 0.0, alpha, 0).expect("AGD runs");
        let m = 1.0 / kappa;
        let t = 1 + (kappa.sqrt() * ((1.0 + m) / (2.0 * alpha)).ln()).ceil() as u64;
        assert_eq!((out.iterations, out.gradient_evaluations), (t, 10 * t));
        assert_eq!(out.certificate, Certificate::Deterministic(alpha));
        assert!(
            q.excess_risk(&out.w) <= alpha,
            "kappa {kappa}: {}",
            q.excess_risk(&out.w)
        );
        iters.push(t as f64);
    }
    assert_eq!(iters[0], 20.0); // 1 + ceil(ln(1e8))
    let ratio = iters[2] / iters[1];
    assert!((9.5..=10.5).contains(&ratio), "ratio {ratio}");
}

/// The certified AGD stops at an iterate whose gradient norm certifies
/// alpha, no later than the prescribed count, spending 2 n per step; where
/// the quadratic converges faster than the worst-case bound (every kappa
/// here) it stops strictly earlier, so a run that ignored the check, or
/// checked a wrong norm, fails.
#[test]
fn agd_certified_stops_at_its_first_certificate() {
    let alpha: f64 = 1e-8;
    for kappa in [1.0, 100.0, 10_000.0] {
        let q = quadratic(10, 8, kappa, 19);
        let fixed = run(InnerSolver::Agd, &q, 0.0, alpha, 0).expect("AGD runs");
        let out = run(InnerSolver::AgdCertified, &q, 0.0, alpha, 0).expect("runs");
        let m = 1.0 / kappa;
        let threshold = (2.0 * m * alpha).sqrt();
        let Certificate::GradientNorm { norm: gnorm, bound } = out.certificate else {
            panic!("kappa {kappa}: no certificate before T: {out:?}");
        };
        let mut g = vec![0.0; 8];
        q.gradient(&out.w, &mut g);
        assert!((norm(&g) - gnorm).abs() <= 1e-12 * gnorm.max(1e-300));
        assert!(gnorm <= threshold && bound <= alpha, "kappa {kappa}");
        assert!(q.excess_risk(&out.w) <= bound, "kappa {kappa}");
        assert!(
            out.iterations < fixed.iterations,
            "kappa {kappa}: {} of {}",
            out.iterations,
            fixed.iterations
        );
        assert_eq!(out.gradient_evaluations, 2 * 10 * out.iterations);
    }
}

/// With the minimizer outside a ball the problem understates (radius
/// 1e-3), no iterate's gradient is small: the certified AGD runs AGD's
/// whole count, returns its iterate with the deterministic certificate, and
/// counts the T - 1 checks it spent.
#[test]
fn agd_certified_without_a_certificate_falls_back_to_the_prescribed_count() {
    let q = quadratic(10, 4, 10.0, 41);
    let c = ProblemConstants {
        radius: 1e-3,
        ..q.constants()
    };
    assert!(norm(q.minimizer()) > 0.1, "test setup: minimizer inside");
    let small = Wrapped::erm(&q, c);
    let alpha = 1e-9;
    let fixed = run(InnerSolver::Agd, &small, 0.0, alpha, 0).expect("AGD runs");
    let out = run(InnerSolver::AgdCertified, &small, 0.0, alpha, 0).expect("runs");
    assert_eq!(out.certificate, Certificate::Deterministic(alpha));
    assert_eq!(out.w, fixed.w);
    assert_eq!(out.iterations, fixed.iterations);
    assert_eq!(
        out.gradient_evaluations,
        (2 * fixed.iterations - 1) * 10,
        "T = {}",
        fixed.iterations
    );
}

#[test]
fn regularized_solves_with_zero_mu() {
    let q = quadratic(30, 4, 4.0, 23);
    let c = ProblemConstants {
        strong_convexity: 0.0,
        ..q.constants()
    };
    let flat = Wrapped::erm(&q, c);
    let (lambda, alpha) = (0.1, 1e-3);
    for s in [
        InnerSolver::Subgradient,
        InnerSolver::Agd,
        InnerSolver::Katyusha,
    ] {
        let out = run(s, &flat, lambda, alpha, 5).expect("runs");
        let ex = quad_reg_excess(&q, lambda, &out.w);
        assert!(
            ex <= out.certificate.bound() && out.certificate.bound() <= alpha,
            "{s:?}: {ex}"
        );
    }
    // Non-smooth with mu = 0: minimizer of F_4 is x/(4 r) (smooth point).
    let sharp = Sharp {
        mu: 0.0,
        x: vec![0.0, 0.5],
        n: 3,
    };
    let out = run(InnerSolver::Subgradient, &sharp, 4.0, alpha, 0).expect("runs");
    assert!(sharp.reg_excess(4.0, &out.w) <= alpha);
    assert!((out.w[1] - 0.25).abs() < (2.0 * alpha / 4.0).sqrt());
}

#[test]
fn gradient_descent_counts_and_certifies() {
    let q = quadratic(12, 3, 4.0, 29);
    let out = gradient_descent(&q, 0.0, 1.0, 60);
    assert_eq!((out.iterations, out.gradient_evaluations), (60, 720));
    let want = 0.5 * 0.75f64.powi(120); // beta/2 (1 - step m)^(2T) R^2
    assert!((out.certificate.bound() - want).abs() <= 1e-12 * want);
    assert!(q.excess_risk(&out.w) <= want);
    assert_eq!(
        gradient_descent(&q, 0.0, 3.0, 5).certificate.bound(),
        f64::INFINITY
    );
}

fn invalid(r: Result<SolverOutput, RunFailure>) -> bool {
    matches!(r, Err(RunFailure::InvalidParameters(_)))
}

#[test]
fn invalid_parameters_are_rejected() {
    let q = quadratic(10, 3, 4.0, 31);
    let all = [
        InnerSolver::Sgd,
        InnerSolver::Subgradient,
        InnerSolver::Katyusha,
        InnerSolver::Agd,
        InnerSolver::AgdCertified,
    ];
    let c = q.constants();
    let flat = Wrapped::erm(
        &q,
        ProblemConstants {
            strong_convexity: 0.0,
            ..c
        },
    );
    let no_erm = Wrapped {
        q: &q,
        c,
        erm: false,
    };
    let rough = Wrapped::erm(
        &q,
        ProblemConstants {
            smoothness: f64::INFINITY,
            ..c
        },
    );
    for s in all {
        assert!(invalid(run(s, &flat, 0.0, 1e-3, 0)), "{s:?}: m = 0");
        assert!(invalid(run(s, &q, -0.1, 1e-3, 0)), "{s:?}: lambda < 0");
        assert!(invalid(run(s, &q, 0.0, 0.0, 0)), "{s:?}: alpha = 0");
        assert!(invalid(run(s, &q, 0.0, f64::NAN, 0)), "{s:?}: alpha NaN");
    }
    for s in [InnerSolver::Sgd, InnerSolver::Katyusha] {
        assert!(
            invalid(run(s, &no_erm, 0.0, 1e-3, 0)),
            "{s:?}: no finite_sum"
        );
    }
    assert!(run(InnerSolver::Agd, &no_erm, 0.0, 1e-3, 0).is_ok());
    for s in [InnerSolver::Katyusha, InnerSolver::Agd] {
        assert!(invalid(run(s, &rough, 0.0, 1e-3, 0)), "{s:?}: beta = inf");
    }
    // T = ceil(2 * 4 / (0.25 * 1e-12)) = 3.2e13 > 5e9.
    assert!(invalid(run(InnerSolver::Subgradient, &q, 0.0, 1e-12, 0)));
}

/// A problem that understates its smoothness (claims beta = mu = 1/100,
/// truly beta = 1) makes Katyusha's steps too long; whatever happens, it must never
/// return an uncertified output.
#[test]
fn katyusha_never_returns_uncertified_output() {
    let q = quadratic(50, 3, 100.0, 37);
    let c = ProblemConstants {
        smoothness: 0.01,
        ..q.constants()
    };
    let liar = Wrapped::erm(&q, c);
    match run(InnerSolver::Katyusha, &liar, 0.0, 1e-10, 0) {
        Err(RunFailure::NonConvergence(_)) | Err(RunFailure::NonFinite(_)) => {}
        Ok(out) => {
            let mut g = vec![0.0; 3];
            q.gradient(&out.w, &mut g);
            assert!(norm(&g) <= (2.0 * 0.01 * 1e-10f64).sqrt());
        }
        Err(e) => panic!("unexpected {e}"),
    }
}
