//! What deciding an open slope row would cost beyond its window: the next
//! decade of the swept parameter above the window's top, priced by `runner
//! plan`'s cost model (issue 39, item 8: an inconclusive row no repetition
//! count decides says whether the regime that might decide it is within
//! this machine's reach).
//!
//! The decade is the model's smallest honest step: a window of the grid's
//! own density one decade wide (finer where the grid's density leaves it
//! fewer values than a decisive fit reads), the least the slope rules fit
//! on (their windows span one to two decades). Whether that window would decide the
//! row is not known before it runs; what it costs is, and a cost above the
//! [`RERUN_LINE_CORE_HOURS`] line says the row waits for a larger machine.

use crate::analyze::{SlopeResult, StudyAnalysis};
use crate::format::sig;
use crate::validate::Study;
use crate::verdict::{Judgement, Outlook, Rule, Verdict, MIN_DECISIVE_POINTS, TRIVIAL_FRACTION};

use super::spec::Limit;

/// Issue 39's line for a rerun: an inconclusive row whose deciding
/// repetitions, or the next decade beyond its window, cost at most this many
/// core-hours is within this machine's reach.
pub const RERUN_LINE_CORE_HOURS: f64 = 1.0;

/// How every "what lies beyond the window" clause of a reason starts
/// ([`with_next_decade`]; `supersede` replaces it once a farther window ran).
pub const BEYOND_CLAUSE: &str = "; beyond the window: ";

/// Which side of the [`RERUN_LINE_CORE_HOURS`] line `hours` falls on, in
/// the words every priced clause of the ledger ends with ("within the 1
/// core-hour line" or "above" it).
pub fn against_the_line(hours: f64) -> String {
    let side = if hours <= RERUN_LINE_CORE_HOURS {
        "within"
    } else {
        "above"
    };
    format!("{side} the {} core-hour line", sig(RERUN_LINE_CORE_HOURS))
}

/// The cost of the next decade above a fit's window.
#[derive(Debug, Clone, PartialEq)]
pub struct NextDecade {
    /// The swept values it would add, in grid order.
    pub values: Vec<f64>,
    /// Estimated core-seconds of its cells (the study's repetitions).
    pub core_seconds: f64,
    /// Estimated peak bytes of its largest cell.
    pub peak_cell_bytes: f64,
    /// Whether its step is finer than the grid's (a decade at the grid's
    /// step would hold fewer than [`MIN_DECISIVE_POINTS`] values).
    pub refined: bool,
}

/// The values of the next decade beyond the window's `edge` (its top for an
/// upper bound in a growing parameter, its bottom for one in a shrinking
/// parameter), at the grid's step there: from `inner`, the grid value next
/// to `edge` inside the window, to `edge`, a factor (or, for a parameter
/// named `log2_*`, the base-2 logarithm of the quantity, an increment, and a
/// decade is `log2(10)` added or taken away). Where the grid's step leaves
/// the decade fewer than [`MIN_DECISIVE_POINTS`] values (the least a
/// decisive fit reads), the step is refined until it holds them: a factor
/// `10^(1/4)`, or an increment of 1 for a `log2_*` parameter (its values
/// are whole), so the decade priced is a window that could decide, not one
/// or two points that cannot (a factor-10 rho grid priced its decade as the
/// single point rho = 10). The flag says whether it was refined. Empty
/// when the step does not move away from the window.
fn decade_values(param: &str, edge: f64, inner: f64) -> (Vec<f64>, bool) {
    let log = param.starts_with("log2_");
    let usable = edge.is_finite() && inner.is_finite() && edge != inner;
    if !usable || (!log && (edge <= 0.0 || inner <= 0.0)) {
        return (Vec::new(), false);
    }
    let at_grid_step = decade_at_step(log, edge, edge - inner, edge / inner);
    if at_grid_step.len() >= MIN_DECISIVE_POINTS {
        return (at_grid_step, false);
    }
    // 4 values per decade: a factor 10^(1/4) = 1.78, or log2(10) = 3.32
    // covered in whole increments (4 of them, the last overshooting).
    let factor = 10f64.powf(1.0 / MIN_DECISIVE_POINTS as f64);
    let (increment, factor) = if edge > inner {
        (1.0, factor)
    } else {
        (-1.0, 1.0 / factor)
    };
    (decade_at_step(log, edge, increment, factor), true)
}

/// The values from `edge` one decade away, at a fixed `increment` (a
/// `log2_*` parameter, `log`) or `factor`, whose sign or size says which
/// way; the last may overshoot the decade's end by less than one step.
fn decade_at_step(log: bool, edge: f64, increment: f64, factor: f64) -> Vec<f64> {
    let up = if log { increment > 0.0 } else { factor > 1.0 };
    let end = match (log, up) {
        (true, true) => edge + std::f64::consts::LOG2_10,
        (true, false) => edge - std::f64::consts::LOG2_10,
        (false, true) => 10.0 * edge,
        (false, false) => edge / 10.0,
    };
    let next = |x: f64| if log { x + increment } else { x * factor };
    let reached = |x: f64| {
        let slack = if log { 1e-9 } else { 1e-9 * end.abs() };
        if up {
            x >= end - slack
        } else {
            x <= end + slack
        }
    };
    let mut out = Vec::new();
    let mut x = next(edge);
    while out.len() < 64 {
        out.push(x);
        if reached(x) {
            break;
        }
        x = next(x);
    }
    out
}

/// What lies beyond a fit's window on the side of its limit.
#[derive(Debug, Clone, PartialEq)]
pub enum Beyond {
    /// The study's grid already runs past the window to this value: the
    /// window was set inside the grid, to the claim's regime, so the points
    /// past it belong to another regime, not to a wider window of this one.
    Measured(f64),
    /// The grid ends at the window: the next decade, priced.
    Decade(NextDecade),
}

/// What lies beyond the `window` of a fit in `param` at the other values
/// `at` in `study`, on the side `limit` names
/// (above for a growing parameter, below for a shrinking one): grid values
/// already measured past it, or else the next decade, with the swept axis
/// replaced by the decade's values, every other fitted axis held at the
/// fit's values (`at`), the axis a worst case is taken over kept whole.
/// `None` when the swept parameter is no axis of the study or its grid has
/// fewer than two values inside the window.
pub fn beyond(
    study: &Study,
    param: &str,
    at: &[(String, f64)],
    window: (f64, f64),
    limit: Limit,
) -> Option<Beyond> {
    let axis = study.axes.iter().position(|a| a.name == param)?;
    let values = &study.axes[axis].values;
    let past = values.iter().copied().filter(|x| match limit {
        Limit::Large => *x > window.1 * (1.0 + 1e-9),
        Limit::Small => *x < window.0 * (1.0 - 1e-9),
    });
    let farthest = match limit {
        Limit::Large => past.fold(f64::NAN, f64::max),
        Limit::Small => past.fold(f64::NAN, f64::min),
    };
    if farthest.is_finite() {
        return Some(Beyond::Measured(farthest));
    }
    let mut inside: Vec<f64> = values
        .iter()
        .copied()
        .filter(|x| crate::validate::in_window(*x, window))
        .collect();
    inside.sort_by(f64::total_cmp);
    let (edge, inner) = match (limit, &inside[..]) {
        (Limit::Large, [.., inner, edge]) => (*edge, *inner),
        (Limit::Small, [edge, inner, ..]) => (*edge, *inner),
        _ => return None,
    };
    let (values, refined) = decade_values(param, edge, inner);
    if values.is_empty() {
        return None;
    }
    let mut ext = study.clone();
    for a in &mut ext.axes {
        if a.name == param {
            a.values = values.clone();
        } else if let Some((_, v)) = at.iter().find(|(k, _)| *k == a.name) {
            a.values = vec![*v];
        }
    }
    let estimate = crate::cost::estimate_study(&ext);
    Some(Beyond::Decade(NextDecade {
        values,
        core_seconds: estimate.core_seconds,
        peak_cell_bytes: estimate.peak_cell_bytes,
        refined,
    }))
}

/// Bytes in the units a reader compares with a machine's memory.
fn bytes_text(bytes: f64) -> String {
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    if bytes >= GIB {
        format!("{} GiB", sig(bytes / GIB))
    } else {
        format!("{} MiB", sig(bytes / (1024.0 * 1024.0)))
    }
}

/// The points of fit `s` (its group at the fit's other swept values) inside
/// its window, each with its value of the swept parameter, in grid order.
pub fn window_points<'a>(
    a: &'a StudyAnalysis,
    s: &SlopeResult,
) -> Vec<(f64, &'a crate::analyze::PointSummary)> {
    let Some((_, members)) = crate::analyze::fit_groups(&a.points, &s.param)
        .into_iter()
        .find(|(at, _)| *at == s.at)
    else {
        return Vec::new();
    };
    members
        .into_iter()
        .filter_map(|p| {
            let x = p.swept_value(&s.param)?;
            crate::validate::in_window(x, s.window).then_some((x, p))
        })
        .collect()
}

/// The window's edge on the side of `limit` and the mean there, when that
/// mean already sits at the study's trivial value (at least
/// [`TRIVIAL_FRACTION`] of `trivial_max`, the level the fit's own rule
/// calls no evidence): farther in the limit the error can only stay there.
fn trivial_at_edge(
    study: &Study,
    a: &StudyAnalysis,
    s: &SlopeResult,
    limit: Limit,
) -> Option<(f64, f64, f64)> {
    let t = study.trivial_max?;
    let inside = window_points(a, s).into_iter().map(|(x, p)| (x, p.mean));
    let edge = match limit {
        Limit::Large => inside.max_by(|p, q| p.0.total_cmp(&q.0)),
        Limit::Small => inside.min_by(|p, q| p.0.total_cmp(&q.0)),
    }?;
    (edge.1 >= TRIVIAL_FRACTION * t).then_some((edge.0, edge.1, t))
}

/// Whether the fit's window holds the theory curve itself: every point
/// without an error bar and with its mean equal to its stored theory value
/// (to a relative 1e-12). A metric that reads the count a theorem
/// prescribes (a schedule) is such a curve; its "CI" is the formula's own
/// curvature, so a farther window refits the formula and measures nothing.
fn means_are_the_theory_curve(a: &StudyAnalysis, s: &SlopeResult) -> bool {
    let points = window_points(a, s);
    !points.is_empty()
        && points.iter().all(|(_, p)| {
            p.se == 0.0
                && p.theory.is_finite()
                && (p.mean - p.theory).abs() <= 1e-12 * p.theory.abs()
        })
}

/// What every "beyond the window" clause starts from: `None` when `j` is
/// no open judgement (inconclusive by a misfit no repetition count removes,
/// or by a rate not attained), or when the claim's `written` text, added
/// here, replaces the priced clause; else the side of the window the
/// clause looks at ("above" for a growing limit, "below" for a shrinking
/// one).
fn open_side(j: &mut Judgement, limit: Limit, written: Option<&str>) -> Option<&'static str> {
    let misfit = matches!(j.outlook, Some(o) if !matches!(o, Outlook::Count(_)));
    let open = misfit || j.rules.contains(&Rule::NotAttained);
    if j.verdict != Verdict::Inconclusive || !open {
        return None;
    }
    if let Some(text) = written {
        j.reason.push_str(&format!("{BEYOND_CLAUSE}{text}"));
        return None;
    }
    Some(if limit == Limit::Small {
        "below"
    } else {
        "above"
    })
}

/// An inconclusive judgement that no repetition count decides (a misfit,
/// or a worse exponent on an instance not shown to attain the rate), with
/// what lies beyond its window on the side of the claim's `limit`: the
/// claim's own `beyond` text where it has one, else that the mean already
/// sits at the trivial value at the window's edge there (so no farther
/// window on this instance decides), else that the means are the theory
/// curve itself (a prescribed count: no farther window measures more),
/// else the grid points already
/// measured there, or what the next decade costs and on which side of the
/// [`RERUN_LINE_CORE_HOURS`] line that falls. Other judgements (a regime
/// not reached names its own), and fits whose grid cannot be extended, are
/// returned as they are.
pub fn with_next_decade(
    mut j: Judgement,
    study: &Study,
    a: &StudyAnalysis,
    s: &SlopeResult,
    limit: Limit,
    written: Option<&str>,
) -> Judgement {
    let Some(side) = open_side(&mut j, limit, written) else {
        return j;
    };
    if let Some((edge, mean, t)) = trivial_at_edge(study, a, s, limit) {
        j.reason.push_str(&format!(
            "{BEYOND_CLAUSE}the mean is already {} at {} = {}, the window's edge {side} (at least {TRIVIAL_FRACTION} of the trivial value {}): every cell farther in the claim's limit sits at the trivial value, so no farther window on this instance decides it (that needs an instance whose error is still informative there)",
            sig(mean),
            s.param,
            sig(edge),
            sig(t)
        ));
        return j;
    }
    if means_are_the_theory_curve(a, s) {
        j.reason.push_str(&format!(
            "{BEYOND_CLAUSE}the means are the stored theory curve itself at every point of the window (no error bars: the metric reads the count the theorem prescribes, a schedule, not work measured to an accuracy), so a farther window would refit the same formula and decides nothing; a count of the work done to reach a certificate would"
        ));
        return j;
    }
    let text = match beyond(study, &s.param, &s.at, s.window, limit) {
        None => return j,
        Some(Beyond::Measured(farthest)) => format!(
            "{BEYOND_CLAUSE}the study's grid already runs {side} it to {} = {}, outside the claim's window (another regime), so a larger grid at these values does not decide it",
            s.param,
            sig(farthest)
        ),
        Some(Beyond::Decade(next)) => {
            let hours = next.core_seconds / 3600.0;
            let (first, last) = (next.values[0], next.values[next.values.len() - 1]);
            let count = next.values.len();
            format!(
                "{BEYOND_CLAUSE}the next decade {side} it, {} in [{}, {}] ({count} point{} at {}, {} repetitions, the fit's other values), costs about {} core-hours by runner plan's model (largest cell {}), {}",
                s.param,
                sig(first.min(last)),
                sig(first.max(last)),
                if count == 1 { "" } else { "s" },
                if next.refined {
                    "a step finer than the grid's, the fewest a decisive fit reads"
                } else {
                    "the grid's step"
                },
                study.repetitions,
                sig(hours),
                bytes_text(next.peak_cell_bytes),
                against_the_line(hours)
            )
        }
    };
    j.reason.push_str(&text);
    j
}

/// [`with_next_decade`] for a slope difference (the fit of the ratio of two
/// studies' means on a common window): an open judgement gains the claim's
/// written text, or the grid point already measured past the window by
/// either study, or the next decade beyond it priced for both studies (each
/// at its own repetitions and the window's other values; their costs
/// added, since the difference needs both).
pub fn difference_with_next_decade(
    mut j: Judgement,
    studies: [&Study; 2],
    param: &str,
    window: (f64, f64),
    limit: Limit,
    written: Option<&str>,
) -> Judgement {
    let Some(side) = open_side(&mut j, limit, written) else {
        return j;
    };
    let found = studies.map(|s| beyond(s, param, &[], window, limit));
    let text = match found {
        [Some(Beyond::Measured(x)), _] | [_, Some(Beyond::Measured(x))] => format!(
            "{BEYOND_CLAUSE}a study's grid already runs {side} it to {param} = {}, outside the claim's window (another regime), so a larger grid at these values does not decide it",
            sig(x)
        ),
        [Some(Beyond::Decade(a)), Some(Beyond::Decade(b))] => {
            let hours = (a.core_seconds + b.core_seconds) / 3600.0;
            let (first, last) = (a.values[0], a.values[a.values.len() - 1]);
            format!(
                "{BEYOND_CLAUSE}the next decade {side} it for both studies, {param} in [{}, {}] ({} and {} points, {} and {} repetitions, the window's other values), costs about {} core-hours by runner plan's model (largest cell {}), {}",
                sig(first.min(last)),
                sig(first.max(last)),
                a.values.len(),
                b.values.len(),
                studies[0].repetitions,
                studies[1].repetitions,
                sig(hours),
                bytes_text(a.peak_cell_bytes.max(b.peak_cell_bytes)),
                against_the_line(hours)
            )
        }
        _ => return j,
    };
    j.reason.push_str(&text);
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decade_of_n_at_the_grids_factor_ends_at_ten_times_the_top() {
        let v = decade_values("n", 1000.0, 500.0);
        assert_eq!(v, (vec![2000.0, 4000.0, 8000.0, 16000.0], false));
    }

    #[test]
    fn a_decade_below_a_shrinking_parameter_ends_at_a_tenth_of_the_bottom() {
        let v = decade_values("eps", 0.4, 0.8);
        assert_eq!(v, (vec![0.2, 0.1, 0.05, 0.025], false));
    }

    #[test]
    fn a_decade_of_a_log2_parameter_adds_log2_of_ten() {
        let v = decade_values("log2_d", 16.0, 15.0);
        assert_eq!(v, (vec![17.0, 18.0, 19.0, 20.0], false));
        // A step of 2 would price 18 and 20 only: refined to whole steps.
        let v = decade_values("log2_d", 16.0, 14.0);
        assert_eq!(v, (vec![17.0, 18.0, 19.0, 20.0], true));
        let v = decade_values("log2_d", 4.0, 6.0);
        assert_eq!(v, (vec![3.0, 2.0, 1.0, 0.0], true));
    }

    #[test]
    fn a_grid_too_coarse_for_a_decisive_decade_is_refined_to_four_points() {
        // A factor-10 grid would price the single point 10 (MN-T2-rho's
        // rho grid), a factor-sqrt(10) one two points: neither could decide.
        for inner in [0.1, 10f64.powf(-0.5)] {
            let (v, refined) = decade_values("rho", 1.0, inner);
            assert!(refined);
            assert_eq!(v.len(), MIN_DECISIVE_POINTS);
            let want = [1.778_279_41, 3.162_277_66, 5.623_413_25, 10.0];
            for (got, want) in v.iter().zip(want) {
                assert!((got - want).abs() < 1e-6, "{v:?}");
            }
        }
        // The same below a shrinking parameter.
        let (v, refined) = decade_values("eps", 0.1, 1.0);
        assert!(refined);
        assert_eq!(v.len(), MIN_DECISIVE_POINTS);
        assert!(
            (v[3] - 0.01).abs() < 1e-12 && v[0] < 0.1 && v[0] > v[1],
            "{v:?}"
        );
    }

    fn study(file: &str, name: &str) -> Study {
        let e = crate::validate::committed_experiment(file, None);
        e.studies.into_iter().find(|s| s.name == name).unwrap()
    }

    #[test]
    fn a_window_inside_the_grid_is_measured_past_and_one_at_its_end_is_priced() {
        // bftt_e1_nsgd_n runs n to 1e6; its privacy window ends at 32000.
        let s = study("bassily.toml", "bftt_e1_nsgd_n");
        let got = beyond(&s, "n", &[], (2000.0, 32000.0), Limit::Large);
        assert_eq!(got, Some(Beyond::Measured(1e6)));
        // Its statistical window ends at the grid's top, 1e6 (step 2).
        let Some(Beyond::Decade(next)) = beyond(&s, "n", &[], (2.5e5, 1e6), Limit::Large) else {
            panic!("no decade priced above 1e6");
        };
        assert_eq!(next.values, vec![2e6, 4e6, 8e6, 1.6e7]);
        // 4 points x 7 r-factors (the worst-case axis, kept whole) x the
        // study's repetitions, each at least the model's per-cell floor.
        let cells = 4.0 * 7.0 * s.repetitions as f64;
        assert!(next.core_seconds >= cells * crate::cost::constants::SECONDS_PER_CELL);
        assert!(next.peak_cell_bytes >= 8.0 * 1.6e7 * 16.0);
        // A shrinking limit looks below the window: 1000 is measured there.
        let got = beyond(&s, "n", &[], (2000.0, 32000.0), Limit::Small);
        assert_eq!(got, Some(Beyond::Measured(1000.0)));
        // A parameter the study does not sweep has nothing beyond.
        assert_eq!(beyond(&s, "eps", &[], (0.1, 1.0), Limit::Small), None);
    }

    #[test]
    fn a_slope_difference_prices_the_decade_for_both_studies() {
        let a = study("menart.toml", "mn_t4t1_alg3_n");
        let b = study("menart.toml", "mn_t4t1_alg1_n");
        let window = (1e5, 3162278.0);
        let misfit = || {
            let mut j = Judgement::new(Verdict::Inconclusive, "CI straddles");
            j.outlook = Some(Outlook::ScatterFloor(0.4));
            j
        };
        let got = difference_with_next_decade(misfit(), [&a, &b], "n", window, Limit::Large, None);
        let cost = |s: &Study| match beyond(s, "n", &[], window, Limit::Large) {
            Some(Beyond::Decade(next)) => next.core_seconds,
            other => panic!("no decade: {other:?}"),
        };
        let hours = (cost(&a) + cost(&b)) / 3600.0;
        assert!(
            got.reason.starts_with("CI straddles; beyond the window: the next decade above it for both studies, n in [5.623e6, 3.162e7] (4 and 4 points")
                && got.reason.contains(&format!("costs about {} core-hours", sig(hours))),
            "{}",
            got.reason
        );
        // A study measured past the window says so, whichever it is: on
        // [2.5e5, 1e6] bftt_e1_nsgd_n ends at the window, mn_t4t1_alg3_n
        // runs on to 3.162e6.
        let past = study("bassily.toml", "bftt_e1_nsgd_n");
        for pair in [[&a, &past], [&past, &a]] {
            let got =
                difference_with_next_decade(misfit(), pair, "n", (2.5e5, 1e6), Limit::Large, None);
            assert!(
                got.reason
                    .contains("a study's grid already runs above it to n = 3.162e6"),
                "{}",
                got.reason
            );
        }
        // Written text replaces the price; a closed judgement is untouched.
        let got = difference_with_next_decade(
            misfit(),
            [&a, &b],
            "n",
            window,
            Limit::Large,
            Some("needs d = 2^22"),
        );
        assert_eq!(
            got.reason,
            "CI straddles; beyond the window: needs d = 2^22"
        );
        let closed = Judgement::new(Verdict::Confirmed, "inside");
        let got =
            difference_with_next_decade(closed.clone(), [&a, &b], "n", window, Limit::Large, None);
        assert_eq!(got, closed);
    }

    /// `ggp_sco_alg4_eps` (trivial value 0.498, eps in [0.1, 0.9]) judged on
    /// synthetic means falling as 1/eps from `at_bottom` at eps = 0.1.
    fn alg4_eps_analysis(at_bottom: f64) -> (Study, StudyAnalysis) {
        alg4_eps_points(at_bottom, 0.01, None)
    }

    /// Synthetic means `at_bottom * 0.1/eps` on ggp_sco_alg4_eps's grid with
    /// standard errors `se_fraction` of the mean and, when given, theory
    /// values `theory_factor` times the mean.
    fn alg4_eps_points(
        at_bottom: f64,
        se_fraction: f64,
        theory_factor: Option<f64>,
    ) -> (Study, StudyAnalysis) {
        let s = study("gonzalez.toml", "ggp_sco_alg4_eps");
        let points = s.axes[0]
            .values
            .iter()
            .enumerate()
            .map(|(i, &eps)| {
                let mean = at_bottom * 0.1 / eps;
                crate::analyze::PointSummary {
                    point: i,
                    swept: vec![("eps".to_string(), eps)],
                    count: 10,
                    failed: 0,
                    mean,
                    median: mean,
                    q10: mean,
                    q90: mean,
                    se: se_fraction * mean,
                    ci_low: (1.0 - 2.0 * se_fraction) * mean,
                    ci_high: (1.0 + 2.0 * se_fraction) * mean,
                    theory: theory_factor.map_or(f64::NAN, |f| f * mean),
                    bound: f64::NAN,
                    reference: f64::NAN,
                    worst_case_at: None,
                }
            })
            .collect();
        let a = crate::analyze::judge_study(&s, points, Vec::new(), 0, 0);
        (s, a)
    }

    #[test]
    fn a_window_whose_edge_in_the_limit_is_at_the_trivial_value_has_nothing_farther() {
        // 0.46 >= 0.9 x 0.498 at the bottom edge, eps = 0.1.
        let (s, a) = alg4_eps_analysis(0.46);
        let fit = &a.slopes[0];
        assert_eq!(
            trivial_at_edge(&s, &a, fit, Limit::Small),
            Some((0.1, 0.46, 0.498))
        );
        // The top edge (eps = 0.9) is far below it: a growing limit has
        // a farther window to price.
        assert_eq!(trivial_at_edge(&s, &a, fit, Limit::Large), None);
        // Below the 0.9 fraction (0.44 < 0.448) the bottom is informative.
        let (s, a) = alg4_eps_analysis(0.44);
        assert_eq!(trivial_at_edge(&s, &a, &a.slopes[0], Limit::Small), None);
    }

    #[test]
    fn only_means_equal_to_the_theory_without_error_bars_are_the_curve_itself() {
        let curve = |se: f64, theory: Option<f64>| {
            let (_, a) = alg4_eps_points(0.2, se, theory);
            means_are_the_theory_curve(&a, &a.slopes[0])
        };
        assert!(curve(0.0, Some(1.0)));
        // A mean 1e-9 off its theory, an error bar, or no stored theory: data.
        assert!(!curve(0.0, Some(1.0 + 1e-9)));
        assert!(!curve(0.01, Some(1.0)));
        assert!(!curve(0.0, None));
    }

    #[test]
    fn a_grid_that_does_not_grow_has_no_decade() {
        assert!(decade_values("n", 1000.0, 1000.0).0.is_empty());
        assert!(decade_values("eps", 0.0, 1.0).0.is_empty());
        assert!(decade_values("n", f64::NAN, 1.0).0.is_empty());
    }
}
