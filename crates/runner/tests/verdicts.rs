//! Each of the four verdicts arises from a constructed summary, and the
//! check fails when a verdict loses evidence against the committed one.
//!
//! The summaries are built by hand (exact power laws with chosen standard
//! errors), so every outcome is deterministic: no false-alarm rate applies
//! except the theory match's stated 0.01 family-wise rate, which these
//! constructed means (exactly on the curve) cannot trip.

mod common;

use std::path::Path;

use runner::analyze::{judge_study, PointSummary};
use runner::check::{check_with, read_verdicts, write_verdicts};
use runner::spec::{parse, LoadedSpec};
use runner::validate::{resolve, Experiment};
use runner::verdict::Verdict;

fn experiment(expect: &str, metric: &str) -> Experiment {
    let text = format!(
        r#"
name = "verdicts"
seed = 1
repetitions = 20

[[studies]]
name = "s"
metric = "{metric}"
problem = {{ family = "diagonal_quadratic", d = 4 }}
algorithm = {{ name = "output_perturbation_conceptual" }}
privacy = {{ eps = 1.0 }}
grid = {{ n = [1000, 2000, 4000, 8000, 16000] }}
{expect}
"#
    );
    let path = Path::new("verdicts.toml");
    let spec = parse(path, &text).expect("valid spec");
    let loaded = LoadedSpec {
        path: path.into(),
        text,
        spec,
    };
    resolve(&loaded, None).expect("resolves")
}

/// Means `c * n^slope` with relative standard error `rel_se` (20
/// repetitions), bound `bound(n)`.
fn points(slope: f64, rel_se: f64, bound: impl Fn(f64) -> f64) -> Vec<PointSummary> {
    [1000.0, 2000.0, 4000.0, 8000.0, 16000.0]
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let mean = 0.5 * (n / 1000.0f64).powf(slope);
            let se = rel_se * mean;
            PointSummary {
                point: i,
                swept: vec![("n".into(), n)],
                count: 20,
                failed: 0,
                mean,
                median: mean,
                q10: mean,
                q90: mean,
                se,
                ci_low: mean - 2.093 * se,
                ci_high: mean + 2.093 * se,
                theory: mean,
                bound: bound(n),
                reference: f64::NAN,
                worst_case_at: None,
            }
        })
        .collect()
}

/// [`points`] without a theory curve: the slope tests judge the data alone
/// (a theory curve equal to the data would have the data's own slope, and a
/// theorem whose curve crosses the band edge cannot be decided by the window).
fn points_without_theory(slope: f64, rel_se: f64) -> Vec<PointSummary> {
    let mut p = points(slope, rel_se, |_| f64::NAN);
    for x in &mut p {
        x.theory = f64::NAN;
    }
    p
}

fn slope_verdict(expect: &str, slope: f64, rel_se: f64) -> (Verdict, String) {
    let e = experiment(expect, "excess_empirical_risk");
    let a = judge_study(
        &e.studies[0],
        points_without_theory(slope, rel_se),
        vec![],
        0,
        0,
    );
    let j = &a.slopes[0].judgement;
    (j.verdict, j.reason.clone())
}

#[test]
fn a_ci_inside_the_band_is_confirmed() {
    let (v, why) = slope_verdict(
        "expect = { slopes = { n = { slope = -1.0, tolerance = 0.15 } } }",
        -1.0,
        0.01,
    );
    assert_eq!(v, Verdict::Confirmed, "{why}");
}

#[test]
fn a_ci_fully_outside_the_band_is_contradicted() {
    let (v, why) = slope_verdict(
        "expect = { slopes = { n = { slope = -1.0, tolerance = 0.15 } } }",
        -0.5,
        0.01,
    );
    assert_eq!(v, Verdict::Contradicted, "{why}");
}

#[test]
fn a_straddling_ci_is_inconclusive_with_the_repetitions_that_decide_it() {
    // Fitted exactly -1.1 (inside -1 +- 0.15, margin 0.05) but with 30%
    // standard errors the CI is far wider than the margin.
    let (v, why) = slope_verdict(
        "expect = { slopes = { n = { slope = -1.0, tolerance = 0.15 } } }",
        -1.1,
        0.3,
    );
    assert_eq!(v, Verdict::Inconclusive, "{why}");
    assert!(
        why.contains("repetitions per point (now 20) would confirm"),
        "{why}"
    );
}

#[test]
fn a_bound_at_the_trivial_maximum_is_vacuous() {
    // A zero-one error's trivial maximum is 1 by default (a Wang–Zhu–Wang
    // utility bound of 1); here declared on an excess risk.
    assert_eq!(
        runner::registry::Metric::ZeroOneError.trivial_maximum(),
        Some(1.0)
    );
    let e = experiment(
        "expect = { below_bound = true, trivial_max = 1.0 }",
        "excess_empirical_risk",
    );
    let a = judge_study(&e.studies[0], points(-0.5, 0.01, |_| 1.0), vec![], 0, 0);
    let j = a.bound_judgement.as_ref().unwrap();
    assert_eq!(j.verdict, Verdict::NotMeasured, "{j:?}");
    assert!(j.reason.contains("vacuous"), "{}", j.reason);
    assert_eq!(a.verdict(), Verdict::NotMeasured);
    // The same bound made informative: evidence.
    let a = judge_study(&e.studies[0], points(-0.5, 0.01, |_| 0.9), vec![], 0, 0);
    assert_eq!(a.verdict(), Verdict::Confirmed);
}

#[test]
fn a_vacuous_bound_says_where_it_becomes_informative() {
    let e = experiment(
        "expect = { below_bound = true, trivial_max = 1.0 }",
        "excess_empirical_risk",
    );
    // bound = 4 / sqrt(n / 1000): reaches 1 at n = 16000, all grid points >= 1.
    let a = judge_study(
        &e.studies[0],
        points(-0.5, 0.01, |n| 4.0 / (n / 1000.0).sqrt()),
        vec![],
        0,
        0,
    );
    let j = a.bound_judgement.as_ref().unwrap();
    assert_eq!(j.verdict, Verdict::NotMeasured, "{j:?}");
    assert!(j.reason.contains("n ≈ 16000"), "{}", j.reason);
}

#[test]
fn a_study_without_expectation_is_not_measured() {
    let e = experiment("", "excess_empirical_risk");
    let a = judge_study(&e.studies[0], points(-1.0, 0.01, |_| 1.0), vec![], 0, 0);
    assert!(a.judgements().is_empty());
    assert_eq!(a.verdict(), Verdict::NotMeasured);
}

#[test]
fn the_check_fails_when_a_verdict_loses_evidence_and_not_on_a_committed_contradiction() {
    let scratch = common::Scratch::new("verdicts");
    let confirmed = experiment(
        "expect = { slopes = { n = { slope = -1.0, tolerance = 0.15 } } }",
        "excess_empirical_risk",
    );
    let data = points_without_theory(-1.0, 0.01);
    let a = vec![judge_study(
        &confirmed.studies[0],
        data.clone(),
        vec![],
        0,
        0,
    )];
    let path = scratch.path("verdicts-verdicts.csv");
    write_verdicts(&path, &confirmed, &a).unwrap();
    let committed = read_verdicts(&path).unwrap();
    assert_eq!(
        committed.get(&("s".into(), "slope in n on [1000, 16000]".into())),
        Some(&Verdict::Confirmed)
    );
    assert!(check_with(&confirmed, &a, None, Some(&committed)).pass());

    // The same data under a changed expectation (-2 +- 0.15): contradicted.
    let changed = experiment(
        "expect = { slopes = { n = { slope = -2.0, tolerance = 0.15 } } }",
        "excess_empirical_risk",
    );
    let b = vec![judge_study(&changed.studies[0], data.clone(), vec![], 0, 0)];
    let outcome = check_with(&changed, &b, None, Some(&committed));
    assert!(!outcome.pass());
    assert!(
        outcome
            .render()
            .contains("verdict changed from confirmed (committed) to contradicted"),
        "{}",
        outcome.render()
    );
    // Without committed verdicts a contradiction fails too.
    assert!(!check_with(&changed, &b, None, None).pass());
    // Committed as contradicted: a result, not a failure.
    write_verdicts(&path, &changed, &b).unwrap();
    let committed = read_verdicts(&path).unwrap();
    let outcome = check_with(&changed, &b, None, Some(&committed));
    assert!(outcome.pass(), "{}", outcome.render());
    assert!(outcome.render().contains("contradicted, as committed"));
    // Removing the expectation of a committed confirmed slope fails.
    write_verdicts(&path, &confirmed, &a).unwrap();
    let committed = read_verdicts(&path).unwrap();
    let none = experiment("", "excess_empirical_risk");
    let c = vec![judge_study(&none.studies[0], data, vec![], 0, 0)];
    let outcome = check_with(&none, &c, None, Some(&committed));
    assert!(!outcome.pass(), "{}", outcome.render());
}
