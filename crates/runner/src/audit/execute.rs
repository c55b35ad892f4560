//! Running an audit: build the pair, check it, then the runs on each side in
//! blocks with one seed per (side, run index), run and flushed by the
//! sweep's run loop ([`crate::run_loop`]).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use indicatif::ProgressBar;

use super::spec::{Audit, Observe};
use super::store::{AuditRuns, AuditStore};
use crate::registry::{AuditPair, AuditSetting, RunContext};
use contract::audit::differ_in_one_record;
use contract::seeds::{rng_from_seed, SeedBuilder};

/// Most runs a block (one job of the run loop) holds: large enough that
/// handing it out costs nothing, small enough that an interruption loses at
/// most a block per thread. An audit of fewer than `4 threads BLOCK` runs
/// gets smaller blocks, at least four per thread.
const BLOCK: usize = 512;

/// The hash of the algorithms' source code this binary was built from
/// (`build.rs`: the `src/` trees of dpcore, mechanisms, datagen, solvers,
/// contract and papers, the lock file and this run loop). It is part of every
/// audit's [`identity`], so stored runs are never reused across a change of
/// the code that produced them.
pub const ALGORITHM_CODE_HASH: &str = env!("HARNESS_ALGORITHM_CODE_HASH");

/// What the runs of an audit are drawn from: the algorithm, its options, the
/// setting, the run-at privacy and the seed. Each run's random stream is
/// derived from it (with the side and run index), so the same audit gives the
/// same bits whatever else changed in the repository (`v1`: the streams of
/// the audits committed before the code hash existed). Anything else (the
/// claim, the expectation, the note, the estimator) can change without
/// recomputing them.
pub fn seed_identity(audit: &Audit, seed: u64) -> String {
    // A late option at its default is left out: audits pinned before it
    // existed keep their streams (tests/audit_identity.rs).
    let options: Vec<String> = audit
        .options
        .iter()
        .filter(|(k, v)| !crate::registry::late_at_default(audit.algorithm.options, k, v))
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    // A transcript audit's streams are its own; release audits keep the
    // identity they had before transcripts existed.
    let observe = match audit.row.observe {
        Observe::Release => "",
        Observe::Transcript => "|observe=transcript",
    };
    format!(
        "v1|{}|{}|n={}|d={}|run_at={:?}|seed={seed}{observe}",
        audit.algorithm.name,
        options.join(","),
        audit.row.n,
        audit.row.d,
        audit.run_at.values()
    )
}

/// The identity of an audit's stored runs: the code that ran them
/// ([`ALGORITHM_CODE_HASH`]) and [`seed_identity`]. Stored runs are reused
/// only when both match, so a change of the algorithms' code recomputes
/// them (with the same random streams: the code hash never enters a seed,
/// so an edit that leaves the algorithm's arithmetic alone reproduces its
/// runs bit for bit).
pub fn identity(audit: &Audit, seed: u64) -> String {
    // A Python entry's code is its file (and interpreter and numpy): its
    // identity joins the harness's own code hash, so an edit recomputes.
    let python = crate::python::entry_of(audit.algorithm)
        .map(|p| format!("|{}", p.identity()))
        .unwrap_or_default();
    format!(
        "v2|code={ALGORITHM_CODE_HASH}{python}|{}",
        seed_identity(audit, seed)
    )
}

/// Builds the audit's pair and checks it differs in one record under its relation.
pub fn build_pair(audit: &Audit) -> Result<AuditPair> {
    let def = audit
        .algorithm
        .audit
        .expect("validated: the algorithm declares an audit");
    let setting = AuditSetting {
        n: audit.row.n,
        d: audit.row.d,
        options: &audit.options,
        privacy: audit.run_at,
        transcript: audit.row.observe == Observe::Transcript,
    };
    let pair = (def.pair)(&setting)
        .map_err(|e| anyhow!("audit `{}`: its pair cannot be built: {e}", audit.row.name))?;
    differ_in_one_record(pair.relation, &pair.records[0], &pair.records[1]).map_err(|e| {
        anyhow!(
            "audit `{}`: the pair is not neighbouring: {e}",
            audit.row.name
        )
    })?;
    Ok(pair)
}

/// The instance key of side `side` of the audit `id`'s pair for the Python
/// workers: the top bit set keeps it apart from the sweeps' counter keys.
fn pair_instance_key(id: &str, side: usize) -> u64 {
    let h = SeedBuilder::new(0, "python audit pair")
        .push_str(id)
        .push_u64(side as u64)
        .finish();
    h | (1 << 63)
}

/// One run on side `side` (0: D, 1: D'): its statistic, or the error.
fn one_run(
    audit: &Audit,
    pair: &AuditPair,
    side: usize,
    index: usize,
    seed: u64,
    id: &str,
) -> Result<f64, String> {
    let def = audit.algorithm.audit.expect("validated");
    let seed = SeedBuilder::new(seed, "audit")
        .push_str(id)
        .push_u64(side as u64)
        .push_u64(index as u64)
        .finish();
    let ctx = RunContext {
        options: &audit.options,
        problem: &pair.problem,
        privacy: audit.run_at,
        metric: audit.algorithm.metrics[0],
    };
    let run = catch_unwind(AssertUnwindSafe(|| {
        let mut rng = rng_from_seed(seed);
        match (audit.row.observe, def.transcript) {
            (Observe::Transcript, Some(transcript)) => transcript(&ctx, pair, side, &mut rng),
            _ => match crate::python::entry_of(audit.algorithm) {
                // The two sides are fixed instances: a worker maps each once
                // per audit and keeps both.
                Some(py) => crate::python::run_cell(
                    py,
                    py.audit_family
                        .expect("validated: a private entry has an audit family"),
                    &ctx,
                    &pair.instances[side],
                    &mut rng,
                    pair_instance_key(id, side),
                )
                .map(|(out, _)| out),
                None => audit
                    .algorithm
                    .run
                    .run(&ctx, &pair.instances[side], &mut rng),
            }
            .map(|out| (def.statistic)(&out.release.output)),
        }
    }));
    match run {
        Ok(Ok(s)) => {
            if s.is_finite() {
                Ok(s)
            } else {
                Err(format!("non-finite statistic {s}"))
            }
        }
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the run panicked".into()),
    }
}

/// One job of the audit loop: runs `start..end` of audit `audit` on both
/// sides.
struct Block {
    audit: usize,
    start: usize,
    end: usize,
}

/// A finished [`Block`]: each run's statistic on `D` and `D'` (or the error),
/// and the thread-seconds it took.
struct BlockRuns {
    audit: usize,
    start: usize,
    runs: Vec<(Result<f64, String>, Result<f64, String>)>,
    seconds: f64,
}

/// Completes every audit's runs in `store` through the sweep's run loop
/// ([`crate::run_loop`]), flushing at least every `flush_every`. Returns
/// whether it was interrupted.
pub fn execute(
    audits: &[Audit],
    seed: u64,
    store: &mut AuditStore,
    threads: usize,
    progress: bool,
    flush_every: Duration,
) -> Result<bool> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let mut todo = 0u64;
    for a in audits {
        let id = identity(a, seed);
        let runs = store.audits.entry(a.row.name.clone()).or_default();
        if runs.identity != id {
            *runs = AuditRuns {
                identity: id,
                ..Default::default()
            };
        }
        runs.d.truncate(a.runs);
        runs.d_prime.truncate(a.runs);
        let done = runs.d.len().min(runs.d_prime.len());
        runs.d.truncate(done);
        runs.d_prime.truncate(done);
        todo += 2 * (a.runs - done) as u64;
    }
    // The pairs of the audits with runs to do, and their blocks in order.
    let mut pairs = Vec::with_capacity(audits.len());
    let mut blocks = Vec::new();
    for (i, a) in audits.iter().enumerate() {
        let done = store.audits[&a.row.name].d.len();
        if done >= a.runs {
            pairs.push(None);
            continue;
        }
        pairs.push(Some(build_pair(a)?));
        // An audit of few costly runs still spreads over every thread.
        let len = a
            .runs
            .div_ceil(4 * pool.current_num_threads())
            .clamp(1, BLOCK);
        blocks.extend((done..a.runs).step_by(len).map(|start| Block {
            audit: i,
            start,
            end: (start + len).min(a.runs),
        }));
    }
    let ids: Vec<String> = audits.iter().map(|a| seed_identity(a, seed)).collect();
    let bar = crate::execute::progress_bar(todo, progress, "{pos}/{len} runs, ", "");
    let mut writer = AuditWriter {
        audits,
        store,
        waiting: BTreeMap::new(),
        bar: &bar,
    };
    let interrupted = crate::run_loop::run_jobs(
        &pool,
        &blocks,
        |b: &Block| {
            let (a, id) = (&audits[b.audit], &ids[b.audit]);
            let pair = pairs[b.audit]
                .as_ref()
                .expect("built for every block's audit");
            let started = Instant::now();
            let runs = (b.start..b.end)
                .map(|i| {
                    (
                        one_run(a, pair, 0, i, seed, id),
                        one_run(a, pair, 1, i, seed, id),
                    )
                })
                .collect();
            BlockRuns {
                audit: b.audit,
                start: b.start,
                runs,
                seconds: started.elapsed().as_secs_f64(),
            }
        },
        &mut writer,
        flush_every,
    )?;
    if interrupted {
        bar.abandon();
    } else {
        bar.finish_and_clear();
    }
    Ok(interrupted)
}

/// The audit's writer: appends each block's runs to its audit in run order
/// (a block that overtook a running one waits for it), so the stored runs
/// are always a prefix `0..k` on both sides, which a resume continues.
struct AuditWriter<'a> {
    audits: &'a [Audit],
    store: &'a mut AuditStore,
    /// Finished blocks that overtook an earlier one, by (audit, first run).
    waiting: BTreeMap<(usize, usize), BlockRuns>,
    bar: &'a ProgressBar,
}

impl crate::run_loop::Writer<BlockRuns> for AuditWriter<'_> {
    fn absorb(&mut self, block: BlockRuns) -> Result<()> {
        let audit = block.audit;
        self.bar.inc(2 * block.runs.len() as u64);
        self.bar.set_message(self.audits[audit].row.name.clone());
        self.waiting.insert((audit, block.start), block);
        let runs = self
            .store
            .audits
            .get_mut(&self.audits[audit].row.name)
            .expect("made before the loop");
        while let Some(block) = self.waiting.remove(&(audit, runs.d.len())) {
            runs.seconds += block.seconds;
            for (on_d, on_dp) in block.runs {
                for (out, column) in [(on_d, &mut runs.d), (on_dp, &mut runs.d_prime)] {
                    column.push(out.as_ref().copied().unwrap_or(f64::NAN));
                    if let Err(e) = out {
                        if runs.first_error.is_empty() {
                            runs.first_error = e;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.store.flush()
    }
}
