//! Formulas of objective perturbation (Bassily et al. §5) against the digest
//! (§2.3, §2.4, §3, P13): `lambda`, the corrected and printed Theorem 5.3
//! bounds, Lemma 5.4 and the derived terms, `B_ObjP-App`, and the noise of
//! the two Algorithm 3 variants. All checks are deterministic.

use solvers::bassily::objp::{ObjPAppVariant, ObjPSetting};

fn setting(n: f64, d: f64, eps: f64, delta: f64) -> ObjPSetting {
    ObjPSetting {
        n,
        d,
        eps,
        delta,
        lipschitz: 2.0,
        radius: 3.0,
    }
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

/// A grid of settings in both regimes (statistical: `d Lambda << eps^2 n`;
/// privacy: the reverse), all with `delta <= 1/n^2`.
fn grid() -> Vec<ObjPSetting> {
    let mut out = Vec::new();
    for &n in &[100.0, 1e3, 1e4, 1e5] {
        for &d in &[1.0, 16.0, 1024.0] {
            for &eps in &[0.05, 0.25, 1.0] {
                for &delta in &[1e-12, 1.0 / (n * n)] {
                    out.push(setting(n, d, eps, delta));
                }
            }
        }
    }
    out
}

/// Values computed independently (Python, double precision) for n = 1000,
/// d = 10, eps = 0.5, delta = 1e-8, L = 2, M = 3.
#[test]
fn lambda_sigma_and_theorem_5_3_match_hand_computation() {
    let s = ObjPSetting {
        n: 1000.0,
        d: 10.0,
        eps: 0.5,
        delta: 1e-8,
        lipschitz: 2.0,
        radius: 3.0,
    };
    assert!(rel(s.log_inv_delta(), 18.420680743952367) < 1e-15);
    assert!(rel(s.rate_term(), 0.004947308919032379) < 1e-14);
    assert!(rel(s.lambda(), 0.09378281215690623) < 1e-14);
    assert!(rel(s.theorem_5_3(), 1.6880906188243123) < 1e-14);
    assert!(rel(s.theorem_5_3_printed(), 0.5 * 1.6880906188243123) < 1e-14);
    assert!(rel(s.sigma_g_objp(), 54.2891233953209) < 1e-14);
    assert_eq!(s.trivial_bound(), 12.0);
    assert!(rel(s.theorem_5_7_alpha(s.lambda()), 9.0 * s.lambda() / 1e6) < 1e-15);
}

/// P13: the proof's bound `4 L^2 s/lambda + lambda M^2` is minimized at
/// Theorem 5.3's `lambda` with value `4 M L sqrt(s)` (twice the printed one).
#[test]
fn theorem_5_3_lambda_minimizes_the_proof_bound_with_value_4mlsqrt() {
    for s in grid() {
        let lam = s.lambda();
        let at = s.proof_bound(lam);
        assert!(
            rel(at, s.theorem_5_3()) < 1e-13,
            "{s:?}: {at} vs {}",
            s.theorem_5_3()
        );
        assert!(rel(at, 2.0 * s.theorem_5_3_printed()) < 1e-13);
        for f in [0.9, 0.99, 0.999, 1.001, 1.01, 1.1] {
            assert!(
                s.proof_bound(f * lam) > at,
                "{s:?}: lambda * {f} is not worse"
            );
        }
    }
}

/// Lemma 5.4 and the derived terms at Algorithm 2's noise: the derived
/// empirical bound is `2.5 L^2 d Lambda/(lambda eps^2 n^2) + lambda M^2 <=`
/// Lemma 5.4, the averaged stability is `2 L^2 (1 + sqrt(10 d Lambda)/(eps
/// n))^2/(lambda n)`, and their sum never exceeds the proof's bound where the
/// proof's assumption `sqrt(10 d Lambda)/(eps n) <= 1` holds.
#[test]
fn empirical_and_stability_terms_match_the_digest() {
    for s in grid() {
        let (lam, sg) = (s.lambda(), s.sigma_g_objp());
        let big_l = s.log_inv_delta();
        let (l, m, n, d, eps) = (s.lipschitz, s.radius, s.n, s.d, s.eps);
        let derived = 2.5 * l * l * d * big_l / (lam * eps * eps * n * n) + lam * m * m;
        assert!(rel(s.empirical_bound(lam, sg), derived) < 1e-13);
        let lemma = 16.0 * l * l * d * big_l / (n * n * eps * eps * lam) + lam * m * m;
        assert!(rel(s.lemma_5_4(lam), lemma) < 1e-13);
        assert!(s.empirical_bound(lam, sg) <= s.lemma_5_4(lam));
        let ratio = (10.0 * d * big_l).sqrt() / (eps * n);
        let stab = 2.0 * l * l * (1.0 + ratio).powi(2) / (lam * n);
        assert!(rel(s.stability_bound(lam, sg), stab) < 1e-13);
        if ratio <= 1.0 {
            assert!(s.stability_bound(lam, sg) <= 8.0 * l * l / (lam * n) * (1.0 + 1e-14));
            assert!(s.objp_bound(lam, sg) <= s.theorem_5_3() * (1.0 + 1e-14));
        }
    }
}

/// Digest §2.4: with the printed constants and `alpha = M^2 lambda/n^2`,
/// `B_ObjP-App = B_ObjP[sigma_G^2] + L M (sqrt(2)/n + sqrt(40 d Lambda)/(eps n))`.
#[test]
fn objp_app_bound_with_printed_constants_is_the_digest_curve() {
    for s in grid() {
        let lam = s.lambda();
        let v = ObjPAppVariant::Paper;
        let (sg, alpha) = (v.sigma_g(&s), s.theorem_5_7_alpha(lam));
        let sh = v.sigma_h(&s, lam, alpha).unwrap();
        let extra = s.lipschitz
            * s.radius
            * (2f64.sqrt() / s.n + (40.0 * s.d * s.log_inv_delta()).sqrt() / (s.eps * s.n));
        let digest = s.objp_bound(lam, sg) + extra;
        assert!(
            rel(s.objp_app_bound(lam, sg, alpha, sh), digest) < 1e-13,
            "{s:?}"
        );
        assert!(rel(sg * sg, 20.0 * 4.0 * s.log_inv_delta() / (s.eps * s.eps)) < 1e-13);
    }
}

/// The safe variant is never less noisy and never more permissive than the
/// paper's, and meets the derivation of its module doc: `sigma_G^2 = 40 L^2
/// ln(2/delta)/eps^2`, `sigma_H^2 >= 32 alpha ln(2.5/delta)/(lambda eps^2)`
/// and `>= 40 alpha Lambda/(lambda eps^2)`, limit `eps n lambda/2`.
#[test]
fn safe_variant_noise_dominates_paper_variant() {
    let mut settings = grid();
    // Lambda < 3.7: the Gaussian-mechanism term of sigma_H is the active one.
    settings.push(setting(4.0, 3.0, 1.0, 0.05));
    let mut classical_active = false;
    for s in settings {
        let lam = s.lambda();
        let alpha = s.theorem_5_7_alpha(lam);
        let (safe, paper) = (ObjPAppVariant::Safe, ObjPAppVariant::Paper);
        assert!(safe.sigma_g(&s) > paper.sigma_g(&s));
        let sg2 = 40.0 * 4.0 * (2.0 / s.delta).ln() / (s.eps * s.eps);
        assert!(rel(safe.sigma_g(&s).powi(2), sg2) < 1e-13);
        let (sh_safe, sh_paper) = (
            safe.sigma_h(&s, lam, alpha).unwrap(),
            paper.sigma_h(&s, lam, alpha).unwrap(),
        );
        assert!(sh_safe >= sh_paper);
        let gauss = 32.0 * alpha * (2.5 / s.delta).ln() / (lam * s.eps * s.eps);
        let printed = 40.0 * alpha * s.log_inv_delta() / (lam * s.eps * s.eps);
        assert!(rel(sh_safe * sh_safe, gauss.max(printed)) < 1e-12, "{s:?}");
        assert!(rel(sh_paper * sh_paper, printed) < 1e-13);
        classical_active |= gauss > printed * (1.0 + 1e-6);
        let full = s.eps * s.n * lam;
        assert!(rel(safe.smoothness_limit(&s, lam), full / 2.0) < 1e-15);
        assert!(rel(paper.smoothness_limit(&s, lam), full) < 1e-15);
    }
    assert!(
        classical_active,
        "the max in the safe sigma_H was never exercised"
    );
}
