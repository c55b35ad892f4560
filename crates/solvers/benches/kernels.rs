//! The solvers' hot loops, run through their public entry points, with the
//! STREAM-triad bandwidth measured in the same run (`benches/stream_triad.rs`).
//!
//! - `solvers.clipped_gradient`: the `A_NSGD` step loop of Bassily et al.
//!   ([`solvers::bassily::sgd::Nsgd::run_planned`], Smooth variant): per step
//!   a Poisson batch ([`solvers::dp_sgd::poisson_batch_skipping`]), each
//!   record's gradient clipped to `C` and summed, Gaussian noise, a
//!   projection. The plan is Theorem 3.2's for the instance except for its
//!   step count (cut to [`POISSON_STEPS`] so one iteration stays short) and,
//!   for `full_batch`, its batch (`m = n`, so `q = 1` and every step streams
//!   the whole data set in order: the memory-bound form of the same loop,
//!   comparable with the triad). Changing `T` or `m` only changes how much
//!   work one run does, not the code that runs. Families: `lin_ball` (E1,
//!   record gradient `-L z`, so the loop's own clip-and-sum dominates),
//!   `logistic_glm` and `least_squares_glm` (E2), `d = 16` as in the
//!   experiments.
//! - `solvers.jl_projection`: Wang–Zhu–Wang's
//!   [`solvers::wang::jlgd::clipped_projection`] (row clip, Rademacher JL
//!   map to `k` dimensions, projected-row clip) over a planted-halfspace
//!   data set, `k` from [`solvers::wang::jl::jl_dimension`] at `gamma = 0.4`
//!   as M* would use it.
//! - `solvers.full_batch_gd`: the per-step pass of full-batch noisy GD on
//!   logistic rows ([`solvers::full_batch_gd::LogisticRows::clipped_mean_gradient`],
//!   the peer race's task (a)): `n = 1e5`, `d = 100` (80 MB, out of cache),
//!   one thread unless `RAYON_NUM_THREADS` says otherwise.
//! - `solvers.mw`: González et al.'s multiplicative weights
//!   ([`solvers::gonzalez::mw`]): a mirror step, the softmax probabilities
//!   and a sorted vertex sample, over `d` coordinates (throughput in
//!   coordinates per second).
//!
//! Byte-count convention (the triad's, see `benches/stream_triad.rs`): bytes
//! of data the kernel must read or write. For the SGD loop, the records whose
//! gradients are evaluated, `(d + 1) 8` bytes each for the labelled GLM
//! families and `d 8` for `lin_ball`, counted once per evaluation (the
//! Poisson runs touch scattered records, so they are bound by memory latency
//! rather than bandwidth; their ratio to the triad is not a streaming
//! efficiency). For the JL projection, the features read plus the projected
//! rows and scales written, `n (d + k + 1) 8`. The `O(d)` iterates are not
//! counted. The parameter string holds the data set's size in MiB
//! (`data=...MiB`), which `scripts/bench_report.py` compares with the
//! last-level cache.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use datagen::bassily::{
    LeastSquaresGlm, LeastSquaresGlmParams, LinBall, LinBallParams, LogisticGlm, LogisticGlmParams,
};
use datagen::wang::{HalfspaceParams, PlantedHalfspace};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::{Objective, PrivacyParams};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::bassily::sgd::{Nsgd, NsgdPlan};
use solvers::gonzalez::mw::{sample_sorted, LogWeights, SamplerScratch};
use solvers::wang::jl::{jl_dimension, JlMap};
use solvers::wang::jlgd::clipped_projection;
use solvers::wang::margin_grid;
use std::hint::black_box;

#[path = "../../../benches/stream_triad.rs"]
mod stream_triad;

/// Seed of the data sets and of every timed run (so each iteration of a
/// Poisson run draws the same batches and does the same work).
const SEED: u64 = 20_261_124;
/// Steps of the Poisson-batch runs (Theorem 3.2 would run `T ~ n/8`).
const POISSON_STEPS: u64 = 32;
/// Dimension of the SGD instances (the Bassily experiments').
const D: usize = 16;

fn rng() -> Pcg64 {
    Pcg64::seed_from_u64(SEED)
}

fn mib(bytes: u64) -> String {
    format!("{:.1}MiB", bytes as f64 / 1048576.0)
}

/// An instance of `A_NSGD` to time.
struct SgdCase {
    family: &'static str,
    problem: Box<dyn Objective>,
    /// Bytes of one record (features, plus the label for the GLMs).
    record_bytes: u64,
    privacy: PrivacyParams,
}

fn sgd_cases(n: usize) -> Vec<SgdCase> {
    let glm_privacy = PrivacyParams::approx(0.5, 1e-12);
    vec![
        SgdCase {
            family: "lin_ball",
            problem: Box::new(
                LinBall::generate(LinBallParams::new(n, D, 0.5), &mut rng()).expect("LinBall"),
            ),
            record_bytes: D as u64 * 8,
            privacy: PrivacyParams::approx(0.125, 1e-12),
        },
        SgdCase {
            family: "logistic_glm",
            problem: Box::new(
                LogisticGlm::generate(LogisticGlmParams::new(n, D, 0.5), &mut rng())
                    .expect("logistic GLM"),
            ),
            record_bytes: (D as u64 + 1) * 8,
            privacy: glm_privacy,
        },
        SgdCase {
            family: "least_squares_glm",
            problem: Box::new(
                LeastSquaresGlm::generate(LeastSquaresGlmParams::new(n, D), &mut rng())
                    .expect("least-squares GLM"),
            ),
            record_bytes: (D as u64 + 1) * 8,
            privacy: glm_privacy,
        },
    ]
}

/// Times `nsgd.run_planned(problem, plan)` from a fresh [`SEED`] stream;
/// the throughput counts the record gradients one run evaluates.
fn bench_nsgd(c: &mut Criterion, group: &str, case: &SgdCase, plan: &NsgdPlan) {
    let nsgd = Nsgd::default();
    let problem = case.problem.as_ref();
    let evaluations = nsgd
        .run_planned(problem, plan, &mut rng())
        .expect("NSGD run")
        .gradient_evaluations;
    let n = problem.num_records() as u64;
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(evaluations * case.record_bytes));
    let id = format!(
        "n={n},d={D},T={},m={},data={}",
        plan.schedule.steps,
        plan.schedule.batch,
        mib(n * case.record_bytes)
    );
    g.bench_function(BenchmarkId::new(case.family, id), |bench| {
        bench.iter(|| {
            black_box(
                nsgd.run_planned(problem, plan, &mut rng())
                    .expect("NSGD run"),
            )
        });
    });
    g.finish();
}

fn clipped_gradient(c: &mut Criterion) {
    for n in [10_000, 1_000_000] {
        for case in sgd_cases(n) {
            let planned = Nsgd::default()
                .plan(case.problem.as_ref(), case.privacy)
                .expect("NSGD plan");
            // Full batch: q = 1, one step, a pass over the records in order.
            let mut full = planned;
            full.schedule.batch = n;
            full.schedule.steps = 1;
            bench_nsgd(c, "solvers.clipped_gradient.full_batch", &case, &full);
            if n == 1_000_000 {
                // Theorem 3.2's batch and sampling rate, fewer steps.
                let mut poisson = planned;
                poisson.schedule.steps = POISSON_STEPS;
                bench_nsgd(c, "solvers.clipped_gradient.poisson", &case, &poisson);
            }
        }
    }
}

fn full_batch_gd(c: &mut Criterion) {
    use rand::RngExt;
    use solvers::full_batch_gd::LogisticRows;
    let (n, d) = (100_000, 100);
    let mut r = rng();
    // Rows in the unit ball, labels +-1: the race's shape (the values do not
    // change the work).
    let x: Vec<f64> = (0..n * d).map(|_| r.random_range(-0.1..0.1)).collect();
    let y: Vec<f64> = (0..n)
        .map(|_| if r.random_bool(0.5) { 1.0 } else { -1.0 })
        .collect();
    let rows = LogisticRows::new(&x, &y, d).expect("rows");
    let w: Vec<f64> = (0..d).map(|_| r.random_range(-1.0..1.0)).collect();
    let mut partials = Vec::new();
    let mut out = vec![0.0; d];
    let mut group = c.benchmark_group("solvers.full_batch_gd");
    let bytes = (n * (d + 2) * 8) as u64;
    group.throughput(Throughput::Bytes(bytes));
    let id = format!("n={n},d={d},data={}", mib(bytes));
    group.bench_function(BenchmarkId::new("clipped_mean_gradient", id), |bench| {
        bench.iter(|| black_box(rows.clipped_mean_gradient(&w, 1.0, &mut partials, &mut out)))
    });
    group.finish();
}

fn jl_projection(c: &mut Criterion) {
    let mut group = c.benchmark_group("solvers.jl_projection");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    for (n, d) in [(1024, 300), (2048, 3000)] {
        let data = PlantedHalfspace::generate(HalfspaceParams::isotropic(n, d, 0.4, 0), &mut rng())
            .expect("planted halfspace");
        let grid_len = margin_grid(n, 1.0).len();
        let beta = 1.0 / (n as f64 * n as f64);
        let k = jl_dimension(n, grid_len, 0.4, beta, 1.0, 1.0);
        let map = JlMap::with_dimension(k, d, SEED);
        let k = map.output_dim();
        let bytes = (n * (d + k + 1) * 8) as u64;
        group.throughput(Throughput::Bytes(bytes));
        let id = format!("n={n},d={d},k={k},data={}", mib((n * d * 8) as u64));
        group.bench_function(BenchmarkId::new("clipped_projection", id), |bench| {
            bench.iter(|| black_box(clipped_projection(data.features(), d, &map, 1.0, 2.0)));
        });
    }
    group.finish();
}

fn mw(c: &mut Criterion) {
    let mut group = c.benchmark_group("solvers.mw");
    for d in [256, 65_536] {
        group.throughput(Throughput::Elements(d as u64));
        let id = format!("d={d}");
        let g: Vec<f64> = (0..d).map(|j| ((j * 37) % 101) as f64 / 101.0).collect();
        let mut weights = LogWeights::uniform(d);
        group.bench_function(BenchmarkId::new("step", &id), |bench| {
            bench.iter(|| weights.step(black_box(-0.01), &g));
        });
        let mut p = vec![0.0; d];
        group.bench_function(BenchmarkId::new("probabilities", &id), |bench| {
            bench.iter(|| {
                weights.probabilities_into(&mut p);
                black_box(&mut p);
            });
        });
        let (mut sampler, mut r) = (SamplerScratch::default(), rng());
        group.bench_function(BenchmarkId::new("sample_sorted_17", &id), |bench| {
            bench.iter(|| {
                sample_sorted(&p, 17, &mut r, &mut sampler);
                black_box(&sampler.draws);
            });
        });
    }
    group.finish();
}

fn triad(c: &mut Criterion) {
    stream_triad::bench_stream_triad(c, "solvers");
}

criterion_group!(
    benches,
    triad,
    clipped_gradient,
    full_batch_gd,
    jl_projection,
    mw
);
criterion_main!(benches);
