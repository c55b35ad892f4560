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
                reference: None,
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
            verdict: "confirmed".into(),
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
        reference_label: String::new(),
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
        reference: None,
    });
    s.points.push(PlotPoint {
        x: 10.0,
        mean: 0.0,
        ci_low: -1.0,
        ci_high: f64::NAN,
        theory: Some(-3.0),
        bound: Some(f64::INFINITY),
        reference: None,
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

#[test]
fn a_long_title_shrinks_to_fit_and_a_short_one_keeps_its_size() {
    ensure_font().unwrap();
    let frame = Frame {
        width: WIDTH,
        height: HEIGHT,
        right_margin: MARGIN,
        y_area: 80,
    };
    assert_eq!(title_px("Excess risk vs n", &frame), TITLE_PX);
    let long = "F-C power regression (p = 3, kappa = 1.5, gamma ~ sqrt(d)), Algorithm 1 \
                (c_f = c_K = 4), n = 4096, x = 1e7: excess vs d";
    let px = title_px(long, &frame);
    assert!((MIN_TITLE_PX..TITLE_PX).contains(&px), "{px}");
    let font = FontDesc::new(FontFamily::Name(FONT), f64::from(px), FontStyle::Normal);
    let (w, _) = font.box_size(long).unwrap();
    assert!(w <= WIDTH - 2 * MARGIN, "{w}");
}

#[test]
fn reference_points_outside_the_y_range_are_left_out() {
    let seg = vec![
        (1.0, 1e-9),
        (2.0, 1e-3),
        (3.0, 1e-2),
        (4.0, 1e-9),
        (5.0, 1e-2),
    ];
    let runs = draw::clip_to_range(&[seg], (1e-4, 1.0));
    assert_eq!(runs, vec![vec![(2.0, 1e-3), (3.0, 1e-2)]]);
}

/// Centres `(cx, cy)` of every `<circle>` of an SVG (markers and legend icons).
fn circle_centres(svg: &str) -> Vec<(f64, f64)> {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        let end = start + tag[start..].find('"')?;
        tag[start..end].parse().ok()
    };
    svg.split("<circle")
        .skip(1)
        .filter_map(|t| Some((attr(t, "cx")?, attr(t, "cy")?)))
        .collect()
}

#[test]
fn panels_draw_each_figure_inside_its_own_cell() {
    let one = figure(vec![series("a", 0.5, 1.0, &grid(5))]);
    let alone = render(&one, &out_dir().join("panel_alone")).unwrap();
    let single = circle_centres(&std::fs::read_to_string(&alone[1]).unwrap());
    let paths = render_panels(
        &[one.clone(), one.clone(), one.clone()],
        2,
        &out_dir().join("panels"),
    )
    .unwrap();
    check(&paths);
    let svg = std::fs::read_to_string(&paths[1]).unwrap();
    let all = circle_centres(&svg);
    assert_eq!(
        all.len(),
        3 * single.len(),
        "every panel draws every marker"
    );
    // Panel k (column k % 2, row k / 2) must hold exactly the lone figure's
    // circles shifted by its cell's corner.
    for k in 0..3 {
        let (dx, dy) = (
            (k % 2) as f64 * WIDTH as f64,
            (k / 2) as f64 * HEIGHT as f64,
        );
        for &(x, y) in &single {
            assert!(
                all.iter()
                    .any(|&(ax, ay)| (ax - x - dx).abs() < 0.5 && (ay - y - dy).abs() < 0.5),
                "panel {k} lacks the circle at ({x}, {y}) shifted by ({dx}, {dy})"
            );
        }
    }
    assert!(render_panels(&[], 2, &out_dir().join("none")).is_err());
}
