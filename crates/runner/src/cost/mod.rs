//! The cost model: estimated seconds and peak bytes of every cell, before
//! anything runs.
//!
//! A cell's cost is a work formula from the complexity of its family and
//! algorithm (data size `n d`, the iteration counts the theorems prescribe,
//! the dense-matrix size of saddle games, ...) in abstract operations, times
//! a per-algorithm constant calibrated on the measured per-cell wall times of
//! this harness ([`constants`], refreshed by `scripts/refresh_cost_constants.sh`
//! through `runner calibrate`). The data set of a (study, data seed) group is
//! generated once and shared by its cells ([`crate::execute::run_group`]), so
//! its generation is spread over the group, as the stored times are.
//!
//! Memory is the data set (8 bytes per stored number) plus the algorithm's
//! working vectors, per worker thread, over the process base and the records
//! the run holds for every planned cell.
//!
//! Everything is computed in `f64` from the grid's values, never allocated:
//! `d = 1e11` gives an estimate of 8e17 bytes, not an allocation failure. The
//! grid is walked point by point (not expanded into cells), so estimating a
//! plan costs microseconds per grid point whatever the repetitions.

pub mod calibrate;
pub mod constants;

use crate::registry::{ParamRole, Privacy, Value, Values};
use crate::validate::{Experiment, Study, Target};

/// The values of one grid point, as the cost formulas read them.
#[derive(Debug, Clone, Copy)]
pub struct PointValues<'a> {
    /// Problem-family values.
    pub problem: &'a Values,
    /// Algorithm options.
    pub options: &'a Values,
    /// The grid point's guarantee.
    pub privacy: Privacy,
}

impl PointValues<'_> {
    /// A numeric value of the problem or the options, or `default` when the
    /// parameter is absent or not a finite number.
    /// `eps` (1 for a zCDP point, whose formulas do not read it) and
    /// `ln(1/delta)` (1 for pure DP and zCDP, see [`log_inv_delta`]).
    fn eps_and_log_inv_delta(&self) -> (f64, f64) {
        match self.privacy {
            Privacy::Approx(p) => (
                if p.eps > 0.0 { p.eps } else { 1.0 },
                log_inv_delta(p.delta),
            ),
            Privacy::Zcdp(_) => (1.0, 1.0),
        }
    }

    fn num(&self, name: &str, default: f64) -> f64 {
        match self.problem.get(name).or_else(|| self.options.get(name)) {
            Some(Value::Num(x)) if x.is_finite() => *x,
            _ => default,
        }
    }

    /// A string choice of the problem or the options ("" when absent).
    fn choice(&self, name: &str) -> &str {
        match self.problem.get(name).or_else(|| self.options.get(name)) {
            Some(Value::Str(s)) => s,
            _ => "",
        }
    }
}

/// The work of one cell in the model's units.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Work {
    /// Operations to generate the cell's data set (shared by its data group).
    pub generate_ops: f64,
    /// Operations of the algorithm's run and its metric.
    pub run_ops: f64,
    /// Numbers (8 bytes each) the data set holds.
    pub data_numbers: f64,
    /// Numbers (8 bytes each) the algorithm holds besides the data set.
    pub work_numbers: f64,
}

/// Estimated cost of one cell.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CellCost {
    /// Core-seconds, its share of the group's data generation included.
    pub seconds: f64,
    /// Peak bytes it adds to the process while it runs (data set and working memory).
    pub bytes: f64,
}

/// `ln(1/delta)`, at least 1 (delta = 0 means pure DP, whose schedules do not
/// depend on it).
fn log_inv_delta(delta: f64) -> f64 {
    if delta > 0.0 && delta < 1.0 {
        (1.0 / delta).ln().max(1.0)
    } else {
        1.0
    }
}

/// The dimension the family works in: `d`, `2^log2_d` for saddle games,
/// `2^bits` (the domain) for marginal queries, 1 for the scalar KL instance.
fn dimension(family: &str, v: &PointValues) -> f64 {
    match family {
        "ggp_game" => 2f64.powf(v.num("log2_d", 1.0)),
        "ggp_marginals" => 2f64.powf(v.num("bits", 10.0)),
        "kl_theorem8" => 1.0,
        _ => v.num("d", 1.0),
    }
}

/// Generation operations and stored numbers of a family's data set.
fn family_work(family: &str, v: &PointValues, n: f64, d: f64) -> (f64, f64) {
    match family {
        // Menart's virtual data sets hold no records (O(d) oracles for any n)
        // unless the tilts or the spread are non-zero.
        "kl_mean_estimation" if v.num("spread", 0.0) == 0.0 => (d, 4.0 * d),
        "kl_power_tilt" | "kl_kns_pl" if v.num("tilt", 0.0) == 0.0 => (d, 4.0 * d),
        "kl_theorem8" => (n, 2.0 * n),
        // González's records are counter-based (hashed on demand): a game holds
        // O(d) vectors, plus the cached dense entries up to 2^10 (8 MiB).
        "ggp_game" => {
            let dense = matches!(v.choice("matrix"), "planted" | "dense" | "") && d <= 1024.0;
            let cache = if dense { d * d } else { 0.0 };
            let rank = v.num("rank", 4.0);
            (cache + d * rank, cache + (8.0 + 2.0 * rank) * d)
        }
        "ggp_least_squares" | "ggp_separable_sco" => (d, 8.0 * d),
        // The population histogram over 2^bits and 8 C(bits, 2) query answers.
        "ggp_marginals" => {
            let bits = v.num("bits", 10.0);
            let queries = 4.0 * bits * (bits - 1.0);
            (n * bits + d * queries, 4.0 * d + queries)
        }
        // Everything else stores its n records of dimension d, with a label or
        // weight per record.
        _ => (n * d, n * (d + 3.0)),
    }
}

/// Run operations and working numbers of an algorithm. The iteration counts
/// are the ones the algorithms' schedules compute (see each solver), up to
/// constant factors the calibration absorbs.
fn algorithm_work(algorithm: &str, family: &str, v: &PointValues, n: f64, d: f64) -> (f64, f64) {
    let nd = n * d;
    let log_n = n.max(2.0).log2();
    let kappa = v.num("kappa", 1.0).max(1.0);
    let mu = v.num("mu", 0.1).max(1e-12);
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let vectors = 16.0 * d;
    match algorithm {
        // Exact minimizer (closed form, or a certified L-BFGS / Newton solve of a
        // few passes) plus noise.
        "output_perturbation_conceptual" | "op_conceptual_projected" | "erm" => (nd, vectors),
        "theory_curve" => (1.0, vectors),
        "one_pass_sgd" => (nd, vectors),
        // Inner solvers: Katyusha and AGD take about sqrt(kappa) log passes
        // (docs/papers/lowy_razaviyayn.md E1/E6: cost slope +1 in n up to a log), SGD and the
        // subgradient method n^2 steps (cost slope +2 in n).
        "op_black_box" | "op_regularized" => {
            let black_box = algorithm == "op_black_box" || v.choice("mode") == "black_box";
            let ops = match (black_box, v.choice("inner")) {
                (false, _) => nd * log_n,
                (true, "sgd" | "subgradient") => n * n * d,
                (true, _) => nd * log_n * kappa.sqrt(),
            };
            (ops, vectors)
        }
        // Certified gradient descent: about (1/mu) log passes.
        "adversarial_black_box" => (nd * log_n / mu, vectors),
        // [ZZMW17]: T = ceil(kappa ln(...)) full gradients.
        "zzmw17" => (nd * kappa * log_n, vectors),
        // [BST14]: T = n^2 steps on Poisson batches of expected size b.
        "noisy_sgd" => (n * n * v.num("expected_batch", 1.0) * d, vectors),
        // A_NSGD (Thm 3.2, solvers::bassily::sgd::schedule): T = min(n/8,
        // (eps n)^2/(32 d Lambda)) steps on batches of m = n sqrt(eps/(4T)).
        "nsgd" | "nsgd_moreau" | "prox_gd" => {
            let steps = (n / 8.0)
                .min(eps * eps * n * n / (32.0 * d * lambda))
                .max(1.0);
            let batch = (n * (eps / (4.0 * steps)).sqrt()).clamp(1.0, n);
            // A_ProxGD computes each prox by an inner subgradient method.
            let inner = if algorithm == "prox_gd" { 36.0 } else { 1.0 };
            // The RDP accountant bisects the noise multiplier over T
            // compositions: a fixed 0.15-0.2 s a cell, measured on the smallest
            // Bassily cells (n = 2000) and table 1's eps-sweep.
            let accountant = if v.choice("calibration") == "paper" {
                0.0
            } else {
                ACCOUNTANT_OPS
            };
            (steps * batch * d * inner + nd + accountant, vectors + batch)
        }
        // Objective perturbation: an exact (Newton) or SVRG solve, d x d Hessian.
        "objp" => (nd * log_n + d * d * d, vectors + d * d),
        "objp_app" => (nd * log_n * 4.0, vectors),
        // Menart et al.: full-batch oracles, O(d) on a virtual data set and
        // O(n d) on stored records; the number of oracle calls grows like the
        // private rate's inverse, about (n sqrt(rho))^(1/2) for the KL methods.
        "kl_spider"
        | "kl_proximal_point"
        | "kl_adaptive_gd"
        | "kl_stationary_selection"
        | "kl_dp_gd" => {
            let virtual_data =
                matches!(family, "kl_mean_estimation" | "kl_power_tilt" | "kl_kns_pl")
                    && family_work(family, v, n, d).1 <= 4.0 * d;
            // The scalar instance of Theorem 8 answers its oracles from sorted
            // records in O(log n) (measured: 0.06 s a cell at n = 1e5).
            let oracle = match (virtual_data, family) {
                (true, _) => d,
                (false, "kl_theorem8") => log_n,
                (false, _) => nd,
            };
            let rho = match v.privacy {
                Privacy::Zcdp(rho) => rho,
                Privacy::Approx(_) => 1.0,
            };
            let calls = if algorithm == "kl_proximal_point" {
                // Algorithm 4's inner loop runs T_in = n^2 rho_A/d noisy
                // steps (times ln^2(2/beta) = 9.0 under Theorem 9) in each of
                // about log n outer rounds: the n^2 growth the default E2
                // sweeps showed (measured/estimated 29-40x at n = 31623 with
                // the sqrt(x) formula the other KL methods use).
                let theorem9 = if v.choice("inner_steps") == "practical" {
                    1.0
                } else {
                    (2.0_f64 / v.num("beta", 0.1)).ln().powi(2)
                };
                (n * n * rho / d).max(1.0) * theorem9 * log_n
            } else {
                (n * rho.sqrt() / d.sqrt()).max(1.0).sqrt() * log_n
            };
            (oracle * calls, vectors)
        }
        "wang_m_star"
        | "wang_m_prime"
        | "wang_oracle_jlgd"
        | "wang_full_dim_dpgd"
        | "wang_jl_margin_check" => wang_work(algorithm, v, n, d),
        // Certified min-norm point: about sqrt(n) passes.
        "wang_hard_margin_svm" => (nd * n.sqrt(), vectors + nd),
        // González et al.: T = n eps/sqrt(l Lambda) mirror steps of O(d) (MW
        // vertices), the rank-one payoff noise O(n d), and the two exact gaps
        // of the released pair, O(d^2) on a dense or planted matrix.
        "ggp_alg1"
        | "ggp_alg3"
        | "ggp_noisy_entropic_md"
        | "ggp_euclidean_dp_sgda"
        | "ggp_nonprivate_smd" => {
            let l = 2.0 * d.max(2.0).ln();
            let steps = (n * eps / l.sqrt()).clamp(1.0, n);
            // Each record is hashed from its counter (about 16 operations,
            // measured on table 1's noiseless n = 1e6 games), plus O(d) for
            // the rank-one payoff noise.
            let noise = if v.choice("noise") == "none" {
                16.0 * n
            } else {
                16.0 * n + nd
            };
            // The exact gaps evaluate every entry of a dense (hashed) matrix:
            // about 11 s of the 23 s of a dense 2^16 cell (docs/papers/gonzalez.md).
            // Low-rank games use their factors, O(d rank) per gap: d^2 would
            // put the default d-sweep's 2^20 points at hours per cell, against
            // 4 core-hours measured for the whole default run.
            let gap = match v.choice("matrix") {
                "separable" => 2.0 * d,
                "low_rank" => 32.0 * d * v.num("rank", 4.0),
                _ => 2.0 * d * d,
            };
            let mirror = if algorithm == "ggp_nonprivate_smd" && gap > 2.0 * d * 16.0 {
                // Exact record gradients at the MW iterates: dense mat-vecs.
                n * gap / 2.0
            } else {
                steps * d
            };
            (noise + mirror + gap, vectors)
        }
        // Simplex SCO: one pass of O(d) gradients.
        "ggp_alg4" | "ggp_dp_frank_wolfe" | "ggp_dp_sgd_simplex" => (nd, vectors),
        // Query release: T rounds over every query on the 2^bits histogram.
        "ggp_alg5" | "ggp_mwem" => {
            let bits = v.num("bits", 10.0);
            let queries = 4.0 * bits * (bits - 1.0);
            (n.sqrt() * queries * d + n * bits, vectors + queries)
        }
        _ => (nd, vectors),
    }
}

/// Wang–Zhu–Wang: for every gamma of the grid {1/n, 2/n, 4/n, ..., 1} a
/// Rademacher JL map to k_gamma = min(d, C_JL ln(|Gamma|(n+1)(n+2)/beta)/gamma^2)
/// (n d k to project, identity when k = d) and T NGD steps of n k each, with
/// T = n^2 mu_p^2 (`paper`) or n^2 mu_p^2 / k (`fast`), mu_p = mu/sqrt(2|Gamma|),
/// mu = eps/(2 sqrt(2 ln(1/delta))) and beta = 1/n^2 (solvers::wang).
fn wang_work(algorithm: &str, v: &PointValues, n: f64, d: f64) -> (f64, f64) {
    let grid = n.max(1.0).log2().floor() + 1.0;
    let (eps, lambda) = v.eps_and_log_inv_delta();
    let mu = eps / (2.0 * (2.0 * lambda).sqrt());
    let mu_p = mu / (2.0 * grid).sqrt();
    let c_jl = v.num("jl_constant", 1.0);
    let log_term = (grid * (n + 1.0) * (n + 2.0) * n * n).ln();
    let fast = v.choice("mode") == "fast";
    let full_dimension = algorithm == "wang_full_dim_dpgd";
    let k_of = |gamma: f64| {
        if full_dimension {
            d
        } else {
            (c_jl * log_term / (gamma * gamma)).ceil().clamp(1.0, d)
        }
    };
    let candidate = |gamma: f64, mu_run: f64| -> (f64, f64) {
        let k = k_of(gamma);
        let project = if k < d { n * d * k } else { 0.0 };
        let steps = (n * n * mu_run * mu_run / if fast { k } else { 1.0 }).max(1.0);
        // Projected rows (n k numbers) and the sign matrix, one bit per entry.
        (project + steps * n * k, n * k + k * d / 64.0)
    };
    let gammas: Vec<f64> = (0..grid as usize)
        .map(|i| (2f64.powi(i as i32) / n).min(1.0))
        .collect();
    let over_grid = |mu_run: f64| {
        gammas
            .iter()
            .fold((0.0, 0.0), |(ops, mem): (f64, f64), &g| {
                let (o, m) = candidate(g, mu_run);
                (ops + o, mem.max(m))
            })
    };
    let planted = v.num("gamma", 0.5);
    let (ops, mem) = match algorithm {
        "wang_oracle_jlgd" => {
            let mu_run = if v.choice("budget") == "per_call" {
                mu_p
            } else {
                mu
            };
            candidate(planted, mu_run)
        }
        "wang_full_dim_dpgd" if v.choice("tuning") == "known" => candidate(planted, mu),
        // One JL map at the planted margin, no descent.
        "wang_jl_margin_check" => {
            let k = k_of(planted);
            (n * d * k, n * k + k * d / 64.0)
        }
        // Random stopping: expected K = min(|Gamma| n^2 / r_factor, max_runs)
        // runs, each one candidate at a uniform gamma.
        "wang_m_prime" => {
            let runs = (grid * n * n / v.num("r_factor", 1.0)).min(v.num("max_runs", 1e6));
            let (ops, mem) = over_grid(mu_p);
            (runs * ops / grid, mem)
        }
        _ => over_grid(mu_p),
    };
    (ops, mem + n * d + 16.0 * d)
}

/// Operations the RDP accountant's calibration of A_NSGD's noise multiplier
/// counts as (about 0.15 s at the calibrated 7e-9 s per operation).
const ACCOUNTANT_OPS: f64 = 2e7;

/// The work of one cell of `study` at the values `v`.
pub fn cell_work(study: &Study, v: &PointValues) -> Work {
    let family = study.family.name;
    let n = v.num("n", 1.0).max(1.0);
    let d = dimension(family, v).max(1.0);
    let (generate_ops, data_numbers) = family_work(family, v, n, d);
    let (run_ops, work_numbers) = algorithm_work(study.algorithm.name, family, v, n, d);
    Work {
        generate_ops,
        run_ops,
        data_numbers,
        work_numbers,
    }
}

/// Estimated cost of one cell from its work, whose data set is shared by
/// `group_size` cells.
pub fn cell_cost(study: &Study, work: &Work, group_size: f64) -> CellCost {
    let k = constants::seconds_per_op(study.algorithm.name);
    CellCost {
        seconds: constants::SECONDS_PER_CELL
            + k * (work.run_ops + work.generate_ops / group_size.max(1.0)),
        bytes: 8.0 * (work.data_numbers + work.work_numbers),
    }
}

/// The number of cells sharing a data set: the grid points that differ only
/// in swept values that do not define the data (algorithm options, privacy
/// unless the family's data depend on it).
pub fn group_size(study: &Study) -> f64 {
    study
        .axes
        .iter()
        .filter(|a| !defines_data(study, a))
        .map(|a| a.values.len() as f64)
        .product()
}

fn defines_data(study: &Study, axis: &crate::validate::Axis) -> bool {
    match axis.target {
        Target::Problem => study
            .family
            .params
            .iter()
            .any(|p| p.name == axis.name && p.role == ParamRole::Data),
        Target::Privacy => study.family.privacy_defines_data,
        Target::Algorithm => false,
    }
}

/// Calls `f` with the index and values of every grid point of `study`, in
/// plan order (first axis slowest), without expanding the grid.
pub fn for_each_point(study: &Study, mut f: impl FnMut(usize, &PointValues)) {
    let mut problem = study.problem.clone();
    let mut options = study.options.clone();
    let total = study.axes.iter().map(|a| a.values.len()).product::<usize>();
    for index in 0..total {
        let mut privacy = study.privacy;
        let mut rest = index;
        for axis in study.axes.iter().rev() {
            let value = axis.values[rest % axis.values.len()];
            rest /= axis.values.len();
            match axis.target {
                Target::Problem => {
                    problem.insert(axis.name.clone(), Value::Num(value));
                }
                Target::Algorithm => {
                    options.insert(axis.name.clone(), Value::Num(value));
                }
                Target::Privacy => privacy = privacy.with(&axis.name, value),
            }
        }
        f(
            index,
            &PointValues {
                problem: &problem,
                options: &options,
                privacy,
            },
        );
    }
}

/// The estimate of one study.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyEstimate {
    /// Study name.
    pub name: String,
    /// Grid points.
    pub points: f64,
    /// Cells (points x repetitions).
    pub cells: f64,
    /// Estimated core-seconds of all its cells.
    pub core_seconds: f64,
    /// Estimated seconds of its most expensive cell.
    pub max_cell_seconds: f64,
    /// Estimated peak bytes of its most memory-hungry cell.
    pub peak_cell_bytes: f64,
    /// Index of the grid point of that cell.
    pub peak_point: usize,
    /// Estimated seconds of one cell at each grid point (plan order).
    pub point_seconds: Vec<f64>,
}

/// The estimate of a whole plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanEstimate {
    /// Per study, in experiment order.
    pub studies: Vec<StudyEstimate>,
}

impl PlanEstimate {
    /// Cells of the plan.
    pub fn cells(&self) -> f64 {
        self.studies.iter().map(|s| s.cells).sum()
    }

    /// Estimated core-seconds of the plan.
    pub fn core_seconds(&self) -> f64 {
        self.studies.iter().map(|s| s.core_seconds).sum()
    }

    /// Estimated peak bytes of a single cell.
    pub fn peak_cell_bytes(&self) -> f64 {
        self.studies
            .iter()
            .map(|s| s.peak_cell_bytes)
            .fold(0.0, f64::max)
    }

    /// Estimated wall seconds on `threads` workers: the core-seconds spread
    /// over the threads, but never less than the longest cell.
    pub fn wall_seconds(&self, threads: usize) -> f64 {
        let longest = self
            .studies
            .iter()
            .map(|s| s.max_cell_seconds)
            .fold(0.0, f64::max);
        (self.core_seconds() / threads.max(1) as f64).max(longest)
    }

    /// Estimated peak resident bytes of a run on `threads` workers: the
    /// process base, the records of every cell, and one data set per worker
    /// (the largest ones, as if they all ran at once).
    pub fn peak_bytes(&self, threads: usize) -> f64 {
        let mut largest: Vec<f64> = self.studies.iter().map(|s| s.peak_cell_bytes).collect();
        largest.sort_by(|a, b| b.total_cmp(a));
        let per_worker = largest.first().copied().unwrap_or(0.0) * threads.max(1) as f64;
        constants::BASE_BYTES + constants::BYTES_PER_CELL * self.cells() + per_worker
    }
}

/// Estimates one study: every grid point once, times the repetitions.
pub fn estimate_study(study: &Study) -> StudyEstimate {
    let group = group_size(study);
    let reps = study.repetitions as f64;
    let mut out = StudyEstimate {
        name: study.name.clone(),
        points: study.grid_size(),
        cells: study.grid_size() * reps,
        core_seconds: 0.0,
        max_cell_seconds: 0.0,
        peak_cell_bytes: 0.0,
        peak_point: 0,
        point_seconds: Vec::new(),
    };
    for_each_point(study, |index, v| {
        let cost = cell_cost(study, &cell_work(study, v), group);
        out.core_seconds += cost.seconds * reps;
        out.max_cell_seconds = out.max_cell_seconds.max(cost.seconds);
        if cost.bytes > out.peak_cell_bytes {
            out.peak_cell_bytes = cost.bytes;
            out.peak_point = index;
        }
        out.point_seconds.push(cost.seconds);
    });
    out
}

/// Estimates every study of `experiment`.
pub fn estimate(experiment: &Experiment) -> PlanEstimate {
    PlanEstimate {
        studies: experiment.studies.iter().map(estimate_study).collect(),
    }
}
