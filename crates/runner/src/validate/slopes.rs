//! Slope expectations: each expected slope of a study, resolved against the
//! swept axes and checked to have a usable fit window.

use std::collections::BTreeSet;

use super::{join, Axis, SlopeCheck};
use crate::diagnostics::{PathSeg, SpecError, SpecLocator};
use crate::spec::{ExpectSpec, OneOrMany, SlopeExpectation};
use crate::toml_path;

/// Every slope expectation of a study's `expect` (written at `expect_path`),
/// in the order written (parameters by name); `swept` names the `axes`.
pub(super) fn resolve_slopes(
    loc: &SpecLocator,
    expect: &ExpectSpec,
    expect_path: &[PathSeg],
    axes: &[Axis],
    swept: &BTreeSet<&str>,
) -> Result<Vec<SlopeCheck>, SpecError> {
    let mut slopes = Vec::new();
    for (param, expectations) in &expect.slopes {
        for (j, exp) in expectations.as_slice().iter().enumerate() {
            let mut path = join(expect_path, &toml_path!["slopes", param]);
            if matches!(expectations, OneOrMany::Many(_)) {
                path.push(PathSeg::Index(j));
            }
            slopes.push(resolve_slope(loc, axes, swept, param, exp, &path)?);
        }
    }
    Ok(slopes)
}

fn resolve_slope(
    loc: &SpecLocator,
    axes: &[Axis],
    swept: &BTreeSet<&str>,
    param: &str,
    exp: &SlopeExpectation,
    path: &[PathSeg],
) -> Result<SlopeCheck, SpecError> {
    let Some(axis) = axes.iter().find(|a| a.name == param) else {
        return Err(loc.error(
            path,
            format!("slope expected for `{param}`, which is not swept"),
            format!("swept parameters: {swept:?}"),
        ));
    };
    let reported = exp.side == crate::spec::SlopeSide::Reported;
    let tolerance_ok = exp.tolerance.is_finite() && (exp.tolerance > 0.0 || reported);
    if !(tolerance_ok && exp.slope.is_finite()) {
        return Err(loc.error(
            path,
            format!(
                "slope {} with tolerance {} is not usable",
                exp.slope, exp.tolerance
            ),
            "give a finite slope and a tolerance > 0",
        ));
    }
    let window = exp.fit.unwrap_or_else(|| {
        let lo = axis.values.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = axis.values.iter().cloned().fold(0.0, f64::max);
        [lo, hi]
    });
    let wpath = join(path, &toml_path!["fit"]);
    if !(window[0] > 0.0 && window[0] < window[1]) {
        return Err(loc.error(
            &wpath,
            format!(
                "fit window [{}, {}] is not a positive interval",
                window[0], window[1]
            ),
            "write fit = [lo, hi] with 0 < lo < hi",
        ));
    }
    let inside = axis
        .values
        .iter()
        .filter(|&&v| in_window(v, (window[0], window[1])))
        .count();
    if inside < 3 {
        return Err(loc.error(
            &wpath,
            format!(
                "fit window [{}, {}] contains {inside} grid values of `{param}`",
                window[0], window[1]
            ),
            "a slope with a confidence interval needs at least 3 grid values inside the window",
        ));
    }
    Ok(SlopeCheck {
        param: param.to_string(),
        slope: exp.slope,
        tolerance: exp.tolerance,
        side: exp.side,
        window: (window[0], window[1]),
        revised: exp.revised.clone(),
        regime_not_reached: exp.regime_not_reached.clone(),
        claim_rule: None,
    })
}

/// Whether `x` lies in the inclusive window (with a relative slack of 1e-9 for
/// values produced by a log range).
pub fn in_window(x: f64, window: (f64, f64)) -> bool {
    x >= window.0 * (1.0 - 1e-9) && x <= window.1 * (1.0 + 1e-9)
}
