//! One recycled record buffer per thread, so that consecutive data sets
//! generated on the same thread reuse memory whose pages are already mapped.
//!
//! Why: a LinBall cell of Bassily et al.'s d-sweep (n = 2e4, d = 8 192) draws
//! its records into a 1.31 GB vector. glibc serves an allocation that large
//! with `mmap` and gives it back with `munmap` on free, so a fresh vector per
//! cell made the kernel zero 1.31 GB of new pages for every cell: 69% of
//! `bftt_e1_erm_d`'s CPU samples and 46% of `bftt_e1_nsgd_d`'s were
//! `clear_page_erms` (PERFORMANCE.md, entries #3 and #9). The runner builds
//! one problem per data group on a rayon worker and drops it before the
//! worker's next group, so handing the vector back on drop and taking it at
//! the next generation pays the page faults once per worker instead.
//!
//! Memory bound: each thread keeps at most ONE buffer, the largest one handed
//! back to it (a smaller one is freed, not kept beside it). That is at most
//! what the largest single data set generated on that thread needed, which
//! the thread held anyway while that cell ran: 1.31 GB per worker at the
//! d-sweep's top, 2.6 GB for the runner's two workers on this 23 GB machine.
//! It is freed when the thread exits (the runner builds its rayon pool per
//! `execute` call, so at the end of a run), or when a larger request
//! replaces it. Only the capacity is reused: a taken buffer is always empty,
//! so no value of an earlier data set can reach a new one.

use std::cell::RefCell;

thread_local! {
    /// This thread's spare buffer (capacity 0 when there is none).
    static SPARE: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// An empty vector with room for at least `len` values: this thread's spare
/// buffer if it is large enough, else a new [`dpcore::prefetch::huge_page_vec`]
/// (the spare, too small, is freed first, so the thread never holds both).
pub(crate) fn take(len: usize) -> Vec<f64> {
    let spare = SPARE
        .try_with(|slot| std::mem::take(&mut *slot.borrow_mut()))
        .unwrap_or_default();
    if spare.capacity() >= len {
        let mut v = spare;
        v.clear();
        v
    } else {
        drop(spare);
        dpcore::prefetch::huge_page_vec(len)
    }
}

/// Hands `v`'s memory back to this thread for the next [`take`]: kept if it
/// is larger than the spare the thread holds (which is then freed), freed
/// otherwise. During thread teardown, when the slot is gone, it is freed.
pub(crate) fn give(v: Vec<f64>) {
    if v.capacity() == 0 {
        return;
    }
    // A failed `try_with` (the thread is exiting) drops `v` with the closure.
    let _ = SPARE.try_with(|slot| {
        let mut spare = slot.borrow_mut();
        if v.capacity() > spare.capacity() {
            *spare = v;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer handed back is the one the next large-enough `take` returns,
    /// empty; a smaller one does not displace it; a larger request frees it.
    #[test]
    fn the_largest_buffer_is_kept_and_reused_empty() {
        // A fresh thread: the test harness's threads may hold a spare.
        std::thread::spawn(|| {
            let mut big = take(1000);
            big.resize(1000, 7.0);
            let ptr = big.as_ptr();
            give(big);
            give(vec![1.0; 10]);
            let again = take(500);
            assert_eq!(again.as_ptr(), ptr, "the larger buffer was kept");
            assert!(again.is_empty() && again.capacity() >= 1000);
            give(again);
            let larger = take(2000);
            assert!(larger.is_empty() && larger.capacity() >= 2000);
            assert_eq!(SPARE.with(|s| s.borrow().capacity()), 0);
        })
        .join()
        .unwrap();
    }
}
