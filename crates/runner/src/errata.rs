//! Printed-vs-corrected privacy calibrations for every calibration erratum listed
//! in the paper digests (`shared/papers/digests/*.md`), evaluated numerically.
//!
//! Each [`Erratum`] is computed at run time from the paper's printed formula and
//! the digest's corrected formula at one documented setting (the digest's own
//! example where it gives one, otherwise `eps = 1`, `delta = 1e-5` or the
//! paper's own `delta`, and the paper's prescribed schedule). For each it
//! reports the privacy the printed calibration actually delivers next to the
//! privacy the paper claims (the target), how that privacy was accounted, and a
//! [`Verdict`] derived from the numbers. [`render_markdown`] prints the table
//! shown by `runner errata` and in the README.
//!
//! Privacy accounting used here, with formulas written out locally (deliberately
//! independent of the accountant modules of the `mechanisms` crate):
//!
//! * exact Gaussian privacy profile, [`exact_gaussian_delta`] (Balle & Wang
//!   2018, Thm 8); the same function gives the exact (eps, delta) curve of
//!   mu-GDP (Dong, Roth & Su, Cor 2.13) with `sigma = 1`, `Delta = mu`;
//! * zCDP of a Gaussian release, `rho = Delta^2 / (2 sigma^2)`, composing by
//!   addition, and the conversion `eps = rho + 2 sqrt(rho ln(1/delta))`
//!   (Bun & Steinke 2016, Props 1.6, 1.3);
//! * advanced composition `eps' = sqrt(2k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1)`
//!   (Dwork & Roth 2014, Thm 3.20);
//! * fully adaptive composition `eps = sqrt(2 ln(1/delta') S) + S/2` with
//!   `S = sum eps_m^2` (Whitehouse et al. 2023, Thm 1, as quoted by the
//!   González–Guzmán–Paquette digest, Thm A.2);
//! * the RDP of the Poisson-subsampled Gaussian at integer orders (Mironov,
//!   Talwar & Zhang 2019, as quoted by the Bassily et al. digest §7 P4) with the
//!   RDP-to-DP conversion `eps = min_a T eps_RDP(a) + ln(1/delta)/(a - 1)`
//!   (Mironov 2017, Prop 3).

use std::fmt;

use mechanisms::calibration::{
    classical_gaussian_sigma, exact_gaussian_delta, lowy_c_delta, zwb_gaussian_sigma,
};

/// Default privacy target of the rows that do not take one from the paper.
const EPS: f64 = 1.0;
/// Default `delta` of the rows that do not take one from the paper.
const DELTA: f64 = 1e-5;
/// Relative tolerance of [`Privacy::exceeds`]: a corrected calibration that
/// meets its target with equality must not be reported as a violation because
/// of rounding.
const TOLERANCE: f64 = 1e-9;
/// Largest integer Rényi order searched by the subsampled-Gaussian accountant.
/// The optimal order at the settings below is about 10 to 40.
const MAX_RDP_ORDER: u32 = 512;

/// A privacy guarantee, in the unit the paper states it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Privacy {
    /// `delta` of an (eps, delta)-DP guarantee at a fixed `eps`.
    Delta {
        /// The fixed `eps`.
        eps: f64,
        /// The `delta` at that `eps`.
        delta: f64,
    },
    /// `eps` of an (eps, delta)-DP guarantee at a fixed `delta`.
    Epsilon {
        /// The `eps` at that `delta`.
        eps: f64,
        /// The fixed `delta`.
        delta: f64,
    },
    /// `rho`-zCDP; `delta` is only used to display the implied `eps`.
    Rho {
        /// The zCDP parameter.
        rho: f64,
        /// The `delta` at which the implied `eps` is displayed.
        delta: f64,
    },
    /// Pure `eps`-DP.
    Pure {
        /// The privacy parameter.
        eps: f64,
    },
}

impl Privacy {
    /// The free parameter: `delta`, `eps`, `rho` or `eps` respectively.
    pub fn value(&self) -> f64 {
        match *self {
            Privacy::Delta { delta, .. } => delta,
            Privacy::Epsilon { eps, .. } | Privacy::Pure { eps } => eps,
            Privacy::Rho { rho, .. } => rho,
        }
    }

    /// Whether this guarantee is weaker than `target` (its free parameter is
    /// larger, beyond a relative tolerance of 1e-9).
    ///
    /// # Panics
    /// If the two are not of the same kind, or are fixed at a different `eps`
    /// (for [`Privacy::Delta`]) or `delta` (for [`Privacy::Epsilon`]).
    pub fn exceeds(&self, target: &Privacy) -> bool {
        let comparable = match (*self, *target) {
            (Privacy::Delta { eps: a, .. }, Privacy::Delta { eps: b, .. }) => a == b,
            (Privacy::Epsilon { delta: a, .. }, Privacy::Epsilon { delta: b, .. }) => a == b,
            (Privacy::Rho { .. }, Privacy::Rho { .. })
            | (Privacy::Pure { .. }, Privacy::Pure { .. }) => true,
            _ => false,
        };
        assert!(comparable, "cannot compare {self:?} with {target:?}");
        self.value() > target.value() * (1.0 + TOLERANCE)
    }
}

impl fmt::Display for Privacy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Privacy::Delta { eps, delta } => write!(f, "δ = {} at ε = {}", num(delta), param(eps)),
            Privacy::Epsilon { eps, delta } => {
                write!(f, "ε = {} at δ = {}", num(eps), param(delta))
            }
            Privacy::Rho { rho, delta } => write!(
                f,
                "ρ = {} (ε = {} at δ = {})",
                num(rho),
                num(zcdp_to_dp_eps(rho, delta)),
                param(delta)
            ),
            Privacy::Pure { eps } => write!(f, "ε = {} (pure)", num(eps)),
        }
    }
}

/// How the realised privacy of a calibration was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accounting {
    /// The exact Gaussian privacy profile (Balle & Wang 2018, Thm 8).
    ExactGaussian,
    /// The exact (eps, delta) curve of mu-GDP (Dong, Roth & Su, Cor 2.13).
    ExactGdp,
    /// Sum of the zCDP costs `Delta^2/(2 sigma^2)` of the Gaussian releases of a
    /// worst-case run (Bun & Steinke 2016); exact for Gaussian releases.
    ZcdpSum,
    /// The pure-DP guarantee `2 * weight * (score sensitivity)` of the
    /// exponential mechanism, attained by worst-case score changes.
    ExponentialMechanism,
    /// Subsampled-Gaussian RDP accountant and RDP-to-DP conversion: an upper bound.
    RdpAccountant,
    /// Advanced composition (Dwork & Roth 2014, Thm 3.20): an upper bound.
    AdvancedComposition,
    /// Fully adaptive composition (Whitehouse et al. 2023): an upper bound.
    FullyAdaptiveComposition,
    /// The smallest privacy the paper's cited theorem certifies for the printed
    /// constant (no exact profile is known): an upper bound.
    CitedTheorem,
}

impl Accounting {
    /// Whether the accounting gives the privacy loss itself (rather than an
    /// upper bound on it), so exceeding the target means a real violation.
    pub fn is_exact(self) -> bool {
        matches!(
            self,
            Accounting::ExactGaussian
                | Accounting::ExactGdp
                | Accounting::ZcdpSum
                | Accounting::ExponentialMechanism
        )
    }

    /// Short label for the table.
    pub fn label(self) -> &'static str {
        match self {
            Accounting::ExactGaussian => "exact Gaussian profile",
            Accounting::ExactGdp => "exact GDP profile",
            Accounting::ZcdpSum => "zCDP sum, worst-case run",
            Accounting::ExponentialMechanism => "exponential mechanism",
            Accounting::RdpAccountant => "RDP accountant (bound)",
            Accounting::AdvancedComposition => "advanced composition (bound)",
            Accounting::FullyAdaptiveComposition => "adaptive composition (bound)",
            Accounting::CitedTheorem => "cited theorem (bound)",
        }
    }
}

/// A calibrated quantity (a noise scale, a step-size cap, a charge, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// What the number is, e.g. `σ/Δ`.
    pub symbol: &'static str,
    /// Its value at the row's setting.
    pub value: f64,
    /// Whether a larger value means more privacy (a noise scale) or less (a
    /// step size, a per-release epsilon, an iteration budget).
    pub larger_is_more_private: bool,
}

impl Calibration {
    /// Whether this calibration spends less privacy than `other` (same symbol).
    pub fn more_private_than(&self, other: &Calibration) -> bool {
        if self.larger_is_more_private {
            self.value > other.value
        } else {
            self.value < other.value
        }
    }
}

impl fmt::Display for Calibration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.symbol, num(self.value))
    }
}

/// What the numbers say about a printed calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The realised privacy, computed exactly, is worse than claimed.
    NotPrivate,
    /// The best available bound on the realised privacy is worse than claimed
    /// (the paper's guarantee cannot be certified; the true loss may be smaller).
    NotCertified,
    /// The paper's derivation is wrong, but its slack absorbs the error.
    PrivateBySlack,
    /// Private, with more noise (or a smaller budget) than the target needs.
    PrivateButLoose,
}

impl Verdict {
    /// Derives the verdict: a realised privacy beyond the target is a violation
    /// ([`Verdict::NotPrivate`] if the accounting is exact, else
    /// [`Verdict::NotCertified`]); otherwise the printed calibration is loose if
    /// it is more private than the corrected one, and saved by slack if not.
    pub fn derive(
        realised: &Privacy,
        target: &Privacy,
        accounting: Accounting,
        printed: &Calibration,
        corrected: &Calibration,
    ) -> Verdict {
        if realised.exceeds(target) {
            if accounting.is_exact() {
                Verdict::NotPrivate
            } else {
                Verdict::NotCertified
            }
        } else if printed.more_private_than(corrected) {
            Verdict::PrivateButLoose
        } else {
            Verdict::PrivateBySlack
        }
    }

    /// The wording used in the table.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::NotPrivate => "not private as printed",
            Verdict::NotCertified => "not certified as printed",
            Verdict::PrivateBySlack => "private as printed (slack absorbs the error)",
            Verdict::PrivateButLoose => "private but loose",
        }
    }
}

/// A Gaussian release whose realised privacy can be re-checked with the exact
/// profile: `N(0, sigma^2)` added to a function of L2-sensitivity `sensitivity`,
/// audited at `eps` against `target_delta`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianAudit {
    /// The `eps` at which the profile is evaluated.
    pub eps: f64,
    /// The claimed `delta` at that `eps`.
    pub target_delta: f64,
    /// `(sigma, sensitivity)` of the printed calibration.
    pub printed: (f64, f64),
    /// `(sigma, sensitivity)` of the corrected calibration.
    pub corrected: (f64, f64),
}

/// One calibration erratum, evaluated at one setting.
#[derive(Debug, Clone, PartialEq)]
pub struct Erratum {
    /// Short identifier, e.g. `LR-P2`.
    pub id: &'static str,
    /// The paper (first authors).
    pub paper: &'static str,
    /// Where the digest lists the erratum, e.g. `§9 P2`.
    pub digest_ref: &'static str,
    /// What is calibrated.
    pub calibrated: &'static str,
    /// The parameters at which it is evaluated.
    pub setting: String,
    /// The printed calibration.
    pub printed: Calibration,
    /// The digest's corrected calibration.
    pub corrected: Calibration,
    /// Realised privacy of the printed calibration.
    pub realised: Privacy,
    /// Realised privacy of the corrected calibration.
    pub realised_corrected: Privacy,
    /// The privacy the paper claims.
    pub target: Privacy,
    /// How the realised privacy was computed.
    pub accounting: Accounting,
    /// Derived from the numbers by [`Verdict::derive`].
    pub verdict: Verdict,
    /// Present when the release is a single Gaussian mechanism, for re-checks.
    pub gaussian: Option<GaussianAudit>,
    /// Formulas, assumptions and caveats (rendered as a footnote).
    pub note: String,
}

impl Erratum {
    /// `paper` and `digest_ref` joined, e.g. `Lowy–Razaviyayn §9 P2`.
    pub fn source(&self) -> String {
        format!("{} {}", self.paper, self.digest_ref)
    }

    /// This row of the Markdown table (one line, no trailing newline).
    pub fn markdown_row(&self) -> String {
        let cells = [
            self.id.to_string(),
            self.source(),
            self.calibrated.to_string(),
            self.setting.clone(),
            self.printed.to_string(),
            self.corrected.to_string(),
            self.realised.to_string(),
            self.realised_corrected.to_string(),
            self.target.to_string(),
            self.accounting.label().to_string(),
            self.verdict.label().to_string(),
        ];
        format!("| {} |", cells.map(|c| c.replace('|', "\\|")).join(" | "))
    }
}

#[allow(clippy::too_many_arguments)]
fn erratum(
    id: &'static str,
    paper: &'static str,
    digest_ref: &'static str,
    calibrated: &'static str,
    setting: String,
    printed: Calibration,
    corrected: Calibration,
    realised: Privacy,
    realised_corrected: Privacy,
    target: Privacy,
    accounting: Accounting,
    gaussian: Option<GaussianAudit>,
    note: String,
) -> Erratum {
    let verdict = Verdict::derive(&realised, &target, accounting, &printed, &corrected);
    Erratum {
        id,
        paper,
        digest_ref,
        calibrated,
        setting,
        printed,
        corrected,
        realised,
        realised_corrected,
        target,
        accounting,
        verdict,
        gaussian,
        note,
    }
}

fn noise(symbol: &'static str, value: f64) -> Calibration {
    Calibration {
        symbol,
        value,
        larger_is_more_private: true,
    }
}

fn budget(symbol: &'static str, value: f64) -> Calibration {
    Calibration {
        symbol,
        value,
        larger_is_more_private: false,
    }
}

/// Every calibration erratum of the five digests, evaluated (takes well under a
/// second).
pub fn errata() -> Vec<Erratum> {
    vec![
        lowy_alg7(),
        lowy_alg6(),
        bassily_nsgd(),
        bassily_proxgd(),
        bassily_objp_first_stage(),
        bassily_objp_output_noise(),
        ggp_alg1(),
        ggp_alg3(),
        ggp_alg4(),
        menart_alg1(),
        menart_alg3_convention(),
        menart_alg3_negative_norm(),
        menart_alg4(),
        menart_selection(),
        wang_integer_t(),
    ]
}

/// The Markdown table of `rows` followed by a numbered list of their notes.
pub fn render_markdown(rows: &[Erratum]) -> String {
    let mut out = String::from(
        "| Id | Source (digest) | Calibrated | Setting | Printed | Corrected | \
         Realised privacy, printed | Realised privacy, corrected | Claimed (target) | \
         Accounting | Verdict |\n",
    );
    out.push_str(&format!("|{}\n", "---|".repeat(11)));
    for row in rows {
        out.push_str(&row.markdown_row());
        out.push('\n');
    }
    out.push_str("\nNotes:\n\n");
    for (i, row) in rows.iter().enumerate() {
        out.push_str(&format!("{}. **{}**: {}\n", i + 1, row.id, row.note));
    }
    out
}

// ---------------------------------------------------------------------------
// Local privacy formulas (see the module documentation for sources).
// ---------------------------------------------------------------------------

/// `ln(1/delta)`.
fn log_inv(delta: f64) -> f64 {
    -delta.ln()
}

/// zCDP of a Gaussian release: `rho = Delta^2 / (2 sigma^2)` (Bun & Steinke 2016, Prop 1.6).
fn gaussian_zcdp(sensitivity: f64, sigma: f64) -> f64 {
    sensitivity * sensitivity / (2.0 * sigma * sigma)
}

/// `rho`-zCDP implies (`rho + 2 sqrt(rho ln(1/delta))`, delta)-DP (Bun & Steinke 2016, Prop 1.3).
fn zcdp_to_dp_eps(rho: f64, delta: f64) -> f64 {
    rho + 2.0 * (rho * log_inv(delta)).sqrt()
}

/// The `rho` whose conversion above is exactly (eps, delta):
/// `rho = (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2` (Menart digest §1.6).
fn dp_to_zcdp_rho(eps: f64, delta: f64) -> f64 {
    let l = log_inv(delta);
    ((l + eps).sqrt() - l.sqrt()).powi(2)
}

/// Advanced composition of `k` eps0-DP mechanisms (Dwork & Roth 2014, Thm 3.20):
/// `eps' = sqrt(2k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1)`, at `delta'` (plus `k delta0 = 0`).
fn advanced_composition_eps(k: f64, eps0: f64, delta_prime: f64) -> f64 {
    (2.0 * k * log_inv(delta_prime)).sqrt() * eps0 + k * eps0 * eps0.exp_m1()
}

/// Fully adaptive composition (Whitehouse et al. 2023, Thm 1, via the
/// González–Guzmán–Paquette digest Thm A.2): mechanisms with
/// `sum eps_m^2 = sum_sq` (and `delta_m = 0`) compose to
/// (`sqrt(2 ln(1/delta') sum_sq) + sum_sq / 2`, delta')-DP.
fn fully_adaptive_eps(sum_sq: f64, delta_prime: f64) -> f64 {
    (2.0 * log_inv(delta_prime) * sum_sq).sqrt() + 0.5 * sum_sq
}

/// RDP of integer order `alpha >= 2` of one Poisson-subsampled Gaussian step
/// with sampling rate `q` in (0, 1) and noise multiplier `z` (noise std over
/// sensitivity), add/remove adjacency (Mironov, Talwar & Zhang 2019; Bassily
/// digest §7 P4):
///
/// `eps(alpha) = ln( sum_{k=0}^{alpha} C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 z^2)) ) / (alpha-1)`,
///
/// evaluated as a log-sum-exp.
fn subsampled_gaussian_rdp(alpha: u32, q: f64, z: f64) -> f64 {
    let a = f64::from(alpha);
    let (ln_q, ln_1mq) = (q.ln(), (-q).ln_1p());
    let mut ln_binom = 0.0;
    let mut logs = Vec::with_capacity(alpha as usize + 1);
    logs.push(a * ln_1mq);
    for k in 1..=alpha {
        let kf = f64::from(k);
        ln_binom += (a - kf + 1.0).ln() - kf.ln();
        logs.push(ln_binom + (a - kf) * ln_1mq + kf * ln_q + (kf * kf - kf) / (2.0 * z * z));
    }
    let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = logs.iter().map(|l| (l - max).exp()).sum();
    (max + sum.ln()) / (a - 1.0)
}

/// (eps, delta)-DP of `steps` compositions of the step above, via
/// `eps = min_alpha steps * eps_RDP(alpha) + ln(1/delta)/(alpha - 1)`
/// (Mironov 2017, Prop 3), over integer orders 2..=512.
fn subsampled_gaussian_eps(steps: f64, q: f64, z: f64, delta: f64) -> f64 {
    (2..=MAX_RDP_ORDER)
        .map(|a| steps * subsampled_gaussian_rdp(a, q, z) + log_inv(delta) / f64::from(a - 1))
        .fold(f64::INFINITY, f64::min)
}

/// The smallest `x` in `[lo, hi]` (to ~1e-12 relative) at which the monotone
/// predicate `ok` (false below, true above) holds; `ok(hi)` must hold.
fn smallest_passing(mut lo: f64, mut hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    assert!(
        ok(hi) && !ok(lo),
        "bisection bracket [{lo}, {hi}] is invalid"
    );
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Number to 4 significant digits, trailing zeros dropped; scientific outside [1e-3, 1e5).
fn num(x: f64) -> String {
    fn trim(s: &str) -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    }
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let a = x.abs();
    if (1e-3..1e5).contains(&a) {
        let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    } else {
        let s = format!("{x:.3e}");
        let (mantissa, exponent) = s.split_once('e').expect("scientific format has an 'e'");
        format!("{}e{exponent}", trim(mantissa))
    }
}

/// `x` to `digits` significant digits in fixed notation (for differences that
/// [`num`]'s 4 digits would hide).
fn sig(x: f64, digits: i32) -> String {
    let decimals = (digits - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// An input parameter, printed exactly (shortest form).
fn param(x: f64) -> String {
    let a = x.abs();
    if x.fract() == 0.0 && a < 1e5 {
        format!("{x:.0}")
    } else if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

// ---------------------------------------------------------------------------
// Lowy & Razaviyayn, "Output Perturbation for DP Convex Optimization".
// ---------------------------------------------------------------------------

const LOWY: &str = "Lowy–Razaviyayn";

/// Lowy–Razaviyayn §9 P2: Algorithm 7's delta > 0 density has `2 eps^2` in the
/// exponent, i.e. `sigma = (c + sqrt(c^2 + eps)) Delta / (2 eps)`, a factor
/// sqrt 2 below Eq. (5).
fn lowy_alg7() -> Erratum {
    let (eps, delta, sens) = (EPS, DELTA, 1.0);
    let c = lowy_c_delta(delta).expect("delta in (0, 1/2)");
    // Printed density exp(-2 eps^2 |z|^2 / (Delta^2 (c + sqrt(c^2+eps))^2)) = exp(-|z|^2/(2 sigma^2)).
    let printed = (c + (c * c + eps).sqrt()) * sens / (2.0 * eps);
    let corrected = zwb_gaussian_sigma(eps, delta, sens).expect("valid parameters");
    erratum(
        "LR-P2",
        LOWY,
        "§9 P2",
        "Alg. 7 Gaussian noise σ (δ > 0)",
        format!("ε = {}, δ = {}, Δ_T = {}", param(eps), param(delta), param(sens)),
        noise("σ/Δ_T", printed / sens),
        noise("σ/Δ_T", corrected / sens),
        Privacy::Delta {
            eps,
            delta: exact_gaussian_delta(eps, printed, sens),
        },
        Privacy::Delta {
            eps,
            delta: exact_gaussian_delta(eps, corrected, sens),
        },
        Privacy::Delta { eps, delta },
        Accounting::ExactGaussian,
        Some(GaussianAudit {
            eps,
            target_delta: delta,
            printed: (printed, sens),
            corrected: (corrected, sens),
        }),
        format!(
            "printed density ∝ exp(−2ε²‖z‖²/(Δ_T²(c_δ+√(c_δ²+ε))²)), i.e. σ = (c_δ+√(c_δ²+ε))Δ_T/(2ε); \
             corrected σ = (c_δ+√(c_δ²+ε))Δ_T/(√2ε) (Eq. 5, ZWB+19 Thm 5) with c_δ = {}. \
             Realised δ from the exact Gaussian profile (Balle–Wang 2018, Thm 8); \
             the digest quotes 7.4e-5.",
            num(c)
        ),
    )
}

/// Lowy–Razaviyayn §9 P3: Algorithm 6 (delta > 0) inflates the sensitivity by
/// `2 alpha / mu` where the proof needs `2 sqrt(2 alpha / mu)`.
fn lowy_alg6() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, d, lip, mu, kappa): (f64, f64, f64, f64, f64) = (1000.0, 10.0, 1.0, 1.0, 1.0);
    let c = lowy_c_delta(delta).expect("delta in (0, 1/2)");
    // Thm 5.3 prescription alpha = L^2/(mu n^2) min{kappa s^2, 1}, s = s_delta (digest §3.8).
    let s = d.sqrt() * (c + (c * c + eps).sqrt()) / eps;
    let alpha = lip * lip / (mu * n * n) * (kappa * s * s).min(1.0);
    let sens = 2.0 * lip / (mu * n);
    let printed_sens = sens + 2.0 * alpha / mu;
    let true_sens = sens + 2.0 * (2.0 * alpha / mu).sqrt();
    let printed = zwb_gaussian_sigma(eps, delta, printed_sens).expect("valid parameters");
    let corrected = zwb_gaussian_sigma(eps, delta, true_sens).expect("valid parameters");
    erratum(
        "LR-P3",
        LOWY,
        "§9 P3",
        "Alg. 6 sensitivity inflation for σ (δ > 0)",
        format!(
            "ε = {}, δ = {}, n = {}, d = {}, L = μ = β = 1, Δ = 2L/(μn), α = {} (Thm 5.3)",
            param(eps),
            param(delta),
            param(n),
            param(d),
            num(alpha)
        ),
        noise("σ", printed),
        noise("σ", corrected),
        Privacy::Delta {
            eps,
            delta: exact_gaussian_delta(eps, printed, true_sens),
        },
        Privacy::Delta {
            eps,
            delta: exact_gaussian_delta(eps, corrected, true_sens),
        },
        Privacy::Delta { eps, delta },
        Accounting::ExactGaussian,
        Some(GaussianAudit {
            eps,
            target_delta: delta,
            printed: (printed, true_sens),
            corrected: (corrected, true_sens),
        }),
        format!(
            "printed Δ_T = Δ + 2α/μ = {}; the sensitivity of the α-saddle point is Δ + 2√(2α/μ) = {} \
             (strong convexity, ‖w_T − w*‖ ≤ √(2α/μ)). Both σ use the ZWB+19 constant. \
             Realised δ: exact Gaussian profile at the true sensitivity.",
            num(printed_sens),
            num(true_sens)
        ),
    )
}

// ---------------------------------------------------------------------------
// Bassily, Feldman, Talwar & Thakurta, "Private SCO with Optimal Rates".
// ---------------------------------------------------------------------------

const BASSILY: &str = "Bassily–Feldman–Talwar–Thakurta";

/// Theorem 3.2's parameters of Algorithm 1 (digest §2.1), with `L = 1`.
struct Nsgd {
    /// Steps `T = floor(min(n/8, eps^2 n^2 / (32 d ln(1/delta))))`.
    steps: f64,
    /// Batch size `m = ceil(n sqrt(eps / (4T)))`.
    batch: f64,
    /// Noise std on the mean gradient, `sqrt(8 T ln(1/delta)) / (n eps)` (units of L).
    sigma: f64,
}

impl Nsgd {
    fn new(n: f64, d: f64, eps: f64, delta: f64) -> Self {
        let lam = log_inv(delta);
        let steps = (n / 8.0)
            .min(eps * eps * n * n / (32.0 * d * lam))
            .floor()
            .max(1.0);
        let batch = (n * (eps / (4.0 * steps)).sqrt()).ceil().clamp(1.0, n);
        let sigma = (8.0 * steps * lam).sqrt() / (n * eps);
        Self {
            steps,
            batch,
            sigma,
        }
    }

    /// Noise multiplier of the batch sum in units of the per-example norm bound: `m sigma / L`.
    fn multiplier(&self) -> f64 {
        self.batch * self.sigma
    }

    /// Realised eps at `delta` when one example moves the batch sum by `shift`
    /// times the norm bound (1 under add/remove, 2 under replace-one).
    fn eps(&self, n: f64, multiplier: f64, shift: f64, delta: f64) -> f64 {
        subsampled_gaussian_eps(self.steps, self.batch / n, multiplier / shift, delta)
    }

    /// The smallest multiplier `m sigma / L` meeting `eps` at `delta` when one
    /// example moves the batch sum by `shift` norm bounds.
    fn calibrate(&self, n: f64, shift: f64, eps: f64, delta: f64) -> f64 {
        smallest_passing(0.05, 200.0, |z| self.eps(n, z, shift, delta) <= eps)
    }
}

/// Bassily §7 P4, P6: Algorithm 1's noise is asserted private via [ACG+16]
/// (Poisson sampling, add/remove); under the paper's replace-one relation the
/// batch sum moves by 2L.
fn bassily_nsgd() -> Erratum {
    let (n, d, eps) = (1e4, 10.0, EPS);
    let delta = 1.0 / (n * n);
    let p = Nsgd::new(n, d, eps, delta);
    let printed = p.multiplier();
    let corrected = p.calibrate(n, 2.0, eps, delta);
    erratum(
        "BFTT-P4",
        BASSILY,
        "§7 P4, P6",
        "Alg. 1 (NSGD) noise σ² = 8TL²ln(1/δ)/(n²ε²)",
        format!(
            "n = {}, d = {}, ε = {}, δ = 1/n², L = 1; T = {}, m = {} (Thm 3.2); replace-one",
            param(n),
            param(d),
            param(eps),
            param(p.steps),
            param(p.batch)
        ),
        noise("mσ/L", printed),
        noise("mσ/L", corrected),
        Privacy::Epsilon {
            eps: p.eps(n, printed, 2.0, delta),
            delta,
        },
        Privacy::Epsilon {
            eps: p.eps(n, corrected, 2.0, delta),
            delta,
        },
        Privacy::Epsilon { eps, delta },
        Accounting::RdpAccountant,
        None,
        format!(
            "the paper cites [ACG+16] without a derivation. Accounted with Poisson sampling at q = m/n \
             (the paper samples with replacement, P5) and replace-one sensitivity 2L of the batch sum \
             (the digest's naive replace-one; under add/remove the same noise gives ε = {}). \
             Corrected: the smallest multiplier meeting the target under the same accountant. \
             The digest's table gives z = 6.10 and ε = 1.07 here.",
            num(p.eps(n, printed, 1.0, delta))
        ),
    )
}

/// Bassily §7 P10: ProxGD on the constrained Moreau envelope claims gradient
/// norm `L(1 + 1/n)` and reuses Theorem 3.2's noise, but the constrained
/// envelope is only `2L(1 + 1/n)`-bounded.
fn bassily_proxgd() -> Erratum {
    let (n, d, eps) = (1e4, 10.0, EPS);
    let delta = 1.0 / (n * n);
    let p = Nsgd::new(n, d, eps, delta);
    let printed = p.multiplier();
    let clip = 2.0 * (1.0 + 1.0 / n);
    // Replace-one: the batch sum moves by 2 * clip (units of L).
    let corrected = p.calibrate(n, 2.0 * clip, eps, delta);
    erratum(
        "BFTT-P10",
        BASSILY,
        "§7 P10",
        "ProxGD noise vs. envelope-gradient norm",
        format!(
            "as BFTT-P4 (n = {}, T = {}, m = {}); constrained envelope, gradient norm ≤ 2L(1+1/n); replace-one",
            param(n),
            param(p.steps),
            param(p.batch)
        ),
        noise("mσ/L", printed),
        noise("mσ/L", corrected),
        Privacy::Epsilon {
            eps: p.eps(n, printed, 2.0 * clip, delta),
            delta,
        },
        Privacy::Epsilon {
            eps: p.eps(n, corrected, 2.0 * clip, delta),
            delta,
        },
        Privacy::Epsilon { eps, delta },
        Accounting::RdpAccountant,
        None,
        format!(
            "the text reuses Thm 3.2's σ (computed with L) because ‖∇̂ℓ_β‖ ≤ L(1+1/n), but Lemma 4.3 only \
             gives 2L for the constrained envelope; corrected σ is calibrated to the clip norm 2L(1+1/n). \
             Same accountant and sampling assumption as BFTT-P4 (replace-one; under add/remove the printed \
             noise gives ε = {}). With the unconstrained envelope (norm L(1+1/n)) BFTT-P4 applies instead.",
            num(p.eps(n, printed, clip, delta))
        ),
    )
}

/// Bassily §2.4, §7 P12: Algorithm 3's first stage uses
/// `sigma_G^2 = 20 L^2 ln(1/delta)/eps^2` where (eps/2, delta/2) under
/// Theorem 5.2 needs `40 L^2 ln(2/delta)/eps^2`.
fn bassily_objp_first_stage() -> Erratum {
    let (n, eps) = (1e4, EPS);
    let delta = 1.0 / (n * n);
    let printed = (20.0 * log_inv(delta)).sqrt() / eps;
    let corrected = (40.0 * log_inv(delta / 2.0)).sqrt() / eps;
    // Thm 5.2: sigma^2 = 10 L^2 ln(1/delta')/eps'^2 certifies (eps', delta'); invert at delta' = delta/2.
    let stage1 = |sigma: f64| (10.0 * log_inv(delta / 2.0)).sqrt() / sigma;
    let total = |sigma: f64| stage1(sigma) + eps / 2.0;
    erratum(
        "BFTT-P12a",
        BASSILY,
        "§2.4, §7 P12",
        "Alg. 3 (ObjP-App) objective noise σ_G",
        format!(
            "ε = {}, δ = {} (δ ≤ 1/n², n = {}), L = 1, β ≤ εnλ/2; stage 2 at (ε/2, δ/2)",
            param(eps),
            param(delta),
            param(n)
        ),
        noise("σ_G/L", printed),
        noise("σ_G/L", corrected),
        Privacy::Epsilon {
            eps: total(printed),
            delta,
        },
        Privacy::Epsilon {
            eps: total(corrected),
            delta,
        },
        Privacy::Epsilon { eps, delta },
        Accounting::CitedTheorem,
        None,
        format!(
            "objective perturbation has no exact profile; stage 1 is credited with the smallest ε' that \
             Thm 5.2 ([KST12], σ² = 10L²ln(1/δ')/ε'²) certifies at δ' = δ/2, here ε' = {} for the \
             printed σ_G² = 20L²ln(1/δ)/ε² (ε/2 needed), then basic composition with the output stage's \
             claimed (ε/2, δ/2). Corrected σ_G² = 40L²ln(2/δ)/ε² with β ≤ εnλ/2 (the setting assumes \
             the latter, isolating the σ_G constant).",
            num(stage1(printed))
        ),
    )
}

/// Bassily §2.4: the output noise `H` of Algorithm 3 at (eps/2, delta/2); the
/// digest finds it sufficient with the 2λ-strong-convexity sensitivity.
fn bassily_objp_output_noise() -> Erratum {
    let (n, eps) = (1e4, EPS);
    let delta = 1.0 / (n * n);
    let (eps_h, delta_h) = (eps / 2.0, delta / 2.0);
    // Units of sqrt(alpha/lambda): ||w2 - w1|| <= sqrt(alpha/lambda) by 2λ-strong convexity.
    let sens = 2.0;
    let paper_sens = 8f64.sqrt();
    let printed = (40.0 * log_inv(delta)).sqrt() / eps;
    let corrected = classical_gaussian_sigma(eps_h, delta_h, sens).expect("eps/2 <= 1");
    let paper_delta = exact_gaussian_delta(eps_h, printed, paper_sens);
    erratum(
        "BFTT-P12b",
        BASSILY,
        "§2.4, §7 P12",
        "Alg. 3 (ObjP-App) output noise σ_H",
        format!(
            "ε = {}, δ = {}; H released at (ε/2, δ/2); sensitivity 2√(α/λ)",
            param(eps),
            param(delta)
        ),
        noise("σ_H/√(α/λ)", printed),
        noise("σ_H/√(α/λ)", corrected),
        Privacy::Delta {
            eps: eps_h,
            delta: exact_gaussian_delta(eps_h, printed, sens),
        },
        Privacy::Delta {
            eps: eps_h,
            delta: exact_gaussian_delta(eps_h, corrected, sens),
        },
        Privacy::Delta {
            eps: eps_h,
            delta: delta_h,
        },
        Accounting::ExactGaussian,
        Some(GaussianAudit {
            eps: eps_h,
            target_delta: delta_h,
            printed: (printed, sens),
            corrected: (corrected, sens),
        }),
        format!(
            "printed σ_H² = 40α ln(1/δ)/(λε²); the objective is 2λ-strongly convex, so ‖w₂ − w₁‖ ≤ √(α/λ) \
             and the sensitivity is 2√(α/λ); corrected = classical Gaussian at (ε/2, δ/2), \
             32α ln(2.5/δ)/(λε²). With the paper's own (looser) sensitivity √(8α/λ) the printed σ_H \
             would give δ = {} at ε/2 by the exact profile, {} the claimed δ/2 = {}.",
            num(paper_delta),
            if paper_delta > delta_h { "above" } else { "below" },
            num(delta_h)
        ),
    )
}

// ---------------------------------------------------------------------------
// González, Guzmán & Paquette, "Mirror Descent ... DP Stochastic Saddle Points".
// ---------------------------------------------------------------------------

const GGP: &str = "González–Guzmán–Paquette";

/// GGP §3.1, Prop 4.1: the step-size cap counts `T(K+1)` released vertices;
/// x- and y-vertices are separate releases, `2T(K+1)`.
fn ggp_alg1() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, dx, dy): (f64, f64, f64) = (1e4, 100.0, 100.0);
    let ell = f64::ln(dx) + f64::ln(dy);
    let lam = log_inv(delta);
    // Thm 4.1 with L2 = 0 (Remark E.1): T = min(n, n eps / sqrt(ell Lambda)), K = 1.
    let steps = n.min(n * eps / (ell * lam).sqrt()).floor();
    let k = 1.0;
    let releases = 2.0 * steps * (k + 1.0);
    // Cap 4 L0 tau / B <= eps / (2 sqrt(2 m Lambda)) with m releases: per-vertex eps0.
    let printed = eps / (2.0 * (2.0 * steps * (k + 1.0) * lam).sqrt());
    let corrected = eps / (2.0 * (2.0 * releases * lam).sqrt());
    erratum(
        "GGP-P4.1",
        GGP,
        "§3.1 Prop 4.1",
        "Alg. 1 step-size cap τ (per-vertex ε₀ = 4L₀τ/B)",
        format!(
            "ε = {}, δ = {}, n = {}, d_x = d_y = {}, L₂ = 0: T = {}, K = {}",
            param(eps),
            param(delta),
            param(n),
            param(dx),
            param(steps),
            param(k)
        ),
        budget("ε₀", printed),
        budget("ε₀", corrected),
        Privacy::Epsilon {
            eps: advanced_composition_eps(releases, printed, delta),
            delta,
        },
        Privacy::Epsilon {
            eps: advanced_composition_eps(releases, corrected, delta),
            delta,
        },
        Privacy::Epsilon { eps, delta },
        Accounting::AdvancedComposition,
        None,
        format!(
            "printed τ ≤ Bε/(8L₀√(2T(K+1)ln(1/δ))) counts T(K+1) = {} releases; x- and y-vertices are \
             {} releases, corrected τ ≤ Bε/(16L₀√(T(K+1)ln(1/δ))). Realised ε: advanced composition \
             (Dwork–Roth Thm 3.20, δ' = δ) over the true count. The simplified Cor 3.21 used by the \
             paper wastes a factor ≈ 2, which absorbs the √2. Thm A.1 as cited needs ε < 1.",
            param(steps * (k + 1.0)),
            param(releases)
        ),
    )
}

/// GGP §3.3, Prop E.1: each released vertex of Algorithm 3 is claimed
/// `9 tau alpha L0`-DP; the correct bound is `20 tau alpha L0`.
fn ggp_alg3() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, dx, dy) = (1e4, 100.0, 100.0);
    let (l0, l1, l2) = (1.0, 1.0, 0.0);
    let ell = f64::ln(dx) + f64::ln(dy);
    let lam = log_inv(delta);
    // Thm 4.3 parameters (digest §3.3).
    let g = (l0 * l0 + l2 * l2 + ell * l1 * l1).sqrt();
    let u = (n * eps * g / ((15552.0 * ell * lam).sqrt() * l0)).min(n / 2.0);
    let tau = (ell / (g * g * u)).sqrt();
    let alpha = (2.0 * eps * eps / (48.0 * 81.0 * lam * (tau * l0).powi(2) * n)).cbrt();
    let per_vertex = 20.0 * tau * alpha * l0;
    // Constraint U <= eps^2 / (48 Lambda eps0^2) with eps0 = 9 (printed) or 20 (corrected) tau alpha L0.
    let cap = |c: f64| eps * eps / (48.0 * lam * (c * tau * alpha * l0).powi(2));
    let corrected_u = cap(20.0);
    // At most 2 players x (2^(N+1) + 1) <= 6 * 2^N vertices per step, sum 2^N <= U.
    let sum_sq = |budget_u: f64| 6.0 * budget_u * per_vertex * per_vertex;
    erratum(
        "GGP-PE.1",
        GGP,
        "§3.3 Prop E.1",
        "Alg. 3 sample budget U (per-vertex ε₀)",
        format!(
            "ε = {}, δ = {}, n = {}, d_x = d_y = {}, L₀ = L₁ = 1, L₂ = 0: τ = {}, α = {} (Thm 4.3)",
            param(eps),
            param(delta),
            param(n),
            param(dx),
            num(tau),
            num(alpha)
        ),
        budget("U", u),
        budget("U", corrected_u),
        Privacy::Epsilon {
            eps: fully_adaptive_eps(sum_sq(u), delta),
            delta,
        },
        Privacy::Epsilon {
            eps: fully_adaptive_eps(sum_sq(corrected_u), delta),
            delta,
        },
        Privacy::Epsilon { eps, delta },
        Accounting::FullyAdaptiveComposition,
        None,
        format!(
            "the proof takes each vertex as 9ταL₀-DP (score sensitivity 4.5ταL₀); dropping C_M and using \
             L₀ for 2L₀ hides a factor: Δ_t ≤ ταL₀(4C_M + 2/2^N) ≤ 10ταL₀, so each vertex is 20ταL₀ = {}-DP. \
             Thm 4.3's U meets the printed cap ε²/(48 ln(1/δ)(9ταL₀)²) = {}; corrected cap uses 20. \
             Realised ε: fully adaptive composition (δ' = δ) over ≤ 6U vertices (2 players × (2^(N+1)+1) ≤ 6·2^N).",
            num(per_vertex),
            num(cap(9.0))
        ),
    )
}

/// GGP §3.4, Prop F.1: Algorithm 4 releases `TK/q + (q+1)K` vertices; the
/// statement counts `TK/q + qK`.
fn ggp_alg4() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, dx): (f64, f64) = (1e4, 100.0);
    let ell_x = f64::ln(dx);
    let lam = log_inv(delta);
    // First-order smooth schedule (digest §3.4 / §9).
    let steps = n.min((n * eps).powf(0.8) / (ell_x * lam).powf(0.4)).floor();
    let q = (steps.sqrt() / ell_x).round().max(1.0);
    let k = (steps / ell_x).ceil().max(1.0);
    let printed_count = steps * k / q + q * k;
    let true_count = steps * k / q + (q + 1.0) * k;
    // Cap 4 tau L0 / B <= eps / (2 sqrt(2 m Lambda)): per-vertex eps0 for m releases.
    let eps0 = |m: f64| eps / (2.0 * (2.0 * m * lam).sqrt());
    erratum(
        "GGP-PF.1",
        GGP,
        "§3.4 Prop F.1",
        "Alg. 4 step-size cap τ (per-vertex ε₀ = 4L₀τ/B)",
        format!(
            "ε = {}, δ = {}, n = {}, d_x = {}, first-order schedule: T = {}, q = {}, K = {}",
            param(eps),
            param(delta),
            param(n),
            param(dx),
            param(steps),
            param(q),
            param(k)
        ),
        budget("ε₀", eps0(printed_count)),
        budget("ε₀", eps0(true_count)),
        Privacy::Epsilon {
            eps: advanced_composition_eps(true_count, eps0(printed_count), delta),
            delta,
        },
        Privacy::Epsilon {
            eps: advanced_composition_eps(true_count, eps0(true_count), delta),
            delta,
        },
        Privacy::Epsilon { eps, delta },
        Accounting::AdvancedComposition,
        None,
        format!(
            "the statement counts TK/q + qK = {} releases; the final K-sample adds K, TK/q + (q+1)K = {}. \
             Realised ε: advanced composition (Dwork–Roth Thm 3.20, δ' = δ) over the true count; \
             the Cor 3.21-style cap leaves slack.",
            num(printed_count),
            num(true_count)
        ),
    )
}

// ---------------------------------------------------------------------------
// Menart, Ullah, Arora, Bassily & Guzmán, "DP non-convex optimization under KL".
// ---------------------------------------------------------------------------

const MENART: &str = "Menart et al.";

/// The zCDP budget equivalent to (eps, delta) = (1, 1e-5) used for the Menart rows.
fn menart_rho() -> f64 {
    dp_to_zcdp_rho(EPS, DELTA)
}

/// Menart §2.1, §7 P2, P6: Algorithm 1's literal noise (Lemma 8 convention,
/// `while t <= T_k` loop) against the replace-one cost; Thm 1 claims rho.
fn menart_alg1() -> Erratum {
    let rho = menart_rho();
    // Family F-B with p = 3 (kappa = 1.5): R0 = 1, R = 1.5, L0 = R^2, L1 = 2R, F0 = 1/3 (digest §4.3, §6.0).
    let (p, r): (f64, f64) = (3.0, 1.5);
    let kappa = p / (p - 1.0);
    let gamma = p.powf(-1.0 / kappa);
    let (l0, l1, f0) = (r.powf(p - 1.0), (p - 1.0) * r.powf(p - 2.0), 1.0 / p);
    let (n, d, beta): (f64, f64, f64) = (1e7, 64.0, 0.1);
    let x = n * rho.sqrt();
    let e = (2.0 - kappa) / kappa;
    let bracket = f0.ln() + kappa * (x / (gamma * l0 * d.sqrt())).ln();
    let rounds = ((1.0 + 64.0 * (1.0 / f0).powf(e) * gamma * gamma * l1) * bracket).ceil();
    let beta_p = beta / rounds
        * (gamma * l0 * (rounds * d).sqrt() / (x * f0.powf(1.0 / kappa))).powf(2.0 - kappa);
    let floor = (32.0 * gamma * l0 * (rounds * d * log_inv(beta_p)).sqrt() / x)
        .powf(kappa)
        .min(f0);
    let c = 1.0 + f0.powf(e) / (64.0 * gamma * gamma * l1);
    let full_sens = 2.0 * l0 / n;
    let printed_hat = l0 * rounds.sqrt() / (n * rho.sqrt());
    let corrected_hat = 2.0 * printed_hat;
    let (mut printed_cost, mut corrected_cost) = (0.0, 0.0);
    for k in 1..=(rounds as i32) {
        let phi = (f0 * c.powi(-k)).max(floor);
        let t_k = (f0 / phi).powf(e);
        let root = phi.powf(1.0 / kappa);
        let diff_sens = root / (2.0 * gamma * n);
        // Paper: sigma_k = Phi^(1/kappa) sqrt(T_k K)/(gamma n sqrt rho); `while t <= T_k` releases floor(T_k)+1.
        let sigma_k = root * (t_k * rounds).sqrt() / (gamma * n * rho.sqrt());
        printed_cost += gaussian_zcdp(full_sens, printed_hat)
            + (t_k.floor() + 1.0) * gaussian_zcdp(diff_sens, sigma_k);
        // Recommended: M'_k = ceil(T_k) - 1 releases, sigma_k = Phi^(1/kappa) sqrt(M'_k K)/(2 gamma n sqrt rho).
        let m_k = t_k.ceil() - 1.0;
        corrected_cost += gaussian_zcdp(full_sens, corrected_hat);
        if m_k > 0.0 {
            let sigma_c = root * (m_k * rounds).sqrt() / (2.0 * gamma * n * rho.sqrt());
            corrected_cost += m_k * gaussian_zcdp(diff_sens, sigma_c);
        }
    }
    erratum(
        "MUABG-A1",
        MENART,
        "§2.1, §7 P2, P6",
        "Alg. 1 (KL Spider) noise σ̂, σ_k",
        format!(
            "ρ = {} (ε = 1, δ = 1e-5), family F-B p = 3 (κ = 1.5), d = {}, n = {}, β = {}: K = {} rounds",
            num(rho),
            param(d),
            param(n),
            param(beta),
            param(rounds)
        ),
        noise("σ̂", printed_hat),
        noise("σ̂", corrected_hat),
        Privacy::Rho {
            rho: printed_cost,
            delta: DELTA,
        },
        Privacy::Rho {
            rho: corrected_cost,
            delta: DELTA,
        },
        Privacy::Rho {
            rho,
            delta: DELTA,
        },
        Accounting::ZcdpSum,
        None,
        format!(
            "printed σ̂ = L₀√K/(n√ρ), σ_k = Φ̂_k^(1/κ)√(T_kK)/(γn√ρ) charge (Δ/σ)² with sensitivity L₀/n \
             (Lemma 8 says 2ρ, Thm 1 says ρ); under replace-one the full gradient moves by 2L₀/n and a \
             difference by Φ̂_k^(1/κ)/(2γn), and `while t ≤ T_k` releases ⌊T_k⌋+1 differences: realised {}ρ \
             (the digest: ≈ 2.13ρ–2.25ρ). Corrected (digest §2.1): σ̂ = 2L₀√K/(n√ρ), \
             σ_k = Φ̂_k^(1/κ)√(M′_kK)/(2γn√ρ) with M′_k = ⌈T_k⌉ − 1 releases.",
            num(printed_cost / rho)
        ),
    )
}

/// Menart §2.4, §7 P2: Algorithm 3 charges `(L0/(n sigma))^2` per Gaussian
/// release; the replace-one cost is twice that.
fn menart_alg3_convention() -> Erratum {
    let rho = menart_rho();
    let (n, l0): (f64, f64) = (1000.0, 1.0);
    let sens = 2.0 * l0 / n;
    let hat = l0 / (n.sqrt() * rho.powf(0.25));
    let floor = 2.0 * l0 / (n * rho.sqrt());
    let last = |scale: f64| gaussian_zcdp(sens, scale * hat) + gaussian_zcdp(sens, scale * floor);
    // Charges before the last step sum to <= rho/2; each charge is (L0/(n sigma))^2 summed over the
    // two releases, i.e. the true replace-one cost divided by 2 / scale^2.
    let realised = |scale: f64| 2.0 / (scale * scale) * (rho / 2.0) + last(scale);
    let sqrt2 = std::f64::consts::SQRT_2;
    erratum(
        "MUABG-A3c",
        MENART,
        "§2.4, §7 P2",
        "Alg. 3 noise σ̂, σ_t vs. its charge ρ_t",
        format!(
            "ρ = {} (ε = 1, δ = 1e-5), n = {}, L₀ = 1, N_t ≥ 0 (see MUABG-A3n)",
            num(rho),
            param(n)
        ),
        noise("σ̂", hat),
        noise("σ̂", sqrt2 * hat),
        Privacy::Rho {
            rho: realised(1.0),
            delta: DELTA,
        },
        Privacy::Rho {
            rho: realised(sqrt2),
            delta: DELTA,
        },
        Privacy::Rho {
            rho,
            delta: DELTA,
        },
        Accounting::ZcdpSum,
        None,
        String::from(
            "the filter charges ρ_t = (L₀/(nσ̂))² + (L₀/(nσ_t))² and runs while the spent budget is ≤ ρ/2; the \
             replace-one cost is (2L₀/n)²/(2σ²) = 2(L₀/(nσ))², so a run that spends ρ/2 and then takes a \
             step at the floor σ_t = 2L₀/(n√ρ) costs 2·ρ/2 + 2(√ρ/n + ρ/4). Corrected: σ̂ and σ_t \
             (floor included) × √2, charges unchanged: ≤ 3ρ/4 + √ρ/n ≤ ρ when n√ρ ≥ 4."
        ),
    )
}

/// Menart §2.4, §7 P4: with `N_t <= 0` the charge can fall to `sqrt(rho)/n`
/// while the step runs at the floor noise.
fn menart_alg3_negative_norm() -> Erratum {
    let rho = menart_rho();
    let (n, l0): (f64, f64) = (1000.0, 1.0);
    let sens = 2.0 * l0 / n;
    let hat = l0 / (n.sqrt() * rho.powf(0.25));
    let floor = 2.0 * l0 / (n * rho.sqrt());
    // Charge at a floor step: min(L0^2 d l/(n^2 N_t^2), rho/2) + sqrt(rho)/n; -> sqrt(rho)/n as N_t -> -inf.
    let printed_charge = rho.sqrt() / n;
    let corrected_charge = rho / 2.0 + rho.sqrt() / n;
    // Worst run: every step charged sqrt(rho)/n, so floor((rho/2)/(sqrt(rho)/n)) + 1 steps pass the filter.
    let steps = (rho / 2.0 / printed_charge).floor() + 1.0;
    let realised = steps * (gaussian_zcdp(sens, hat) + gaussian_zcdp(sens, floor));
    let sqrt2 = std::f64::consts::SQRT_2;
    let corrected =
        rho / 2.0 + gaussian_zcdp(sens, sqrt2 * hat) + gaussian_zcdp(sens, sqrt2 * floor);
    erratum(
        "MUABG-A3n",
        MENART,
        "§2.4, §7 P4",
        "Alg. 3 charge ρ_t at a floor step",
        format!("ρ = {} (ε = 1, δ = 1e-5), n = {}, L₀ = 1", num(rho), param(n)),
        noise("min ρ_t", printed_charge),
        noise("min ρ_t", corrected_charge),
        Privacy::Rho {
            rho: realised,
            delta: DELTA,
        },
        Privacy::Rho {
            rho: corrected,
            delta: DELTA,
        },
        Privacy::Rho {
            rho,
            delta: DELTA,
        },
        Accounting::ZcdpSum,
        None,
        format!(
            "N_t = ‖g‖ + N(0, σ̂²) can be negative; σ_t then sits at the floor (true cost 2(√ρ/n + ρ/4) under \
             replace-one) while min(L₀²dℓ/(n²N_t²), ρ/2) → 0, so a run of such steps passes the filter {} \
             times. This is the worst run over the noise draws (a filter must hold on every run). \
             Corrected: N_t⁺ = max(N_t, 0) (charge ρ/2 + √ρ/n at the floor, which ends the run) and the \
             √2 of MUABG-A3c.",
            param(steps)
        ),
    )
}

/// Menart §2.3: Algorithm 4's `sigma^2 = 4 L0^2 T_in / (n^2 rho_A)` spends only
/// half the budget.
fn menart_alg4() -> Erratum {
    let rho = menart_rho();
    let (n, d, l0, beta): (f64, f64, f64, f64) = (1000.0, 10.0, 1.0, 0.1);
    let t_in = (n * n * rho * (2.0 / beta).ln().powi(2) / d).ceil();
    let sens = 2.0 * l0 / n;
    let printed = (4.0 * l0 * l0 * t_in / (n * n * rho)).sqrt();
    let corrected = (2.0 * l0 * l0 * t_in / (n * n * rho)).sqrt();
    erratum(
        "MUABG-A4",
        MENART,
        "§2.3",
        "Alg. 4 (noisy GD) noise σ",
        format!(
            "ρ_A = {} (one call), n = {}, d = {}, L₀ = 1, β_A = {}: T_in = {}",
            num(rho),
            param(n),
            param(d),
            param(beta),
            param(t_in)
        ),
        noise("σ", printed),
        noise("σ", corrected),
        Privacy::Rho {
            rho: t_in * gaussian_zcdp(sens, printed),
            delta: DELTA,
        },
        Privacy::Rho {
            rho: t_in * gaussian_zcdp(sens, corrected),
            delta: DELTA,
        },
        Privacy::Rho {
            rho,
            delta: DELTA,
        },
        Accounting::ZcdpSum,
        None,
        "each of the T_in steps releases a gradient of replace-one sensitivity 2L₀/n (the regulariser is \
         data-independent) and costs (2L₀/n)²/(2σ²) = ρ_A/(2T_in): the printed σ spends ρ_A/2. Corrected \
         σ² = 2L₀²T_in/(n²ρ_A) spends exactly ρ_A."
            .to_string(),
    )
}

/// Menart §2.5, §7 P8: the selection of Theorem 5 weights by
/// `n sqrt(rho)/(2 L0)`, calibrated to sensitivity `L0/n`; replace-one gives `2L0/n`.
fn menart_selection() -> Erratum {
    let rho = menart_rho();
    let (n, l0): (f64, f64) = (1000.0, 1.0);
    let score_sens = 2.0 * l0 / n;
    let printed = n * rho.sqrt() / (2.0 * l0);
    let corrected = n * rho.sqrt() / (4.0 * l0);
    // Pr[t] ∝ exp(w * score) with score sensitivity Δ is (2 w Δ)-DP.
    let eps_of = |w: f64| 2.0 * w * score_sens;
    erratum(
        "MUABG-T5",
        MENART,
        "§2.5, §7 P8",
        "Thm 5 selection weight (exponential mechanism)",
        format!(
            "ρ = {} (ε = 1, δ = 1e-5), n = {}, L₀ = 1; claimed √ρ-DP",
            num(rho),
            param(n)
        ),
        budget("weight", printed),
        budget("weight", corrected),
        Privacy::Pure {
            eps: eps_of(printed),
        },
        Privacy::Pure {
            eps: eps_of(corrected),
        },
        Privacy::Pure { eps: rho.sqrt() },
        Accounting::ExponentialMechanism,
        None,
        format!(
            "Pr[t] ∝ exp(−(n√ρ/(2L₀))‖∇F(w_t)‖); under replace-one ‖∇F‖ moves by 2L₀/n, so the selection \
             is 2√ρ-DP, i.e. 2ρ-zCDP by Lemma 14, not √ρ-DP (ρ/2). Corrected weight n√ρ/(4L₀). \
             (The bounded-range analysis of the exponential mechanism, Cesar–Rogers 2021, would give the \
             printed weight (2√ρ)²/8 = ρ/2 = {}-zCDP, meeting the zCDP budget the paper intends.)",
            num(rho / 2.0)
        ),
    )
}

// ---------------------------------------------------------------------------
// Wang, Zhu & Wang, "Adapting to Linear Separable Subsets with Large-Margin".
// ---------------------------------------------------------------------------

/// Wang §8 P4: `T = n^2 mu_p^2` is not an integer; rounding it up while
/// keeping `sigma = n Delta` overspends each JLGD call's GDP budget.
fn wang_integer_t() -> Erratum {
    let (eps, delta) = (EPS, DELTA);
    let (n, gamma): (f64, f64) = (1000.0, 1.0);
    let lam = log_inv(delta);
    // Γ = {1/n, 2/n, ..., 2^floor(log2 n)/n, 1}: floor(log2 n) + 1 powers plus 1 (n not a power of 2).
    let grid = (n.log2().floor() + 1.0) + 1.0;
    let mu = eps / (2.0 * (2.0 * lam).sqrt());
    let mu_p = mu / (2.0 * grid).sqrt();
    let steps = (n * n * mu_p * mu_p).ceil();
    let sens = 12.0 / gamma;
    let printed = n * sens;
    let corrected = sens * steps.sqrt() / mu_p;
    // |Γ| JLGD calls at sqrt(T) Δ/σ-GDP each plus |Γ| scores at mu_p; GDP composes in quadrature.
    let total_mu = |sigma: f64| {
        let call = sens * steps.sqrt() / sigma;
        (grid * call * call + grid * mu_p * mu_p).sqrt()
    };
    // mu-GDP is the Gaussian mechanism with Δ/σ = mu: exact profile with sigma = 1, Delta = mu.
    let gdp_delta = |m: f64| exact_gaussian_delta(eps, 1.0, m);
    let exact_mu = smallest_passing(1e-3, 10.0, |m| gdp_delta(m) > delta);
    erratum(
        "WZW-P4",
        "Wang–Zhu–Wang",
        "§8 P4",
        "NGD noise σ with rounded T (JLGD call)",
        format!(
            "ε = {}, δ = {}, n = {}, |Γ| = {}, γ = {} (Δ = 12/γ): μ_p = {}, T = ⌈n²μ_p²⌉ = {}",
            param(eps),
            param(delta),
            param(n),
            param(grid),
            param(gamma),
            num(mu_p),
            param(steps)
        ),
        noise("σ", printed),
        noise("σ", corrected),
        Privacy::Delta {
            eps,
            delta: gdp_delta(total_mu(printed)),
        },
        Privacy::Delta {
            eps,
            delta: gdp_delta(total_mu(corrected)),
        },
        Privacy::Delta { eps, delta },
        Accounting::ExactGdp,
        Some(GaussianAudit {
            eps,
            target_delta: delta,
            printed: (1.0, total_mu(printed)),
            corrected: (1.0, total_mu(corrected)),
        }),
        format!(
            "σ = nΔ presumes T = n²μ_p² exactly (= {}); with T rounded up each call is √T Δ/σ = {}-GDP \
             instead of μ_p = {}, and the whole algorithm {}-GDP instead of μ = {}. Corrected σ = Δ√T/μ_p. \
             The (ε, δ) claim survives because Cor E.2's μ = ε/(2√(2 ln(1/δ))) is far below the exact \
             largest μ = {} for (ε, δ) (exact GDP profile, Dong–Roth–Su Cor 2.13).",
            num(n * n * mu_p * mu_p),
            sig(sens * steps.sqrt() / printed, 6),
            sig(mu_p, 6),
            sig(total_mu(printed), 6),
            sig(mu, 6),
            num(exact_mu)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formatting() {
        assert_eq!(num(7.4123e-5), "7.412e-5");
        assert_eq!(num(1e-5), "1e-5");
        assert_eq!(num(4.6091), "4.609");
        assert_eq!(num(1.0), "1");
        assert_eq!(num(12000.0), "12000");
        assert_eq!(num(0.020828), "0.02083");
        assert_eq!(param(1e-5), "1e-5");
        assert_eq!(param(1e4), "10000");
        assert_eq!(param(1e7), "1e7");
        assert_eq!(param(0.5), "0.5");
    }

    #[test]
    fn zcdp_conversion_round_trips() {
        let rho = dp_to_zcdp_rho(1.0, 1e-5);
        assert!((zcdp_to_dp_eps(rho, 1e-5) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn subsampled_rdp_reduces_to_gaussian_at_q_one() {
        // With q = 1 the sum is exp((a^2 - a)/(2 z^2)): the Gaussian RDP a/(2 z^2).
        for (a, z) in [(2, 1.0), (10, 3.0), (40, 0.7)] {
            let got = subsampled_gaussian_rdp(a, 1.0 - 1e-15, z);
            let want = f64::from(a) / (2.0 * z * z);
            assert!(
                (got - want).abs() < 1e-9 * want.max(1.0),
                "{a} {z}: {got} vs {want}"
            );
        }
    }
}
