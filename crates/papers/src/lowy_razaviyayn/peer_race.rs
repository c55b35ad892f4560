//! `runner peer-race <file>`: the harness's side of the peer race of
//! `scripts/peers/race.py` (numpy, scipy and diffprivlib on the same data and
//! parameters).
//!
//! Input: a labelled matrix in the format of `runner removal-margin` (HDF5
//! `/features` `n x d` and `/labels` `±1`, or CSV), read by
//! [`crate::wang::removal_margin::read_labelled`]. Rows must have norm `<= 1`.
//! Both tasks work on the L2-regularized logistic objective of the
//! Lowy–Razaviyayn family, `F(w) = (1/n) sum_i softplus(-y_i <w, x_i>) +
//! (mu/2) ||w||^2` ([`datagen::logistic::Logistic`]):
//!
//! - `--task gd`: `T` steps of full-batch noisy GD,
//!   [`solvers::full_batch_gd::FullBatchNoisyGd`] (`(eps, delta)`-DP, GDP
//!   calibration, clipping `C = 1`, step `1/(1/4 + mu)` unless given, last
//!   iterate). Timed: building the rows (validation, row norms) and the `T`
//!   steps; the calibration is computed once, before the timer.
//! - `--task op`: pure `eps`-DP output perturbation of a certified
//!   approximate minimizer, [`solvers::CertifiedOutputPerturbation`]: the
//!   centre is solved to `||grad F|| <= gtol` (`--gtol`, default `1e-10`,
//!   scipy's `gtol` in the race) by
//!   [`datagen::logistic::Logistic::from_data_certified_fast`] (L-BFGS on the
//!   plain fused value-and-gradient pass, the certificate adding its rigorous
//!   rounding-error bound; the compensated solve as the fallback), and the noise is calibrated to the tight
//!   sensitivity `2/(mu n)` widened by `2 gtol/mu` (the centre lies within
//!   `gtol/mu` of `w*` on every data set): `l2`-Laplace noise with
//!   `Gamma(d, Delta_T/eps)` radius and uniform direction. Timed: building
//!   the problem (validation and the solve) and the release.
//!
//! Excess risk: `F(w) - F(w*)` by the family's cancellation-free
//! [`dpcore::Objective::excess_risk`], where `w*` is the certified Newton
//! minimizer computed once, untimed (the `optimum` of the output).
//!
//! Output: one JSON object on stdout (and in `--out` if given) with the
//! parameters, the calibration, the optimum (`w*`, `F(w*)`, its gradient-norm
//! certificate and solve time), the file-reading time (never part of a run's
//! time), and per repetition the seed, compute seconds, excess risk, `||w||`
//! and `w`. Repetition `r` draws its noise from `Pcg64` seeded with `seed + r`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use datagen::logistic::{LabelledData, Logistic};
use dpcore::{Objective, PrivacyParams};
use solvers::full_batch_gd::{FullBatchCalibration, FullBatchNoisyGd, LogisticRows};
use solvers::{CertifiedOutputPerturbation, ConceptualOutputPerturbation, SensitivityChoice};

use crate::wang::removal_margin::{read_labelled, LabelledMatrix};
use contract::seeds::rng_from_seed;

/// The task of a peer race.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PeerTask {
    /// `T` steps of full-batch noisy gradient descent, `(eps, delta)`-DP.
    Gd,
    /// Output perturbation of the exact regularized minimizer, pure `eps`-DP.
    Op,
}

impl PeerTask {
    fn name(self) -> &'static str {
        match self {
            PeerTask::Gd => "gd",
            PeerTask::Op => "op",
        }
    }
}

/// Options of `runner peer-race`.
#[derive(Debug, Args, Clone)]
pub struct PeerRaceArgs {
    /// Labelled feature matrix: HDF5 (/features n x d, /labels ±1) or CSV (label,f0,f1,...); rows of norm <= 1.
    pub file: PathBuf,
    /// Task: `gd` (full-batch noisy GD) or `op` (output perturbation).
    #[arg(long, value_enum)]
    pub task: PeerTask,
    /// L2 regularization mu of the logistic objective (diffprivlib's C = 1/(n mu)).
    #[arg(long, default_value_t = 0.01)]
    pub mu: f64,
    /// Privacy parameter eps.
    #[arg(long, default_value_t = 1.0)]
    pub eps: f64,
    /// Privacy parameter delta (task gd; op is pure eps-DP).
    #[arg(long, default_value_t = 1e-6)]
    pub delta: f64,
    /// Gradient-norm certificate of the output-perturbation centre (task op);
    /// the noise is calibrated to 2/(mu n) + 2 gtol/mu.
    #[arg(long, default_value_t = 1e-10)]
    pub gtol: f64,
    /// Number of GD steps T (task gd).
    #[arg(long, default_value_t = 100)]
    pub steps: u64,
    /// GD step size (task gd; default 1/(1/4 + mu), the inverse smoothness).
    #[arg(long)]
    pub step_size: Option<f64>,
    /// Seed of the noise; repetition r uses seed + r.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Timed repetitions.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Worker threads of the rayon pool (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Task gd without noise (plain clipped GD, NOT private): for checking the iterates.
    #[arg(long)]
    pub noiseless: bool,
    /// Also write the JSON to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Bad input to `runner peer-race` (exit code 2): flags or data.
pub use crate::InputError as PeerRaceInputError;

fn input_error(msg: String) -> anyhow::Error {
    PeerRaceInputError(msg).into()
}

/// One timed repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct RaceRun {
    /// Seed of the repetition's noise.
    pub seed: u64,
    /// Seconds of compute (module doc: what is timed).
    pub seconds: f64,
    /// `F(w) - F(w*)`.
    pub excess_risk: f64,
    /// The released vector.
    pub w: Vec<f64>,
    /// Task op: `||grad F||` of the centre the noise was added to (`None`
    /// for gd, printed as `null`).
    pub certified_grad_norm: Option<f64>,
}

/// The noise calibration a race used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RaceCalibration {
    /// Task gd (`sigma = 0` and no privacy when noiseless).
    Gd(FullBatchCalibration),
    /// Task op: sensitivity `2/(mu n) + 2 gtol/mu` and radius scale `Delta_T/eps`.
    Op {
        /// Replace-one sensitivity of the released centre, widened.
        sensitivity: f64,
        /// The widening `2 gtol/mu` inside `sensitivity`.
        widening: f64,
        /// The certificate every centre meets: `||grad F|| <= gtol`.
        gtol: f64,
        /// Scale of the `Gamma(d, scale)` noise radius.
        scale: f64,
    },
}

/// Everything `runner peer-race` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct RaceReport {
    /// The task.
    pub task: PeerTask,
    /// Records `n`.
    pub n: usize,
    /// Dimension `d`.
    pub d: usize,
    /// Threads of the pool the compute ran on.
    pub threads: usize,
    /// GD steps (task gd; 0 for op).
    pub steps: u64,
    /// GD step size (task gd; `None` for op).
    pub step_size: Option<f64>,
    /// The calibration.
    pub calibration: RaceCalibration,
    /// Whether the noise was calibrated (false only for `--noiseless`).
    pub private: bool,
    /// The certified minimizer `w*` of `F`.
    pub optimum: Vec<f64>,
    /// `F(w*)`.
    pub optimum_value: f64,
    /// `||grad F(w*)||`, the certificate.
    pub optimum_grad_norm: f64,
    /// Seconds of the (untimed) reference solve.
    pub optimum_seconds: f64,
    /// Seconds spent reading the file (not in any run's time).
    pub read_seconds: f64,
    /// The repetitions.
    pub runs: Vec<RaceRun>,
}

fn check_args(a: &PeerRaceArgs) -> Result<()> {
    let pos = |v: f64| v.is_finite() && v > 0.0;
    if !pos(a.mu) {
        return Err(input_error(format!("--mu {} must be finite and > 0", a.mu)));
    }
    if !pos(a.eps) {
        return Err(input_error(format!(
            "--eps {} must be finite and > 0",
            a.eps
        )));
    }
    if a.repeats == 0 {
        return Err(input_error("--repeats must be >= 1".into()));
    }
    if !pos(a.gtol) {
        return Err(input_error(format!(
            "--gtol {} must be finite and > 0",
            a.gtol
        )));
    }
    if a.task == PeerTask::Gd {
        if !(a.delta > 0.0 && a.delta < 1.0) {
            return Err(input_error(format!(
                "--delta {} must lie in (0, 1) for task gd",
                a.delta
            )));
        }
        if a.steps == 0 {
            return Err(input_error("--steps must be >= 1".into()));
        }
        if let Some(eta) = a.step_size.filter(|&e| !pos(e)) {
            return Err(input_error(format!(
                "--step-size {eta} must be finite and > 0"
            )));
        }
    } else if a.noiseless {
        return Err(input_error(
            "--noiseless applies to task gd only (op without noise is the exact minimizer)".into(),
        ));
    }
    Ok(())
}

fn labelled(m: &LabelledMatrix) -> Result<LabelledData> {
    LabelledData::from_rows(m.d, m.features.clone(), m.labels.clone()).map_err(input_error)
}

/// Runs the race on an in-memory matrix (`read_seconds` is set to 0).
///
/// # Errors
/// [`PeerRaceInputError`] for invalid flags or data (rows of norm above 1,
/// labels other than `±1`); other errors for a failing solver or thread pool.
pub fn race(args: &PeerRaceArgs, m: &LabelledMatrix) -> Result<RaceReport> {
    check_args(args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("building the thread pool")?;
    pool.install(|| race_on_pool(args, m, pool.current_num_threads()))
}

fn race_on_pool(args: &PeerRaceArgs, m: &LabelledMatrix, threads: usize) -> Result<RaceReport> {
    let t0 = Instant::now();
    let reference = Logistic::from_data(labelled(m)?, args.mu)
        .map_err(|e| anyhow::anyhow!("reference optimum: {e}"))?;
    let optimum_seconds = t0.elapsed().as_secs_f64();
    let n = m.labels.len();
    let seeds = (0..args.repeats as u64).map(|r| args.seed.wrapping_add(r));
    let mut runs = Vec::with_capacity(args.repeats);
    let (steps, step_size, calibration) = match args.task {
        PeerTask::Gd => {
            let mut gd = FullBatchNoisyGd::logistic(args.steps, args.mu);
            if let Some(eta) = args.step_size {
                gd.step_size = eta;
            }
            let privacy = PrivacyParams::approx(args.eps, args.delta);
            let mut cal = gd.calibrate(n, privacy)?;
            if args.noiseless {
                cal.sigma = 0.0;
            }
            for seed in seeds {
                let mut rng = rng_from_seed(seed);
                let start = Instant::now();
                let rows = LogisticRows::new(&m.features, &m.labels, m.d)?;
                let run = gd.run_with_sigma(&rows, cal.sigma, &mut rng)?;
                runs.push(finished(seed, start, run.w, None, &reference));
            }
            (gd.steps, Some(gd.step_size), RaceCalibration::Gd(cal))
        }
        PeerTask::Op => {
            let mechanism = CertifiedOutputPerturbation {
                sensitivity: SensitivityChoice::Tight,
                gradient_target: args.gtol,
            };
            let privacy = PrivacyParams::pure(args.eps);
            let sensitivity =
                mechanism.widened_sensitivity(reference.minimizer_sensitivity(), args.mu);
            let calibration = RaceCalibration::Op {
                sensitivity,
                widening: mechanism.widening(args.mu),
                gtol: args.gtol,
                scale: ConceptualOutputPerturbation::noise_scale(sensitivity, privacy)?,
            };
            for seed in seeds {
                let mut rng = rng_from_seed(seed);
                let (x, y) = (m.features.clone(), m.labels.clone());
                let start = Instant::now();
                let data = LabelledData::from_rows(m.d, x, y).map_err(input_error)?;
                let problem = Logistic::from_data_certified_fast(data, args.mu, args.gtol)
                    .map_err(|e| anyhow::anyhow!("output perturbation solve: {e}"))?;
                let cert = problem.certified_gradient_norm();
                let release = mechanism.run(&problem, cert, privacy, &mut rng)?;
                runs.push(finished(seed, start, release.w, Some(cert), &reference));
            }
            (0, None, calibration)
        }
    };
    Ok(RaceReport {
        task: args.task,
        n,
        d: m.d,
        threads,
        steps,
        step_size,
        calibration,
        private: !args.noiseless,
        optimum: reference.minimizer().to_vec(),
        optimum_value: reference.value(reference.minimizer()),
        optimum_grad_norm: reference.certified_gradient_norm(),
        optimum_seconds,
        read_seconds: 0.0,
        runs,
    })
}

/// A repetition that started at `start` and released `w`: its time is
/// taken first, so scoring `w` against the reference is not timed.
fn finished(
    seed: u64,
    start: Instant,
    w: Vec<f64>,
    certified_grad_norm: Option<f64>,
    reference: &Logistic,
) -> RaceRun {
    let seconds = start.elapsed().as_secs_f64();
    RaceRun {
        seed,
        seconds,
        excess_risk: reference.excess_risk(&w),
        w,
        certified_grad_norm,
    }
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:e}")
    } else {
        "null".into()
    }
}

/// An absent value as JSON `null`, like a non-finite one.
fn opt_num(v: Option<f64>) -> String {
    v.map_or_else(|| "null".into(), num)
}

fn vector(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|&x| num(x)).collect();
    format!("[{}]", items.join(","))
}

/// A synthetic race file: `n x d` rows uniform in `[-1, 1]^d` scaled into the
/// unit ball, labels `sign(3 x_0 + U[-1, 1])` (a noisy linear model), from
/// the Pcg64 stream of `seed`. Used by the tests of the race on both sides of
/// the command line, and handy for a first `runner peer-race`.
pub fn synthetic_matrix(n: usize, d: usize, seed: u64) -> LabelledMatrix {
    use rand::RngExt;
    let mut rng = rng_from_seed(seed);
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let scale = row.iter().map(|v| v * v).sum::<f64>().sqrt().max(1.0);
        features.extend(row.iter().map(|v| v / scale));
        let logit = 3.0 * row[0] / scale + rng.random_range(-1.0..1.0);
        labels.push(if logit > 0.0 { 1.0 } else { -1.0 });
    }
    LabelledMatrix {
        d,
        features,
        labels,
    }
}

/// The median of `v` (mean of the middle two for even length); `None` if
/// empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => None,
        k if k % 2 == 1 => Some(s[k / 2]),
        k => Some(0.5 * (s[k / 2 - 1] + s[k / 2])),
    }
}

impl RaceReport {
    /// The JSON object `runner peer-race` prints (module doc).
    pub fn to_json(&self, args: &PeerRaceArgs) -> String {
        let mut s = String::from("{\n");
        let _ = writeln!(
            s,
            "  \"implementation\": \"harness\",\n  \"task\": \"{}\",\n  \"n\": {},\n  \"d\": {},\n  \
             \"threads\": {},\n  \"mu\": {},\n  \"eps\": {},",
            self.task.name(),
            self.n,
            self.d,
            self.threads,
            num(args.mu),
            num(args.eps)
        );
        match self.calibration {
            RaceCalibration::Gd(c) => {
                let _ = writeln!(
                    s,
                    "  \"delta\": {},\n  \"steps\": {},\n  \"step_size\": {},\n  \"private\": {},\n  \
                     \"calibration\": {{\"accountant\": \"gdp\", \"sensitivity\": {}, \"gdp_mu\": {}, \
                     \"sigma\": {}, \"realised_eps\": {}}},",
                    num(args.delta),
                    self.steps,
                    opt_num(self.step_size),
                    self.private,
                    num(c.sensitivity),
                    num(c.gdp_mu),
                    num(c.sigma),
                    num(c.realised_eps)
                );
            }
            RaceCalibration::Op {
                sensitivity,
                widening,
                gtol,
                scale,
            } => {
                let _ = writeln!(
                    s,
                    "  \"private\": {},\n  \"calibration\": {{\"mechanism\": \"l2-laplace\", \
                     \"sensitivity\": {}, \"widening\": {}, \"gtol\": {}, \"scale\": {}}},",
                    self.private,
                    num(sensitivity),
                    num(widening),
                    num(gtol),
                    num(scale)
                );
            }
        }
        let _ = writeln!(
            s,
            "  \"optimum\": {{\"value\": {}, \"grad_norm\": {}, \"seconds\": {}, \"w\": {}}},\n  \
             \"read_seconds\": {},",
            num(self.optimum_value),
            num(self.optimum_grad_norm),
            num(self.optimum_seconds),
            vector(&self.optimum),
            num(self.read_seconds)
        );
        let seconds: Vec<f64> = self.runs.iter().map(|r| r.seconds).collect();
        let mean_excess =
            self.runs.iter().map(|r| r.excess_risk).sum::<f64>() / self.runs.len().max(1) as f64;
        let _ = writeln!(
            s,
            "  \"median_seconds\": {},\n  \"mean_excess_risk\": {},\n  \"runs\": [",
            opt_num(median(&seconds)),
            num(mean_excess)
        );
        for (i, r) in self.runs.iter().enumerate() {
            let norm = r.w.iter().map(|v| v * v).sum::<f64>().sqrt();
            let _ = writeln!(
                s,
                "    {{\"seed\": {}, \"seconds\": {}, \"excess_risk\": {}, \"norm\": {}, \
                 \"certified_grad_norm\": {}, \"w\": {}}}{}",
                r.seed,
                num(r.seconds),
                num(r.excess_risk),
                num(norm),
                opt_num(r.certified_grad_norm),
                vector(&r.w),
                if i + 1 < self.runs.len() { "," } else { "" }
            );
        }
        s.push_str("  ]\n}\n");
        s
    }
}

fn read(path: &Path) -> Result<LabelledMatrix> {
    if !path.exists() {
        return Err(input_error(format!("no such file {}", path.display())));
    }
    read_labelled(path).map_err(|e| input_error(format!("{e:#}")))
}

/// Runs the subcommand: reads the file, races, prints (and writes) the JSON.
///
/// # Errors
/// As [`race`], plus unreadable input ([`PeerRaceInputError`]) or an
/// unwritable `--out`.
pub fn run(args: &PeerRaceArgs) -> Result<()> {
    check_args(args)?;
    let t0 = Instant::now();
    let m = read(&args.file)?;
    let read_seconds = t0.elapsed().as_secs_f64();
    let mut report = race(args, &m)?;
    report.read_seconds = read_seconds;
    let json = report.to_json(args);
    if let Some(out) = &args.out {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(out, &json).with_context(|| format!("writing {}", out.display()))?;
    }
    print!("{json}");
    Ok(())
}
