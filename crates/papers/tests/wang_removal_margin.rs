//! The removal-margin tool (`papers::wang::removal_margin::run`, the body of
//! `runner removal-margin`; Wang–Zhu–Wang Figures 2–3, digest §5) on planted
//! twin data, from CSV and from HDF5: the SVM margin is 0 for the first
//! `m - 1` removals (one member of each contradictory pair must go) and,
//! once the `m` planted outliers are gone, the exact margin of the remainder
//! equals the planted `gamma*` (anchor pair) when every removed point was a
//! flipped copy. Deterministic (fixed data seed).

use std::path::{Path, PathBuf};

use datagen::wang::{HalfspaceParams, PlantedHalfspace};
use dpcore::halfspace::HalfspaceProblem;
use papers::wang::removal_margin::{run, RemovalMarginArgs};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("papers-test-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const M: usize = 5;
const GAMMA: f64 = 0.3;

fn planted() -> PlantedHalfspace {
    let params = HalfspaceParams::isotropic(200, 8, GAMMA, M);
    PlantedHalfspace::generate(params, &mut Pcg64::seed_from_u64(3)).unwrap()
}

fn write_csv(p: &PlantedHalfspace, path: &Path) {
    let mut s = String::from("label");
    for j in 0..p.dim() {
        s.push_str(&format!(",f{j}"));
    }
    s.push('\n');
    for i in 0..p.num_records() {
        s.push_str(&format!("{}", p.labels()[i]));
        for v in p.row(i) {
            s.push_str(&format!(",{v:e}"));
        }
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

fn write_h5(p: &PlantedHalfspace, path: &Path) {
    let mut fb = hdf5_pure::FileBuilder::new();
    fb.create_dataset("features")
        .with_f64_data(p.features())
        .with_shape(&[p.num_records() as u64, p.dim() as u64]);
    fb.create_dataset("labels").with_f64_data(p.labels());
    fb.write(path).unwrap();
}

/// Runs the tool and returns the CSV rows as
/// (removed, svm margin, exact lower, exact upper, removed index).
fn curve(s: &Scratch, input: &Path) -> Vec<(usize, f64, f64, f64, Option<usize>)> {
    let out_csv = s.path("curve.csv");
    run(&RemovalMarginArgs {
        file: input.to_path_buf(),
        out: Some(out_csv.clone()),
        figure: Some(s.path("curve.svg")),
        max_percent: 5.0,
        svm_c: 1.0,
        no_exact: false,
    })
    .unwrap();
    assert!(s.path("curve.svg").exists());
    let text = std::fs::read_to_string(&out_csv).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().ok(),
            )
        })
        .collect()
}

fn assert_jump_at_m(p: &PlantedHalfspace, rows: &[(usize, f64, f64, f64, Option<usize>)]) {
    // 5% of n = 10 removals, 11 points.
    assert_eq!(rows.len(), 11);
    for r in &rows[..M] {
        assert_eq!(r.1, 0.0, "margin before {M} removals: {rows:?}");
    }
    let removed: Vec<usize> = rows[..M].iter().map(|r| r.4.unwrap()).collect();
    let all_outliers = removed.iter().all(|&i| p.is_outlier(i));
    let after = rows[M];
    assert!(
        after.1 > 0.0,
        "separable after exactly {M} removals: {rows:?}"
    );
    if all_outliers {
        // The remainder is S_in: its exact margin is gamma* (anchor pair),
        // certified by [lower, upper].
        assert!(
            after.2 <= GAMMA + 1e-9 && after.3 >= GAMMA - 1e-9,
            "{after:?}"
        );
        assert!((after.2 - GAMMA).abs() < 1e-3 * GAMMA, "{after:?}");
    } else {
        // An original was removed instead of its flipped copy (digest §5
        // item 5): the margin is then positive but not pinned to gamma*.
        assert!(after.2 > 0.0);
    }
}

#[test]
fn planted_twins_jump_after_exactly_m_removals_from_csv() {
    let s = Scratch::new("wang-removal-csv");
    let p = planted();
    let path = s.path("twins.csv");
    write_csv(&p, &path);
    let rows = curve(&s, &path);
    assert_jump_at_m(&p, &rows);
}

#[test]
fn hdf5_input_gives_the_same_curve_as_csv() {
    let s = Scratch::new("wang-removal-h5");
    let p = planted();
    let (csv, h5) = (s.path("twins.csv"), s.path("twins.h5"));
    write_csv(&p, &csv);
    write_h5(&p, &h5);
    let from_csv = curve(&s, &csv);
    let from_h5 = curve(&s, &h5);
    assert_jump_at_m(&p, &from_h5);
    for (a, b) in from_csv.iter().zip(&from_h5) {
        assert_eq!(a.0, b.0);
        assert_eq!(a.4, b.4);
        assert!((a.1 - b.1).abs() < 1e-9, "{a:?} vs {b:?}");
    }
}
