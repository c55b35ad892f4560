//! Counter-based randomness for lazily generated records (digest §6.3 G1(a),
//! pitfall 20): the noise of record `i` is a pure function of
//! `(seed, i, coordinate)`, so a data set of `n` records in dimension
//! `2^20` needs no storage and every pass over it sees the same records.
//!
//! The mixer is SplitMix64's finaliser (Steele, Lea & Flood 2014), a
//! bijection of `u64` with full avalanche; keys are combined by chaining it.

/// SplitMix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A 64-bit hash of the key `(seed, a, b)`.
#[inline]
pub fn hash3(seed: u64, a: u64, b: u64) -> u64 {
    mix64(mix64(mix64(seed) ^ a) ^ b)
}

/// A uniform draw in `[0, 1)` with 53 random bits, keyed by `(seed, a, b)`.
#[inline]
pub fn uniform3(seed: u64, a: u64, b: u64) -> f64 {
    (hash3(seed, a, b) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
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
