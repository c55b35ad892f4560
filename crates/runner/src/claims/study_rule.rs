//! The rule a study's own slope check is judged by, when the check measures
//! an upper bound of the claims ledger.
//!
//! A study's window states a band around the theorem curve's exponent. When
//! every ledger claim the window measures is an upper bound (an O(·)
//! guarantee), the study's report must read the fit as the theorem does: a
//! fit that beats the bound confirms it ("beats the bound"), and a worse one
//! contradicts only on an instance that attains the rate. Judged on its
//! two-sided band instead, `mn_e2_k3_d` read "contradicted" in
//! `results/menart.md` at +1.049 ± 0.098 against +1.333 ± 0.15, while the
//! ledger read the same fit as confirmed; 92 windows of the committed specs
//! were two-sided bands on upper-bound claims. The ledger re-judges every fit
//! under its claim's rule anyway ([`super::evidence`]); this module makes the
//! study report, its verdict baseline and `runner check` say the same.

use std::path::Path;

use crate::spec::SlopeSide;
use crate::verdict::SlopeRule;

use super::spec::{load_claims, ClaimKind, ClaimSpec, Evidence, Limit};

/// The upper-bound rule a study check takes from the claims it measures.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimRule {
    /// The rule (always [`SlopeRule::UpperBound`]).
    pub rule: SlopeRule,
    /// The ids of the claims that set it.
    pub claims: Vec<String>,
}

/// A study's slope window, as the claims see it.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// Swept parameter.
    pub param: &'a str,
    /// The window's exponent (a claim's `slope` selector matches it).
    pub slope: f64,
    /// Its declared side.
    pub side: SlopeSide,
}

/// Whether claim `c` is judged on window `w` by the ledger: a measured slope
/// claim on the window's parameter whose `slope` selector (if any) picks it.
fn measures(c: &ClaimSpec, w: Window) -> bool {
    c.evidence == Evidence::Slope
        && c.not_measured.is_none()
        && c.undecidable.is_none()
        && c.selects_window(w.param, w.slope)
}

/// The rule window `w` of study `study` naming `study_claims` is judged by:
/// the upper-bound rule when every claim it measures is an upper bound with
/// one `limit` (attained only if every one is attained on `study`), `None`
/// otherwise (no claim, a
/// sharp rate or hypothesis among them, mixed limits, or a reported slope),
/// where the window's declared band stands.
pub fn rule_for(
    w: Window,
    study: &str,
    study_claims: &[String],
    claims: &[ClaimSpec],
) -> Option<ClaimRule> {
    if w.side == SlopeSide::Reported {
        return None;
    }
    let measured: Vec<&ClaimSpec> = claims
        .iter()
        .filter(|c| study_claims.contains(&c.id) && measures(c, w))
        .collect();
    let first = measured.first()?;
    let upper = |c: &&ClaimSpec| c.kind == ClaimKind::UpperBound && c.limit == first.limit;
    if !measured.iter().all(upper) {
        return None;
    }
    Some(ClaimRule {
        rule: SlopeRule::UpperBound {
            worse_is_larger: first.limit == Limit::Large,
            attained: measured.iter().all(|c| c.attains(study)),
        },
        claims: measured.iter().map(|c| c.id.clone()).collect(),
    })
}

/// The claims of the claim files in `claims/` beside the spec at
/// `spec_path` (none when there is no such folder). A claim file that does
/// not parse is skipped here and refused by `runner claims --check`.
pub fn claims_beside(spec_path: &Path) -> Vec<ClaimSpec> {
    let Some(dir) = spec_path.parent().map(|p| p.join("claims")) else {
        return Vec::new();
    };
    if !dir.is_dir() {
        return Vec::new();
    }
    load_claims(&dir)
        .map(|files| files.into_iter().flat_map(|(_, f)| f.claims).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(param: &str, slope: f64, side: SlopeSide) -> Window<'_> {
        Window { param, slope, side }
    }

    fn claim(id: &str, kind: &str, extra: &str) -> ClaimSpec {
        let text = format!(
            "id = \"{id}\"\ntheorem = \"T\"\nstatement = \"s\"\nkind = \"{kind}\"\nparameter = \"d\"\nevidence = \"slope\"\nexpected = \"e\"\n{extra}"
        );
        toml::from_str(&text).unwrap()
    }

    #[test]
    fn an_upper_bound_window_takes_the_upper_bound_rule() {
        let ub = [claim("UB", "upper_bound", "")];
        let r = rule_for(
            window("d", 1.333, SlopeSide::Both),
            "s",
            &["UB".into()],
            &ub,
        )
        .unwrap();
        assert_eq!(
            r.rule,
            SlopeRule::UpperBound {
                worse_is_larger: true,
                attained: false
            }
        );
        assert_eq!(r.claims, vec!["UB".to_string()]);
        let small = [claim(
            "UBs",
            "upper_bound",
            "limit = \"small\"\nattained = \"worst case\"",
        )];
        let r = rule_for(
            window("d", 1.0, SlopeSide::Both),
            "s",
            &["UBs".into()],
            &small,
        )
        .unwrap();
        assert_eq!(
            r.rule,
            SlopeRule::UpperBound {
                worse_is_larger: false,
                attained: true
            }
        );
    }

    #[test]
    fn a_sharp_rate_a_reported_slope_or_no_claim_keeps_the_declared_band() {
        let ub = claim("UB", "upper_bound", "");
        let both = window("d", 1.0, SlopeSide::Both);
        let names = ["UB".to_string(), "SR".to_string()];
        let with_sharp = [ub.clone(), claim("SR", "sharp_rate", "")];
        assert!(rule_for(both, "s", &names, &with_sharp).is_none());
        let only_ub = [ub.clone()];
        let reported = window("d", 1.0, SlopeSide::Reported);
        assert!(rule_for(reported, "s", &names[..1], &only_ub).is_none());
        assert!(
            rule_for(both, "s", &[], &only_ub).is_none(),
            "no claim named"
        );
        assert!(rule_for(
            window("n", 1.0, SlopeSide::Both),
            "s",
            &names[..1],
            &only_ub
        )
        .is_none());
        let other_window = [claim("UBw", "upper_bound", "slope = 0.5")];
        assert!(rule_for(both, "s", &["UBw".into()], &other_window).is_none());
        let mixed = [ub, claim("UBm", "upper_bound", "limit = \"small\"")];
        let names = ["UB".to_string(), "UBm".to_string()];
        assert!(
            rule_for(both, "s", &names, &mixed).is_none(),
            "mixed limits"
        );
    }
}
