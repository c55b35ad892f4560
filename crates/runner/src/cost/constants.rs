//! Constants of the cost model ([`super`]): the machine's per-cell and
//! memory costs, and the lookup of each algorithm's calibrated seconds per
//! operation, whose table (`papers::cost_constants`, written by
//! `scripts/refresh_cost_constants.sh`) lives beside the entries that own
//! the names.

/// Seconds per operation of an algorithm that no results file calibrated:
/// about one fused multiply-add pass over memory (2 ns per f64 touched, the
/// order of the measured 5–10 GB/s streaming kernels in PERFORMANCE.md).
pub const DEFAULT_SECONDS_PER_OP: f64 = 2e-9;

/// Fixed cost of a cell besides its work: seeding two streams, building the
/// record and sending it to the writer (about 20 µs measured on the cheapest
/// cells, the Lowy–Razaviyayn output perturbations at n = 1000).
pub const SECONDS_PER_CELL: f64 = 2e-5;

/// Times a memoized setup ([`crate::registry::SetupWork`]) is computed per
/// key in a run: every worker that starts a cell of the key before the first
/// computation is stored computes it again, and cells run in plan order
/// (repetitions of a point adjacent), so on the 2 worker threads of this
/// machine and CI both compute it. Measured on the RDP accountant's
/// calibrations (0.06-0.08 s each): exactly 2 cells per key carry them in
/// every key of `bassily-decide3` (12 keys), `bassily-decide2`'s eps-sweep
/// and table 1's two NSGD studies (11 keys); 4 in table 1's quick profile,
/// run as 2 shards of 2 threads. A key shared by fewer cells is computed at
/// most once per cell.
pub const SETUP_COMPUTATIONS: f64 = 2.0;

/// Resident memory of the runner before any data set: code, the registry and
/// the allocator's arenas (64 MiB base measured in PERFORMANCE.md's scaling run).
pub const BASE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Memory per planned cell held for the whole run: the planned `Cell` (40
/// bytes), its stored record with diagnostics (about 200 bytes) and its share
/// of the HDF5 image rewritten at each flush (about 100 bytes), rounded up.
pub const BYTES_PER_CELL: f64 = 512.0;

/// Where the per-algorithm constants were measured
/// ([`papers::cost_constants::CALIBRATED_FROM`]).
pub const CALIBRATED_FROM: &str = papers::cost_constants::CALIBRATED_FROM;

/// The name of the constant that prices `algorithm` in `variant`
/// (`contract::AlgorithmDef::cost_variant`): `algorithm` itself for the
/// empty variant, `<algorithm>:<variant>` otherwise.
pub fn constant_name(algorithm: &str, variant: &str) -> String {
    if variant.is_empty() {
        algorithm.to_string()
    } else {
        format!("{algorithm}:{variant}")
    }
}

/// The calibrated seconds per operation of `algorithm` in `variant`: the
/// variant's own constant (`<algorithm>:<variant>`) when the table has one,
/// else the algorithm's ([`seconds_per_op`]). No allocation: the plan calls
/// it for every grid point and `runner calibrate` for every stored cell.
pub fn seconds_per_op_of(algorithm: &str, variant: &str) -> f64 {
    let own = |name: &str| match name.split_once(':') {
        Some((a, v)) => a == algorithm && v == variant,
        None => variant.is_empty() && name == algorithm,
    };
    let table = papers::cost_constants::SECONDS_PER_OP;
    match table.iter().find(|(name, _)| own(name)) {
        Some((_, k)) => *k,
        None if variant.is_empty() => DEFAULT_SECONDS_PER_OP,
        None => seconds_per_op(algorithm),
    }
}

/// The calibrated seconds per operation of `algorithm`
/// ([`papers::cost_constants::SECONDS_PER_OP`], written beside the entries
/// that own the names), or [`DEFAULT_SECONDS_PER_OP`].
pub fn seconds_per_op(algorithm: &str) -> f64 {
    seconds_per_op_of(algorithm, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variant with its own constant is priced by it; an unknown variant
    /// falls back to the algorithm's constant, an unknown algorithm to the
    /// default.
    #[test]
    fn a_cost_variant_has_its_own_constant_or_the_algorithms() {
        let table = papers::cost_constants::SECONDS_PER_OP;
        let own = |name: &str| table.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(constant_name("op_black_box", ""), "op_black_box");
        assert_eq!(constant_name("op_black_box", "sgd"), "op_black_box:sgd");
        assert_eq!(
            seconds_per_op_of("op_black_box", "sgd"),
            own("op_black_box:sgd")
        );
        assert_ne!(own("op_black_box:sgd"), own("op_black_box"));
        assert_eq!(seconds_per_op_of("op_black_box", ""), own("op_black_box"));
        assert_eq!(
            seconds_per_op_of("op_black_box", "none"),
            own("op_black_box")
        );
        assert_eq!(
            seconds_per_op_of("no_such_entry", "sgd"),
            DEFAULT_SECONDS_PER_OP
        );
    }
}
