//! Which vector instructions a dispatching kernel runs, chosen at run time.
//!
//! The build targets baseline x86-64 (SSE2, two doubles a register) so that
//! one binary runs on any x86-64 machine. A dispatching kernel also has a copy
//! of the same Rust code compiled with a wider instruction set enabled
//! (`#[target_feature]`) and runs it when the CPU has it. The copies do the
//! same IEEE operations on every element in the same order: Rust never
//! reassociates floating-point sums nor contracts a multiply and an add into
//! an FMA unless told to, and FMA is not enabled here, so a wider register
//! only does more lanes of the same operations at once. Results are
//! therefore bit-identical at every level; each dispatching kernel's test
//! runs every level the machine has and compares the bits.
//!
//! `DP_HARNESS_SIMD=scalar|avx2|avx512` caps the level (for benchmarks, and
//! to run the scalar path on a machine that has a wider one); a level the CPU
//! lacks is never used, whatever the variable says.
//!
//! A kernel dispatches with [`dispatch_by_level!`](crate::dispatch_by_level),
//! which writes the copies and the choice between them once for every kernel.
//! No kernel has an AVX-512 copy today. The GD pass's was slower than its
//! AVX2 copy (8.5 against 7.0 ms), and the compensated GLM pass's 13-16%
//! slower at d = 16 and 5-12% faster at d = 128 (PERFORMANCE.md), so
//! [`SimdLevel::Avx512`] is a level the CPU reports and the cap names, and a
//! kernel asked to run at it runs its AVX2 copy.

use std::sync::OnceLock;

/// A vector instruction level, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    /// The baseline build (SSE2 on x86-64; whatever the target has elsewhere).
    Scalar,
    /// AVX2 (four doubles a register).
    Avx2,
    /// AVX-512F (eight doubles a register).
    Avx512,
}

impl SimdLevel {
    /// Every level, narrowest first.
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512];

    /// The name `DP_HARNESS_SIMD` takes.
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Whether a kernel asked to run at `self` may run its copy compiled for
    /// `copy`: the copy is no wider than `self` and the CPU supports it.
    pub fn runs(self, copy: SimdLevel) -> bool {
        self >= copy && copy.supported()
    }

    /// Whether this CPU can run the level.
    pub fn supported(self) -> bool {
        match self {
            SimdLevel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// The widest level this CPU supports.
pub fn detected() -> SimdLevel {
    SimdLevel::ALL
        .into_iter()
        .rev()
        .find(|l| l.supported())
        .unwrap_or(SimdLevel::Scalar)
}

/// The level the dispatching kernels may use: [`detected`], capped by
/// `DP_HARNESS_SIMD` when it names a level (read once per process; any other
/// value is ignored).
pub fn level() -> SimdLevel {
    static LEVEL: OnceLock<SimdLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = std::env::var("DP_HARNESS_SIMD")
            .ok()
            .and_then(|v| SimdLevel::ALL.into_iter().find(|l| l.name() == v.trim()));
        cap.map_or(detected(), |c| c.min(detected()))
    })
}

/// Every level this CPU supports, narrowest first (what a kernel's
/// bit-identity test runs).
pub fn supported_levels() -> Vec<SimdLevel> {
    SimdLevel::ALL
        .into_iter()
        .filter(|l| l.supported())
        .collect()
}

/// Writes a kernel that runs at a given [`SimdLevel`]:
/// `fn NAME(level: SimdLevel, ARGS) -> RET`, which calls `BODY(ARGS)`
/// compiled for AVX2 when `level.runs(SimdLevel::Avx2)` and as the baseline
/// build otherwise. `BODY` must be `#[inline(always)]`, so that each copy
/// inlines it and is compiled for its own registers; it must not use FMA or
/// reassociate, so that every copy gives the same bits (the module's
/// documentation says why that holds for plain Rust arithmetic). Each
/// dispatching kernel keeps a test that runs every level of
/// [`supported_levels`] and compares bits.
///
/// ```
/// #[inline(always)]
/// fn sum_body(x: &[f64]) -> f64 {
///     x.iter().sum()
/// }
/// dpcore::dispatch_by_level! {
///     /// The sum of `x`, at `level`.
///     fn sum_at(x: &[f64]) -> f64 => sum_body
/// }
/// let x = [1.0, 2.0, 3.5];
/// for level in dpcore::simd::supported_levels() {
///     assert_eq!(sum_at(level, &x).to_bits(), 6.5f64.to_bits());
/// }
/// ```
#[macro_export]
macro_rules! dispatch_by_level {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident $(<$($lt:lifetime),+>)? ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty => $body:path
    ) => {
        $(#[$attr])*
        $vis fn $name $(<$($lt),+>)? (level: $crate::simd::SimdLevel, $($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            if level.runs($crate::simd::SimdLevel::Avx2) {
                #[target_feature(enable = "avx2")]
                unsafe fn avx2_copy $(<$($lt),+>)? ($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                // SAFETY: `runs` checked that the CPU supports AVX2.
                return unsafe { avx2_copy($($arg),*) };
            }
            let _ = level;
            $body($($arg),*)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_and_the_scalar_path_is_always_there() {
        assert!(SimdLevel::Scalar < SimdLevel::Avx2 && SimdLevel::Avx2 < SimdLevel::Avx512);
        let all = supported_levels();
        assert_eq!(all[0], SimdLevel::Scalar);
        assert_eq!(*all.last().unwrap(), detected());
        assert!(level() <= detected());
        assert!(SimdLevel::Avx512.runs(SimdLevel::Scalar));
        assert!(!SimdLevel::Scalar.runs(SimdLevel::Avx2));
        assert_eq!(
            SimdLevel::Avx512.runs(SimdLevel::Avx2),
            SimdLevel::Avx2.supported()
        );
        assert_eq!(
            SimdLevel::ALL.map(SimdLevel::name),
            ["scalar", "avx2", "avx512"]
        );
    }
}
