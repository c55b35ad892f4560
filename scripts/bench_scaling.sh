#!/usr/bin/env bash
# Sweep scaling (issue 10): the table 1 default run at 1 and at 2 worker threads,
# after the build, each twice, with wall time and peak resident memory from
# /usr/bin/time. Outputs go to a scratch folder so the committed results are not
# touched; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }
cargo build -p runner
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bin=target/debug/runner
runs=${RUNS:-2}
echo "| threads | run | wall (s) | peak RSS (MiB) | cells / data sets |"
echo "|---|---|---|---|---|"
for threads in 1 2; do
  for run in $(seq 1 "$runs"); do
    /usr/bin/time -f '%e %M' -o "$scratch/time" "$bin" experiments/table1.toml --fresh \
      --no-check --threads "$threads" --results-dir "$scratch/r" --figures-dir "$scratch/f" \
      > /dev/null 2> "$scratch/log"
    read -r wall rss < "$scratch/time"
    sets=$(grep -o 'ran [0-9]* cells ([0-9]* failed) on [0-9]* generated data sets' "$scratch/log" \
      | awk '{print $2 " / " $7}')
    echo "| $threads | $run | $wall | $((rss / 1024)) | $sets |"
  done
done
