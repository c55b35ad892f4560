//! Numbers as text: compact significant digits and `name=value` lists in
//! reports and verdict reasons ([`sig`], [`describe_values`], once part of
//! [`crate::report`]), and counts, bytes and durations for people in plans,
//! estimates and refusals (once part of [`crate::cost`]). A leaf module, so
//! that [`crate::analyze`] (its verdict reasons) and [`crate::validate`] (its
//! refusals of oversized grids) need not import the modules built on them.

/// Formats a number compactly with 4 significant digits.
pub fn sig(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "–".into()
        } else {
            format!("{x}")
        };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{x:.3e}")
    } else {
        let s = format!("{x:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
}

/// `a=1, b=2`.
pub fn describe_values(values: &[(String, f64)]) -> String {
    if values.is_empty() {
        return "–".into();
    }
    values
        .iter()
        .map(|(k, v)| format!("{k}={}", sig(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `bytes` for people: `512 B`, `1.5 KiB`, `3.2 GiB`, `7.1e5 TiB`.
pub fn format_bytes(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} B")
    } else if value >= 1e4 {
        format!("{value:.1e} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `seconds` for people: `0.8 s`, `12 min`, `3.4 h`, `41 days`.
pub fn format_duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else if seconds < 3600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else if seconds < 3.0 * 86400.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds < 1e4 * 86400.0 {
        format!("{:.0} days", seconds / 86400.0)
    } else {
        format!("{:.1e} days", seconds / 86400.0)
    }
}

/// A count for people: `6 240`, `3.1e10`.
pub fn format_count(count: f64) -> String {
    if count < 1e9 {
        let digits = format!("{:.0}", count);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        out
    } else {
        format!("{count:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_readable() {
        assert_eq!(format_bytes(512.0), "512 B");
        assert_eq!(format_bytes(1536.0), "1.5 KiB");
        assert_eq!(format_bytes(8e17), "7.3e5 TiB");
        assert_eq!(format_count(6240.0), "6 240");
        assert_eq!(format_count(38354.0), "38 354");
        assert_eq!(format_count(3.1e10), "3.10e10");
        assert_eq!(format_duration(30.0), "30.0 s");
        assert_eq!(format_duration(7200.0), "2.0 h");
    }
}
