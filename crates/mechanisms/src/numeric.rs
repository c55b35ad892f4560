//! Monotone root finding shared by the calibrations and the accountants.
//!
//! Every routine here shrinks a bracket `[lo, hi]` around the point where a
//! monotone predicate changes value: `pred(x)` holds on the `lo` side and
//! fails on the `hi` side. The callers find the bracket themselves (by
//! doubling, halving or a closed form), because that is where they differ.

/// Largest number of bisection steps of the routines below. Never binding:
/// arithmetic bisection reaches adjacent `f64`s within ~1100 halvings at worst,
/// and within ~60 from a bracket whose ends are within a factor 2 of each
/// other; geometric bisection of a bracket spanning at most ~2000 binades
/// reaches a relative width of 1e-15 within ~70 steps.
const MAX_BISECTION_STEPS: u32 = 2000;

/// The common loop: while `split(lo, hi)` proposes a point strictly inside
/// `[lo, hi]`, moves `lo` there if `pred` holds at it and `hi` otherwise.
/// Stops when `split` returns `None`, when the proposed point is not strictly
/// inside (the bracket cannot be split further in `f64`), or after
/// [`MAX_BISECTION_STEPS`] steps. Returns the final `(lo, hi)`.
fn shrink_bracket(
    mut lo: f64,
    mut hi: f64,
    split: impl Fn(f64, f64) -> Option<f64>,
    pred: impl Fn(f64) -> bool,
) -> (f64, f64) {
    for _ in 0..MAX_BISECTION_STEPS {
        let Some(mid) = split(lo, hi) else {
            break;
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if pred(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// Bisection on a monotone predicate: given `pred(lo)` and `!pred(hi)`, halves
/// `[lo, hi]` until its ends are adjacent `f64`s and returns them as
/// `(last x with pred(x), first x with !pred(x))`.
pub(crate) fn bisect(lo: f64, hi: f64, pred: impl Fn(f64) -> bool) -> (f64, f64) {
    shrink_bracket(lo, hi, |lo, hi| Some(lo + 0.5 * (hi - lo)), pred)
}

/// Geometric bisection for the root of an increasing `f` on `(lo, hi)`, given
/// `f(lo) <= 0 <= f(hi)` and `0 < lo <= hi`: splits at `sqrt(lo hi)` until
/// `hi <= lo (1 + relative_tolerance)` and returns the midpoint of the final
/// bracket.
pub(crate) fn geometric_root(
    lo: f64,
    hi: f64,
    relative_tolerance: f64,
    f: impl Fn(f64) -> f64,
) -> f64 {
    let split = |lo: f64, hi: f64| {
        if hi <= lo * (1.0 + relative_tolerance) {
            None
        } else {
            Some((lo * hi).sqrt())
        }
    };
    let (lo, hi) = shrink_bracket(lo, hi, split, |x| f(x) <= 0.0);
    lo + 0.5 * (hi - lo)
}
