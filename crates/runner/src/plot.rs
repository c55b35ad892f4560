//! "Rate vs theory" log-log figures.
//!
//! [`render`] draws one [`Figure`] to `<stem>.png` and `<stem>.svg`. Each
//! [`PlotSeries`] gets one colour from a fixed palette and shows
//!
//! * the measured means as filled circles with vertical confidence-interval
//!   bars (`ci_low..ci_high`),
//! * the theorem's bound ([`PlotPoint::bound`]) as a thin, lighter solid line,
//! * the scaled theoretical rate `c·theory` ([`PlotPoint::theory`],
//!   `c = `[`PlotSeries::theory_scale`]) as a dashed line,
//! * the fitted log-log slope ([`PlotSeries::fit`]) as a dotted line over its
//!   fit window; the slope, its CI half-width and the theoretical slope are
//!   written in the legend.
//!
//! Both axes are logarithmic. Non-positive or non-finite values cannot be
//! shown on a log axis and are skipped (a non-positive `ci_low` draws the
//! error bar down to the bottom of the axis, without a cap). When several
//! series share x values, their markers are shifted horizontally by a few
//! pixels so that the error bars do not hide each other; lines are not shifted.
//!
//! Text is rendered with the DejaVu Sans font bundled in
//! `assets/fonts/DejaVuSans.ttf`, registered with plotters' `ab_glyph` font
//! table under the family name `"sans-serif"`; no system font library is used.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, Context, Result};
use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The bundled font (DejaVu Sans, Bitstream Vera licence, see
/// `assets/fonts/LICENSE-DejaVu.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// Font family name used for every piece of text.
const FONT: &str = "sans-serif";

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 800;
const MARGIN: u32 = 18;
const TITLE_PX: u32 = 28;
const AXIS_DESC_PX: u32 = 24;
const TICK_PX: u32 = 20;
const LEGEND_PX: u32 = 19;
const X_LABEL_AREA: u32 = 70;
const MAX_X_LABELS: usize = 8;
const MAX_Y_LABELS: usize = 10;

const MARKER_RADIUS: i32 = 5;
const CAP_HALF_WIDTH: i32 = 5;
const STUB_HALF_WIDTH: i32 = 16;
const DODGE_PX: f64 = 6.0;
const THEORY_DASH: (i32, i32) = (12, 7);
const FIT_DASH: (i32, i32) = (3, 4);
const BOUND_ALPHA: f64 = 0.45;

const LEGEND_PAD: i32 = 10;
const LEGEND_ICON_W: i32 = 46;
const LEGEND_GAP: i32 = 8;
const LEGEND_INSET: i32 = 10;

/// Smallest displayed span of an axis, in decades.
const MIN_SPAN_DECADES: f64 = 1.0;
/// Padding on each side of an axis, as a fraction of the data span.
const PAD_FRACTION: f64 = 0.06;

/// Fixed palette (Tableau 10 without olive/cyan): distinguishable on screen and in print.
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// One measured grid point.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotPoint {
    /// Value of the swept parameter (x axis; must be positive to be drawn).
    pub x: f64,
    /// Mean of the measured quantity over repetitions (must be positive to be drawn).
    pub mean: f64,
    /// Lower end of the confidence interval of the mean.
    pub ci_low: f64,
    /// Upper end of the confidence interval of the mean.
    pub ci_high: f64,
    /// Theoretical rate (up to a constant) at `x`; drawn as `c·theory`.
    pub theory: Option<f64>,
    /// The theorem's explicit upper bound at `x`, if known.
    pub bound: Option<f64>,
}

/// A fitted log-log slope.
///
/// `ln(mean) ≈ intercept + slope·ln(x)` (natural logarithms) on `x` in `window`.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopeFit {
    /// Fitted slope of `ln(mean)` against `ln(x)`.
    pub slope: f64,
    /// Half-width of the confidence interval of the slope.
    pub ci_half_width: f64,
    /// Slope predicted by the theory.
    pub theory_slope: f64,
    /// Range of `x` the fit was computed on (inclusive); the fitted line is drawn over it.
    pub window: (f64, f64),
    /// Fitted intercept of `ln(mean)` (natural logarithm).
    pub intercept: f64,
}

/// One series (one curve of measured points, e.g. one algorithm or one value of a second swept parameter).
#[derive(Debug, Clone, PartialEq)]
pub struct PlotSeries {
    /// Legend label of the series (e.g. the algorithm name or `"ε = 1"`).
    pub label: String,
    /// Measured grid points (any order; they are sorted by `x` for drawing).
    pub points: Vec<PlotPoint>,
    /// Fitted log-log slopes (one per fit window, e.g. one per regime), each
    /// drawn as a dotted line over its window and reported in the legend.
    pub fits: Vec<SlopeFit>,
    /// Constant `c` of the dashed `c·theory` line; `None` draws `theory` unscaled.
    pub theory_scale: Option<f64>,
}

/// A whole figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Title drawn above the plot (empty: no title).
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// The series, each in its own colour (the palette repeats after 8 series).
    pub series: Vec<PlotSeries>,
    /// Legend name of the theorem's bound, e.g. `"Thm 3.1 bound"`.
    pub bound_label: String,
    /// Legend name of the theoretical rate, e.g. `"n^-1/2"`.
    pub theory_label: String,
}

/// Writes `<stem>.png` (1200x800 or so) and `<stem>.svg`; returns both paths.
///
/// The extensions are appended to `stem` (so `out/rate_eps0.5` gives
/// `out/rate_eps0.5.png`); missing parent directories are created. The canvas
/// is 1200x800 pixels, widened when the legend is too large to sit inside the
/// plot and is placed to its right instead.
pub fn render(figure: &Figure, stem: &Path) -> Result<Vec<PathBuf>> {
    ensure_font()?;
    if let Some(parent) = stem.parent() {
        if !parent.as_os_str().is_empty() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating directory {}", parent.display()))?;
        }
    }
    let png = with_suffix(stem, "png");
    let svg = with_suffix(stem, "svg");

    let prepared = prepare(figure);
    let plan = plan_layout(figure, &prepared)?;

    {
        let root =
            BitMapBackend::new(&png, (plan.frame.width, plan.frame.height)).into_drawing_area();
        draw(&root, figure, &prepared, &plan)?;
        root.present()
            .map_err(perr)
            .with_context(|| format!("writing {}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, (plan.frame.width, plan.frame.height)).into_drawing_area();
        draw(&root, figure, &prepared, &plan)?;
        root.present()
            .map_err(perr)
            .with_context(|| format!("writing {}", svg.display()))?;
    }
    Ok(vec![png, svg])
}

/// Registers the bundled font with plotters exactly once per process.
fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(anyhow!("the bundled DejaVuSans.ttf could not be parsed"))
    }
}

fn perr<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("plotting failed: {e:?}")
}

fn with_suffix(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

// ---------------------------------------------------------------------------
// Data preparation
// ---------------------------------------------------------------------------

/// A measured point that can be drawn on log axes.
#[derive(Debug, Clone, Copy)]
struct Marker {
    x: f64,
    mean: f64,
    /// `None` when `ci_low` is not positive: the bar runs to the axis bottom.
    low: Option<f64>,
    high: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Glyph {
    Measured { fit: bool },
    Fit,
    Bound,
    Theory,
}

#[derive(Debug, Clone)]
struct LegendEntry {
    glyph: Glyph,
    color: RGBColor,
    text: String,
}

#[derive(Debug, Clone)]
struct Prepared {
    color: RGBColor,
    markers: Vec<Marker>,
    bound: Vec<Vec<(f64, f64)>>,
    theory: Vec<Vec<(f64, f64)>>,
    fit: Vec<[(f64, f64); 2]>,
}

/// Splits `(x, y)` pairs (sorted by x) into runs of drawable points.
fn segments(pairs: impl Iterator<Item = Option<(f64, f64)>>) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur = Vec::new();
    for p in pairs {
        match p {
            Some((x, y)) if positive(x) && positive(y) => cur.push((x, y)),
            _ => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn prepare(fig: &Figure) -> Vec<Prepared> {
    let mut out = Vec::with_capacity(fig.series.len());
    for (i, s) in fig.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let mut pts: Vec<&PlotPoint> = s.points.iter().filter(|p| positive(p.x)).collect();
        pts.sort_by(|a, b| a.x.total_cmp(&b.x));

        let markers = pts
            .iter()
            .filter(|p| positive(p.mean))
            .map(|p| {
                let (lo, hi) = (p.ci_low.min(p.ci_high), p.ci_low.max(p.ci_high));
                Marker {
                    x: p.x,
                    mean: p.mean,
                    low: positive(lo).then_some(lo.min(p.mean)),
                    high: if hi.is_finite() {
                        hi.max(p.mean)
                    } else {
                        p.mean
                    },
                }
            })
            .collect();
        let bound = segments(pts.iter().map(|p| p.bound.map(|b| (p.x, b))));
        let c = s.theory_scale.unwrap_or(1.0);
        let theory = if positive(c) {
            segments(pts.iter().map(|p| p.theory.map(|t| (p.x, c * t))))
        } else {
            Vec::new()
        };
        let fit = s
            .fits
            .iter()
            .filter_map(|f| {
                let (a, b) = (f.window.0.min(f.window.1), f.window.0.max(f.window.1));
                let y = |x: f64| (f.intercept + f.slope * x.ln()).exp();
                let line = [(a, y(a)), (b, y(b))];
                line.iter()
                    .all(|&(x, y)| positive(x) && positive(y))
                    .then_some(line)
            })
            .collect();
        out.push(Prepared {
            color,
            markers,
            bound,
            theory,
            fit,
        });
    }

    out
}

fn legend_entries(fig: &Figure, prep: &[Prepared]) -> Vec<LegendEntry> {
    let mut out = Vec::new();
    for (s, p) in fig.series.iter().zip(prep) {
        let prefix = if s.label.is_empty() {
            String::new()
        } else {
            format!("{}: ", s.label)
        };
        let fit_text = |f: &SlopeFit| {
            let window = if s.fits.len() > 1 {
                format!(" on [{}, {}]", sig3(f.window.0), sig3(f.window.1))
            } else {
                String::new()
            };
            format!(
                "slope {:+.3} ± {:.3} (theory {:+.2}){window}",
                f.slope, f.ci_half_width, f.theory_slope
            )
        };
        if !p.markers.is_empty() || !p.fit.is_empty() {
            let text = match s.fits.first() {
                Some(f) => format!("{prefix}{}", fit_text(f)),
                None if s.label.is_empty() => "measured".to_string(),
                None => s.label.clone(),
            };
            out.push(LegendEntry {
                glyph: Glyph::Measured {
                    fit: !p.fit.is_empty(),
                },
                color: p.color,
                text,
            });
            for f in s.fits.iter().skip(1) {
                out.push(LegendEntry {
                    glyph: Glyph::Fit,
                    color: p.color,
                    text: format!("{prefix}{}", fit_text(f)),
                });
            }
        }
        if !p.bound.is_empty() {
            out.push(LegendEntry {
                glyph: Glyph::Bound,
                color: p.color,
                text: format!("{prefix}{}", fig.bound_label),
            });
        }
        if !p.theory.is_empty() {
            let text = match s.theory_scale {
                Some(c) => format!("{prefix}c·{}, c = {}", fig.theory_label, sig3(c)),
                None => format!("{prefix}{}", fig.theory_label),
            };
            out.push(LegendEntry {
                glyph: Glyph::Theory,
                color: p.color,
                text,
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Number formatting and ticks
// ---------------------------------------------------------------------------

fn superscript(n: i32) -> String {
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
fn sig3(v: f64) -> String {
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
fn tick_label(v: f64, scientific: bool) -> String {
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
struct Ticks {
    major: Vec<f64>,
    minor: Vec<f64>,
    scientific: bool,
}

fn log_ticks(lo: f64, hi: f64, max_labels: usize) -> Ticks {
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
fn log_span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
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

// ---------------------------------------------------------------------------
// Layout: axis ranges, legend placement, canvas size
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Plan {
    frame: Frame,
    /// x range in decades (log10).
    x: (f64, f64),
    /// y range in decades (log10).
    y: (f64, f64),
    legend: Vec<LegendEntry>,
    /// Top-left corner of the legend box (absolute pixels).
    legend_at: (i32, i32),
    legend_size: (i32, i32),
    row_h: i32,
    /// Horizontal marker offset of each series in pixels (see module docs).
    dodge: Vec<f64>,
    empty: bool,
}

fn x_values(prep: &[Prepared]) -> impl Iterator<Item = f64> + '_ {
    prep.iter().flat_map(|p| {
        p.markers
            .iter()
            .map(|m| m.x)
            .chain(p.bound.iter().flatten().map(|q| q.0))
            .chain(p.theory.iter().flatten().map(|q| q.0))
            .chain(p.fit.iter().flatten().map(|q| q.0))
    })
}

fn y_values(prep: &[Prepared]) -> impl Iterator<Item = f64> + '_ {
    prep.iter().flat_map(|p| {
        p.markers
            .iter()
            .flat_map(|m| [m.mean, m.high, m.low.unwrap_or(m.mean)])
            .chain(p.bound.iter().flatten().map(|q| q.1))
            .chain(p.theory.iter().flatten().map(|q| q.1))
            .chain(p.fit.iter().flatten().map(|q| q.1))
    })
}

fn chart_builder<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    title: &'b str,
    frame: &Frame,
) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(root);
    b.margin(MARGIN)
        .margin_right(frame.right_margin)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(frame.y_area);
    if !title.trim().is_empty() {
        b.caption(title, (FONT, TITLE_PX));
    }
    b
}

/// Canvas size and the parts of the chart layout that do not depend on the data ranges.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Frame {
    width: u32,
    height: u32,
    right_margin: u32,
    /// Width of the y tick-label area (tick labels plus the rotated axis label).
    y_area: u32,
}

/// Pixel rectangle of the plotting area of a frame (independent of the data ranges).
fn plot_rect(title: &str, frame: &Frame) -> Result<PixRect> {
    let mut buf = vec![0u8; frame.width as usize * frame.height as usize * 3];
    let root =
        BitMapBackend::with_buffer(&mut buf, (frame.width, frame.height)).into_drawing_area();
    let chart = chart_builder(&root, title, frame)
        .build_cartesian_2d((1.0..10.0).log_scale(), (1.0..10.0).log_scale())
        .map_err(perr)?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    Ok(PixRect { x: xr, y: yr })
}

#[derive(Debug, Clone)]
struct PixRect {
    x: Range<i32>,
    y: Range<i32>,
}

impl PixRect {
    fn w(&self) -> f64 {
        f64::from(self.x.end - self.x.start)
    }
    fn h(&self) -> f64 {
        f64::from(self.y.end - self.y.start)
    }
    fn px(&self, x: f64, r: (f64, f64)) -> f64 {
        f64::from(self.x.start) + (x.log10() - r.0) / (r.1 - r.0) * self.w()
    }
    fn py(&self, y: f64, r: (f64, f64)) -> f64 {
        f64::from(self.y.end) - (y.log10() - r.0) / (r.1 - r.0) * self.h()
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Corner {
    UpperRight,
    LowerLeft,
    UpperLeft,
    LowerRight,
}

/// Pixel samples of everything drawn in the plot, for legend collision tests.
fn samples(prep: &[Prepared], rect: &PixRect, xr: (f64, f64), yr: (f64, f64)) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let line = |a: (f64, f64), b: (f64, f64), out: &mut Vec<(f64, f64)>| {
        let n = ((b.0 - a.0).hypot(b.1 - a.1) / 4.0).ceil().max(1.0) as usize;
        for i in 0..=n {
            let t = i as f64 / n as f64;
            out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
        }
    };
    for p in prep {
        for m in &p.markers {
            let x = rect.px(m.x, xr);
            let top = rect.py(m.high, yr);
            let bot = m.low.map_or(f64::from(rect.y.end), |l| rect.py(l, yr));
            line((x, top), (x, bot), &mut out);
        }
        let fit: Vec<Vec<(f64, f64)>> = p.fit.iter().map(|f| f.to_vec()).collect();
        for seg in p.bound.iter().chain(&p.theory).chain(&fit) {
            if let [(x, y)] = seg[..] {
                let (cx, cy) = (rect.px(x, xr), rect.py(y, yr));
                let half = f64::from(STUB_HALF_WIDTH);
                line((cx - half, cy), (cx + half, cy), &mut out);
            }
            for w in seg.windows(2) {
                let a = (rect.px(w[0].0, xr), rect.py(w[0].1, yr));
                let b = (rect.px(w[1].0, xr), rect.py(w[1].1, yr));
                line(a, b, &mut out);
            }
        }
    }
    out
}

fn legend_origin(rect: &PixRect, size: (i32, i32), corner: Corner) -> (i32, i32) {
    let left = rect.x.start + LEGEND_INSET;
    let right = rect.x.end - LEGEND_INSET - size.0;
    let top = rect.y.start + LEGEND_INSET;
    let bottom = rect.y.end - LEGEND_INSET - size.1;
    match corner {
        Corner::UpperRight => (right, top),
        Corner::LowerLeft => (left, bottom),
        Corner::UpperLeft => (left, top),
        Corner::LowerRight => (right, bottom),
    }
}

/// Width needed left of the plot for the y tick labels and the y axis label.
fn y_label_area(y: (f64, f64)) -> Result<u32> {
    let ticks = log_ticks(10f64.powf(y.0), 10f64.powf(y.1), MAX_Y_LABELS);
    let font = FontDesc::new(
        FontFamily::Name(FONT),
        f64::from(TICK_PX),
        FontStyle::Normal,
    );
    let mut w = 0u32;
    for v in &ticks.major {
        w = w.max(
            font.box_size(&tick_label(*v, ticks.scientific))
                .map_err(perr)?
                .0,
        );
    }
    Ok(w + 30 + (f64::from(AXIS_DESC_PX) * 1.3) as u32)
}

fn plan_layout(fig: &Figure, prep: &[Prepared]) -> Result<Plan> {
    let legend = legend_entries(fig, prep);
    let font = FontDesc::new(
        FontFamily::Name(FONT),
        f64::from(LEGEND_PX),
        FontStyle::Normal,
    );
    let mut text_w = 0i32;
    for e in &legend {
        let (w, _) = font.box_size(&e.text).map_err(perr)?;
        text_w = text_w.max(w as i32);
    }
    let row_h = (f64::from(LEGEND_PX) * 1.6).round() as i32;
    let legend_size = if legend.is_empty() {
        (0, 0)
    } else {
        (
            2 * LEGEND_PAD + LEGEND_ICON_W + LEGEND_GAP + text_w,
            2 * LEGEND_PAD + row_h * (legend.len() as i32 - 1) + LEGEND_PX as i32 + 4,
        )
    };

    let xs = log_span(x_values(prep));
    let ys = log_span(y_values(prep));
    let empty = xs.is_none() || ys.is_none();
    let mut plan = Plan {
        frame: Frame {
            width: WIDTH,
            height: HEIGHT,
            right_margin: MARGIN,
            y_area: 0,
        },
        x: xs.unwrap_or((-0.1, 1.1)),
        y: ys.unwrap_or((-0.1, 1.1)),
        legend,
        legend_at: (0, 0),
        legend_size,
        row_h,
        dodge: vec![0.0; prep.len()],
        empty,
    };
    let base_y = plan.y;
    // The y label area depends on the tick labels, which depend on the final
    // y range (head-room for the legend); grow it until it is stable.
    let mut y_area = y_label_area(base_y)?;
    for _ in 0..3 {
        plan.y = base_y;
        place_legend(fig, prep, &mut plan, y_area)?;
        let need = y_label_area(plan.y)?.max(y_area);
        if need == y_area {
            break;
        }
        y_area = need;
    }
    let rect = plot_rect(&fig.title, &plan.frame)?;
    plan.dodge = dodge(prep, &rect, plan.x, plan.y);
    Ok(plan)
}

/// Chooses the frame, the legend position and the final y range.
fn place_legend(fig: &Figure, prep: &[Prepared], plan: &mut Plan, y_area: u32) -> Result<()> {
    plan.frame = Frame {
        width: WIDTH,
        height: HEIGHT,
        right_margin: MARGIN,
        y_area,
    };
    if plan.legend.is_empty() {
        return Ok(());
    }
    let legend_size = plan.legend_size;
    let rect = plot_rect(&fig.title, &plan.frame)?;
    let too_big =
        f64::from(legend_size.1) > 0.45 * rect.h() || f64::from(legend_size.0) > 0.62 * rect.w();
    if too_big {
        // Legend to the right of the plot, outside the axes.
        let extra = legend_size.0 as u32 + 2 * LEGEND_INSET as u32;
        plan.frame.width = WIDTH + extra;
        plan.frame.right_margin = MARGIN + extra;
        plan.frame.height =
            HEIGHT.max(legend_size.1 as u32 + 2 * (MARGIN + TITLE_PX) + X_LABEL_AREA);
        let rect = plot_rect(&fig.title, &plan.frame)?;
        plan.legend_at = (rect.x.end + 2 * LEGEND_INSET, rect.y.start);
        return Ok(());
    }

    // Inside the axes: the first corner (in preference order) that is free,
    // adding head- or foot-room to the y axis in steps until one is.
    let (x, y) = (plan.x, plan.y);
    let f = (f64::from(legend_size.1) + f64::from(LEGEND_INSET) + 8.0) / rect.h();
    let full_extra = f * (y.1 - y.0) / (1.0 - f);
    const STEPS: u32 = 4;
    let corners = [
        Corner::UpperRight,
        Corner::LowerLeft,
        Corner::UpperLeft,
        Corner::LowerRight,
    ];
    let mut best: Option<(usize, (f64, f64), Corner)> = None;
    'search: for step in 0..=STEPS {
        let extra = full_extra * f64::from(step) / f64::from(STEPS);
        for corner in corners {
            let yr = match corner {
                Corner::UpperRight | Corner::UpperLeft => (y.0, y.1 + extra),
                Corner::LowerLeft | Corner::LowerRight => (y.0 - extra, y.1),
            };
            let (ox, oy) = legend_origin(&rect, legend_size, corner);
            let (x0, x1) = (f64::from(ox) - 8.0, f64::from(ox + legend_size.0) + 8.0);
            let (y0, y1) = (f64::from(oy) - 8.0, f64::from(oy + legend_size.1) + 8.0);
            let hits = samples(prep, &rect, x, yr)
                .iter()
                .filter(|&&(px, py)| px >= x0 && px <= x1 && py >= y0 && py <= y1)
                .count();
            if best.as_ref().is_none_or(|b| hits < b.0) {
                best = Some((hits, yr, corner));
            }
            if hits == 0 {
                break 'search;
            }
        }
    }
    if let Some((_, yr, corner)) = best {
        plan.y = yr;
        plan.legend_at = legend_origin(&rect, legend_size, corner);
    }
    Ok(())
}

/// Marker offsets: only when error bars of different series at the same x
/// would overlap on screen.
fn dodge(prep: &[Prepared], rect: &PixRect, xr: (f64, f64), yr: (f64, f64)) -> Vec<f64> {
    let extent = |m: &Marker| {
        let top = rect.py(m.high, yr) - f64::from(MARKER_RADIUS);
        let bot =
            m.low.map_or(f64::from(rect.y.end), |l| rect.py(l, yr)) + f64::from(MARKER_RADIUS);
        (top, bot)
    };
    let mut overlap = false;
    for (i, p) in prep.iter().enumerate() {
        for q in &prep[i + 1..] {
            for a in &p.markers {
                for b in &q.markers {
                    let same_x = (rect.px(a.x, xr) - rect.px(b.x, xr)).abs() < 2.0 * DODGE_PX;
                    let (ea, eb) = (extent(a), extent(b));
                    overlap |= same_x && ea.0 <= eb.1 && eb.0 <= ea.1;
                }
            }
        }
    }
    let with_markers: Vec<usize> = (0..prep.len())
        .filter(|&i| !prep[i].markers.is_empty())
        .collect();
    let mut out = vec![0.0; prep.len()];
    if overlap {
        let n = with_markers.len() as f64;
        for (k, &i) in with_markers.iter().enumerate() {
            out[i] = (k as f64 - (n - 1.0) / 2.0) * DODGE_PX;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------

type LogAxis = WithKeyPoints<LogCoord<f64>>;

fn axis(r: (f64, f64), max_labels: usize) -> (LogAxis, Ticks) {
    let (lo, hi) = (10f64.powf(r.0), 10f64.powf(r.1));
    let ticks = log_ticks(lo, hi, max_labels);
    let axis = (lo..hi)
        .log_scale()
        .with_key_points(ticks.major.clone())
        .with_light_points(ticks.minor.clone());
    (axis, ticks)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
    prep: &[Prepared],
    plan: &Plan,
) -> Result<()> {
    root.fill(&WHITE).map_err(perr)?;
    let (x_axis, x_ticks) = axis(plan.x, MAX_X_LABELS);
    let (y_axis, y_ticks) = axis(plan.y, MAX_Y_LABELS);
    let y_lo = 10f64.powf(plan.y.0);
    let mut chart = chart_builder(root, &fig.title, &plan.frame)
        .build_cartesian_2d(x_axis, y_axis)
        .map_err(perr)?;

    let x_fmt = |v: &f64| tick_label(*v, x_ticks.scientific);
    let y_fmt = |v: &f64| tick_label(*v, y_ticks.scientific);
    chart
        .configure_mesh()
        .x_desc(fig.x_label.as_str())
        .y_desc(fig.y_label.as_str())
        .axis_desc_style((FONT, AXIS_DESC_PX))
        .label_style((FONT, TICK_PX))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .bold_line_style(RGBColor(200, 200, 200).stroke_width(1))
        .light_line_style(RGBColor(236, 236, 236).stroke_width(1))
        .axis_style(BLACK.stroke_width(1))
        .set_all_tick_mark_size(6)
        .draw()
        .map_err(perr)?;

    // Full frame around the plotting area.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    root.draw(&Rectangle::new(
        [(xr.start, yr.start), (xr.end - 1, yr.end - 1)],
        BLACK.stroke_width(1),
    ))
    .map_err(perr)?;

    if plan.empty {
        root.draw(&Text::new(
            "no positive data to plot",
            ((xr.start + xr.end) / 2, (yr.start + yr.end) / 2),
            (FONT, AXIS_DESC_PX)
                .into_font()
                .color(&RGBColor(120, 120, 120))
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))
        .map_err(perr)?;
    }

    // Lines, back to front: bound, theory, fit. A run of a single point is
    // drawn as a short horizontal stroke centred on it.
    let stub = |(cx, cy): (i32, i32)| vec![(cx - STUB_HALF_WIDTH, cy), (cx + STUB_HALF_WIDTH, cy)];
    for p in prep {
        let style = p.color.mix(BOUND_ALPHA).stroke_width(2);
        for seg in &p.bound {
            if let [only] = seg[..] {
                root.draw(&PathElement::new(stub(chart.backend_coord(&only)), style))
                    .map_err(perr)?;
            } else {
                chart
                    .draw_series(LineSeries::new(seg.iter().copied(), style))
                    .map_err(perr)?;
            }
        }
    }
    for p in prep {
        let style = p.color.stroke_width(2);
        let (dash, gap) = THEORY_DASH;
        for seg in &p.theory {
            if let [only] = seg[..] {
                root.draw(&DashedPathElement::new(
                    stub(chart.backend_coord(&only)),
                    dash,
                    gap,
                    style,
                ))
                .map_err(perr)?;
            } else {
                chart
                    .draw_series(DashedLineSeries::new(seg.iter().copied(), dash, gap, style))
                    .map_err(perr)?;
            }
        }
        for line in &p.fit {
            chart
                .draw_series(DashedLineSeries::new(
                    line.iter().copied(),
                    FIT_DASH.0,
                    FIT_DASH.1,
                    style,
                ))
                .map_err(perr)?;
        }
    }

    // Measured means with CI bars, in pixel space (for the dodge).
    for (p, dodge) in prep.iter().zip(&plan.dodge) {
        let style = p.color.stroke_width(2);
        for m in &p.markers {
            let (cx, cy) = chart.backend_coord(&(m.x, m.mean));
            let cx = cx + dodge.round() as i32;
            let top = chart.backend_coord(&(m.x, m.high)).1;
            let bot = chart.backend_coord(&(m.x, m.low.unwrap_or(y_lo))).1;
            root.draw(&PathElement::new(vec![(cx, top), (cx, bot)], style))
                .map_err(perr)?;
            let mut caps = vec![top];
            if m.low.is_some() {
                caps.push(bot);
            }
            for y in caps {
                root.draw(&PathElement::new(
                    vec![(cx - CAP_HALF_WIDTH, y), (cx + CAP_HALF_WIDTH, y)],
                    style,
                ))
                .map_err(perr)?;
            }
            root.draw(&Circle::new((cx, cy), MARKER_RADIUS, p.color.filled()))
                .map_err(perr)?;
            root.draw(&Circle::new((cx, cy), MARKER_RADIUS, WHITE.stroke_width(1)))
                .map_err(perr)?;
        }
    }

    draw_legend(root, plan)?;
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plan: &Plan) -> Result<()> {
    if plan.legend.is_empty() {
        return Ok(());
    }
    let (lx, ly) = plan.legend_at;
    let (w, h) = plan.legend_size;
    root.draw(&Rectangle::new(
        [(lx, ly), (lx + w, ly + h)],
        WHITE.mix(0.88).filled(),
    ))
    .map_err(perr)?;
    root.draw(&Rectangle::new(
        [(lx, ly), (lx + w, ly + h)],
        RGBColor(150, 150, 150).stroke_width(1),
    ))
    .map_err(perr)?;

    let font = (FONT, LEGEND_PX)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let first_center = ly + LEGEND_PAD + (LEGEND_PX as i32 + 4) / 2;
    for (i, e) in plan.legend.iter().enumerate() {
        let cy = first_center + i as i32 * plan.row_h;
        let x0 = lx + LEGEND_PAD;
        let x1 = x0 + LEGEND_ICON_W;
        match e.glyph {
            Glyph::Measured { fit } => {
                if fit {
                    root.draw(&DashedPathElement::new(
                        vec![(x0, cy), (x1, cy)],
                        FIT_DASH.0,
                        FIT_DASH.1,
                        e.color.stroke_width(2),
                    ))
                    .map_err(perr)?;
                }
                let cx = (x0 + x1) / 2;
                let style = e.color.stroke_width(2);
                let half = (LEGEND_PX as i32) / 2;
                root.draw(&PathElement::new(
                    vec![(cx, cy - half), (cx, cy + half)],
                    style,
                ))
                .map_err(perr)?;
                for y in [cy - half, cy + half] {
                    root.draw(&PathElement::new(
                        vec![(cx - CAP_HALF_WIDTH, y), (cx + CAP_HALF_WIDTH, y)],
                        style,
                    ))
                    .map_err(perr)?;
                }
                root.draw(&Circle::new((cx, cy), MARKER_RADIUS, e.color.filled()))
                    .map_err(perr)?;
                root.draw(&Circle::new((cx, cy), MARKER_RADIUS, WHITE.stroke_width(1)))
                    .map_err(perr)?;
            }
            Glyph::Fit => {
                root.draw(&DashedPathElement::new(
                    vec![(x0, cy), (x1, cy)],
                    FIT_DASH.0,
                    FIT_DASH.1,
                    e.color.stroke_width(2),
                ))
                .map_err(perr)?;
            }
            Glyph::Bound => {
                root.draw(&PathElement::new(
                    vec![(x0, cy), (x1, cy)],
                    e.color.mix(BOUND_ALPHA).stroke_width(2),
                ))
                .map_err(perr)?;
            }
            Glyph::Theory => {
                root.draw(&DashedPathElement::new(
                    vec![(x0, cy), (x1, cy)],
                    THEORY_DASH.0,
                    THEORY_DASH.1,
                    e.color.stroke_width(2),
                ))
                .map_err(perr)?;
            }
        }
        root.draw(&Text::new(
            e.text.as_str(),
            (x1 + LEGEND_GAP, cy),
            font.clone(),
        ))
        .map_err(perr)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(label: &str, k: f64, scale: f64, xs: &[f64]) -> PlotSeries {
        let points = xs
            .iter()
            .map(|&x| {
                let m = scale * x.powf(-k);
                PlotPoint {
                    x,
                    mean: m,
                    ci_low: 0.9 * m,
                    ci_high: 1.1 * m,
                    theory: Some(x.powf(-k)),
                    bound: Some(5.0 / 3.0 * scale * x.powf(-k)),
                }
            })
            .collect();
        PlotSeries {
            label: label.to_string(),
            points,
            fits: vec![SlopeFit {
                slope: -k + 0.013,
                ci_half_width: 0.041,
                theory_slope: -k,
                window: (xs[xs.len() / 2], xs[xs.len() - 1]),
                intercept: scale.ln(),
            }],
            theory_scale: Some(scale),
        }
    }

    fn grid(n: usize) -> Vec<f64> {
        (0..n).map(|i| 10f64.powf(1.0 + 0.5 * i as f64)).collect()
    }

    fn figure(series: Vec<PlotSeries>) -> Figure {
        Figure {
            title: "Excess risk of DP-SGD vs. sample size".to_string(),
            x_label: "sample size n".to_string(),
            y_label: "excess empirical risk".to_string(),
            series,
            bound_label: "Thm 3.1 bound".to_string(),
            theory_label: "n⁻²".to_string(),
        }
    }

    fn out_dir() -> PathBuf {
        let d = std::env::temp_dir().join("runner_plot_tests");
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn check(paths: &[PathBuf]) {
        assert_eq!(paths.len(), 2);
        let png = std::fs::read(&paths[0]).unwrap();
        assert!(png.len() > 10_000, "png too small: {}", png.len());
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(&paths[1]).unwrap();
        assert!(svg.len() > 2_000);
        assert!(svg.contains("<svg"));
        assert!(svg.contains("slope"));
    }

    #[test]
    fn two_series() {
        let xs = grid(8);
        let fig = figure(vec![
            series("DP-SGD", 2.0, 3.0, &xs),
            series("DP-GD", 1.5, 0.7, &xs),
        ]);
        let paths = render(&fig, &out_dir().join("two_series")).unwrap();
        check(&paths);
        assert!(paths[0].ends_with("two_series.png"));
        assert!(paths[1].ends_with("two_series.svg"));
        let svg = std::fs::read_to_string(&paths[1]).unwrap();
        assert!(svg.contains("DP-SGD: Thm 3.1 bound"));
        assert!(svg.contains("c = 3.00"));
    }

    #[test]
    fn single_series_and_short_series() {
        let xs = grid(8);
        check(
            &render(
                &figure(vec![series("DP-SGD", 2.0, 3.0, &xs)]),
                &out_dir().join("one"),
            )
            .unwrap(),
        );
        check(
            &render(
                &figure(vec![series("DP-SGD", 2.0, 3.0, &xs[..2])]),
                &out_dir().join("two_points"),
            )
            .unwrap(),
        );
    }

    #[test]
    fn single_point_and_bad_values() {
        let mut s = series("A", 1.0, 2.0, &[100.0]);
        s.points.push(PlotPoint {
            x: -1.0,
            mean: 1.0,
            ci_low: 0.5,
            ci_high: 2.0,
            theory: None,
            bound: None,
        });
        s.points.push(PlotPoint {
            x: 10.0,
            mean: 0.0,
            ci_low: -1.0,
            ci_high: f64::NAN,
            theory: Some(-3.0),
            bound: Some(f64::INFINITY),
        });
        check(&render(&figure(vec![s]), &out_dir().join("single")).unwrap());
        let empty = figure(vec![]);
        let paths = render(&empty, &out_dir().join("empty")).unwrap();
        assert!(paths[0].exists() && paths[1].exists());
    }

    #[test]
    fn formatting() {
        assert_eq!(sig3(3.0), "3.00");
        assert_eq!(sig3(0.012345), "0.0123");
        assert_eq!(sig3(123.4), "123");
        assert_eq!(sig3(9.996), "10.0");
        assert_eq!(sig3(12345.0), "1.23×10⁴");
        assert_eq!(sig3(-0.0004567), "-4.57×10⁻⁴");
        assert_eq!(tick_label(1e-4, true), "10⁻⁴");
        assert_eq!(tick_label(2e-4, true), "2×10⁻⁴");
        assert_eq!(tick_label(0.05, false), "0.05");
        assert_eq!(tick_label(200.0, false), "200");
        let t = log_ticks(3.0, 8.0, 8);
        assert!(t.major.len() >= 2);
        let t = log_ticks(1e-6, 1e6, 8);
        assert!(t.major.len() <= 8 && t.scientific);
    }
}
