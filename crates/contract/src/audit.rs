//! What an algorithm declares to be audited empirically (`runner audit`): a
//! worst-case neighbouring pair `(D, D')` under the relation its guarantee is
//! stated for, a scalar statistic of its release, and the estimator that turns
//! many runs on each side into a lower confidence bound on its `eps`.
//!
//! The pair lives beside the algorithm's entry because it is built for that
//! algorithm: a canary record where the algorithm's sensitivity analysis is
//! tight (at the clip boundary, pointing where no other record points). The
//! runner checks every pair with [`differ_in_one_record`] before running it,
//! so a pair that differs in more than one record is refused, not audited.

use dpcore::RunFailure;

use crate::{Instance, Privacy, Released, Values};

/// The neighbouring relation a guarantee is stated under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `D'` is `D` with one record replaced (same size).
    ReplaceOne,
    /// `D'` is `D` with one record removed (one record fewer).
    AddRemove,
}

impl Relation {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Relation::ReplaceOne => "replace-one",
            Relation::AddRemove => "add/remove",
        }
    }
}

/// How the runs' statistics become a lower bound on `eps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    /// Clopper–Pearson on the best threshold event, chosen on separate runs
    /// (`audit::threshold::audit`): valid for any mechanism.
    Threshold,
    /// The Gaussian-DP fit (Nasr et al. 2023, `audit::gdp::gdp_audit`): valid
    /// where the statistic's trade-off between `D` and `D'` is Gaussian (a
    /// Gaussian release, or a release linear in Gaussian noise), tighter there.
    /// A pure-DP claim (`delta = 0`) has no Gaussian trade-off to fit: the
    /// runner audits it with [`Estimator::Threshold`].
    GaussianDp,
}

impl Estimator {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Estimator::Threshold => "threshold (Clopper-Pearson)",
            Estimator::GaussianDp => "Gaussian-DP fit",
        }
    }
}

/// The setting an audit pair is built at (from the audit spec).
#[derive(Debug, Clone, Copy)]
pub struct AuditSetting<'a> {
    /// Records of the larger data set.
    pub n: usize,
    /// Dimension.
    pub d: usize,
    /// The algorithm's validated options (a pair may depend on the relation
    /// an option selects).
    pub options: &'a Values,
    /// The guarantee the algorithm is run at.
    pub privacy: Privacy,
    /// Whether the audit observes the whole transcript (`observe =
    /// "transcript"`, [`AuditDef::transcript`]) rather than the final
    /// release: a pair may then allow settings whose final release the
    /// release estimator could not bound (e.g. Poisson batches, whose
    /// transcript loss marginalises over the sample).
    pub transcript: bool,
}

/// A neighbouring pair, built: the instances the algorithm runs on and the
/// records they were built from.
pub struct AuditPair {
    /// `D` (holding the canary) and `D'`.
    pub instances: [Instance; 2],
    /// The records of `D` and `D'`, one row each (features, then the label
    /// where there is one), in the order the instances hold them.
    pub records: [Vec<Vec<f64>>; 2],
    /// The relation the pair is neighbouring under.
    pub relation: Relation,
    /// The family values the algorithm's [`crate::RunContext`] carries.
    pub problem: Values,
    /// What the pair is, for the report (e.g. "n - 1 records at -e1; the
    /// canary +e1 replaced by -e1").
    pub description: String,
}

/// Builds an algorithm's audit pair at a setting.
pub type PairFn = fn(&AuditSetting) -> Result<AuditPair, RunFailure>;

/// Runs the algorithm on side `side` (0: `D`, 1: `D'`) of the pair with
/// every intermediate release observed, and returns the transcript's
/// statistic (for Gaussian releases, their privacy-loss sum: the log
/// likelihood ratio of the transcript between `D` and `D'`, Nasr et al.
/// 2021's white-box auditor, which needs the pair to compute both means).
pub type TranscriptFn =
    fn(&crate::RunContext, &AuditPair, usize, &mut rand_pcg::Pcg64) -> Result<f64, RunFailure>;

/// An algorithm's audit: pair, statistic and estimator.
#[derive(Debug)]
pub struct AuditDef {
    /// The worst-case pair.
    pub pair: PairFn,
    /// The scalar the audit thresholds (e.g. the release's first coordinate,
    /// the canary's direction).
    pub statistic: fn(&Released) -> f64,
    /// The estimator.
    pub estimator: Estimator,
    /// The statistic of the whole transcript, when the entry can observe
    /// it: every noisy release an accountant composes over, not only the
    /// final point (`observe = "transcript"` in an audit row). `None`: the
    /// final release only.
    pub transcript: Option<TranscriptFn>,
    /// Why this pair is worst-case for the algorithm and why the estimator
    /// applies, one or two sentences for the report.
    pub method: &'static str,
}

/// The first coordinate of a released point (of the min player's point of a
/// saddle pair, of a histogram; the value of a measurement): the statistic
/// of a pair whose canary points along `e1`.
pub fn first_coordinate(released: &Released) -> f64 {
    match released {
        Released::Point(w) | Released::Histogram(w) => w.first().copied().unwrap_or(f64::NAN),
        Released::Pair { x, .. } => x.first().copied().unwrap_or(f64::NAN),
        Released::Measurement(v) => *v,
    }
}

/// Checks that `d` and `d_prime` are neighbours under `relation`: for
/// replace-one, the same number of records with exactly one row different;
/// for add/remove, `d_prime` is `d` with exactly one row removed (order of
/// the others kept). The error says how they differ.
pub fn differ_in_one_record(
    relation: Relation,
    d: &[Vec<f64>],
    d_prime: &[Vec<f64>],
) -> Result<(), String> {
    let same = |a: &Vec<f64>, b: &Vec<f64>| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    match relation {
        Relation::ReplaceOne => {
            if d.len() != d_prime.len() {
                return Err(format!(
                    "replace-one neighbours must have the same size, not {} and {}",
                    d.len(),
                    d_prime.len()
                ));
            }
            let differing = d.iter().zip(d_prime).filter(|(a, b)| !same(a, b)).count();
            if differing != 1 {
                return Err(format!(
                    "replace-one neighbours must differ in exactly one record, not {differing}"
                ));
            }
            Ok(())
        }
        Relation::AddRemove => {
            if d.len() != d_prime.len() + 1 {
                return Err(format!(
                    "add/remove neighbours must differ by one record in size, not {} and {}",
                    d.len(),
                    d_prime.len()
                ));
            }
            // The first row where they part is the removed one; the rest must
            // then agree shifted by one.
            let cut = d
                .iter()
                .zip(d_prime)
                .position(|(a, b)| !same(a, b))
                .unwrap_or(d_prime.len());
            if d[cut + 1..]
                .iter()
                .zip(&d_prime[cut..])
                .all(|(a, b)| same(a, b))
            {
                Ok(())
            } else {
                Err("add/remove neighbours must agree on every record but the removed one".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[f64]) -> Vec<Vec<f64>> {
        v.iter().map(|x| vec![*x, 1.0]).collect()
    }

    #[test]
    fn replace_one_accepts_exactly_one_change() {
        let d = rows(&[1.0, 2.0, 3.0]);
        assert!(differ_in_one_record(Relation::ReplaceOne, &d, &rows(&[1.0, 5.0, 3.0])).is_ok());
        assert!(differ_in_one_record(Relation::ReplaceOne, &d, &d).is_err());
        assert!(differ_in_one_record(Relation::ReplaceOne, &d, &rows(&[0.0, 5.0, 3.0])).is_err());
        assert!(differ_in_one_record(Relation::ReplaceOne, &d, &rows(&[1.0, 2.0])).is_err());
        // A change in the label alone is a change of the record.
        let mut labelled = d.clone();
        labelled[2][1] = -1.0;
        assert!(differ_in_one_record(Relation::ReplaceOne, &d, &labelled).is_ok());
    }

    #[test]
    fn add_remove_accepts_exactly_one_removal() {
        let d = rows(&[1.0, 2.0, 3.0]);
        for kept in [rows(&[2.0, 3.0]), rows(&[1.0, 3.0]), rows(&[1.0, 2.0])] {
            assert!(differ_in_one_record(Relation::AddRemove, &d, &kept).is_ok());
        }
        assert!(differ_in_one_record(Relation::AddRemove, &d, &rows(&[3.0, 2.0])).is_err());
        assert!(differ_in_one_record(Relation::AddRemove, &d, &rows(&[1.0, 9.0])).is_err());
        assert!(differ_in_one_record(Relation::AddRemove, &d, &d).is_err());
        assert!(differ_in_one_record(Relation::AddRemove, &d, &rows(&[1.0])).is_err());
    }

    #[test]
    fn first_coordinate_reads_every_release() {
        assert_eq!(first_coordinate(&Released::Point(vec![0.5, 2.0])), 0.5);
        let pair = Released::Pair {
            x: vec![0.25],
            y: vec![9.0],
        };
        assert_eq!(first_coordinate(&pair), 0.25);
        assert_eq!(first_coordinate(&Released::Measurement(3.0)), 3.0);
        assert!(first_coordinate(&Released::Point(vec![])).is_nan());
    }
}
