//! The plan's work formulas of the González–Guzmán–Paquette entries (see
//! `contract::cost`). Algorithm 4 counts its schedule ([`alg4`]); the other
//! simplex-SCO algorithms keep the default (one pass of `O(d)` gradients).

use contract::{CostPoint, FamilyWork, Options, Privacy};
use solvers::gonzalez::alg1::alg1_steps;
use solvers::gonzalez::alg4::{alg4_refreshes, alg4_steps, ScoRegime};
use solvers::gonzalez::rates::log_dims;

use super::options::Alg1EntryOptions;

/// `ggp_game`: `d_x = d_y = 2^log2_d`; records are counter-based (hashed on
/// demand), so a game holds `O(d)` vectors, plus the cached dense entries up
/// to `2^10` (8 MiB).
pub(crate) fn game(v: &CostPoint) -> FamilyWork {
    let n = v.num("n", 1.0).max(1.0);
    let d = 2f64.powf(v.num("log2_d", 1.0)).max(1.0);
    let dense = matches!(v.choice("matrix"), "planted" | "dense" | "") && d <= 1024.0;
    let cache = if dense { d * d } else { 0.0 };
    let rank = v.num("rank", 4.0);
    FamilyWork {
        n,
        d,
        generate_ops: cache + d * rank,
        data_numbers: cache + (8.0 + 2.0 * rank) * d,
        oracle_ops: n * d,
        exact_minimizer_ops: d,
        kl_constants: None,
    }
}

/// `ggp_least_squares`: counter-based records, `O(d)` each, a coordinate
/// [`LEAST_SQUARES_COORDINATE`] units.
pub(crate) fn counter_based(v: &CostPoint) -> FamilyWork {
    let (n, d) = contract::cost::n_and_d(v);
    least_squares_work(n, d)
}

/// `ggp_separable_sco`: as [`counter_based`], but a record's gradient costs
/// 0.27 of a least-squares one per coordinate ([`SEPARABLE_COORDINATE`]).
pub(crate) fn separable(v: &CostPoint) -> FamilyWork {
    let (n, d) = contract::cost::n_and_d(v);
    separable_work(n, d)
}

/// `ggp_separable_sco_log2d`: as [`separable`] at `d = 2^log2_d`.
pub(crate) fn separable_log2d(v: &CostPoint) -> FamilyWork {
    let n = v.num("n", 1.0).max(1.0);
    separable_work(n, 2f64.powf(v.num("log2_d", 1.0)).max(1.0))
}

/// Per-coordinate cost of a separable (Huber) record gradient, in units of
/// a least-squares one: 0.229 against 0.854 ns, fitted with [`alg4`]'s
/// terms on every stored Alg. 4 cell (below).
const SEPARABLE_COORDINATE: f64 = 0.27;

/// Per-coordinate cost of a least-squares record gradient, in the units of
/// [`alg4`] (0.854 ns, the least-squares coordinate when they were fitted):
/// since its four records' signed sums run side by side (`9576875`), the
/// same terms refitted on the stored Alg. 4 cells (CI-like quick runs of
/// González and table 1 and table 1's default run at `7a5dcc1`, 2026-12-02)
/// give 0.649 ns a coordinate, 0.76 of a unit.
const LEAST_SQUARES_COORDINATE: f64 = 0.76;

fn least_squares_work(n: f64, d: f64) -> FamilyWork {
    FamilyWork {
        oracle_ops: n * (LEAST_SQUARES_COORDINATE * d + RECORD_OPS),
        ..counter_based_work(n, d)
    }
}

/// Per-record cost of a counter-based record gradient besides its
/// coordinates (hashing the record's counter, its label): 31 ns, 36 units
/// of 0.854 ns (fitted with [`alg4`]'s terms).
const RECORD_OPS: f64 = 36.0;

fn separable_work(n: f64, d: f64) -> FamilyWork {
    FamilyWork {
        oracle_ops: n * (SEPARABLE_COORDINATE * d + RECORD_OPS),
        ..counter_based_work(n, d)
    }
}

/// `ggp_vertex_linear`: records are counter-based like [`counter_based`]'s,
/// but without noise (`sigma = 0`) a batch gradient is the mean's `O(d)`,
/// whatever the batch.
pub(crate) fn vertex_linear(v: &CostPoint) -> FamilyWork {
    let (n, d) = contract::cost::n_and_d(v);
    let noisy = v.num("sigma", 0.0) > 0.0;
    let records = counter_based_work(n, d);
    FamilyWork {
        oracle_ops: if noisy { records.oracle_ops } else { d },
        ..records
    }
}

/// `ggp_least_squares_log2d`: as [`counter_based`] at `d = 2^log2_d`.
pub(crate) fn counter_based_log2d(v: &CostPoint) -> FamilyWork {
    let n = v.num("n", 1.0).max(1.0);
    least_squares_work(n, 2f64.powf(v.num("log2_d", 1.0)).max(1.0))
}

fn counter_based_work(n: f64, d: f64) -> FamilyWork {
    FamilyWork {
        n,
        d,
        generate_ops: d,
        data_numbers: 8.0 * d,
        oracle_ops: n * (d + RECORD_OPS),
        exact_minimizer_ops: d,
        kl_constants: None,
    }
}

/// `ggp_alg4` (Algorithm 4): `T` mirror steps of the schedule
/// (`solvers::gonzalez::alg4::alg4_steps`), each a batch gradient of `B =
/// floor(n/T)` records (the family's `oracle_ops` times `B/n`, at least the
/// `d` of writing it: a noiseless `ggp_vertex_linear` batch is its mean's
/// `O(d)`) and about 7.3 `d` for the softmax, the Cesàro average and the MW
/// step, plus 12.4 per Maurey draw: `(refreshes + 1) K` vertices. Units of
/// 0.854 ns (a least-squares record coordinate). Fitted on every stored
/// Alg. 4 cell (CI's clean-clone quick run of `1c300d8` for González and
/// table 1, and the planted-vertex runs `gonzalez-vertex` and
/// `gonzalez-vertex-fo`, 2026-12-01; 382 cells from 0.4 ms to 3.2 s): 6.2
/// ns per step and coordinate, 10.6 per draw, 31 per record, 0.854 and 0.229
/// per record coordinate (least squares, Huber), every study's total within
/// 0.91 to 1.18 of it but table 1's quick `ggp_alg4_n` and
/// `ggp_privacy_alg4` (1.42 and 1.43 on cells of 0.01 s). Before, one pass
/// `n d`: the vertex runs were priced 5.8 and 9.7 times over, where the
/// batch gradient is `O(d)` and the steps and draws are the work.
pub(crate) fn alg4(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let Privacy::Approx(privacy) = v.privacy else {
        return contract::cost::default_algorithm_work(v, w);
    };
    let regime = if v.choice("regime") == "first_order" {
        ScoRegime::FirstOrder
    } else {
        ScoRegime::SecondOrder
    };
    let (steps, q, k) = alg4_steps(n as usize, d as usize, privacy, regime);
    let t = steps as f64;
    let batch = (n / t).floor();
    let oracle = (w.oracle_ops * batch / n).max(d);
    let draws = ((alg4_refreshes(steps, q) + 1) * k) as f64;
    (t * (oracle + 7.3 * d) + 12.4 * draws, 16.0 * d)
}

/// `ggp_marginals`: the population histogram over the domain of `2^bits`
/// points and `8 C(bits, 2)` query answers.
pub(crate) fn marginals(v: &CostPoint) -> FamilyWork {
    let n = v.num("n", 1.0).max(1.0);
    let d = 2f64.powf(v.num("bits", 10.0)).max(1.0);
    let bits = v.num("bits", 10.0);
    let queries = 4.0 * bits * (bits - 1.0);
    FamilyWork {
        n,
        d,
        generate_ops: n * bits + d * queries,
        data_numbers: 4.0 * d + queries,
        oracle_ops: n * d,
        exact_minimizer_ops: d,
        kl_constants: None,
    }
}

/// The saddle algorithms: `T = n eps/sqrt(l Lambda)` mirror steps of `O(d)`
/// (MW vertices), the rank-one payoff noise `O(n d)`, and the two exact gaps
/// of the released pair, `O(d^2)` on a dense or planted matrix.
fn saddle_work(v: &CostPoint, w: &FamilyWork, nonprivate: bool) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let nd = n * d;
    let (eps, _) = v.eps_and_log_inv_delta();
    let l = 2.0 * d.max(2.0).ln();
    let steps = (n * eps / l.sqrt()).clamp(1.0, n);
    // Each record is hashed from its counter (about 16 operations, measured on
    // table 1's noiseless n = 1e6 games), plus its rank-one payoff noise: d
    // sign updates for each of the two players (5.4e10 in table 1's
    // ggp_alg1_d_stochastic, PERFORMANCE.md, 2026-11-28), so 2 n d.
    let noise = if v.choice("noise") == "none" {
        16.0 * n
    } else {
        16.0 * n + 2.0 * nd
    };
    // The exact gaps evaluate every entry of a dense (hashed) matrix: about
    // 11 s of the 23 s of a dense 2^16 cell (docs/papers/gonzalez.md).
    // Low-rank games use their factors, O(d rank) per gap: d^2 would put the
    // default d-sweep's 2^20 points at hours per cell, against 4 core-hours
    // measured for the whole default run.
    let gap = match v.choice("matrix") {
        "separable" => 2.0 * d,
        "low_rank" => 32.0 * d * v.num("rank", 4.0),
        _ => 2.0 * d * d,
    };
    let mirror = if nonprivate && gap > 2.0 * d * 16.0 {
        // Exact record gradients at the MW iterates: dense mat-vecs.
        n * gap / 2.0
    } else {
        // Per step and coordinate, for each of the two players: a softmax
        // (one exp, one division, three sequential sums) and its share of
        // the gradient mat-vec (a rank-4 low-rank product is 8 flops): about
        // 10 operations a player (table 1's ggp_alg1_d profile, PERFORMANCE.md).
        20.0 * steps * d
    };
    (noise + mirror + gap, 16.0 * d)
}

/// Distinct columns among `draws` vertices drawn i.i.d. from `d`, in
/// expectation under the uniform law, `d (1 - e^(-draws/d))`: the columns a
/// dense matrix's gradient reads at a `K`-sparse Maurey point (a repeated
/// vertex adds its weight to one column). A concentrated law repeats more;
/// the MW laws of the stored cells stay close to uniform in this respect
/// (the fit below holds from `K = 41` to `K = 879` at `d = 2^10`).
fn distinct_columns(draws: f64, d: f64) -> f64 {
    -d * (-draws / d).exp_m1()
}

/// A low-rank batch gradient's operations per factor entry (rank times
/// `d + min(K + 1, d)` entries a step). 4.2 when fitted (`e24d4aa`); since the
/// mat-vecs write the gradient instead of zeroing and adding to it
/// (`25d343c`), the same least squares on the 433 stored Alg. 1 cells (CI-like
/// quick runs of González and table 1 and table 1's default run at
/// `7a5dcc1`, 2026-12-02) gives 2.3, its other terms within 0.5-1.4 ns of the
/// formula's (5.4 a step-coordinate, 23 a draw, 0.48 a noisy record
/// coordinate).
const LOW_RANK_GRADIENT: f64 = 2.3;

/// `ggp_alg1` (Algorithm 1): `T` steps of its schedule
/// (`solvers::gonzalez::alg1::alg1_steps`, shared with the solver), each
/// for both players a softmax, an average and an MW step (5.6 `d`), `K + 1`
/// vertex draws (24 each) and the batch gradient at the `K`-sparse Maurey
/// points: the distinct sampled columns of a dense matrix (2.85 `d` each,
/// [`distinct_columns`]) or the low-rank factors ([`LOW_RANK_GRADIENT`] `rank (d + min(K + 1,
/// d))`); per record its counter hash (23) and, with rank-one payoff noise,
/// 0.55 `d`; the two exact gaps of a dense matrix, 4.2 `d^2`. Units of
/// about 1 ns: least squares over the stored Alg. 1 cells (CI's clean-clone
/// quick files of `1c300d8` for González and table 1, and table 1's default
/// run of `e24d4aa`, PERFORMANCE.md). The two dense terms were 4.3 `d
/// min(K + 1, d)` and 7.2 `d^2`, fitted on quick cells to `d = 2^8` only;
/// cells of the González default grids (2026-12-02, 2 repetitions, scratch
/// spec) took 4.1-4.2 `d^2` for the gaps at `d = 2^14` and `2^16`, and 2.8-2.9
/// `d` a distinct column for the gradient at `d = 2^10`, `K = 41` to `879`
/// (`ggp_n_alg1_huber`), where the old terms priced the two studies at 1.56
/// and 1.89 times their measured time. Before, `n eps/sqrt(l)` steps whatever the
/// regime, without `ln(1/delta)`, `K` or the dense gradient: 0.28 to 5.2 of
/// the quick studies and 2.7 times under on the first-order far window.
pub(crate) fn alg1(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let (Privacy::Approx(privacy), Ok(options)) = (v.privacy, Alg1EntryOptions::read(v.options))
    else {
        return saddle(v, w);
    };
    let l = log_dims(d.max(2.0) as usize, d.max(2.0) as usize);
    let (steps, k, _) = alg1_steps(n as usize, l, privacy, options.alg1());
    let (t, k) = (steps as f64, k as f64);
    let sampled = (k + 1.0).min(d);
    // (batch gradient a step, the two exact gaps)
    let (gradient, gap) = match v.choice("matrix") {
        "low_rank" => {
            let rank = v.num("rank", 4.0);
            (LOW_RANK_GRADIENT * rank * (d + sampled), 32.0 * d * rank)
        }
        // Not measured: a diagonal game's gradient reads the sampled entries.
        "separable" => (2.0 * sampled, 2.0 * d),
        _ => (2.85 * d * distinct_columns(k + 1.0, d), 4.2 * d * d),
    };
    let per_record = match v.choice("noise") {
        "none" => 23.0,
        // Sign-Bernoulli noise was not measured; priced as the rank-one noise.
        _ => 23.0 + 0.55 * d,
    };
    let ops = t * (5.6 * d + 24.0 * (k + 1.0) + gradient) + n * per_record + gap;
    (ops, 16.0 * d)
}

/// The private saddle algorithms and their private baselines.
pub(crate) fn saddle(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    saddle_work(v, w, false)
}

/// `ggp_nonprivate_smd`.
pub(crate) fn nonprivate_saddle(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    saddle_work(v, w, true)
}

/// A query-release run of `rounds` rounds, each answering every query on the
/// `2^bits` histogram (`O(|Q| |Z|)`), plus the `n` output draws.
fn query_rounds(
    v: &CostPoint,
    w: &FamilyWork,
    rounds: impl Fn(f64, f64, f64, f64) -> f64,
) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let bits = v.num("bits", 10.0);
    let queries = 4.0 * bits * (bits - 1.0);
    let (eps, log_inv_delta) = v.eps_and_log_inv_delta();
    let t = rounds(n, eps, log_inv_delta, queries);
    (t * queries * d + n * bits, 16.0 * d + queries)
}

/// `ggp_alg5`: Thm G.1's `T = 6 n eps/(16 sqrt(2 ln(1/delta)) ln|Q|)` rounds
/// (`solvers::gonzalez::alg5::alg5_parameters`), linear in `n`: 60 600 at
/// `n = 1e7`, `eps = 0.5`, `delta = 1e-6`. The earlier `sqrt(n)` count priced
/// the pre-registered 116-repetition rerun of `ggp_synthetic_alg5_large_n` at
/// 17 s wall; it took 957 s.
pub(crate) fn alg5(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    query_rounds(v, w, |n, eps, lam, queries| {
        (6.0 * n * eps / (16.0 * (2.0 * lam).sqrt() * queries.ln())).max(1.0)
    })
}

/// `ggp_mwem`: `T = (n eps sqrt(ln|Z|)/(5 ln|Q|))^(2/3)` rounds clamped to
/// `[1, |Q|]` (`solvers::gonzalez::alg5::mwem_rounds`).
pub(crate) fn mwem(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let log_domain = w.d.max(2.0).ln();
    query_rounds(v, w, |n, eps, _, queries| {
        (n * eps * log_domain.sqrt() / (5.0 * queries.ln()))
            .powf(2.0 / 3.0)
            .clamp(1.0, queries)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::{Value, Values};
    use dpcore::PrivacyParams;

    fn point(problem: &Values, options: &Values, eps: f64) -> f64 {
        let v = CostPoint {
            problem,
            options,
            privacy: Privacy::Approx(PrivacyParams { eps, delta: 1e-6 }),
        };
        alg4(&v, &vertex_linear(&v)).0
    }

    fn values(pairs: &[(&str, Value)]) -> Values {
        pairs
            .iter()
            .map(|(k, x)| (k.to_string(), x.clone()))
            .collect()
    }

    /// Alg. 1's formula counts the schedule the quick profile's
    /// `ggp_eps_rate_alg1_huber` stored (CI's clean-clone run of `1c300d8`:
    /// T = 12 185, K = 879 at n = 1e7, d = 2^10, eps = 0.5, first order, a
    /// low-rank game without payoff noise), and a quadratic-regime dense game
    /// pays its sampled columns and its exact gaps, at the schedule table 1's
    /// quick `ggp_alg1_d` stored at n = 1e6, d = 2^6, eps = 0.5 (T = 46 642,
    /// K = 1; the schedule does not read the matrix).
    #[test]
    fn alg1_counts_the_stored_schedule() {
        let options = |regime: &str| {
            values(&[
                ("regime", Value::Str(regime.into())),
                ("release_count", Value::Str("corrected".into())),
                ("c_steps", Value::Num(1.0)),
                ("c_tau", Value::Num(1.0)),
            ])
        };
        let run = |problem: &Values, options: &Values, eps: f64| {
            let v = CostPoint {
                problem,
                options,
                privacy: Privacy::Approx(PrivacyParams { eps, delta: 1e-6 }),
            };
            alg1(&v, &game(&v)).0
        };
        let d = 1024.0;
        let p = values(&[
            ("n", Value::Num(1e7)),
            ("log2_d", Value::Num(10.0)),
            ("matrix", Value::Str("low_rank".into())),
            ("noise", Value::Str("none".into())),
            ("rank", Value::Num(4.0)),
        ]);
        let (t, k) = (12_185.0, 879.0);
        let expected = t * (5.6 * d + 24.0 * (k + 1.0) + LOW_RANK_GRADIENT * 4.0 * (d + k + 1.0))
            + 1e7 * 23.0
            + 32.0 * d * 4.0;
        let got = run(&p, &options("first_order"), 0.5);
        assert!(
            (got / expected - 1.0).abs() < 1e-12,
            "{got} against {expected}"
        );

        let d = 64.0;
        let p = values(&[
            ("n", Value::Num(1e6)),
            ("log2_d", Value::Num(6.0)),
            ("matrix", Value::Str("planted".into())),
            ("noise", Value::Str("none".into())),
        ]);
        let t = 46_642.0;
        let columns = d * (1.0 - (-2.0f64 / d).exp());
        let expected = t * (5.6 * d + 24.0 * 2.0 + 2.85 * d * columns) + 1e6 * 23.0 + 4.2 * d * d;
        let got = run(&p, &options("quadratic"), 0.5);
        assert!(
            (got / expected - 1.0).abs() < 1e-12,
            "{got} against {expected}"
        );
    }

    /// Alg. 4's formula counts the schedule the committed planted-vertex run
    /// stored (`results/gonzalez-vertex.csv`'s last point: T = 436 660, K =
    /// 1 557, q = 281 at n = 1e7, d = 256, eps = 0.9; `gonzalez-vertex-fo`'s
    /// last: T = 254 368, K = 45 872, q = 91 at n = 1e8, eps = 0.5), and
    /// prices a noiseless vertex batch at `d`, not at `B d`.
    #[test]
    fn alg4_counts_the_stored_schedule() {
        let d = 256.0;
        let (draws, t) = (
            ((281 + (436_660 - 281) / 281) + 1) as f64 * 1557.0,
            436_660.0,
        );
        let p = values(&[("n", Value::Num(1e7)), ("d", Value::Num(d))]);
        let expected = t * (d + 7.3 * d) + 12.4 * draws;
        let got = point(&p, &Values::new(), 0.9);
        assert!(
            (got / expected - 1.0).abs() < 1e-12,
            "{got} against {expected}"
        );

        let p = values(&[("n", Value::Num(1e8)), ("d", Value::Num(d))]);
        let o = values(&[("regime", Value::Str("first_order".into()))]);
        let (draws, t) = (
            ((91 + (254_368 - 91) / 91) + 1) as f64 * 45_872.0,
            254_368.0,
        );
        let expected = t * (d + 7.3 * d) + 12.4 * draws;
        let got = point(&p, &o, 0.5);
        assert!(
            (got / expected - 1.0).abs() < 1e-12,
            "{got} against {expected}"
        );

        // With noise each record is read: the batch of B = 22 records.
        let p = values(&[
            ("n", Value::Num(1e7)),
            ("d", Value::Num(d)),
            ("sigma", Value::Num(1.0)),
        ]);
        let draws = ((281 + (436_660 - 281) / 281) + 1) as f64 * 1557.0;
        let expected = 436_660.0 * (22.0 * (d + RECORD_OPS) + 7.3 * d) + 12.4 * draws;
        let got = point(&p, &Values::new(), 0.9);
        assert!(
            (got / expected - 1.0).abs() < 1e-12,
            "{got} against {expected}"
        );
    }
}
