#!/usr/bin/env bash
# Reproduces every committed result in one command (issue 41 item 2): table 1, the five
# papers' default profiles and every profile whose summary is committed (coverage,
# decide and rerun profiles, which the ledger reads), the privacy audit (its transcript
# rows included) and the claims ledger (whose errata rows `runner claims` computes), in
# that order, from the checkout.
#
#   bash scripts/reproduce.sh            # everything; rerun the same command to resume
#   bash scripts/reproduce.sh --plan     # only the ETA: runner plan of every spec
#
# Resuming: every runner command below resumes its results file (results/<name>.h5)
# from the last flushed cell or audit run, so an interrupted reproduction loses at most
# a few seconds of work; rerun the script. Each command shows its own progress bar.
# The ETA printed first is `runner plan`'s (see PERFORMANCE.md for how close it comes).
# Provenance: run it from a clean tree (git status empty) so every results file names a
# commit without `-dirty`.
set -euo pipefail
cd "$(dirname "$0")/.."
specs=(experiments/table1.toml experiments/lowy_razaviyayn.toml experiments/bassily.toml
       experiments/menart.toml experiments/wang.toml experiments/gonzalez.toml)
cargo build -p runner --quiet
runner=target/debug/runner

# The profile runs the ledger also reads: every committed results/<name>-<profile>.csv
# (selecting profiles such as `coverage`, rerun profiles such as `decide`), in the
# order `git ls-files` lists them; `table1-points` (and `table1-<profile>-points`) are
# table 1's own second summaries.
runs=()
for spec in "${specs[@]}"; do
  runs+=("$spec:")
  name=$(basename "$spec" .toml)
  while IFS= read -r csv; do
    profile=${csv#results/"$name"-}
    profile=${profile%.csv}
    # <name>-points.csv and <name>-<profile>-points.csv are table 1's second
    # summaries, not profiles.
    [[ "$profile" == points || "$profile" == *-points ]] && continue
    runs+=("$spec:$profile")
  done < <(git ls-files "results/$name-*.csv")
done
profile_args() { [[ -n "$1" ]] && printf -- '--profile\n%s\n' "$1"; }

echo "== plan (cost model estimates, 2 threads unless --threads says otherwise)"
total=0
for run in "${runs[@]}"; do
  spec=${run%%:*}
  profile=${run#*:}
  mapfile -t args < <(profile_args "$profile")
  line=$("$runner" plan "$spec" "${args[@]}" | grep '^total:')
  hours=$(sed -E 's/.*estimated ([0-9.]+) core-hours.*/\1/' <<<"$line")
  printf '  %-36s %-14s %s core-hours\n' "$spec" "${profile:-default}" "$hours"
  total=$(awk -v a="$total" -v b="$hours" 'BEGIN { print a + b }')
done
echo "  experiments: $total core-hours; the audit adds its rows (1.0 core-hour) and their power probes (10.5 core-hours), measured in the committed run from 6275d2d finished on 2026-11-29 (docs/audit.md)"
[[ "${1:-}" == "--plan" ]] && exit 0

if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
  echo "warning: the tree is dirty; the results will name a -dirty commit" >&2
fi
for run in "${runs[@]}"; do
  spec=${run%%:*}
  profile=${run#*:}
  mapfile -t args < <(profile_args "$profile")
  echo "== $spec ${profile:-default}"
  "$runner" "$spec" "${args[@]}"
done
echo "== privacy audit (its transcript rows included)"
"$runner" audit experiments/audit.toml
echo "== claims ledger"
"$runner" claims
echo "done: results/ and figures/ regenerated; git diff shows what moved"
