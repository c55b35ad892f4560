//! A cache hint for record oracles read in sparse, known-in-advance order.
//!
//! Noisy SGD with Poisson batches touches a few hundred records scattered over
//! a data set far larger than the last-level cache, so almost every record
//! read is a DRAM miss (measured with `perf`: 70–76% of the time of the
//! LinBall and AbsDeviation oracles sat on the record load). The batch is
//! drawn before it is used, so a loop can ask for record `batch[k + D]` while
//! it works on `batch[k]`. A hint never changes a result.

/// How many rows ahead the row-streaming passes (`datagen`'s
/// `compensated_glm_sum`, `menart::LeastSquares`'s gradient, the solvers'
/// full-batch noisy GD) hint the next row to the cache.
pub const PREFETCH_ROWS: usize = 8;

/// Shortest row (in `f64`) for which the row-streaming passes hint rows
/// ahead: shorter rows stream well without hints, and the hints' own cost
/// then shows (measured at `d = 16` on data in cache).
pub const PREFETCH_MIN_LEN: usize = 64;

/// Bytes per cache line assumed when hinting a slice (64 on every current
/// x86_64 and most ARM cores; a wrong guess only costs hint instructions).
const CACHE_LINE: usize = 64;

/// Hints that the memory of `data` will be read soon (one hint per cache
/// line). Does nothing on targets without a stable prefetch instruction.
#[inline]
pub fn prefetch_slice<T>(data: &[T]) {
    let start = data.as_ptr() as usize;
    let bytes = std::mem::size_of_val(data);
    let mut offset = 0;
    while offset < bytes.max(1) {
        prefetch_address(start + offset);
        offset += CACHE_LINE;
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn prefetch_address(address: usize) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: PREFETCHT0 is a hint: it never faults and never reads into a
    // register, whatever the address (Intel SDM, PREFETCHh), and SSE is part
    // of the x86_64 baseline.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(address as *const i8) };
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn prefetch_address(_address: usize) {}

/// Size of a transparent huge page on x86_64 and most aarch64 Linux kernels.
const HUGE_PAGE: usize = 2 << 20;

/// An empty vector with room for `len` elements whose memory the kernel is
/// asked to back with transparent huge pages (Linux `madvise(MADV_HUGEPAGE)`;
/// elsewhere, or if the kernel declines, an ordinary vector).
///
/// Random record reads over hundreds of megabytes miss the TLB on nearly
/// every access with 4 KiB pages, and a prefetch waits for the page walk;
/// 2 MiB pages cover such a data set with a few hundred TLB entries. The
/// advice must come before the first write, which is when pages are mapped.
pub fn huge_page_vec<T>(len: usize) -> Vec<T> {
    let v = Vec::with_capacity(len);
    advise_huge_pages(v.as_ptr() as usize, len * std::mem::size_of::<T>());
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: [first, end) lies inside an allocation this process owns
        // and has not yet touched; MADV_HUGEPAGE only changes how the kernel
        // backs those pages, never their contents. A failure (e.g. THP
        // disabled) leaves ordinary pages, so the result is ignored.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hinting_any_slice_is_harmless() {
        let data: Vec<f64> = (0..1000).map(f64::from).collect();
        prefetch_slice(&data[10..26]);
        prefetch_slice(&data[..0]);
        prefetch_slice::<u8>(&[]);
        assert_eq!(data[17], 17.0);
    }

    #[test]
    fn huge_page_vectors_are_ordinary_vectors() {
        let mut v: Vec<f64> = huge_page_vec(1 << 20);
        assert!(v.is_empty() && v.capacity() >= 1 << 20);
        v.extend((0..1 << 20).map(|i| i as f64));
        assert_eq!(v[(1 << 20) - 1], ((1 << 20) - 1) as f64);
        let empty: Vec<u8> = huge_page_vec(0);
        assert!(empty.is_empty());
    }
}
