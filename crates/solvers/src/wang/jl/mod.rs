//! The Rademacher Johnson–Lindenstrauss map of Algorithms 1 and 3 (digest
//! §2.2, §2.6, §6.4): `Phi_ij = ±1/sqrt(k)` i.i.d. fair signs, `k x d`
//! (erratum E-a), data independent (no privacy cost).
//!
//! **Memory-light.** Signs are packed 64 per word (`k d / 8` bytes) and every
//! word is a counter-based hash (SplitMix64 finaliser) of `(seed, row, word)`,
//! so `Phi` is a pure function of `(seed, k, d)`: it can be stored packed or
//! regenerated, and `Phi^T w` is recomputed from the same seed.
//!
//! **Dimension** (digest §2.6, (ours)):
//! `k_gamma = ceil(C_JL b^2 ln(|Gamma| (n+1)(n+2)/beta) / gamma^2)` with the
//! hidden constant `C_JL` a named option (default 1); the provably sufficient
//! constant is [`PROVABLE_JL_CONSTANT`] `= 324/7` with `2|Gamma|` in the log
//! ([`provable_jl_dimension`]). **Identity fallback:** if `k_gamma >= d`,
//! `Phi = I_d` (margin preserved exactly, privacy unchanged).

mod four_rows;

/// The default hidden constant `C_JL = 1` (digest §2.6, §7).
pub const DEFAULT_JL_CONSTANT: f64 = 1.0;
/// `C_JL = 324/7`, sufficient by Achlioptas' Rademacher tail with a union
/// over `(n+1)(n+2)` vectors (digest §2.6), used with [`provable_jl_dimension`].
pub const PROVABLE_JL_CONSTANT: f64 = 324.0 / 7.0;

/// `C_JL b^2 ln(|Gamma|(n+1)(n+2)/beta)/gamma^2`, rounded up, as `f64`
/// (it can exceed any `usize` for `gamma = 1/n`).
pub fn jl_dimension(n: usize, grid_len: usize, gamma: f64, beta: f64, b: f64, c_jl: f64) -> f64 {
    let n = n as f64;
    let l = (grid_len as f64).ln() + (n + 1.0).ln() + (n + 2.0).ln() - beta.ln();
    (c_jl * b * b * l / (gamma * gamma)).ceil()
}

/// The provably sufficient `k = (324/7) b^2 ln(2 (n+1)(n+2) |Gamma|/beta)/gamma^2`.
pub fn provable_jl_dimension(n: usize, grid_len: usize, gamma: f64, beta: f64, b: f64) -> f64 {
    jl_dimension(n, 2 * grid_len, gamma, beta, b, PROVABLE_JL_CONSTANT)
}

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A projection `R^d -> R^k`: the identity (fallback) or packed Rademacher.
#[derive(Debug, Clone, PartialEq)]
pub enum JlMap {
    /// `Phi = I_d`.
    Identity {
        /// The dimension `d`.
        d: usize,
    },
    /// Packed `±1/sqrt(k)` signs; bit 1 means `-1`.
    Rademacher {
        /// Rows `k`.
        k: usize,
        /// Columns `d`.
        d: usize,
        /// The seed the signs are a function of.
        seed: u64,
        /// `ceil(d/64)` words per row.
        words_per_row: usize,
        /// Row-major packed signs.
        signs: Vec<u64>,
    },
}

impl JlMap {
    /// `Phi` with `k` rows for data in `R^d`, identity when `k >= d`.
    pub fn new(k: usize, d: usize, seed: u64) -> Self {
        if k >= d {
            return JlMap::Identity { d };
        }
        let words_per_row = d.div_ceil(64);
        let signs = (0..k * words_per_row)
            .map(|c| splitmix(seed ^ splitmix(c as u64 + 1)))
            .collect();
        JlMap::Rademacher {
            k,
            d,
            seed,
            words_per_row,
            signs,
        }
    }

    /// `Phi` of dimension `min(d, k_gamma)` from a (possibly huge) `f64` `k_gamma`.
    pub fn with_dimension(k_gamma: f64, d: usize, seed: u64) -> Self {
        if k_gamma >= d as f64 {
            JlMap::Identity { d }
        } else {
            JlMap::new(k_gamma.max(1.0) as usize, d, seed)
        }
    }

    /// Output dimension `k` (`d` for the identity).
    pub fn output_dim(&self) -> usize {
        match self {
            JlMap::Identity { d } => *d,
            JlMap::Rademacher { k, .. } => *k,
        }
    }

    /// Input dimension `d`.
    pub fn input_dim(&self) -> usize {
        match self {
            JlMap::Identity { d } | JlMap::Rademacher { d, .. } => *d,
        }
    }

    /// Whether this is the identity fallback.
    pub fn is_identity(&self) -> bool {
        matches!(self, JlMap::Identity { .. })
    }

    /// Entry `Phi_ij`.
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        match self {
            JlMap::Identity { .. } => f64::from(u8::from(i == j)),
            JlMap::Rademacher {
                k,
                words_per_row,
                signs,
                ..
            } => {
                let bit = (signs[i * words_per_row + j / 64] >> (j % 64)) & 1;
                (1.0 - 2.0 * bit as f64) / (*k as f64).sqrt()
            }
        }
    }

    /// `out = Phi x` (`out` of length `k`), by [`JlMap::project_with`] with a
    /// temporary table.
    pub fn project(&self, x: &[f64], out: &mut [f64]) {
        let mut table = Vec::new();
        self.project_with(x, out, &mut table);
    }

    /// `out = Phi x` reusing `table` as scratch. For the Rademacher map, the
    /// `16` signed sums of every block of 4 coordinates of `x` are tabulated
    /// once (`4 d` additions), after which each row of `Phi` costs `d/4`
    /// lookups instead of `d` signed additions (about 4x faster for `k >> 4`).
    ///
    /// The table is built and read a few sign words at a time, every row of
    /// `Phi` reading one pass's slice before the next is built; each output
    /// keeps its four lane sums across passes, so every sum adds the same
    /// terms in the same order as one pass over the whole table would (bit
    /// for bit, tested). One row runs as the four-row kernel of
    /// [`JlMap::project_rows`] with `x` in every slot: a lookup is one 4-wide
    /// load and addition either way, so it costs what one row alone did.
    pub fn project_with(&self, x: &[f64], out: &mut [f64], table: &mut Vec<f64>) {
        match self.packed() {
            None => out.copy_from_slice(x),
            Some(map) => {
                four_rows::project_four_at(dpcore::simd::level(), map, [x; 4], out, table);
            }
        }
    }

    /// The packed signs as the projection kernel reads them (`None` for the
    /// identity).
    fn packed(&self) -> Option<four_rows::Signs<'_>> {
        match self {
            JlMap::Identity { .. } => None,
            JlMap::Rademacher {
                k,
                words_per_row,
                signs,
                ..
            } => Some(four_rows::Signs {
                k: *k,
                words_per_row: *words_per_row,
                signs,
            }),
        }
    }

    /// `out = Phi^T v` (`out` of length `d`): the back-projection of
    /// Algorithm 1's output.
    pub fn transpose(&self, v: &[f64], out: &mut [f64]) {
        match self {
            JlMap::Identity { .. } => out.copy_from_slice(v),
            JlMap::Rademacher {
                k,
                words_per_row,
                signs,
                ..
            } => {
                let scale = 1.0 / (*k as f64).sqrt();
                out.iter_mut().for_each(|o| *o = 0.0);
                for (&vi, row) in v.iter().zip(signs.chunks_exact(*words_per_row)) {
                    let s = scale * vi;
                    for (&word, block) in row.iter().zip(out.chunks_mut(64)) {
                        for (b, o) in block.iter_mut().enumerate() {
                            *o += f64::from_bits(s.to_bits() ^ (((word >> b) & 1) << 63));
                        }
                    }
                }
            }
        }
    }

    /// `Phi x_i` for every row of an `n x d` row-major matrix, as an `n x k`
    /// row-major matrix (e.g. to measure `gamma(Phi S_in)` with
    /// [`super::exact_margin`] for the JL-constant experiment E9). Each row
    /// gets the bits [`JlMap::project_with`] gives it; four rows at a time
    /// share the sign lookups (`four_rows`): table 1's `wzw_mstar_d` cells at
    /// d = 3 162 (10 repetitions, 1 thread) took 4.5-5.4 s against 17.2-17.8 s
    /// one row at a time (Intel VM, 2026-12-02).
    pub fn project_rows(&self, features: &[f64]) -> Vec<f64> {
        let (d, k) = (self.input_dim(), self.output_dim());
        assert_eq!(features.len() % d, 0, "project_rows: shape");
        let n = features.len() / d;
        let mut z = vec![0.0; n * k];
        let mut table = Vec::new();
        match self.packed() {
            None => z.copy_from_slice(features),
            Some(map) => {
                // Four rows at a time share each sign nibble ([`four_rows`]);
                // the last `n mod 4` rows fill the group's slots by repeating
                // the last one, whose outputs are not written.
                let level = dpcore::simd::level();
                let groups = features.chunks(4 * d).zip(z.chunks_mut((4 * k).max(1)));
                for (rows, outs) in groups {
                    let last = rows.len() / d - 1;
                    let xs: [&[f64]; 4] = std::array::from_fn(|r| {
                        let r = r.min(last);
                        &rows[r * d..(r + 1) * d]
                    });
                    four_rows::project_four_at(level, map, xs, outs, &mut table);
                }
            }
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The projection as one pass over the whole table, one row at a time
    /// (the code before passes and four-row groups): the reference every
    /// layout must match bit for bit.
    fn one_pass(map: &JlMap, x: &[f64]) -> Vec<f64> {
        let JlMap::Rademacher {
            k,
            words_per_row,
            signs,
            ..
        } = map
        else {
            panic!("a Rademacher map");
        };
        let blocks = x.len().div_ceil(4);
        let mut table = vec![0.0; blocks * 16];
        for (t, chunk) in table.chunks_exact_mut(16).zip(x.chunks(4)) {
            t[0] = chunk.iter().sum();
            for m in 1..16usize {
                let b = m.trailing_zeros() as usize;
                let xb = chunk.get(b).copied().unwrap_or(0.0);
                t[m] = t[m & (m - 1)] - 2.0 * xb;
            }
        }
        let scale = 1.0 / (*k as f64).sqrt();
        signs
            .chunks_exact(*words_per_row)
            .map(|row| {
                let mut acc = [0.0f64; 4];
                for (wi, &word) in row.iter().enumerate() {
                    let base = wi * 16;
                    let count = (blocks - base).min(16);
                    for (j, tj) in table[base * 16..(base + count) * 16]
                        .chunks_exact(16)
                        .enumerate()
                    {
                        acc[j & 3] += tj[((word >> (4 * j)) & 15) as usize];
                    }
                }
                scale * ((acc[0] + acc[1]) + (acc[2] + acc[3]))
            })
            .collect()
    }

    #[test]
    fn passes_over_the_table_reproduce_one_pass_bit_for_bit() {
        // Dimensions below, at and across pass (2 048) and word (64)
        // boundaries, with a partial last block.
        for d in [5, 63, 64, 1000, 1024, 1025, 2049, 5000, 70_001] {
            for k in [1, 2, 4, 7, 37].into_iter().filter(|&k| k < d + 1) {
                let map = JlMap::new(k, d + 1, 9);
                let x: Vec<f64> = (0..=d)
                    .map(|j| {
                        ((j as f64) * 0.618_033_988_7).sin() * 1e3f64.powf((j % 7) as f64 - 3.0)
                    })
                    .collect();
                let mut got = vec![0.0; k];
                let mut scratch = vec![1.0; 3];
                map.project_with(&x, &mut got, &mut scratch);
                let want = one_pass(&map, &x);
                let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "d = {}, k = {k}", d + 1);
                // Scratch left from a larger call changes nothing.
                map.project_with(&x, &mut got, &mut scratch);
                assert_eq!(bits(&got), bits(&want), "reused scratch, d = {}", d + 1);
            }
        }
    }

    #[test]
    fn four_rows_at_once_reproduce_one_row_bit_for_bit_at_every_level() {
        // Dimensions across the four-row pass (512) and word (64)
        // boundaries with partial last blocks; row counts with every
        // remainder mod 4; odd `k` for the single-row tail of `Phi`.
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        for d in [3, 65, 512, 513, 1030, 4099] {
            for k in [1, 2, 3, 37].into_iter().filter(|&k| k < d) {
                let map = JlMap::new(k, d, 11);
                let signs = map.packed().expect("a Rademacher map");
                for n in [1, 4, 6, 9] {
                    let x: Vec<f64> = (0..n * d)
                        .map(|j| {
                            ((j as f64) * 0.414_213_56).cos() * 1e2f64.powf((j % 5) as f64 - 2.0)
                        })
                        .collect();
                    let want: Vec<f64> =
                        x.chunks_exact(d).flat_map(|r| one_pass(&map, r)).collect();
                    assert_eq!(
                        bits(&map.project_rows(&x)),
                        bits(&want),
                        "d = {d}, k = {k}, n = {n}"
                    );
                    for level in dpcore::simd::supported_levels() {
                        let mut scratch = vec![7.0; 5];
                        for (rows, want) in x.chunks_exact(4 * d).zip(want.chunks_exact(4 * k)) {
                            let xs: [&[f64]; 4] =
                                std::array::from_fn(|r| &rows[r * d..(r + 1) * d]);
                            let mut got = vec![0.0; 4 * k];
                            four_rows::project_four_at(level, signs, xs, &mut got, &mut scratch);
                            assert_eq!(bits(&got), bits(want), "{level:?}, d = {d}, k = {k}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_map_to_zero_dimensions_projects_to_nothing() {
        let map = JlMap::new(0, 9, 3);
        let x: Vec<f64> = (0..27).map(|j| j as f64).collect();
        assert!(map.project_rows(&x).is_empty());
        let mut out = [];
        map.project(&x[..9], &mut out);
    }
}
