//! Counter-based randomness for lazily generated records (digest §6.3 G1(a),
//! pitfall 20): the noise of record `i` is a pure function of
//! `(seed, i, coordinate)`, so a data set of `n` records in dimension
//! `2^20` needs no storage and every pass over it sees the same records.
//!
//! The mixer is SplitMix64's finaliser (Steele, Lea & Flood 2014), a
//! bijection of `u64` with full avalanche; keys are combined by chaining it.

use dpcore::saddle::SimplexPoint;

/// SplitMix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The partial key of `(seed, a)`: `hash3(seed, a, b)` is
/// `hash_keyed(key2(seed, a), b)`, so a loop over `b` at fixed `(seed, a)`
/// (a row of a lazily generated matrix) costs one mixer call per draw.
#[inline]
pub fn key2(seed: u64, a: u64) -> u64 {
    mix64(mix64(seed) ^ a)
}

/// The hash of counter `b` under a partial key from [`key2`].
#[inline]
pub fn hash_keyed(key: u64, b: u64) -> u64 {
    mix64(key ^ b)
}

/// A 64-bit hash of the key `(seed, a, b)`.
#[inline]
pub fn hash3(seed: u64, a: u64, b: u64) -> u64 {
    hash_keyed(key2(seed, a), b)
}

/// A uniform draw in `[0, 1)` with 53 random bits from a 64-bit hash (the
/// top 53 bits fit an `i64`, whose conversion is one instruction).
#[inline]
fn unit_from_hash(h: u64) -> f64 {
    ((h >> 11) as i64) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform draw in `[0, 1)` with 53 random bits, keyed by `(seed, a, b)`.
#[inline]
pub fn uniform3(seed: u64, a: u64, b: u64) -> f64 {
    unit_from_hash(hash3(seed, a, b))
}

/// The same draw as [`uniform3`]`(seed, a, b)` from the partial key
/// `key = key2(seed, a)`.
#[inline]
pub fn uniform_keyed(key: u64, b: u64) -> f64 {
    unit_from_hash(hash_keyed(key, b))
}

/// The Rademacher sign `+-1` of coordinate `j` of the vector keyed by
/// `(seed, a)`: bit `j mod 64` of the word `hash3(seed, a, j / 64)`, so a
/// whole vector costs one hash per 64 coordinates.
#[inline]
pub fn rademacher(seed: u64, a: u64, j: usize) -> f64 {
    let word = hash3(seed, a, (j / 64) as u64);
    if (word >> (j % 64)) & 1 == 1 {
        1.0
    } else {
        -1.0
    }
}

/// Adds `scale * s_j` to `out[j]` for every `j`, where `s` is the Rademacher
/// vector keyed by `(seed, a)` (same signs as [`rademacher`]).
pub fn add_rademacher(seed: u64, a: u64, scale: f64, out: &mut [f64]) {
    for (block, chunk) in out.chunks_mut(64).enumerate() {
        let word = hash3(seed, a, block as u64);
        for (bit, o) in chunk.iter_mut().enumerate() {
            *o += if (word >> bit) & 1 == 1 {
                scale
            } else {
                -scale
            };
        }
    }
}

/// `SIGNS[b][k]` is `+1.0` if bit `k` of the byte `b` is set, else `-1.0`:
/// the Rademacher signs of one byte of a hash word, 16 KiB (fits L1).
static SIGNS: [[f64; 8]; 256] = {
    let mut t = [[0.0; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            t[b][k] = if (b >> k) & 1 == 1 { 1.0 } else { -1.0 };
            k += 1;
        }
        b += 1;
    }
    t
};

/// The Rademacher signs of one vector keyed by `(seed, a)`, hashed once per
/// record instead of once per coordinate (same signs as [`rademacher`] and
/// [`add_rademacher`], bit for bit).
///
/// [`rademacher`]`(seed, a, j)` costs three mixer calls (`key2` then the
/// word of `j / 64`), and [`add_rademacher`] three per 64 coordinates. The
/// record gradients of González's games and SCO instances need the same
/// words several times per record (a signed dot over the point's support,
/// then the signed update of the gradient): with the partial key computed
/// once and the words kept, a record at `d = 16` costs 2 mixer calls per
/// sign vector instead of about 3 (|supp| + 1) (issue 41: 0.7 us a record
/// at `d = 16`, most of it in the mixer).
#[derive(Debug, Clone, Default)]
pub struct SignWords {
    words: Vec<u64>,
}

impl SignWords {
    /// Hashes the `ceil(d / 64)` words of the vector keyed by `(seed, a)`.
    #[inline]
    pub fn fill(&mut self, seed: u64, a: u64, d: usize) {
        let key = key2(seed, a);
        self.words.clear();
        self.words
            .extend((0..d.div_ceil(64) as u64).map(|b| hash_keyed(key, b)));
    }

    /// The sign `+-1` of coordinate `j` (as [`rademacher`]). Branch-free:
    /// the bit becomes the sign bit of `1.0`, since a branch on a random
    /// bit is mispredicted half the time (the signed sums over a Maurey
    /// point's support ran at about 10 ns a coordinate with it).
    #[inline]
    pub fn sign(&self, j: usize) -> f64 {
        let bit = (self.words[j / 64] >> (j % 64)) & 1;
        f64::from_bits(1f64.to_bits() | ((bit ^ 1) << 63))
    }

    /// `sum_j p_j s_j` over the point's coordinates, in their order (the
    /// sum `p.for_each(|j, v| s += v * rademacher(seed, a, j))`, bit for bit).
    #[inline]
    pub fn signed_dot(&self, p: SimplexPoint<'_>) -> f64 {
        let mut s = 0.0;
        p.for_each(|j, v| s += v * self.sign(j));
        s
    }

    /// [`Self::signed_dot`] of four sign vectors at once: four independent
    /// sums, each in the point's order (so each bit for bit as alone), which
    /// the processor overlaps instead of waiting on one chain of dependent
    /// additions (a Maurey point of `K = 1150` draws has up to 256 support
    /// coordinates at `d = 256`).
    ///
    /// Each term `v * (+-1)` is `v` with its sign bit flipped where the bit
    /// is clear (exact), and the four records' words of the current block
    /// of 64 coordinates are kept side by side, so a coordinate costs a
    /// shift, a mask and a flip per lane, which the AVX2 copy does for the
    /// four lanes at once (`ggp_alg4_n` at `d = 256`: these sums took 58%
    /// of a cell).
    #[inline]
    pub fn signed_dot4(words: [&SignWords; 4], p: SimplexPoint<'_>) -> [f64; 4] {
        signed_dot4_at(dpcore::simd::level(), words, p)
    }

    /// `out[j] += scale s_j` for every `j` (as [`add_rademacher`], bit for
    /// bit: `scale * (+-1.0)` is `+-scale` exactly). A byte of a word
    /// selects eight signs from a table, so the update is a plain
    /// multiply-add loop the compiler vectorises.
    #[inline]
    pub fn add_scaled(&self, scale: f64, out: &mut [f64]) {
        for (chunk, &word) in out.chunks_mut(64).zip(&self.words) {
            let bytes = word.to_le_bytes();
            let done = chunk.len() / 8;
            let mut eights = chunk.chunks_exact_mut(8);
            for (o8, &b) in (&mut eights).zip(&bytes) {
                let s = &SIGNS[b as usize];
                for (o, &si) in o8.iter_mut().zip(s) {
                    *o += scale * si;
                }
            }
            let rest = eights.into_remainder();
            if !rest.is_empty() {
                let s = &SIGNS[bytes[done] as usize];
                for (o, &si) in rest.iter_mut().zip(s) {
                    *o += scale * si;
                }
            }
        }
    }
}

dpcore::dispatch_by_level! {
    /// [`SignWords::signed_dot4`] at a given level (the same bits at every level).
    fn signed_dot4_at<'a>(words: [&'a SignWords; 4], p: SimplexPoint<'a>) -> [f64; 4] => signed_dot4_body
}

/// The body every level of [`signed_dot4_at`] compiles. The point's two
/// forms are matched here rather than through `SimplexPoint::for_each`,
/// whose closure would be compiled outside the AVX2 copy.
#[inline(always)]
fn signed_dot4_body(words: [&SignWords; 4], p: SimplexPoint<'_>) -> [f64; 4] {
    let mut acc = SignedSums4 {
        words,
        block: usize::MAX,
        lanes: [0; 4],
        sums: [0.0; 4],
    };
    match p {
        SimplexPoint::Dense(v) => v.iter().enumerate().for_each(|(j, &x)| acc.add(j, x)),
        SimplexPoint::Sparse { indices, weights } => indices
            .iter()
            .zip(weights)
            .for_each(|(&j, &x)| acc.add(j, x)),
    }
    acc.sums
}

/// The running state of [`signed_dot4_body`].
struct SignedSums4<'a> {
    words: [&'a SignWords; 4],
    /// The block of 64 coordinates whose words `lanes` holds.
    block: usize,
    lanes: [u64; 4],
    sums: [f64; 4],
}

impl SignedSums4<'_> {
    /// Adds `v * s_j` of each record to its sum.
    #[inline(always)]
    fn add(&mut self, j: usize, v: f64) {
        if j / 64 != self.block {
            self.block = j / 64;
            self.lanes = self.words.map(|w| w.words[j / 64]);
        }
        let (shift, v) = (j % 64, v.to_bits());
        for (sk, w) in self.sums.iter_mut().zip(self.lanes) {
            *sk += f64::from_bits(v ^ ((!(w >> shift) & 1) << 63));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_keys_reproduce_the_record_hash() {
        // The record noise of every game is keyed by hash3: splitting it
        // into a row key and a per-entry mix must not change a single bit,
        // and the mixer itself is pinned (a change would silently change
        // every data set).
        assert_eq!(hash3(1, 2, 3), 0xd073_4750_fde3_62b3);
        for (s, a, b) in [(0, 0, 0), (7, 1 << 40, 99), (u64::MAX, 3, u64::MAX)] {
            assert_eq!(hash_keyed(key2(s, a), b), hash3(s, a, b));
            assert_eq!(uniform_keyed(key2(s, a), b), uniform3(s, a, b));
            let u = uniform3(s, a, b);
            assert!((0.0..1.0).contains(&u));
        }
        // The 53-bit conversion is exact at both ends of the range.
        assert_eq!(unit_from_hash(0), 0.0);
        assert_eq!(unit_from_hash(u64::MAX), 1.0 - 1.0 / (1u64 << 53) as f64);
    }

    #[test]
    fn sign_words_reproduce_the_per_coordinate_signs() {
        // Every consumer of SignWords promises bit-identical gradients to
        // the per-coordinate hashes: the signs, the signed sums and the
        // updates must agree exactly, at lengths that end inside a byte,
        // inside a word and on a word boundary.
        let mut w = SignWords::default();
        for d in [1, 7, 16, 64, 65, 100, 256] {
            for (seed, a) in [(3u64, 5u64), (u64::MAX, 1 << 33)] {
                w.fill(seed, a, d);
                for j in 0..d {
                    assert_eq!(w.sign(j), rademacher(seed, a, j));
                }
                let p: Vec<f64> = (0..d).map(|j| 1.0 / (j as f64 + 3.0)).collect();
                let mut direct = 0.0;
                p.iter()
                    .enumerate()
                    .for_each(|(j, &v)| direct += v * rademacher(seed, a, j));
                let fast = w.signed_dot(SimplexPoint::Dense(&p));
                assert_eq!(fast.to_bits(), direct.to_bits());
                let four = SignWords::signed_dot4([&w, &w, &w, &w], SimplexPoint::Dense(&p));
                assert!(four.iter().all(|f| f.to_bits() == direct.to_bits()));
                // Four different records, dense and sparse points (support
                // in increasing order, as Maurey points are), every level.
                let mut rows: [SignWords; 4] = Default::default();
                for (r, row) in rows.iter_mut().enumerate() {
                    row.fill(seed, a + r as u64, d);
                }
                let support: Vec<usize> = (0..d).filter(|j| j % 3 != 1).collect();
                let weights: Vec<f64> = support.iter().map(|&j| p[j]).collect();
                let points = [
                    SimplexPoint::Dense(&p),
                    SimplexPoint::Sparse {
                        indices: &support,
                        weights: &weights,
                    },
                ];
                for point in points {
                    let alone = rows.each_ref().map(|r| r.signed_dot(point).to_bits());
                    for level in dpcore::simd::supported_levels() {
                        let four = signed_dot4_at(level, rows.each_ref(), point);
                        assert_eq!(four.map(f64::to_bits), alone, "{level:?}, d = {d}");
                    }
                }
                let (mut a1, mut a2) = (p.clone(), p.clone());
                add_rademacher(seed, a, 0.3, &mut a1);
                w.add_scaled(0.3, &mut a2);
                assert!(a1.iter().zip(&a2).all(|(x, y)| x.to_bits() == y.to_bits()));
            }
        }
    }
}
