//! The geometric-skipping Poisson sampler used by Bassily et al.'s `A_NSGD`
//! must have the law of independent per-record inclusion.

use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::dp_sgd::poisson_batch_skipping;

#[test]
fn skipping_sampler_has_independent_inclusions_with_probability_q() {
    // n = 40, q = 0.3, 40000 draws. Per-index inclusion frequency: sd
    // sqrt(0.21/40000) = 0.00229; joint inclusion of neighbours (i, i+1) and
    // of (0, n-1): q^2 = 0.09, sd 0.00143; batch size: mean 12, variance 8.4.
    // 5-sd bands over 40 + 40 + 2 checks: false alarm < 1e-4 overall.
    let (n, q, draws) = (40usize, 0.3, 40_000usize);
    let mut rng = Pcg64::seed_from_u64(17);
    let mut counts = vec![0usize; n];
    let mut pairs = vec![0usize; n];
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    let mut batch = Vec::new();
    for _ in 0..draws {
        poisson_batch_skipping(n, q, &mut rng, &mut batch);
        assert!(batch.windows(2).all(|w| w[0] < w[1]), "strictly increasing");
        assert!(batch.iter().all(|&i| i < n));
        let mut member = vec![false; n];
        batch.iter().for_each(|&i| member[i] = true);
        for i in 0..n {
            counts[i] += usize::from(member[i]);
            pairs[i] += usize::from(member[i] && member[(i + 1) % n]);
        }
        let k = batch.len() as f64;
        sum += k;
        sum_sq += k * k;
    }
    let draws = draws as f64;
    for (&c, &p) in counts.iter().zip(&pairs) {
        assert!(
            (c as f64 / draws - q).abs() < 5.0 * 0.00229,
            "inclusion {c}"
        );
        assert!((p as f64 / draws - q * q).abs() < 5.0 * 0.00143, "pair {p}");
    }
    let mean = sum / draws;
    let var = sum_sq / draws - mean * mean;
    assert!((mean - 12.0).abs() < 5.0 * (8.4f64 / draws).sqrt());
    // The sample variance of 40000 draws has sd about 8.4 sqrt(2/40000) = 0.06.
    assert!((var - 8.4).abs() < 0.35, "variance {var}");
}

#[test]
fn skipping_sampler_edge_probabilities() {
    let mut rng = Pcg64::seed_from_u64(1);
    let mut batch = vec![7];
    poisson_batch_skipping(10, 0.0, &mut rng, &mut batch);
    assert!(batch.is_empty());
    poisson_batch_skipping(10, 1.0, &mut rng, &mut batch);
    assert_eq!(batch, (0..10).collect::<Vec<_>>());
}
