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
//! runs ([`audit::reflag`], [`REPLICATES`] replicates). The probes lie on
//! the grid `reference x GROWTH^k`, `k <` [`MAX_PROBES`] (or the row's
//! `power_probes`); the row's power for its statistic is the smallest grid
//! point flagged (the true 95% point lies at or below it), or none within
//! reach when the largest is not.
//!
//! The grid is searched in the order that needs few probes when the flag
//! rate grows with `eps'`: the reference first; after an unflagged point,
//! the next one up when some replicates already flag there (rate above 0),
//! else the largest point (if it is not flagged, neither is any below it);
//! between an unflagged and a flagged point, bisection ([`Ladder`]). A row
//! flagged nowhere costs 2 probes instead of 5: on the full audit of
//! 2026-11-29 that was the likely end of 44 of the 49 rows probed, unflagged
//! at the reference with rate 0.00 (its first round took about 3.3
//! thread-hours, 2.1 of them one row's probe). A row flagged one step above
//! a reference some replicates flag costs 2, as a scan would.
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

/// Probes per row at most (defined with the spec, which validates a row's
/// `power_probes` against it).
pub use super::spec::MAX_PROBES;

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
    /// Probing the grid.
    Probing(Ladder),
}

/// One row's probes on the grid `reference x GROWTH^k`, `k <= last`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ladder {
    /// The reference power (grid point 0).
    pub reference: f64,
    /// The largest grid index the row may probe.
    pub last: usize,
    /// The probes so far: grid index and flag rate, in the order run (a
    /// probe's `eps'` is [`probe_eps`] of its index).
    pub probes: Vec<(usize, f64)>,
}

/// What a [`Ladder`] does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Probe grid point `k`.
    Probe(usize),
    /// Grid point `k` is the smallest flagged: the power.
    Found(usize),
    /// No grid point up to `last` is flagged.
    NotFound,
}

impl Ladder {
    /// A search over grid points `0..=last` from `reference`.
    pub fn new(reference: f64, last: usize) -> Ladder {
        Ladder {
            reference,
            last,
            probes: Vec::new(),
        }
    }

    /// The next step. The reference first. After the largest point known
    /// unflagged: the point above it when some replicates already flag
    /// there (rate above 0: the rates measured rise from a few percent to
    /// 1 within one grid step), else the largest point (a rate of 0 says
    /// the crossing is far, and a search flagged nowhere then ends in two
    /// probes). Between an unflagged and a flagged point, bisection. Each
    /// step probes a point inside the bracket and not yet probed, so the
    /// search finds what a scan up the grid finds when the rate grows with
    /// `eps'`, within `last + 1` probes.
    pub fn next(&self) -> Step {
        if self.probes.is_empty() {
            return Step::Probe(0);
        }
        let flagged = |r: f64| r >= 0.95;
        let below = self
            .probes
            .iter()
            .filter(|p| !flagged(p.1))
            .max_by_key(|p| p.0)
            .copied();
        let above = self
            .probes
            .iter()
            .filter(|p| flagged(p.1))
            .map(|p| p.0)
            .min();
        let close = |rate: f64| rate > 0.0;
        match (below, above) {
            (_, Some(h)) => {
                let first = below.map_or(0, |(l, _)| l + 1);
                match below {
                    _ if first >= h => Step::Found(h),
                    Some((l, rate)) if close(rate) => Step::Probe(l + 1),
                    _ => Step::Probe((first + h - 1) / 2),
                }
            }
            (Some((l, _)), None) if l >= self.last => Step::NotFound,
            (Some((l, rate)), None) if close(rate) => Step::Probe(l + 1),
            (_, None) => Step::Probe(self.last),
        }
    }

    /// The probes as `(eps', rate)` in increasing `eps'`.
    pub fn sorted(&self) -> Vec<(f64, f64)> {
        let mut p = self.probes.clone();
        p.sort_by_key(|q| q.0);
        p.into_iter()
            .map(|(k, r)| (probe_eps(self.reference, k), r))
            .collect()
    }
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
                (Verdict::Consistent, Some(_), _) if o.audit.profile_probes == Some(0) => {
                    Search::Done(Power {
                        detectable_eps_95: None,
                        own_rate: None,
                        probes: Vec::new(),
                        note: "not probed: the profile sets power_probes = 0 for this row".into(),
                    })
                }
                (Verdict::Consistent, Some(reference), _) => {
                    // The spec's limit is a cost limit at the row's own runs;
                    // a profile that runs fewer (quick: 20 000 a side) probes
                    // the whole grid unless it sets its own limit.
                    let limit = o.audit.profile_probes.or(o
                        .audit
                        .row
                        .power_probes
                        .filter(|_| o.audit.runs == o.audit.row.runs));
                    Search::Probing(Ladder::new(reference, limit.unwrap_or(MAX_PROBES) - 1))
                }
            }
        })
        .collect();
    // Each round probes, for every row still searching, a grid point it has
    // not probed, so every search ends within MAX_PROBES rounds.
    for _ in 0..=MAX_PROBES {
        let mut probes: Vec<(usize, usize, Audit)> = Vec::new();
        for (i, search) in searches.iter_mut().enumerate() {
            let Search::Probing(ladder) = search else {
                continue;
            };
            let a = &outcomes[i].audit;
            match ladder.next() {
                Step::Probe(k) => {
                    let p = probe(a, k, probe_eps(ladder.reference, k), a.zcdp_delta);
                    // A probe whose entry refuses its privacy (a theorem
                    // proven only for eps <= 1, say) ends its row's search
                    // with the reason.
                    match super::execute::build_pair(&p) {
                        Ok(_) => probes.push((i, k, p)),
                        Err(e) => {
                            let note = format!(
                                "the probe at eps {:.4} cannot run: {e:#}",
                                claimed_eps_delta(p.run_at, outcomes[i].claimed.1).0
                            );
                            *search = Search::Done(found(ladder, None, note));
                        }
                    }
                }
                Step::Found(k) => {
                    *search = Search::Done(found(
                        ladder,
                        Some(probe_eps(ladder.reference, k)),
                        String::new(),
                    ));
                }
                Step::NotFound => {
                    let top = ladder.sorted().last().copied().expect("probed");
                    let mut note = format!(
                        "not flagged with probability 0.95 up to eps {:.4} (rate {:.2})",
                        top.0, top.1
                    );
                    if ladder.last + 1 < MAX_PROBES {
                        let by = if a.profile_probes.is_some() {
                            "the profile"
                        } else {
                            "the spec"
                        };
                        note.push_str(&format!(
                            "; {by} limits this row to {} probe{} (power_probes; the note says what one costs)",
                            ladder.last + 1,
                            if ladder.last == 0 { "" } else { "s" }
                        ));
                    }
                    *search = Search::Done(found(ladder, None, note));
                }
            }
        }
        if probes.is_empty() {
            break;
        }
        let audits: Vec<Audit> = probes.iter().map(|(_, _, a)| a.clone()).collect();
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
                .map(|(i, _, p)| {
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
                .filter_map(|((_, _, p), r)| {
                    let (r, key) = r.as_ref().ok()?.clone();
                    Some((p.row.name.clone(), key, r))
                })
                .collect(),
        );
        for ((i, k, _), r) in probes.iter().zip(rated) {
            let Search::Probing(ladder) = &mut searches[*i] else {
                unreachable!("only probing rows were probed")
            };
            match r {
                Err(e) => {
                    let eps = probe_eps(ladder.reference, *k);
                    let note = format!("the probe at eps {eps:.4} failed: {e}");
                    searches[*i] = Search::Done(found(ladder, None, note));
                }
                Ok((r, _)) => ladder.probes.push((*k, r)),
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
                Search::Probing(_) => unreachable!("every search ends within MAX_PROBES rounds"),
            })
            .collect(),
    ))
}

/// A consistent row's power from its ladder: `detectable_eps_95` (when
/// found), the probes in increasing `eps'`, and what limited the search.
fn found(ladder: &Ladder, detectable_eps_95: Option<f64>, note: String) -> Power {
    Power {
        detectable_eps_95,
        own_rate: None,
        probes: ladder.sorted(),
        note,
    }
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

    /// Runs a ladder against a flag rate that is 1 from grid point
    /// `first_flagged` on, `near` just below it and 0 further down; returns
    /// the outcome and the probes.
    fn search_near(last: usize, first_flagged: Option<usize>, near: f64) -> (Step, Vec<usize>) {
        let mut ladder = Ladder::new(1.0, last);
        loop {
            match ladder.next() {
                Step::Probe(k) => {
                    assert!(
                        ladder.probes.iter().all(|p| p.0 != k),
                        "grid point {k} probed twice"
                    );
                    let rate = match first_flagged {
                        Some(f) if k >= f => 1.0,
                        Some(f) if k + 1 == f => near,
                        _ => 0.0,
                    };
                    ladder.probes.push((k, rate));
                }
                done => return (done, ladder.probes.iter().map(|p| p.0).collect()),
            }
        }
    }

    fn search(last: usize, first_flagged: Option<usize>) -> (Step, Vec<usize>) {
        search_near(last, first_flagged, 0.0)
    }

    /// Where some replicates already flag a point, the next point up comes
    /// next: a power one step above the reference costs two probes, as a
    /// scan would.
    #[test]
    fn a_rate_above_zero_steps_up_one_point() {
        for last in 1..MAX_PROBES {
            for f in 1..=last {
                let (step, probed) = search_near(last, Some(f), 0.2);
                assert_eq!(step, Step::Found(f), "last {last}, first {f}");
                assert!(probed.len() <= 4, "{probed:?}");
            }
        }
        assert_eq!(search_near(4, Some(1), 0.2).1, vec![0, 1]);
    }

    /// The bisecting ladder finds what a scan up the grid finds (the
    /// smallest flagged point, or none) with fewer probes: 2 when nothing is
    /// flagged, 1 when the reference is, never more than 4 of 5.
    #[test]
    fn the_ladder_finds_the_smallest_flagged_point_in_few_probes() {
        for last in 0..MAX_PROBES {
            for first in (0..=last).map(Some).chain([None]) {
                let (step, probed) = search(last, first);
                match first {
                    Some(f) => assert_eq!(step, Step::Found(f), "last {last}, first {f}"),
                    None => assert_eq!(step, Step::NotFound, "last {last}"),
                }
                assert_eq!(probed[0], 0, "the reference comes first");
                let most = match (last, first) {
                    (0, _) => 1,
                    (_, Some(0)) => 1,
                    (_, None) => 2,
                    _ => 4,
                };
                assert!(probed.len() <= most, "last {last}, {first:?}: {probed:?}");
            }
        }
        // A row flagged nowhere on the whole grid: the reference and the top.
        assert_eq!(search(MAX_PROBES - 1, None).1, vec![0, MAX_PROBES - 1]);
    }
}
