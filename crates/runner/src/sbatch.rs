//! Slurm scripts for sharded sweeps: a job array with one task per shard
//! (the array index is wired to `--shard`) and a merge job that depends on it.
//!
//! The scripts call the same `runner` binary that wrote them (its absolute
//! path) from the directory it was run in, so a cluster checkout only needs
//! `cargo build -p runner` before `bash <name>-submit.sh`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use crate::cli::CommonArgs;
use crate::validate::Experiment;

/// Options of `runner sbatch`.
#[derive(Debug, Args, Clone)]
pub struct SbatchArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Number of shards (array tasks).
    #[arg(long)]
    pub shards: usize,
    /// Slurm partition (omitted: the cluster's default).
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit of each task, in Slurm's format (e.g. 01:00:00).
    #[arg(long, default_value = "01:00:00")]
    pub time: String,
    /// CPUs per array task (also the runner's --threads).
    #[arg(long, default_value_t = 2)]
    pub cpus_per_task: usize,
    /// Directory for the scripts and the Slurm logs.
    #[arg(long, default_value = "slurm")]
    pub out: PathBuf,
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        Ok(std::env::current_dir()?.join(p))
    }
}

/// The `#SBATCH` header shared by both scripts.
fn header(args: &SbatchArgs, job: &str, log: &Path, extra: &[String]) -> String {
    let mut h = format!(
        "#!/bin/bash\n#SBATCH --job-name={job}\n#SBATCH --cpus-per-task={}\n#SBATCH --time={}\n#SBATCH --output={}\n",
        args.cpus_per_task,
        args.time,
        log.display()
    );
    if let Some(p) = &args.partition {
        h.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    for e in extra {
        h.push_str(&format!("#SBATCH {e}\n"));
    }
    h.push_str("set -euo pipefail\n");
    h
}

/// Writes `<name>-array.sbatch`, `<name>-merge.sbatch` and `<name>-submit.sh`
/// (which submits the array, then the merge with `--dependency=afterok`).
pub fn write_scripts(
    args: &SbatchArgs,
    spec: &Path,
    experiment: &Experiment,
) -> Result<Vec<PathBuf>> {
    if args.shards == 0 || args.cpus_per_task == 0 {
        anyhow::bail!("--shards and --cpus-per-task must be at least 1");
    }
    let name = experiment.output_name();
    let out = absolute(&args.out)?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let exe = std::env::current_exe().context("locating the runner binary")?;
    let workdir = std::env::current_dir()?;
    let c = &args.common;
    let mut common = vec![
        shell_quote(&absolute(spec)?.display().to_string()),
        "--results-dir".into(),
        shell_quote(&absolute(&c.results_dir)?.display().to_string()),
        "--figures-dir".into(),
        shell_quote(&absolute(&c.figures_dir)?.display().to_string()),
        "--baselines-dir".into(),
        shell_quote(&absolute(&c.baselines_dir)?.display().to_string()),
    ];
    if let Some(p) = &c.profile {
        common.push("--profile".into());
        common.push(shell_quote(p));
    }
    let common = common.join(" ");
    let exe = shell_quote(&exe.display().to_string());
    let cd = format!("cd {}\n", shell_quote(&workdir.display().to_string()));

    let array = out.join(format!("{name}-array.sbatch"));
    let mut text = header(
        args,
        &format!("{name}-shards"),
        &out.join(format!("{name}-shard-%a.log")),
        &[format!("--array=0-{}", args.shards - 1)],
    );
    text.push_str(&cd);
    // `--yes`: submitting the array is the decision to spend the core-hours
    // (the per-cell memory check still applies on each node).
    text.push_str(&format!(
        "{exe} run {common} --quiet --yes --threads \"${{SLURM_CPUS_PER_TASK:-{}}}\" --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\"\n",
        args.cpus_per_task, args.shards
    ));
    std::fs::write(&array, text)?;

    let merge = out.join(format!("{name}-merge.sbatch"));
    let mut text = header(
        args,
        &format!("{name}-merge"),
        &out.join(format!("{name}-merge.log")),
        &[],
    );
    text.push_str(&cd);
    text.push_str(&format!("{exe} merge {common} --shards {}\n", args.shards));
    std::fs::write(&merge, text)?;

    let submit = out.join(format!("{name}-submit.sh"));
    let text = format!(
        "#!/bin/bash\n# Submits the shard array, then the merge job once every task succeeded.\nset -euo pipefail\narray=$(sbatch --parsable {})\narray=${{array%%;*}}\nmerge=$(sbatch --parsable --dependency=afterok:\"$array\" {})\necho \"array job $array, merge job ${{merge%%;*}}\"\n",
        shell_quote(&array.display().to_string()),
        shell_quote(&merge.display().to_string())
    );
    std::fs::write(&submit, text)?;
    Ok(vec![array, merge, submit])
}
