//! The transcript audits of the Wang–Zhu–Wang entries (issue 40 item 1):
//! `M*` reports every mechanism its budget composes over (each candidate's
//! NGD steps and its noisy score) and the observer's loss is the
//! transcript's log likelihood ratio on the canary pair. Checked by the
//! identities every log likelihood ratio `L = ln p_D/p_D'` satisfies,
//! `E_D[e^-L] = 1 = E_D'[e^L]`, and by the accountant: the transcript's mean
//! loss on `D` (its KL divergence) is positive and at most `mu^2/2` for a
//! `mu`-GDP composition of Gaussian mechanisms. 4 000 fixed-seed runs a
//! side; each check allows 4 standard errors (a false alarm about 6e-5 on
//! these seeds). Observing a run leaves its release bit for bit.

mod common;

use common::{assert_unit_exp_mean, entry_defaults, mean_and_se, transcript_losses};
use contract::audit::{AuditPair, AuditSetting};
use contract::seeds::rng_from_seed;
use contract::{Instance, Privacy, Value, Values};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::PrivacyParams;
use solvers::transcript::{Query, Transcript};
use solvers::wang::{m_star, m_star_observed, BudgetConversion, MStarOptions};

const EPS: f64 = 1.0;
const DELTA: f64 = 1e-5;

/// The entry's options at their defaults, with `overrides`.
fn options(name: &str, overrides: &[(&str, &str)]) -> Values {
    let mut v = entry_defaults(name);
    for (k, val) in overrides {
        v.insert((*k).into(), Value::Str((*val).into()));
    }
    v
}

fn privacy() -> Privacy {
    Privacy::Approx(PrivacyParams::approx(EPS, DELTA))
}

fn pair(name: &str, opts: &Values, n: usize, d: usize) -> AuditPair {
    let def = papers::algorithm(name).unwrap();
    let setting = AuditSetting {
        n,
        d,
        options: opts,
        privacy: privacy(),
        transcript: true,
    };
    (def.audit.unwrap().pair)(&setting).unwrap()
}

fn halfspace(pair: &AuditPair, side: usize) -> &dyn HalfspaceProblem {
    match &pair.instances[side] {
        Instance::Halfspace(p) => p.as_ref(),
        _ => unreachable!(),
    }
}

fn tight() -> MStarOptions {
    MStarOptions {
        conversion: BudgetConversion::Tight,
        ..MStarOptions::default()
    }
}

#[test]
fn m_star_transcript_loss_is_a_log_likelihood_ratio_within_the_accountant() {
    let name = "wang_m_star";
    let opts = options(name, &[("conversion", "tight")]);
    let (n, d) = (16, 32);
    let pair = pair(name, &opts, n, d);
    let run = m_star(
        halfspace(&pair, 0),
        PrivacyParams::approx(EPS, DELTA),
        tight(),
        &mut rng_from_seed(1),
    )
    .unwrap();
    let steps: Vec<u64> = run.candidates.iter().map(|c| c.steps).collect();
    assert!(steps.iter().any(|&t| t > 1), "steps {steps:?}");
    let mu = run.privacy.mu;
    let (d_side, d_prime_side) = transcript_losses(name, &opts, &pair, privacy(), 4_000, 30_000);
    let (m, se) = mean_and_se(&d_side);
    assert!(m > 4.0 * se, "mean loss on D {m} +- {se}");
    assert!(
        m <= mu * mu / 2.0 + 4.0 * se,
        "KL {m} +- {se} above mu^2/2 = {}",
        mu * mu / 2.0
    );
    let (w, wse) = assert_unit_exp_mean("M*", &d_side, -1.0);
    let (w1, wse1) = assert_unit_exp_mean("M*", &d_prime_side, 1.0);
    eprintln!(
        "M* transcript: steps {steps:?}, |Gamma| {}, mu {mu:.4} (mu^2/2 {:.4}), KL {m:.4} +- {se:.4}, \
         E_D[e^-L] {w:.4} +- {wse:.4}, E_D'[e^L] {w1:.4} +- {wse1:.4}",
        steps.len(),
        mu * mu / 2.0
    );
}

/// Counts what an `M*` run reports.
#[derive(Default)]
struct Count {
    rows: usize,
    outputs: usize,
    steps: usize,
    scores: usize,
}

impl Transcript for Count {
    fn rows(&mut self, _: &[f64], _: &[f64], _: &[f64]) {
        self.rows += 1;
    }
    fn output(&mut self, _: &[f64]) {
        self.outputs += 1;
    }
    fn gaussian(&mut self, query: Query, _: &[f64], _: &[f64], _: &[f64], _: f64) {
        match query {
            Query::HingeGradientSum { .. } => self.steps += 1,
            Query::ZeroOneScore => self.scores += 1,
            other => panic!("M* released {other:?}"),
        }
    }
}

#[test]
fn observing_m_star_leaves_its_release_bit_for_bit_and_reports_every_mechanism() {
    let opts = options("wang_m_star", &[]);
    let pair = pair("wang_m_star", &opts, 16, 32);
    let problem = halfspace(&pair, 0);
    let privacy = PrivacyParams::approx(EPS, DELTA);
    let plain = m_star(problem, privacy, tight(), &mut rng_from_seed(5)).unwrap();
    let mut count = Count::default();
    let observed =
        m_star_observed(problem, privacy, tight(), &mut count, &mut rng_from_seed(5)).unwrap();
    let bits = |w: &[f64]| w.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&plain.w), bits(&observed.w));
    let len = plain.candidates.len();
    let steps: u64 = plain.candidates.iter().map(|c| c.steps).sum();
    assert_eq!(
        (count.rows, count.outputs, count.steps as u64, count.scores),
        (len, len, steps, len)
    );
}
