//! The audit report: `results/<name>.md` and `.csv`, a row per audit with
//! its claim, runs, bound, verdict, expectation and power, and the list of
//! the algorithms that release nothing private.

use std::fmt::Write as _;

use audit::{Assessment, Verdict};

pub use super::outcome::{claimed_eps_delta, declared_method, outcome, Outcome, Power};
use super::spec::{variant, AuditPlan, Observe};
use crate::registry::Privacy;

fn num(x: f64) -> String {
    if x == f64::NEG_INFINITY {
        "-inf".into()
    } else if x.is_nan() {
        "".into()
    } else {
        format!("{x:.4}")
    }
}

fn privacy_text(p: Privacy) -> String {
    match p {
        Privacy::Approx(p) => format!("eps={} delta={}", p.eps, p.delta),
        Privacy::Zcdp(rho) => format!("rho={rho}"),
    }
}

/// The CSV (deterministic: the same runs give the same bytes).
pub fn csv(outcomes: &[Outcome], alpha: f64) -> String {
    let mut out = String::from(
        "audit,algorithm,variant,role,erratum,relation,claim,claimed_eps,claimed_delta,run_at,runs_per_side,estimation_runs,estimator,eps_lower,mu_lower,confidence,verdict,expected,smallest_detectable_eps,runs_to_flag_realised,detectable_eps_95,gaussian_fit_refused,revised,reference_eps_95,reflag_rate,power_probes,power_note,observes\n",
    );
    // Free text goes into a CSV that readers split on commas.
    let text = |t: &str| t.replace([',', '\n'], ";");
    for o in outcomes {
        let a = &o.audit;
        let (eps_lb, mu_lb, est_runs, power, reference_95, refused) = match &o.assessment {
            Some(s) => (
                num(s.eps_lower),
                s.mu_lower.map(num).unwrap_or_default(),
                s.estimation_runs.to_string(),
                s.smallest_detectable_eps
                    .map(num)
                    .unwrap_or_else(|| "none".into()),
                s.detectable_eps_95.map(num).unwrap_or_default(),
                s.fit_refused.as_deref().map(text).unwrap_or_default(),
            ),
            None => Default::default(),
        };
        let (power_95, reflag, probes, power_note) = match &o.power {
            Some(p) => (
                p.detectable_eps_95.map(num).unwrap_or_default(),
                p.own_rate.map(|r| format!("{r:.2}")).unwrap_or_default(),
                probes_text(p),
                text(&p.note),
            ),
            None => Default::default(),
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            a.row.name,
            a.algorithm.name,
            variant(a).replace(',', ";"),
            a.row.role,
            a.row.erratum.clone().unwrap_or_default(),
            o.relation,
            privacy_text(a.claim),
            num(o.claimed.0),
            o.claimed.1,
            privacy_text(a.run_at),
            a.runs,
            est_runs,
            o.estimator.name(),
            eps_lb,
            mu_lb,
            1.0 - alpha,
            o.verdict(),
            a.row.expect,
            power,
            o.runs_to_flag.map(|r| r.to_string()).unwrap_or_default(),
            power_95,
            refused,
            a.row.revised.as_deref().map(text).unwrap_or_default(),
            reference_95,
            reflag,
            probes,
            power_note,
            a.row.observe.name(),
        );
    }
    out
}

/// The probes as `eps':rate` pairs separated by `;`.
fn probes_text(p: &Power) -> String {
    p.probes
        .iter()
        .map(|(eps, r)| format!("{eps:.4}:{r:.2}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// The Markdown report.
pub fn markdown(
    plan: &AuditPlan,
    outcomes: &[Outcome],
    unaudited: &[&str],
    commit: &str,
    date: &str,
) -> String {
    let alpha = plan.file.alpha;
    let mut md = String::new();
    let _ = writeln!(md, "# Privacy audit: {}\n", plan.output);
    let _ = writeln!(
        md,
        "Report written {date} at commit {commit} from the runs stored in `{}.h5` ({} audits of \
         spec `{}`; a run reuses the stored runs of every audit whose algorithm code, options, \
         setting, run-at privacy and seed are unchanged, so runs may predate the commit). {}\n",
        plan.output,
        outcomes.len(),
        plan.file.name,
        plan.file.description
    );
    let _ = writeln!(
        md,
        "Each audit runs the algorithm many times on a worst-case neighbouring pair (D, D') built beside its entry, \
         reduces each release to a scalar statistic, chooses an event on the first half of the runs and bounds eps \
         from the second half: eps_lb holds with confidence {} (a claim that holds is flagged with probability at \
         most alpha = {alpha}). zCDP claims are converted to eps at delta = {} (Canonne–Kamath–Steinke). \
         `violation`: eps_lb > the claimed eps. The Gaussian-DP fit is used only where the entry declares a Gaussian \
         release and the runs show no atom (tied statistic values from a clip, a projection or a discrete release); \
         otherwise the threshold audit, with the reason in the notes. `detectable 95%` is the power for the row's own \
         statistic: the smallest eps' found such that the same algorithm calibrated by its entry to eps' (a calibration \
         error of that size), on the same pair and statistic, is flagged against the claim by an audit of this size with \
         probability at least 0.95, measured by {} bootstrap replicates of probe runs at eps' = reference x {}^k, k < {} \
         (probes and rates in the notes; for a violation row, the eps of the release it ran, when the bootstrap flags it \
         at 0.95). A consistent row rules out, at about that confidence, a calibration error of this algorithm at or above \
         that eps, and nothing below it (it is not evidence that the claim holds). `reference 95%`: the same for an ideal \
         release (a Gaussian mechanism at delta > 0, a Laplace mechanism at delta = 0) whose whole privacy loss shows in \
         the statistic; `typical`: the eps such a release is flagged at about half the time. The spec's {} rows at alpha = {alpha} \
         each have a family-wise false-alarm rate of at most {:.3} (rows x alpha).\n",
        1.0 - alpha,
        plan.file.zcdp_delta,
        super::power::REPLICATES,
        super::power::GROWTH,
        super::power::MAX_PROBES,
        outcomes.len(),
        (outcomes.len() as f64 * alpha).min(1.0)
    );
    let violations = outcomes
        .iter()
        .filter(|o| o.verdict() == "violation")
        .count();
    let unexpected: Vec<&Outcome> = outcomes.iter().filter(|o| !o.as_expected()).collect();
    let _ = writeln!(
        md,
        "{violations} violations; {} of {} verdicts as the theory expects.\n",
        outcomes.len() - unexpected.len(),
        outcomes.len()
    );
    let _ = writeln!(md, "| audit | algorithm | variant | role | claim (eps at delta) | runs/side | estimator | eps_lb | verdict | expected | detectable 95% | reference 95% | typical | thread s |");
    let _ = writeln!(
        md,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for o in outcomes {
        let a = &o.audit;
        let claim = match a.claim {
            Privacy::Zcdp(rho) => format!("rho {rho} = {:.3} at {}", o.claimed.0, o.claimed.1),
            Privacy::Approx(p) => format!("{} at {}", p.eps, p.delta),
        };
        let run_at = if a.run_at != a.claim {
            format!(" (run at {})", privacy_text(a.run_at))
        } else {
            String::new()
        };
        let statistic_95 = match &o.power {
            Some(p) => p
                .detectable_eps_95
                .map(num)
                .unwrap_or_else(|| "none".into()),
            None => String::new(),
        };
        let (eps_lb, power, power_95) = match &o.assessment {
            Some(s) => (
                match s.mu_lower {
                    Some(mu) => format!("{} (mu {})", num(s.eps_lower), num(mu)),
                    None => num(s.eps_lower),
                },
                s.smallest_detectable_eps
                    .map(num)
                    .unwrap_or_else(|| "none".into()),
                s.detectable_eps_95
                    .map(num)
                    .unwrap_or_else(|| "none".into()),
            ),
            None => (
                format!(
                    "not measured: {}",
                    o.failure.as_ref().map(|f| f.1.clone()).unwrap_or_default()
                ),
                String::new(),
                String::new(),
            ),
        };
        let role = match &a.row.erratum {
            Some(e) => format!("{} {e}", a.row.role),
            None => a.row.role.to_string(),
        };
        let mark = if o.as_expected() {
            ""
        } else {
            " **(unexpected)**"
        };
        let _ = writeln!(
            md,
            "| {}{} | {} | {} | {role} | {claim}{run_at} | {} | {} | {eps_lb} | {}{mark} | {} | {statistic_95} | {power_95} | {power} | {:.0} |",
            a.row.name,
            match a.row.observe {
                Observe::Release => "",
                Observe::Transcript => " (transcript)",
            },
            a.algorithm.name,
            variant(a),
            a.runs,
            o.estimator.name(),
            o.verdict(),
            a.row.expect,
            o.seconds,
        );
    }
    let _ = writeln!(md, "\n## Pairs and notes\n");
    for o in outcomes {
        let a = &o.audit;
        let def = a.algorithm.audit.expect("validated");
        let _ = write!(
            md,
            "- **{}** ({}, {}): {}. {}",
            a.row.name,
            o.relation,
            a.algorithm.name,
            o.pair.trim_end_matches('.'),
            def.method.trim_end_matches('.')
        );
        if !a.row.note.is_empty() {
            let _ = write!(md, ". {}", a.row.note.trim_end_matches('.'));
        }
        if let Some(why) = o.assessment.as_ref().and_then(|s| s.fit_refused.as_ref()) {
            let _ = write!(md, ". **{}**", why.trim_end_matches('.'));
        }
        if let Some(p) = &o.power {
            let _ = write!(md, ". Power for this statistic");
            if let Some(r) = p.own_rate {
                let _ = write!(md, ": bootstrap flag rate {r:.2} on its own runs");
            }
            if !p.probes.is_empty() {
                let probes: Vec<String> = p
                    .probes
                    .iter()
                    .map(|(eps, r)| format!("eps' {eps:.3}: {r:.2}"))
                    .collect();
                let _ = write!(md, "; probes {}", probes.join(", "));
            }
            if !p.note.is_empty() {
                let _ = write!(md, "; {}", p.note.trim_end_matches('.'));
            }
        }
        if let Some(r) = &a.row.revised {
            let _ = write!(md, ". **Expectation revised:** {}", r.trim_end_matches('.'));
        }
        if let Some(r) = o.runs_to_flag {
            let _ = write!(
                md,
                ". A typical Gaussian-DP audit flags the realised eps {} at {r} runs a side",
                a.row.realised_eps.unwrap_or(f64::NAN)
            );
        }
        let _ = writeln!(md, ".");
    }
    if !unaudited.is_empty() {
        let _ = writeln!(md, "\n## Not audited\n\nThese entries release nothing private (non-private baselines, theory curves, measurements): {}.", unaudited.join(", "));
    }
    md
}

/// Keeps `Verdict` in this module's vocabulary for the check.
pub fn is_violation(o: &Outcome) -> bool {
    matches!(
        o.assessment,
        Some(Assessment {
            verdict: Verdict::Violation,
            ..
        })
    )
}
