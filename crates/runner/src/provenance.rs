//! Provenance recorded in every results file: the spec, the harness version and
//! git commit, rustc and dependency versions, host, and start and end times.
//!
//! A file filled by several invocations (an interrupted run resumed, possibly
//! after a commit, or `--reuse-unchanged`) lists each one as a run segment
//! (root attribute `segments`, one line each: index, start, end, commit, host,
//! cells), and every row names the segment that computed it
//! (`timing/segment`), so each number can be traced to the code that made it.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// Provenance attributes of one results file.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// Full text of the experiment file.
    pub spec_text: String,
    /// Path of the experiment file as given.
    pub spec_path: String,
    /// Profile applied (`default` when none).
    pub profile: String,
    /// Master seed.
    pub master_seed: u64,
    /// When the first session writing this file started (UTC, ISO 8601).
    pub started_at: String,
    /// When the file was last written (UTC, ISO 8601).
    pub finished_at: String,
    /// Further attributes (e.g. `shard_index`, `shard_count`, `merged_from`).
    pub extra: Vec<(String, String)>,
    /// The run segments before this one (read back from the file on resume).
    pub earlier_segments: Vec<Segment>,
    /// The git commit of the work tree when this invocation started.
    pub commit: String,
    /// When this invocation started.
    pub segment_started_at: String,
    /// Rows computed by this invocation (set by the store when it writes).
    pub segment_cells: usize,
}

/// One invocation that added rows to a results file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Start time (UTC, ISO 8601).
    pub started_at: String,
    /// Time of its last write.
    pub finished_at: String,
    /// Git commit of the work tree when it started (`-dirty` if modified).
    pub commit: String,
    /// Host description.
    pub host: String,
    /// Rows it computed that the file still holds when it wrote them.
    pub cells: usize,
}

impl Segment {
    fn line(&self, index: usize) -> String {
        format!(
            "{index}\t{}\t{}\t{}\t{}\t{}",
            self.started_at, self.finished_at, self.commit, self.host, self.cells
        )
    }
}

/// Parses the `segments` attribute (lines from [`Provenance::attributes`]);
/// malformed lines are skipped.
pub fn parse_segments(text: &str) -> Vec<Segment> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() == 6).then(|| Segment {
                started_at: f[1].to_string(),
                finished_at: f[2].to_string(),
                commit: f[3].to_string(),
                host: f[4].to_string(),
                cells: f[5].parse().unwrap_or(0),
            })
        })
        .collect()
}

impl Provenance {
    /// Provenance for a run starting now.
    pub fn new(spec_text: &str, spec_path: &str, profile: Option<&str>, master_seed: u64) -> Self {
        let now = utc_now();
        // The Python entries the spec resolved: file hash and versions, one
        // line each (they also enter each study's identity).
        let python: Vec<String> = crate::python::resolved()
            .iter()
            .map(|e| format!("{}\t{}", e.def.name, e.identity()))
            .collect();
        let extra = if python.is_empty() {
            Vec::new()
        } else {
            vec![("python_entries".to_string(), python.join("\n"))]
        };
        Self {
            spec_text: spec_text.to_string(),
            spec_path: spec_path.to_string(),
            profile: profile.unwrap_or("default").to_string(),
            master_seed,
            started_at: now.clone(),
            finished_at: now.clone(),
            extra,
            earlier_segments: Vec::new(),
            commit: git_commit(),
            segment_started_at: now,
            segment_cells: 0,
        }
    }

    /// Index of this invocation's segment (the value of `timing/segment` of
    /// the rows it computes).
    pub fn segment_index(&self) -> usize {
        self.earlier_segments.len()
    }

    /// Every segment, this invocation's last.
    pub fn segments(&self) -> Vec<Segment> {
        let mut all = self.earlier_segments.clone();
        all.push(Segment {
            started_at: self.segment_started_at.clone(),
            finished_at: self.finished_at.clone(),
            commit: self.commit.clone(),
            host: host(),
            cells: self.segment_cells,
        });
        all
    }

    /// Marks the file as written now.
    pub fn touch(&mut self) {
        self.finished_at = utc_now();
    }

    /// All attributes as (name, value) strings.
    pub fn attributes(&self) -> Vec<(String, String)> {
        let mut attrs = vec![
            ("spec_text".into(), self.spec_text.clone()),
            ("spec_path".into(), self.spec_path.clone()),
            ("profile".into(), self.profile.clone()),
            ("master_seed".into(), self.master_seed.to_string()),
            ("harness_version".into(), env!("CARGO_PKG_VERSION").into()),
            ("git_commit".into(), self.commit.clone()),
            ("rustc_version".into(), env!("HARNESS_RUSTC_VERSION").into()),
            (
                "dependency_versions".into(),
                env!("HARNESS_DEPENDENCY_VERSIONS").into(),
            ),
            ("host".into(), host()),
            ("started_at".into(), self.started_at.clone()),
            ("finished_at".into(), self.finished_at.clone()),
            (
                "segments".into(),
                self.segments()
                    .iter()
                    .enumerate()
                    .map(|(i, s)| s.line(i))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        ];
        attrs.extend(self.extra.iter().cloned());
        attrs
    }
}

/// The current git commit (with `-dirty` when the work tree has changes), or `unknown`.
pub fn git_commit() -> String {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "HEAD"]) {
        Some(commit) if !commit.is_empty() => {
            // Generated outputs do not make the source tree dirty.
            let dirty = run(&[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":!results",
                ":!figures",
            ])
            .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{commit}-dirty")
            } else {
                commit
            }
        }
        _ => "unknown".into(),
    }
}

fn host() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{name} ({} {}, {cpus} cpus)",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Formats seconds since the Unix epoch as ISO 8601 UTC (proleptic Gregorian).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days-to-civil conversion (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::{format_utc, parse_segments, Provenance};

    #[test]
    fn segments_round_trip_through_the_attribute() {
        let mut p = Provenance::new("x", "x.toml", None, 1);
        p.segment_cells = 7;
        let first = p.segments();
        let text = p
            .attributes()
            .into_iter()
            .find(|(k, _)| k == "segments")
            .unwrap()
            .1;
        assert_eq!(parse_segments(&text), first);
        let mut q = Provenance::new("x", "x.toml", None, 1);
        q.earlier_segments = parse_segments(&text);
        assert_eq!(q.segment_index(), 1);
        assert_eq!(q.segments().len(), 2);
        assert_eq!(q.segments()[0].cells, 7);
    }

    #[test]
    fn utc_formatting_matches_known_instants() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_795_254_221), "2026-11-21T09:43:41Z");
    }
}
