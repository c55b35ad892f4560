//! Empirical privacy audits of the private Wang–Zhu–Wang entries (issue 25):
//! the worst-case replace-one pair every one of them is audited on.
//!
//! # The pair
//! `n - 1` shared records with zero features (label `+1`) and one canary at
//! the data-norm bound `b = 1` along `e1`: `(e1, +1)` in `D`, `(e1, -1)` in
//! `D'` (the opposite label). Why this is the worst case for every entry:
//! - a zero row's hinge subgradient `-y x/c` is 0 at every `w` and its JL
//!   image is 0, so the summed gradient of NGD is the canary's alone and
//!   `D` and `D'` differ by `2 ||Phi e1||/c` in every step where the canary's
//!   hinge is active (all steps near `w = 0`): the whole replace-one
//!   sensitivity the analysis allows, up to the clip radius (below);
//! - a zero row is a tie `y <w, 0> = 0`, an error at every `w` (digest P9),
//!   so the 0-1 score that selects a candidate (`M*`, `M'`, tuned B1)
//!   differs between `D` and `D'` only through the canary, and selection
//!   prefers, on `D`, the candidates with `w_1 > 0` (canary right) and on
//!   `D'` those with `w_1 < 0`: it widens the gap the statistic sees;
//! - `(Phi^T w~)_1 = <Phi e1, w~>` and `||Phi e1|| = 1` exactly for the
//!   Rademacher map (`k` entries `±1/sqrt(k)`) as for the identity, so the
//!   statistic, the release's first coordinate, is the canary's margin, the
//!   coordinate its gradient moves.
//!
//! # What the analyses leave on the table (why `eps_lb` stays far below the claim)
//! - JLGD clips `Phi x` to `2b` for every `Phi` (P3) and is calibrated for
//!   `Delta = 2 (2b)/c`; a record of norm `b` has `||Phi x|| = b` for `x = e1`
//!   (and `E ||Phi x||^2 = ||x||^2` for every `x`), so no record a black-box
//!   pair can choose reaches the clip: the realised sensitivity is `Delta/2`.
//!   Full-dimension DP-GD at `radius_factor = 1` is the only entry whose
//!   clip binds at `||x|| = b` (`Delta = 2b/c` exact).
//! - The averaged iterate `(1/T) sum_{t<T} w_t` (with `w_0 = 0`, P12) of a
//!   linear drift keeps at most `sqrt(3)/2` of the GDP of the last iterate
//!   (`sqrt(6 (T-1)/(2T-1))/2` at `T` steps: `1/sqrt 2` at `T = 2`), and at
//!   `T = 1` it is `w_0 = 0` whatever the data.
//! - The paper's conversion `mu = eps/(2 sqrt(2 ln(1/delta)))` (Cor. E.2)
//!   gives `mu = 0.104` at `(1, 1e-5)` where the exact curve allows `0.268`.
//! - `M*` releases one of `|Gamma|` candidates, each at `mu/sqrt(2|Gamma|)`;
//!   `M'` one of `K ~ Geometric(r)` runs at `mu/sqrt 2` with Papernot–Steinke's
//!   `mu = eps/(6 sqrt(2 ln(1/(r delta))))`.
//!
//! # Estimator
//! The threshold audit for every entry. The statistic is Gaussian with a pure
//! mean shift only while the canary's hinge `y <z, w_t> < c` stays active on
//! both sides; the step size makes `w_t`'s noise comparable to `c` at the
//! JL dimension `k ~ ln(n)/gamma^2` (the canary's margin noise at the end is
//! about `1/sqrt(1 + k)` against `c = gamma/3`), so the hinge switches off
//! with non-negligible probability and the release is not exactly Gaussian;
//! selection over candidates (`M*`, `M'`, tuned B1) makes it a data-dependent
//! mixture on top.
//!
//! Measured (threshold audit, 1e6 runs a side, seed 11, `delta = 1e-5`):
//! at `(8, 1e-5)` the defaults of `M*` (n = 8, d = 32), oracle JLGD (n = 4)
//! and B1 (n = 8) give `eps_lb` 0.47, 0.58, 0.48 against an accountant's
//! exact 3.55 (paper conversion); oracle JLGD at `conversion = "tight"`,
//! `iterate = "last"`, `T = 1` (exactly Gaussian) separates the sides by
//! 0.134 standard deviations, `mu/2` of its `mu = 0.268` (the clip slack);
//! B1 known at `radius_factor = 1`, tight, last by 0.269 = `mu` (`eps_lb`
//! 0.60 against 1), and at twice its `mu` (run at `eps = 2.155`, claiming 1)
//! it is caught with `eps_lb` 1.29.
//!
//! # Transcripts
//! `M*`, oracle JLGD and full-dimension DP-GD also audit their transcript
//! (`observe = "transcript"`): every mechanism their budget composes over,
//! each NGD step's noisy summed gradient in `R^k` and (for `M*` and tuned
//! B1) each candidate's noisy score. On the canary pair the zero rows
//! contribute nothing to either, so the other side's release mean differs
//! from the run's own only by the canary's hinge subgradient (or by its 0-1
//! error over `n`), which the observer recomputes from the clipped projected
//! rows the run hands it (`MarginTranscriptLoss`). Full batch and no
//! subsampling: the sum of the Gaussian log ratios is the transcript's exact
//! log likelihood ratio (threshold audit: the hinge switches off on some
//! runs, so it is a mixture). The JL map is data independent and public, so
//! the observer may use it. Unlike the final release, the transcript shows
//! all `2|Gamma|` mechanisms of `M*` (the whole `mu`, up to the clip slack
//! of JLGD's `2b` and the steps where the canary's hinge is off).
//!
//! # Not audited
//! `wang_hard_margin_svm` (B0, the non-private SVM floor: a deterministic
//! exact max-margin direction, no privacy claimed) and `wang_jl_margin_check`
//! (E9, a geometry measurement of the JL map on the planted inliers, not a
//! private release) claim no privacy, so they carry no audit.

use contract::audit::{first_coordinate, AuditDef, AuditPair, AuditSetting, Estimator, Relation};
use contract::{Instance, Options, Privacy, RunContext, Value, Values};
use datagen::labelled::LabelledData;
use dpcore::halfspace::HalfspaceProblem;
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::stopping::privtune_mu;
use rand_pcg::Pcg64;
use solvers::transcript::{Query, Transcript};
use solvers::wang::jl::jl_dimension;
use solvers::wang::mstar::candidate_grid;
use solvers::wang::{
    known_margin_observed, m_star_observed, margin_grid, total_mu, BudgetConversion, IterateChoice,
    IterationMode, KnownMarginBudget, NgdPlan,
};

use super::options::{
    Budget, FullDimOptions, Iterate, MPrimeOptions, MStarEntryOptions, OracleJlgdOptions, Tuning,
};

/// The public margin the pair declares ([`HalfspaceProblem::true_margin`]):
/// the `gamma` of the oracle JLGD and of known-margin DP-GD (hinge
/// `c = gamma/3`), the planted margin of the bound curves elsewhere. A
/// hyperparameter, the same on both sides. Its value barely matters: the
/// canary's margin noise at the end of a run is about `1/sqrt(1 + k)`, and
/// `k_gamma ~ ln(|Gamma| n^4)/gamma^2` makes `c` over it `sqrt(ln(..))/3`
/// whatever `gamma` is (while `k_gamma < d`); 0.5 lies inside the families'
/// range `(0, 1)`.
pub const AUDIT_MARGIN: f64 = 0.5;

/// Explicit labelled rows with a declared public margin: the instance of an
/// audit pair. Rows are validated by [`LabelledData::from_rows`] (finite,
/// norm at most 1, labels `±1`); zero rows are admissible.
#[derive(Debug, Clone)]
pub struct AuditSample {
    d: usize,
    x: Vec<f64>,
    y: Vec<f64>,
    margin: f64,
}

impl AuditSample {
    /// Builds from records `features then label` (one row each) and the
    /// declared margin.
    ///
    /// # Errors
    /// Ragged rows, or rows [`LabelledData::from_rows`] refuses.
    pub fn from_records(records: &[Vec<f64>], margin: f64) -> Result<Self, String> {
        let width = records.first().map_or(0, Vec::len);
        if width < 2 || records.iter().any(|r| r.len() != width) {
            return Err("records must all hold d >= 1 features then a label".into());
        }
        let d = width - 1;
        let x: Vec<f64> = records.iter().flat_map(|r| r[..d].to_vec()).collect();
        let y: Vec<f64> = records.iter().map(|r| r[d]).collect();
        let data = LabelledData::from_rows(d, x, y)?;
        let n = data.len();
        Ok(Self {
            d,
            x: (0..n).flat_map(|i| data.features(i).to_vec()).collect(),
            y: (0..n).map(|i| data.label(i)).collect(),
            margin,
        })
    }
}

impl HalfspaceProblem for AuditSample {
    fn dim(&self) -> usize {
        self.d
    }
    fn num_records(&self) -> usize {
        self.y.len()
    }
    fn features(&self) -> &[f64] {
        &self.x
    }
    fn labels(&self) -> &[f64] {
        &self.y
    }
    fn true_margin(&self) -> Option<f64> {
        Some(self.margin)
    }
    fn outlier_count(&self) -> usize {
        0
    }
}

fn invalid(why: impl Into<String>) -> RunFailure {
    RunFailure::InvalidParameters(why.into())
}

/// `(eps, delta)` of the setting with `delta` in `(0, 1)` (every Wang entry
/// is Gaussian-only).
fn approx(privacy: Privacy) -> Result<PrivacyParams, RunFailure> {
    match privacy {
        Privacy::Approx(p) if p.eps > 0.0 && p.delta > 0.0 && p.delta < 1.0 => Ok(p),
        other => Err(invalid(format!(
            "the Wang entries need (eps > 0, delta in (0, 1)), got {other:?}"
        ))),
    }
}

/// The canary pair at `(n, d)` (module docs): `n - 1` zero rows labelled
/// `+1`, then the canary `(e1, +1)` in `D` and `(e1, -1)` in `D'`, with
/// [`AUDIT_MARGIN`] declared on both. `n >= 4` and `d >= 2` as the Wang
/// families require, so `problem` holds `wang_isotropic` values its builder
/// accepts (no Wang run reads them).
pub fn canary_pair(n: usize, d: usize) -> Result<AuditPair, RunFailure> {
    if n < 4 || d < 2 {
        return Err(invalid(format!(
            "the Wang audit pair needs n >= 4 and d >= 2 (the families' ranges), got n = {n}, d = {d}"
        )));
    }
    let row = |first: f64, label: f64| {
        let mut r = vec![0.0; d + 1];
        r[0] = first;
        r[d] = label;
        r
    };
    let side = |label: f64| {
        let mut rows: Vec<Vec<f64>> = (0..n - 1).map(|_| row(0.0, 1.0)).collect();
        rows.push(row(1.0, label));
        rows
    };
    let records = [side(1.0), side(-1.0)];
    let instance = |rows: &[Vec<f64>]| -> Result<Instance, RunFailure> {
        let sample = AuditSample::from_records(rows, AUDIT_MARGIN).map_err(invalid)?;
        Ok(Instance::Halfspace(Box::new(sample)))
    };
    let instances = [instance(&records[0])?, instance(&records[1])?];
    let problem: Values = [
        ("n", Value::Num(n as f64)),
        ("d", Value::Num(d as f64)),
        ("gamma", Value::Num(AUDIT_MARGIN)),
        ("m", Value::Num(0.0)),
        ("outlier_type", Value::Str("twins".into())),
        ("profile", Value::Str("spread".into())),
        ("rho", Value::Num(1.0)),
        ("population_samples", Value::Num(100_000.0)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Ok(AuditPair {
        instances,
        records,
        relation: Relation::ReplaceOne,
        problem,
        description: format!(
            "{} records with zero features (label +1) and the canary e1 at the norm bound, label +1 in D \
             and -1 in D' (declared margin {AUDIT_MARGIN})",
            n - 1
        ),
    })
}

/// NGD steps of a run at GDP `mu` in dimension `k` (as [`NgdPlan::new`]).
fn steps(n: usize, k: usize, mu: f64, mode: IterationMode) -> Result<u64, RunFailure> {
    let plan = NgdPlan::new(n, k, 1.0, 1.0, mu, mode, IterateChoice::Averaged)?;
    Ok(plan.steps)
}

/// The NGD dimension of a candidate at `gamma`, as `JlMap::with_dimension`
/// (the identity at `k >= d`); `None`: full dimension.
fn ngd_dim(n: usize, d: usize, grid_len: usize, gamma: f64, c_jl: Option<f64>) -> usize {
    match c_jl {
        Some(c) => {
            let k = jl_dimension(n, grid_len, gamma, 1.0 / (n as f64 * n as f64), 1.0, c);
            if k >= d as f64 {
                d
            } else {
                k.max(1.0) as usize
            }
        }
        None => d,
    }
}

/// Refuses a setting where every NGD run of an averaged-iterate entry takes
/// one step: its release is `w_0 = 0` on both sides, nothing to audit.
fn refuse_vacuous(iterate: Iterate, most_steps: u64, n: usize) -> Result<(), RunFailure> {
    if !iterate.is_last() && most_steps < 2 {
        return Err(invalid(format!(
            "at n = {n} and this privacy every NGD run takes T = 1 step and the averaged iterate is \
             w_0 = 0 on both sides: the release is data independent (raise n or eps)"
        )));
    }
    Ok(())
}

fn m_star_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = canary_pair(s.n, s.d)?;
    let p = approx(s.privacy)?;
    let options = MStarEntryOptions::read(s.options)?;
    let opts = options.m_star();
    let grid = candidate_grid(s.n, p.eps, &opts);
    let mu_p = total_mu(p, opts.conversion)? / (2.0 * grid.len() as f64).sqrt();
    let c_jl = Some(options.jl_constant);
    let mut most = 0;
    for &g in &grid {
        let k = ngd_dim(s.n, s.d, grid.len(), g, c_jl);
        most = most.max(steps(s.n, k, mu_p, opts.mode)?);
    }
    // A transcript holds every step even when the averaged release is w_0.
    if !s.transcript {
        refuse_vacuous(options.iterate, most, s.n)?;
    }
    Ok(pair)
}

fn m_prime_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = canary_pair(s.n, s.d)?;
    let p = approx(s.privacy)?;
    // As `m_prime`: (eps, delta) validated as M* does, r as `run_m_prime`.
    total_mu(p, BudgetConversion::Tight)?;
    let grid = margin_grid(s.n, 1.0);
    let nf = s.n as f64;
    let paper_r = 1.0 / (grid.len() as f64 * (nf * nf - 1.0));
    let options = MPrimeOptions::read(s.options)?;
    let r = (paper_r * options.r_factor).min(1.0);
    let mu = privtune_mu(p.eps, r, p.delta).map_err(|e| invalid(e.to_string()))?;
    let c_jl = Some(options.jl_constant);
    let mut most = 0;
    for &g in &grid {
        let k = ngd_dim(s.n, s.d, grid.len(), g, c_jl);
        most = most.max(steps(s.n, k, mu / 2f64.sqrt(), options.mode.into())?);
    }
    refuse_vacuous(options.iterate, most, s.n)?;
    Ok(pair)
}

fn oracle_jlgd_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = canary_pair(s.n, s.d)?;
    let p = approx(s.privacy)?;
    // As `known_margin`: the whole mu, or M*'s per-call mu_p.
    let options = OracleJlgdOptions::read(s.options)?;
    let opts = options.m_star();
    let len = candidate_grid(s.n, p.eps, &opts).len();
    let mu = match options.budget {
        Budget::PerCall => total_mu(p, opts.conversion)? / (2.0 * len as f64).sqrt(),
        Budget::Total => total_mu(p, opts.conversion)?,
    };
    let k = ngd_dim(s.n, s.d, len, AUDIT_MARGIN, Some(options.jl_constant));
    // A transcript holds every step even when the averaged release is w_0.
    if !s.transcript {
        refuse_vacuous(options.iterate, steps(s.n, k, mu, opts.mode)?, s.n)?;
    }
    Ok(pair)
}

fn full_dim_pair(s: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = canary_pair(s.n, s.d)?;
    let p = approx(s.privacy)?;
    // As `run_full_dimension`: known gets the whole mu, tuned M*'s mu_p.
    let options = FullDimOptions::read(s.options)?;
    let opts = options.m_star();
    let mu = total_mu(p, opts.conversion)?;
    let mu_run = match options.tuning {
        Tuning::Known => mu,
        Tuning::Tuned => mu / (2.0 * candidate_grid(s.n, p.eps, &opts).len() as f64).sqrt(),
    };
    // A transcript holds every step even when the averaged release is w_0.
    if !s.transcript {
        refuse_vacuous(options.iterate, steps(s.n, s.d, mu_run, opts.mode)?, s.n)?;
    }
    Ok(pair)
}

/// The privacy loss `ln p_D(y) - ln p_D'(y)` of a Wang transcript on the
/// canary pair: for each Gaussian release `y ~ N(m, sigma^2 I)`, `(|y -
/// m'|^2 - |y - m|^2)/(2 sigma^2)`, with `m` and `m'` the release's mean on
/// `D` and `D'`. The run reports its own mean (the summed hinge gradient or
/// the score); the other side's differs by the canary's term alone (module
/// doc), computed from the clipped projected canary row the run hands over
/// ([`Transcript::rows`]) with the solver's own arithmetic.
struct MarginTranscriptLoss {
    side: usize,
    /// The canary's label on `D` and on `D'`.
    labels: [f64; 2],
    /// The canary's projected row, its clip factor and the row count.
    canary: Vec<f64>,
    scale: f64,
    n: f64,
    /// The last base run's output (where its score is computed).
    output: Vec<f64>,
    loss: f64,
}

impl MarginTranscriptLoss {
    fn new(pair: &AuditPair, side: usize) -> Result<Self, RunFailure> {
        let label = |k: usize| pair.records[k].last().and_then(|r| r.last()).copied();
        let (Some(on_d), Some(on_d_prime)) = (label(0), label(1)) else {
            return Err(invalid("the Wang transcript loss needs the canary pair"));
        };
        Ok(Self {
            side,
            labels: [on_d, on_d_prime],
            canary: Vec::new(),
            scale: 0.0,
            n: pair.records[side].len() as f64,
            output: Vec::new(),
            loss: 0.0,
        })
    }

    /// The canary's hinge subgradient at `w` with label `y`, as `run_ngd`
    /// computes it (zero where its margin reaches the hinge).
    fn hinge_gradient(&self, y: f64, w: &[f64], hinge: f64) -> Vec<f64> {
        let ys = y * self.scale;
        let margin = ys * self.canary.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
        let coef = if margin < hinge { -ys / hinge } else { 0.0 };
        self.canary.iter().map(|z| coef * z).collect()
    }

    /// Whether the canary with label `y` is an error (ties count) at the
    /// last output, as `projected_ngd` scores it.
    fn error(&self, y: f64) -> f64 {
        let margin = y
            * self.scale
            * self
                .canary
                .iter()
                .zip(&self.output)
                .map(|(a, b)| a * b)
                .sum::<f64>();
        f64::from(u8::from(margin <= 0.0))
    }

    fn add(&mut self, released: &[f64], means: [Vec<f64>; 2], sigma: f64) {
        let dist2 =
            |m: &[f64]| -> f64 { released.iter().zip(m).map(|(y, a)| (y - a) * (y - a)).sum() };
        self.loss += (dist2(&means[1]) - dist2(&means[0])) / (2.0 * sigma * sigma);
    }
}

impl Transcript for MarginTranscriptLoss {
    fn rows(&mut self, rows: &[f64], labels: &[f64], scale: &[f64]) {
        let n = labels.len();
        let k = rows.len() / n.max(1);
        // The canary is the pair's last row ([`canary_pair`]).
        self.canary = rows[(n - 1) * k..].to_vec();
        self.scale = scale[n - 1];
        if labels[n - 1] != self.labels[self.side] || n as f64 != self.n {
            self.loss = f64::NAN;
        }
    }

    fn output(&mut self, point: &[f64]) {
        self.output = point.to_vec();
    }

    fn gaussian(&mut self, query: Query, at: &[f64], mean: &[f64], released: &[f64], sigma: f64) {
        let own = self.labels[self.side];
        match query {
            Query::HingeGradientSum { hinge } => {
                let mine = self.hinge_gradient(own, at, hinge);
                let on = |k: usize| -> Vec<f64> {
                    let theirs = self.hinge_gradient(self.labels[k], at, hinge);
                    mean.iter()
                        .zip(&mine)
                        .zip(&theirs)
                        .map(|((g, a), b)| g - a + b)
                        .collect()
                };
                let means = [on(0), on(1)];
                self.add(released, means, sigma);
            }
            Query::ZeroOneScore => {
                let mine = self.error(own);
                let on = |k: usize| vec![mean[0] + (self.error(self.labels[k]) - mine) / self.n];
                let means = [on(0), on(1)];
                self.add(released, means, sigma);
            }
            // The Wang entries release nothing else: a NaN loss fails the
            // audit's run loudly rather than mis-scoring it.
            _ => self.loss = f64::NAN,
        }
    }
}

fn halfspace_side(pair: &AuditPair, side: usize) -> Result<&dyn HalfspaceProblem, RunFailure> {
    match &pair.instances[side] {
        Instance::Halfspace(p) => Ok(p.as_ref()),
        _ => Err(invalid("a Wang transcript audit needs the canary pair")),
    }
}

/// The loss of the transcript `run` reports on side `side`.
fn margin_transcript(
    pair: &AuditPair,
    side: usize,
    run: impl FnOnce(&dyn HalfspaceProblem, &mut MarginTranscriptLoss) -> Result<(), RunFailure>,
) -> Result<f64, RunFailure> {
    let mut loss = MarginTranscriptLoss::new(pair, side)?;
    run(halfspace_side(pair, side)?, &mut loss)?;
    Ok(loss.loss)
}

/// `M*`'s transcript: every candidate's NGD steps and noisy score.
fn m_star_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let opts = MStarEntryOptions::read(ctx.options)?.m_star();
    let privacy = approx(ctx.privacy)?;
    margin_transcript(pair, side, |problem, loss| {
        m_star_observed(problem, privacy, opts, loss, rng).map(|_| ())
    })
}

/// Oracle JLGD's transcript: its NGD steps at the declared margin.
fn oracle_jlgd_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let options = OracleJlgdOptions::read(ctx.options)?;
    let privacy = approx(ctx.privacy)?;
    margin_transcript(pair, side, |problem, loss| {
        known_margin_observed(
            problem,
            AUDIT_MARGIN,
            privacy,
            options.m_star(),
            options.budget.into(),
            loss,
            rng,
        )
        .map(|_| ())
    })
}

/// Full-dimension DP-GD's transcript: the known-margin run's NGD steps, or
/// tuned B1's (`M*` with the identity map) steps and scores.
fn full_dim_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let options = FullDimOptions::read(ctx.options)?;
    let opts = options.m_star();
    let privacy = approx(ctx.privacy)?;
    margin_transcript(pair, side, |problem, loss| match options.tuning {
        Tuning::Known => known_margin_observed(
            problem,
            AUDIT_MARGIN,
            privacy,
            opts,
            KnownMarginBudget::Total,
            loss,
            rng,
        )
        .map(|_| ()),
        Tuning::Tuned => m_star_observed(problem, privacy, opts, loss, rng).map(|_| ()),
    })
}

/// `M*` (Algorithm 3).
pub const M_STAR_AUDIT: AuditDef = AuditDef {
    pair: m_star_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(m_star_transcript),
    method: "Zero-feature records and a canary e1 at the norm bound whose label flips: every candidate's \
             NGD gradient and 0-1 score differ only through the canary, and selection favours candidates \
             with the canary right. Threshold: the averaged hinge-NGD release selected among |Gamma| \
             candidates is a data-dependent mixture, not Gaussian.",
};

/// `M'` (Algorithm 6).
pub const M_PRIME_AUDIT: AuditDef = AuditDef {
    pair: m_prime_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: None,
    method: "Zero-feature records and a canary e1 at the norm bound whose label flips: every JLGD run's \
             gradient and noisy score differ only through the canary. Threshold: the release is one of a \
             random number of hinge-NGD runs chosen by noisy score, not Gaussian.",
};

/// B2, oracle JLGD.
pub const ORACLE_JLGD_AUDIT: AuditDef = AuditDef {
    pair: oracle_jlgd_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(oracle_jlgd_transcript),
    method: "Zero-feature records and a canary e1 at the norm bound whose label flips: the summed hinge \
             gradient is the canary's alone (||Phi e1|| = 1: half the 2b clip the calibration allows, no \
             record reaches it). Threshold: the hinge switches off once the canary's margin reaches gamma/3, \
             so the release is not exactly Gaussian.",
};

/// B1, full-dimension DP-GD.
pub const FULL_DIM_AUDIT: AuditDef = AuditDef {
    pair: full_dim_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(full_dim_transcript),
    method: "Zero-feature records and a canary e1 at the norm bound whose label flips: the summed hinge \
             gradient is the canary's alone, the full sensitivity at radius_factor = 1. Threshold: the \
             hinge switches off at margin gamma/3 and tuning selects among candidates, so the release is \
             not exactly Gaussian.",
};
