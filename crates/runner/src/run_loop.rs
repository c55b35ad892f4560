//! The run loop both pipelines share (the sweep's cells, `execute`, and the
//! audit's runs, `audit::execute`): jobs handed out in order to the pool's
//! threads, their outputs sent to one writer (the calling thread), which
//! takes them into the store and flushes it under one policy
//! ([`crate::execute::flush_interval`]), and a Ctrl-C that stops new jobs and
//! keeps every finished one.
//!
//! Jobs are taken one at a time from a shared counter, in order: one costly
//! job never holds a batch of cheap ones behind it (sweep groups differ by
//! 1000x, n = 1e3 against 1e6 in one sweep), and when a job's output arrives
//! every earlier job has started and at most one per other thread is still
//! running, which lets the audit append its runs in run order, holding back
//! only the outputs that overtook a running job.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

/// Set by the binary's SIGINT/SIGTERM handler: [`run_jobs`] starts no new
/// job, every finished one is flushed, and the pipeline reports the run as
/// interrupted (the sweep's `ExecSummary::interrupted`, the audit's exit code
/// 130). A rerun resumes from the file.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether an interrupt was requested.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// The wait before the next flush: at least `requested`, and at least
/// [`FLUSH_COST_FACTOR`] times the last flush's duration. A flush rewrites the
/// whole file, so on a large experiment a fixed short interval would spend a
/// core on writing; this bounds writing to about 1/FLUSH_COST_FACTOR of the
/// writer thread's time while an interrupted run still loses only seconds.
pub fn flush_interval(requested: Duration, last_flush: Duration) -> Duration {
    requested.max(last_flush * FLUSH_COST_FACTOR)
}

/// See [`flush_interval`].
pub const FLUSH_COST_FACTOR: u32 = 20;

/// What the writer does with the jobs' outputs.
pub trait Writer<R> {
    /// Takes one finished job's output (called in arrival order).
    fn absorb(&mut self, output: R) -> Result<()>;
    /// Writes what it took to the store.
    fn flush(&mut self) -> Result<()>;
}

/// Runs `run` on every job on `pool`'s threads, hands each output to
/// `writer` on this thread, and flushes it at least every `flush_every`
/// (longer when a flush is costly) and once at the end. Returns whether an
/// interrupt stopped it early; the outputs of every job that finished are
/// flushed either way.
///
/// # Errors
/// The writer's first error, after the running jobs finish (no new one
/// starts); or a worker thread that panicked outside a job's own handling.
pub fn run_jobs<J, R, W>(
    pool: &rayon::ThreadPool,
    jobs: &[J],
    run: impl Fn(&J) -> R + Sync,
    writer: &mut W,
    flush_every: Duration,
) -> Result<bool>
where
    J: Sync,
    R: Send,
    W: Writer<R>,
{
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<R>();
    std::thread::scope(|scope| -> Result<()> {
        let (next, run) = (&next, &run);
        let workers = scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..pool.current_num_threads() {
                    let tx = tx.clone();
                    s.spawn(move |_| loop {
                        if interrupted() {
                            return;
                        }
                        let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            return;
                        };
                        // The receiver is gone only when the writer failed:
                        // stop quietly, the writer reports.
                        if tx.send(run(job)).is_err() {
                            return;
                        }
                    });
                }
            });
        });
        let written = write(rx, writer, flush_every);
        workers
            .join()
            .map_err(|_| anyhow!("a worker thread panicked outside a job"))?;
        written
    })?;
    Ok(interrupted())
}

/// The writer's side: absorbs until every worker is done, flushing under the
/// policy, then a last flush.
fn write<R>(
    rx: mpsc::Receiver<R>,
    writer: &mut impl Writer<R>,
    flush_every: Duration,
) -> Result<()> {
    let mut last_flush = Instant::now();
    let mut interval = flush_every;
    for output in rx.iter() {
        writer.absorb(output)?;
        if last_flush.elapsed() >= interval {
            let t = Instant::now();
            writer.flush()?;
            interval = flush_interval(flush_every, t.elapsed());
            last_flush = Instant::now();
        }
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects outputs; fails on the output `fail_on`.
    struct Collect {
        seen: Vec<usize>,
        flushed: usize,
        fail_on: Option<usize>,
    }

    impl Collect {
        fn failing_on(fail_on: Option<usize>) -> Self {
            Self {
                seen: Vec::new(),
                flushed: 0,
                fail_on,
            }
        }
    }

    impl Writer<usize> for Collect {
        fn absorb(&mut self, output: usize) -> Result<()> {
            if Some(output) == self.fail_on {
                return Err(anyhow!("refused {output}"));
            }
            self.seen.push(output);
            Ok(())
        }
        fn flush(&mut self) -> Result<()> {
            self.flushed = self.seen.len();
            Ok(())
        }
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn every_job_runs_once_and_everything_is_flushed() {
        let jobs: Vec<usize> = (0..1000).collect();
        let mut w = Collect::failing_on(None);
        let stopped = run_jobs(&pool(3), &jobs, |&j| j * 2, &mut w, Duration::ZERO).unwrap();
        assert!(!stopped);
        let mut seen = w.seen.clone();
        seen.sort_unstable();
        assert_eq!(seen, jobs.iter().map(|j| j * 2).collect::<Vec<_>>());
        assert_eq!(w.flushed, 1000);
    }

    #[test]
    fn an_output_is_overtaken_only_by_jobs_that_started_after_it() {
        // Jobs of very different costs: when job j's output arrives, at most
        // threads - 1 earlier jobs are still missing (running elsewhere).
        let jobs: Vec<usize> = (0..200).collect();
        let mut w = Collect::failing_on(None);
        let threads = 2;
        run_jobs(
            &pool(threads),
            &jobs,
            |&j| {
                if j % 7 == 0 {
                    std::thread::sleep(Duration::from_millis(2));
                }
                j
            },
            &mut w,
            Duration::from_secs(60),
        )
        .unwrap();
        for (k, &j) in w.seen.iter().enumerate() {
            let missing = w.seen[k + 1..].iter().filter(|&&i| i < j).count();
            assert!(
                missing < threads,
                "{missing} jobs before {j} arrived after it"
            );
        }
    }

    #[test]
    fn a_writer_error_stops_new_jobs_and_is_returned() {
        let jobs: Vec<usize> = (0..100_000).collect();
        let ran = AtomicUsize::new(0);
        let mut w = Collect::failing_on(Some(10));
        let err = run_jobs(
            &pool(2),
            &jobs,
            |&j| {
                ran.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_micros(50));
                j
            },
            &mut w,
            Duration::from_secs(60),
        )
        .unwrap_err();
        assert!(err.to_string().contains("refused 10"), "{err}");
        assert!(ran.load(Ordering::Relaxed) < 1000, "the jobs went on");
    }
}
