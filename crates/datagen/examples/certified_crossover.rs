//! Where damped Newton stops being cheaper than L-BFGS for the certified
//! logistic ground truth (issue 27): times both drivers to the
//! [`GROUND_TRUTH`] certificate from 0 on the E1b logistic family
//! (`mu = 0.1`, the experiment files' value, and `mu = 0.01`, the race's),
//! for a grid of `n` and `d`, and prints the Hessian cost in gradient passes
//! that [`newton_is_cheaper`] compares with its budget.
//!
//! `cargo run --release -p datagen --example certified_crossover`

use std::time::Instant;

use datagen::lbfgs::lbfgs_minimize;
use datagen::logistic::{LabelledData, Logistic, LogisticParams};
use datagen::newton::{newton_minimize, NewtonOptions, GROUND_TRUTH};
use dpcore::Objective;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.unwrap())
}

fn main() {
    let cheap = NewtonOptions {
        tol: 1e-1,
        floor_tol: 1e-1,
        max_iter: 10,
    };
    println!("mu\tn\td\thessian_passes\tnewton_s\tnewton_iter\tlbfgs_s\tlbfgs_passes\tratio");
    for mu in [0.1, 0.01] {
        for n in [10_000usize, 100_000] {
            for d in [2usize, 4, 8, 12, 16, 24, 32, 64, 100] {
                let params = LogisticParams::new(n, d, mu);
                let data = LabelledData::sample(
                    n,
                    d,
                    params.label_noise,
                    params.signal,
                    params.features,
                    &mut Pcg64::seed_from_u64(1),
                )
                .unwrap();
                let m = data.hessian_rows();
                let p = Logistic::from_data_certified_to(data, mu, &cheap).unwrap();
                let (tn, newton) = best_of(3, || {
                    newton_minimize(
                        vec![0.0; d],
                        &GROUND_TRUTH,
                        |w| p.value(w),
                        |w, g| p.gradient(w, g),
                        |w, h| p.hessian(w, h),
                    )
                    .unwrap()
                });
                let mut passes = 0;
                let (tl, lbfgs) = best_of(3, || {
                    passes = 0;
                    lbfgs_minimize(vec![0.0; d], &GROUND_TRUTH, 1.0 / (0.25 + mu), |w, g| {
                        passes += 1;
                        p.value_and_gradient(w, g)
                    })
                });
                assert!(lbfgs.failure.is_none(), "{:?}", lbfgs.failure);
                let hessian_passes =
                    (m as f64 * (d + 1) as f64 / 2.0 + (d * d) as f64 / 6.0) / n as f64;
                println!(
                    "{mu}\t{n}\t{d}\t{hessian_passes:.2}\t{tn:.4}\t{}\t{tl:.4}\t{passes}\t{:.2}",
                    newton.iterations,
                    tn / tl
                );
            }
        }
    }
}
