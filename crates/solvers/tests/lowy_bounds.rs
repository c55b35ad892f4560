//! Tests of the Lowy–Razaviyayn bound functions: values against an
//! independent hand computation (the literals below were
//! computed from the digest's formulas in double precision), NaN on invalid
//! privacy, monotonicity in `n` and `eps`, internal consistency of generic and
//! prescribed forms, and the errata P7 and P8.

use datagen::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{PrivacyParams, ProblemConstants};
use mechanisms::calibration::zwb_gaussian_sigma;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::lowy_razaviyayn::bounds::{self, erm, sco, term};
use solvers::{ConceptualOutputPerturbation, SensitivityChoice};

const N_: usize = 100;
const D_: usize = 4;

/// `L = 2, beta = 3, mu = 0.5, R = 1.5` (`kappa = 6`).
fn constants() -> ProblemConstants {
    ProblemConstants {
        lipschitz: 2.0,
        smoothness: 3.0,
        strong_convexity: 0.5,
        radius: 1.5,
    }
}

const PURE: PrivacyParams = PrivacyParams {
    eps: 2.0,
    delta: 0.0,
};
const APPROX: PrivacyParams = PrivacyParams {
    eps: 1.0,
    delta: 1e-5,
};

/// `(call, expected pure, expected approximate, value)` rows, each written
/// `call => pure, approximate;` and named by its call.
macro_rules! rows {
    ($($value:expr => $pure:expr, $approx:expr;)*) => {
        vec![$((stringify!($value), $pure, $approx, $value)),*]
    };
}

/// `(call, expected pure, expected approximate, value at p)` at `n = 100`,
/// `d = 4`, `Delta = 0.1`, `lambda = 0.7`, `alpha = 1e-3`, `ln C_tau = 1.5`,
/// `kappa_tau = 5`.
fn table(p: PrivacyParams) -> Vec<(&'static str, f64, f64, f64)> {
    let c = constants();
    rows! {
        erm::prop_2_3(&c, D_, p, 0.1) => 0.4, 1.8435432332162913;
        erm::cor_2_1(&c, N_, D_, p) => 0.32, 1.4748345865730335;
        erm::prop_2_4(&c, D_, p, 0.1) => 0.07500000000000001, 1.2744943697765918;
        erm::prop_2_4_printed(&c, D_, p, 0.1) => 0.07500000000000001, 0.31862359244414795;
        erm::prop_2_4_at_paper_sensitivity(&c, N_, D_, p) => 0.048, 0.8156763966570186;
        erm::cor_2_2(&c, N_, D_, p) => 0.0768, 3.2627055866280754;
        erm::cor_2_2_printed(&c, N_, D_, p) => 0.0768, 1.343320879640285;
        erm::remark_2_3(&c, N_, D_, p) => 0.0768, 1.4748345865730335;
        erm::prop_2_7(&c, N_, D_, p) => 3.6062445840513924, 9.206813479874471;
        erm::prop_2_7_skeleton(&c, N_, D_, p, 0.7) => 1.3190714285714282, 4.252234521671343;
        erm::prop_2_8(&c, N_, D_, p) => 14.04787054601191, 49.01729997833506;
        erm::prop_2_8_skeleton(&c, N_, D_, p, 0.7) => 0.899889387755102, 5.562154730550526;
        erm::thm_3_1(&c, N_, D_, p, 1e-3) => 1.169090092759323, 5.384561465733602;
        erm::thm_3_1_prescribed(&c, N_, D_, p) => 1.44, 6.257193223765501;
        erm::thm_3_2(&c, N_, D_, p, 1e-3) => 0.5126629243009316, 10.869525270749396;
        erm::thm_3_2_prescribed(&c, N_, D_, p) => 0.49920000000000003, 11.011631354869753;
        erm::thm_c_1(&c, N_, D_, p, 1e-3) => 20.982520158917733, 15.17485764269133;
        erm::thm_c_1_prescribed(&c, N_, D_, p) => 20.788939366884495, 27.078863176101386;
        erm::thm_c_2(&c, N_, D_, p, 1e-3) => 16.300322678566356, 131.99694418481457;
        erm::thm_c_2_prescribed(&c, N_, D_, p) => 18.827042999809777, 128.35457932471243;
        sco::prop_4_1(&c, N_, D_, p) => 0.48, 2.2457310745885004;
        sco::cor_4_1(&c, N_, D_, p) => 1.8399999999999999, 6.657193223765502;
        sco::prop_4_2(&c, N_, D_, p) => 0.2368, 3.4227055866280756;
        sco::cor_4_2(&c, N_, D_, p) => 0.8992, 11.411631354869753;
        sco::prop_d_1(&c, N_, D_, p) => 54.03153672641493, 20.72993601383705;
        sco::cor_d_1(&c, N_, D_, p) => 23.176450198781712, 44.260944865409776;
        sco::prop_d_2(&c, N_, D_, p) => 28.364908977124855, 47.78286039463865;
        sco::cor_d_2(&c, N_, D_, p) => 87.39302713766698, 179.68348007245797;
        term::term_conceptual(&c, N_, D_, p, 1.5) => 1.4341405025081806, 6.609750047200922;
        term::term_conceptual_smooth_printed(&c, N_, D_, p, 1.5, 5.0)
            => 0.28682810050163615, 12.185359972768321;
        term::term_conceptual_smooth(&c, N_, D_, p, 1.5, 5.0)
            => 1.2854743630840104, 54.61099460809072;
        term::thm_5_1(&c, N_, D_, p, 1.5) => 6.453632261286813, 42.06419172291486;
        term::thm_5_2_printed(&c, N_, D_, p, 1.5, 5.0) => 1.864382653260635, 41.12558990809309;
        term::thm_5_2(&c, N_, D_, p, 1.5, 5.0) => 8.355583360046069, 184.3121068023062;
        term::term_strong_convexity_lower_bound(&c, N_, D_, p, 1.5)
            => 0.1606842953855013, 2.7305497304045363;
        term::prop_5_1(&c, N_, D_, p) => 0.0768, 3.2627055866280754;
        term::thm_5_3(&c, N_, D_, p, 1e-3) => 0.5126629243009316, 10.869525270749396;
        term::thm_5_3_printed(&c, N_, D_, p, 1e-3) => 0.34553002067198385, 7.319359526090936;
        term::thm_5_3_prescribed(&c, N_, D_, p) => 0.49920000000000003, 11.011631354869753;
        term::prop_5_3(&c, N_, D_, p) => 0.2368, 3.4227055866280756;
        term::cor_5_2(&c, N_, D_, p) => 0.8992, 11.411631354869753;
        term::cor_5_2_printed(&c, N_, D_, p) => 0.8992, 88.49305083895803;
    }
}

/// A bound without extra arguments.
type BoundFn = fn(&ProblemConstants, usize, usize, PrivacyParams) -> f64;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

#[test]
fn values_match_hand_computation() {
    for (p, pure) in [(PURE, true), (APPROX, false)] {
        for (name, e_pure, e_approx, v) in table(p) {
            let e = if pure { e_pure } else { e_approx };
            assert!(close(v, e, 1e-12), "{name} at {p:?}: {v} != {e}");
        }
    }
    let c = constants();
    assert!(close(
        term::term_conceptual_smooth_unbounded(&c, D_, PURE, 5.0),
        640.0,
        1e-12
    ));
    assert!(close(
        term::term_conceptual_smooth_unbounded(&c, D_, APPROX, 5.0),
        27189.213221900623,
        1e-12
    ));
    assert!(close(sco::non_private_strongly_convex(&c, N_), 0.08, 1e-12));
    assert!(close(sco::non_private_convex(&c, N_), 0.3, 1e-12));
    // Runtimes: ceil(2*4/(0.5e-3)); 5 max{100, sqrt(600)} ln(3/1e-3); 1 + ceil(sqrt6 ln(3.5*2.25/2e-3)).
    assert_eq!(bounds::sgd_gradient_evaluations(&c, 1e-3), 16000.0);
    assert!(close(
        bounds::katyusha_gradient_evaluations(&c, N_, 1e-3),
        4003.183783825123,
        1e-12
    ));
    assert_eq!(bounds::agd_iterations(&c, 1e-3), 22.0);
    assert_eq!(bounds::cap_lr(&c, 10.0), 3.0);
    // Digest §2.2 table: sigma/Delta = 4.609 at delta = 1e-5, eps = 1 (s at d = 1 is sqrt2 sigma/Delta).
    assert!((bounds::s_factor(1, APPROX) / 2f64.sqrt() - 4.609).abs() < 1e-3);
}

#[test]
fn invalid_privacy_gives_nan() {
    let bad = [
        PrivacyParams::pure(0.0),
        PrivacyParams::pure(f64::NAN),
        PrivacyParams::approx(1.0, 0.5),
        PrivacyParams::approx(1.0, -1e-3),
    ];
    for p in bad {
        for (name, _, _, v) in table(p) {
            assert!(v.is_nan(), "{name} at {p:?} gave {v}");
        }
    }
}

#[test]
fn decreasing_in_n_and_eps() {
    let c = constants();
    // Every bound without a fixed-alpha term is decreasing in n and eps.
    let fs: Vec<(&str, BoundFn)> = vec![
        ("cor_2_1", erm::cor_2_1),
        ("cor_2_2", erm::cor_2_2),
        ("remark_2_3", erm::remark_2_3),
        ("prop_2_7", erm::prop_2_7),
        ("prop_2_8", erm::prop_2_8),
        ("thm_3_1_prescribed", erm::thm_3_1_prescribed),
        ("thm_3_2_prescribed", erm::thm_3_2_prescribed),
        ("thm_c_1_prescribed", erm::thm_c_1_prescribed),
        ("thm_c_2_prescribed", erm::thm_c_2_prescribed),
        ("prop_4_1", sco::prop_4_1),
        ("cor_4_1", sco::cor_4_1),
        ("prop_4_2", sco::prop_4_2),
        ("cor_4_2", sco::cor_4_2),
        ("prop_d_1", sco::prop_d_1),
        ("cor_d_1", sco::cor_d_1),
        ("prop_d_2", sco::prop_d_2),
        ("cor_d_2", sco::cor_d_2),
        ("prop_5_1", term::prop_5_1),
        ("prop_5_3", term::prop_5_3),
        ("cor_5_2", term::cor_5_2),
    ];
    let ns = [50, 100, 400, 2000, 100_000];
    let epss = [0.05, 0.2, 1.0, 3.0, 10.0];
    for delta in [0.0, 1e-6] {
        for (name, f) in &fs {
            for w in ns.windows(2) {
                let p = PrivacyParams { eps: 1.0, delta };
                assert!(
                    f(&c, w[1], 8, p) < f(&c, w[0], 8, p),
                    "{name} not decreasing in n"
                );
            }
            for w in epss.windows(2) {
                let (a, b) = (
                    PrivacyParams { eps: w[0], delta },
                    PrivacyParams { eps: w[1], delta },
                );
                assert!(
                    f(&c, 1000, 8, b) < f(&c, 1000, 8, a),
                    "{name} not decreasing in eps"
                );
            }
        }
    }
}

#[test]
fn generic_forms_at_prescribed_alpha_are_below_prescribed_constants() {
    let c = constants();
    let (l, mu, r, beta) = (c.lipschitz, c.strong_convexity, c.radius, c.smoothness);
    let kappa = c.condition_number();
    for n in [200, 1000, 50_000] {
        for p in [
            PURE,
            APPROX,
            PrivacyParams::pure(0.3),
            PrivacyParams::approx(4.0, 1e-8),
        ] {
            let s = bounds::s_factor(D_, p);
            let rho = s / n as f64;
            let nf = n as f64;
            let a31 = l * l / (mu * nf) * (1.0 / nf).min(s);
            assert!(erm::thm_3_1(&c, n, D_, p, a31) <= erm::thm_3_1_prescribed(&c, n, D_, p));
            let a32 = l * l / (mu * nf * nf) * (kappa * s * s).min(1.0);
            assert!(erm::thm_3_2(&c, n, D_, p, a32) <= erm::thm_3_2_prescribed(&c, n, D_, p));
            assert!(term::thm_5_3(&c, n, D_, p, a32) <= term::thm_5_3_prescribed(&c, n, D_, p));
            let ac1 = if p.is_pure() {
                l * r * rho.powf(1.5) / (1.0 + D_ as f64 / p.eps).powi(2)
            } else {
                l * r * rho.powf(1.5)
            };
            assert!(erm::thm_c_1(&c, n, D_, p, ac1) <= erm::thm_c_1_prescribed(&c, n, D_, p));
            let bscale = beta.cbrt() * l.powf(2.0 / 3.0) * r.powf(4.0 / 3.0);
            let first = if p.is_pure() {
                l.powf(4.0 / 3.0) * r.powf(2.0 / 3.0) / beta.cbrt()
                    * (1.0 / s).powf(2.0 / 3.0)
                    * nf.powf(-4.0 / 3.0)
            } else {
                l.powf(4.0 / 3.0) * r.powf(2.0 / 3.0) / beta.cbrt() * rho.powf(-2.0 / 3.0)
                    / (nf * nf)
            };
            let ac2 = first.min(bscale * rho.powf(2.0 / 3.0));
            let (g, b) = (
                erm::thm_c_2(&c, n, D_, p, ac2),
                erm::thm_c_2_prescribed(&c, n, D_, p),
            );
            assert!(g <= b, "Thm C.2 at n = {n}, {p:?}: {g} > {b}");
        }
    }
}

#[test]
fn prop_2_7_skeleton_is_8_6_lr_at_rho_one() {
    // rho_0 = d/(eps n) = 1, lambda = L/(R sqrt(1 + n/s)) = L/(R sqrt 2): LR (1/(2 sqrt2) + 2 sqrt2 (1 + 1/sqrt2)^2).
    let c = constants();
    let p = PrivacyParams::pure(1.0);
    let lambda = c.lipschitz / (c.radius * 2f64.sqrt());
    let v = erm::prop_2_7_skeleton(&c, 4, 4, p, lambda) / (c.lipschitz * c.radius);
    let exact = 0.5 / 2f64.sqrt() + 2.0 * 2f64.sqrt() * (1.0 + 1.0 / 2f64.sqrt()).powi(2);
    assert!(close(v, exact, 1e-12) && (v - 8.596).abs() < 1e-3, "{v}");
    assert!(erm::prop_2_7(&c, 4, 4, p) < v * c.lipschitz * c.radius);
}

#[test]
fn p8_corrected_prop_2_4_is_beta_d_sigma_sq_over_2() {
    let c = constants();
    for (eps, delta, d, sens) in [
        (1.0, 1e-5, 4, 0.1),
        (0.3, 1e-8, 17, 0.02),
        (6.0, 0.1, 1, 3.0),
    ] {
        let sigma = zwb_gaussian_sigma(eps, delta, sens).unwrap();
        let p = PrivacyParams::approx(eps, delta);
        let exact = c.smoothness * d as f64 * sigma * sigma / 2.0;
        assert!(close(erm::prop_2_4(&c, d, p, sens), exact, 1e-13));
        assert!(close(
            erm::prop_2_4_printed(&c, d, p, sens) * d as f64,
            exact,
            1e-13
        ));
    }
    // Equality case: H = beta I quadratic, exact expected excess of the conceptual mechanism.
    let params = DiagonalQuadraticParams {
        n: 500,
        d: 6,
        beta: 2.0,
        kappa: 1.0,
    };
    let q = DiagonalQuadratic::generate(params, &mut Pcg64::seed_from_u64(3));
    let mech = ConceptualOutputPerturbation {
        sensitivity: SensitivityChoice::Tight,
    };
    for p in [PURE, APPROX] {
        let exact = mech.exact_expected_excess(&q, p).unwrap();
        let qc = dpcore::Objective::constants(&q);
        assert!(close(erm::prop_2_4(&qc, 6, p, 2.0 / 500.0), exact, 1e-12));
        // Cor 2.2 agrees with the existing theorem_bound.
        assert!(close(
            erm::cor_2_2(&qc, 500, 6, p),
            mech.theorem_bound(&qc, 500, 6, p).unwrap(),
            1e-13
        ));
    }
}

#[test]
fn p7_strong_convexity_lower_bound_beats_printed_term_bounds() {
    // Digest §8 E6: f = mu/2 ||w - x||^2, mu = 1, L = 2, beta = 1, R = 1; ln C_tau = tau (A_R - a_R) = 2 mu tau.
    let c = ProblemConstants {
        lipschitz: 2.0,
        smoothness: 1.0,
        strong_convexity: 1.0,
        radius: 1.0,
    };
    let (n, d) = (100_000, 5);
    for p in [PrivacyParams::pure(1.0), PrivacyParams::approx(1.0, 1e-6)] {
        // mu tau = 2: C_tau = e^4 = 54.6 > 2 kappa_tau d/(d+1) = 15 (kappa_tau = 1 + 4 mu tau = 9).
        let kt = term::kappa_tau(&c, 2.0, term::TermSmoothness::Statement);
        assert!(close(kt, 9.0, 1e-15));
        let lb = term::term_strong_convexity_lower_bound(&c, n, d, p, 4.0);
        assert!(
            lb > term::term_conceptual_smooth_printed(&c, n, d, p, 4.0, kt),
            "{p:?}"
        );
        assert!(lb < term::term_conceptual_smooth(&c, n, d, p, 4.0, kt));
        assert!(lb < term::thm_5_2(&c, n, d, p, 4.0, kt));
        // The printed Thm 5.2 (constant 26 / 13.5) is overtaken from mu tau = 3 on (C_tau = e^6).
        let kt3 = term::kappa_tau(&c, 3.0, term::TermSmoothness::Statement);
        let lb3 = term::term_strong_convexity_lower_bound(&c, n, d, p, 6.0);
        assert!(lb3 > term::thm_5_2_printed(&c, n, d, p, 6.0, kt3), "{p:?}");
        assert!(lb3 < term::thm_5_2(&c, n, d, p, 6.0, kt3));
    }
    // Huge ln C_tau does not overflow: C is capped at n (Lemma 5.2).
    let v = term::thm_5_2(&c, n, d, PURE, 1e6, 9.0);
    assert!(
        v.is_finite()
            && close(
                v,
                term::thm_5_2(&c, n, d, PURE, (n as f64).ln(), 9.0),
                1e-12
            )
    );
}
