//! Helpers the transcript-audit tests share.
// Each test binary compiles this module and uses a subset of it.
#![allow(dead_code)]

use contract::{Value, Values};

/// The options of entry `name` at their declared defaults (quoted defaults
/// as strings, the others as numbers).
pub fn entry_defaults(name: &str) -> Values {
    let def = papers::algorithm(name).unwrap();
    def.options
        .iter()
        .filter_map(|p| {
            p.default.map(|t| {
                let value = match t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                    Some(s) => Value::Str(s.to_string()),
                    None => Value::Num(t.parse().expect("numeric default")),
                };
                (p.name.to_string(), value)
            })
        })
        .collect()
}

/// Sample mean and its standard error.
pub fn mean_and_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}
