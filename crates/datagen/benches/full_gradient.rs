//! Full-gradient passes over an `n x d` dense data set, the memory-bound
//! kernels of the full-batch solvers (Katyusha's snapshots, AGD, the
//! objective-perturbation SVRG, Newton certificates), with the STREAM-triad
//! bandwidth measured in the same run (`benches/stream_triad.rs`).
//!
//! Kernels, each the family's own [`dpcore::Objective::gradient`] at its
//! minimizer `w*`:
//! - `logistic`: Lowy–Razaviyayn E1b ([`datagen::logistic::Logistic`],
//!   Neumaier-compensated sum of `-y sigmoid(-y w.x) x`);
//! - `logistic_glm`: Bassily et al. E2-Logit ([`datagen::bassily::LogisticGlm`]);
//! - `least_squares`: the least-squares loss over the data
//!   ([`datagen::menart::LeastSquares`], Menart et al. F-F). Bassily et al.'s
//!   `least_squares_glm` computes its full gradient as `S w - c` from
//!   precomputed moments, `O(d^2)` and independent of `n`, so it has no data
//!   pass to measure; its per-record gradients are measured in the solvers'
//!   clipped-gradient bench.
//!
//! Sizes: `d = 16` (the Bassily experiments' dimension) at `n = 10^4`
//! (1.3 MiB, inside the last-level cache of any current CPU) and `n = 10^6`
//! (130 MiB, at least 4x the last-level cache of the machines this project
//! runs on, 32 MiB), and a wide `d = 128`, `n = 125 000` (123 MiB), where the
//! per-record work (one `exp` for the logistic losses) weighs less against
//! the per-coordinate work.
//!
//! Byte-count convention (the triad's, see `benches/stream_triad.rs`): bytes
//! of data the kernel must read or write, here the records it streams,
//! `n (d + 1) 8` for the logistic families (features and labels) and `n d 8`
//! for least squares (features only: its residual uses the stored minimizer);
//! the `O(d)` iterate and output are not counted. The parameter string holds
//! the data size in MiB (`data=...MiB`), which `scripts/bench_report.py`
//! compares with the last-level cache.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use datagen::bassily::{LogisticGlm, LogisticGlmParams};
use datagen::logistic::{Logistic, LogisticParams};
use datagen::menart::{LeastSquares, LeastSquaresParams};
use dpcore::Objective;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::hint::black_box;

#[path = "../../../benches/stream_triad.rs"]
mod stream_triad;

/// `(n, d)`: inside the last-level cache, then twice far beyond it.
const SIZES: [(usize, usize); 3] = [(10_000, 16), (1_000_000, 16), (125_000, 128)];

fn rng() -> Pcg64 {
    Pcg64::seed_from_u64(20_261_124)
}

/// Registers `<function>/n=..,d=..,data=..MiB` in `group`, timing
/// `problem.gradient(w*, out)`; the problem is generated on first use (and
/// only if the benchmark is selected).
fn bench_gradient<P: Objective>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    function: &str,
    (n, d): (usize, usize),
    record_bytes: usize,
    make: impl Fn(usize, usize) -> P,
) {
    let bytes = (n * record_bytes) as u64;
    group.throughput(Throughput::Bytes(bytes));
    let id = format!("n={n},d={d},data={:.1}MiB", bytes as f64 / 1048576.0);
    let mut problem: Option<(P, Vec<f64>)> = None;
    group.bench_function(BenchmarkId::new(function, id), |bench| {
        let (p, out) = problem.get_or_insert_with(|| (make(n, d), vec![0.0; d]));
        let w = p.minimizer().to_vec();
        bench.iter(|| {
            p.gradient(black_box(&w), out);
            black_box(&mut *out);
        });
    });
}

fn full_gradient(c: &mut Criterion) {
    let mut group = c.benchmark_group("datagen.full_gradient");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    for (n, d) in SIZES {
        bench_gradient(&mut group, "logistic", (n, d), (d + 1) * 8, |n, d| {
            Logistic::generate(LogisticParams::new(n, d, 0.1), &mut rng())
                .expect("logistic instance")
        });
        bench_gradient(&mut group, "logistic_glm", (n, d), (d + 1) * 8, |n, d| {
            LogisticGlm::generate(LogisticGlmParams::new(n, d, 0.5), &mut rng())
                .expect("logistic GLM instance")
        });
        bench_gradient(&mut group, "least_squares", (n, d), d * 8, |n, d| {
            LeastSquares::new(LeastSquaresParams::new(n, d), &mut rng())
        });
    }
    group.finish();
}

fn triad(c: &mut Criterion) {
    stream_triad::bench_stream_triad(c, "datagen");
}

criterion_group!(benches, triad, full_gradient);
criterion_main!(benches);
