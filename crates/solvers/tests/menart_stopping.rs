//! Algorithm 3's two stopping rules (digest §2.4): the listing's filter
//! (charges so far `<= rho/2`) and D.3's (`<= rho`), under which D.6 counts
//! Theorem 5's steps (claim MN-T5-iters).

use datagen::menart::{GemanMcClure, GemanMcClureParams};
use dpcore::menart::KlObjective;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::menart::adaptive::{AdaptiveNoisyGd, StoppingRule};
use solvers::menart::Calibration;
use solvers::transcript::{Query, Transcript};

/// Records every noisy gradient (not the norms) of a run.
#[derive(Default)]
struct Gradients(Vec<Vec<f64>>);

impl Transcript for Gradients {
    fn gaussian(&mut self, query: Query, _: &[f64], _: &[f64], released: &[f64], _: f64) {
        if matches!(query, Query::ClippedMeanGradient { .. }) {
            self.0.push(released.to_vec());
        }
    }

    fn observes(&self) -> bool {
        true
    }
}

fn instance(n: usize, d: usize, seed: u64) -> GemanMcClure {
    GemanMcClure::new(
        GemanMcClureParams::new(n, d),
        &mut Pcg64::seed_from_u64(seed),
    )
}

fn paper(stopping: StoppingRule) -> AdaptiveNoisyGd {
    AdaptiveNoisyGd {
        calibration: Calibration::PaperLiteral,
        stopping,
    }
}

#[test]
fn the_default_is_the_listings_filter() {
    assert_eq!(AdaptiveNoisyGd::default().stopping, StoppingRule::Listing);
    assert_eq!(StoppingRule::Listing.threshold(8.0), 4.0);
    assert_eq!(StoppingRule::ChargesPastRho.threshold(8.0), 8.0);
}

#[test]
fn d3_continues_the_listings_run_draw_for_draw_and_runs_longer() {
    let problem = instance(200, 8, 1);
    for seed in 0..10 {
        let mut short = Gradients::default();
        let mut long = Gradients::default();
        let a = paper(StoppingRule::Listing)
            .run_observed(
                &problem,
                4.0,
                0.1,
                &mut short,
                &mut Pcg64::seed_from_u64(seed),
            )
            .unwrap();
        let b = paper(StoppingRule::ChargesPastRho)
            .run_observed(
                &problem,
                4.0,
                0.1,
                &mut long,
                &mut Pcg64::seed_from_u64(seed),
            )
            .unwrap();
        assert_eq!(short.0.len() as u64, a.queries);
        assert!(b.queries > a.queries, "{} <= {}", b.queries, a.queries);
        // The same stream: the listing's run is a prefix of D.3's.
        assert_eq!(short.0[..], long.0[..a.queries as usize]);
        assert!(b.min_gradient_norm <= a.min_gradient_norm);
    }
}

/// Records every noisy gradient and every noisy norm `N_t` of a run.
#[derive(Default)]
struct Releases {
    gradients: Vec<Vec<f64>>,
    norms: Vec<f64>,
}

impl Transcript for Releases {
    fn gaussian(&mut self, query: Query, _: &[f64], _: &[f64], released: &[f64], _: f64) {
        match query {
            Query::ClippedMeanGradient { .. } => self.gradients.push(released.to_vec()),
            Query::ClippedMeanGradientNorm { .. } => self.norms.push(released[0]),
            _ => panic!("Algorithm 3 releases only norms and gradients"),
        }
    }

    fn observes(&self) -> bool {
        true
    }
}

#[test]
fn each_filter_stops_at_the_first_step_whose_charges_pass_its_threshold() {
    // The charges recomputed from the released norms (paper-literal: raw
    // N_t), rho_t = min(L0^2 d l/(n^2 N_t^2), rho/2) + sqrt(rho)/n: all but
    // the last step's charges sum to at most the threshold, all of them to
    // more. A filter at the wrong threshold fails one of the two.
    let (n, d) = (300, 8);
    let problem = instance(n, d, 2);
    let l0 = problem.kl_constants().lipschitz;
    for rule in [StoppingRule::Listing, StoppingRule::ChargesPastRho] {
        for (rho, seed) in [(0.5, 0), (4.0, 1), (100.0, 2)] {
            let mut seen = Releases::default();
            let run = paper(rule)
                .run_observed(
                    &problem,
                    rho,
                    0.1,
                    &mut seen,
                    &mut Pcg64::seed_from_u64(seed),
                )
                .unwrap();
            assert_eq!(seen.norms.len() as u64, run.queries);
            assert_eq!(seen.gradients.len() as u64, run.queries);
            let nf = n as f64;
            let ell = (nf * f64::sqrt(rho) / 0.1).ln();
            let charges: Vec<f64> = seen
                .norms
                .iter()
                .map(|&nt| {
                    let first = if nt == 0.0 {
                        rho / 2.0
                    } else {
                        (l0 * l0 * d as f64 * ell / (nf * nf * nt * nt)).min(rho / 2.0)
                    };
                    first + rho.sqrt() / nf
                })
                .collect();
            let before_last: f64 = charges[..charges.len() - 1].iter().sum();
            let all: f64 = charges.iter().sum();
            let threshold = rule.threshold(rho);
            assert!(
                before_last <= threshold,
                "{rule:?} rho {rho}: {before_last} > {threshold}"
            );
            assert!(
                all > threshold,
                "{rule:?} rho {rho}: stopped at {all} <= {threshold}"
            );
        }
    }
}

#[test]
fn the_recommended_calibration_under_d3_still_spends_at_most_rho() {
    // D.3's threshold alone would let the recommended variant's true spend
    // reach about 1.25 rho; its defensive stop (no step whose worst case
    // would push the ledger past rho) keeps it within rho.
    let problem = instance(300, 8, 3);
    let recommended = AdaptiveNoisyGd {
        calibration: Calibration::Recommended,
        stopping: StoppingRule::ChargesPastRho,
    };
    for rho in [0.04, 1.0, 100.0] {
        for seed in 0..10 {
            let run = recommended
                .run(&problem, rho, 0.1, &mut Pcg64::seed_from_u64(seed))
                .unwrap();
            assert!(run.run.rho_spent <= rho, "{} > {rho}", run.run.rho_spent);
        }
    }
}

/// An unobserved run skips keeping the noiseless gradient (one vector a
/// step) and is otherwise the observed run: the same steps and output bits.
#[test]
fn an_unobserved_run_is_the_observed_run() {
    let problem = instance(200, 8, 2);
    for seed in 0..5 {
        let mut seen = Gradients::default();
        let algorithm = AdaptiveNoisyGd::default();
        let observed = algorithm
            .run_observed(
                &problem,
                4.0,
                0.1,
                &mut seen,
                &mut Pcg64::seed_from_u64(seed),
            )
            .unwrap();
        let plain = algorithm
            .run(&problem, 4.0, 0.1, &mut Pcg64::seed_from_u64(seed))
            .unwrap();
        assert_eq!(plain.queries, observed.queries);
        assert!(plain.queries > 0);
        let bits = |w: &[f64]| w.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&plain.run.w), bits(&observed.run.w));
    }
}
