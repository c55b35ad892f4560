//! Layout: axis ranges, legend placement, canvas size.

use super::*;

// ---------------------------------------------------------------------------
// Layout: axis ranges, legend placement, canvas size
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub(super) frame: Frame,
    /// x range in decades (log10).
    pub(super) x: (f64, f64),
    /// y range in decades (log10).
    pub(super) y: (f64, f64),
    pub(super) legend: Vec<LegendEntry>,
    /// Top-left corner of the legend box (absolute pixels).
    pub(super) legend_at: (i32, i32),
    pub(super) legend_size: (i32, i32),
    pub(super) row_h: i32,
    /// Horizontal marker offset of each series in pixels (see module docs).
    pub(super) dodge: Vec<f64>,
    pub(super) empty: bool,
}

pub(super) fn x_values(prep: &[Prepared]) -> impl Iterator<Item = f64> + '_ {
    prep.iter().flat_map(|p| {
        p.markers
            .iter()
            .map(|m| m.x)
            .chain(p.bound.iter().flatten().map(|q| q.0))
            .chain(p.theory.iter().flatten().map(|q| q.0))
            .chain(p.fit.iter().flatten().map(|q| q.0))
    })
}

pub(super) fn y_values(prep: &[Prepared]) -> impl Iterator<Item = f64> + '_ {
    prep.iter().flat_map(|p| {
        p.markers
            .iter()
            .flat_map(|m| [m.mean, m.high, m.low.unwrap_or(m.mean)])
            .chain(p.bound.iter().flatten().map(|q| q.1))
            .chain(p.theory.iter().flatten().map(|q| q.1))
            .chain(p.fit.iter().flatten().map(|q| q.1))
    })
}

pub(super) fn chart_builder<'a, 'b, DB: DrawingBackend>(
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
        b.caption(title, (FONT, title_px(title, frame)));
    }
    b
}

/// The largest title font size, from [`TITLE_PX`] down to [`MIN_TITLE_PX`],
/// at which `title` fits above the plot (plotters centres the caption
/// between the margins, so a longer title would be cut at both ends).
pub(super) fn title_px(title: &str, frame: &Frame) -> u32 {
    let available = frame.width.saturating_sub(frame.right_margin + MARGIN);
    (MIN_TITLE_PX..=TITLE_PX)
        .rev()
        .find(|&px| {
            FontDesc::new(FontFamily::Name(FONT), f64::from(px), FontStyle::Normal)
                .box_size(title)
                .map_or(true, |(w, _)| w <= available)
        })
        .unwrap_or(MIN_TITLE_PX)
}

/// Canvas size and the parts of the chart layout that do not depend on the data ranges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Frame {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) right_margin: u32,
    /// Width of the y tick-label area (tick labels plus the rotated axis label).
    pub(super) y_area: u32,
}

/// Pixel rectangle of the plotting area of a frame (independent of the data ranges).
pub(super) fn plot_rect(title: &str, frame: &Frame) -> Result<PixRect> {
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
pub(super) struct PixRect {
    pub(super) x: Range<i32>,
    pub(super) y: Range<i32>,
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
pub(super) enum Corner {
    UpperRight,
    LowerLeft,
    UpperLeft,
    LowerRight,
}

/// Pixel samples of everything drawn in the plot, for legend collision tests.
pub(super) fn samples(
    prep: &[Prepared],
    rect: &PixRect,
    xr: (f64, f64),
    yr: (f64, f64),
) -> Vec<(f64, f64)> {
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

pub(super) fn legend_origin(rect: &PixRect, size: (i32, i32), corner: Corner) -> (i32, i32) {
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
pub(super) fn y_label_area(y: (f64, f64)) -> Result<u32> {
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

pub(super) fn plan_layout(fig: &Figure, prep: &[Prepared]) -> Result<Plan> {
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
pub(super) fn place_legend(
    fig: &Figure,
    prep: &[Prepared],
    plan: &mut Plan,
    y_area: u32,
) -> Result<()> {
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
pub(super) fn dodge(prep: &[Prepared], rect: &PixRect, xr: (f64, f64), yr: (f64, f64)) -> Vec<f64> {
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

pub(super) type LogAxis = WithKeyPoints<LogCoord<f64>>;

pub(super) fn axis(r: (f64, f64), max_labels: usize) -> (LogAxis, Ticks) {
    let (lo, hi) = (10f64.powf(r.0), 10f64.powf(r.1));
    let ticks = log_ticks(lo, hi, max_labels);
    let axis = (lo..hi)
        .log_scale()
        .with_key_points(ticks.major.clone())
        .with_light_points(ticks.minor.clone());
    (axis, ticks)
}
