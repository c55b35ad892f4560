//! The Gaussian mechanism on the clipped mean (the F-A oracle baseline of
//! Menart et al., digest §4.3): (a) its noise scale and spend are the
//! calibration `sigma = (2 R_x/n)/sqrt(2 rho)` of Bun & Steinke Prop 1.6 and
//! its expected excess is the digest's `R_x^2 d/(n^2 rho)`; (b) over many noise
//! seeds the excess is `sigma^2/2` times a chi-square with `d` degrees of
//! freedom and the release is centred on the sample mean. Fixed seeds; each
//! statistical check has a stated false-alarm rate, and a check that a 5%
//! miscalibration is rejected shows the test can fail.

use datagen::menart::{MeanEstimation, MeanEstimationParams};
use dpcore::Objective;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::menart::gaussian_mean::GaussianMean;

fn mean_estimation(n: usize, d: usize, spread: f64, seed: u64) -> MeanEstimation {
    let params = MeanEstimationParams {
        spread,
        ..MeanEstimationParams::new(n, d)
    };
    MeanEstimation::new(params, &mut Pcg64::seed_from_u64(seed))
}

/// Two-sided standard-normal quantile at false-alarm rate 1e-6:
/// `z_(1 - 5e-7)`.
const Z_TWO_SIDED_1E6: f64 = 4.891_638;

/// The Wilson–Hilferty normal score of `s ~ chi^2_k`:
/// `((s/k)^(1/3) - (1 - 2/(9k))) / sqrt(2/(9k))`, standard normal to within
/// `~1e-3` in the tails for the `k = 20000` used here.
fn wilson_hilferty(s: f64, k: f64) -> f64 {
    let v = 2.0 / (9.0 * k);
    ((s / k).cbrt() - (1.0 - v)) / v.sqrt()
}

#[test]
fn the_noise_scale_and_spend_follow_the_gaussian_mechanism_calibration() {
    // (n, d, spread, rho): virtual and materialised data, small and large rho.
    let cases: [(usize, usize, f64, f64); 4] = [
        (10, 3, 0.0, 0.5),
        (1_000_000, 64, 0.0, 1.0),
        (200, 8, 0.5, 0.01),
        (57, 2, 2.0, 100.0),
    ];
    for (i, &(n, d, spread, rho)) in cases.iter().enumerate() {
        let problem = mean_estimation(n, d, spread, i as u64);
        let rx = problem.params().data_radius();
        assert_eq!(rx, 1.0 + spread, "R_x = R0 + s with R0 = 1");
        let mech = GaussianMean { data_radius: rx };
        let formula = 2.0 * rx / n as f64 / (2.0 * rho).sqrt();
        let sigma = mech.sigma(n, rho).unwrap();
        assert!(
            sigma >= formula && sigma <= formula * (1.0 + 2e-9),
            "sigma {sigma} vs (2 R_x/n)/sqrt(2 rho) = {formula}"
        );
        // The digest's printed expectation R_x^2 d/(n^2 rho).
        let printed = rx * rx * d as f64 / (n as f64 * n as f64 * rho);
        let expected = GaussianMean::expected_excess(d, sigma);
        assert!(
            (expected / printed - 1.0).abs() < 1e-8,
            "{expected} vs {printed}"
        );
        let out = mech
            .run(&problem, rho, &mut Pcg64::seed_from_u64(100 + i as u64))
            .unwrap();
        assert_eq!(out.sigma, sigma);
        assert_eq!(out.sensitivity, 2.0 * rx / n as f64);
        let spent = out.run.rho_spent;
        assert!(
            spent <= rho && spent >= rho * (1.0 - 1e-8),
            "spent {spent} of {rho}"
        );
        assert_eq!(out.run.releases, 1);
        assert_eq!(out.run.gradient_evaluations, n as u64);
        // Every record lies in B(0, R_x): the clip is inactive, except that
        // the virtual records (spread 0) lie on the sphere of radius R_x,
        // where the rounding of their norm may clip them by 1 - O(1e-16).
        if spread > 0.0 {
            assert_eq!(out.run.clipped_records, 0);
        }
    }
}

#[test]
fn a_clip_below_the_record_radius_clips_and_keeps_the_sensitivity_of_the_clip() {
    // R_x = 1.5 on F-A, clip 0.25 < R0 - s = 0.5 <= ||x_i||: every record is
    // clipped, and the noise is calibrated to the clip, not to the data.
    let problem = mean_estimation(300, 5, 0.5, 7);
    let mech = GaussianMean { data_radius: 0.25 };
    let out = mech
        .run(&problem, 1.0, &mut Pcg64::seed_from_u64(8))
        .unwrap();
    assert_eq!(out.run.clipped_records, 300);
    assert_eq!(out.sensitivity, 2.0 * 0.25 / 300.0);
    assert!(out.run.rho_spent <= 1.0);
}

#[test]
fn the_excess_is_a_scaled_chi_square_and_the_release_is_centred() {
    // One materialised F-A data set (n = 50, d = 4, spread 0.5, R_x = 1.5)
    // and N = 5000 noise seeds at rho = 0.5.
    let (n, d, rho, runs) = (50, 4, 0.5, 5000);
    let problem = mean_estimation(n, d, 0.5, 11);
    let mech = GaussianMean {
        data_radius: problem.params().data_radius(),
    };
    let sigma = mech.sigma(n, rho).unwrap();
    let xbar = problem.minimizer().to_vec();
    let (mut chi2_sum, mut excess_sum) = (0.0, 0.0);
    let mut centre = vec![0.0; d];
    for seed in 0..runs {
        let out = mech
            .run(&problem, rho, &mut Pcg64::seed_from_u64(1_000 + seed))
            .unwrap();
        let excess = problem.excess_risk(&out.run.w);
        excess_sum += excess;
        chi2_sum += 2.0 * excess / (sigma * sigma);
        centre
            .iter_mut()
            .zip(out.run.w.iter().zip(&xbar))
            .for_each(|(c, (w, m))| *c += w - m);
    }
    // (1) sum_k 2 excess_k/sigma^2 ~ chi^2_(N d) exactly, so its
    // Wilson–Hilferty score is standard normal: two-sided test at
    // false-alarm rate 1e-6.
    let k = (runs as usize * d) as f64;
    let z = wilson_hilferty(chi2_sum, k);
    eprintln!(
        "mean excess {:.6e}, d sigma^2/2 = {:.6e}, Wilson-Hilferty z = {z:.3}",
        excess_sum / runs as f64,
        GaussianMean::expected_excess(d, sigma)
    );
    assert!(
        z.abs() <= Z_TWO_SIDED_1E6,
        "mean excess {} vs d sigma^2/2 = {}: z = {z}",
        excess_sum / runs as f64,
        GaussianMean::expected_excess(d, sigma)
    );
    // The same test rejects a 5% larger noise scale (variance x 1.1025):
    // the check has the power to fail.
    let z_wrong = wilson_hilferty(chi2_sum / 1.05f64.powi(2), k);
    assert!(z_wrong < -Z_TWO_SIDED_1E6, "z at sigma x 1.05: {z_wrong}");
    // (2) sum_k (w_k - xbar)/(sigma sqrt N) ~ N(0, I_d), so its squared norm
    // is chi^2_4, with survival e^(-x/2)(1 + x/2): one-sided test at
    // false-alarm rate 1e-6 (a bias in the release inflates it).
    let q = centre.iter().map(|c| c * c).sum::<f64>() / (sigma * sigma * runs as f64);
    let survival = (-q / 2.0).exp() * (1.0 + q / 2.0);
    eprintln!("z at sigma x 1.05: {z_wrong:.3}; centre chi^2_4 = {q:.3}, p = {survival:.3}");
    assert!(survival > 1e-6, "centre statistic {q}, p = {survival}");
}

#[test]
fn the_chi_mean_is_the_expected_gradient_norm() {
    // E||grad F(w)|| = E||w - xbar|| = sigma sqrt2 Gamma((d+1)/2)/Gamma(d/2):
    // the mean of N = 4000 norms against it, two-sided at false-alarm rate
    // 1e-6 (CLT: the chi_16 norm has sd < sigma/sqrt2, skewness < 0.2).
    let (n, d, rho, runs) = (1000, 16, 2.0, 4000);
    let problem = mean_estimation(n, d, 0.0, 3);
    let mech = GaussianMean {
        data_radius: problem.params().data_radius(),
    };
    let sigma = mech.sigma(n, rho).unwrap();
    let mut g = vec![0.0; d];
    let norms: Vec<f64> = (0..runs)
        .map(|seed| {
            let out = mech
                .run(&problem, rho, &mut Pcg64::seed_from_u64(50_000 + seed))
                .unwrap();
            problem.gradient(&out.run.w, &mut g);
            g.iter().map(|x| x * x).sum::<f64>().sqrt()
        })
        .collect();
    let mean = norms.iter().sum::<f64>() / runs as f64;
    let expected = GaussianMean::expected_gradient_norm(d, sigma);
    // Var chi_d = d - (E chi_d)^2 in units of sigma^2.
    let sd = (d as f64 * sigma * sigma - expected * expected).sqrt();
    let z = (mean - expected) / (sd / (runs as f64).sqrt());
    eprintln!("mean gradient norm {mean:.6e}, chi mean {expected:.6e}, z = {z:.3}");
    assert!(
        z.abs() <= Z_TWO_SIDED_1E6,
        "mean {mean} vs {expected}: z = {z}"
    );
}
