//! Number formatting of the table: computed values, fixed-precision
//! differences and input parameters.

/// Number to 4 significant digits, trailing zeros dropped; scientific outside [1e-3, 1e5).
pub(crate) fn num(x: f64) -> String {
    fn trim(s: &str) -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    }
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let a = x.abs();
    if (1e-3..1e5).contains(&a) {
        let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    } else {
        let s = format!("{x:.3e}");
        let (mantissa, exponent) = s.split_once('e').expect("scientific format has an 'e'");
        format!("{}e{exponent}", trim(mantissa))
    }
}

/// `x` to `digits` significant digits in fixed notation (for differences that
/// [`num`]'s 4 digits would hide).
pub(crate) fn sig(x: f64, digits: i32) -> String {
    let decimals = (digits - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// An input parameter, printed exactly (shortest form).
pub(crate) fn param(x: f64) -> String {
    let a = x.abs();
    if x.fract() == 0.0 && a < 1e5 {
        format!("{x:.0}")
    } else if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formatting() {
        assert_eq!(num(7.4123e-5), "7.412e-5");
        assert_eq!(num(1e-5), "1e-5");
        assert_eq!(num(4.6091), "4.609");
        assert_eq!(num(1.0), "1");
        assert_eq!(num(12000.0), "12000");
        assert_eq!(num(0.020828), "0.02083");
        assert_eq!(param(1e-5), "1e-5");
        assert_eq!(param(1e4), "10000");
        assert_eq!(param(1e7), "1e7");
        assert_eq!(param(0.5), "0.5");
    }
}
