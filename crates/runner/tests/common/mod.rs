//! Helpers shared by the runner's integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs every cell of `e` in this process (no results file): the records
/// `analyze` and `check` take.
pub fn run_in_process(e: &runner::validate::Experiment) -> Vec<runner::store::CellRecord> {
    let p = runner::plan::plan(e);
    runner::execute::data_groups(&p.cells)
        .iter()
        .flat_map(|g| runner::execute::run_group(&e.studies[g[0].study], &p.points[g[0].study], g))
        .collect()
}

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "runner-test-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The runner command with output directories inside `dir`.
pub fn runner(dir: &Path) -> Command {
    runner_with_results(dir, &dir.join("results"))
}

/// The runner command with results in `results` and other outputs inside `dir`.
pub fn runner_with_results(dir: &Path, results: &Path) -> Command {
    runner_command(dir, results, None)
}

/// `runner <subcommand>` with output directories inside `dir`.
pub fn runner_sub(dir: &Path, subcommand: &str) -> Command {
    runner_command(dir, &dir.join("results"), Some(subcommand))
}

fn runner_command(dir: &Path, results: &Path, subcommand: Option<&str>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runner"));
    c.current_dir(dir);
    if let Some(s) = subcommand {
        c.arg(s);
    }
    c.arg("--results-dir")
        .arg(results)
        .arg("--figures-dir")
        .arg(dir.join("figures"))
        .arg("--baselines-dir")
        .arg(dir.join("baselines"));
    c
}

pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("runner starts")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every dataset of a results file except timings, as raw bytes per path.
pub fn datasets(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let file = hdf5_pure::File::open(path).expect("results file opens");
    let mut out = BTreeMap::new();
    let studies = file.group("studies").unwrap();
    for study in studies.groups().unwrap() {
        let g = file.group(&format!("studies/{study}")).unwrap();
        for sub in g.groups().unwrap() {
            if sub == "timing" {
                continue;
            }
            let sg = file.group(&format!("studies/{study}/{sub}")).unwrap();
            for ds in sg.datasets().unwrap() {
                let p = format!("studies/{study}/{sub}/{ds}");
                let d = file.dataset(&p).unwrap();
                let bytes = if sub == "status" && ds == "error" {
                    d.read_string().unwrap().join("\u{0}").into_bytes()
                } else if sub == "status" {
                    d.read_u64()
                        .unwrap()
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect()
                } else if sub == "cell" || sub == "seeds" {
                    d.read_u64()
                        .unwrap()
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect()
                } else {
                    d.read_f64()
                        .unwrap()
                        .iter()
                        .flat_map(|v| v.to_bits().to_le_bytes())
                        .collect()
                };
                out.insert(p, bytes);
            }
        }
    }
    out
}

/// A small, fast experiment (a few seconds of work at most).
pub fn small_spec(name: &str, reps: usize, n_points: usize, n_hi: f64) -> String {
    format!(
        r#"
name = "{name}"
seed = 7
repetitions = {reps}

[[studies]]
name = "n_pure"
metric = "excess_empirical_risk"
problem = {{ family = "diagonal_quadratic", d = 10 }}
algorithm = {{ name = "output_perturbation_conceptual" }}
privacy = {{ eps = 1.0 }}
grid = {{ n = {{ log_range = [1e3, {n_hi:e}], points = {n_points} }} }}
expect = {{ below_bound = true, slopes = {{ n = {{ slope = -2.0, tolerance = 0.3 }} }} }}

[[studies]]
name = "eps_gauss"
metric = "excess_empirical_risk"
problem = {{ family = "diagonal_quadratic", n = 2000, kappa = 4.0 }}
algorithm = {{ name = "output_perturbation_conceptual", sensitivity = "paper" }}
privacy = {{ delta = 1e-6 }}
grid = {{ eps = [0.1, 0.2, 0.5], d = [2, 4] }}
expect = {{ below_bound = true }}
"#
    )
}

/// The workspace root (where `experiments/` is).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The rows of `study` in a summary CSV (`results/<name>.csv`).
pub fn study_rows(path: &Path, study: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(&format!("{study},")))
        .map(str::to_string)
        .collect()
}
