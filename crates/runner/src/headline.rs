//! The headline table (table 1) as data: one row per fitted slope of every
//! study that declares `headline = { paper, theorem }`. [`crate::report`]
//! writes it at the top of the Markdown report and as `results/<name>.csv`
//! (the per-point summary then goes to `results/<name>-points.csv`), and
//! [`crate::figures`] draws it as one panel per row in
//! `figures/<name>/overview.png` and `.svg`.

use crate::analyze::StudyAnalysis;
use crate::format::{describe_values, sig};
use crate::registry::Privacy;
use crate::validate::{Experiment, Study};

/// One row of the headline table.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineRow {
    /// Index of the study in the experiment.
    pub study_index: usize,
    /// Index of the slope in the study's analysis.
    pub slope_index: usize,
    /// The paper.
    pub paper: String,
    /// The theorem or result.
    pub theorem: String,
    /// Registered algorithm name.
    pub algorithm: String,
    /// Registered problem family.
    pub family: String,
    /// Privacy notion with its fixed parameters, e.g. `(eps, delta)-DP, delta = 1e-6`.
    pub privacy: String,
    /// Swept variable (with the fixed values of other swept variables, if any).
    pub swept: String,
    /// Theory exponent as the check reads it, e.g. `-2.000 ± 0.15` or `<= -0.500 + 0.1`.
    pub theory: String,
    /// Declared theory exponent.
    pub theory_slope: f64,
    /// Fitted exponent.
    pub fitted: f64,
    /// Its 95% CI half-width.
    pub ci_half_width: f64,
    /// Fit window.
    pub window: (f64, f64),
    /// Largest mean/bound ratio of the study (NaN without a bound).
    pub bound_ratio: f64,
    /// The verdict on the fitted exponent's CI.
    pub verdict: crate::verdict::Verdict,
    /// Its reason, in numbers.
    pub reason: String,
}

/// The privacy notion of a study in words.
pub fn privacy_notion(study: &Study) -> String {
    let swept = |name: &str| study.axes.iter().any(|a| a.name == name);
    let p = match study.privacy {
        Privacy::Zcdp(_) => return "rho-zCDP".into(),
        Privacy::Approx(p) => p,
    };
    let eps = if swept("eps") {
        "eps swept".to_string()
    } else {
        format!("eps = {}", sig(p.eps))
    };
    if p.delta > 0.0 {
        format!("(eps, delta)-DP, {eps}, delta = {}", sig(p.delta))
    } else {
        format!("pure eps-DP, {eps}")
    }
}

/// The rows of every study with a `headline`, in study order, one per slope.
pub fn headline_rows(experiment: &Experiment, analyses: &[StudyAnalysis]) -> Vec<HeadlineRow> {
    let mut rows = Vec::new();
    for (i, (study, a)) in experiment.studies.iter().zip(analyses).enumerate() {
        let Some(h) = &study.headline else { continue };
        for (j, s) in a.slopes.iter().enumerate() {
            let swept = if s.at.is_empty() {
                s.param.clone()
            } else {
                format!("{} at {}", s.param, describe_values(&s.at))
            };
            rows.push(HeadlineRow {
                study_index: i,
                slope_index: j,
                paper: h.paper.clone(),
                theorem: h.theorem.clone(),
                algorithm: study.algorithm.name.to_string(),
                family: study.family.name.to_string(),
                privacy: privacy_notion(study),
                swept,
                theory: s.rule.describe(s.theory_slope, s.tolerance),
                theory_slope: s.theory_slope,
                fitted: s.fitted,
                ci_half_width: s.ci_half_width,
                window: s.window,
                bound_ratio: if a.bound_judgement.is_some() {
                    a.max_bound_ratio
                } else {
                    f64::NAN
                },
                verdict: s.judgement.verdict,
                reason: s.judgement.reason.clone(),
            });
        }
    }
    rows
}
