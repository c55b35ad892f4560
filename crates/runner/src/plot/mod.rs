//! "Rate vs theory" log-log figures.
//!
//! [`render`] draws one [`Figure`] to `<stem>.png` and `<stem>.svg`. Each
//! [`PlotSeries`] gets one colour from a fixed palette and shows
//!
//! * the measured means as filled circles with vertical confidence-interval
//!   bars (`ci_low..ci_high`),
//! * the theorem's bound ([`PlotPoint::bound`]) as a thin, lighter solid line,
//! * an optional comparison curve ([`PlotPoint::reference`], e.g. a printed
//!   bound the digest corrects) as a lighter long-dashed line,
//! * the scaled theoretical rate `c·theory` ([`PlotPoint::theory`],
//!   `c = `[`PlotSeries::theory_scale`]) as a dashed line,
//! * each fitted log-log slope ([`PlotSeries::fits`]) as a dotted line over
//!   its fit window; the slope, its CI half-width and the theoretical slope
//!   are written in the legend.
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

mod draw;
mod layout;
#[cfg(test)]
mod tests;
mod ticks;

use draw::*;
use layout::*;
use ticks::*;

/// The bundled font (DejaVu Sans, Bitstream Vera licence, see
/// `assets/fonts/LICENSE-DejaVu.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Font family name used for every piece of text.
const FONT: &str = "sans-serif";

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 800;
const MARGIN: u32 = 18;
const TITLE_PX: u32 = 28;
/// Smallest title font size [`layout::title_px`] shrinks a long title to.
const MIN_TITLE_PX: u32 = 14;
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
const REFERENCE_DASH: (i32, i32) = (18, 6);

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
    /// A comparison curve at `x` (e.g. the printed form of a corrected bound).
    pub reference: Option<f64>,
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
    /// The verdict on the slope's CI (`confirmed`, `contradicted`, ...),
    /// shown in the legend; empty for none.
    pub verdict: String,
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
    /// Legend name of the comparison curve.
    pub reference_label: String,
}

/// Writes `<stem>.png` (1200x800 or so) and `<stem>.svg`; returns both paths.
///
/// The extensions are appended to `stem` (so `out/rate_eps0.5` gives
/// `out/rate_eps0.5.png`); missing parent directories are created. The canvas
/// is 1200x800 pixels, widened when the legend is too large to sit inside the
/// plot and is placed to its right instead.
pub fn render(figure: &Figure, stem: &Path) -> Result<Vec<PathBuf>> {
    ensure_font()?;
    create_parent(stem)?;
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

/// Writes `<stem>.png` and `<stem>.svg` with every figure as one panel of a
/// grid `columns` wide (rows as needed), each laid out exactly as [`render`]
/// would draw it alone; returns both paths. Fails on an empty list.
pub fn render_panels(figures: &[Figure], columns: usize, stem: &Path) -> Result<Vec<PathBuf>> {
    ensure_font()?;
    if figures.is_empty() || columns == 0 {
        return Err(anyhow!(
            "a panel grid needs at least one figure and one column"
        ));
    }
    create_parent(stem)?;
    let panels = figures
        .iter()
        .map(|f| {
            let prepared = prepare(f);
            plan_layout(f, &prepared).map(|plan| (f, prepared, plan))
        })
        .collect::<Result<Vec<_>>>()?;
    let cell_w = panels
        .iter()
        .map(|p| p.2.frame.width)
        .max()
        .unwrap_or(WIDTH);
    let cell_h = panels
        .iter()
        .map(|p| p.2.frame.height)
        .max()
        .unwrap_or(HEIGHT);
    let columns = columns.min(figures.len());
    let rows = figures.len().div_ceil(columns);
    let size = (cell_w * columns as u32, cell_h * rows as u32);
    let png = with_suffix(stem, "png");
    let svg = with_suffix(stem, "svg");
    fn draw_grid<DB: DrawingBackend>(
        root: &DrawingArea<DB, Shift>,
        panels: &[(&Figure, Vec<Prepared>, Plan)],
        columns: usize,
    ) -> Result<()> {
        root.fill(&WHITE).map_err(perr)?;
        let rows = panels.len().div_ceil(columns);
        let cells = root.split_evenly((rows, columns));
        for ((fig, prepared, plan), cell_area) in panels.iter().zip(&cells) {
            let area = cell_area
                .clone()
                .shrink((0, 0), (plan.frame.width, plan.frame.height));
            draw(&area, fig, prepared, plan)?;
        }
        Ok(())
    }
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw_grid(&root, &panels, columns)?;
        root.present()
            .map_err(perr)
            .with_context(|| format!("writing {}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw_grid(&root, &panels, columns)?;
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

/// Creates the missing parent directories of `stem`.
fn create_parent(stem: &Path) -> Result<()> {
    if let Some(parent) = stem.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating directory {}", parent.display()))?;
    }
    Ok(())
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
    Reference,
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
    reference: Vec<Vec<(f64, f64)>>,
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
        let reference = segments(pts.iter().map(|p| p.reference.map(|b| (p.x, b))));
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
            reference,
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
            let verdict = if f.verdict.is_empty() {
                String::new()
            } else {
                format!(": {}", f.verdict)
            };
            format!(
                "slope {:+.3} ± {:.3} (theory {:+.2}){window}{verdict}",
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
        if !p.reference.is_empty() {
            out.push(LegendEntry {
                glyph: Glyph::Reference,
                color: p.color,
                text: format!("{prefix}{}", fig.reference_label),
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
