//! A one-run canary audit of `output_perturbation_conceptual`
//! ([`crate::one_run`]) on the diagonal quadratic of the committed E1
//! studies (`lr_e1_d_gauss`: `n = 2e4`, `eps = 1`, `delta = 1e-6`, `d` up
//! to 128, `beta = kappa = 1`, tight sensitivity).
//!
//! With `H = I` the minimizer is the records' mean, so canary slot `i`
//! (`+-e_i`, at the unit ball's boundary) moves coordinate `i` of the
//! release by `+-1/n`: the two values differ by `2/n`, the tight
//! replace-one sensitivity the noise is calibrated for. The release is the
//! entry's own (`ConceptualOutputPerturbation` with the tight sensitivity:
//! the mean plus Gaussian noise by the ZWB calibration, or the l2 "Laplace"
//! noise at `delta = 0`). A `noise_factor` below 1 runs the same code
//! calibrated to the `eps'` whose noise scale is that fraction of the
//! claim's (found by bisection), against the claim. Score of canary `i`:
//! the release's coordinate `i` minus the study data's part of the mean,
//! which the white-box auditor knows (every record but the canaries).

use datagen::{DiagonalQuadratic, DiagonalQuadraticParams};
use dpcore::{Objective, PrivacyParams, RunFailure};
use mechanisms::calibration::exact_gaussian_delta;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use solvers::output_perturbation::{ConceptualOutputPerturbation, SensitivityChoice};

use crate::one_run::{canary_rows, check_canaries, draw_inclusions, sampled_profile, CanaryRun};

/// The setting of one output-perturbation canary run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutputPerturbationCanaries {
    /// The study's record count (data plus canary slots).
    pub n: usize,
    /// Dimension; at least `canaries`.
    pub d: usize,
    /// The study's claim.
    pub privacy: PrivacyParams,
    /// Canary slots `m`.
    pub canaries: usize,
    /// Fraction of the calibrated noise scale actually added.
    pub noise_factor: f64,
    /// Seed of the study data.
    pub data_seed: u64,
    /// Seed of the inclusions, then of the noise.
    pub run_seed: u64,
}

/// The `eps'` at which the noise scale for `sensitivity` is `factor` times
/// the claim's (the scale decreases in `eps`; bisection to 1e-12 relative).
fn run_at_eps(sensitivity: f64, claim: PrivacyParams, factor: f64) -> Result<f64, RunFailure> {
    if factor == 1.0 {
        return Ok(claim.eps);
    }
    let scale = |eps: f64| {
        ConceptualOutputPerturbation::noise_scale(sensitivity, PrivacyParams { eps, ..claim })
    };
    let target = factor * scale(claim.eps)?;
    let (mut lo, mut hi) = (claim.eps, 2.0 * claim.eps);
    while scale(hi)? > target {
        hi *= 2.0;
    }
    while hi - lo > 1e-12 * hi {
        let mid = 0.5 * (lo + hi);
        if scale(mid)? > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(hi)
}

/// Runs `output_perturbation_conceptual` (tight sensitivity) once with
/// canaries ([`OutputPerturbationCanaries`]).
///
/// # Errors
/// `InvalidParameters` for canaries that do not fit (`m >= n`, `m > d`), a
/// `noise_factor` outside `(0, 1]` or invalid privacy; `NonFinite` as the
/// entry.
pub fn output_perturbation(s: &OutputPerturbationCanaries) -> Result<CanaryRun, RunFailure> {
    let (n, d, m) = (s.n, s.d, s.canaries);
    check_canaries(n, d, m, 0, s.noise_factor)?;
    let params = |n| DiagonalQuadraticParams {
        n,
        d,
        beta: 1.0,
        kappa: 1.0,
    };
    let mut data_rng = Pcg64::seed_from_u64(s.data_seed);
    let study = DiagonalQuadratic::generate(params(n - m), &mut data_rng);
    let mut rng = Pcg64::seed_from_u64(s.run_seed);
    let included = draw_inclusions(m, &mut rng);
    let mut rows: Vec<f64> = (0..n - m).flat_map(|i| study.record(i).to_vec()).collect();
    rows.extend(canary_rows(&included, d, 0));
    let problem =
        DiagonalQuadratic::from_records(params(n), rows).map_err(RunFailure::InvalidParameters)?;
    let mech = ConceptualOutputPerturbation {
        sensitivity: SensitivityChoice::Tight,
    };
    let sensitivity = mech.sensitivity.select(problem.minimizer_sensitivity());
    let eps_run = run_at_eps(sensitivity, s.privacy, s.noise_factor)?;
    // The calibrated noise's curve: the exact Gaussian profile of the ZWB
    // sigma at the claim, or, for the l2 "Laplace" noise at delta = 0, the
    // one point (eps, 0) its calibration certifies.
    let certified_profile = if s.privacy.is_pure() {
        vec![(s.privacy.eps, 0.0)]
    } else {
        let sigma = ConceptualOutputPerturbation::noise_scale(sensitivity, s.privacy)?;
        sampled_profile(s.privacy.eps, |eps| {
            Ok::<_, String>(exact_gaussian_delta(eps, sigma, sensitivity))
        })?
    };
    let privacy = PrivacyParams {
        eps: eps_run,
        ..s.privacy
    };
    let release = mech.run(&problem, privacy, &mut rng)?;
    Ok(CanaryRun {
        // The white-box auditor knows every record but the canaries and
        // removes the data's part of the mean, which at n = 2e4, d = 128 is
        // about 12 times a canary's own 1/n on its coordinate.
        scores: (0..m)
            .map(|i| release.w[i] - (0..n - m).map(|j| study.record(j)[i]).sum::<f64>() / n as f64)
            .collect(),
        included,
        claim: s.privacy,
        noise_scale: release.noise_scale,
        run_eps: eps_run,
        certified_profile,
        signal: sensitivity,
        details: format!(
            "output_perturbation_conceptual (tight) on the diagonal quadratic n = {n}, d = {d}: \
             sensitivity {sensitivity:.3e}, noise scale {:.3e} (x{} of the claim's; run at eps {eps_run:.4})",
            release.noise_scale, s.noise_factor
        ),
    })
}
