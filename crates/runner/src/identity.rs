//! Identity of the computation a results file holds: the hashes of the spec
//! and of each study that [`crate::store`] writes into the file and compares
//! on reopening it (`--reuse-unchanged` keeps the rows of studies whose hash
//! is unchanged; `runner merge` refuses parts written by another spec).

use crate::registry::{declared_default, late_at_default, ParamDef, ParamRole, Privacy, Value};
use crate::seeds::SeedBuilder;
use crate::store::{SpecHashes, FORMAT_VERSION};
use crate::validate::{Experiment, Study, Target};

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

/// The text a value enters the hash as. A swept parameter enters as the
/// placeholder the resolver held before it took the first grid value: the
/// declared default, or `Num(NaN)` when the parameter has none. No cell reads
/// it; it keeps every stored study's identity (pinned by
/// `tests/identity_hashes.rs`).
fn identity_text(s: &Study, defs: &[ParamDef], target: Target, name: &str, v: &Value) -> String {
    let swept = s.axes.iter().any(|a| a.target == target && a.name == name);
    if !swept {
        return format!("{v:?}");
    }
    let default = defs
        .iter()
        .find(|d| d.name == name)
        .and_then(declared_default);
    format!("{:?}", default.unwrap_or(Value::Num(f64::NAN)))
}

fn push_study(b: &mut SeedBuilder, s: &Study, with_repetitions: bool) {
    b.push_str(&s.name).push_str(&s.metric);
    if with_repetitions {
        b.push_u64(s.repetitions as u64);
    }
    b.push_str(s.family.name).push_str(s.algorithm.name);
    if let Some(py) = crate::python::entry_of(s.algorithm) {
        // Only Python entries add this: every Rust entry keeps its identity.
        b.push_str(&py.identity());
    }
    if s.family.ground_truth_revision > 0 {
        // Only revised families enter the hash: every other study keeps its identity.
        b.push_str("ground_truth_revision")
            .push_u64(u64::from(s.family.ground_truth_revision));
    }
    let problem = s
        .problem
        .iter()
        .map(|kv| (kv, s.family.params, Target::Problem));
    let options = s
        .options
        .iter()
        .map(|kv| (kv, s.algorithm.options, Target::Algorithm));
    for ((k, v), defs, target) in problem.chain(options) {
        // A late option enters only off its default (a swept one enters
        // through its axis below), so adding it moves no stored identity.
        let late = defs
            .iter()
            .any(|d| d.name == *k && d.role == ParamRole::NoiseOffDefault);
        let swept = s.axes.iter().any(|a| a.target == target && a.name == *k);
        if late_at_default(defs, k, v) || (late && swept) {
            continue;
        }
        b.push_str(k)
            .push_str(&identity_text(s, defs, target, k, v));
    }
    // The bytes of the (eps, delta, rho) fields this hash was first written
    // with, so stored results keep their identity; a swept parameter reads
    // the experiment's value for it (`Study::privacy_identity`).
    match s.privacy_identity {
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
