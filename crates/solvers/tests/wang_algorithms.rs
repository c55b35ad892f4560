//! Tests of the Wang–Zhu–Wang algorithms (digest §2, §3.9, §7): NGD's plan
//! and noise against the digest's worked table and the GDP identity (P4),
//! A_Iter's composition and selection law, M*'s privacy accounting and
//! diagnostics, the baselines, PrivTune and the theorem bounds.
//! Statistical checks use fixed seeds and |z| < 5 (false alarm 6e-7 each).

use datagen::wang::{HalfspaceParams, PlantedHalfspace};
use dpcore::halfspace::HalfspaceProblem;
use dpcore::{PrivacyParams, RunFailure};
use mechanisms::normal::normal_cdf;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::wang::bounds::{
    b_proof, jl_log_term, jlgd_bound, per_call_mu, privtune_bound, theorem_6_5_explicit,
};
use solvers::wang::ngd::run_ngd;
use solvers::wang::select::{a_iter, BaseRun};
use solvers::wang::{
    known_margin, m_prime, m_star, margin_grid, total_mu, BudgetConversion, IterateChoice,
    IterationMode, KnownMarginBudget, MStarOptions, NgdPlan, PrivTuneOptions, Projection,
    SelectionCriterion,
};

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

fn fast() -> MStarOptions {
    MStarOptions {
        mode: IterationMode::Fast,
        ..MStarOptions::default()
    }
}

#[test]
fn ngd_plan_matches_the_digest_table() {
    let mu = total_mu(PrivacyParams::approx(1.0, 1e-5), BudgetConversion::Paper).unwrap();
    assert!((mu - 0.10420).abs() < 5e-6);
    for (n, len, mu_p, steps) in [
        (1000usize, 11usize, 0.022215, 494u64),
        (10_000, 15, 0.019024, 36_191),
        (100_000, 18, 0.017366, 3_015_934),
    ] {
        let mp = mu / (2.0 * len as f64).sqrt();
        assert!((mp - mu_p).abs() < 5e-7);
        assert!((per_call_mu(1.0, 1e-5, len) - mp).abs() < 1e-15);
        let plan = NgdPlan::new(
            n,
            100,
            1.0 / 3.0,
            2.0,
            mp,
            IterationMode::Paper,
            IterateChoice::Averaged,
        )
        .unwrap();
        assert_eq!(plan.steps, steps);
        assert_eq!(plan.sensitivity, 12.0);
        let t = steps as f64;
        assert!((plan.sigma - 12.0 * t.sqrt() / mp).abs() < 1e-9 * plan.sigma);
        assert!(
            (plan.realised_mu() - mp).abs() < 1e-12 * mp,
            "P4: sqrt(T) Delta/sigma = mu"
        );
        let nd = n as f64 * 12.0;
        let eta = 1.0 / (t * (nd * nd + 100.0 * plan.sigma * plan.sigma)).sqrt();
        assert!((plan.step_size - eta).abs() < 1e-12 * eta);
        let fast = NgdPlan::new(
            n,
            100,
            1.0 / 3.0,
            2.0,
            mp,
            IterationMode::Fast,
            IterateChoice::Averaged,
        )
        .unwrap();
        assert_eq!(fast.steps, ((n as f64 * mp).powi(2) / 100.0).ceil() as u64);
        assert!((fast.realised_mu() - mp).abs() < 1e-12 * mp);
    }
    assert!(NgdPlan::new(
        10,
        5,
        0.0,
        2.0,
        0.1,
        IterationMode::Paper,
        IterateChoice::Averaged
    )
    .is_err());
    assert!(NgdPlan::new(
        10,
        5,
        1.0,
        2.0,
        0.1,
        IterationMode::Paper,
        IterateChoice::Last { beta: 1.0 }
    )
    .is_err());
}

#[test]
fn ngd_noise_has_the_planned_scale() {
    // One last-iterate step from w_0 = 0: w_1 = -eta (g + sigma xi) with the
    // summed hinge gradient g = -sum_i (y_i s_i / c) z_i (all margins 0 < c).
    let (n, k) = (4usize, 3000usize);
    let z: Vec<f64> = (0..n * k)
        .map(|v| ((v % 13) as f64 - 6.0) / 200.0)
        .collect();
    let y = [1.0, -1.0, 1.0, 1.0];
    let scale = [1.0, 0.5, 1.0, 0.25];
    let plan = NgdPlan::new(
        n,
        k,
        0.2,
        1.0,
        0.2,
        IterationMode::Paper,
        IterateChoice::Last { beta: 0.01 },
    )
    .unwrap();
    assert_eq!(plan.steps, 1);
    let w = run_ngd(&z, &y, &scale, &plan, &mut rng(11));
    let xi: Vec<f64> = (0..k)
        .map(|j| {
            let g: f64 = (0..n).map(|i| -y[i] * scale[i] / 0.2 * z[i * k + j]).sum();
            (-w[j] / plan.step_size - g) / plan.sigma
        })
        .collect();
    let mean = xi.iter().sum::<f64>() / k as f64;
    let var = xi.iter().map(|v| v * v).sum::<f64>() / k as f64;
    assert!((mean * (k as f64).sqrt()).abs() < 5.0, "mean {mean}");
    // Var of the sample second moment is 2/k.
    assert!(
        ((var - 1.0) / (2.0 / k as f64).sqrt()).abs() < 5.0,
        "variance {var}"
    );
}

#[test]
fn a_iter_composes_to_mu_and_has_the_gaussian_selection_law() {
    let mu = 0.5;
    let out = a_iter(4, mu, 0.01, &mut rng(1), |i, mp, _| {
        Ok::<_, RunFailure>(BaseRun {
            score: i as f64,
            mu_spent: mp,
            output: i,
        })
    })
    .unwrap();
    assert!(
        (out.mu_spent - mu).abs() < 1e-12,
        "2|Theta| mechanisms of mu/sqrt(2|Theta|)"
    );
    assert!((out.score_sigma - 8f64.sqrt() * 0.01 / mu).abs() < 1e-15);
    assert_eq!(out.noisy_scores.len(), 4);
    // Two candidates with scores 0 and 0.1: P(0 wins) = Phi(0.1/(sigma sqrt 2)).
    let trials = 4000;
    let mut r = rng(2);
    let mut wins = 0usize;
    let mut sigma = 0.0;
    for _ in 0..trials {
        let o = a_iter(2, 1.0, 0.05, &mut r, |i, mp, _| {
            Ok::<_, RunFailure>(BaseRun {
                score: 0.1 * i as f64,
                mu_spent: mp,
                output: (),
            })
        })
        .unwrap();
        sigma = o.score_sigma;
        wins += usize::from(o.selected == 0);
    }
    let p = normal_cdf(0.1 / (sigma * 2f64.sqrt()));
    let z = (wins as f64 - trials as f64 * p) / (trials as f64 * p * (1.0 - p)).sqrt();
    assert!(
        z.abs() < 5.0,
        "P(0 wins) = {}, expected {p}",
        wins as f64 / trials as f64
    );
}

#[test]
fn m_star_accounts_privacy_and_reports_candidates() {
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(300, 40, 0.3, 3), &mut rng(3))
        .unwrap();
    let privacy = PrivacyParams::approx(1.0, 1e-5);
    let run = m_star(&p, privacy, fast(), &mut rng(4)).unwrap();
    let grid = margin_grid(300, 1.0);
    assert_eq!(run.candidates.len(), grid.len());
    assert!((run.mu - 0.10420).abs() < 5e-6);
    assert!((run.mu_per_call - run.mu / (2.0 * grid.len() as f64).sqrt()).abs() < 1e-15);
    assert!(
        (run.privacy.mu - run.mu).abs() < 1e-9 * run.mu,
        "realised composition = budget"
    );
    assert!(run.privacy.eps <= 1.0 && run.privacy.eps_paper <= 1.0);
    assert!(run.privacy.eps < run.privacy.eps_paper);
    assert_eq!(run.privacy.relation, mechanisms::Neighbouring::ReplaceOne);
    assert_eq!(run.selected_gamma, grid[run.selected_index]);
    let evals: u64 = run.candidates.iter().map(|c| c.steps * 300).sum();
    assert_eq!(run.gradient_evaluations, evals);
    for (c, &g) in run.candidates.iter().zip(&grid) {
        assert_eq!(c.gamma, g);
        assert!(c.noisy_score.is_finite() && (0.0..=1.0).contains(&c.score));
        assert_eq!(c.identity, c.k == 40);
    }
    assert_eq!(run.w.len(), 40);
    // Reproducible from the seed.
    assert_eq!(run, m_star(&p, privacy, fast(), &mut rng(4)).unwrap());
    // Tight conversion spends exactly eps; paper mode refuses eps >= 8 ln(1/delta).
    let tight = MStarOptions {
        conversion: BudgetConversion::Tight,
        ..fast()
    };
    let t = m_star(&p, privacy, tight, &mut rng(4)).unwrap();
    assert!(
        (t.privacy.eps - 1.0).abs() < 1e-6,
        "tight eps {}",
        t.privacy.eps
    );
    assert!(m_star(&p, PrivacyParams::approx(93.0, 1e-5), fast(), &mut rng(4)).is_err());
}

#[test]
fn penalised_score_and_vacuous_candidates() {
    let n = 256;
    let p =
        PlantedHalfspace::generate(HalfspaceParams::isotropic(n, 30, 0.3, 0), &mut rng(5)).unwrap();
    let opts = MStarOptions {
        criterion: SelectionCriterion::Penalised,
        ..fast()
    };
    let run = m_star(&p, PrivacyParams::approx(1.0, 1e-5), opts, &mut rng(6)).unwrap();
    let (nf, len) = (n as f64, run.candidates.len() as f64);
    for c in &run.candidates {
        let penalty = 2.5 / nf * (c.k as f64 * (2.0 * nf).ln() + (4.0 * len * nf * nf).ln());
        assert!(c.score >= penalty - 1e-12 && c.score <= penalty + 1.0 + 1e-12);
    }
    let opts = MStarOptions {
        drop_vacuous: true,
        ..fast()
    };
    let run = m_star(&p, PrivacyParams::approx(1.0, 1e-5), opts, &mut rng(6)).unwrap();
    assert!(run.candidates.iter().all(|c| c.gamma * c.gamma * nf > 1.0));
    assert_eq!(
        run.candidates.len(),
        4,
        "gamma in {{1/8, 1/4, 1/2, 1}}: 1/16 has n gamma^2 eps = 1"
    );
}

#[test]
fn learners_classify_an_easy_two_cluster_instance() {
    // G2, n = 2000, d = 300, gamma* = 0.5 and a generous eps = 4 (< 8 Lambda):
    // the noise term 1/(n gamma^2 eps) is 5e-4, so a working learner is
    // near-perfect; an error of 0.1 is the 10% minority cluster lost.
    let p =
        PlantedHalfspace::generate(HalfspaceParams::two_cluster(2000, 300, 0.5, 0), &mut rng(7))
            .unwrap();
    let privacy = PrivacyParams::approx(4.0, 1e-5);
    let star = m_star(&p, privacy, fast(), &mut rng(8)).unwrap();
    assert!(
        p.zero_one_error(&star.w) < 0.05,
        "M* error {}",
        p.zero_one_error(&star.w)
    );
    let oracle = known_margin(
        &p,
        0.5,
        privacy,
        fast(),
        KnownMarginBudget::Total,
        &mut rng(9),
    )
    .unwrap();
    assert!(!oracle.run.identity && oracle.run.plan.k < 300);
    assert!(
        p.zero_one_error(&oracle.run.w) < 0.05,
        "oracle JLGD {}",
        p.zero_one_error(&oracle.run.w)
    );
    assert_eq!(oracle.run.projected_error, p.zero_one_error(&oracle.run.w));
    let full = MStarOptions {
        projection: Projection::FullDimension { radius_factor: 1.0 },
        ..fast()
    };
    let b1 = known_margin(
        &p,
        0.5,
        privacy,
        full,
        KnownMarginBudget::Total,
        &mut rng(10),
    )
    .unwrap();
    assert!(b1.run.identity);
    assert_eq!(
        b1.run.plan.sensitivity, 12.0,
        "exact Delta = 6b/gamma at gamma = 0.5"
    );
    assert!((b1.privacy.mu - b1.mu).abs() < 1e-12 * b1.mu);
    let pop = p.population_error(&oracle.run.w).unwrap();
    assert!(pop.error < 0.05 && pop.standard_error < 1e-3);
}

#[test]
fn privtune_spends_at_most_eps_plus_delta() {
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(64, 10, 0.4, 0), &mut rng(12))
        .unwrap();
    let privacy = PrivacyParams::approx(1.0, 1e-5);
    let opts = PrivTuneOptions {
        mode: IterationMode::Fast,
        stop_probability: Some(0.2),
        ..Default::default()
    };
    let run = m_prime(&p, privacy, opts, &mut rng(13)).unwrap();
    assert!(run.runs >= 1);
    assert!(
        run.eps_spent <= 1.0 + 1e-5 + 1e-12,
        "eps spent {}",
        run.eps_spent
    );
    assert!((run.mu_spent_per_run - run.mu).abs() < 1e-9 * run.mu);
    assert!(margin_grid(64, 1.0).contains(&run.selected_gamma));
    let guard = PrivTuneOptions {
        max_runs: 0,
        ..opts
    };
    assert!(m_prime(&p, privacy, guard, &mut rng(13)).is_err());
}

#[test]
fn bounds_match_the_digest_numbers() {
    // Digest §2.7: the noise term 48 sqrt(L)/(gamma^2 n mu_p) is 1.59 at
    // n = 1e4, gamma = 1; 0.19 at n = 1e5, gamma = 1; 0.77 at n = 1e5, gamma = 0.5.
    for (n, g, expected) in [(1e4, 1.0, 1.59), (1e5, 1.0, 0.19), (1e5, 0.5, 0.77)] {
        let len = margin_grid(n as usize, 1.0).len();
        let mu_p = per_call_mu(1.0, 1e-5, len);
        let v = jlgd_bound(n, g, 0.0, mu_p, 1.0, len, 1.0 / (n * n), 1.0);
        assert!((v - expected).abs() < 0.01, "n = {n}, gamma = {g}: {v}");
    }
    assert!((jl_log_term(1e4, 15, 1e-8) - 39.6).abs() < 0.06);
    assert_eq!(
        b_proof(10_000, 1.0, 0, 1.0, 1e-5, 1.0),
        1.0,
        "vacuous at n <= 1e4"
    );
    let b = b_proof(1 << 20, 0.5, 0, 1.0, 1e-5, 1.0);
    assert!(b > 0.0 && b < 0.2);
    // No grid point below gamma* = 0 certifies anything.
    assert_eq!(b_proof(1000, 0.0, 0, 1.0, 1e-5, 1.0), 1.0);
    // Theorem 6.5 explicit at gamma* = 1, m = 0, n = 2^30: the minimum is at gamma~ = 1.
    let n = (1u64 << 30) as f64;
    let (lg, lam) = (30.0f64, 1e5f64.ln());
    let by_hand = 8.0 * (lg * (4.0 * n * n * (n + 2.0) * (n + 1.0) * lg).ln() * lam).sqrt() / n
        + 16.0 * 2f64.sqrt() * (lg * lam * (4.0 * lg).ln()).sqrt() / n
        + 1.0 / (n * n);
    let v = theorem_6_5_explicit(1 << 30, 1.0, 0, 1.0, 1e-5);
    assert!((v - by_hand).abs() < 1e-12 * by_hand, "{v} vs {by_hand}");
    // The outlier term adds m/(gamma~ n) at the minimiser gamma~ = 1 when it dominates nothing else.
    let with_m = theorem_6_5_explicit(1 << 30, 1.0, 1000, 1.0, 1e-5);
    assert!((with_m - v - 1000.0 / n).abs() < 1e-12);
    assert_eq!(
        theorem_6_5_explicit(1000, 0.5, 0, 1.0, 1e-5),
        1.0,
        "vacuous at small n"
    );
    let pt = privtune_bound(1 << 30, 1.0, 0, 1.0, 1e-5);
    let jl = jl_log_term(n, 31, 1.0 / (n * n));
    let tune = (31.0 * (n * n - 1.0) / 1e-5).ln();
    let by_hand = (jl * tune).sqrt() / n + 12.0 * (n * n * 31.0 / 1e-5).ln() / n;
    assert!((pt - by_hand).abs() < 1e-12 * by_hand);
}

#[test]
fn shape_full_dimension_and_selection_formulas() {
    use solvers::wang::bounds::{
        b_shape, full_dimension_bound, selection_expected_excess, selection_high_probability_excess,
    };
    let (n, g) = (1000usize, 0.25);
    let v = b_shape(n, g, 0.5, 1e-5, 10, 1.0, 1.0, false, false);
    assert!((v - (1.0 / (0.0625 * 1000.0 * 0.5) + 10.0 / 250.0)).abs() < 1e-15);
    // Population: min(eps, 1) flattens above eps = 1; empirical keeps 1/eps.
    let pop = |e| b_shape(n, g, e, 1e-5, 0, 1.0, 1.0, true, true);
    let emp = |e| b_shape(n, g, e, 1e-5, 0, 1.0, 1.0, false, true);
    assert_eq!(pop(4.0), pop(1.0));
    assert!((emp(4.0) - emp(1.0) / 4.0).abs() < 1e-15);
    assert!((pop(0.5) - 2.0 * pop(1.0)).abs() < 1e-12);
    let f = full_dimension_bound(1000.0, 400.0, 0.5, 5.0, 0.1, 12.0, 1.0);
    assert!((f - (4.0 * 12.0 * 20.0 / 100.0 + 7.0 * 5.0 / 1000.0)).abs() < 1e-12);
    assert!((selection_expected_excess(0.1, 8) - 0.2 * (2.0 * 8f64.ln()).sqrt()).abs() < 1e-15);
    let hp = selection_high_probability_excess(0.1, 8, 0.01);
    assert!((hp - 0.2 * ((2.0 * 16f64.ln()).sqrt() + (2.0 * 200f64.ln()).sqrt())).abs() < 1e-15);
}

#[test]
fn per_call_budget_and_last_iterate_step_size() {
    let n = 128;
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(n, 20, 0.4, 0), &mut rng(14))
        .unwrap();
    let privacy = PrivacyParams::approx(1.0, 1e-5);
    let len = margin_grid(n, 1.0).len() as f64;
    let total = known_margin(
        &p,
        0.4,
        privacy,
        fast(),
        KnownMarginBudget::Total,
        &mut rng(15),
    )
    .unwrap();
    let per = known_margin(
        &p,
        0.4,
        privacy,
        fast(),
        KnownMarginBudget::PerCall,
        &mut rng(15),
    )
    .unwrap();
    assert!((per.mu - total.mu / (2.0 * len).sqrt()).abs() < 1e-15);
    assert!(per.privacy.eps < total.privacy.eps);
    let last = MStarOptions {
        last_iterate: true,
        ..fast()
    };
    let run = m_star(&p, privacy, last, &mut rng(16)).unwrap();
    let nf = n as f64;
    let beta = 1.0 / (nf * nf * len);
    for c in &run.candidates {
        let delta = 12.0 / c.gamma;
        let t = c.steps as f64;
        let eta = 1.0
            / (t * ((nf * delta).powi(2) + c.k as f64 * c.sigma * c.sigma * (1.0 / beta).ln()))
                .sqrt();
        assert!(
            (c.step_size - eta).abs() < 1e-12 * eta,
            "eta_hp with beta/|Gamma| (P12)"
        );
    }
}

#[test]
fn grid_copies_grow_theta_and_the_privacy_split_follows() {
    // WZW-C-T7.1-gridsize: |Theta| = k |Gamma| candidates, each copy its own
    // configuration; M*'s per-call budget is mu/sqrt(2 k |Gamma|) and its
    // composition still spends exactly mu; M''s default r is
    // 1/(k |Gamma|(n^2 - 1)) and it still spends at most eps + delta.
    let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(64, 10, 0.4, 0), &mut rng(21))
        .unwrap();
    let privacy = PrivacyParams::approx(1.0, 1e-5);
    let len = margin_grid(64, 1.0).len();
    for k in [1usize, 2, 4] {
        let opts = MStarOptions {
            grid_copies: k,
            ..fast()
        };
        let run = m_star(&p, privacy, opts, &mut rng(22)).unwrap();
        assert_eq!(run.candidates.len(), k * len);
        assert!((run.mu_per_call - run.mu / (2.0 * (k * len) as f64).sqrt()).abs() < 1e-15);
        assert!((run.privacy.mu - run.mu).abs() < 1e-9 * run.mu);
        assert!(run.privacy.eps <= 1.0);
        // Copies of one margin are distinct candidates: their noisy scores differ.
        if k > 1 {
            let first: Vec<f64> = run.candidates[..k].iter().map(|c| c.noisy_score).collect();
            assert!(run.candidates[..k]
                .iter()
                .all(|c| c.gamma == run.candidates[0].gamma));
            assert!(first.windows(2).all(|w| w[0] != w[1]), "{first:?}");
        }
        let prime = PrivTuneOptions {
            mode: IterationMode::Fast,
            grid_copies: k,
            ..Default::default()
        };
        let r = m_prime(&p, privacy, prime, &mut rng(23)).unwrap();
        let paper_r = 1.0 / ((k * len) as f64 * (64.0 * 64.0 - 1.0));
        assert!((r.stop_probability - paper_r).abs() < 1e-18);
        assert!(
            r.eps_spent <= 1.0 + 1e-5 + 1e-12,
            "eps spent {}",
            r.eps_spent
        );
    }
    // One copy is the paper's algorithm, draw for draw.
    let one = MStarOptions {
        grid_copies: 1,
        ..fast()
    };
    assert_eq!(
        m_star(&p, privacy, one, &mut rng(24)).unwrap(),
        m_star(&p, privacy, fast(), &mut rng(24)).unwrap()
    );
}

/// A digest of everything `m_prime` releases and reports, bit for bit.
fn privtune_digest(run: &solvers::wang::PrivTuneRun) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let words = run.w.iter().map(|v| v.to_bits()).chain([
        run.selected_gamma.to_bits(),
        run.runs,
        run.mu_spent_per_run.to_bits(),
        run.eps_spent.to_bits(),
        run.gradient_evaluations,
    ]);
    for word in words {
        for byte in word.to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// `m_prime` computes each grid point's clipped projection once and reuses
/// it across its runs. The digests below were printed by the code that
/// recomputed it in every run (`e2a08c4`), on instances whose grids mix
/// identity maps (`k = d`) and real projections (`k < d` at the wide
/// margins), in both iteration modes and with a replicated grid; any change
/// to a run, the random stream or the release changes them.
#[test]
fn m_prime_matches_a_run_that_recomputes_the_projection() {
    let cases = [
        (
            16usize,
            20usize,
            1usize,
            IterationMode::Fast,
            true,
            0x207b_aa3f_0bc9_6c04u64,
        ),
        (
            16,
            20,
            2,
            IterationMode::Paper,
            false,
            0xe46f_e30e_2c2c_e602,
        ),
        (32, 5, 1, IterationMode::Fast, true, 0x25ae_5b1c_3223_87a4),
    ];
    // At n = 16 the widest margin projects (k = 13 < d = 20 at gamma = 1;
    // 52 and more at gamma <= 1/2, the identity), so the reused projections
    // include an owned one.
    let grid = margin_grid(16, 1.0);
    let k_at = |g: f64| solvers::wang::jl::jl_dimension(16, grid.len(), g, 1.0 / 256.0, 1.0, 1.0);
    assert!(k_at(1.0) < 20.0 && k_at(0.5) >= 20.0);
    for (n, d, copies, mode, last, expected) in cases {
        let p = PlantedHalfspace::generate(HalfspaceParams::isotropic(n, d, 0.4, 0), &mut rng(31))
            .unwrap();
        let opts = PrivTuneOptions {
            mode,
            last_iterate: last,
            grid_copies: copies,
            ..Default::default()
        };
        let run = m_prime(&p, PrivacyParams::approx(1.0, 1e-5), opts, &mut rng(32)).unwrap();
        let digest = privtune_digest(&run);
        eprintln!(
            "n = {n}, d = {d}, copies = {copies}: runs {} digest {digest:#x}",
            run.runs
        );
        assert_eq!(digest, expected, "n = {n}, d = {d}, copies = {copies}");
    }
}
