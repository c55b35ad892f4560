//! What a cell costs, as its entries declare it: the runner's plan multiplies
//! these operation counts by calibrated seconds per operation to estimate
//! core-hours and refuses cells that cannot fit in memory, before anything
//! runs. A family declares the work of generating one data set, an algorithm
//! the work of one run on it; both default to one pass over `n x d` numbers,
//! so a new entry is estimated without touching the runner and can declare a
//! sharper formula beside its definition.

use crate::{Privacy, Value, Values};
use dpcore::menart::KlConstants;

/// The values of one grid point, as the cost formulas read them.
#[derive(Debug, Clone, Copy)]
pub struct CostPoint<'a> {
    /// Problem-family values.
    pub problem: &'a Values,
    /// Algorithm options.
    pub options: &'a Values,
    /// The grid point's guarantee.
    pub privacy: Privacy,
}

impl CostPoint<'_> {
    /// A numeric value of the problem or the options, or `default` when the
    /// parameter is absent or not a finite number.
    pub fn num(&self, name: &str, default: f64) -> f64 {
        match self.problem.get(name).or_else(|| self.options.get(name)) {
            Some(Value::Num(x)) if x.is_finite() => *x,
            _ => default,
        }
    }

    /// A string choice of the problem or the options ("" when absent).
    pub fn choice(&self, name: &str) -> &str {
        match self.problem.get(name).or_else(|| self.options.get(name)) {
            Some(Value::Str(s)) => s,
            _ => "",
        }
    }

    /// `eps` (1 for a zCDP point, whose formulas do not read it) and
    /// `ln(1/delta)` (1 for pure DP and zCDP, see [`log_inv_delta`]).
    pub fn eps_and_log_inv_delta(&self) -> (f64, f64) {
        match self.privacy {
            Privacy::Approx(p) => (
                if p.eps > 0.0 { p.eps } else { 1.0 },
                log_inv_delta(p.delta),
            ),
            Privacy::Zcdp(_) => (1.0, 1.0),
        }
    }

    /// `rho` of a zCDP point (1 for an approximate-DP one, whose formulas do
    /// not read it).
    pub fn rho_or_one(&self) -> f64 {
        match self.privacy {
            Privacy::Zcdp(rho) => rho,
            Privacy::Approx(_) => 1.0,
        }
    }
}

/// `ln(1/delta)`, at least 1 (delta = 0 means pure DP, whose schedules do not
/// depend on it).
pub fn log_inv_delta(delta: f64) -> f64 {
    if delta > 0.0 && delta < 1.0 {
        (1.0 / delta).ln().max(1.0)
    } else {
        1.0
    }
}

/// The size of a family's data set and the work of generating it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FamilyWork {
    /// Records `n` (at least 1).
    pub n: f64,
    /// The dimension the family works in (at least 1): `d`, or e.g. `2^log2_d`
    /// for a saddle game.
    pub d: f64,
    /// Operations to generate the data set.
    pub generate_ops: f64,
    /// Numbers (8 bytes each) the data set holds.
    pub data_numbers: f64,
    /// Operations of one full-batch oracle call (a gradient or a value over
    /// the data set): `n d` on stored records, less where the family answers
    /// from a summary (a virtual data set, sorted scalar records). The
    /// family knows it; an algorithm's formula multiplies it by its call
    /// count without naming the family.
    pub oracle_ops: f64,
    /// Operations of one exact regularized minimizer
    /// (`dpcore::Objective::perturbed_minimizer`, which objective
    /// perturbation calls once a run): `d` for a closed form (the default;
    /// `lin_ball` projects `L z_bar - b`), a dense `d x d` solve where the
    /// family factors its second moment (`least_squares_glm`).
    pub exact_minimizer_ops: f64,
    /// The family's public KL constants where it has them (Menart et al.'s
    /// families, `dpcore::menart::KlObjective::kl_constants`, computed from
    /// the parameters without drawing data); `None` elsewhere. Algorithm 1's
    /// round count is a function of them and of `(n, d, rho)` alone, so its
    /// formula counts rounds instead of guessing them.
    pub kl_constants: Option<KlConstants>,
}

/// A family's work at a grid point.
pub type FamilyWorkFn = fn(&CostPoint) -> FamilyWork;

/// An algorithm's run at a grid point: `(operations, working numbers)`, given
/// the family's work.
pub type AlgorithmWorkFn = fn(&CostPoint, &FamilyWork) -> (f64, f64);

/// Work an algorithm does once per process for each distinct configuration
/// and then reuses from a process-wide memo (e.g. the RDP accountant's
/// calibration of a noise multiplier,
/// `solvers::dp_sgd::calibrate_poisson_gaussian`): the plan spreads `ops`
/// over every cell of the experiment with the same `memo` and `key` (every
/// repetition, every data-only axis such as `r_factor`, and the other
/// studies, of any algorithm, that hit the same memo entry), as the stored
/// per-cell times do on average (the first such cells pay it all).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetupWork {
    /// Operations of one computation (in the algorithm's units).
    pub ops: f64,
    /// Which memo: setups of different memos never share.
    pub memo: &'static str,
    /// What the memo is keyed by (cells with bit-identical keys share one
    /// computation).
    pub key: [f64; 5],
}

/// An algorithm's memoized setup at a grid point, `None` when it has none
/// there.
pub type SetupWorkFn = fn(&CostPoint, &FamilyWork) -> Option<SetupWork>;

/// The variant of an algorithm's cost constant at a grid point, given the
/// family's work there: `""` for the algorithm's own constant, otherwise a
/// short name (e.g. `"sgd"`) whose constant `<name>:<variant>` is
/// calibrated apart.
pub type CostVariantFn = fn(&CostPoint, &FamilyWork) -> &'static str;

/// `n` and `d` of a grid point (each at least 1).
pub fn n_and_d(v: &CostPoint) -> (f64, f64) {
    (v.num("n", 1.0).max(1.0), v.num("d", 1.0).max(1.0))
}

/// The default family work: `n` records of dimension `d` with a label or
/// weight each, `n d` operations to draw.
pub fn default_family_work(v: &CostPoint) -> FamilyWork {
    let (n, d) = n_and_d(v);
    FamilyWork {
        n,
        d,
        generate_ops: n * d,
        data_numbers: n * (d + 3.0),
        oracle_ops: n * d,
        exact_minimizer_ops: d,
        kl_constants: None,
    }
}

/// The default algorithm work: one pass over the data set, 16 working
/// vectors of dimension `d`.
pub fn default_algorithm_work(_: &CostPoint, w: &FamilyWork) -> (f64, f64) {
    (w.n * w.d, 16.0 * w.d)
}
