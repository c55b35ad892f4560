//! Pre-registration read from history: was each study expectation committed
//! before its study's first cell existed?
//!
//! Every committed version of the report `results/<name>.md` names the
//! commits its rows were computed at (one, or one per run segment). For each
//! study, the earliest of all those commits (over the report's whole
//! history, so a rerun does not hide the first run) whose experiment file
//! already declares the study is where its first cells were computed; the
//! expectation is *before* when that version of the file already holds it
//! unchanged (the same slope,
//! tolerance, side and window; `revised` and `regime_not_reached` aside,
//! since a note or a weakening moves no target). A slope's own `revised`
//! makes it "after (revised)" even when unchanged; the study's `revised`
//! (for its bound, theory and reference checks) marks only those of them
//! that differ from the first run's version. A `-dirty` commit is read
//! as its clean base: an expectation only in the uncommitted tree counts as
//! after. Nothing in the ledger is set by hand: this is `git show` of the
//! experiment file at those commits.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::evidence::{Check, CheckRef, Judged};

/// Whether one study expectation was set before its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreregStatus {
    /// Committed, as it is now, before the study's first cell.
    Before,
    /// Set or changed after the data; `revised` when the expectation says
    /// why (`revised = "..."`).
    After {
        /// The expectation carries a `revised` reason.
        revised: bool,
    },
    /// No history to tell (no report, no commit, or git unavailable).
    Unknown,
}

/// The pre-registration status of every study expectation of the judged
/// experiments.
#[derive(Debug, Clone, Default)]
pub struct Prereg {
    statuses: BTreeMap<(PathBuf, String, String), PreregStatus>,
}

fn check_key(check: &Check) -> String {
    match check {
        Check::Slope { param, window } => format!("slope {param} {:e} {:e}", window.0, window.1),
        Check::Bound => "bound".into(),
        Check::TheoryMatch => "theory".into(),
        Check::Reference => "reference".into(),
    }
}

impl Prereg {
    /// The status of one expectation ([`PreregStatus::Unknown`] when not read).
    pub fn status(&self, c: &CheckRef) -> PreregStatus {
        self.statuses
            .get(&(c.spec.clone(), c.study.clone(), check_key(&c.check)))
            .copied()
            .unwrap_or(PreregStatus::Unknown)
    }

    /// Reads every expectation's status from git history and the committed
    /// reports in `results_dir`.
    pub fn from_history(judged: &[Judged], results_dir: &Path) -> Prereg {
        let mut statuses = BTreeMap::new();
        let order = commit_order(results_dir);
        for j in judged {
            // The runs of every report the studies' evidence comes from (the
            // default's, and a selecting profile's): an expectation is
            // "before" only if it is the one of the first run that had it.
            let mut reports: Vec<&String> = j.sources.iter().collect();
            reports.sort();
            reports.dedup();
            let mut commits = Vec::new();
            let mut read_any = false;
            for name in reports {
                let report = results_dir.join(format!("{name}.md"));
                if let Ok(text) = std::fs::read_to_string(&report) {
                    read_any = true;
                    commits.extend(run_commits(&report, &text, order.as_ref()));
                }
            }
            if !read_any {
                continue;
            }
            if let Some(position) = &order {
                commits.sort_by_key(|h| std::cmp::Reverse(position[h]));
            }
            commits.dedup();
            let Ok(now_text) = std::fs::read_to_string(&j.path) else {
                continue;
            };
            let Some(now) = studies_of(&now_text) else {
                continue;
            };
            let versions: Vec<BTreeMap<String, toml::Value>> = commits
                .iter()
                .filter_map(|c| git_show(&j.path, c))
                .filter_map(|t| studies_of(&t))
                .collect();
            for study in &j.experiment.studies {
                let Some(current) = now.get(&study.name) else {
                    continue;
                };
                let first = versions.iter().find_map(|v| v.get(&study.name));
                // The study's `revised` speaks for its bound, theory and
                // reference checks (a slope carries its own), without saying
                // which: it marks those that differ from the first run's
                // version, and one that the first run's version already held
                // unchanged stays "before" (LR's study that gained an
                // above_reference after its run kept its pre-registered
                // below_bound).
                let study_revised = expect_of(current).and_then(|e| e.get("revised")).is_some();
                // A slope's own `revised` says it changed after data existed
                // (perhaps data history no longer shows, such as an
                // uncommitted pilot): never "before".
                let mut record = |check: Check, same: bool, revised: bool| {
                    let status = if same && !revised {
                        PreregStatus::Before
                    } else {
                        PreregStatus::After { revised }
                    };
                    statuses.insert(
                        (j.path.clone(), study.name.clone(), check_key(&check)),
                        status,
                    );
                };
                for s in &study.slopes {
                    let now_entry = slope_entry(current, &s.param, s.window);
                    let then_entry = first.and_then(|f| slope_entry(f, &s.param, s.window));
                    let revised = now_entry.is_some_and(|e| e.get("revised").is_some());
                    let same = match (now_entry, then_entry) {
                        (Some(a), Some(b)) => strip(a) == strip(b),
                        _ => false,
                    };
                    record(
                        Check::Slope {
                            param: s.param.clone(),
                            window: s.window,
                        },
                        same,
                        revised,
                    );
                }
                for (check, keys) in [
                    (Check::Bound, &["below_bound"][..]),
                    (Check::TheoryMatch, &["match_theory"][..]),
                    (Check::Reference, &["above_reference"][..]),
                ] {
                    let pick = |v: &toml::Value| -> Vec<Option<toml::Value>> {
                        keys.iter()
                            .map(|k| expect_of(v).and_then(|e| e.get(*k)).cloned().map(as_floats))
                            .collect()
                    };
                    if pick(current)[0].is_none() {
                        continue;
                    }
                    let same = first.is_some_and(|f| pick(f) == pick(current));
                    record(check, same, !same && study_revised);
                }
            }
        }
        Prereg { statuses }
    }
}

/// The commits a report's rows were computed at, earliest first: the run
/// segments' when there are several, else the report's one commit; each
/// without a `-dirty` suffix.
pub fn computed_at(report: &str) -> Vec<String> {
    let hashes = |s: &str| -> Vec<String> {
        s.split('`')
            .map(|t| t.trim_end_matches("-dirty"))
            .filter(|t| t.len() == 40 && t.chars().all(|c| c.is_ascii_hexdigit()))
            .map(str::to_string)
            .collect()
    };
    let mut out = match report.split_once("run segments") {
        Some((_, segments)) => hashes(segments.lines().next().unwrap_or_default()),
        None => hashes(
            report
                .lines()
                .find(|l| l.contains("Commit `"))
                .unwrap_or_default(),
        ),
    };
    out.dedup();
    out
}

/// Every commit the rows of `report` were ever computed at, over the
/// committed history of the report and its current text, earliest first by
/// `order` (each commit's position in `git rev-list --topo-order HEAD`,
/// newest first; commits outside it are dropped). Without git, the current
/// report's commits alone.
fn run_commits(
    report: &Path,
    current: &str,
    order: Option<&BTreeMap<String, usize>>,
) -> Vec<String> {
    let mut found: Vec<String> = computed_at(current);
    let Some(position) = order else {
        return found;
    };
    if let Some(log) = git_for(report, &["log", "--format=%H", "--"]) {
        for version in log.lines() {
            if let Some(text) = git_show(report, version) {
                found.extend(computed_at(&text));
            }
        }
    }
    found.retain(|h| position.contains_key(h));
    found.sort_by_key(|h| std::cmp::Reverse(position[h]));
    found.dedup();
    found
}

/// Each commit's position in `git rev-list --topo-order HEAD` (newest
/// first) of the repository holding `dir`; `None` without git.
fn commit_order(dir: &Path) -> Option<BTreeMap<String, usize>> {
    let out = git_in(dir, &["rev-list", "--topo-order", "HEAD"])?;
    Some(
        out.lines()
            .enumerate()
            .map(|(i, h)| (h.to_string(), i))
            .collect(),
    )
}

/// `git -C dir args`: its standard output when it succeeds.
fn git_in(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `git args ./name` run in the directory of `file` (named `name`).
fn git_for(file: &Path, args: &[&str]) -> Option<String> {
    let name = format!("./{}", file.file_name()?.to_str()?);
    let args: Vec<&str> = args.iter().copied().chain([name.as_str()]).collect();
    git_in(dir_of(file), &args)
}

fn dir_of(file: &Path) -> &Path {
    file.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The file as committed at `commit`, or `None` (no git, no such commit, or
/// the file did not exist there).
fn git_show(file: &Path, commit: &str) -> Option<String> {
    let name = file.file_name()?.to_str()?;
    git_in(dir_of(file), &["show", &format!("{commit}:./{name}")])
}

/// The raw study tables of an experiment file, by name.
fn studies_of(text: &str) -> Option<BTreeMap<String, toml::Value>> {
    let v: toml::Value = toml::from_str(text).ok()?;
    let studies = v.get("studies")?.as_array()?;
    Some(
        studies
            .iter()
            .filter_map(|s| Some((s.get("name")?.as_str()?.to_string(), s.clone())))
            .collect(),
    )
}

fn expect_of(study: &toml::Value) -> Option<&toml::Table> {
    study.get("expect")?.as_table()
}

/// The raw slope expectation of `param` whose window is `window` (or the
/// only one when it declares no window).
fn slope_entry<'a>(
    study: &'a toml::Value,
    param: &str,
    window: (f64, f64),
) -> Option<&'a toml::Table> {
    let slopes = expect_of(study)?.get("slopes")?.get(param)?;
    let entries: Vec<&toml::Table> = match slopes {
        toml::Value::Array(a) => a.iter().filter_map(|e| e.as_table()).collect(),
        toml::Value::Table(t) => vec![t],
        _ => return None,
    };
    let as_f64 = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
    entries
        .iter()
        .copied()
        .find(|e| {
            e.get("fit").and_then(|f| f.as_array()).is_some_and(|f| {
                f.len() == 2
                    && f.iter()
                        .filter_map(as_f64)
                        .zip([window.0, window.1])
                        .all(|(a, b)| close(a, b))
                    && f.iter().filter_map(as_f64).count() == 2
            })
        })
        .or_else(|| (entries.len() == 1).then(|| entries[0]))
}

/// A slope expectation without the keys that move no target, every number
/// as a float (`10` and `10.0` are one target).
fn strip(t: &toml::Table) -> toml::Value {
    let mut t = t.clone();
    t.remove("revised");
    t.remove("regime_not_reached");
    as_floats(toml::Value::Table(t))
}

fn as_floats(v: toml::Value) -> toml::Value {
    match v {
        toml::Value::Integer(i) => toml::Value::Float(i as f64),
        toml::Value::Array(a) => toml::Value::Array(a.into_iter().map(as_floats).collect()),
        toml::Value::Table(t) => {
            toml::Value::Table(t.into_iter().map(|(k, v)| (k, as_floats(v))).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_commits_are_read_earliest_first_and_cleaned() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let one = format!("Source: x. Commit `{a}`, runs from t0 to t1.");
        assert_eq!(computed_at(&one), vec![a.clone()]);
        let two = format!(
            "Source: x. Commit `{b}`, runs. The rows were computed in 2 run segments (`timing/segment`): 0: 5 cells at `{a}-dirty` (t); 1: 2 cells at `{b}` (t).\n\nmore `{}`",
            "c".repeat(40)
        );
        assert_eq!(computed_at(&two), vec![a, b]);
    }

    #[test]
    fn a_slope_entry_is_found_by_its_window_and_compared_without_notes() {
        let then: toml::Value = toml::from_str(
            "name = \"s\"\nexpect = { slopes = { n = [{ slope = -1.0, tolerance = 0.1, fit = [10, 100] }, { slope = -0.5, tolerance = 0.1, fit = [100, 1000] }] } }",
        )
        .unwrap();
        let now: toml::Value = toml::from_str(
            "name = \"s\"\nexpect = { slopes = { n = [{ slope = -1.0, tolerance = 0.1, fit = [10.0, 100.0], revised = \"x\" }, { slope = -0.4, tolerance = 0.1, fit = [100, 1000] }] } }",
        )
        .unwrap();
        let first = slope_entry(&now, "n", (10.0, 100.0)).unwrap();
        let was = slope_entry(&then, "n", (10.0, 100.0)).unwrap();
        // The window matched across integer and float spellings, and neither
        // the spelling nor the note is part of the target.
        assert_eq!(strip(first), strip(was));
        let second = slope_entry(&now, "n", (100.0, 1000.0)).unwrap();
        let was = slope_entry(&then, "n", (100.0, 1000.0)).unwrap();
        assert_ne!(
            strip(second),
            strip(was),
            "the slope moved from -0.5 to -0.4"
        );
        assert!(slope_entry(&now, "d", (1.0, 2.0)).is_none());
    }
}
