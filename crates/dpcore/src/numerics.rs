//! Scalar functions that both the problem families (`datagen`) and the
//! algorithms (`solvers`) evaluate, defined once so that the two agree bit
//! for bit.

/// Stable logistic sigmoid `1 / (1 + e^{-u})`, never overflowing: with
/// `e = e^{-|u|}`, `1/(1 + e)` for `u >= 0` and `e/(1 + e)` otherwise.
///
/// Both branches share the one `exp`, and the choice of numerator is a
/// select rather than a jump: in a full-gradient pass the sign of `u` is
/// data dependent, and a mispredicted branch cost more than the select.
#[inline]
pub fn sigmoid(u: f64) -> f64 {
    let e = (-u.abs()).exp();
    let numerator = if u >= 0.0 { 1.0 } else { e };
    numerator / (1.0 + e)
}
