//! The noise samplers of [`mechanisms::noise`], in samples per second
//! (`Throughput::Elements`: one element is one `f64` coordinate drawn, so a
//! `d`-dimensional vector counts `d`, and [`mechanisms::noise::gamma_radius`]
//! counts 1 per radius). These are compute-bound (a few nanoseconds per
//! coordinate, all in L1), so no bandwidth reference is needed; `normal.rs`
//! has no sampler (only the CDFs used by calibrations).
//!
//! Samplers: `gaussian` (`N(0, sigma^2 I)`, DP-SGD and Gaussian output
//! perturbation), `laplace` (i.i.d. Laplace coordinates), `uniform_direction`
//! (a uniform point of the sphere), `l2_laplace` (the Lowy–Razaviyayn pure-DP
//! noise, a Gamma radius times a uniform direction) and `gamma_radius` alone.
//! Dimensions: 16 (the Bassily experiments) and 4096. The generator is the
//! harness's (`rand_pcg::Pcg64`, as `runner::seeds::rng_from_seed`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mechanisms::noise::{gamma_radius, gaussian, l2_laplace, laplace, uniform_direction};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::hint::black_box;

const DIMS: [usize; 2] = [16, 4096];

fn samplers(c: &mut Criterion) {
    let mut group = c.benchmark_group("mechanisms.noise");
    let mut rng = Pcg64::seed_from_u64(20_261_124);
    for d in DIMS {
        group.throughput(Throughput::Elements(d as u64));
        let id = format!("d={d}");
        group.bench_function(BenchmarkId::new("gaussian", &id), |b| {
            b.iter(|| black_box(gaussian(d, black_box(0.5), &mut rng)));
        });
        group.bench_function(BenchmarkId::new("laplace", &id), |b| {
            b.iter(|| black_box(laplace(d, black_box(0.5), &mut rng)));
        });
        group.bench_function(BenchmarkId::new("uniform_direction", &id), |b| {
            b.iter(|| black_box(uniform_direction(d, &mut rng)));
        });
        group.bench_function(BenchmarkId::new("l2_laplace", &id), |b| {
            b.iter(|| black_box(l2_laplace(d, black_box(0.5), &mut rng)));
        });
        group.throughput(Throughput::Elements(1));
        group.bench_function(BenchmarkId::new("gamma_radius", &id), |b| {
            b.iter(|| black_box(gamma_radius(d, black_box(0.5), &mut rng)));
        });
    }
    group.finish();
}

criterion_group!(benches, samplers);
criterion_main!(benches);
