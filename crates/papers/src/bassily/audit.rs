//! Empirical privacy audits of the Bassily et al. entries (issue 25,
//! `runner audit`): for each private entry a worst-case neighbouring pair of
//! tiny explicit-record instances, the statistic (the release's first
//! coordinate, the canary's direction) and the estimator.
//!
//! # The pairs
//! - `nsgd`, `prox_gd`, `objp`, `objp_app`, `one_pass_sgd` run on LinBall
//!   (`-L <w, z>` on `B(0, M)`, `L = M = 1`): the canary `z = e1` (record
//!   gradient `-L e1`, at the Lipschitz/clip bound `L`) in `D`, replaced by
//!   `-e1` in `D'` (the record gradients differ by `2L`, the replace-one
//!   sensitivity the noise is calibrated for) or removed (add/remove); the
//!   other `n - 1` records are `0`, with gradient `0`, so nothing else moves
//!   the iterate or adds sampling variance.
//! - `nsgd_moreau` is audited on AbsDeviation (`L |<w, z> - tau|`, records
//!   `+-e_j`), whose envelope is not the loss itself (on LinBall, the other
//!   family with an envelope, the envelope gradient is the loss gradient and
//!   the run is `nsgd`'s, audited above): the canary
//!   `+e1` in `D`, `-e1` in `D'`; the shared records alternate `+-e2`
//!   (`+-e1` when `d = 1`), so their envelope gradients cancel at `w_0 = 0`.
//!   At `w_0 = 0` the canary's envelope gradient is `-clip(beta_env tau, L)
//!   e1`, so the pair is worst-case up to `beta_env tau / L`, which is
//!   `min(sqrt(n)/4, eps n/(8 sqrt(d Lambda)))/sqrt(d)`: 0.968 at `n = 15,
//!   d = 1, eps = 4, delta = 1e-5`.
//!
//! # Estimators
//! On LinBall every record gradient is constant, so full-batch noisy GD is
//! an affine map of its Gaussian noise while the projection onto `B(0, M)`
//! does not bind: the release is Gaussian with the same covariance on both
//! sides and a mean shift, and the Gaussian-DP fit applies. The NSGD pairs
//! therefore refuse the settings where that fails: Poisson batches with `q =
//! m/n < 1` (a mixture over batches; `m = n` needs `eps > 4 T (1 - 1/n)^2`,
//! so `eps` of about 3 or more), `T > 1` for the
//! Moreau variant (its envelope gradients are affine in `w` off `w_0`), and
//! a projection that binds with probability above `delta/100` (a union bound
//! over the iterates; the projected release then differs from the Gaussian
//! one on an event of at most that probability, which moves `delta(eps)` by
//! at most `delta/100`). `objp` on LinBall releases `Proj((L z_bar -
//! G/n)/(2 lambda))`, Gaussian with a mean shift under the same projection
//! condition. `objp_app` stops SVRG by a data-dependent certificate, so its
//! release is not exactly Gaussian (threshold audit), and `one_pass_sgd` is
//! deterministic (threshold audit).
//!
//! # Transcripts
//! A transcript audit of `nsgd` or `prox_gd` (`observe = "transcript"`)
//! observes every noisy (envelope) gradient, so none of those refusals
//! applies: its pair allows any batch rate and step count, and its statistic
//! ([`PoissonTranscriptLoss`]) is the exact log likelihood ratio of the
//! releases, each a mixture over the canary's inclusion (threshold audit).
//! For `prox_gd` the canary's inexact envelope gradient is recomputed by the
//! run's own inner method at each step's point, which costs the loss `2 T
//! tau` record gradients a run beside the run's own `T m tau`.
//!
//! `nsgd_with_replacement` (Algorithm 1's printed sampling, digest P5) is
//! audited on its transcript only: with replacement the canary enters each
//! batch `r ~ Binomial(m, 1/n)` times, so even its final release is a
//! mixture, whatever `m`. Its pair is `nsgd`'s transcript pair (LinBall,
//! replace-one) and its statistic ([`WithReplacementTranscriptLoss`]) the
//! exact log likelihood ratio of the `T` releases, each a mixture over `r`.
//! The loss needs every shared record to be the same record (then a batch's
//! mean is `s + r (g - s)/m` whatever the other draws, `s` their common
//! clipped gradient), which the zero records of that pair are.

use contract::audit::{first_coordinate, AuditDef, AuditPair, AuditSetting, Estimator, Relation};
use contract::{Instance, Privacy, RunContext, Value, Values};
use datagen::bassily::{AbsDeviation, AbsDeviationParams, LinBall, LinBallParams};
use dpcore::{Neighbouring, Objective, PrivacyParams, RunFailure};
use mechanisms::normal::normal_cdf;
use rand_pcg::Pcg64;
use solvers::bassily::objp::{HessianRank, ObjPApp, ObjPPlan};
use solvers::bassily::rate::rate;
use solvers::bassily::sgd::prox::{InexactProx, ProxScratch};
use solvers::bassily::sgd::{BatchSampling, Nsgd, NsgdPlan, NsgdVariant};
use solvers::inner::project_ball;
use solvers::transcript::{Query, Transcript};

use super::families::MAX_SIGNAL;
use super::options::{NeighbouringOption, NsgdOptions, NsgdWithReplacementOptions, ObjPAppOptions};
use contract::Options;

fn invalid(msg: String) -> RunFailure {
    RunFailure::InvalidParameters(msg)
}

/// The `(eps, delta)` of the setting (every Bassily entry is calibrated for
/// approximate DP).
fn approx(setting: &AuditSetting) -> Result<PrivacyParams, RunFailure> {
    match setting.privacy {
        Privacy::Approx(p) => Ok(p),
        Privacy::Zcdp(rho) => Err(invalid(format!(
            "the Bassily entries are (eps, delta)-DP, not rho = {rho} zCDP"
        ))),
    }
}

/// `n >= 2` (the families' minimum) and `d >= 1`.
fn check_size(setting: &AuditSetting) -> Result<(), RunFailure> {
    if setting.n < 2 || setting.d == 0 {
        return Err(invalid(format!(
            "an audit pair needs n >= 2 and d >= 1, got n = {}, d = {}",
            setting.n, setting.d
        )));
    }
    Ok(())
}

/// The unit vector `sign e_j` in dimension `d`.
fn signed_basis(d: usize, j: usize, sign: f64) -> Vec<f64> {
    let mut z = vec![0.0; d];
    z[j] = sign;
    z
}

/// `D` (the canary first, then `shared`) and `D'` (the canary replaced by
/// `replacement`, or removed), as rows.
fn neighbours(
    canary: Vec<f64>,
    replacement: Vec<f64>,
    shared: Vec<Vec<f64>>,
    relation: Relation,
) -> [Vec<Vec<f64>>; 2] {
    let with = |first: Option<Vec<f64>>| first.into_iter().chain(shared.clone()).collect();
    let d_prime = match relation {
        Relation::ReplaceOne => with(Some(replacement)),
        Relation::AddRemove => with(None),
    };
    [with(Some(canary)), d_prime]
}

/// The LinBall and AbsDeviation values the family builder validates
/// (`r_factor`, `lipschitz`, `radius` at their defaults).
fn family_values(setting: &AuditSetting) -> Values {
    [
        ("n", setting.n as f64),
        ("d", setting.d as f64),
        ("r_factor", 1.0),
        ("lipschitz", 1.0),
        ("radius", 1.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Value::Num(v)))
    .collect()
}

/// The builder's signal `r = min(R(n, d, eps, delta), 0.95)` at `r_factor =
/// 1` (it enters only the population loss, never a release).
fn signal(setting: &AuditSetting, p: PrivacyParams) -> f64 {
    rate(setting.n as f64, setting.d as f64, p.eps, p.delta).min(MAX_SIGNAL)
}

/// The LinBall pair: the canary `e1` against `-e1` (or its removal), the
/// other records `0`.
fn lin_ball_pair(setting: &AuditSetting, relation: Relation) -> Result<AuditPair, RunFailure> {
    check_size(setting)?;
    let p = approx(setting)?;
    let d = setting.d;
    let shared = vec![vec![0.0; d]; setting.n - 1];
    let records = neighbours(
        signed_basis(d, 0, 1.0),
        signed_basis(d, 0, -1.0),
        shared,
        relation,
    );
    let r = signal(setting, p);
    let build = |rows: &Vec<Vec<f64>>| -> Result<Instance, RunFailure> {
        let params = LinBallParams::new(rows.len(), d, r);
        let lin = LinBall::from_records(params, rows.concat())?;
        Ok(Instance::Objective(Box::new(lin)))
    };
    let instances = [build(&records[0])?, build(&records[1])?];
    let what = match relation {
        Relation::ReplaceOne => "replaced by -e1 in D'",
        Relation::AddRemove => "removed in D'",
    };
    Ok(AuditPair {
        instances,
        records,
        relation,
        problem: family_values(setting),
        description: format!(
            "LinBall (L = M = 1), n = {}, d = {d}: {} records at 0 (gradient 0) and the canary +e1 \
             (gradient -L e1) in D, {what}",
            setting.n,
            setting.n - 1
        ),
    })
}

/// The AbsDeviation pair of `nsgd_moreau`: the canary `+e1` against `-e1`
/// (or its removal), the shared records alternating `+e2, -e2` (`+-e1` when
/// `d = 1`).
fn abs_deviation_pair(setting: &AuditSetting, relation: Relation) -> Result<AuditPair, RunFailure> {
    check_size(setting)?;
    let p = approx(setting)?;
    let d = setting.d;
    let j = if d >= 2 { 1 } else { 0 };
    let shared = (0..setting.n - 1)
        .map(|i| signed_basis(d, j, if i % 2 == 0 { 1.0 } else { -1.0 }))
        .collect();
    let records = neighbours(
        signed_basis(d, 0, 1.0),
        signed_basis(d, 0, -1.0),
        shared,
        relation,
    );
    let r = signal(setting, p);
    let build = |rows: &Vec<Vec<f64>>| -> Result<Instance, RunFailure> {
        let params = AbsDeviationParams::new(rows.len(), d, r);
        let abs = AbsDeviation::from_records(params, &rows.concat())?;
        Ok(Instance::Objective(Box::new(abs)))
    };
    let instances = [build(&records[0])?, build(&records[1])?];
    Ok(AuditPair {
        instances,
        records,
        relation,
        problem: family_values(setting),
        description: format!(
            "AbsDeviation (L = M = 1, tau = M/sqrt(d)), n = {}, d = {d}: {} records alternating \
             +-e{} (their envelope gradients cancel at w_0 = 0) and the canary +e1 in D, {} in D'",
            setting.n,
            setting.n - 1,
            j + 1,
            match relation {
                Relation::ReplaceOne => "replaced by -e1",
                Relation::AddRemove => "removed",
            }
        ),
    })
}

/// The objective of `D`.
fn objective(pair: &AuditPair) -> &dyn Objective {
    side_objective(pair, 0)
}

/// The objective of side `k` (0: `D`, 1: `D'`).
fn side_objective(pair: &AuditPair, k: usize) -> &dyn Objective {
    match &pair.instances[k] {
        Instance::Objective(p) => p.as_ref(),
        _ => unreachable!("the Bassily pairs are objectives"),
    }
}

/// Upper bound on the probability that the projection onto `B(0, M)` binds
/// in a full-batch run whose mean gradient has norm at most `drift` and
/// whose iterates are `w_t = -eta sum_{s<=t} (g + N_s)`: a union bound over
/// `t = 1..T` of `P(|w_t,1| > M) + (d - 1) P(|w_t,j| > M)`, each coordinate
/// Gaussian with standard deviation `eta sigma sqrt(t)`.
fn projection_binds(plan: &NsgdPlan, drift: f64) -> f64 {
    let s = &plan.schedule;
    let (eta, sigma, m) = (s.step_size, plan.noise.sigma, s.radius);
    (1..=s.steps)
        .map(|t| {
            let sd = eta * sigma * (t as f64).sqrt();
            let shifted = normal_cdf(-(m - eta * t as f64 * drift) / sd);
            2.0 * shifted + 2.0 * (s.d as f64 - 1.0) * normal_cdf(-m / sd)
        })
        .sum()
}

/// An NSGD-family pair, refused where its release is not an exact Gaussian
/// mean shift (module doc).
fn nsgd_family_pair(setting: &AuditSetting, variant: NsgdVariant) -> Result<AuditPair, RunFailure> {
    let options = NsgdOptions::read(setting.options)?;
    let relation = match options.neighbouring {
        NeighbouringOption::AddRemove => Relation::AddRemove,
        NeighbouringOption::ReplaceOne => Relation::ReplaceOne,
    };
    let pair = match variant {
        NsgdVariant::MoreauEnvelope => abs_deviation_pair(setting, relation)?,
        _ => lin_ball_pair(setting, relation)?,
    };
    let privacy = approx(setting)?;
    let algorithm = Nsgd {
        variant,
        calibration: options.calibration.into(),
        relation: match relation {
            Relation::AddRemove => Neighbouring::AddRemove,
            Relation::ReplaceOne => Neighbouring::ReplaceOne,
        },
        // The entry's public n under add/remove is the family's declared n,
        // which the pair sets to the larger neighbour's size for both sides.
        public_n: (relation == Relation::AddRemove).then_some(setting.n),
    };
    let plan = algorithm.plan(objective(&pair), privacy)?;
    let s = &plan.schedule;
    if s.trivial {
        return Err(invalid(format!(
            "eps^2 n^2/(32 d ln(1/delta)) < 1 at n = {}: NSGD releases w_0 = 0 on both sides",
            setting.n
        )));
    }
    if setting.transcript {
        return transcript_pair(pair, &plan, variant);
    }
    if s.batch != s.n {
        return Err(invalid(format!(
            "Poisson batches at q = m/n = {}/{} < 1 make the release a mixture, not Gaussian; \
             full batch needs eps > 4 T (1 - 1/n)^2 = {:.3} (T = {})",
            s.batch,
            s.n,
            4.0 * s.steps as f64 * (1.0 - 1.0 / s.n as f64).powi(2),
            s.steps
        )));
    }
    if variant == NsgdVariant::MoreauEnvelope && s.steps > 1 {
        return Err(invalid(format!(
            "T = {} > 1: off w_0 = 0 the envelope gradients are affine or clipped in w, so only \
             T = 1 (n < 16) gives a Gaussian release",
            s.steps
        )));
    }
    // Only the canary moves the mean gradient (at most C/m); the moreau
    // pair's unpaired shared record (even n) adds at most C/m more.
    let drift = 2.0 * plan.noise.clip / s.batch as f64;
    let binds = projection_binds(&plan, drift);
    if binds > privacy.delta / 100.0 {
        return Err(invalid(format!(
            "the projection onto B(0, M) binds with probability up to {binds:.2e} > delta/100 \
             (T = {}, eta = {:.4}, sigma = {:.4}): the release is not Gaussian enough",
            s.steps, s.step_size, plan.noise.sigma
        )));
    }
    Ok(AuditPair {
        description: format!(
            "{}; full batch (m = n), T = {}, noise multiplier z = {:.4}, projection binds with \
             probability <= {binds:.1e}",
            pair.description, s.steps, plan.noise.noise_multiplier
        ),
        ..pair
    })
}

/// The pair of a transcript audit ([`nsgd_transcript`],
/// [`prox_gd_transcript`]): any batch rate and
/// step count, since the transcript's loss marginalises over the Poisson
/// samples exactly; only where every record gradient is constant and the
/// shared ones are zero (LinBall), so that the loss needs no knowledge of the
/// secret sample.
fn transcript_pair(
    pair: AuditPair,
    plan: &NsgdPlan,
    variant: NsgdVariant,
) -> Result<AuditPair, RunFailure> {
    if variant == NsgdVariant::MoreauEnvelope {
        return Err(invalid(format!(
            "a transcript audit of {variant:?} is not built: its envelope gradients depend on the \
             iterate and its shared records' do not vanish, so the loss would need the secret \
             Poisson sample; only nsgd and prox_gd on LinBall (shared records at 0) have one"
        )));
    }
    let s = &plan.schedule;
    Ok(AuditPair {
        description: format!(
            "{}; Poisson batches at q = m/n = {}/{} = {:.4}, T = {} steps, noise multiplier z = {:.4}: \
             the statistic is the privacy loss of the T noisy gradients, each a mixture over the \
             canary's inclusion",
            pair.description,
            s.batch,
            s.n,
            s.sampling_rate(),
            s.steps,
            plan.noise.noise_multiplier
        ),
        ..pair
    })
}

/// The privacy loss `ln p_D(y) - ln p_D'(y)` of a transcript of `A_NSGD`'s
/// noisy gradients on a pair whose shared records have zero gradient. Each
/// release is `y = b g/m + N(0, sigma^2 I)` with `b ~ Bernoulli(q)` the
/// canary's inclusion and `g` its clipped gradient at the step's point (`g'`
/// on `D'`, `0` when `D'` lacks it): on side `k` the density is the mixture
/// `(1 - q) N(0, sigma^2 I) + q N(g_k/m, sigma^2 I)`, so, dropping the
/// common factor `e^{-|y|^2/(2 sigma^2)}`, `ln p_k(y) = logsumexp(ln(1 - q),
/// ln q + <y, v_k>/sigma^2 - |v_k|^2/(2 sigma^2))`, `v_k = g_k/m`. The
/// points are functions of earlier releases, so the sum over steps is the
/// transcript's log likelihood ratio (Neyman–Pearson), and it never reads
/// the realised sample.
///
/// For `prox_gd` the canary's contribution is its inexact envelope gradient
/// `beta (w - prox_hat(w))`, computed by the same [`InexactProx`] the run
/// uses (the shared records' is exactly 0: the inner method starts at `w`
/// and a zero record never moves it), so the loss is the same exact ratio.
struct PoissonTranscriptLoss<'a> {
    /// `D` and `D'`.
    sides: [&'a dyn Objective; 2],
    /// `A_ProxGD`'s inner method (envelope smoothness, iterations), or
    /// `None` for the record gradient itself.
    prox: Option<(f64, u64)>,
    scratch: ProxScratch,
    /// Whether `D'` holds a replacement of the canary (row 0) or lacks it.
    replaced: bool,
    buffer: Vec<f64>,
    loss: f64,
}

impl<'a> PoissonTranscriptLoss<'a> {
    fn new(pair: &'a AuditPair, plan: &NsgdPlan) -> Result<Self, RunFailure> {
        let shared_zero = |rows: &[Vec<f64>]| rows.iter().all(|r| r.iter().all(|&x| x == 0.0));
        let first = match pair.relation {
            Relation::ReplaceOne => 1,
            Relation::AddRemove => 0,
        };
        if !shared_zero(&pair.records[0][1..]) || !shared_zero(&pair.records[1][first..]) {
            return Err(invalid(
                "the Poisson transcript loss needs every shared record at 0 (zero gradient)".into(),
            ));
        }
        let prox = match plan.variant {
            NsgdVariant::Smooth => None,
            NsgdVariant::ProxGd => plan.envelope_smoothness.zip(plan.inner_iterations),
            NsgdVariant::MoreauEnvelope => {
                return Err(invalid("no transcript loss for the Moreau variant".into()))
            }
        };
        let d = pair.records[0][0].len();
        Ok(Self {
            sides: [side_objective(pair, 0), side_objective(pair, 1)],
            prox,
            scratch: ProxScratch::new(d),
            replaced: pair.relation == Relation::ReplaceOne,
            buffer: vec![0.0; pair.records[0][0].len()],
            loss: 0.0,
        })
    }

    /// `ln p_k(y)` up to the common factor (type doc) for the release `y`
    /// of `query` at `at`.
    fn log_density(&mut self, k: usize, query: Mix, at: &[f64], y: &[f64]) -> f64 {
        let Mix { clip, q, m, sigma } = query;
        if k == 1 && !self.replaced {
            // D' lacks the canary: p = N(0, sigma^2 I), 0 after the factor.
            return 0.0;
        }
        let (ln_out, ln_in) = ((1.0 - q).ln(), q.ln());
        let Some(records) = self.sides[k].finite_sum() else {
            return f64::NAN;
        };
        match self.prox {
            None => records.record_gradient(0, at, &mut self.buffer),
            Some((beta, iterations)) => InexactProx {
                records,
                beta,
                lipschitz: self.sides[k].constants().lipschitz,
                iterations,
            }
            .envelope_gradient(0, at, &mut self.buffer, &mut self.scratch),
        }
        project_ball(&mut self.buffer, clip);
        let s2 = sigma * sigma;
        let (dot, norm2) = self
            .buffer
            .iter()
            .zip(y)
            .fold((0.0, 0.0), |(a, b), (g, yj)| {
                (a + yj * g / m, b + (g / m) * (g / m))
            });
        let with = ln_in + dot / s2 - norm2 / (2.0 * s2);
        let hi = ln_out.max(with);
        if hi == f64::NEG_INFINITY {
            return hi;
        }
        hi + ((ln_out - hi).exp() + (with - hi).exp()).ln()
    }
}

/// One release's mixture: clip, sampling rate, batch divisor, noise scale.
#[derive(Clone, Copy)]
struct Mix {
    clip: f64,
    q: f64,
    m: f64,
    sigma: f64,
}

impl Transcript for PoissonTranscriptLoss<'_> {
    fn gaussian(
        &mut self,
        query: Query,
        at: &[f64],
        _realised_batch_mean: &[f64],
        released: &[f64],
        sigma: f64,
    ) {
        let Query::PoissonBatchMeanGradient { clip, rate, batch } = query else {
            // NSGD reports Poisson-batch releases only.
            self.loss = f64::NAN;
            return;
        };
        let mix = Mix {
            clip,
            q: rate,
            m: batch,
            sigma,
        };
        let on_d = self.log_density(0, mix, at, released);
        let on_d_prime = self.log_density(1, mix, at, released);
        self.loss += on_d - on_d_prime;
    }
}

/// `nsgd`'s transcript on side `side`: the privacy loss
/// ([`PoissonTranscriptLoss`]) of its `T` noisy gradients, under the plan
/// the entry makes for the pair's `D` (the same on `D'`: replace-one keeps
/// `n`, add/remove schedules the declared `n`).
fn nsgd_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    variant_transcript(ctx, pair, side, rng, NsgdVariant::Smooth)
}

/// `prox_gd`'s transcript: as [`nsgd_transcript`], the canary's
/// contribution being its inexact envelope gradient.
fn prox_gd_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    variant_transcript(ctx, pair, side, rng, NsgdVariant::ProxGd)
}

fn variant_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
    variant: NsgdVariant,
) -> Result<f64, RunFailure> {
    let algorithm = super::sgd::nsgd_of(ctx, variant)?;
    let plan = algorithm.plan(objective(pair), ctx.privacy.approx())?;
    let mut loss = PoissonTranscriptLoss::new(pair, &plan)?;
    let problem = loss.sides[side];
    algorithm.run_planned_observed(problem, &plan, &mut loss, rng)?;
    Ok(loss.loss)
}

/// The privacy loss `ln p_D(y) - ln p_D'(y)` of a transcript of
/// `nsgd_with_replacement`'s noisy gradients on a replace-one pair whose
/// shared records are all the same record. Each release is `y = (1/m)
/// sum_j clip(grad(z_{i_j})) + N(0, sigma^2 I)` over `m` draws with
/// replacement; with the shared records equal (clipped gradient `s` at the
/// step's point) and the canary's clipped gradient `g_k` on side `k`, the
/// mean is `s + r u_k`, `u_k = (g_k - s)/m`, with `r ~ Binomial(m, 1/n)`
/// the canary's multiplicity, the same law on both sides. So on side `k`
/// the density is `sum_r b_r N(s + r u_k, sigma^2 I)` and, dropping the
/// common factor `e^{-|y - s|^2/(2 sigma^2)}`, `ln p_k(y) = logsumexp_r(ln
/// b_r + r <y - s, u_k>/sigma^2 - r^2 |u_k|^2/(2 sigma^2))`. The points are
/// functions of earlier releases, so the sum over steps is the transcript's
/// log likelihood ratio; it never reads the realised draws.
struct WithReplacementTranscriptLoss<'a> {
    /// `D` and `D'`.
    sides: [&'a dyn Objective; 2],
    /// `ln b_r`, `r = 0..=m`, for the `(n, m)` in `weights_for`.
    log_weights: Vec<f64>,
    weights_for: (usize, usize),
    /// The shared records' clipped gradient, then each side's canary's.
    shared: Vec<f64>,
    canary: [Vec<f64>; 2],
    loss: f64,
}

impl<'a> WithReplacementTranscriptLoss<'a> {
    fn new(pair: &'a AuditPair) -> Result<Self, RunFailure> {
        let [d_rows, d_prime_rows] = &pair.records;
        if pair.relation != Relation::ReplaceOne || d_rows.len() < 2 {
            return Err(invalid(
                "the with-replacement transcript loss needs a replace-one pair of n >= 2 records"
                    .into(),
            ));
        }
        let shared = &d_rows[1];
        let same = d_rows[1..].iter().all(|r| r == shared) && d_prime_rows[1..] == d_rows[1..];
        if !same {
            return Err(invalid(
                "the with-replacement transcript loss needs every shared record to be the same \
                 record (the batch mean is then s + r (g - s)/m whatever the other draws)"
                    .into(),
            ));
        }
        let d = shared.len();
        Ok(Self {
            sides: [side_objective(pair, 0), side_objective(pair, 1)],
            log_weights: Vec::new(),
            weights_for: (0, 0),
            shared: vec![0.0; d],
            canary: [vec![0.0; d], vec![0.0; d]],
            loss: 0.0,
        })
    }

    /// `ln b_r = ln C(m, r) + r ln(1/n) + (m - r) ln(1 - 1/n)`, `r = 0..=m`.
    fn binomial_log_weights(records: usize, draws: usize) -> Vec<f64> {
        let p = 1.0 / records as f64;
        let (ln_in, ln_out) = (p.ln(), (-p).ln_1p());
        let mut w = Vec::with_capacity(draws + 1);
        let mut ln_choose = 0.0;
        for r in 0..=draws {
            if r > 0 {
                ln_choose += ((draws - r + 1) as f64 / r as f64).ln();
            }
            w.push(ln_choose + r as f64 * ln_in + (draws - r) as f64 * ln_out);
        }
        w
    }

    /// The clipped gradient of row `i` of side `k` at `at`, into `out`.
    fn clipped(&self, k: usize, i: usize, at: &[f64], clip: f64, out: &mut [f64]) -> bool {
        let Some(records) = self.sides[k].finite_sum() else {
            return false;
        };
        records.record_gradient(i, at, out);
        project_ball(out, clip);
        true
    }

    /// `ln p_k(y)` up to the common factor (type doc), `z = y - s`.
    fn log_density(&self, k: usize, z: &[f64], m: f64, sigma: f64) -> f64 {
        let s2 = sigma * sigma;
        let (dot, norm2) = self.canary[k].iter().zip(&self.shared).zip(z).fold(
            (0.0, 0.0),
            |(a, b), ((g, s), zj)| {
                let u = (g - s) / m;
                (a + zj * u, b + u * u)
            },
        );
        let terms = self.log_weights.iter().enumerate().map(|(r, lw)| {
            let r = r as f64;
            lw + r * dot / s2 - r * r * norm2 / (2.0 * s2)
        });
        let hi = terms.clone().fold(f64::NEG_INFINITY, f64::max);
        if !hi.is_finite() {
            return hi;
        }
        hi + terms.map(|t| (t - hi).exp()).sum::<f64>().ln()
    }
}

impl Transcript for WithReplacementTranscriptLoss<'_> {
    fn gaussian(
        &mut self,
        query: Query,
        at: &[f64],
        _realised_batch_mean: &[f64],
        released: &[f64],
        sigma: f64,
    ) {
        let Query::WithReplacementBatchMeanGradient {
            clip,
            records,
            draws,
        } = query
        else {
            // nsgd_with_replacement reports with-replacement releases only.
            self.loss = f64::NAN;
            return;
        };
        if self.weights_for != (records, draws) {
            self.log_weights = Self::binomial_log_weights(records, draws);
            self.weights_for = (records, draws);
        }
        let mut shared = std::mem::take(&mut self.shared);
        let mut canary = std::mem::take(&mut self.canary);
        let ok = self.clipped(0, 1, at, clip, &mut shared)
            && self.clipped(0, 0, at, clip, &mut canary[0])
            && self.clipped(1, 0, at, clip, &mut canary[1]);
        self.shared = shared;
        self.canary = canary;
        if !ok {
            self.loss = f64::NAN;
            return;
        }
        let z: Vec<f64> = released
            .iter()
            .zip(&self.shared)
            .map(|(y, s)| y - s)
            .collect();
        let m = draws as f64;
        self.loss += self.log_density(0, &z, m, sigma) - self.log_density(1, &z, m, sigma);
    }
}

/// `nsgd_with_replacement`'s transcript on side `side`: the privacy loss
/// ([`WithReplacementTranscriptLoss`]) of its `T` noisy gradients, under
/// the plan the entry makes for `D` (the same on `D'`: replace-one keeps
/// `n`).
fn nsgd_with_replacement_transcript(
    ctx: &RunContext,
    pair: &AuditPair,
    side: usize,
    rng: &mut Pcg64,
) -> Result<f64, RunFailure> {
    let algorithm = super::sgd::nsgd_with_replacement_of(ctx)?;
    let plan = algorithm.plan(objective(pair), ctx.privacy.approx())?;
    let mut loss = WithReplacementTranscriptLoss::new(pair)?;
    let problem = loss.sides[side];
    algorithm.run_planned_sampled(
        problem,
        &plan,
        BatchSampling::WithReplacement,
        &mut loss,
        rng,
    )?;
    Ok(loss.loss)
}

/// `nsgd_with_replacement`: `nsgd`'s LinBall transcript pair, built for a
/// transcript audit only (with replacement every release is a mixture over
/// the canary's multiplicity, so the final point is never Gaussian).
fn nsgd_with_replacement_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = lin_ball_pair(setting, Relation::ReplaceOne)?;
    let privacy = approx(setting)?;
    let algorithm = Nsgd {
        variant: NsgdVariant::Smooth,
        calibration: NsgdWithReplacementOptions::read(setting.options)?
            .calibration
            .into(),
        relation: Neighbouring::ReplaceOne,
        public_n: None,
    };
    let plan = algorithm.plan(objective(&pair), privacy)?;
    let s = &plan.schedule;
    if s.trivial {
        return Err(invalid(format!(
            "eps^2 n^2/(32 d ln(1/delta)) < 1 at n = {}: NSGD releases w_0 = 0 on both sides",
            setting.n
        )));
    }
    if !setting.transcript {
        return Err(invalid(
            "with-replacement batches make every release a mixture over the canary's \
             multiplicity r ~ Binomial(m, 1/n), even at m = n: only a transcript audit \
             (observe = \"transcript\") is built"
                .into(),
        ));
    }
    let p = 1.0 / s.n as f64;
    let several = 1.0
        - (1.0 - p).powi(s.batch as i32)
        - s.batch as f64 * p * (1.0 - p).powi(s.batch as i32 - 1);
    Ok(AuditPair {
        description: format!(
            "{}; m = {} indices drawn with replacement from the n = {} records at each of T = {} \
             steps (the canary's multiplicity r ~ Binomial(m, 1/n), P(r >= 2) = {several:.4}), \
             noise multiplier z = {:.4} (nsgd's replace-one calibration for Poisson batches at q = \
             m/n): the statistic is the privacy loss of the T noisy gradients, each a mixture over r",
            pair.description,
            s.batch,
            s.n,
            s.steps,
            plan.noise.noise_multiplier
        ),
        ..pair
    })
}

fn nsgd_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    nsgd_family_pair(setting, NsgdVariant::Smooth)
}

fn nsgd_moreau_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    nsgd_family_pair(setting, NsgdVariant::MoreauEnvelope)
}

fn prox_gd_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    nsgd_family_pair(setting, NsgdVariant::ProxGd)
}

/// `objp`: the LinBall pair, refused where the projection of `(L z_bar -
/// G/n)/(2 lambda)` binds with probability above `delta/100`.
fn objp_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = lin_ball_pair(setting, Relation::ReplaceOne)?;
    let privacy = approx(setting)?;
    let plan = ObjPPlan::new(objective(&pair), privacy, HessianRank::AtMostOne)?;
    let s = &plan.setting;
    // w_1 = (L z_bar - G_1/n)/(2 lambda) with z_bar_1 = +-1/n; the other
    // coordinates are centred.
    let scale = 2.0 * plan.lambda * s.n;
    let (mean, sd) = (s.lipschitz / scale, plan.sigma_g / scale);
    let binds =
        2.0 * normal_cdf(-(s.radius - mean) / sd) + 2.0 * (s.d - 1.0) * normal_cdf(-s.radius / sd);
    if binds > privacy.delta / 100.0 {
        return Err(invalid(format!(
            "the projection onto B(0, M) binds with probability up to {binds:.2e} > delta/100 \
             (sd {sd:.4} of the release against M = {}): take n larger",
            s.radius
        )));
    }
    Ok(AuditPair {
        description: format!(
            "{}; release sd {sd:.4} against the shift {:.4}, projection binds with probability \
             <= {binds:.1e}",
            pair.description,
            2.0 * mean
        ),
        ..pair
    })
}

/// `objp_app`: the LinBall pair at a setting Algorithm 3 accepts.
fn objp_app_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    let pair = lin_ball_pair(setting, Relation::ReplaceOne)?;
    let privacy = approx(setting)?;
    let algorithm = ObjPApp {
        variant: ObjPAppOptions::read(setting.options)?.constants.into(),
        ..ObjPApp::default()
    };
    algorithm.plan(objective(&pair), privacy, HessianRank::AtMostOne)?;
    Ok(pair)
}

/// `one_pass_sgd`: the LinBall pair (a non-private reference: no noise).
fn one_pass_sgd_pair(setting: &AuditSetting) -> Result<AuditPair, RunFailure> {
    lin_ball_pair(setting, Relation::ReplaceOne)
}

/// `nsgd`: full-batch noisy GD on LinBall, Gaussian-DP fit; its transcript
/// at any batch rate.
pub(crate) const NSGD: AuditDef = AuditDef {
    pair: nsgd_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: Some(nsgd_transcript),
    method: "LinBall's canary +e1 against -e1 (record gradients -L e1 and +L e1, at the clip L) with \
             n - 1 zero records: the batch sum moves by the full replace-one sensitivity 2L. At full \
             batch (m = n, eps > 4T(1 - 1/n)^2) the gradients are constant, so the averaged iterate \
             is affine in the Gaussian noise (pair refused where the projection could bind): a \
             Gaussian mean shift, hence the Gaussian-DP fit. Its transcript statistic, at any batch \
             rate: the privacy loss of the T noisy gradients, each a mixture over the canary's \
             inclusion (the shared records are 0, so the loss never reads the sample)",
};

/// `nsgd_with_replacement`: its transcript only, on `nsgd`'s LinBall pair.
pub(crate) const NSGD_WITH_REPLACEMENT: AuditDef = AuditDef {
    pair: nsgd_with_replacement_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: Some(nsgd_with_replacement_transcript),
    method: "LinBall's canary +e1 against -e1 (record gradients -L e1 and +L e1, at the clip L) with \
             n - 1 zero records, as nsgd's transcript pair. Algorithm 1's batches draw m indices with \
             replacement, so the canary enters each batch r ~ Binomial(m, 1/n) times and the step's \
             mean moves by r L/m on each side: every release is a mixture over r, and only the \
             transcript is audited. Its statistic: the privacy loss of the T noisy gradients, each \
             a mixture over r (the shared records are 0, so the loss never reads the draws)",
};

/// `nsgd_moreau`: one full-batch step on AbsDeviation's envelope,
/// Gaussian-DP fit.
pub(crate) const NSGD_MOREAU: AuditDef = AuditDef {
    pair: nsgd_moreau_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method: "AbsDeviation's canary +e1 against -e1, the shared records in cancelling +- pairs: at \
             w_0 = 0 the canary's envelope gradient is -min(beta_env tau, L) e1, the replace-one \
             sensitivity up to beta_env tau/L (0.968 at n = 15, d = 1, eps = 4). With T = 1 and m = \
             n (n < 16, eps > 4(1 - 1/n)^2) the release is -eta (mean gradient at w_0 + noise): a \
             Gaussian mean shift, hence the Gaussian-DP fit",
};

/// `prox_gd`: full-batch noisy GD with inexact proxes on LinBall,
/// Gaussian-DP fit.
pub(crate) const PROX_GD: AuditDef = AuditDef {
    pair: prox_gd_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: Some(prox_gd_transcript),
    method:
        "LinBall's canary +e1 against -e1 with n - 1 zero records: the inexact prox of a linear \
             loss is w + L z/beta up to the inner method's deterministic error, so the envelope \
             gradients are constant (-L e1 and +L e1 up to that error; the noise is calibrated to \
             the clip L(1 + 1/n), so the pair is worst-case up to n/(n + 1)) and, at full batch \
             (n >= 16 for Fact 4.6, so T >= 2 and eps > 4T(1 - 1/n)^2), the averaged iterate is \
             affine in the Gaussian noise: a Gaussian mean shift, hence the Gaussian-DP fit. Its \
             transcript statistic, at any batch rate: the privacy loss of the T noisy envelope \
             gradients, each a mixture over the canary's inclusion, the canary's inexact envelope \
             gradient recomputed by the run's own inner method (the shared records' is exactly 0)",
};

/// `one_pass_sgd`: the non-private reference, audited as a positive control.
pub(crate) const ONE_PASS_SGD: AuditDef = AuditDef {
    pair: one_pass_sgd_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: None,
    method:
        "LinBall's canary +e1 against -e1 with n - 1 zero records; one-pass SGD adds no noise, \
             so the first coordinate differs deterministically and any claim is violated up to the \
             threshold audit's ceiling (a positive control: the entry is non-private by design)",
};

/// `objp`: exact objective perturbation on LinBall, Gaussian-DP fit.
pub(crate) const OBJP: AuditDef = AuditDef {
    pair: objp_pair,
    statistic: first_coordinate,
    estimator: Estimator::GaussianDp,
    transcript: None,
    method:
        "LinBall's canary +e1 against -e1 with n - 1 zero records: the release Proj((L z_bar - \
             G/n)/(2 lambda)) is the Gaussian mechanism on L sum z_i with the full sensitivity 2L \
             (linear losses have no Jacobian term); pair refused where the projection could bind, \
             so the statistic is a Gaussian mean shift, hence the Gaussian-DP fit",
};

/// `objp_app`: approximate objective perturbation on LinBall, threshold
/// audit.
pub(crate) const OBJP_APP: AuditDef = AuditDef {
    pair: objp_app_pair,
    statistic: first_coordinate,
    estimator: Estimator::Threshold,
    transcript: None,
    method:
        "LinBall's canary +e1 against -e1 with n - 1 zero records: G and H both move the release \
             along e1 and the sensitivity of L sum z_i is the full 2L. SVRG stops at a certificate \
             that depends on G and the data, so the release is only close to Gaussian: threshold \
             audit",
};
