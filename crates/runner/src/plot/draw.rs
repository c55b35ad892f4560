//! Drawing a prepared, laid-out figure on any plotters backend.

use super::*;

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
    prep: &[Prepared],
    plan: &Plan,
) -> Result<()> {
    root.fill(&WHITE).map_err(perr)?;
    let base = root.get_base_pixel();
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
                root.draw(&PathElement::new(
                    stub(relative(chart.backend_coord(&only), base)),
                    style,
                ))
                .map_err(perr)?;
            } else {
                chart
                    .draw_series(LineSeries::new(seg.iter().copied(), style))
                    .map_err(perr)?;
            }
        }
    }
    for p in prep {
        let style = p.color.mix(BOUND_ALPHA).stroke_width(2);
        let (dash, gap) = REFERENCE_DASH;
        // The y range covers markers, bounds and theory, not the reference:
        // its points outside the range are left out rather than drawn along an axis.
        for seg in clip_to_range(&p.reference, (y_lo, 10f64.powf(plan.y.1))) {
            chart
                .draw_series(DashedLineSeries::new(seg, dash, gap, style))
                .map_err(perr)?;
        }
    }
    for p in prep {
        let style = p.color.stroke_width(2);
        let (dash, gap) = THEORY_DASH;
        for seg in &p.theory {
            if let [only] = seg[..] {
                root.draw(&DashedPathElement::new(
                    stub(relative(chart.backend_coord(&only), base)),
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
        for m in &p.markers {
            let (cx, cy) = relative(chart.backend_coord(&(m.x, m.mean)), base);
            let cx = cx + dodge.round() as i32;
            let top = relative(chart.backend_coord(&(m.x, m.high)), base).1;
            let bot = relative(chart.backend_coord(&(m.x, m.low.unwrap_or(y_lo))), base).1;
            draw_measured(root, (cx, cy), (top, bot), m.low.is_some(), p.color)?;
        }
    }

    draw_legend(root, plan)?;
    Ok(())
}

/// A backend pixel relative to an area whose top-left corner is the backend
/// pixel `base` (the chart reports backend pixels, which differ from the
/// drawing area's own when it is a panel of a grid).
fn relative((x, y): (i32, i32), base: (i32, i32)) -> (i32, i32) {
    (x - base.0, y - base.1)
}

pub(super) fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plan: &Plan,
) -> Result<()> {
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
                    legend_stroke(root, (x0, x1, cy), Some(FIT_DASH), e.color.stroke_width(2))?;
                }
                let half = (LEGEND_PX as i32) / 2;
                draw_measured(
                    root,
                    ((x0 + x1) / 2, cy),
                    (cy - half, cy + half),
                    true,
                    e.color,
                )?;
            }
            Glyph::Fit => {
                legend_stroke(root, (x0, x1, cy), Some(FIT_DASH), e.color.stroke_width(2))?
            }
            Glyph::Bound => legend_stroke(
                root,
                (x0, x1, cy),
                None,
                e.color.mix(BOUND_ALPHA).stroke_width(2),
            )?,
            Glyph::Reference => legend_stroke(
                root,
                (x0, x1, cy),
                Some(REFERENCE_DASH),
                e.color.mix(BOUND_ALPHA).stroke_width(2),
            )?,
            Glyph::Theory => legend_stroke(
                root,
                (x0, x1, cy),
                Some(THEORY_DASH),
                e.color.stroke_width(2),
            )?,
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

/// A measured mean: a vertical CI bar from `top` to `bottom` with a cap at the
/// top (and at the bottom when `bottom_cap`), and a filled, white-rimmed marker
/// at `center`. Used for the plotted points and for their legend icon.
fn draw_measured<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    center: (i32, i32),
    (top, bottom): (i32, i32),
    bottom_cap: bool,
    color: RGBColor,
) -> Result<()> {
    let style = color.stroke_width(2);
    let cx = center.0;
    root.draw(&PathElement::new(vec![(cx, top), (cx, bottom)], style))
        .map_err(perr)?;
    let caps: &[i32] = if bottom_cap { &[top, bottom] } else { &[top] };
    for &y in caps {
        root.draw(&PathElement::new(
            vec![(cx - CAP_HALF_WIDTH, y), (cx + CAP_HALF_WIDTH, y)],
            style,
        ))
        .map_err(perr)?;
    }
    root.draw(&Circle::new(center, MARKER_RADIUS, color.filled()))
        .map_err(perr)?;
    root.draw(&Circle::new(center, MARKER_RADIUS, WHITE.stroke_width(1)))
        .map_err(perr)?;
    Ok(())
}

/// A legend line icon from `x0` to `x1` at height `y`: solid, or dashed with
/// `(dash, gap)` pixels, in the same style as the line it stands for.
fn legend_stroke<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x0, x1, y): (i32, i32, i32),
    dash: Option<(i32, i32)>,
    style: ShapeStyle,
) -> Result<()> {
    let points = vec![(x0, y), (x1, y)];
    match dash {
        Some((d, g)) => root.draw(&DashedPathElement::new(points, d, g, style)),
        None => root.draw(&PathElement::new(points, style)),
    }
    .map_err(perr)
}

/// The runs of consecutive points of `segments` whose y lies in `range`
/// (inclusive); a run of one point is dropped.
pub(super) fn clip_to_range(
    segments: &[Vec<(f64, f64)>],
    range: (f64, f64),
) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    for seg in segments {
        let mut run = Vec::new();
        for &(x, y) in seg {
            if y >= range.0 && y <= range.1 {
                run.push((x, y));
            } else if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
        }
        out.push(run);
    }
    out.retain(|r| r.len() > 1);
    out
}
