//! Helpers the transcript-audit tests share.
// Each test binary compiles this module and uses a subset of it.
#![allow(dead_code)]

use contract::audit::AuditPair;
use contract::seeds::rng_from_seed;
use contract::{Privacy, RunContext, Value, Values};

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

/// The entry's transcript loss `L = ln p_D / p_D'` over `runs` fixed-seed
/// runs on each side of `pair`: seeds `seed + i` on `D`, `10 seed + i` on
/// `D'`. Returns the losses on `D` and on `D'`.
pub fn transcript_losses(
    name: &str,
    opts: &Values,
    pair: &AuditPair,
    privacy: Privacy,
    runs: u64,
    seed: u64,
) -> (Vec<f64>, Vec<f64>) {
    let def = papers::algorithm(name).unwrap();
    let transcript = def.audit.and_then(|a| a.transcript).expect("declared");
    let ctx = RunContext {
        options: opts,
        problem: &pair.problem,
        privacy,
        metric: def.metrics[0],
    };
    let on = |side: usize, seed: u64| -> Vec<f64> {
        (0..runs)
            .map(|i| transcript(&ctx, pair, side, &mut rng_from_seed(seed + i)).unwrap())
            .collect()
    };
    (on(0, seed), on(1, 10 * seed))
}

/// Checks the identity every log likelihood ratio satisfies, `E_D[e^-L] = 1`
/// (`sign = -1`, losses drawn on `D`) or `E_D'[e^L] = 1` (`sign = 1`, drawn
/// on `D'`), within 4 standard errors (a false alarm about 6e-5 on fixed
/// seeds). Returns the mean of `e^(sign L)` and its standard error.
pub fn assert_unit_exp_mean(label: &str, losses: &[f64], sign: f64) -> (f64, f64) {
    let weights: Vec<f64> = losses.iter().map(|l| (sign * l).exp()).collect();
    let (w, se) = mean_and_se(&weights);
    assert!(
        (w - 1.0).abs() <= 4.0 * se,
        "{label}: E[exp({sign} L)] = {w} +- {se}"
    );
    (w, se)
}
