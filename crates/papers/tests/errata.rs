//! The printed-vs-corrected calibration table (`papers::errata`, printed by
//! `runner errata`) reproduces the digests' numbers and its verdicts agree with
//! the numbers. That the binary prints it is tested in the runner's
//! `tests/errata.rs`.

use mechanisms::calibration::exact_gaussian_delta;
use mechanisms::pld::poisson_gaussian_epsilon;
use mechanisms::rdp::RdpAccountant;
use mechanisms::relation::Neighbouring::{self, ReplaceOne};
use papers::errata::{errata, render_markdown, Accounting, Erratum, Privacy, Verdict};

fn row(id: &str) -> Erratum {
    errata()
        .into_iter()
        .find(|e| e.id == id)
        .unwrap_or_else(|| panic!("no erratum {id}"))
}

fn rel_err(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs()
}

#[test]
fn lowy_alg7_reproduces_the_digest_delta() {
    let e = row("LR-P2");
    assert_eq!(
        e.target,
        Privacy::Delta {
            eps: 1.0,
            delta: 1e-5
        }
    );
    let Privacy::Delta { eps, delta } = e.realised else {
        panic!("LR-P2 realised privacy is not a delta: {:?}", e.realised);
    };
    assert_eq!(eps, 1.0);
    // Digest §9 P2: "δ=1e-5, ε=1 gives a true δ of 7.4e-5".
    assert!(rel_err(delta, 7.4e-5) < 0.02, "realised delta {delta}");
    // The printed sigma is the corrected one over sqrt 2 (digest: "σ is √2 too small").
    let ratio = e.corrected.value / e.printed.value;
    assert!((ratio - std::f64::consts::SQRT_2).abs() < 1e-12, "{ratio}");
    // Eq. (5) reference value sigma/Delta = 4.609 at eps = 1, delta = 1e-5 (digest §2.2 table).
    assert!(rel_err(e.corrected.value, 4.609) < 1e-3);
    assert_eq!(e.verdict, Verdict::NotPrivate);
}

#[test]
fn violations_are_real_and_corrections_meet_their_targets() {
    let rows = errata();
    assert!(rows.len() >= 15, "only {} rows", rows.len());
    for e in &rows {
        let violated = matches!(e.verdict, Verdict::NotPrivate | Verdict::NotCertified);
        assert_eq!(
            violated,
            e.realised.exceeds(&e.target),
            "{}: verdict {:?} but realised {} vs target {}",
            e.id,
            e.verdict,
            e.realised,
            e.target
        );
        if violated {
            // Worse than the target by a margin, not by rounding.
            assert!(
                e.realised.value() > 1.01 * e.target.value(),
                "{}: {} vs {}",
                e.id,
                e.realised,
                e.target
            );
        }
        assert!(
            !e.realised_corrected.exceeds(&e.target),
            "{}: corrected calibration gives {} but the target is {}",
            e.id,
            e.realised_corrected,
            e.target
        );
        assert_eq!(
            e.verdict == Verdict::NotPrivate,
            violated && e.accounting.is_exact(),
            "{}: exact accounting decides not-private vs not-certified",
            e.id
        );
        assert_eq!(e.printed.symbol, e.corrected.symbol, "{}", e.id);
        assert!(e.printed.value.is_finite() && e.corrected.value.is_finite());
        assert!(!e.note.is_empty(), "{} has no note", e.id);
    }
}

#[test]
fn gaussian_rows_recheck_with_the_exact_profile() {
    let rows = errata();
    let audited: Vec<_> = rows
        .iter()
        .filter_map(|e| e.gaussian.map(|g| (e, g)))
        .collect();
    assert!(audited.len() >= 4, "only {} audited rows", audited.len());
    for (e, g) in audited {
        let printed = exact_gaussian_delta(g.eps, g.printed.0, g.printed.1);
        let corrected = exact_gaussian_delta(g.eps, g.corrected.0, g.corrected.1);
        assert!(
            corrected <= g.target_delta,
            "{}: corrected delta {corrected} > {}",
            e.id,
            g.target_delta
        );
        let not_private = matches!(e.verdict, Verdict::NotPrivate | Verdict::NotCertified);
        assert_eq!(
            not_private,
            printed > g.target_delta,
            "{}: printed delta {printed} vs {}",
            e.id,
            g.target_delta
        );
        // The table's realised privacy is this profile.
        if let Privacy::Delta { eps, delta } = e.realised {
            assert_eq!(eps, g.eps);
            assert!(
                rel_err(delta, printed) < 1e-12 || delta == printed,
                "{}",
                e.id
            );
        }
    }
}

#[test]
fn lowy_alg6_inflation_is_far_from_private() {
    let e = row("LR-P3");
    assert_eq!(e.verdict, Verdict::NotPrivate);
    // The sqrt(2 alpha/mu) term dominates 2 alpha/mu, so the noise is ~2.4x too small.
    assert!(e.corrected.value / e.printed.value > 2.0);
    assert!(e.realised.value() > 100.0 * e.target.value());
}

#[test]
fn bassily_accountant_matches_the_digest_table() {
    // Digest §7 P4, row n = 1e4, d = 10, eps = 1: z = 6.10. The digest's table
    // (integer orders, classical conversion, 2L) gives eps = 1.07, and this row
    // used to report 1.073 and "not certified"; the harness's RDP accountant
    // (fractional orders, CKS conversion) gives 0.934 (2L) and 0.903 (group
    // privacy), and its PLD accountant with the replace-one substitution pair
    // gives the digest's 0.833, which the row now takes as the tightest.
    let e = row("BFTT-P4");
    assert!(
        rel_err(e.printed.value, 6.10) < 0.01,
        "z = {}",
        e.printed.value
    );
    let Privacy::Epsilon { eps, delta } = e.realised else {
        panic!("{:?}", e.realised);
    };
    assert_eq!(delta, 1e-8);
    assert!((eps - 0.833).abs() < 1e-3, "realised eps {eps}");
    assert_eq!(e.accounting, Accounting::Pld);
    assert!(!e.accounting.is_exact());
    // The corrected multiplier is the smallest meeting the target: it meets it
    // with equality, and is below the printed one (was 6.498 > 6.095 before
    // the RDP accountant, 5.540 with it).
    assert!(e.corrected.value < e.printed.value);
    assert!(e.corrected.value < 5.54, "{}", e.corrected.value);
    assert!(
        e.realised_corrected.value() <= 1.0 && rel_err(e.realised_corrected.value(), 1.0) < 1e-6,
        "{}",
        e.realised_corrected
    );
    // ProxGD at its clip norm L(1 + 1/n) (corrected digest: on W the
    // envelope's gradient norm is at most L, not 2L), by the same tightest
    // accountant: a hair above NSGD's eps, private; the corrected multiplier
    // is the one for that norm.
    let p = row("BFTT-P10");
    assert!(p.realised.value() > eps && p.realised.value() < eps * 1.001);
    assert!(p.realised.value() <= 1.0);
    assert_eq!(p.verdict, Verdict::PrivateButLoose);
    assert!(rel_err(p.corrected.value, e.corrected.value * (1.0 + 1e-4)) < 1e-3);
    assert!(!p.setting.contains("2L(1+1/n)") && !p.note.contains("calibrated to the clip norm 2L"));
}

#[test]
fn bassily_p4_is_certified_by_the_harness_accountant() {
    // Issue 24 item 5: the printed NSGD noise is certified under replace-one.
    let e = row("BFTT-P4");
    assert!(
        matches!(
            e.verdict,
            Verdict::PrivateBySlack | Verdict::PrivateButLoose
        ),
        "{:?}",
        e.verdict
    );
    let (n, delta) = (1e4, 1e-8);
    let (steps, batch) = (1250u64, 142.0);
    // The realised figure is the PLD accountant's, computed afresh: T
    // Poisson-subsampled Gaussian steps at q = m/n under replace-one, where the
    // batch sum moves by 2L (multiplier z/2).
    let pld = poisson_gaussian_epsilon(batch / n, e.printed.value / 2.0, steps, delta, ReplaceOne)
        .unwrap();
    assert_eq!(e.realised.value(), pld);
    // dp-accounting 0.6.0's pessimistic PLD at z = 6.0945 gives 0.832514
    // (crates/mechanisms/tests/fixtures/pld_reference.csv); the printed z is
    // 6.09454.
    assert!((pld - 0.832_514).abs() < 1e-4, "{pld}");
    // It is the tightest: the RDP accountant's group-privacy route (add/remove
    // eps1 at delta1 with (1 + e^eps1) delta1 = delta gives replace-one
    // 2 eps1) is looser.
    let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
    acc.compose_poisson_gaussian(batch / n, e.printed.value, steps)
        .unwrap();
    let (mut lo, mut hi) = (0.0f64, 10.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if (1.0 + mid.exp()) * acc.delta(mid).unwrap() <= delta {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let group = 2.0 * hi;
    assert!((group - 0.903).abs() < 1e-3, "{group}");
    assert!(e.realised.value() < group);
    assert!(e.accounting.label().contains("PLD"));
    assert!(
        e.note.contains("0.9029"),
        "the note names the RDP route's figure"
    );
}

#[test]
fn menart_alg1_is_in_the_digests_range() {
    let e = row("MUABG-A1");
    let ratio = e.realised.value() / e.target.value();
    // Digest §2.1: paper-literal noise under replace-one costs about 2.13 rho to 2.25 rho.
    assert!((2.125..=2.25).contains(&ratio), "{ratio}");
    assert!(e.realised_corrected.value() <= e.target.value() * (1.0 + 1e-9));
    // Alg 4 is conservative by exactly 2.
    let a4 = row("MUABG-A4");
    assert!(rel_err(a4.realised.value(), a4.target.value() / 2.0) < 1e-12);
    assert_eq!(a4.verdict, Verdict::PrivateButLoose);
    // Selection: 2 sqrt(rho)-DP instead of sqrt(rho), but 2 sqrt(rho)
    // bounded-range, hence rho/2-zCDP: the charge the paper intends.
    let t5 = row("MUABG-T5");
    assert_eq!(t5.accounting, Accounting::BoundedRange);
    assert!(rel_err(t5.realised.value(), t5.target.value()) < 1e-12);
    assert!(!t5.realised.exceeds(&t5.target));
    assert!(matches!(
        t5.verdict,
        Verdict::PrivateBySlack | Verdict::PrivateButLoose
    ));
}

#[test]
fn ggp_counts_and_constants() {
    // The missing factor sqrt 2 in Prop 4.1 is absorbed by the slack of the cap.
    let a1 = row("GGP-P4.1");
    assert_eq!(a1.verdict, Verdict::PrivateBySlack);
    assert!(
        rel_err(
            a1.printed.value / a1.corrected.value,
            std::f64::consts::SQRT_2
        ) < 1e-12
    );
    // Was 0.7288 by advanced composition; the harness's zCDP (eps0^2/2 per
    // release) with the CKS conversion is tighter.
    assert_eq!(a1.accounting, Accounting::ZcdpCks);
    assert!(
        (a1.realised.value() - 0.5706).abs() < 1e-3,
        "{}",
        a1.realised
    );
    // The 9 -> 20 sensitivity constant: fully adaptive composition gave
    // eps = 1.138 ("not certified"); the harness's zCDP with the CKS
    // conversion certifies the printed budget U at eps = 0.931 <= 1.
    let e1 = row("GGP-PE.1");
    assert_eq!(e1.accounting, Accounting::ZcdpCks);
    assert!(
        (e1.realised.value() - 0.9313).abs() < 1e-3,
        "{}",
        e1.realised
    );
    assert_eq!(e1.verdict, Verdict::PrivateBySlack);
    assert!(
        rel_err(
            e1.printed.value / e1.corrected.value,
            (20.0f64 / 9.0).powi(2)
        ) < 1e-12
    );
}

#[test]
fn markdown_has_one_line_per_row_and_consistent_columns() {
    let rows = errata();
    let md = render_markdown(&rows);
    let table: Vec<&str> = md.lines().take_while(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), rows.len() + 2);
    let columns = |l: &str| l.matches(" | ").count();
    for line in &table[2..] {
        assert_eq!(columns(line), columns(table[0]), "{line}");
    }
    for e in &rows {
        assert!(md.contains(&e.markdown_row()));
        assert!(md.contains(&format!("**{}**", e.id)), "note of {}", e.id);
    }
}

/// BFTT-P12a's counterexample runs on the harness's own implementation: on
/// LinBall in d = 1 with the pair S = (0, ..., 0, 1), S' = (0, ..., 0, -1),
/// Algorithm 3 as printed (`ObjPAppVariant::Paper`) draws G with the row's
/// printed sigma_G, and the exact stage-1 minimizer of J (Algorithm 2's closed
/// form at the same lambda) is `(L sum z - G)/(2 n lambda)` inside W: the
/// output on S at G equals the output on S' at G + 2L, a Gaussian release of
/// sensitivity 2L in G, as the row's exact profile assumes. The projection
/// binds only past the margin the row's note bounds.
#[test]
fn bassily_objp_first_stage_is_the_gaussian_release_the_row_judges() {
    use datagen::bassily::lin_ball::{LinBall, LinBallParams};
    use dpcore::PrivacyParams;
    use solvers::bassily::objp::{HessianRank, ObjPApp, ObjPAppVariant, ObjPPlan};

    let e = row("BFTT-P12a");
    assert_eq!(e.verdict, Verdict::NotPrivate);
    assert_eq!(e.accounting, Accounting::ExactGaussian);
    let n = 10_000;
    let instance = |last: f64| {
        let mut data = vec![0.0; n];
        data[n - 1] = last;
        LinBall::from_records(LinBallParams::new(n, 1, 0.5), data).expect("records in the ball")
    };
    let (s, s_prime) = (instance(1.0), instance(-1.0));
    let privacy = PrivacyParams {
        eps: 1.0,
        delta: 1e-8,
    };
    let paper = ObjPApp {
        variant: ObjPAppVariant::Paper,
        ..Default::default()
    }
    .plan(&s, privacy, HessianRank::AtMostOne)
    .expect("the linear loss meets every hypothesis of Thm 5.6");
    assert!(rel_err(paper.sigma_g, e.printed.value) < 1e-12);
    let gaussian = e.gaussian.expect("judged by the exact profile");
    assert_eq!(gaussian.printed, (e.printed.value, 2.0));
    assert_eq!((gaussian.eps, gaussian.target_delta), (0.5, 0.5e-8));

    let stage_1 = ObjPPlan::new(&s, privacy, HessianRank::AtMostOne).expect("closed form");
    assert_eq!(stage_1.lambda, paper.lambda);
    let two_n_lambda = 2.0 * n as f64 * paper.lambda;
    let margin = two_n_lambda - 1.0;
    // 29.5 standard deviations at n = 1e4: the tail the note quotes.
    assert!(margin / paper.sigma_g > 25.0, "{}", margin / paper.sigma_g);
    let argmin = |p: &LinBall, g: f64| stage_1.minimize_perturbed(p, &[g]).expect("argmin")[0];
    for g in [-0.9 * margin, -40.0, -2.0, 0.0, 1.5, 60.0, 0.9 * margin] {
        let (w, w_prime) = (argmin(&s, g), argmin(&s_prime, g));
        assert!(
            (w - (1.0 - g) / two_n_lambda).abs() < 1e-12,
            "S at {g}: {w}"
        );
        assert!(
            (w_prime - (-1.0 - g) / two_n_lambda).abs() < 1e-12,
            "S' at {g}"
        );
        assert!(
            (argmin(&s_prime, g - 2.0) - w).abs() < 1e-12,
            "shift by 2L at {g}"
        );
    }
    assert_eq!(
        argmin(&s, margin + 10.0),
        -1.0,
        "projected beyond the margin"
    );
}
