#!/usr/bin/env bash
# Wall time of the default and quick runs of table 1, after the build, with hyperfine.
# Outputs go to a scratch folder so the committed results are not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 2; }
cargo build -p runner
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bin=target/debug/runner
common="--fresh --quiet --no-check --results-dir $scratch/r --figures-dir $scratch/f"
hyperfine --warmup 1 --runs 10 "$bin experiments/table1.toml --profile quick $common"
hyperfine --runs 3 "$bin experiments/table1.toml $common"
