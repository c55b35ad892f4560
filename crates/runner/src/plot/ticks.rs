//! Number formatting and log-axis ticks.

use super::*;

// ---------------------------------------------------------------------------
// Number formatting and ticks
// ---------------------------------------------------------------------------

pub(super) fn superscript(n: i32) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            other => other,
        })
        .collect()
}

/// Formats `v` with three significant digits (`3.00`, `0.0123`, `1.23×10⁻⁴`).
pub(super) fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let e = v.abs().log10().floor() as i32;
    let scale = 10f64.powi(e - 2);
    let r = (v / scale).round() * scale;
    let e = r.abs().log10().floor() as i32;
    if (-2..=2).contains(&e) {
        format!("{:.*}", (2 - e).max(0) as usize, r)
    } else {
        format!("{:.2}×10{}", r / 10f64.powi(e), superscript(e))
    }
}

/// Label of a tick at `v = m·10^k` (single-digit `m`).
pub(super) fn tick_label(v: f64, scientific: bool) -> String {
    if !positive(v) {
        return String::new();
    }
    let k = (v.log10() + 1e-9).floor() as i32;
    if scientific {
        let m = (v / 10f64.powi(k)).round() as i64;
        if m == 1 {
            format!("10{}", superscript(k))
        } else {
            format!("{m}×10{}", superscript(k))
        }
    } else {
        format!("{:.*}", (-k).max(0) as usize, v)
    }
}

/// Axis ticks of a log axis: labelled major ticks, unlabelled minor grid
/// lines, and whether labels use scientific notation.
#[derive(Debug, Clone)]
pub(super) struct Ticks {
    pub(super) major: Vec<f64>,
    pub(super) minor: Vec<f64>,
    pub(super) scientific: bool,
}

pub(super) fn log_ticks(lo: f64, hi: f64, max_labels: usize) -> Ticks {
    let kmin = lo.log10().floor() as i32 - 1;
    let kmax = hi.log10().ceil() as i32 + 1;
    let inside = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let cands = |mults: &[u32]| -> Vec<f64> {
        let mut v = Vec::new();
        for k in kmin..=kmax {
            for &m in mults {
                let x = f64::from(m) * 10f64.powi(k);
                if inside(x) {
                    v.push(x);
                }
            }
        }
        v
    };
    let powers = cands(&[1]);
    let decades = (hi / lo).log10();
    let mut major;
    let mut minor;
    if powers.len() >= 3 {
        // Powers of ten only, every `stride`-th one labelled.
        let stride = powers.len().div_ceil(max_labels.max(2));
        let (m, skipped): (Vec<f64>, Vec<f64>) = powers.iter().partition(|v| {
            let k = (v.log10() + 1e-9).floor() as i32;
            k.rem_euclid(stride as i32) == 0
        });
        major = m;
        minor = skipped;
        if decades <= 6.0 {
            minor.extend(cands(&[2, 3, 4, 5, 6, 7, 8, 9]));
        }
    } else {
        // Narrow axis: add rounder multiples first, keeping labels apart.
        let min_gap = decades / (max_labels as f64 + 1.0);
        major = Vec::new();
        let tiers: [&[u32]; 4] = [&[1], &[2, 5], &[3], &[4, 6, 7, 8, 9]];
        for tier in tiers {
            for v in cands(tier) {
                if major
                    .iter()
                    .all(|&a: &f64| (a.log10() - v.log10()).abs() >= min_gap)
                {
                    major.push(v);
                }
            }
            if major.len() >= 3 {
                break;
            }
        }
        major.sort_by(f64::total_cmp);
        minor = cands(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        minor.retain(|v| !major.contains(v));
    }
    let scientific = major.iter().any(|&v| !(0.0099..=1000.1).contains(&v));
    Ticks {
        major,
        minor,
        scientific,
    }
}

/// Padded log range (in decades, i.e. log10 units) of the positive values.
pub(super) fn log_span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|&v| positive(v)) {
        let l = v.log10();
        lo = lo.min(l);
        hi = hi.max(l);
    }
    if !lo.is_finite() {
        return None;
    }
    let span = hi - lo;
    let shown = span.max(MIN_SPAN_DECADES);
    let pad = 0.5 * (shown - span) + PAD_FRACTION * shown;
    Some((lo - pad, hi + pad))
}
