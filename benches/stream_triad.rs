//! The STREAM-triad bandwidth reference shared by the memory-bound benches
//! (`crates/datagen/benches/full_gradient.rs`, `crates/solvers/benches/kernels.rs`),
//! included by each with `#[path]` so that every bench binary measures the
//! machine's streaming bandwidth in the same run as its own kernels.
//!
//! Kernel: `a[i] = b[i] + s * c[i]` over three arrays of [`TRIAD_LEN`] `f64`
//! (128 MiB each, 384 MiB in all: far larger than any current last-level
//! cache). Written as a plain zipped iterator, which the compiler vectorises
//! with the baseline x86_64 target (no `target-cpu`), exactly as it compiles
//! the harness.
//!
//! Byte-count convention (STREAM's): the triad moves **3 arrays x 8 bytes per
//! element** (read `b`, read `c`, write `a`). Without non-temporal stores the
//! write of `a` also reads it into the cache first (write-allocate), so the
//! DRAM traffic is really 4 arrays: the GB/s reported here under-states the
//! hardware's traffic by 4/3. The kernels of these benches use the same
//! convention, the bytes of data the kernel must read or write (their
//! `O(d)` iterates and scratch vectors, which stay in L1, are not counted),
//! so a kernel that only reads can exceed 100% of the triad figure.

use criterion::{Criterion, SamplingMode, Throughput};
use std::hint::black_box;

/// Elements per array: `2^24` `f64`, 128 MiB.
pub const TRIAD_LEN: usize = 1 << 24;

/// `a[i] = b[i] + s * c[i]`.
#[inline(never)]
pub fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((x, y), z) in a.iter_mut().zip(b).zip(c) {
        *x = y + s * z;
    }
}

/// Registers the group `<prefix>.stream_triad` (benchmark `triad`, parameter
/// `len=...,data=...MiB`) with `Throughput::Bytes(3 * 8 * len)`.
pub fn bench_stream_triad(c: &mut Criterion, prefix: &str) {
    let mut group = c.benchmark_group(format!("{prefix}.stream_triad"));
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    let bytes = 3 * 8 * TRIAD_LEN as u64;
    group.throughput(Throughput::Bytes(bytes));
    let mut arrays: Option<(Vec<f64>, Vec<f64>, Vec<f64>)> = None;
    let id = format!("len={TRIAD_LEN},data={}MiB", bytes >> 20);
    group.bench_function(criterion::BenchmarkId::new("triad", id), |bench| {
        // Allocated and touched on first use only (a filtered run skips it).
        let (a, b, c) = arrays.get_or_insert_with(|| {
            (
                vec![1.0; TRIAD_LEN],
                (0..TRIAD_LEN).map(|i| i as f64).collect(),
                (0..TRIAD_LEN).map(|i| (i % 7) as f64).collect(),
            )
        });
        bench.iter(|| {
            triad(a, b, c, black_box(3.0));
            black_box(&mut *a);
        });
    });
    group.finish();
}
