//! The results file: `results/<name>.h5`, written with the pure-Rust `hdf5-pure`.
//!
//! Layout (one group per study, one 1-D dataset per column, rows sorted by
//! grid point then repetition so the bytes do not depend on thread count or
//! finishing order):
//!
//! ```text
//! /                          attrs: provenance (see provenance.rs), spec_hash, format_version
//! /studies/<study>/          attrs: family, algorithm, metric, swept, repetitions,
//!                                   study_hash (the study's cells without their count)
//!     cell/grid_point        u64   index of the grid point
//!     cell/repetition        u64
//!     seeds/data             u64   seed of the data stream
//!     seeds/noise            u64   seed of the noise stream
//!     params/<name>          f64   every numeric parameter (n, d, eps, delta, ...)
//!     outputs/<metric>       f64   the measured metric (NaN for failed cells)
//!     outputs/theory         f64   exact expected metric (NaN when unknown)
//!     outputs/bound          f64   theorem bound
//!     outputs/reference      f64   comparison curve (e.g. a printed bound the digest corrects; NaN if none)
//!     diagnostics/<name>     f64   algorithm diagnostics
//!     status/ok              u8    1 = success, 0 = failed
//!     status/error           vlen utf-8 string, empty on success
//!     timing/wall_seconds    f64   the only columns that may differ between runs
//!     timing/segment         u64   the run segment that computed the row (provenance.rs)
//! ```
//!
//! Crash safety: the single writer keeps every finished row in memory and, per
//! batch, writes a complete new file to `<name>.h5.tmp`, syncs it and renames
//! it over the old one. A rename is atomic, so a `SIGKILL` at any moment leaves
//! either the previous or the new complete file, never a torn one. The cost is
//! a rewrite per batch, negligible next to the cells at the sizes we run
//! (tens of thousands of rows).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use hdf5_pure::{AttrValue, File, FileBuilder};

use crate::plan::Plan;
use crate::provenance::{parse_segments, Provenance, Segment};
use crate::validate::{Experiment, Study};

/// Version of the on-disk layout.
pub const FORMAT_VERSION: i64 = 1;

/// The stored result of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRecord {
    /// Study index.
    pub study: usize,
    /// Grid point index.
    pub point: usize,
    /// Repetition.
    pub repetition: usize,
    /// Data seed.
    pub data_seed: u64,
    /// Noise seed.
    pub noise_seed: u64,
    /// Empty on success, else the failure message.
    pub error: String,
    /// Measured metric (NaN on failure).
    pub metric: f64,
    /// Exact expected metric.
    pub theory: f64,
    /// Theorem bound.
    pub bound: f64,
    /// Comparison curve (e.g. a printed bound the digest corrects).
    pub reference: f64,
    /// Algorithm diagnostics.
    pub diagnostics: Vec<f64>,
    /// Wall-clock seconds spent in the cell.
    pub wall_seconds: f64,
    /// Index of the run segment that computed it (root attribute `segments`).
    pub segment: usize,
}

impl CellRecord {
    /// Whether the cell succeeded.
    pub fn ok(&self) -> bool {
        self.error.is_empty()
    }
}

/// Key of a cell: (study, point, repetition).
pub type CellKey = (usize, usize, usize);

/// The hashes that identify an experiment's computation: the whole spec, and
/// each study's cells (in study order; see `identity::study_hash`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecHashes {
    /// Hash of the whole spec (profile and repetitions included).
    pub spec: String,
    /// Hash of each study's cells, repetition count excluded.
    pub studies: Vec<String>,
}

/// How [`ResultsStore::open`] treats an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Resume a file of the same spec; refuse one of a different spec.
    Resume,
    /// Start empty, whatever the file holds.
    Fresh,
    /// Like `Resume`, but for a file of a different spec keep the rows of
    /// every study whose hash is unchanged (repetitions beyond the new count
    /// dropped) and drop the rest.
    ReuseUnchanged,
}

/// The results file of one experiment and the rows it holds.
pub struct ResultsStore {
    path: PathBuf,
    hashes: SpecHashes,
    provenance: Provenance,
    /// Finished rows by key.
    pub records: BTreeMap<CellKey, CellRecord>,
    /// With [`OpenMode::ReuseUnchanged`] on a changed spec: the names of the
    /// studies whose rows were kept, and of those whose stored rows were dropped.
    pub reuse: Option<(Vec<String>, Vec<String>)>,
}

impl ResultsStore {
    /// Path of the results file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens `path` for `experiment`: reads existing rows if the file was written
    /// by the same spec; for a different spec, refuses ([`OpenMode::Resume`]),
    /// keeps the unchanged studies' rows ([`OpenMode::ReuseUnchanged`]) or
    /// starts empty ([`OpenMode::Fresh`]).
    /// Nothing is written until [`ResultsStore::flush`].
    pub fn open(
        path: &Path,
        experiment: &Experiment,
        plan: &Plan,
        hashes: &SpecHashes,
        provenance: Provenance,
        mode: OpenMode,
    ) -> Result<Self, StoreError> {
        let mut store = Self {
            path: path.to_path_buf(),
            hashes: hashes.clone(),
            provenance,
            records: BTreeMap::new(),
            reuse: None,
        };
        if mode == OpenMode::Fresh || !path.exists() {
            return Ok(store);
        }
        let stored = read_study_hashes(path).map_err(StoreError::Unreadable)?;
        let unchanged = stored.unchanged(experiment, hashes);
        let same_spec = stored.spec == hashes.spec;
        if !same_spec && mode == OpenMode::Resume {
            return Err(stored.spec_changed(path, experiment, hashes));
        }
        let keep = |s: usize| same_spec || unchanged[s];
        let existing = read_file_where(path, experiment, &keep).map_err(StoreError::Unreadable)?;
        if !same_spec {
            let (kept, dropped): (Vec<_>, Vec<_>) = experiment
                .studies
                .iter()
                .enumerate()
                .partition(|(s, _)| unchanged[*s]);
            let names =
                |v: Vec<(usize, &Study)>| v.into_iter().map(|(_, s)| s.name.clone()).collect();
            let dropped = dropped
                .into_iter()
                .filter(|(_, s)| stored.studies.contains_key(&s.name))
                .collect();
            store.reuse = Some((names(kept), names(dropped)));
        }
        let planned: BTreeMap<CellKey, (u64, u64)> = plan
            .cells
            .iter()
            .map(|c| {
                (
                    (c.study, c.point, c.repetition),
                    (c.data_seed, c.noise_seed),
                )
            })
            .collect();
        let segments = stored_segments(&existing);
        for r in existing.records {
            let key = (r.study, r.point, r.repetition);
            if !same_spec && r.repetition >= experiment.studies[r.study].repetitions {
                continue;
            }
            if planned.get(&key) != Some(&(r.data_seed, r.noise_seed)) {
                return Err(StoreError::Unreadable(anyhow::anyhow!(
                    "cell {key:?} in {} does not match the plan (seeds differ)",
                    path.display()
                )));
            }
            store.records.insert(key, r);
        }
        store.provenance.started_at = existing.started_at;
        store.provenance.earlier_segments = segments;
        Ok(store)
    }

    /// Adds rows computed by this invocation (stamped with its segment).
    pub fn add_computed(&mut self, rows: impl IntoIterator<Item = CellRecord>) {
        let segment = self.provenance.segment_index();
        self.extend(rows.into_iter().map(|mut r| {
            r.segment = segment;
            r
        }));
    }

    /// Adds finished rows (a later row for the same key replaces the earlier one).
    pub fn extend(&mut self, rows: impl IntoIterator<Item = CellRecord>) {
        for r in rows {
            self.records.insert((r.study, r.point, r.repetition), r);
        }
    }

    /// Writes the complete file atomically (temp file, fsync, rename).
    pub fn flush(&mut self, experiment: &Experiment, plan: &Plan) -> Result<()> {
        self.provenance.touch();
        let segment = self.provenance.segment_index();
        self.provenance.segment_cells = self
            .records
            .values()
            .filter(|r| r.segment == segment)
            .count();
        let bytes = build_file(self, experiment, plan)?;
        write_atomically(&self.path, &bytes)
    }
}

/// Replaces `path` by a file holding `bytes` so that a crash at any moment
/// leaves either the old or the new complete file: written to
/// `<path>.tmp`, synced, renamed over `path`, the directory synced. Both
/// stores (the sweep's and the audit's) write through it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("h5.tmp");
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    {
        let mut f =
            fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path).with_context(|| format!("renaming {} into place", tmp.display()))?;
    if let Some(dir) = path.parent() {
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Why a results file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file was produced by another spec.
    #[error(
        "{} was produced by a different spec (stored hash {stored}, current {current}); \
         {unchanged} of its {studies} studies are unchanged",
        path.display()
    )]
    SpecChanged {
        /// File.
        path: PathBuf,
        /// Hash stored in the file.
        stored: String,
        /// Hash of the current spec.
        current: String,
        /// How many of the current studies have an unchanged stored hash.
        unchanged: usize,
        /// How many studies the current spec has.
        studies: usize,
    },
    /// The file exists but cannot be read as results of this experiment.
    #[error("existing results file cannot be resumed: {0:#}")]
    Unreadable(anyhow::Error),
}

fn build_file(store: &ResultsStore, experiment: &Experiment, plan: &Plan) -> Result<Vec<u8>> {
    let mut fb = FileBuilder::new();
    fb.set_attr("format_version", AttrValue::I64(FORMAT_VERSION));
    fb.set_attr("spec_hash", AttrValue::String(store.hashes.spec.clone()));
    for (k, v) in store.provenance.attributes() {
        fb.set_attr(&k, AttrValue::String(v));
    }
    let mut studies = fb.create_group("studies");
    for (s, study) in experiment.studies.iter().enumerate() {
        let rows: Vec<&CellRecord> = store
            .records
            .range((s, 0, 0)..(s + 1, 0, 0))
            .map(|(_, r)| r)
            .collect();
        let mut g = studies.create_group(&study.name);
        g.set_attr("family", AttrValue::String(study.family.name.into()));
        g.set_attr("algorithm", AttrValue::String(study.algorithm.name.into()));
        g.set_attr("metric", AttrValue::String(study.metric.clone()));
        g.set_attr("title", AttrValue::String(study.title.clone()));
        let swept: Vec<String> = study.axes.iter().map(|a| a.name.clone()).collect();
        g.set_attr("swept", AttrValue::String(swept.join(",")));
        g.set_attr("repetitions", AttrValue::I64(study.repetitions as i64));
        g.set_attr(
            "study_hash",
            AttrValue::String(store.hashes.studies[s].clone()),
        );
        g.set_attr("rows", AttrValue::I64(rows.len() as i64));

        let u64col =
            |f: &dyn Fn(&CellRecord) -> u64| rows.iter().map(|r| f(r)).collect::<Vec<u64>>();
        let f64col =
            |f: &dyn Fn(&CellRecord) -> f64| rows.iter().map(|r| f(r)).collect::<Vec<f64>>();

        let mut cell = g.create_group("cell");
        cell.create_dataset("grid_point")
            .with_u64_data(&u64col(&|r| r.point as u64));
        cell.create_dataset("repetition")
            .with_u64_data(&u64col(&|r| r.repetition as u64));
        g.add_group(cell.finish());

        let mut seeds = g.create_group("seeds");
        seeds
            .create_dataset("data")
            .with_u64_data(&u64col(&|r| r.data_seed));
        seeds
            .create_dataset("noise")
            .with_u64_data(&u64col(&|r| r.noise_seed));
        g.add_group(seeds.finish());

        let mut params = g.create_group("params");
        let per_point: Vec<Vec<(String, f64)>> =
            plan.points[s].iter().map(|p| p.numeric_params()).collect();
        let names: Vec<&str> = per_point
            .first()
            .map(|p| p.iter().map(|(k, _)| k.as_str()).collect())
            .unwrap_or_default();
        for (j, name) in names.iter().enumerate() {
            let col: Vec<f64> = rows.iter().map(|r| per_point[r.point][j].1).collect();
            params.create_dataset(name).with_f64_data(&col);
        }
        g.add_group(params.finish());

        let mut outputs = g.create_group("outputs");
        outputs
            .create_dataset(&study.metric)
            .with_f64_data(&f64col(&|r| r.metric));
        outputs
            .create_dataset("theory")
            .with_f64_data(&f64col(&|r| r.theory));
        outputs
            .create_dataset("bound")
            .with_f64_data(&f64col(&|r| r.bound));
        outputs
            .create_dataset("reference")
            .with_f64_data(&f64col(&|r| r.reference));
        g.add_group(outputs.finish());

        let mut diag = g.create_group("diagnostics");
        for (j, name) in study.algorithm.diagnostics.iter().enumerate() {
            let col: Vec<f64> = rows
                .iter()
                .map(|r| r.diagnostics.get(j).copied().unwrap_or(f64::NAN))
                .collect();
            diag.create_dataset(name).with_f64_data(&col);
        }
        g.add_group(diag.finish());

        let mut status = g.create_group("status");
        status
            .create_dataset("ok")
            .with_u8_data(&rows.iter().map(|r| u8::from(r.ok())).collect::<Vec<u8>>());
        let errors: Vec<&str> = rows.iter().map(|r| r.error.as_str()).collect();
        status.create_dataset("error").with_vlen_strings(&errors);
        g.add_group(status.finish());

        let mut timing = g.create_group("timing");
        timing
            .create_dataset("wall_seconds")
            .with_f64_data(&f64col(&|r| r.wall_seconds));
        timing
            .create_dataset("segment")
            .with_u64_data(&u64col(&|r| r.segment as u64));
        g.add_group(timing.finish());

        studies.add_group(g.finish());
    }
    fb.add_group(studies.finish());
    Ok(fb.finish()?)
}

/// The content of an existing results file.
pub struct StoredResults {
    /// Spec hash attribute.
    pub spec_hash: String,
    /// Start time of the first session that wrote it.
    pub started_at: String,
    /// All root attributes as strings.
    pub attributes: BTreeMap<String, String>,
    /// Rows of the studies of `experiment` found in the file.
    pub records: Vec<CellRecord>,
}

/// An HDF5 attribute as text (strings as they are, others by `Debug`).
pub fn attr_string(v: &AttrValue) -> String {
    v.as_str()
        .map(str::to_string)
        .or_else(|| v.as_i64().map(|i| i.to_string()))
        .unwrap_or_else(|| format!("{v:?}"))
}

/// The run segments of a stored file; a file written before segments existed
/// counts as one segment described by its root attributes.
pub fn stored_segments(stored: &StoredResults) -> Vec<Segment> {
    match stored.attributes.get("segments") {
        Some(text) => parse_segments(text),
        None => {
            let get = |k: &str| stored.attributes.get(k).cloned().unwrap_or_default();
            vec![Segment {
                started_at: get("started_at"),
                finished_at: get("finished_at"),
                commit: get("git_commit"),
                host: get("host"),
                cells: stored.records.len(),
            }]
        }
    }
}

/// The spec hash of a results file and the hash of each study group that has one.
struct StoredHashes {
    spec: String,
    studies: BTreeMap<String, String>,
}

impl StoredHashes {
    /// For each study of `experiment`: whether the file holds it with an equal hash.
    fn unchanged(&self, experiment: &Experiment, hashes: &SpecHashes) -> Vec<bool> {
        experiment
            .studies
            .iter()
            .zip(&hashes.studies)
            .map(|(s, h)| self.studies.get(&s.name) == Some(h))
            .collect()
    }

    fn spec_changed(self, path: &Path, experiment: &Experiment, hashes: &SpecHashes) -> StoreError {
        let unchanged = self.unchanged(experiment, hashes);
        StoreError::SpecChanged {
            path: path.to_path_buf(),
            stored: self.spec,
            current: hashes.spec.clone(),
            unchanged: unchanged.iter().filter(|u| **u).count(),
            studies: unchanged.len(),
        }
    }
}

/// `Ok` if `path` was written by the spec with `hashes`, else
/// [`StoreError::SpecChanged`] (or `Unreadable`).
pub fn check_same_spec(
    path: &Path,
    experiment: &Experiment,
    hashes: &SpecHashes,
) -> Result<(), StoreError> {
    let stored = read_study_hashes(path).map_err(StoreError::Unreadable)?;
    if stored.spec == hashes.spec {
        Ok(())
    } else {
        Err(stored.spec_changed(path, experiment, hashes))
    }
}

fn read_study_hashes(path: &Path) -> Result<StoredHashes> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let spec = file
        .root()
        .attrs()?
        .get("spec_hash")
        .map(attr_string)
        .with_context(|| {
            format!(
                "{} is not a results file of this harness (no spec_hash)",
                path.display()
            )
        })?;
    let mut studies = BTreeMap::new();
    for name in file.group("studies")?.groups()? {
        let group = file.group(&format!("studies/{name}"))?;
        if let Some(h) = group.attrs()?.get("study_hash") {
            studies.insert(name, attr_string(h));
        }
    }
    Ok(StoredHashes { spec, studies })
}

/// Reads every row of the studies of `experiment` from `path`.
pub fn read_file(path: &Path, experiment: &Experiment) -> Result<StoredResults> {
    read_file_where(path, experiment, &|_| true)
}

/// Reads the rows of the studies of `experiment` (by index) that `keep` accepts.
fn read_file_where(
    path: &Path,
    experiment: &Experiment,
    keep: &dyn Fn(usize) -> bool,
) -> Result<StoredResults> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let attrs = file.root().attrs()?;
    let attributes: BTreeMap<String, String> = attrs
        .iter()
        .map(|(k, v)| (k.clone(), attr_string(v)))
        .collect();
    let Some(spec_hash) = attributes.get("spec_hash").cloned() else {
        bail!(
            "{} is not a results file of this harness (no spec_hash)",
            path.display()
        );
    };
    let mut records = Vec::new();
    let groups = file.group("studies")?.groups()?;
    for (s, study) in experiment.studies.iter().enumerate() {
        if !groups.contains(&study.name) || !keep(s) {
            continue;
        }
        let base = format!("studies/{}", study.name);
        let ds = |name: &str| file.dataset(&format!("{base}/{name}"));
        let points = ds("cell/grid_point")?.read_u64()?;
        let reps = ds("cell/repetition")?.read_u64()?;
        let data = ds("seeds/data")?.read_u64()?;
        let noise = ds("seeds/noise")?.read_u64()?;
        let metric = ds(&format!("outputs/{}", study.metric))?.read_f64()?;
        let theory = ds("outputs/theory")?.read_f64()?;
        let bound = ds("outputs/bound")?.read_f64()?;
        // Files written before the reference column existed read as NaN.
        let reference = ds("outputs/reference")
            .and_then(|d| d.read_f64())
            .unwrap_or_else(|_| vec![f64::NAN; bound.len()]);
        let errors = ds("status/error")?.read_string()?;
        let wall = ds("timing/wall_seconds")?.read_f64()?;
        // Files written before run segments existed: every row is segment 0.
        let segment = ds("timing/segment")
            .and_then(|d| d.read_u64())
            .unwrap_or_else(|_| vec![0; wall.len()]);
        let diags: Vec<Vec<f64>> = study
            .algorithm
            .diagnostics
            .iter()
            .map(|d| ds(&format!("diagnostics/{d}"))?.read_f64())
            .collect::<Result<_, _>>()?;
        for i in 0..points.len() {
            records.push(CellRecord {
                study: s,
                point: points[i] as usize,
                repetition: reps[i] as usize,
                data_seed: data[i],
                noise_seed: noise[i],
                error: errors[i].clone(),
                metric: metric[i],
                theory: theory[i],
                bound: bound[i],
                reference: reference[i],
                diagnostics: diags.iter().map(|c| c[i]).collect(),
                wall_seconds: wall[i],
                segment: segment[i] as usize,
            });
        }
    }
    Ok(StoredResults {
        spec_hash,
        started_at: attributes.get("started_at").cloned().unwrap_or_default(),
        attributes,
        records,
    })
}
