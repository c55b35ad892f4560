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
}
