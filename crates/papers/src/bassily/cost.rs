//! The plan's work formulas of the Bassily et al. entries (operations of one
//! run; see `contract::cost`). `erm` and `one_pass_sgd` keep the default (one
//! pass).

use contract::cost::{default_family_work, SetupWork};
use contract::{CostPoint, FamilyWork};

/// Seconds one RDP-accountant calibration of A_NSGD's noise multiplier takes
/// (`solvers::dp_sgd::calibrate_poisson_gaussian`: a bisection over the
/// multiplier, each step the subsampled-Gaussian RDP at 156 orders, whose
/// series length barely moves with `q`; `T` only scales the result). It is
/// memoized per process on `(eps, delta, q, T, relation)`, so the plan
/// spreads it over the cells sharing it ([`accountant`]). Measured on
/// 2026-11-30: the first cells of each key take 0.059-0.077 s more than the
/// others, whatever `eps` (0.005-1), `n` (1e3-1e5) and `T`: the scratch run
/// at one thread, `bassily-decide3`'s 12 eps points, table 1's 11 NSGD keys.
const ACCOUNTANT_SECONDS: f64 = 0.07;

/// Seconds a cell of the `paper` calibration spends on its realised eps
/// (`poisson_gaussian_realised_eps`, not memoized: one RDP composition under
/// add/remove, a few in the replace-one fixed point). Measured on the
/// quick profile's E5 cells (n = 1e4, d = 16, eps 0.05-1) against the
/// accountant cells that did not calibrate: 1.2-1.5 ms a cell replace-one,
/// 0.3-0.4 ms add/remove.
fn paper_eps_seconds(v: &CostPoint) -> f64 {
    if v.choice("neighbouring") == "add_remove" {
        3.5e-4
    } else {
        1.3e-3
    }
}

/// `seconds` of a fixed computation in the operations of `algorithm`'s
/// formula: over its calibrated seconds per operation (the table beside the
/// entries, [`crate::cost_constants`]; the runner's 2e-9 default when it has
/// none), so that the plan's product gives the seconds back whatever the
/// units of the rest of the formula.
fn seconds_as_ops(algorithm: &str, seconds: f64) -> f64 {
    let k = crate::cost_constants::SECONDS_PER_OP
        .iter()
        .find(|(name, _)| *name == algorithm)
        .map_or(2e-9, |(_, k)| *k);
    seconds / k
}

/// A_NSGD's schedule (Thm 3.2, `solvers::bassily::sgd::schedule`): `T =
/// min(n/8, (eps n)^2/(32 d Lambda))` steps on batches of `m = n
/// sqrt(eps/(4T))`.
fn schedule(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let (n, d) = (w.n, w.d);
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let steps = (n / 8.0)
        .min(eps * eps * n * n / (32.0 * d * lambda))
        .max(1.0);
    let batch = (n * (eps / (4.0 * steps)).sqrt()).clamp(1.0, n);
    (steps, batch)
}

/// A_ProxGD's inner subgradient steps per prox, `ceil(36 M^2/xi^2)` with
/// `xi = (4M/n) max(2 sqrt(d Lambda)/(eps n), 1/sqrt(n))`
/// (`solvers::bassily::sgd::schedule::prox_inner_iterations`; `M` cancels).
/// The formula counted 36, which the fixed accountant term hid: at n = 60
/// to 80 (d = 2, eps = 1, `bftt_e6_prox_gd_cost`) the solver takes 1.3e5 to
/// 4.2e5 (the stored `gradient_evaluations` over `T m`).
fn prox_inner(v: &CostPoint, w: &FamilyWork) -> f64 {
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let n = w.n;
    let xi = 4.0 / n * (2.0 * (w.d * lambda).sqrt() / (eps * n)).max(1.0 / n.sqrt());
    (36.0 / (xi * xi)).ceil()
}

/// Operations of one record's gradient call in A_NSGD besides its `d`
/// coordinates (dispatch, clipping norm, prefetch): a least-squares fit of
/// `nsgd`'s cells (table 1's two studies, the quick profile's E1/E3/E6
/// NSGD studies and the scratch run, the calibrating cells left out) gives
/// 1.0e-9 s per `T m d` and 1.5e-8 s per `T m`. The Moreau variant's
/// envelope gradients fit none (`nsgd_moreau`: 1.9e-9 s per `T m d`, 1e-10
/// per `T m`). The fit of 2026-12-02 with the miss terms (see
/// [`MISS_NUMBER_OPS`]) gives 14.5 in the coordinate's units.
const RECORD_CALL_OPS: f64 = 15.0;

/// Stored records beyond which a batch's reads leave the cache, in bytes:
/// the Intel VM's two cores have 2 MiB of L2 each. Below it a LinBall
/// record gradient took 30-48 ns at d = 4-16 (n <= 64 000, 0.5-2.4 MiB) and
/// an AbsDeviation envelope gradient 45-61 ns (d = 16, 8-byte atoms, to 3.8
/// MiB); above it LinBall's took 86-104 ns at d = 16 (n = 1e5-1e6, 12-122
/// MiB), 899 ns at d = 256 (707 MiB) and 3.5 ns a coordinate at d = 1 024-4
/// 096 (156-625 MiB), AbsDeviation's 86 ns at 7.6 MiB. Between (LinBall at
/// d = 32 and 64, 4.9 and 9.8 MiB: 2.1-2.3 ns a coordinate) records of 256
/// bytes and more were read at about the in-cache rate, so 6 MiB prices the
/// 9.8 MiB cells above their time (the safe side). The batch is a sparse
/// sorted sample (m/n = 5e-4 at n = 1e6), so each record is a fresh miss
/// that the 8-ahead prefetch hides only in part.
const RECORDS_IN_CACHE_BYTES: f64 = 6.0 * 1024.0 * 1024.0;

/// Operations a record read costs beyond the cache, besides
/// [`MISS_NUMBER_OPS`] per stored number of the record.
const MISS_RECORD_OPS: f64 = 19.0;

/// Operations a stored number of a record costs beyond the cache. With
/// [`MISS_RECORD_OPS`], a weighted least-squares fit (weights `1/sqrt(t)`)
/// of the LinBall NSGD cells' times to `T m`, `T m d`, the same two past
/// 8 MiB, and `n d` (generation): 24.5 ns a record and 1.69 ns a coordinate
/// in cache, 31.8 ns and 1.48 ns more beyond it (CI's `bassily-quick` and
/// table 1's default run of 2026-12-02, and the first 248 cells, two
/// studies, of Bassily's default run at `3ff2a9c`); in units of the
/// coordinate, 19 and 0.9 (the in-cache 14.5 is [`RECORD_CALL_OPS`]).
const MISS_NUMBER_OPS: f64 = 0.9;

/// What one record read costs in operations on top of its gradient: nothing
/// while the family's stored numbers fit [`RECORDS_IN_CACHE_BYTES`], else a
/// miss of [`MISS_RECORD_OPS`] plus [`MISS_NUMBER_OPS`] per number of the
/// record. AbsDeviation stores 8-byte atoms ([`abs_deviation`]), so its
/// records stay in cache to n = 5e5 (45-61 ns a record gradient at d = 16)
/// and miss at n = 1e6 (86 ns).
fn record_miss_ops(w: &FamilyWork) -> f64 {
    if 8.0 * w.data_numbers > RECORDS_IN_CACHE_BYTES {
        MISS_RECORD_OPS + MISS_NUMBER_OPS * w.data_numbers / w.n
    } else {
        0.0
    }
}

/// A_NSGD: `T m` record gradients of `d + per_record` operations (and
/// [`record_miss_ops`] a read where the records outgrow the cache) and a
/// pass over the data; A_ProxGD computes each prox by an inner subgradient
/// method (`inner` steps, [`prox_inner`], on the record it read once). The
/// accountant's calibration is [`nsgd_accountant`], spread over the cells
/// sharing it; the `paper` calibration computes its realised eps in every
/// cell.
fn nsgd_work(
    algorithm: &str,
    v: &CostPoint,
    w: &FamilyWork,
    inner: f64,
    per_record: f64,
) -> (f64, f64) {
    let (steps, batch) = schedule(v, w);
    let paper = if v.choice("calibration") == "paper" {
        seconds_as_ops(algorithm, paper_eps_seconds(v))
    } else {
        0.0
    };
    (
        steps * batch * ((w.d + per_record) * inner + record_miss_ops(w)) + w.n * w.d + paper,
        16.0 * w.d + batch,
    )
}

/// The RDP accountant's calibration of `algorithm` (none under the `paper`
/// calibration): [`ACCOUNTANT_SECONDS`] in its units, keyed as its memo is,
/// by `eps`, `delta`, `q = m/n`, `T` and the relation (the three entries
/// share the memo). Was a fixed 2e7 operations a cell, which priced
/// `bftt_e3_moreau_eps` (3 423 cells a key in `bassily-decide3`) 3.3 times
/// its measured time.
fn accountant(algorithm: &str, v: &CostPoint, w: &FamilyWork) -> Option<SetupWork> {
    if v.choice("calibration") == "paper" {
        return None;
    }
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let (steps, batch) = schedule(v, w);
    let relation = if v.choice("neighbouring") == "add_remove" {
        1.0
    } else {
        0.0
    };
    Some(SetupWork {
        ops: seconds_as_ops(algorithm, ACCOUNTANT_SECONDS),
        memo: "solvers::dp_sgd::calibrate_poisson_gaussian",
        key: [eps, lambda, batch / w.n, steps, relation],
    })
}

/// `nsgd`.
pub(crate) fn nsgd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    nsgd_work("nsgd", v, w, 1.0, RECORD_CALL_OPS)
}

/// `nsgd`'s accountant.
pub(crate) fn nsgd_accountant(v: &CostPoint, w: &FamilyWork) -> Option<SetupWork> {
    accountant("nsgd", v, w)
}

/// `nsgd_with_replacement`: `nsgd`'s work (`m` draws a step instead of a
/// Poisson batch of mean `m`) and its accountant.
pub(crate) fn nsgd_with_replacement(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    nsgd_work("nsgd_with_replacement", v, w, 1.0, RECORD_CALL_OPS)
}

/// `nsgd_with_replacement`'s accountant (`nsgd`'s replace-one calibration).
pub(crate) fn nsgd_with_replacement_accountant(v: &CostPoint, w: &FamilyWork) -> Option<SetupWork> {
    accountant("nsgd_with_replacement", v, w)
}

/// `nsgd_moreau`: A_NSGD's count with the envelope gradient for the record
/// gradient. Its per-record overhead was taken as none; AbsDeviation's
/// envelope gradients took 45-51 ns at d = 2-16 and 820 ns at d = 512
/// (`bassily-quick`, in cache), 1.56 ns a coordinate and 22 ns a record,
/// about [`RECORD_CALL_OPS`] coordinates, as A_NSGD's; Bassily's default run
/// of 2026-12-02 read `bftt_e3_moreau_n` at 0.36 without it.
pub(crate) fn nsgd_moreau(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    nsgd_work("nsgd_moreau", v, w, 1.0, RECORD_CALL_OPS)
}

/// `nsgd_moreau`'s accountant.
pub(crate) fn nsgd_moreau_accountant(v: &CostPoint, w: &FamilyWork) -> Option<SetupWork> {
    accountant("nsgd_moreau", v, w)
}

/// `prox_gd`.
pub(crate) fn prox_gd(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    nsgd_work("prox_gd", v, w, prox_inner(v, w), 0.0)
}

/// `prox_gd`'s accountant.
pub(crate) fn prox_gd_accountant(v: &CostPoint, w: &FamilyWork) -> Option<SetupWork> {
    accountant("prox_gd", v, w)
}

/// `objp`: one call of the family's exact perturbed minimizer
/// (`solvers::bassily::objp::exact`: draw `G`, `perturbed_minimizer(G/n,
/// lambda)`) and the metric, `O(d)` on the family's summaries. No Newton
/// iterations and no pass over the data: the cell's time is its data set's
/// generation (`generate_ops`). Was `n d log2 n + d^3` (a Hessian solve),
/// which priced `bftt_e1_objp_d` (d up to 8192, `lin_ball`, whose minimizer
/// is the closed form `Proj(L z_bar - b)/(2 lambda)`) at 14.6 core-hours,
/// 5.5 min a cell at d = 8192; measured on 2026-11-30 (scratch run, one
/// thread, otherwise idle): 0.0062, 0.025, 0.096, 0.20, 0.42 and 0.84 s a
/// cell at d = 64 ... 8192 (n = 2e4), 4.8e-9 to 5.1e-9 s per `n d`, and the
/// n-sweeps' cells (d = 16) likewise linear in `n`, no `log n`: 6.5e-9 s
/// per `n d` at n = 2000, 7.4e-9 at n = 5e5 (`bassily-quick`).
pub(crate) fn objp(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let d = w.d;
    // Memory keeps a d x d matrix: the least-squares solve's copy of the
    // second moment; for lin_ball an overestimate (the safe side).
    (w.exact_minimizer_ops + 8.0 * d, 16.0 * d + d * d)
}

/// The Bassily families' generation in the units of the NSGD formulas (about
/// 1 ns: one coordinate of a `T m d` gradient step, 1.0e-9 s by a fit of
/// `nsgd`'s table 1 and quick cells; the default counts one per stored
/// number), so that one constant per algorithm fits the generation and the
/// run together. `lin_ball` draws each record with `sample_unit_sphere(d)`
/// (`d` Gaussians, a norm, a scaling): measured on 2026-11-30 on `objp`
/// cells, which do nothing else (scratch run, one thread, otherwise idle,
/// n = 2e4, d = 64 ... 8192; `bassily-quick` at d = 4 ... 64), 3.95e-9 s
/// per coordinate plus 4.7e-8 s per record, `4 (d + 12)` a record.
pub(crate) fn lin_ball(v: &CostPoint) -> FamilyWork {
    let base = default_family_work(v);
    FamilyWork {
        generate_ops: 4.0 * base.n * (base.d + 12.0),
        ..base
    }
}

/// `abs_deviation`: the default work, but the data set is `n` atoms of 8
/// bytes (`datagen::bassily::abs_deviation::Atom`) and two count vectors,
/// not `n (d + 3)` numbers.
pub(crate) fn abs_deviation(v: &CostPoint) -> FamilyWork {
    let base = default_family_work(v);
    FamilyWork {
        data_numbers: base.n + 2.0 * base.d,
        ..base
    }
}

/// `least_squares_glm`, in the units of [`lin_ball`]: the draw, the second
/// moment (`n d^2/2` products, `add_outer_lower`) and the exact minimizer of
/// the ball quadratic at generation, and that `d x d` solve again for each
/// perturbed minimizer. Measured on 2026-11-30 (scratch run, one thread,
/// n = 4000): `objp` cells of 0.0005, 0.0026, 0.039 and 0.21 s at d = 16,
/// 64, 256, 512 fit `9.7e-11 n d^2 + 7.9e-10 d^3` seconds (two solves) and
/// 6e-9 s per drawn coordinate at d = 16: `6 n d + n d^2/10` and `0.4 d^3`
/// a solve.
pub(crate) fn least_squares(v: &CostPoint) -> FamilyWork {
    let base = default_family_work(v);
    let (n, d) = (base.n, base.d);
    let solve = 0.4 * d * d * d;
    FamilyWork {
        generate_ops: 6.0 * n * d + n * d * d / 10.0 + solve,
        data_numbers: base.data_numbers + d * d,
        exact_minimizer_ops: solve,
        kl_constants: None,
        ..base
    }
}

/// `objp_app`: certified SVRG.
pub(crate) fn objp_app(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.d * w.n.max(2.0).log2() * 4.0, 16.0 * w.d)
}

/// `theory_curve`: a formula, no data pass.
pub(crate) fn theory_curve(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (1.0, 16.0 * w.d)
}

/// `svrg_theorem58`: `epochs` SVRG epochs of `n + 2k` gradient evaluations
/// each (`k = ceil(20 beta_f/mu_f)` grows like `beta/lambda ~ eps n`, so an
/// epoch is about `3n` evaluations), plus the exact minimizer (a `d x d`
/// solve).
pub(crate) fn svrg_theorem58(v: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    let epochs = v.num("epochs", 1.0).max(1.0);
    (
        epochs * 3.0 * w.n * w.d + w.d * w.d * w.d,
        16.0 * w.d + w.d * w.d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::{Privacy, Value, Values};
    use dpcore::PrivacyParams;

    /// `f` at `n` records of dimension `d`, eps = 1/8, delta = 1e-12 (the
    /// privacy of `bftt_e1_nsgd_n`).
    fn at<T>(n: f64, d: f64, f: impl Fn(&CostPoint) -> T) -> T {
        let problem: Values = [("n", n), ("d", d)]
            .iter()
            .map(|(k, x)| (k.to_string(), Value::Num(*x)))
            .collect();
        let options = Values::new();
        f(&CostPoint {
            problem: &problem,
            options: &options,
            privacy: Privacy::Approx(PrivacyParams {
                eps: 0.125,
                delta: 1e-12,
            }),
        })
    }

    /// A LinBall batch pays the miss terms once its records (`n (d + 3)`
    /// numbers) pass 6 MiB, at the schedule `bftt_e1_nsgd_n` stored at n =
    /// 1e6, d = 16 (T = 125 000 steps of m = 500); below, the count is the
    /// in-cache one.
    #[test]
    fn records_past_the_cache_pay_a_miss_each() {
        let (t, m) = (125_000.0, 500.0);
        let (n, d) = (1e6, 16.0);
        assert_eq!(at(n, d, |v| schedule(v, &lin_ball(v))), (t, m));
        let gradients = t * m * (d + RECORD_CALL_OPS);
        let miss = t * m * (MISS_RECORD_OPS + MISS_NUMBER_OPS * (d + 3.0));
        let expected = gradients + miss + n * d;
        let got = at(n, d, |v| nsgd(v, &lin_ball(v)).0);
        assert!(
            (got / expected - 1.0).abs() < 1e-9,
            "{got} against {expected}"
        );
        // Without the miss the same cell is 30% cheaper: the term is there.
        assert!(got > 1.3 * (gradients + n * d));

        // 20 000 records of d = 16: 2.4 MiB, in cache.
        let (t, m) = at(2e4, d, |v| schedule(v, &lin_ball(v)));
        let small = at(2e4, d, |v| nsgd(v, &lin_ball(v)).0);
        let expected = t * m * (d + RECORD_CALL_OPS) + 2e4 * d;
        assert!(
            (small / expected - 1.0).abs() < 1e-9,
            "{small} against {expected}"
        );

        // AbsDeviation's atoms: 7.6 MiB at n = 1e6 (one number a record),
        // 3.8 MiB at n = 5e5.
        let atoms = at(n, d, |v| nsgd(v, &abs_deviation(v)).0);
        let expected = gradients + 125_000.0 * 500.0 * (MISS_RECORD_OPS + MISS_NUMBER_OPS) + n * d;
        assert!(
            (atoms / expected - 1.0).abs() < 1e-6,
            "{atoms} against {expected}"
        );
        let (t, m) = at(5e5, d, |v| schedule(v, &abs_deviation(v)));
        let atoms = at(5e5, d, |v| nsgd(v, &abs_deviation(v)).0);
        let expected = t * m * (d + RECORD_CALL_OPS) + 5e5 * d;
        assert!(
            (atoms / expected - 1.0).abs() < 1e-9,
            "{atoms} against {expected}"
        );
    }
}
