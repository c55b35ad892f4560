//! The exponential the hot softmax loops call, bit for bit `f64::exp`.
//!
//! On glibc, `f64::exp` calls `exp`, a wrapper that calls the CPU-selected
//! kernel (`__exp_fma` on FMA machines) and then tests the result for
//! overflow and underflow to set `errno`. The harness never reads `errno`,
//! and in Alg. 1's softmax (`ggp_alg1_d`, `d = 2^16`, 2026-12-01 profile on
//! the Intel VM) the wrapper and its PLT stub took 12.7% of the cell, the
//! kernel itself 22%. glibc still exports that kernel as
//! `__exp_finite@GLIBC_2.15` (an IFUNC resolving to the same CPU-selected
//! code `exp` calls), so [`exp`] looks it up once and calls it directly:
//! the same function, hence the same bits. It is used only after a check at
//! lookup that it returns exactly `f64::exp`'s bits on a spread of inputs;
//! elsewhere (no glibc, an old glibc, a mismatch) [`Exp::of`] is `f64::exp`.

use std::sync::OnceLock;

/// The C signature of glibc's exponential kernels.
type ExpKernel = unsafe extern "C" fn(f64) -> f64;

/// An exponential resolved once per process ([`exp`]); `Copy`, so a loop
/// takes it once and calls [`Exp::of`] per element.
#[derive(Clone, Copy)]
pub struct Exp(Option<ExpKernel>);

impl Exp {
    /// `e^x`, bit for bit `x.exp()`.
    #[inline]
    pub fn of(self, x: f64) -> f64 {
        match self.0 {
            // SAFETY: the kernel was checked at lookup to be glibc's
            // exponential (a pure function of one double).
            Some(kernel) => unsafe { kernel(x) },
            None => x.exp(),
        }
    }

    /// Whether [`Exp::of`] calls glibc's kernel directly (else `f64::exp`).
    pub fn is_direct(self) -> bool {
        self.0.is_some()
    }
}

/// Inputs the lookup compares against `f64::exp` before trusting the kernel:
/// zero, tiny, ordinary, the softmax's range, underflow and overflow edges.
const PROBES: [f64; 12] = [
    0.0, -0.0, 1e-300, -1e-17, 0.5, -1.0, -3.75, -37.2, -700.0, -745.2, -800.0, 709.7,
];

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn lookup() -> Option<ExpKernel> {
    // SAFETY: dlvsym with NUL-terminated names; a null result means absent.
    let p = unsafe {
        libc::dlvsym(
            libc::RTLD_DEFAULT,
            c"__exp_finite".as_ptr(),
            c"GLIBC_2.15".as_ptr(),
        )
    };
    if p.is_null() {
        return None;
    }
    // SAFETY: glibc's `__exp_finite` has the C signature `double (double)`.
    let kernel = unsafe { std::mem::transmute::<*mut libc::c_void, ExpKernel>(p) };
    // SAFETY: as above.
    let agrees = PROBES
        .iter()
        .all(|&x| unsafe { kernel(x) }.to_bits() == x.exp().to_bits());
    agrees.then_some(kernel)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn lookup() -> Option<ExpKernel> {
    None
}

/// The process's exponential: glibc's kernel where it checks out, else
/// `f64::exp` (looked up once).
pub fn exp() -> Exp {
    static KERNEL: OnceLock<Option<ExpKernel>> = OnceLock::new();
    Exp(*KERNEL.get_or_init(lookup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_direct_exponential_gives_f64_exp_bits_everywhere() {
        let e = exp();
        // Every 2^-12 step over the softmax's range and past both edges,
        // then a multiplicative sweep of both signs: 1.2e6 inputs, each
        // compared bit for bit (NaN with NaN).
        let grid = (-3_400_000..3_000_000)
            .step_by(5)
            .map(|k| k as f64 / 4096.0);
        let sweep = (0..4000).flat_map(|k| {
            let x = 1e-300 * 1.2f64.powi(k);
            [x, -x]
        });
        let special = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        for x in grid.chain(sweep).chain(special) {
            let (a, b) = (e.of(x), x.exp());
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "exp({x:e}): {a:e} against {b:e}"
            );
        }
        // On glibc x86-64 the kernel is there: the fast path is what runs.
        #[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
        assert!(e.is_direct());
    }
}
