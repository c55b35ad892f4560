#!/usr/bin/env bash
# Wall time of table 1's default profile after the build (issue 41, item 1):
# RUNS runs (default 3) of `runner experiments/table1.toml` at 2 worker threads,
# each timed by /usr/bin/time, then their median. Prints a markdown table with
# the date, the commit and the machine, for PERFORMANCE.md. Outputs go to a
# scratch folder so the committed results are not touched; the table of each
# run is compared with the committed results/table1.csv (the same numbers, or
# the script fails). Run it on an otherwise idle machine: a second heavy job
# doubles the wall time. KEEP=DIR keeps the last run's results folder there (its
# .h5 holds the per-cell times `runner calibrate` reads).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }
cargo build -q -p runner
bin=${RUNNER:-target/debug/runner}
runs=${RUNS:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "date: $(date -u +%Y-%m-%d), commit: $(git describe --always --dirty --abbrev=7)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | wall (s) | user + system (core-s) | peak RSS (MiB) | table1.csv |"
echo "|---|---|---|---|---|"
walls=()
for run in $(seq 1 "$runs"); do
  rm -rf "$scratch/r" "$scratch/f"
  /usr/bin/time -f '%e %U %S %M' -o "$scratch/time" "$bin" experiments/table1.toml --fresh \
    --quiet --no-check --threads 2 --results-dir "$scratch/r" --figures-dir "$scratch/f" \
    --baselines-dir "$scratch/b" > /dev/null 2> "$scratch/log"
  read -r wall user sys rss < "$scratch/time"
  # The headline table without its provenance line must equal the committed one.
  if diff -q <(grep -v '^#' "$scratch/r/table1.csv") <(grep -v '^#' results/table1.csv) > /dev/null; then
    same="identical"
  else
    same="DIFFERS"
  fi
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
  echo "| $run | $wall | $cpu | $((rss / 1024)) | $same |"
  walls+=("$wall")
  [ "$same" = identical ] || { cat "$scratch/log" >&2; exit 1; }
done
if [ -n "${KEEP:-}" ]; then
  rm -rf "$KEEP" && cp -r "$scratch/r" "$KEEP"
fi
median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
echo
echo "median wall: $median s over $runs runs"
