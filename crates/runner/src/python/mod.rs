//! Python entries: a researcher's algorithm in one Python file, measured,
//! stored and judged exactly as a Rust entry (`docs/python.md`).
//!
//! A spec names one as `algorithm = { name = "python:<path>:<function>", .. }`
//! (the path relative to the spec's own directory). The file
//! declares the function in a module-level `HARNESS` dict: its privacy unit,
//! accepted families, metrics, options (typed, with ranges and defaults) and
//! a timeout. Validation reads that declaration (it imports the file, never
//! calls the function) and builds an [`AlgorithmDef`] from it, so the
//! resolver, the plan, the seeds and the checks treat it like any entry;
//! [`run_cell`] runs a cell in this thread's worker process
//! ([`worker`]). The file's sha256 and the interpreter's and numpy's
//! versions enter the study's identity ([`PythonEntry::identity`]): a
//! changed file or environment is never mistaken for stored results.
//!
//! Why processes and a pipe (not an extension module or shared memory):
//! a worker per thread keeps a sweep parallel without a shared GIL, a crash
//! or a hang kills one worker and fails one cell, floats cross as raw bytes
//! (bit-exact), and the build needs nothing but cargo (`docs/architecture.md`).

mod declaration;
pub mod protocol;
mod slot;
pub mod worker;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use rand::Rng;
use rand_pcg::Pcg64;
use serde_json::{json, Map, Value as Json};

use crate::registry::{
    AlgorithmDef, CellOutput, Curves, Diagnostics, Instance, Privacy, Release, RunContext, Value,
    Values,
};
use dpcore::{Objective, RunFailure};

/// The prefix that marks a Python entry's name in a spec.
pub const PREFIX: &str = "python:";

/// Families whose instances export their data ([`Objective::data_arrays`]),
/// the only ones a Python entry can run on.
pub const EXPORTING_FAMILIES: &[&str] = &["diagonal_quadratic"];

/// Seconds a cell may take when the declaration sets no `timeout_seconds`.
pub(crate) const DEFAULT_TIMEOUT: f64 = 600.0;

/// Seconds the declaration's import may take.
const DESCRIBE_TIMEOUT: f64 = 60.0;

/// A resolved Python entry.
#[derive(Debug)]
pub struct PythonEntry {
    /// The file, as the spec names it.
    pub path: PathBuf,
    /// The function.
    pub function: String,
    /// sha256 of the file when it was resolved.
    pub sha256: String,
    /// The interpreter's version.
    pub python: String,
    /// numpy's version.
    pub numpy: String,
    /// A cell's time limit.
    pub timeout: Duration,
    /// The family whose family-level pair audits it (private entries).
    pub audit_family: Option<&'static str>,
    /// The entry as the runner sees it.
    pub def: &'static AlgorithmDef,
}

impl PythonEntry {
    /// What enters the study's identity besides the name: the file's hash
    /// and the versions that decide its numbers.
    pub fn identity(&self) -> String {
        format!(
            "python file sha256 {} python {} numpy {}",
            self.sha256, self.python, self.numpy
        )
    }
}

/// The entries resolved in this process, by file (canonical) and function.
fn entries() -> &'static Mutex<HashMap<(PathBuf, String), &'static PythonEntry>> {
    static ENTRIES: OnceLock<Mutex<HashMap<(PathBuf, String), &'static PythonEntry>>> =
        OnceLock::new();
    ENTRIES.get_or_init(Default::default)
}

/// The Python entry an algorithm is, if it is one.
pub fn entry_of(def: &AlgorithmDef) -> Option<&'static PythonEntry> {
    if !def.name.starts_with(PREFIX) {
        return None;
    }
    entries()
        .lock()
        .expect("entries")
        .values()
        .find(|e| std::ptr::eq(e.def, def))
        .copied()
}

/// Resolves `name` (`python:<path>:<function>`, the path relative to
/// `spec_dir`, the directory of the spec naming it): reads the file's
/// declaration once per process and returns its entry; the error says what
/// is wrong with the file or its declaration.
pub fn resolve(name: &str, spec_dir: &Path) -> Result<&'static AlgorithmDef, String> {
    let rest = name
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("`{name}` is not a Python entry (python:<path>:<function>)"))?;
    let (path, function) = rest
        .rsplit_once(':')
        .filter(|(p, f)| !p.is_empty() && !f.is_empty())
        .ok_or_else(|| format!("`{name}`: expected python:<path>:<function>"))?;
    let path = spec_dir.join(path);
    if !path.is_file() {
        return Err(format!(
            "no Python file {} (the path is relative to the spec's directory)",
            path.display()
        ));
    }
    let path = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let key = (path.clone(), function.to_string());
    if let Some(e) = entries().lock().expect("entries").get(&key) {
        return Ok(e.def);
    }
    let mut w = worker::Worker::spawn()?;
    let reply = w
        .request(
            &json!({"op": "describe", "path": path, "function": function}),
            &[],
            Duration::from_secs_f64(DESCRIBE_TIMEOUT),
        )
        .map_err(|f| format!("reading {}'s declaration: {f}", path.display()))?;
    let h = &reply.header;
    if h["ok"] != json!(true) {
        return Err(format!(
            "{}: {}",
            path.display(),
            h["error"]
                .as_str()
                .unwrap_or("the declaration could not be read")
        ));
    }
    let text = |k: &str| h[k].as_str().unwrap_or_default().to_string();
    let declaration = declaration::parse_declaration(name, &h["declaration"])
        .map_err(|e| format!("{}: HARNESS[{function:?}]: {e}", path.display()))?;
    let entry: &'static PythonEntry = Box::leak(Box::new(PythonEntry {
        path,
        function: function.to_string(),
        sha256: text("sha256"),
        python: text("python"),
        numpy: text("numpy"),
        timeout: declaration.timeout,
        audit_family: declaration.audit_family,
        def: Box::leak(Box::new(declaration.def)),
    }));
    // Two threads resolving one file race harmlessly: the first insert wins.
    Ok(entries()
        .lock()
        .expect("entries")
        .entry(key)
        .or_insert(entry)
        .def)
}

/// Every Python entry resolved in this process (for provenance).
pub fn resolved() -> Vec<&'static PythonEntry> {
    let mut v: Vec<_> = entries()
        .lock()
        .expect("entries")
        .values()
        .copied()
        .collect();
    v.sort_by(|a, b| a.def.name.cmp(b.def.name));
    v
}

/// The in-process run of a Python entry's [`AlgorithmDef`]: never the way it
/// runs ([`run_cell`] is); reached only by a caller that bypasses the runner.
pub(crate) fn not_in_process(
    _: &RunContext,
    _: &dyn Objective,
    _: &mut Pcg64,
) -> Result<CellOutput, RunFailure> {
    Err(RunFailure::External(
        "a Python entry runs in the runner's Python workers (crate runner, module python)".into(),
    ))
}

/// A fresh key for an instance a group of cells shares: the worker keeps
/// the arrays of the last two it saw, so cells on one data set send them once.
pub fn next_instance_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn values_json(v: &Values) -> Json {
    let m: Map<String, Json> = v
        .iter()
        .map(|(k, v)| {
            let j = match v {
                Value::Num(x) if x.fract() == 0.0 && x.abs() < 9e15 => json!(*x as i64),
                Value::Num(x) => json!(x),
                Value::Str(s) => json!(s),
            };
            (k.clone(), j)
        })
        .collect();
    Json::Object(m)
}

/// A finite float, or `null` (JSON has no infinity; `None` in Python).
fn finite(x: f64) -> Json {
    if x.is_finite() {
        json!(x)
    } else {
        Json::Null
    }
}

/// Runs one cell of a Python entry on `instance` in this thread's worker,
/// returning its output and the seconds the worker spent inside the entry's
/// function (the rest of the call's wall time is the protocol's overhead:
/// `docs/python-entries.md` measures it). The entry's seed is the next draw
/// of the cell's noise stream, so a cell reruns bit for bit with the same
/// file, interpreter and numpy.
pub fn run_cell(
    entry: &PythonEntry,
    family: &str,
    ctx: &RunContext,
    instance: &Instance,
    rng: &mut Pcg64,
    instance_key: u64,
) -> Result<(CellOutput, f64), RunFailure> {
    let external = |m: String| RunFailure::External(m);
    let Instance::Objective(p) = instance else {
        return Err(external(format!(
            "{} runs on objective instances only",
            entry.def.name
        )));
    };
    let arrays = p.data_arrays();
    if arrays.is_empty() {
        return Err(external(format!(
            "family {family} exports no data arrays to Python"
        )));
    }
    let c = p.constants();
    let (n, d) = (p.num_records(), p.dim());
    let privacy = match ctx.privacy {
        Privacy::Approx(q) => json!({"eps": q.eps, "delta": q.delta}),
        Privacy::Zcdp(rho) => json!({ "rho": rho }),
    };
    let header = json!({
        "op": "run",
        "path": entry.path,
        "function": entry.function,
        "sha256": entry.sha256,
        "instance_id": instance_key,
        "family": family,
        "problem": values_json(ctx.problem),
        "constants": {
            "n": n, "d": d,
            "lipschitz": finite(c.lipschitz),
            "smoothness": finite(c.smoothness),
            "strong_convexity": finite(c.strong_convexity),
            "radius": finite(c.radius),
        },
        "privacy": privacy,
        "options": values_json(ctx.options),
        "seed": rng.next_u64(),
    });
    let reply = worker::with_worker(|w| {
        // Moved in: the closure runs once.
        let mut header = header;
        // The arrays go through a file the worker maps: one write here and no
        // copy there (through the pipe, the first call at n d = 1e6 spent 43%
        // of its cell's time moving the records: docs/python.md, "Overhead").
        let staged = if w.holds(instance_key) {
            None
        } else {
            let (file, listing) = w
                .stage(&arrays)
                .map_err(|e| worker::Fault::Died(format!("writing the instance's arrays: {e}")))?;
            let o = header.as_object_mut().expect("an object");
            o.insert("arrays_file".into(), json!(file));
            o.insert("file_arrays".into(), listing);
            Some(())
        };
        let reply = w.request(&header, &[], entry.timeout)?;
        if staged.is_some() {
            w.hold(instance_key);
        }
        Ok(reply)
    })
    .map_err(external)?
    .map_err(|f| external(f.to_string()))?;
    let h = &reply.header;
    if h["ok"] != json!(true) {
        return Err(external(format!(
            "{}\n{}",
            h["error"].as_str().unwrap_or("the entry failed"),
            h["traceback"].as_str().unwrap_or_default().trim_end()
        )));
    }
    let w = reply
        .array("w")
        .ok_or_else(|| external("the reply has no release `w`".into()))?;
    if w.shape != [d] {
        return Err(external(format!(
            "the release w has shape {:?}, the instance's dimension is [{d}]",
            w.shape
        )));
    }
    if let Some(bad) = w.values.iter().position(|x| !x.is_finite()) {
        return Err(RunFailure::NonFinite(format!(
            "the release w[{bad}] = {}",
            w.values[bad]
        )));
    }
    let evaluations = h["gradient_evaluations"].as_f64().unwrap_or(f64::NAN);
    if evaluations.is_nan() || evaluations < 0.0 {
        return Err(external(format!(
            "gradient_evaluations must be a count >= 0, got {}",
            h["gradient_evaluations"]
        )));
    }
    let mut diagnostics = Diagnostics::default();
    for (k, v) in h["diagnostics"].as_object().into_iter().flatten() {
        let Some(name) = entry.def.diagnostics.iter().find(|n| **n == k.as_str()) else {
            return Err(external(format!(
                "diagnostic {k:?} is not declared (declared: {:?})",
                entry.def.diagnostics
            )));
        };
        diagnostics.set(name, v.as_f64().unwrap_or(f64::NAN));
    }
    let curve = |k: &str| -> Result<Option<f64>, RunFailure> {
        match h.get(k).and_then(Json::as_str) {
            None => Ok(None),
            Some(t) => t
                .parse::<f64>()
                .ok()
                .filter(|x| !x.is_nan())
                .map(Some)
                .ok_or_else(|| external(format!("the returned {k} is not a number: {t}"))),
        }
    };
    let curves = Curves::new(curve("theory")?, curve("bound")?, curve("reference")?);
    Ok((
        CellOutput::new(
            Release::point(w.values.clone(), evaluations),
            curves,
            diagnostics,
        ),
        h["seconds"].as_f64().unwrap_or(f64::NAN),
    ))
}
