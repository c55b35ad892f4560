//! Empirical privacy audits of the Menart et al. entries (issue 25): for
//! every private entry, a worst-case replace-one pair of F-A
//! (`kl_mean_estimation`, `f(w; x) = ||w - x||^2/2`) instances built from
//! explicit records, the statistic the runner thresholds and the estimator.
//!
//! Every entry is `rho`-zCDP under replace-one (digest §1.6), and every
//! release goes through a clipped full-batch oracle (digest P1): the clip,
//! not the family's record ball, bounds the sensitivity. So the canary of
//! the gradient methods sits **far outside** F-A's ball of radius `R_x`, at
//! distance [`FAR`] `= 1e6` along `+e1` (replaced by `-e1`): its gradient
//! `w - x` has norm `~1e6 >> L0 = 3.75`, is clipped to exactly `-L0 e1`
//! (`+L0 e1` in `D'`) at every iterate the runs reach (their iterates stay
//! within `~1e2` of the origin), and the full gradient moves by the
//! calibrated `2 L0/n` on every query of every run. The other records are
//! far too, so their clipped gradients are constants: pairs at `+-FAR e1`
//! cancel, and "drift" records at `-FAR e2` add `+L0 e2/n` each. The
//! problem is then linear along the trajectory (constant clipped
//! gradients), the worst case of the sensitivity analysis. The Gaussian
//! mechanism on the clipped mean clips at `R_x` instead, so its canary is
//! `+-R_x e1` (on the clip boundary) beside `n - 1` records at the origin.
//!
//! The public constants are those of F-A at `start_distance = 1`,
//! `spread = 0.5`, `margin = 1.5`: `R_x = 1.5`, `L0 = 3.75`, `L1 = 1`,
//! `gamma = 1/sqrt 2`, `kappa = 2`, `F0 = 1.125` (data-independent, digest
//! P7; the far records make them false as utility constants, which no
//! privacy argument uses).
//!
//! # Settings (simulated: `rho = 0.0208`, claim `cks_eps(rho, 1e-5) = 0.811`,
//! alpha `1e-3`, seed 1, half the runs select the event)
//! - `kl_gaussian_mean`, `n = 101`, `d = 1`: 2e6 runs a side, 1 us a run:
//!   Gaussian-DP `eps_lb = 0.704` (the mechanism's exact `eps` is 0.741, the
//!   GDP curve of `mu = sqrt(2 rho)`). At `4 rho` claiming `rho` (half the
//!   noise), 2e5 runs a side: `eps_lb = 1.49`, a violation.
//! - `kl_dp_gd`, `n = 101`, `d = 1` (`T = 4`): 5e6 runs a side, 6-10 us:
//!   threshold `eps_lb = 0.359`; the random output iterate leaks less than the
//!   `T` releases the claim pays for.
//! - `kl_spider`, `n = 35`, `d = 2` (`K = 24`): 2e6 runs a side, 36 us:
//!   0.324. At `kappa = 2` there are no Spider differences, so the
//!   recommended calibration spends only `rho/2` (`eps` 0.508 as a Gaussian).
//!   `calibration = "paper"` (MUABG-A1) spends `2 rho` in its full gradients:
//!   the release's `e1` separation is 0.286 (`2 sqrt(rho)` = 0.288), `eps`
//!   about 1.05 against 0.811.
//! - `kl_adaptive_gd` / `kl_stationary_selection`, `n = 101`, `d = 2`: 2e6
//!   runs a side, 11 / 7 us: 0.111 / 0.032. `w_T` holds at most the gradient
//!   releases before the last step (about `rho/2`); the scalar norms and the
//!   selection's tied scores carry nothing here.
//! - `kl_proximal_point`, `n = 35`, `d = 1`: 0.7-0.85 ms a run, separation
//!   0.154; 5e4 runs a side certify nothing (-0.001); the budget allows 7e5.
//!
//! # Errata
//! - MUABG-A1 (`kl_spider`, `calibration = "paper"`): caught with
//!   `constants = "scaled"`, `floor_constant = 32`, `round_constant = 0.5`
//!   (`K = 4`; privacy-invariant, the printed `sigma_hat = L0 sqrt K/x` still
//!   spends `2 rho`), `n = 101`, `d = 2`: 1.2e7 runs a side at 8.4 us,
//!   seed 2: `eps_lb = 0.853 > 0.811` (5e6 runs a side gave 0.714).
//! - MUABG-A3n (`kl_adaptive_gd`, `calibration = "paper"`): not caught. On
//!   the balanced `d = 1` pair (`N_t` pure noise, half the steps at the
//!   floor) `n = 4001` averages 5 steps, and `w_T` mixes floor and non-floor
//!   steps: 1e5 runs a side give 0.083. Even with the noise schedule
//!   released the pair is (0.811, 2.5e-5)-DP (eps 0.912 at 1e-5), which a
//!   threshold audit of a Gaussian pair certifies only past ~3e7 runs a side.
//! - MUABG-T5 (`kl_stationary_selection`, `calibration = "paper"`): not a
//!   black-box violation at any number of runs: the printed weight makes the
//!   selection `2 sqrt(rho)`-DP (0.288 < 0.811 at delta = 0), and by bounded
//!   range `rho/2`-zCDP, inside its charge; the entry's excess spend comes
//!   from Algorithm 3's literal noise (1e6 runs a side: 0.129).

use contract::audit::{first_coordinate, AuditDef, AuditPair, AuditSetting, Estimator, Relation};
use contract::{Instance, Options, RunContext, Value, Values};
use datagen::menart::{MeanEstimation, MeanEstimationParams};
use dpcore::menart::KlObjective;
use dpcore::RunFailure;
use rand_pcg::Pcg64;
use solvers::menart::adaptive::AdaptiveNoisyGd;
use solvers::menart::dp_gd::DpGd;
use solvers::menart::spider::SpiderInputs;
use solvers::transcript::{Query, Transcript};

use super::common::{CalibrationOption, KlOptions};

/// `start_distance` `R0` of the audit instances (F-A's default).
const START_DISTANCE: f64 = 1.0;
/// `spread` `s` of the audit instances: `R_x = R0 + s = 1.5` (a stored data
/// set; `spread = 0` would be the virtual one, which holds no records).
const SPREAD: f64 = 0.5;
/// `margin` of the audit instances (F-A's default): `L0 = (1 + margin) R_x`.
const MARGIN: f64 = 1.5;
/// Distance of the far records: `1e6` exceeds `L0` plus any iterate's norm
/// by five orders of magnitude (DP-GD and Algorithm 3 move by `O(L0)` per
/// step over at most `n sqrt(rho)/2` steps, Algorithm 1 by at most its
/// trajectory radius, Algorithm 2 by `L0/(2 Lt1)` per round), so every
/// far record's clipped gradient is the constant `+-L0` along its axis (in
/// `d >= 2` up to a `1e-6` relative tilt, the same in `D` and `D'`).
pub const FAR: f64 = 1e6;

/// The F-A parameters of an audit instance.
fn params(n: usize, d: usize) -> MeanEstimationParams {
    MeanEstimationParams {
        n,
        d,
        start_distance: START_DISTANCE,
        spread: SPREAD,
        margin: MARGIN,
    }
}

/// The `kl_mean_estimation` values the runs' context carries (what the
/// family's builder validates: `n`, `d`, `start_distance`, `spread`,
/// `margin`).
fn problem_values(n: usize, d: usize) -> Values {
    [
        ("n", n as f64),
        ("d", d as f64),
        ("start_distance", START_DISTANCE),
        ("spread", SPREAD),
        ("margin", MARGIN),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Value::Num(v)))
    .collect()
}

/// The F-A instance on `rows`.
fn instance(n: usize, d: usize, rows: &[Vec<f64>]) -> Result<Instance, RunFailure> {
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    let problem =
        MeanEstimation::from_records(params(n, d), flat).map_err(RunFailure::InvalidParameters)?;
    Ok(Instance::KlObjective(Box::new(problem)))
}

/// `v e_axis` in dimension `d`.
fn along(d: usize, axis: usize, v: f64) -> Vec<f64> {
    let mut x = vec![0.0; d];
    x[axis] = v;
    x
}

/// The pair whose records are `rows` with row 0 replaced by `canary` in `D`
/// and by `replacement` in `D'`.
fn replace_one(
    setting: &AuditSetting,
    mut rows: Vec<Vec<f64>>,
    canary: Vec<f64>,
    replacement: Vec<f64>,
    description: String,
) -> Result<AuditPair, RunFailure> {
    let (n, d) = (setting.n, setting.d);
    let mut rows_prime = rows.clone();
    rows[0] = canary;
    rows_prime[0] = replacement;
    Ok(AuditPair {
        instances: [instance(n, d, &rows)?, instance(n, d, &rows_prime)?],
        records: [rows, rows_prime],
        relation: Relation::ReplaceOne,
        problem: problem_values(n, d),
        description,
    })
}

fn check_size(setting: &AuditSetting) -> Result<(), RunFailure> {
    if setting.n == 0 || setting.d == 0 {
        return Err(RunFailure::InvalidParameters(format!(
            "an audit pair needs n, d >= 1, got n = {}, d = {}",
            setting.n, setting.d
        )));
    }
    Ok(())
}

/// The Gaussian mechanism's pair: `n - 1` records at the origin, the canary
/// `+R_x e1` in `D` and `-R_x e1` in `D'` (both on the clip `C = R_x`).
fn gaussian_mean_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    check_size(setting)?;
    let (n, d) = (setting.n, setting.d);
    let rx = START_DISTANCE + SPREAD;
    replace_one(
        setting,
        vec![vec![0.0; d]; n],
        along(d, 0, rx),
        along(d, 0, -rx),
        format!(
            "F-A (R_x = {rx}), n - 1 = {} records at the origin; the canary +R_x e1 replaced by -R_x e1",
            n - 1
        ),
    )
}

/// The saturated pair: the canary `+FAR e1` (replaced by `-FAR e1`),
/// `drift` records at `-FAR e2` (clipped gradient `+L0 e2` each) and the
/// other `n - 1 - drift` records in cancelling pairs at `+-FAR e1`. Needs
/// `n - 1 - drift` even, and `d >= 2` when `drift > 0`.
fn saturated_pair(setting: &AuditSetting, drift: usize) -> Result<AuditPair, RunFailure> {
    check_size(setting)?;
    let (n, d) = (setting.n, setting.d);
    if drift > 0 && d < 2 {
        return Err(RunFailure::InvalidParameters(format!(
            "this audit pair puts {drift} records along e2: it needs d >= 2, got d = {d}"
        )));
    }
    let balanced = n - 1 - drift.min(n - 1);
    if drift > n - 1 || balanced % 2 == 1 {
        return Err(RunFailure::InvalidParameters(format!(
            "this audit pair needs n - 1 - {drift} >= 0 and even (records in cancelling pairs at \
             +-FAR e1), got n = {n}"
        )));
    }
    let mut rows = Vec::with_capacity(n);
    rows.push(vec![0.0; d]); // the canary's slot
    rows.extend((0..drift).map(|_| along(d, 1, -FAR)));
    rows.extend((0..balanced).map(|i| along(d, 0, if i % 2 == 0 { FAR } else { -FAR })));
    let drift_text = if drift > 0 {
        format!("{drift} records at -1e6 e2 (clipped gradient +L0 e2 each), ")
    } else {
        String::new()
    };
    replace_one(
        setting,
        rows,
        along(d, 0, FAR),
        along(d, 0, -FAR),
        format!(
            "F-A constants (L0 = 3.75), {drift_text}{balanced} records in cancelling pairs at +-1e6 e1; \
             the canary +1e6 e1 (clipped gradient -L0 e1) replaced by -1e6 e1 (+L0 e1)"
        ),
    )
}

/// DP-GD and Algorithm 2: no drift records (the full gradient is
/// `-+L0 e1/n`), any `d`, `n` odd.
fn balanced_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    saturated_pair(setting, 0)
}

/// Algorithms 1 and 3, Theorem 5: every other record drifts along `e2`
/// (`d >= 2`), so the full gradient `(-+L0/n, (n - 1) L0/n)` has the same
/// large norm in `D` and `D'`. Algorithm 1's normalized step then has an
/// `e1` part nearly linear in the noisy gradient's `e1` part, and Algorithm
/// 3's noisy norm `N_t` stays near `L0`, far from the floor, and does not
/// depend on the canary.
fn drift_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    saturated_pair(setting, setting.n.saturating_sub(1))
}

/// Algorithm 3: the drift pair, except for the paper-literal calibration,
/// whose erratum MUABG-A3n needs negative noisy norms, and in dimension 1
/// (the drift pair needs `d >= 2`): there the balanced pair (full-gradient
/// norm `L0/n`, far below `sigma_hat`) puts half the steps' `N_t` below 0,
/// so the transcript audits of the printed and the corrected rule see the
/// same pair (the corrected rule stops at its first floor step, whose
/// gradient release costs `rho/4`).
fn adaptive_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    match KlOptions::read(setting.options)?.calibration {
        CalibrationOption::Paper => balanced_pair(setting),
        CalibrationOption::Recommended if setting.d == 1 => balanced_pair(setting),
        CalibrationOption::Recommended => drift_pair(setting),
    }
}

/// The audit of `kl_gaussian_mean`.
pub(crate) const GAUSSIAN_MEAN: AuditDef = AuditDef {
    pair: gaussian_mean_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "The canary +-R_x e1 sits on the clip C = R_x and moves the clipped mean by the full \
             replace-one sensitivity 2 R_x/n along e1; the release's first coordinate is that mean plus \
             N(0, sigma^2), exactly Gaussian with a pure mean shift (mu = sqrt(2 rho)), so the Gaussian-DP fit applies.",
};

/// The privacy loss ([`TranscriptLoss`]) of the transcript `run` reports
/// on side `side`'s instance.
fn transcript_loss(
    pair: &AuditPair,
    side: usize,
    run: impl FnOnce(&dyn KlObjective, &mut TranscriptLoss) -> Result<(), RunFailure>,
) -> Result<f64, RunFailure> {
    let problem = kl_side(pair, side)?;
    let mut loss = TranscriptLoss::new(pair, side, pair.records[side].len(), problem.dim())?;
    run(problem, &mut loss)?;
    Ok(loss.loss)
}

/// `kl_dp_gd`'s transcript on side `side`: its privacy loss over the `T`
/// noisy gradients.
fn dp_gd_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    transcript_loss(pair, side, |problem, loss| {
        DpGd.run_observed(problem, ctx.privacy.rho(), loss, rng)
            .map(|_| ())
    })
}

/// `kl_proximal_point`'s transcript on side `side`: its privacy loss over
/// every noisy gradient of every call of Algorithm 4.
fn proximal_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let o = super::known::ProximalOptions::read(ctx.options)?;
    transcript_loss(pair, side, |problem, loss| {
        super::known::proximal_point(&o)
            .run_observed(problem, ctx.privacy.rho(), o.beta, loss, rng)
            .map(|_| ())
    })
}

/// The audit of `kl_dp_gd`.
pub(crate) const DP_GD: AuditDef = AuditDef {
    pair: balanced_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(dp_gd_transcript),
    method: "Every record is far outside the clip, so each clipped gradient is a constant and the \
             canary moves every full gradient by the calibrated 2 L0/n along e1: the run is linear and \
             w_R's first coordinate shifts by R 2 L0/(n L1). The output iterate R is uniform on \
             {0..T-1} (a mixture, not one Gaussian), hence the threshold estimator. Its transcript \
             statistic is the privacy loss of the T noisy gradients (what the ledger charges): on this \
             pair each moves by exactly the calibrated sensitivity, so the loss is that of one Gaussian \
             with mu = sqrt(2 rho), the tightest the claim allows.",
};

/// The privacy loss of a transcript of Gaussian releases between the two
/// sides of a replace-one pair: for each release `y ~ N(m, sigma^2 I)`,
/// `(|y - m'|^2 - |y - m|^2)/(2 sigma^2)` with `m`, `m'` the released
/// quantity at the query point on `D` and `D'`. Every choice an adaptive
/// algorithm makes (the next point, the next noise scale, the stop) is a
/// function of earlier releases, so the transcript's likelihood ratio is the
/// product of the releases' and this sum is its logarithm: the most powerful
/// statistic for telling `D` from `D'` (Neyman–Pearson).
///
/// The run's own clipped mean gradient comes with each release; the other
/// side's differs only by the differing record's clipped gradient over `n`
/// (row 0 of every pair here), so each release costs `O(d)`, not a second
/// pass over the records.
struct TranscriptLoss {
    side: usize,
    n: f64,
    /// The differing record of `D` and of `D'`, each as a one-record
    /// instance (its clipped mean gradient is the record's clipped gradient).
    records: [Box<dyn KlObjective>; 2],
    buffers: [Vec<f64>; 2],
    loss: f64,
}

impl TranscriptLoss {
    fn new(pair: &AuditPair, side: usize, n: usize, d: usize) -> Result<Self, RunFailure> {
        let record = |k: usize| -> Result<Box<dyn KlObjective>, RunFailure> {
            match instance(1, d, &pair.records[k][..1])? {
                Instance::KlObjective(p) => Ok(p),
                _ => unreachable!("instance() builds a KL objective"),
            }
        };
        Ok(Self {
            side,
            n: n as f64,
            records: [record(0)?, record(1)?],
            buffers: [vec![0.0; d], vec![0.0; d]],
            loss: 0.0,
        })
    }
}

impl Transcript for TranscriptLoss {
    fn gaussian(
        &mut self,
        query: Query,
        at: &[f64],
        gradient: &[f64],
        released: &[f64],
        sigma: f64,
    ) {
        let d = gradient.len();
        let clip = match query {
            Query::ClippedMeanGradient { clip } | Query::ClippedMeanGradientNorm { clip } => clip,
            Query::ClippedMeanGradientDifference { clip } => {
                // `at` is `w'` then `w`: each side's record term is its
                // clipped gradient difference between them.
                let (to, from) = at.split_at(d);
                for k in 0..2 {
                    self.records[k].clipped_mean_gradient_difference(
                        to,
                        from,
                        clip,
                        &mut self.buffers[k],
                    );
                }
                self.add_release(gradient, released, sigma);
                return;
            }
            _ => {
                // No Menart algorithm subsamples or scores halfspaces: a NaN
                // loss fails the audit's run loudly rather than mis-scoring it.
                self.loss = f64::NAN;
                return;
            }
        };
        for k in 0..2 {
            self.records[k].clipped_mean_gradient(at, clip, &mut self.buffers[k]);
        }
        if let Query::ClippedMeanGradientNorm { .. } = query {
            self.add_norm_release(gradient, released, sigma);
        } else {
            self.add_release(gradient, released, sigma);
        }
    }
}

impl TranscriptLoss {
    /// The mean on side `k`: this run's, moved by the differing record's
    /// change (its term, one record's, is in `buffers`).
    fn side_mean(&self, own_mean: &[f64], k: usize) -> Vec<f64> {
        own_mean
            .iter()
            .zip(&self.buffers[k])
            .zip(&self.buffers[self.side])
            .map(|((g, a), b)| g + (a - b) / self.n)
            .collect()
    }

    fn add_loss(&mut self, released: &[f64], m: &[f64], m_prime: &[f64], sigma: f64) {
        let dist2 =
            |m: &[f64]| -> f64 { released.iter().zip(m).map(|(y, a)| (y - a) * (y - a)).sum() };
        self.loss += (dist2(m_prime) - dist2(m)) / (2.0 * sigma * sigma);
    }

    /// A vector release whose mean is the records' mean term.
    fn add_release(&mut self, own_mean: &[f64], released: &[f64], sigma: f64) {
        let (m, m_prime) = (self.side_mean(own_mean, 0), self.side_mean(own_mean, 1));
        self.add_loss(released, &m, &m_prime, sigma);
    }

    /// A scalar release of the norm of the records' mean term.
    fn add_norm_release(&mut self, own_mean: &[f64], released: &[f64], sigma: f64) {
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let m = [norm(&self.side_mean(own_mean, 0))];
        let m_prime = [norm(&self.side_mean(own_mean, 1))];
        self.add_loss(released, &m, &m_prime, sigma);
    }
}

fn kl_side(pair: &AuditPair, side: usize) -> Result<&dyn KlObjective, RunFailure> {
    match &pair.instances[side] {
        Instance::KlObjective(p) => Ok(p.as_ref()),
        _ => Err(RunFailure::InvalidParameters(
            "a Menart transcript audit needs a KL objective pair".into(),
        )),
    }
}

/// Algorithm 3's transcript on side `side`: its privacy loss
/// ([`TranscriptLoss`]) over every noisy norm and noisy gradient.
fn adaptive_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let KlOptions { calibration, beta } = KlOptions::read(ctx.options)?;
    let algorithm = AdaptiveNoisyGd {
        calibration: calibration.into(),
        ..AdaptiveNoisyGd::default()
    };
    transcript_loss(pair, side, |problem, loss| {
        algorithm
            .run_observed(problem, ctx.privacy.rho(), beta, loss, rng)
            .map(|_| ())
    })
}

/// The audit of `kl_adaptive_gd`.
pub(crate) const ADAPTIVE_GD: AuditDef = AuditDef {
    pair: adaptive_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(adaptive_transcript),
    method: "Far records make every clipped gradient constant: the canary moves each gradient release \
             by the calibrated 2 L0/n along e1, and n - 1 records at -1e6 e2 give the full gradient the same \
             norm (about L0) in D and D', so the noisy norms N_t, the noise schedule and the stop do not depend \
             on the canary and w_T's first coordinate sums the shifts (paper calibration: no drift records, so \
             half the N_t are negative, MUABG-A3n). The schedule is random (a mixture of Gaussians): \
             threshold estimator. Its transcript statistic is the privacy loss of every noisy norm and \
             noisy gradient (what Theorem 3 certifies), for the same reason audited by threshold.",
};

/// The audit of `kl_stationary_selection`.
pub(crate) const STATIONARY_SELECTION: AuditDef = AuditDef {
    pair: drift_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: None,
    method: "As for kl_adaptive_gd: constant clipped gradients shifted by 2 L0/n along e1 at every query, \
             with the same norm in D and D' at every query point (the selection's scores tie, so it picks a \
             uniform query point, and Algorithm 3's trajectory carries the canary). A mixture over the schedule \
             and the selected point: threshold estimator.",
};

/// `kl_spider`'s transcript on side `side`: its privacy loss over every
/// noisy full gradient and noisy Spider difference.
fn spider_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let (algorithm, beta) = super::known::spider_of(ctx.options)?;
    transcript_loss(pair, side, |problem, loss| {
        let inputs = SpiderInputs::from_problem(problem, ctx.privacy.rho(), beta)?;
        algorithm
            .run_with_observed(problem, inputs, loss, rng)
            .map(|_| ())
    })
}

/// The audit of `kl_spider`.
pub(crate) const SPIDER: AuditDef = AuditDef {
    pair: drift_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(spider_transcript),
    method: "Far records make every clipped gradient constant: the canary shifts each noisy full gradient \
             by the calibrated 2 L0/n along e1, and the n - 1 records at -1e6 e2 give it a large e2 component, \
             so the normalized step's e1 part is close to linear in the noisy e1 gradient (F-A's Spider \
             differences are the same for every record and carry nothing). Normalization makes the \
             release non-Gaussian: threshold estimator.",
};

/// The audit of `kl_proximal_point`.
pub(crate) const PROXIMAL_POINT: AuditDef = AuditDef {
    pair: balanced_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(proximal_transcript),
    method: "Far records make every clipped gradient constant: the canary shifts each of the T T_in noisy \
             gradients of Algorithm 4 by the calibrated 2 L0/n along e1, and the weighted averages carry the \
             shift to w_T. Algorithm 4's projection binds on the first inner steps, so the release is not \
             exactly Gaussian: threshold estimator.",
};
