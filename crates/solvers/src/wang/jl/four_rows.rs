//! `Phi x` for four data rows at once, bit for bit what
//! [`JlMap::project_with`](super::JlMap::project_with) gives each row alone.
//!
//! **Why.** One row's projection reads, for every row of `Phi` and every
//! block of 4 coordinates, the block's sign nibble and adds one of its 16
//! tabulated sums to one of four lane sums. The nibble depends on `Phi`
//! only, so four data rows can share it: their tables are interleaved
//! (entry `m` of a block holds the four rows' sums side by side) and one
//! nibble then picks four adjacent doubles, which one 4-wide load and one
//! 4-wide addition handle. Every data row still adds the same terms to the
//! same lane sum in the same order, starting from the same `0.0`, and the
//! table entries are the same expressions, so each output has the same bits
//! (tested against a one-row reference at every SIMD level). One row, or
//! the last one to three of a matrix, runs with the slots repeated.

/// Sign words per pass: 8 words cover 512 coordinates, whose interleaved
/// table slice (16 sums for each of 128 blocks, four rows) is 64 KiB and
/// stays in a core's L2 cache while all `k` rows of `Phi` read it. One
/// table for the whole row did not (one record's, `32 d` bytes, was 2.6 MB
/// at d = 81 000), and its lookups missed to L3: oracle JLGD cells at
/// n = 2048 took 13.4 s at d = 81 000 against 1.9 s at 27 000 (Intel VM,
/// 2026-12-01). 16 words were no faster on the d = 3 162
/// cells of `wzw_mstar_d` (4.7 s against 4.5-5.4 s for 10 repetitions,
/// 1 thread, Intel VM, 2026-12-02).
const WORDS_PER_PASS: usize = 8;

/// Rows of `Phi` that read one pass's table together: each holds four lane
/// sums of four data rows (four 4-wide registers), so two rows give eight
/// independent chains of additions in 8 of the 16 AVX2 registers. Three
/// rows were within the noise of two on the same cells (4.3-4.7 s).
const PHI_ROWS_AT_ONCE: usize = 2;

/// The packed map as the kernel reads it.
#[derive(Clone, Copy)]
pub(super) struct Signs<'a> {
    /// Rows `k`.
    pub k: usize,
    /// `ceil(d/64)`.
    pub words_per_row: usize,
    /// Row-major packed signs, bit 1 meaning `-1`.
    pub signs: &'a [u64],
}

dpcore::dispatch_by_level! {
    /// [`project_four_body`] at a given level (the same bits at every level).
    pub(super) fn project_four_at<'a>(
        map: Signs<'a>,
        xs: [&'a [f64]; 4],
        outs: &'a mut [f64],
        scratch: &'a mut Vec<f64>
    ) -> () => project_four_body
}

/// Sixteen table entries of one block of 4 coordinates, each the four data
/// rows' sums side by side.
type Block = [[f64; 4]; 16];

/// Writes `Phi xs[r]` (the lane sums combined and scaled by `1/sqrt(k)`)
/// into `outs[r k..(r + 1) k]` for the first `outs.len() / k` (1 to 4) of
/// the four rows `xs`, all of length `d`; the other slots are computed and
/// dropped (a caller with fewer rows repeats one). `scratch` is reused
/// across calls.
///
/// The build `cargo run` uses (`opt-level = 3` with overflow checks and
/// debug assertions) must keep the inner loop as 4-wide loads and additions
/// in registers: with the sums copied in and out by `copy_from_slice` it
/// stayed scalar and stored them after every addition, 18.6 s on the cells
/// where the release build took 5.6 s (10 repetitions at d = 3 162, Intel
/// VM, 2026-12-02; see `Pass::add_rows`). Typing the table as fixed-size
/// blocks and shifting each nibble out by a constant 4 alone did not help
/// (14.9-18.7 s); the element-wise copies did (4.5-5.8 s).
#[inline(always)]
fn project_four_body(map: Signs<'_>, xs: [&[f64]; 4], outs: &mut [f64], scratch: &mut Vec<f64>) {
    let Signs {
        k,
        words_per_row,
        signs,
    } = map;
    if k == 0 {
        // A map to R^0 has no outputs (and `chunks_exact_mut(0)` would panic).
        return;
    }
    let d = xs[0].len();
    let blocks = d.div_ceil(4);
    // Scratch: per row of `Phi`, 4 lanes x 4 data rows of sums; then one
    // pass's interleaved table (16 blocks a word).
    scratch.clear();
    scratch.resize(16 * k + WORDS_PER_PASS * 16 * 64, 0.0);
    let (acc, tab) = scratch.split_at_mut(16 * k);
    let (acc, _) = acc.as_chunks_mut::<4>();
    let (acc, _) = acc.as_chunks_mut::<4>();
    let (tab, _) = tab.as_chunks_mut::<4>();
    let (tab, _) = tab.as_chunks_mut::<16>();
    for first in (0..words_per_row).step_by(WORDS_PER_PASS) {
        let last = (first + WORDS_PER_PASS).min(words_per_row);
        let (b0, b1) = (first * 16, (last * 16).min(blocks));
        for (blk, t) in (b0..b1).zip(tab.iter_mut()) {
            for (r, x) in xs.iter().enumerate() {
                let chunk = &x[blk * 4..(blk * 4 + 4).min(d)];
                // The one-row table's expressions, entry by entry.
                t[0][r] = chunk.iter().sum();
                for m in 1..16usize {
                    let b = m.trailing_zeros() as usize;
                    let xb = chunk.get(b).copied().unwrap_or(0.0);
                    t[m][r] = t[m & (m - 1)][r] - 2.0 * xb;
                }
            }
        }
        let pass = Pass {
            words_per_row,
            first,
            last,
            blocks,
            b0,
            tab,
        };
        let rows = signs.chunks_exact(PHI_ROWS_AT_ONCE * words_per_row);
        let rest = rows.remainder();
        let mut accs = acc.chunks_exact_mut(PHI_ROWS_AT_ONCE);
        for (a, rows) in (&mut accs).zip(rows) {
            pass.add_rows::<PHI_ROWS_AT_ONCE>(a, rows);
        }
        let tail = accs.into_remainder();
        for (a, row) in tail
            .chunks_exact_mut(1)
            .zip(rest.chunks_exact(words_per_row))
        {
            pass.add_rows::<1>(a, row);
        }
    }
    let scale = 1.0 / (k as f64).sqrt();
    for (r, out) in outs.chunks_exact_mut(k).take(4).enumerate() {
        for (o, a) in out.iter_mut().zip(acc.iter()) {
            *o = scale * ((a[0][r] + a[1][r]) + (a[2][r] + a[3][r]));
        }
    }
}

/// One pass: the sign words `first..last` of every row of `Phi` against the
/// interleaved table slice `tab` of blocks `b0..`.
struct Pass<'a> {
    words_per_row: usize,
    first: usize,
    last: usize,
    blocks: usize,
    b0: usize,
    tab: &'a [Block],
}

impl Pass<'_> {
    /// Adds this pass's lookups of the `R` rows of `Phi` in `rows` to their
    /// sums `acc` (per row: 4 lanes of four data rows), each in word order,
    /// then block order within a word, as the one-row reference does.
    #[inline(always)]
    fn add_rows<const R: usize>(&self, acc: &mut [[[f64; 4]; 4]], rows: &[u64]) {
        // Element-wise copies in and out: `copy_from_slice`'s checked
        // `memcpy` (debug assertions) let `a` escape, which kept it in
        // memory as scalars instead of in vector registers.
        let mut a: [[[f64; 4]; 4]; R] = std::array::from_fn(|r| acc[r]);
        for wi in self.first..self.last {
            let base = wi * 16;
            let count = (self.blocks - base).min(16);
            let tab = &self.tab[base - self.b0..base - self.b0 + count];
            let mut words: [u64; R] = std::array::from_fn(|r| rows[r * self.words_per_row + wi]);
            // Block `j` feeds lane `j & 3`; spelling the lane as a constant
            // keeps the sums in registers (an index computed at run time
            // sent them through the stack: 17.2 -> 13.1 s, against 4.6 s
            // with the constant, on the d = 3 162 cells).
            let (quads, rest) = tab.as_chunks::<4>();
            for q in quads {
                add_block::<R, 0>(&mut a, &mut words, &q[0]);
                add_block::<R, 1>(&mut a, &mut words, &q[1]);
                add_block::<R, 2>(&mut a, &mut words, &q[2]);
                add_block::<R, 3>(&mut a, &mut words, &q[3]);
            }
            // A partial last word: fewer than 4 blocks left over, in lanes
            // 0, 1, 2 (its block count is a multiple of 4 plus these).
            for (j, blk) in rest.iter().enumerate() {
                match j {
                    0 => add_block::<R, 0>(&mut a, &mut words, blk),
                    1 => add_block::<R, 1>(&mut a, &mut words, blk),
                    _ => add_block::<R, 2>(&mut a, &mut words, blk),
                }
            }
        }
        for (to, from) in acc.iter_mut().zip(&a) {
            *to = *from;
        }
    }
}

/// Adds the entry of `blk` picked by each row's next nibble (shifted out of
/// `words`) to lane `L` of that row's sums `a`, four data rows at once.
#[inline(always)]
fn add_block<const R: usize, const L: usize>(
    a: &mut [[[f64; 4]; 4]; R],
    words: &mut [u64; R],
    blk: &Block,
) {
    for (ar, w) in a.iter_mut().zip(words.iter_mut()) {
        let v = &blk[(*w & 15) as usize];
        *w >>= 4;
        for (s, &x) in ar[L].iter_mut().zip(v) {
            *s += x;
        }
    }
}
