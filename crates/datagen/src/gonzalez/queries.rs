//! The synthetic-data instance of digest §6.3 G5: domain `Z = {0,1}^k`
//! (`z` encoded by its bits), queries all 2-way marginal conjunctions
//! `1[z_i = a, z_j = b]` **and their negations** (`|Q| = 8 C(k, 2)`, closed
//! under negation as Alg. 5's proof needs, digest §3.5), and `D` a mixture of
//! product distributions, so `q(D)` is in closed form.
//!
//! Query index `j = 2 (4 p + 2a + b) + s`: pair `p` (lexicographic `i < i'`),
//! cell `(a, b)`, sign `s` (0: `+q`, 1: `-q`). Answers of a histogram cost
//! `O(|supp h| k^2)`.

use dpcore::saddle::QueryRelease;
use rand::{Rng, RngExt};

/// One mixture component: weight and Bernoulli means of the `k` bits.
#[derive(Debug, Clone, PartialEq)]
pub struct ProductComponent {
    /// Mixture weight (the weights sum to 1).
    pub weight: f64,
    /// `P(z_i = 1)` for each bit.
    pub means: Vec<f64>,
}

/// The G5 instance with a sampled data set.
#[derive(Debug, Clone)]
pub struct MarginalQueries {
    k: usize,
    pairs: Vec<(usize, usize)>,
    records: Vec<u32>,
    population: Vec<f64>,
}

impl MarginalQueries {
    /// `n` records from the mixture `components` over `{0,1}^k`, `2 <= k <= 20`.
    pub fn sample<R: Rng + ?Sized>(
        k: usize,
        components: &[ProductComponent],
        n: usize,
        rng: &mut R,
    ) -> Self {
        assert!((2..=20).contains(&k) && n > 0 && components.iter().all(|c| c.means.len() == k));
        let pairs: Vec<(usize, usize)> = (0..k)
            .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
            .collect();
        let mut population = vec![0.0; 8 * pairs.len()];
        for (p, &(i, j)) in pairs.iter().enumerate() {
            for cell in 0..4 {
                let (a, b) = (cell >> 1, cell & 1);
                let prob: f64 = components
                    .iter()
                    .map(|c| {
                        let pi = if a == 1 { c.means[i] } else { 1.0 - c.means[i] };
                        let pj = if b == 1 { c.means[j] } else { 1.0 - c.means[j] };
                        c.weight * pi * pj
                    })
                    .sum();
                population[2 * (4 * p + cell)] = prob;
                population[2 * (4 * p + cell) + 1] = -prob;
            }
        }
        let total: f64 = components.iter().map(|c| c.weight).sum();
        let records = (0..n)
            .map(|_| {
                let mut u = rng.random::<f64>() * total;
                let c = components
                    .iter()
                    .find(|c| {
                        u -= c.weight;
                        u < 0.0
                    })
                    .unwrap_or(&components[components.len() - 1]);
                c.means.iter().enumerate().fold(0u32, |z, (i, &m)| {
                    if rng.random::<f64>() < m {
                        z | 1 << i
                    } else {
                        z
                    }
                })
            })
            .collect();
        Self {
            k,
            pairs,
            records,
            population,
        }
    }

    /// Adds `weight` to the positive query of every pair's cell of `z`
    /// (even entries of `out`, index `2 (4 p + cell)`).
    fn add_point(&self, z: usize, weight: f64, out: &mut [f64]) {
        for (p, &(i, j)) in self.pairs.iter().enumerate() {
            let cell = (((z >> i) & 1) << 1) | ((z >> j) & 1);
            out[2 * (4 * p + cell)] += weight;
        }
    }

    /// Sets the odd (negated) entries from the even ones.
    fn negate_into_odd(out: &mut [f64]) {
        for pair in out.chunks_exact_mut(2) {
            pair[1] = -pair[0];
        }
    }
}

impl QueryRelease for MarginalQueries {
    fn domain_size(&self) -> usize {
        1 << self.k
    }
    fn num_queries(&self) -> usize {
        8 * self.pairs.len()
    }
    fn num_records(&self) -> usize {
        self.records.len()
    }
    fn query_vector(&self, j: usize, out: &mut [f64]) {
        let (u, sign) = (j / 2, if j.is_multiple_of(2) { 1.0 } else { -1.0 });
        let (i, i2) = self.pairs[u / 4];
        let (a, b) = ((u % 4) >> 1, u % 2);
        for (z, o) in out.iter_mut().enumerate() {
            *o = if (z >> i) & 1 == a && (z >> i2) & 1 == b {
                sign
            } else {
                0.0
            };
        }
    }
    fn answers(&self, histogram: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        for (z, &h) in histogram.iter().enumerate() {
            if h != 0.0 {
                self.add_point(z, h, out);
            }
        }
        Self::negate_into_odd(out);
    }
    fn empirical_answers(&self, out: &mut [f64]) {
        out.fill(0.0);
        let w = 1.0 / self.records.len() as f64;
        for &z in &self.records {
            self.add_point(z as usize, w, out);
        }
        Self::negate_into_odd(out);
    }
    fn population_answers(&self) -> &[f64] {
        &self.population
    }
}
