//! Log-space arithmetic: sums and differences of exponentials without
//! overflow or loss of relative accuracy.

/// `ln(e^a + e^b)` without overflow.
pub(super) fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// `ln(e^a - e^b)`, or `-inf` when `b >= a` (a non-positive difference).
pub(super) fn log_sub(a: f64, b: f64) -> f64 {
    if b >= a {
        return f64::NEG_INFINITY;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    // ln(1 - e^d), d < 0: ln_1p keeps the accuracy when e^d is small,
    // expm1 when it is close to 1.
    let d = b - a;
    if d < -std::f64::consts::LN_2 {
        a + (-d.exp()).ln_1p()
    } else {
        a + (-d.exp_m1()).ln()
    }
}

/// Streaming log-sum-exp: holds `ln(sum_k e^{x_k})` as `max + ln(1 + rest)`,
/// where `rest` is the sum of the other terms scaled by `e^{-max}`. Keeping
/// the `1` implicit and using `ln_1p` preserves relative accuracy when the
/// sum is `1 + tiny` in scaled terms (RDP at small `q`).
#[derive(Debug, Clone, Copy)]
pub(super) struct LogSum {
    max: f64,
    rest: f64,
}

impl LogSum {
    pub(super) fn new() -> Self {
        Self {
            max: f64::NEG_INFINITY,
            rest: 0.0,
        }
    }

    pub(super) fn add(&mut self, x: f64) {
        if x == f64::NEG_INFINITY {
            return;
        }
        if self.max == f64::NEG_INFINITY {
            self.max = x;
        } else if x <= self.max {
            self.rest += (x - self.max).exp();
        } else {
            self.rest = (self.rest + 1.0) * (self.max - x).exp();
            self.max = x;
        }
    }

    pub(super) fn ln(&self) -> f64 {
        if self.max == f64::NEG_INFINITY {
            f64::NEG_INFINITY
        } else {
            self.max + self.rest.ln_1p()
        }
    }
}

/// `ln(expm1(x))` for `x > 0`, without overflow for large `x`.
pub(super) fn ln_expm1(x: f64) -> f64 {
    if x > 30.0 {
        x + (-(-x).exp()).ln_1p()
    } else {
        x.exp_m1().ln()
    }
}
