//! Identity of the computation a results file holds: the hashes of the spec
//! and of each study that [`crate::store`] writes into the file and compares
//! on reopening it (`--reuse-unchanged` keeps the rows of studies whose hash
//! is unchanged; `runner merge` refuses parts written by another spec).

use crate::registry::Privacy;
use crate::seeds::SeedBuilder;
use crate::store::{SpecHashes, FORMAT_VERSION};
use crate::validate::{Experiment, Study};

/// Identity of the computation a results file holds: everything that changes
/// the cells' numbers (not titles or expectations, which only change the check).
pub fn spec_hash(e: &Experiment) -> String {
    let mut b = SeedBuilder::new(e.seed, "spec");
    b.push_u64(FORMAT_VERSION as u64).push_str(&e.name);
    b.push_str(e.profile.as_deref().unwrap_or("default"));
    for s in &e.studies {
        push_study(&mut b, s, true);
    }
    format!("{:016x}", b.finish())
}

/// Identity of one study's cells, without its repetition count: a cell's
/// seeds depend on its repetition index only, so the rows of a study with an
/// equal hash are the same computation whatever the number of repetitions
/// (what `--reuse-unchanged` relies on to keep them).
pub fn study_hash(e: &Experiment, s: &Study) -> String {
    let mut b = SeedBuilder::new(e.seed, "study");
    b.push_u64(FORMAT_VERSION as u64).push_str(&e.name);
    push_study(&mut b, s, false);
    format!("{:016x}", b.finish())
}

/// The hashes [`ResultsStore::open`](crate::store::ResultsStore::open) compares with a stored file.
pub fn spec_hashes(e: &Experiment) -> SpecHashes {
    SpecHashes {
        spec: spec_hash(e),
        studies: e.studies.iter().map(|s| study_hash(e, s)).collect(),
    }
}

fn push_study(b: &mut SeedBuilder, s: &Study, with_repetitions: bool) {
    b.push_str(&s.name).push_str(&s.metric);
    if with_repetitions {
        b.push_u64(s.repetitions as u64);
    }
    b.push_str(s.family.name).push_str(s.algorithm.name);
    if s.family.ground_truth_revision > 0 {
        // Only revised families enter the hash: every other study keeps its identity.
        b.push_str("ground_truth_revision")
            .push_u64(u64::from(s.family.ground_truth_revision));
    }
    for (k, v) in s.problem.iter().chain(s.options.iter()) {
        b.push_str(k).push_str(&format!("{v:?}"));
    }
    // The bytes of the (eps, delta, rho) fields this hash was first written
    // with, so stored results keep their identity.
    match s.privacy {
        Privacy::Approx(p) => b.push_f64(p.eps).push_f64(p.delta),
        Privacy::Zcdp(rho) => b.push_str("rho").push_f64(rho),
    };
    for a in &s.axes {
        b.push_str(&a.name);
        a.values.iter().for_each(|v| {
            b.push_f64(*v);
        });
    }
}
