//! Tests of the conceptual output-perturbation mechanism on the E1 diagonal
//! quadratic, whose expected excess risk is known in closed form.

use datagen::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{MinimizerSensitivity, Objective, PrivacyParams, ProblemConstants, RunFailure};
use mechanisms::calibration::zwb_gaussian_sigma;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::{ConceptualOutputPerturbation, SensitivityChoice};

/// Two-sided z-bound: a correct implementation fails one check with
/// probability ~6.8e-6 (normal approximation to the mean of 4000 runs).
const Z_BOUND: f64 = 4.5;
const RUNS: usize = 4000;

const CHOICES: [SensitivityChoice; 2] = [SensitivityChoice::Tight, SensitivityChoice::Paper];

fn privacies() -> [PrivacyParams; 2] {
    [PrivacyParams::pure(1.0), PrivacyParams::approx(1.0, 1e-5)]
}

fn quadratic(kappa: f64, seed: u64) -> DiagonalQuadratic {
    let params = DiagonalQuadraticParams {
        n: 1000,
        d: 5,
        beta: 1.5,
        kappa,
    };
    DiagonalQuadratic::generate(params, &mut Pcg64::seed_from_u64(seed))
}

/// Sample mean and standard error of the mean.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// Over 4000 releases per cell (kappa in {1, 4} x pure/Gaussian x tight/paper),
/// the mean of `excess_risk(w)` matches `exact_expected_excess` and the mean of
/// `noise_norm_sq` matches `expected_noise_sq_norm`, each by |z| < 4.5 with the
/// sample standard error (16 checks, union false-alarm < 1.1e-4). With the
/// paper's Delta, even the upper confidence limit mean + 4.5 se lies below the
/// Cor 2.2 bound.
#[test]
fn mean_excess_matches_exact_expectation_and_respects_bound() {
    let mut rng = Pcg64::seed_from_u64(21);
    for (k, &kappa) in [1.0, 4.0].iter().enumerate() {
        let q = quadratic(kappa, 100 + k as u64);
        for privacy in privacies() {
            for sensitivity in CHOICES {
                let mech = ConceptualOutputPerturbation { sensitivity };
                let mut excess = Vec::with_capacity(RUNS);
                let mut noise_sq = Vec::with_capacity(RUNS);
                for _ in 0..RUNS {
                    let rel = mech.run(&q, privacy, &mut rng).unwrap();
                    excess.push(q.excess_risk(&rel.w));
                    noise_sq.push(rel.noise_norm_sq);
                }
                let cell = format!("kappa={kappa} {privacy:?} {sensitivity:?}");
                let exact = mech.exact_expected_excess(&q, privacy).unwrap();
                let (m, se) = mean_se(&excess);
                let z = (m - exact) / se;
                assert!(
                    z.abs() < Z_BOUND,
                    "{cell}: mean {m} vs exact {exact} (z = {z})"
                );

                let delta = sensitivity.select(q.minimizer_sensitivity());
                let e_sq = ConceptualOutputPerturbation::expected_noise_sq_norm(5, delta, privacy)
                    .unwrap();
                let (mn, sen) = mean_se(&noise_sq);
                let zn = (mn - e_sq) / sen;
                assert!(
                    zn.abs() < Z_BOUND,
                    "{cell}: E||z||^2 {mn} vs {e_sq} (z = {zn})"
                );

                if sensitivity == SensitivityChoice::Paper {
                    let bound = mech
                        .theorem_bound(&q.constants(), 1000, 5, privacy)
                        .unwrap();
                    assert!(
                        m + Z_BOUND * se < bound,
                        "{cell}: mean {m} not below bound {bound}"
                    );
                }
            }
        }
    }
}

/// Deterministic identities between the exact expectation and the Cor 2.2
/// bound for H = beta I with the paper's Delta = 2L/(mu n): the ratio is
/// (d+1)/(2d) for pure DP and 1/4 for Gaussian noise (digest §4.1: the
/// corrected Prop 2.4 has constant 1 where Cor 2.2 states 4). For kappa > 1
/// the exact value stays below the bound for both Delta choices.
#[test]
fn exact_expectation_versus_theorem_bound() {
    let iso = quadratic(1.0, 31);
    let paper = ConceptualOutputPerturbation {
        sensitivity: SensitivityChoice::Paper,
    };
    let d = 5.0;
    for eps in [0.1, 1.0, 10.0] {
        let pure = PrivacyParams::pure(eps);
        let ratio = paper.exact_expected_excess(&iso, pure).unwrap()
            / paper
                .theorem_bound(&iso.constants(), 1000, 5, pure)
                .unwrap();
        assert!(
            (ratio - (d + 1.0) / (2.0 * d)).abs() < 1e-12,
            "pure eps={eps}: {ratio}"
        );
        for delta in [1e-10, 1e-5, 0.1] {
            let approx = PrivacyParams::approx(eps, delta);
            let ratio = paper.exact_expected_excess(&iso, approx).unwrap()
                / paper
                    .theorem_bound(&iso.constants(), 1000, 5, approx)
                    .unwrap();
            assert!(
                (ratio - 0.25).abs() < 1e-12,
                "eps={eps} delta={delta}: {ratio}"
            );
        }
    }
    let aniso = quadratic(4.0, 32);
    for sensitivity in CHOICES {
        let mech = ConceptualOutputPerturbation { sensitivity };
        for privacy in privacies() {
            let exact = mech.exact_expected_excess(&aniso, privacy).unwrap();
            let bound = mech
                .theorem_bound(&aniso.constants(), 1000, 5, privacy)
                .unwrap();
            assert!(
                exact < bound,
                "{sensitivity:?} {privacy:?}: {exact} >= {bound}"
            );
        }
    }
}

/// The release records the calibration: Delta is the chosen field, the noise
/// scale is Delta/eps (pure) or the ZWB sigma (Gaussian), and noise_norm_sq is
/// ||w - w*||^2.
#[test]
fn release_records_its_calibration() {
    let q = quadratic(4.0, 41);
    let mut rng = Pcg64::seed_from_u64(42);
    let s = q.minimizer_sensitivity();
    assert!((s.tight - 0.002).abs() < 1e-15 && (s.paper - 0.016).abs() < 1e-15);
    for sensitivity in CHOICES {
        let mech = ConceptualOutputPerturbation { sensitivity };
        let expect_delta = match sensitivity {
            SensitivityChoice::Tight => s.tight,
            SensitivityChoice::Paper => s.paper,
        };
        for privacy in [PrivacyParams::pure(0.5), PrivacyParams::approx(2.0, 1e-6)] {
            let rel = mech.run(&q, privacy, &mut rng).unwrap();
            assert_eq!(rel.sensitivity, expect_delta);
            let scale = if privacy.is_pure() {
                expect_delta / privacy.eps
            } else {
                zwb_gaussian_sigma(privacy.eps, privacy.delta, expect_delta).unwrap()
            };
            assert!((rel.noise_scale - scale).abs() <= 1e-15 * scale);
            assert_eq!(rel.w.len(), 5);
            let dist_sq: f64 = rel
                .w
                .iter()
                .zip(q.minimizer())
                .map(|(a, b)| (a - b).powi(2))
                .sum();
            assert!((dist_sq - rel.noise_norm_sq).abs() <= 1e-9 * rel.noise_norm_sq);
            assert!(rel.noise_norm_sq > 0.0);
        }
    }
}

/// A stand-in objective to exercise the failure paths.
struct Stub {
    minimizer: Vec<f64>,
    sensitivity: f64,
}

impl Objective for Stub {
    fn dim(&self) -> usize {
        self.minimizer.len()
    }
    fn num_records(&self) -> usize {
        10
    }
    fn value(&self, _w: &[f64]) -> f64 {
        0.0
    }
    fn gradient(&self, _w: &[f64], out: &mut [f64]) {
        out.fill(0.0);
    }
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: 1.0,
            smoothness: 1.0,
            strong_convexity: 1.0,
            radius: 1.0,
        }
    }
    fn minimizer(&self) -> &[f64] {
        &self.minimizer
    }
    fn excess_risk(&self, _w: &[f64]) -> f64 {
        0.0
    }
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: self.sensitivity,
            paper: self.sensitivity,
        }
    }
}

/// Invalid privacy parameters or sensitivities are `InvalidParameters`, a
/// non-finite release is `NonFinite`, non-quadratics have no exact
/// expectation, and the bound is NaN outside its domain.
#[test]
fn failures_are_reported() {
    let mut rng = Pcg64::seed_from_u64(51);
    let mech = ConceptualOutputPerturbation {
        sensitivity: SensitivityChoice::Tight,
    };
    let q = quadratic(1.0, 52);
    let bad = [
        PrivacyParams::pure(0.0),
        PrivacyParams::pure(f64::NAN),
        PrivacyParams::approx(1.0, 0.5),
        PrivacyParams::approx(1.0, -1e-5),
        PrivacyParams::approx(-1.0, 1e-5),
    ];
    for privacy in bad {
        assert!(
            matches!(
                mech.run(&q, privacy, &mut rng),
                Err(RunFailure::InvalidParameters(_))
            ),
            "{privacy:?}"
        );
        assert_eq!(mech.theorem_bound(&q.constants(), 1000, 5, privacy), None);
        assert!(mech.exact_expected_excess(&q, privacy).is_none());
    }
    let inf_sens = Stub {
        minimizer: vec![0.0; 3],
        sensitivity: f64::INFINITY,
    };
    assert!(matches!(
        mech.run(&inf_sens, PrivacyParams::pure(1.0), &mut rng),
        Err(RunFailure::InvalidParameters(_))
    ));
    let nan_min = Stub {
        minimizer: vec![0.0, f64::NAN],
        sensitivity: 0.1,
    };
    assert!(matches!(
        mech.run(&nan_min, PrivacyParams::approx(1.0, 1e-5), &mut rng),
        Err(RunFailure::NonFinite(_))
    ));
    assert!(mech
        .exact_expected_excess(&nan_min, PrivacyParams::pure(1.0))
        .is_none());
}

/// Issue 27: the certified (inexact-centre) release widens the sensitivity by
/// `2 gtol / mu` from the public target, draws the same noise as the
/// conceptual mechanism at that sensitivity, and refuses a centre whose
/// certificate misses the target.
#[test]
fn certified_release_widens_by_the_target_and_refuses_a_missed_certificate() {
    use datagen::logistic::{Logistic, LogisticParams};
    use datagen::newton::NewtonOptions;
    use solvers::CertifiedOutputPerturbation;

    let params = LogisticParams::new(3000, 40, 0.05);
    let exact = Logistic::generate(params, &mut Pcg64::seed_from_u64(5)).unwrap();
    let loose = NewtonOptions {
        tol: 1e-6,
        floor_tol: 1e-6,
        max_iter: 1000,
    };
    let centre = Logistic::from_data_certified_to(exact.data().clone(), 0.05, &loose).unwrap();
    let cert = centre.certified_gradient_norm();
    assert!(cert <= 1e-6 && cert > 0.0, "{cert}");
    let mechanism = CertifiedOutputPerturbation {
        sensitivity: SensitivityChoice::Tight,
        gradient_target: 1e-6,
    };
    let privacy = PrivacyParams::pure(1.0);
    let release = mechanism
        .run(&centre, cert, privacy, &mut Pcg64::seed_from_u64(9))
        .unwrap();
    let delta = 2.0 / (0.05 * 3000.0);
    assert_eq!(release.sensitivity, delta + 2.0 * 1e-6 / 0.05);
    // The widening is the target's, whatever the achieved norm.
    let tighter = mechanism
        .run(&centre, cert / 10.0, privacy, &mut Pcg64::seed_from_u64(9))
        .unwrap();
    assert_eq!(tighter.sensitivity, release.sensitivity);
    assert_eq!(tighter.w, release.w);
    // Same draws as the conceptual mechanism at the widened sensitivity.
    let scale = ConceptualOutputPerturbation::noise_scale(release.sensitivity, privacy).unwrap();
    assert_eq!(release.noise_scale, scale);
    // The centre is within cert / mu of the exact minimizer.
    let gap = datagen::newton::dist(centre.minimizer(), exact.minimizer());
    assert!(gap <= (cert + exact.certified_gradient_norm()) / 0.05);
    // A certificate above the target is refused, not released.
    let err = mechanism
        .run(&centre, 2e-6, privacy, &mut Pcg64::seed_from_u64(9))
        .unwrap_err();
    assert!(matches!(err, RunFailure::NonConvergence(_)), "{err}");
    let bad = CertifiedOutputPerturbation {
        gradient_target: 0.0,
        ..mechanism
    };
    assert!(matches!(
        bad.run(&centre, 0.0, privacy, &mut Pcg64::seed_from_u64(9)),
        Err(RunFailure::InvalidParameters(_))
    ));
}
