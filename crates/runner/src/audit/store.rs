//! The audit file: `results/<name>.h5`, one group per audit holding the
//! statistic of every run on each side, in run order.
//!
//! ```text
//! /                      attrs: provenance, format_version
//! /audits/<audit>/       attrs: identity (what the runs depend on), first_error
//!     d        f64       statistic of run i on D (NaN: the run failed)
//!     d_prime  f64       statistic of run i on D'
//! ```
//!
//! Crash safety as for the sweep's store: the whole file is rewritten to
//! `<name>.h5.tmp`, synced and renamed over the old one, so an interrupted
//! audit keeps every run flushed before the interruption. A rerun resumes an
//! audit whose identity is unchanged from its stored runs (the seeds are per
//! run index, so the runs are the same whether computed in one go or several).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hdf5_pure::{AttrValue, File, FileBuilder};

const FORMAT_VERSION: i64 = 1;

/// The runs of one audit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditRuns {
    /// What the runs depend on (algorithm, options, setting, run-at privacy, seed).
    pub identity: String,
    /// Statistics on `D`, in run order.
    pub d: Vec<f64>,
    /// Statistics on `D'`, in run order.
    pub d_prime: Vec<f64>,
    /// The first failed run's error (empty when none failed).
    pub first_error: String,
    /// Thread-seconds spent on the runs (each block's time on the thread
    /// that ran it), summed over resumed segments.
    pub seconds: f64,
    /// Bootstrap rates already computed on these runs, by what they depend
    /// on (`power::rate_key`: the estimator, claim, level, replicates, seed
    /// and run count): a resumed audit reads them back instead of
    /// recomputing every probe's bootstrap (about 35 minutes at the
    /// committed sizes, 2026-11-28).
    pub rates: BTreeMap<String, f64>,
}

/// The file, in memory.
#[derive(Debug)]
pub struct AuditStore {
    path: PathBuf,
    /// Runs by audit name.
    pub audits: BTreeMap<String, AuditRuns>,
    /// Root attributes written with every flush.
    pub attributes: Vec<(String, String)>,
}

impl AuditStore {
    /// Opens `path`: its stored runs when it exists (all discarded with
    /// `fresh`), none otherwise.
    pub fn open(path: &Path, fresh: bool) -> Result<Self> {
        let mut audits = BTreeMap::new();
        if path.exists() && !fresh {
            audits = read(path).with_context(|| {
                format!(
                    "{} cannot be resumed (move it away or pass --fresh)",
                    path.display()
                )
            })?;
        }
        Ok(Self {
            path: path.to_path_buf(),
            audits,
            attributes: Vec::new(),
        })
    }

    /// Writes the whole file atomically.
    pub fn flush(&self) -> Result<()> {
        let mut fb = FileBuilder::new();
        fb.set_attr("format_version", AttrValue::I64(FORMAT_VERSION));
        for (k, v) in &self.attributes {
            fb.set_attr(k, AttrValue::String(v.clone()));
        }
        let mut group = fb.create_group("audits");
        for (name, runs) in &self.audits {
            let mut g = group.create_group(name);
            g.set_attr("identity", AttrValue::String(runs.identity.clone()));
            g.set_attr("first_error", AttrValue::String(runs.first_error.clone()));
            g.set_attr("seconds", AttrValue::String(format!("{:.3}", runs.seconds)));
            // `{:?}` prints the shortest text that reads back to the same f64.
            let rates: Vec<String> = runs
                .rates
                .iter()
                .map(|(k, r)| format!("{k}\t{r:?}"))
                .collect();
            g.set_attr("rates", AttrValue::String(rates.join("\n")));
            g.create_dataset("d").with_f64_data(&runs.d);
            g.create_dataset("d_prime").with_f64_data(&runs.d_prime);
            group.add_group(g.finish());
        }
        fb.add_group(group.finish());
        let bytes = fb.finish()?;
        crate::store::write_atomically(&self.path, &bytes)
    }
}

fn read(path: &Path) -> Result<BTreeMap<String, AuditRuns>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut audits = BTreeMap::new();
    for name in file.group("audits")?.groups()? {
        let base = format!("audits/{name}");
        let attrs = file.group(&base)?.attrs()?;
        let get = |k: &str| {
            attrs
                .get(k)
                .map(crate::store::attr_string)
                .unwrap_or_default()
        };
        let runs = AuditRuns {
            identity: get("identity"),
            first_error: get("first_error"),
            seconds: get("seconds").parse().unwrap_or(0.0),
            // Absent in files written before rates were kept: none known.
            rates: get("rates")
                .lines()
                .filter_map(|l| {
                    let (k, r) = l.rsplit_once('\t')?;
                    Some((k.to_string(), r.parse().ok()?))
                })
                .collect(),
            d: file.dataset(&format!("{base}/d"))?.read_f64()?,
            d_prime: file.dataset(&format!("{base}/d_prime"))?.read_f64()?,
        };
        audits.insert(name, runs);
    }
    Ok(audits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flushed_file_reads_back_bit_for_bit() {
        let dir = std::env::temp_dir().join(format!("audit-store-{}", std::process::id()));
        let path = dir.join("a.h5");
        let mut store = AuditStore::open(&path, true).unwrap();
        store.attributes.push(("git_commit".into(), "abc".into()));
        store.audits.insert(
            "x".into(),
            AuditRuns {
                identity: "id".into(),
                d: vec![0.5, f64::NAN, -1e-300],
                d_prime: vec![1.0, 2.0],
                first_error: "boom".into(),
                seconds: 1.5,
                rates: BTreeMap::from([("Threshold|1|2".to_string(), 0.1 + 0.2)]),
            },
        );
        store.flush().unwrap();
        let back = AuditStore::open(&path, false).unwrap();
        let (a, b) = (&store.audits["x"], &back.audits["x"]);
        assert_eq!(a.identity, b.identity);
        assert_eq!(a.first_error, b.first_error);
        assert_eq!(a.seconds, b.seconds);
        assert_eq!(a.rates, b.rates, "rates read back to the same f64");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.d), bits(&b.d));
        assert_eq!(bits(&a.d_prime), bits(&b.d_prime));
        assert!(AuditStore::open(&path, true).unwrap().audits.is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
