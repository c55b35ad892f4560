//! One Python worker process (`python/harness_worker.py`, embedded) and the
//! per-thread pool that keeps one alive per runner thread.
//!
//! A worker is a child process, so an entry that crashes the interpreter,
//! leaks or hangs harms its own cell only: the runner kills it on a timeout,
//! reports the exit status and the tail of its stderr, and starts a fresh
//! one for the next cell. One per thread keeps a sweep parallel (no GIL is
//! shared) and each cell's result independent of which worker ran it (every
//! run is seeded from the cell's own seed).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dpcore::DataArray;
use serde_json::{json, Value};

use super::protocol::{read_message, write_message, ArrayRef, Message};
use super::slot::SlotFile;

/// The worker's source, run with `python -u -c`.
const WORKER_SOURCE: &str = include_str!("../../python/harness_worker.py");

/// Bytes of a worker's stderr kept for a failure report.
const STDERR_TAIL: usize = 4096;

/// The interpreter: `DP_HARNESS_PYTHON` when set, else `python3`.
pub fn interpreter() -> String {
    std::env::var("DP_HARNESS_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Why a request got no reply; the worker is gone after any of them.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// No reply within the timeout: the worker was killed.
    Timeout(Duration),
    /// The worker exited (or its stream broke) before replying.
    Died(String),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Timeout(t) => write!(
                f,
                "timed out after {:.0} s (the entry's timeout_seconds): worker killed",
                t.as_secs_f64()
            ),
            Fault::Died(why) => write!(f, "the Python worker died: {why}"),
        }
    }
}

/// A running worker.
pub struct Worker {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    replies: Receiver<std::io::Result<Option<Message>>>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    /// The instances whose arrays the worker holds, oldest first, each with
    /// its slot file (it keeps the last [`KEEP_INSTANCES`], as the worker's
    /// own `KEEP_INSTANCES`).
    held: VecDeque<(u64, PathBuf)>,
    /// The slot file [`Worker::stage`] last wrote, held once the worker
    /// replies ([`Worker::hold`]).
    staged: Option<PathBuf>,
    /// The slot files, mapped (at most [`KEEP_INSTANCES`]).
    slots: Vec<SlotFile>,
}

/// Instances a worker keeps mapped (its `KEEP_INSTANCES`): cells that share
/// a data set run one after another on one thread, so two suffice.
const KEEP_INSTANCES: usize = 2;

impl Worker {
    /// Starts a worker on [`interpreter`].
    pub fn spawn() -> Result<Self, String> {
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(remove_stale_slot_files);
        let python = interpreter();
        let mut child = Command::new(&python)
            .args(["-u", "-c", WORKER_SOURCE])
            // One worker per runner thread is the parallelism: a BLAS pool
            // per worker would oversubscribe the cores (and its spinning
            // threads cost more system time than the entries' work).
            .envs(["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"].map(|k| (k, "1")))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                format!(
                    "cannot start `{python}`: {e} (set DP_HARNESS_PYTHON to an interpreter with numpy)"
                )
            })?;
        let stdin = BufWriter::new(child.stdin.take().expect("piped"));
        let mut stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped"));
        let mut stderr = child.stderr.take().expect("piped");
        let (tx, replies) = mpsc::channel();
        // A reader thread per worker, so a request can wait with a timeout.
        std::thread::spawn(move || loop {
            let reply = read_message(&mut stdout);
            let end = !matches!(reply, Ok(Some(_)));
            if tx.send(reply).is_err() || end {
                return;
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(k) = stderr.read(&mut buf) {
                if k == 0 {
                    return;
                }
                let mut t = tail.lock().expect("stderr tail");
                t.extend(&buf[..k]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        });
        Ok(Self {
            child,
            stdin,
            replies,
            stderr_tail,
            held: VecDeque::new(),
            staged: None,
            slots: Vec::new(),
        })
    }

    /// Whether the worker holds instance `key`'s arrays.
    pub fn holds(&self, key: u64) -> bool {
        self.held.iter().any(|(k, _)| *k == key)
    }

    /// Copies `arrays` (float64 little-endian, one after another) into a
    /// slot file for the next request to name; returns the file and the
    /// listing (`[{"name", "shape", "offset"}]`) the worker maps them by.
    /// The file of the instance the worker is about to drop is reused, and
    /// both sides keep their mappings of it (`python/slot.rs` has the
    /// measurements).
    pub fn stage(&mut self, arrays: &[DataArray]) -> std::io::Result<(PathBuf, Value)> {
        let path = if self.held.len() >= KEEP_INSTANCES {
            self.held[0].1.clone()
        } else {
            slot_dir().join(format!(
                "dp-harness-{}-{}-{}.f64",
                std::process::id(),
                self.child.id(),
                self.held.len()
            ))
        };
        let i = match self.slots.iter().position(|s| s.path() == path) {
            Some(i) => i,
            None => {
                self.slots.push(SlotFile::open(&path)?);
                self.slots.len() - 1
            }
        };
        let offsets = self.slots[i].copy_in(arrays)?;
        let listing = arrays
            .iter()
            .zip(offsets)
            .map(|(a, offset)| {
                let shape = if a.vector {
                    json!([a.rows])
                } else {
                    json!([a.rows, a.cols])
                };
                json!({"name": a.name, "shape": shape, "offset": offset})
            })
            .collect();
        self.staged = Some(path.clone());
        Ok((path, Value::Array(listing)))
    }

    /// Records that the worker now holds instance `key` (the arrays last
    /// staged), dropping the oldest as the worker does.
    pub fn hold(&mut self, key: u64) {
        let path = self.staged.take().expect("staged before held");
        if self.held.len() >= KEEP_INSTANCES {
            self.held.pop_front();
        }
        self.held.push_back((key, path));
    }

    /// Sends a request and waits up to `timeout` for the reply. On a
    /// [`Fault`] the worker is killed and must be dropped.
    pub fn request(
        &mut self,
        header: &Value,
        arrays: &[ArrayRef],
        timeout: Duration,
    ) -> Result<Message, Fault> {
        if let Err(e) = write_message(&mut self.stdin, header, arrays) {
            return Err(self.died(format!("writing the request: {e}")));
        }
        match self.replies.recv_timeout(timeout) {
            Ok(Ok(Some(m))) => Ok(m),
            Ok(Ok(None)) => Err(self.died("end of its output".into())),
            Ok(Err(e)) => Err(self.died(format!("reading its reply: {e}"))),
            Err(RecvTimeoutError::Disconnected) => Err(self.died("its output closed".into())),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Err(Fault::Timeout(timeout))
            }
        }
    }

    fn died(&mut self, what: String) -> Fault {
        let _ = self.child.kill();
        let status = self
            .child
            .wait()
            .map(|s| s.to_string())
            .unwrap_or_else(|e| e.to_string());
        // The stderr thread may still be draining the last lines.
        std::thread::sleep(Duration::from_millis(50));
        let tail: Vec<u8> = self
            .stderr_tail
            .lock()
            .expect("stderr tail")
            .iter()
            .copied()
            .collect();
        let tail = String::from_utf8_lossy(&tail);
        let tail = tail.trim();
        if tail.is_empty() {
            Fault::Died(format!("{what}, {status}"))
        } else {
            Fault::Died(format!("{what}, {status}; its stderr ends: {tail}"))
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for slot in self.slots.drain(..) {
            let _ = std::fs::remove_file(slot.path());
        }
    }
}

/// The directory of the slot files: tmpfs where there is one, so the pages
/// never reach a disk.
fn slot_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Removes the slot files of runners that are gone (a runner killed with
/// SIGKILL never drops its workers): the files are named
/// `dp-harness-<runner pid>-...`, and a pid with no `/proc/<pid>` is gone.
/// Where there is no `/proc` nothing is removed.
fn remove_stale_slot_files() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(slot_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("dp-harness-"))
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's worker (started on first use). A [`Fault`]
/// drops the worker, so the next call starts a fresh one.
pub fn with_worker<T>(
    f: impl FnOnce(&mut Worker) -> Result<T, Fault>,
) -> Result<Result<T, Fault>, String> {
    WORKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Worker::spawn()?);
        }
        let out = f(slot.as_mut().expect("just started"));
        if out.is_err() {
            *slot = None;
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_slot_files_of_gone_runners_are_removed() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        // pid_max is at most 2^22 on Linux: this pid cannot be running.
        let gone = slot_dir().join("dp-harness-4194305-1-0.f64");
        let live = slot_dir().join(format!("dp-harness-{}-1-7.f64", std::process::id()));
        std::fs::write(&gone, b"x").unwrap();
        std::fs::write(&live, b"x").unwrap();
        remove_stale_slot_files();
        assert!(!gone.exists(), "a gone runner's slot file stays");
        assert!(live.exists(), "a live runner's slot file was removed");
        std::fs::remove_file(live).unwrap();
    }
}
