//! A decisive window farther in a claim's limit supersedes an inconclusive
//! nearer one of the same instance (`extends` in the experiment file): a
//! rate is a statement about the limit, so a window that reaches farther
//! into it and decides is the better evidence, and a nearer window that
//! cannot decide (a misfit, a pre-asymptotic curve) is reported beside it
//! rather than keeping the row open. Only an inconclusive part is ever
//! superseded: a contradiction anywhere still contradicts the claim.

use std::path::{Path, PathBuf};

use super::evidence::{Judged, Part, SetAside};
use super::spec::{ClaimSpec, Limit};
use crate::verdict::{Rule, Verdict};

/// What the rule reads of one slope part.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window<'a> {
    spec: &'a Path,
    study: &'a str,
    param: &'a str,
    at: &'a [(String, f64)],
    window: (f64, f64),
    verdict: Verdict,
}

fn window_of<'a>(p: &'a Part) -> Option<Window<'a>> {
    let (c, s) = (p.check.as_ref()?, p.slope?);
    Some(Window {
        spec: &c.spec,
        study: &c.study,
        param: &s.param,
        at: &s.at,
        window: s.window,
        verdict: p.judgement.verdict,
    })
}

/// A nearer inconclusive window and the farther window of a study that
/// extends its study.
#[derive(Debug, Clone, PartialEq)]
struct Extension {
    /// Index of the nearer (inconclusive) window.
    near: usize,
    /// The extending study.
    by: String,
    /// The farther window.
    window: (f64, f64),
    /// Whether the farther window decides (confirmed or contradicted).
    decisive: bool,
    /// Whether the extending study names the nearer one itself (not through
    /// a chain of farther windows).
    direct: bool,
}

/// Every inconclusive window of study `T` that a study `S` extends
/// (`extends(file of S, S) = Some((file of T, T))`: `T` in `S`'s file or
/// in one beside it, or through a chain of such studies: a window farther
/// than a farther window is farther still) and has a window in the same
/// parameter, at the same values of the other swept parameters where both
/// fits hold some, starting where `T`'s ends or beyond on the side of
/// `limit`.
fn extensions<'b>(
    windows: &[Option<Window<'_>>],
    extends: impl Fn(&Path, &str) -> Option<(PathBuf, &'b str)>,
    limit: Limit,
) -> Vec<Extension> {
    let mut out = Vec::new();
    for far in windows.iter().flatten() {
        let chain = extends_chain(&extends, far.spec, far.study);
        for (k, near) in windows.iter().enumerate() {
            let Some(near) = near else { continue };
            let Some(depth) = chain
                .iter()
                .position(|(spec, study)| spec == near.spec && *study == near.study)
            else {
                continue;
            };
            let same_instance = near.param == far.param
                && (near.at.is_empty() || far.at.is_empty() || near.at == far.at);
            let beyond = match limit {
                Limit::Large => far.window.0 >= near.window.1 * (1.0 - 1e-9),
                Limit::Small => far.window.1 <= near.window.0 * (1.0 + 1e-9),
            };
            if near.verdict == Verdict::Inconclusive && same_instance && beyond {
                out.push(Extension {
                    near: k,
                    by: far.study.to_string(),
                    window: far.window,
                    decisive: matches!(far.verdict, Verdict::Confirmed | Verdict::Contradicted),
                    direct: depth == 0,
                });
            }
        }
    }
    out
}

/// The studies that `study` of file `spec` extends, nearest first:
/// `extends` followed link by link (validation rejects a chain that loops;
/// the bound of 64 links and the repeat check are guards).
pub(super) fn extends_chain<'b>(
    extends: &impl Fn(&Path, &str) -> Option<(PathBuf, &'b str)>,
    spec: &Path,
    study: &str,
) -> Vec<(PathBuf, &'b str)> {
    let mut chain: Vec<(PathBuf, &str)> = Vec::new();
    let mut next = extends(spec, study);
    while let Some(t) = next.filter(|t| chain.len() < 64 && !chain.contains(t)) {
        next = extends(&t.0, t.1);
        chain.push(t);
    }
    chain
}

/// What a study extends, read from the judged experiment files: for `study`
/// of file `spec`, the file and name its `extends` names.
pub(super) fn extends_in<'a>(
    judged: &'a [Judged],
) -> impl Fn(&Path, &str) -> Option<(PathBuf, &'a str)> + 'a {
    move |spec: &Path, study: &str| {
        judged
            .iter()
            .filter(|j| j.path == spec)
            .flat_map(|j| j.experiment.studies.iter())
            .find(|s| s.name == study)
            .and_then(|s| s.extends.as_deref())
            .map(|x| {
                let t = crate::spec::ExtendsTarget::parse(x);
                (t.spec_path(spec), t.study)
            })
    }
}

/// The pairs `(index of a superseded window, the study superseding it)`:
/// the [`extensions`] whose farther window decides (the rule
/// [`supersede_nearer_windows`] applies, as its tests read it).
#[cfg(test)]
fn superseded<'b>(
    windows: &[Option<Window<'_>>],
    extends: impl Fn(&Path, &str) -> Option<(PathBuf, &'b str)>,
    limit: Limit,
) -> Vec<(usize, String)> {
    extensions(windows, extends, limit)
        .into_iter()
        .filter(|e| e.decisive)
        .map(|e| (e.near, e.by))
        .collect()
}

/// `reason` with its "beyond the window" clause (the next decade priced, or
/// the claim's written text, added by [`super::beyond::with_next_decade`])
/// replaced by the farther window that has since measured there: once a
/// study extends this one, what lies beyond is that study's fit, not a
/// price.
fn measured_beyond(reason: &str, by: &str, window: (f64, f64)) -> String {
    let kept = match reason.rfind(super::beyond::BEYOND_CLAUSE) {
        Some(at) => &reason[..at],
        None => reason,
    };
    format!(
        "{kept}{}measured by {by}, which extends this study, on [{}, {}] (its fit is this row's farther evidence)",
        super::beyond::BEYOND_CLAUSE,
        crate::format::sig(window.0),
        crate::format::sig(window.1)
    )
}

/// Marks every inconclusive slope part of a claim that a decisive slope
/// part of a study extending its study supersedes ([`SetAside::Farther`]),
/// and points every inconclusive part that a study extends directly,
/// decisive or not, at that study's farther window in place of the decade
/// it priced.
pub fn supersede_nearer_windows(parts: &mut [Part], judged: &[Judged], limit: Limit) {
    let windows: Vec<Option<Window>> = parts.iter().map(window_of).collect();
    let found = extensions(&windows, extends_in(judged), limit);
    for e in found {
        let part = &mut parts[e.near];
        if e.direct {
            part.judgement.reason = measured_beyond(&part.judgement.reason, &e.by, e.window);
        }
        if e.decisive {
            part.set_aside.get_or_insert(SetAside::Farther(e.by));
        }
    }
}

/// Sets aside every inconclusive slope part whose window declares the
/// claim's regime not reached ([`Rule::RegimeNotReached`]) when a decisive
/// part of the same claim, from another study, fits the same parameter with
/// the same expectation (exponent and tolerance; both are judged by the
/// claim's rule, so the study's declared side does not matter) and reaches
/// its regime: the claim is measured there, and a window that never enters the
/// regime says nothing for or against it. Reported, not combined
/// ([`SetAside::RegimeElsewhere`]). Parts of different expected exponents
/// (two regimes of one claim) are left alone, so a regime measured in one
/// window never stands in for another regime that was not reached.
pub fn set_aside_unreached(parts: &mut [Part]) {
    let decisive = decisive_expectations(parts, |p| {
        !p.judgement.rules.contains(&Rule::RegimeNotReached)
    });
    for p in parts.iter_mut() {
        let unreached = p.judgement.verdict == Verdict::Inconclusive
            && p.judgement.rules.contains(&Rule::RegimeNotReached)
            && p.set_aside.is_none();
        let Some(e) = expectation(p).filter(|_| unreached) else {
            continue;
        };
        if let Some(by) = decisive.iter().find(|d| {
            d.param == e.param
                && d.slope == e.slope
                && d.tolerance == e.tolerance
                && d.study != e.study
        }) {
            p.set_aside = Some(SetAside::RegimeElsewhere(by.study.clone()));
        }
    }
}

/// What a slope part expects, and of which study: its parameter, expected
/// exponent and tolerance. The side is left out: every slope part of a
/// claim is judged by the claim's own rule (an upper bound reads a
/// two-sided study window one-sided), so a window declared without `side`
/// and one declaring the claim's side carry the same expectation.
struct Expectation {
    param: String,
    slope: f64,
    tolerance: f64,
    study: String,
}

fn expectation(p: &Part) -> Option<Expectation> {
    let (s, check) = (p.slope?, p.check.as_ref()?);
    Some(Expectation {
        param: s.param.clone(),
        slope: s.theory_slope,
        tolerance: s.tolerance,
        study: check.study.clone(),
    })
}

/// The expectations of the live decisive (confirmed or contradicted) slope
/// parts that `admit` accepts: what the set-aside rules let stand in for an
/// open window.
fn decisive_expectations(parts: &[Part], admit: impl Fn(&Part) -> bool) -> Vec<Expectation> {
    parts
        .iter()
        .filter(|p| {
            p.set_aside.is_none()
                && matches!(
                    p.judgement.verdict,
                    Verdict::Confirmed | Verdict::Contradicted
                )
                && admit(p)
        })
        .filter_map(expectation)
        .collect()
}

/// Sets aside every live inconclusive slope part of a study whose instance
/// does not attain claim `c`'s upper-bound rate
/// ([`super::spec::ClaimSpec::attained_on`]) when a live decisive part of an
/// attaining study measures the same expectation: the same parameter and
/// tolerance (the side is the claim's, as for [`set_aside_unreached`]), and
/// an expected exponent within that tolerance of its own
/// (each study's exponent is the theorem's curve over its own window, with
/// its own instance's constants: ggp_sco_alg4_eps's -0.425 and the
/// planted-vertex study's -0.449 are one claim's -1/2 seen through two
/// eps-free floors, while +0.5 against -1 is another statement).
/// On a non-attaining instance an upper bound's exponent is
/// contradicted by no window, so such a window can only confirm or stay
/// open, and once an attaining instance decides the exponent it adds nothing
/// but its instance's pre-asymptotic shape. Reported beside the verdict
/// ([`SetAside::AttainedElsewhere`]). Claims whose every naming study attains
/// (or none does) are left alone.
pub fn set_aside_not_attained(parts: &mut [Part], c: &ClaimSpec) {
    if c.attained_on.is_none() || c.attained.is_none() {
        return;
    }
    let decisive = decisive_expectations(parts, |p| {
        p.check
            .as_ref()
            .is_some_and(|check| c.attains(&check.study))
    });
    for p in parts.iter_mut() {
        if p.set_aside.is_some() || p.judgement.verdict != Verdict::Inconclusive {
            continue;
        }
        let Some(e) = expectation(p).filter(|e| !c.attains(&e.study)) else {
            continue;
        };
        if let Some(by) = decisive.iter().find(|d| {
            d.param == e.param
                && d.tolerance == e.tolerance
                && (d.slope - e.slope).abs() <= e.tolerance
        }) {
            p.set_aside = Some(SetAside::AttainedElsewhere(by.study.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Judgement;

    fn w<'a>(study: &'a str, window: (f64, f64), verdict: Verdict) -> Option<Window<'a>> {
        Some(Window {
            spec: Path::new("e.toml"),
            study,
            param: "n",
            at: &[],
            window,
            verdict,
        })
    }

    fn far_extends_near(spec: &Path, s: &str) -> Option<(PathBuf, &'static str)> {
        (s == "far").then(|| (spec.to_path_buf(), "near"))
    }

    #[test]
    fn a_decisive_farther_window_supersedes_an_inconclusive_nearer_one() {
        let ws = [
            w("near", (1e6, 1e8), Verdict::Inconclusive),
            w("far", (1e8, 1e11), Verdict::Confirmed),
        ];
        let got = superseded(&ws, far_extends_near, Limit::Large);
        assert_eq!(got, vec![(0, "far".to_string())]);
        // A contradiction farther out supersedes it too (and contradicts).
        let ws = [ws[0], w("far", (1e8, 1e11), Verdict::Contradicted)];
        assert_eq!(superseded(&ws, far_extends_near, Limit::Large).len(), 1);
    }

    #[test]
    fn nothing_is_superseded_without_a_decisive_farther_window_of_an_extending_study() {
        let near = w("near", (1e6, 1e8), Verdict::Inconclusive);
        let none = |ws: &[Option<Window>], limit| superseded(ws, far_extends_near, limit);
        // The farther window is itself inconclusive.
        assert!(none(
            &[near, w("far", (1e8, 1e11), Verdict::Inconclusive)],
            Limit::Large
        )
        .is_empty());
        // It overlaps the nearer window instead of lying beyond it.
        assert!(none(
            &[near, w("far", (1e7, 1e11), Verdict::Confirmed)],
            Limit::Large
        )
        .is_empty());
        // Beyond on the wrong side of the claim's limit.
        assert!(none(
            &[near, w("far", (1e8, 1e11), Verdict::Confirmed)],
            Limit::Small
        )
        .is_empty());
        // A study that does not extend the nearer one.
        assert!(none(
            &[near, w("other", (1e8, 1e11), Verdict::Confirmed)],
            Limit::Large
        )
        .is_empty());
        // A decisive nearer window stays as it is.
        let decided = w("near", (1e6, 1e8), Verdict::Confirmed);
        assert!(none(
            &[decided, w("far", (1e8, 1e11), Verdict::Confirmed)],
            Limit::Large
        )
        .is_empty());
        // Other swept values that differ: another instance.
        let at_a = [("d".to_string(), 16.0)];
        let at_b = [("d".to_string(), 64.0)];
        let mut n = near.unwrap();
        n.at = &at_a;
        let mut f = w("far", (1e8, 1e11), Verdict::Confirmed).unwrap();
        f.at = &at_b;
        assert!(none(&[Some(n), Some(f)], Limit::Large).is_empty());
        f.at = &at_a;
        assert_eq!(none(&[Some(n), Some(f)], Limit::Large).len(), 1);
    }

    #[test]
    fn an_extended_window_names_the_farther_fit_in_place_of_its_price() {
        let priced = "CI [-1, 0] straddles; beyond the window: the next decade above it, n in [1e8, 1e9], costs about 0.5 core-hours, within the 1 core-hour line";
        let got = measured_beyond(priced, "far", (1e8, 1e9));
        assert_eq!(
            got,
            "CI [-1, 0] straddles; beyond the window: measured by far, which extends this study, on [1.000e8, 1.000e9] (its fit is this row's farther evidence)"
        );
        // A reason without a clause gains one.
        assert!(measured_beyond("misfit", "far", (1.0, 10.0)).starts_with("misfit; beyond"));
        // An inconclusive farther window is found, and is not decisive.
        let ws = [
            w("near", (1e6, 1e8), Verdict::Inconclusive),
            w("far", (1e8, 1e11), Verdict::Inconclusive),
        ];
        let got = extensions(&ws, far_extends_near, Limit::Large);
        assert_eq!(got.len(), 1);
        assert!(!got[0].decisive && got[0].near == 0 && got[0].window == (1e8, 1e11));
    }

    #[test]
    fn a_chain_of_farther_windows_supersedes_every_nearer_one() {
        // far2 extends far, which extends near.
        let chain = |spec: &Path, s: &str| match s {
            "far2" => Some((spec.to_path_buf(), "far")),
            "far" => Some((spec.to_path_buf(), "near")),
            _ => None,
        };
        let ws = [
            w("near", (0.3, 10.0), Verdict::Inconclusive),
            w("far", (10.0, 100.0), Verdict::Inconclusive),
            w("far2", (100.0, 1000.0), Verdict::Confirmed),
        ];
        let got = extensions(&ws, chain, Limit::Large);
        let marks: Vec<(usize, &str, bool, bool)> = got
            .iter()
            .map(|e| (e.near, e.by.as_str(), e.decisive, e.direct))
            .collect();
        assert_eq!(
            marks,
            vec![
                (0, "far", false, true),
                (0, "far2", true, false),
                (1, "far2", true, true),
            ]
        );
        // A loop (which validation rejects) ends.
        let looped = |spec: &Path, s: &str| match s {
            "far" => Some((spec.to_path_buf(), "near")),
            "near" => Some((spec.to_path_buf(), "far")),
            _ => None,
        };
        assert_eq!(extensions(&ws, looped, Limit::Large).len(), 1);
    }

    #[test]
    fn below_a_shrinking_parameter_is_farther() {
        let ws = [
            w("near", (0.1, 1.0), Verdict::Inconclusive),
            w("far", (0.01, 0.1), Verdict::Confirmed),
        ];
        assert_eq!(superseded(&ws, far_extends_near, Limit::Small).len(), 1);
        assert!(superseded(&ws, far_extends_near, Limit::Large).is_empty());
    }

    #[test]
    fn a_farther_window_in_another_file_extends_the_study_it_names_there() {
        // gonzalez.toml's far extends table1.toml:near (the main job's file
        // runs every study it holds, so its farther window lives beside it).
        let in_file = |file: &'static str, study, window, verdict| {
            Some(Window {
                spec: Path::new(file),
                study,
                param: "n",
                at: &[],
                window,
                verdict,
            })
        };
        let across = |spec: &Path, s: &str| {
            (spec == Path::new("x/gonzalez.toml") && s == "far")
                .then(|| (PathBuf::from("x/table1.toml"), "near"))
        };
        let ws = [
            in_file("x/table1.toml", "near", (1e7, 1e8), Verdict::Inconclusive),
            in_file("x/gonzalez.toml", "far", (1e8, 1e9), Verdict::Confirmed),
            // A study of the same name in the far window's own file is not
            // the one it names.
            in_file("x/gonzalez.toml", "near", (1e7, 1e8), Verdict::Inconclusive),
        ];
        assert_eq!(
            superseded(&ws, across, Limit::Large),
            vec![(0, "far".to_string())]
        );
    }

    fn eps_slope(theory_slope: f64) -> crate::analyze::SlopeResult {
        eps_slope_with(theory_slope, 0.15)
    }

    fn eps_slope_with(theory_slope: f64, tolerance: f64) -> crate::analyze::SlopeResult {
        let side = crate::spec::SlopeSide::AtLeast;
        let evidence = crate::verdict::SlopeEvidence {
            fitted: theory_slope,
            ci_half_width: 0.05,
            points: 5,
            repetitions: 20,
            chi2_df: 1.0,
        };
        crate::analyze::SlopeResult {
            param: "eps".into(),
            at: Vec::new(),
            theory_slope,
            tolerance,
            side,
            rule: crate::verdict::SlopeRule::Declared(side),
            window: (0.1, 1.0),
            theory_curve_slope: f64::NAN,
            fitted: theory_slope,
            intercept: 0.0,
            ci_half_width: 0.05,
            points: 5,
            pass: true,
            judgement: Judgement::new(Verdict::Confirmed, ""),
            revised: None,
            fit: crate::verdict::SlopeFit {
                weighted: evidence,
                ols: evidence,
                theory_curve_slope: f64::NAN,
                trivial: None,
                regime_note: String::new(),
                regime_not_reached: Vec::new(),
                revised: None,
            },
            chi2_df: 1.0,
            curvature_p: f64::NAN,
        }
    }

    fn part<'a>(study: &str, s: &'a crate::analyze::SlopeResult, judgement: Judgement) -> Part<'a> {
        Part {
            where_: study.into(),
            judgement,
            slope: Some(s),
            max_bound_ratio: f64::NAN,
            check: Some(super::super::evidence::CheckRef {
                spec: "e.toml".into(),
                study: study.into(),
                check: super::super::evidence::Check::Slope {
                    param: "eps".into(),
                    window: (0.1, 1.0),
                },
            }),
            set_aside: None,
        }
    }

    #[test]
    fn a_window_that_never_reaches_the_regime_is_set_aside_where_another_measures_it() {
        let unreached = || {
            Judgement::new(Verdict::Inconclusive, "regime not reached").by(Rule::RegimeNotReached)
        };
        let (minus_one, half) = (eps_slope(-1.0), eps_slope(0.5));
        let confirmed = || Judgement::new(Verdict::Confirmed, "inside");
        // Same expectation, another study, decisive: set aside.
        let mut parts = [
            part("floor", &minus_one, unreached()),
            part("reached", &minus_one, confirmed()),
        ];
        set_aside_unreached(&mut parts);
        assert_eq!(
            parts[0].set_aside,
            Some(SetAside::RegimeElsewhere("reached".into()))
        );
        assert_eq!(parts[1].set_aside, None);
        // Another regime of the claim (another exponent) measured: kept.
        let mut parts = [
            part("floor", &minus_one, unreached()),
            part("other_regime", &half, confirmed()),
        ];
        set_aside_unreached(&mut parts);
        assert_eq!(parts[0].set_aside, None);
        // The other window inconclusive too, or from the same study: kept.
        let mut parts = [
            part("floor", &minus_one, unreached()),
            part(
                "open",
                &minus_one,
                Judgement::new(Verdict::Inconclusive, "straddles"),
            ),
            part("floor", &minus_one, confirmed()),
        ];
        set_aside_unreached(&mut parts);
        assert_eq!(parts[0].set_aside, None);
        // An inconclusive window without the declared rule is never set aside.
        let mut parts = [
            part(
                "misfit",
                &minus_one,
                Judgement::new(Verdict::Inconclusive, "misfit"),
            ),
            part("reached", &minus_one, confirmed()),
        ];
        set_aside_unreached(&mut parts);
        assert_eq!(parts[0].set_aside, None);
    }

    fn claim(extra: &str) -> ClaimSpec {
        let text = format!(
            "id = \"UB\"\ntheorem = \"T\"\nstatement = \"s\"\nkind = \"upper_bound\"\nparameter = \"eps\"\nlimit = \"small\"\nevidence = \"slope\"\nexpected = \"e\"\n{extra}"
        );
        toml::from_str(&text).unwrap()
    }

    /// An inconclusive window on a non-attaining instance gives way to a
    /// decisive window with the same expectation on an attaining one, and
    /// to nothing else.
    #[test]
    fn a_non_attaining_window_is_set_aside_where_an_attaining_one_decides() {
        let minus_one = eps_slope(-1.0);
        let half = eps_slope(0.5);
        let open = || Judgement::new(Verdict::Inconclusive, "misfit");
        let confirmed = || Judgement::new(Verdict::Confirmed, "inside");
        let c = claim("attained = \"why\"\nattained_on = [\"hard\"]");
        assert!(c.attains("hard") && !c.attains("easy"));
        let mut parts = [
            part("easy", &minus_one, open()),
            part("hard", &minus_one, confirmed()),
        ];
        set_aside_not_attained(&mut parts, &c);
        assert_eq!(
            parts[0].set_aside,
            Some(SetAside::AttainedElsewhere("hard".into()))
        );
        assert_eq!(parts[1].set_aside, None);
        // The same claim through another instance's curve (an exponent
        // within the tolerance): set aside as well.
        let near = eps_slope(-0.95);
        let mut parts = [
            part("easy", &minus_one, open()),
            part("hard", &near, confirmed()),
        ];
        set_aside_not_attained(&mut parts, &c);
        assert_eq!(
            parts[0].set_aside,
            Some(SetAside::AttainedElsewhere("hard".into()))
        );
        // The attaining window open too, or another expectation decided (an
        // exponent beyond the tolerance, another tolerance): kept.
        let (far, loose) = (eps_slope(-0.8), eps_slope_with(-1.0, 0.2));
        for other in [
            part("hard", &minus_one, open()),
            part("hard", &half, confirmed()),
            part("hard", &far, confirmed()),
            part("hard", &loose, confirmed()),
        ] {
            let mut parts = [part("easy", &minus_one, open()), other];
            set_aside_not_attained(&mut parts, &c);
            assert_eq!(parts[0].set_aside, None);
        }
        // A decisive non-attaining window decides nothing for another.
        let mut parts = [
            part("easy", &minus_one, open()),
            part("easy2", &minus_one, confirmed()),
        ];
        set_aside_not_attained(&mut parts, &c);
        assert_eq!(parts[0].set_aside, None);
        // An attaining window is never set aside, and without attained_on
        // (every study attains, or none does) nothing is.
        let mut parts = [
            part("hard", &minus_one, open()),
            part("hard", &minus_one, confirmed()),
        ];
        set_aside_not_attained(&mut parts, &c);
        assert_eq!(parts[0].set_aside, None);
        for c in [claim("attained = \"why\""), claim("")] {
            let mut parts = [
                part("easy", &minus_one, open()),
                part("hard", &minus_one, confirmed()),
            ];
            set_aside_not_attained(&mut parts, &c);
            assert_eq!(parts[0].set_aside, None);
        }
    }
}
