//! The power of each audit for its own statistic.
//!
//! The reference power ([`audit::Assessment::detectable_eps_95`]) is the
//! `eps` of an ideal release (a Gaussian or Laplace mechanism whose whole
//! privacy loss shows in the statistic) that an audit of the row's size
//! flags with probability 0.95. A real statistic can show far less of the
//! loss (a clip, a projection, a norm), and then that figure overstates
//! what a consistent row rules out. So for every consistent row the runner
//! runs **probes**: the same algorithm, options, pair and statistic with the
//! row's number of runs, calibrated by its own entry to a larger privacy
//! `eps'` (its accountant then certifies `eps'` and no less: it is the
//! algorithm with a calibration error of that size), audited against the
//! row's claim. Whether an audit of that size flags the probe with
//! probability at least 0.95 is measured by the bootstrap of the probe's
//! runs ([`audit::reflag`], [`REPLICATES`] replicates). The probes start
//! at the reference power and grow by [`GROWTH`] until one is flagged, at
//! most [`MAX_PROBES`] of them; the row's power for its statistic is the
//! first `eps'` flagged (the smallest on that grid: the true 95% point lies
//! at or below it), or none within reach when the last is not.
//!
//! A violation row is bootstrapped on its own runs (the rate at which an
//! audit of its size flags the release it ran); its power is the `eps` of
//! that release when known (the run-at privacy of a control, the realised
//! `eps` the spec gives for an erratum) and the rate is at least 0.95.
//!
//! Probes are stored in the audit file like rows (named `<row>@probe<k>`,
//! with their own identity), so an interrupted run resumes them.

use dpcore::PrivacyParams;
use std::time::Duration;

use anyhow::Result;
use audit::Verdict;
use contract::seeds::SeedBuilder;
use rayon::prelude::*;

use super::execute::execute;
use super::outcome::{claimed_eps_delta, declared_method, Outcome, Power};
use super::spec::{Audit, AuditPlan};
use super::store::{AuditRuns, AuditStore};
use crate::registry::Privacy;

/// Bootstrap replicates per assessed set of runs (the 95% call is made at
/// 95 of 100; tests/estimators.rs measures how it tracks independent
/// audits).
pub const REPLICATES: usize = 100;

/// Ratio of successive probes' `eps'`.
pub const GROWTH: f64 = 1.5;

/// Probes per row at most: the last is at `GROWTH^4 ~ 5.1` times the
/// reference power.
pub const MAX_PROBES: usize = 5;

/// The separator of a probe's name in the audit file.
pub const PROBE_MARK: &str = "@probe";

/// The name of a row's probe `k`.
pub fn probe_name(row: &str, k: usize) -> String {
    format!("{row}{PROBE_MARK}{k}")
}

/// The row name a stored audit belongs to (itself, or the row of a probe).
pub fn row_of(stored: &str) -> &str {
    stored.split(PROBE_MARK).next().unwrap_or(stored)
}

/// The `eps'` of probe `k` from the reference power.
pub fn probe_eps(reference: f64, k: usize) -> f64 {
    reference * GROWTH.powi(k as i32)
}

/// Probe `k` of `row`: the row calibrated to `eps` (in the claim's unit: a
/// zCDP row at the `rho` whose conversion at `zcdp_delta` is `eps`),
/// claiming the row's claim, with the row's runs.
pub fn probe(row: &Audit, k: usize, eps: f64, zcdp_delta: f64) -> Audit {
    let run_at = match row.claim {
        Privacy::Approx(p) => Privacy::Approx(PrivacyParams {
            eps,
            delta: p.delta,
        }),
        Privacy::Zcdp(_) => Privacy::Zcdp(rho_of_eps(eps, zcdp_delta)),
    };
    let mut p = row.clone();
    p.row.name = probe_name(&row.row.name, k);
    p.run_at = run_at;
    p
}

/// The `rho` whose Canonne–Kamath–Steinke `eps` at `delta` is `eps`
/// (bisection on the increasing conversion, to a relative 1e-12).
pub fn rho_of_eps(eps: f64, delta: f64) -> f64 {
    let eps_of = |rho: f64| claimed_eps_delta(Privacy::Zcdp(rho), delta).0;
    let (mut lo, mut hi) = (0.0, 1.0);
    while eps_of(hi) < eps {
        hi *= 2.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if eps_of(mid) < eps {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The bootstrap seed of a stored set of runs: fixed by the master seed and
/// the audit's name, so the CSV is deterministic.
pub fn bootstrap_seed(seed: u64, name: &str) -> u64 {
    SeedBuilder::new(seed, "audit-power")
        .push_str(name)
        .finish()
}

/// Where one row's search stands.
enum Search {
    /// No power (the row was not measured).
    None,
    /// Found, or given up, with the result.
    Done(Power),
    /// Probing: the reference power and the probes so far.
    Probing {
        reference: f64,
        probes: Vec<(f64, f64)>,
    },
}

/// The bootstrap of stored runs against `outcome`'s claim with its
/// declared estimator (the runs' own atom check applies): the rate, and
/// the key it is kept under in the runs' `rates` when it was computed now
/// (`None`: read back from an earlier segment).
fn rate(
    plan: &AuditPlan,
    outcome: &Outcome,
    name: &str,
    runs: &AuditRuns,
) -> (f64, Option<String>) {
    let method = declared_method(&outcome.audit, outcome.claimed);
    let seed = bootstrap_seed(plan.file.seed, name);
    // Everything the rate depends on besides the runs (whose identity
    // resets `rates` when it changes) and their count; the near-tie
    // tolerance is the estimators' own (a rate bootstrapped before it
    // existed is recomputed, not reused).
    let key = format!(
        "{method:?}|ties={:e}|{:?}|{:?}|{:?}|{REPLICATES}|{seed}|{}|{}",
        audit::NEAR_TIE_RELATIVE,
        outcome.claimed.0,
        outcome.claimed.1,
        plan.file.alpha,
        runs.d.len(),
        runs.d_prime.len()
    );
    if let Some(r) = runs.rates.get(&key) {
        return (*r, None);
    }
    let r = audit::reflag(
        &runs.d,
        &runs.d_prime,
        method,
        outcome.claimed.0,
        outcome.claimed.1,
        plan.file.alpha,
        REPLICATES,
        seed,
    )
    .rate();
    (r, Some(key))
}

/// Keeps the rates computed now in their runs' `rates` (written with the
/// next flush); returns how many.
fn keep_rates(store: &mut AuditStore, computed: Vec<(String, Option<String>, f64)>) -> usize {
    let mut kept = 0;
    for (name, key, r) in computed {
        if let Some(key) = key {
            store
                .audits
                .get_mut(&name)
                .expect("rated runs are stored")
                .rates
                .insert(key, r);
            kept += 1;
        }
    }
    kept
}

/// The power of every outcome for its statistic (module docs): runs the
/// probes the consistent rows need (stored in `store`, resumable) and
/// bootstraps. `None` when interrupted.
pub fn measure(
    plan: &AuditPlan,
    outcomes: &[Outcome],
    store: &mut AuditStore,
    threads: usize,
    progress: bool,
    flush_every: Duration,
) -> Result<Option<Vec<Option<Power>>>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let own: Vec<Option<(f64, Option<String>)>> = pool.install(|| {
        outcomes
            .par_iter()
            .map(|o| {
                // Only a violation's power is read from its own runs.
                o.assessment
                    .as_ref()
                    .filter(|a| a.verdict == Verdict::Violation)?;
                Some(rate(
                    plan,
                    o,
                    &o.audit.row.name,
                    &store.audits[&o.audit.row.name],
                ))
            })
            .collect()
    });
    let mut unflushed = keep_rates(
        store,
        outcomes
            .iter()
            .zip(&own)
            .filter_map(|(o, r)| {
                let (r, key) = r.clone()?;
                Some((o.audit.row.name.clone(), key, r))
            })
            .collect(),
    );
    let own: Vec<Option<f64>> = own.into_iter().map(|r| r.map(|(r, _)| r)).collect();
    let mut searches: Vec<Search> = outcomes
        .iter()
        .zip(own)
        .map(|(o, own_rate)| {
            let Some(a) = &o.assessment else {
                return Search::None;
            };
            match (a.verdict, a.detectable_eps_95, own_rate) {
                (Verdict::Violation, _, Some(own_rate)) => {
                    Search::Done(violation_power(o, own_rate))
                }
                (Verdict::Violation, _, None) => unreachable!("violations are bootstrapped"),
                (Verdict::Consistent, None, _) => Search::Done(Power {
                    detectable_eps_95: None,
                    own_rate: None,
                    probes: Vec::new(),
                    note: "no reference release is flagged by an audit of this size".into(),
                }),
                (Verdict::Consistent, Some(reference), _) => Search::Probing {
                    reference,
                    probes: Vec::new(),
                },
            }
        })
        .collect();
    for k in 0..MAX_PROBES {
        let probes: Vec<(usize, Audit)> = searches
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Search::Probing { reference, .. } => Some((
                    i,
                    probe(
                        &outcomes[i].audit,
                        k,
                        probe_eps(*reference, k),
                        outcomes[i].audit.zcdp_delta,
                    ),
                )),
                _ => None,
            })
            .collect();
        // A probe whose entry refuses its privacy (a theorem proven only
        // for eps <= 1, say) ends its row's search with the reason.
        let probes: Vec<(usize, Audit)> = probes
            .into_iter()
            .filter(|(i, p)| match super::execute::build_pair(p) {
                Ok(_) => true,
                Err(e) => {
                    let Search::Probing { probes, .. } = &mut searches[*i] else {
                        unreachable!("only probing rows are probed")
                    };
                    let note = format!(
                        "the probe at eps {:.4} cannot run: {e:#}",
                        claimed_eps_delta(p.run_at, outcomes[*i].claimed.1).0
                    );
                    searches[*i] = Search::Done(Power {
                        detectable_eps_95: None,
                        own_rate: None,
                        probes: std::mem::take(probes),
                        note,
                    });
                    false
                }
            })
            .collect();
        if probes.is_empty() {
            break;
        }
        let audits: Vec<Audit> = probes.iter().map(|(_, a)| a.clone()).collect();
        if execute(
            &audits,
            plan.file.seed,
            store,
            threads,
            progress,
            flush_every,
        )? {
            return Ok(None);
        }
        let rated: Vec<Result<(f64, Option<String>), String>> = pool.install(|| {
            probes
                .par_iter()
                .map(|(i, p)| {
                    let runs = &store.audits[&p.row.name];
                    if runs.d.iter().chain(&runs.d_prime).any(|x| !x.is_finite()) {
                        return Err(runs.first_error.clone());
                    }
                    Ok(rate(plan, &outcomes[*i], &p.row.name, runs))
                })
                .collect()
        });
        unflushed += keep_rates(
            store,
            probes
                .iter()
                .zip(&rated)
                .filter_map(|((_, p), r)| {
                    let (r, key) = r.as_ref().ok()?.clone();
                    Some((p.row.name.clone(), key, r))
                })
                .collect(),
        );
        let rates: Vec<Result<f64, String>> =
            rated.into_iter().map(|r| r.map(|(r, _)| r)).collect();
        for ((i, _), r) in probes.iter().zip(rates) {
            let Search::Probing { reference, probes } = &mut searches[*i] else {
                unreachable!("only probing rows were probed")
            };
            let eps = probe_eps(*reference, k);
            let done = |detectable_eps_95, probes: Vec<(f64, f64)>, note: String| Power {
                detectable_eps_95,
                own_rate: None,
                probes,
                note,
            };
            match r {
                Err(e) => {
                    let note = format!("the probe at eps {eps:.4} failed: {e}");
                    searches[*i] = Search::Done(done(None, std::mem::take(probes), note));
                }
                Ok(r) => {
                    probes.push((eps, r));
                    if r >= 0.95 {
                        let p = std::mem::take(probes);
                        searches[*i] = Search::Done(done(Some(eps), p, String::new()));
                    } else if k + 1 == MAX_PROBES {
                        let note = format!(
                            "not flagged with probability 0.95 up to eps {eps:.4} (rate {r:.2})"
                        );
                        searches[*i] = Search::Done(done(None, std::mem::take(probes), note));
                    }
                }
            }
        }
    }
    // The last round's rates (earlier rounds' went out with the next
    // round's flush): a rerun then reads every rate back.
    if unflushed > 0 {
        store.flush()?;
    }
    Ok(Some(
        searches
            .into_iter()
            .map(|s| match s {
                Search::None => None,
                Search::Done(p) => Some(p),
                Search::Probing { .. } => unreachable!("every search ends by MAX_PROBES"),
            })
            .collect(),
    ))
}

/// A violation row's power: the `eps` of the release it ran (a control's
/// run-at privacy, an erratum's realised `eps`) when the bootstrap flags it
/// in at least 95% of replicates.
fn violation_power(o: &Outcome, own_rate: f64) -> Power {
    let a = &o.audit;
    let released = if a.run_at != a.claim {
        Some(claimed_eps_delta(a.run_at, o.claimed.1).0)
    } else {
        a.row.realised_eps
    };
    let (detectable_eps_95, note) = match (released, own_rate >= 0.95) {
        (Some(eps), true) => (Some(eps), String::new()),
        (None, true) => (
            None,
            "flagged; the eps of the release is not stated in the spec".into(),
        ),
        (_, false) => (
            None,
            format!("an audit of this size flags this release at rate {own_rate:.2}"),
        ),
    };
    Power {
        detectable_eps_95,
        own_rate: Some(own_rate),
        probes: Vec::new(),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_names_lead_back_to_their_row() {
        assert_eq!(row_of(&probe_name("lr-op-gaussian", 3)), "lr-op-gaussian");
        assert_eq!(row_of("lr-op-gaussian"), "lr-op-gaussian");
    }

    #[test]
    fn the_rho_of_an_eps_converts_back_to_it() {
        for eps in [0.3, 1.0, 4.0] {
            let rho = rho_of_eps(eps, 1e-5);
            let back = claimed_eps_delta(Privacy::Zcdp(rho), 1e-5).0;
            assert!((back - eps).abs() < 1e-9 * eps, "{eps} {rho} {back}");
        }
    }

    #[test]
    fn probes_grow_geometrically_from_the_reference() {
        assert_eq!(probe_eps(2.0, 0), 2.0);
        assert!((probe_eps(2.0, 2) - 4.5).abs() < 1e-12);
    }
}
