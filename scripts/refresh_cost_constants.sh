#!/usr/bin/env bash
# Refreshes the calibrated constants of the runner's cost model
# (crates/papers/src/cost_constants.rs, read by crates/runner/src/cost) from the per-cell wall times stored
# in results files, and prints the estimate against the measurement per study.
#
#   bash scripts/refresh_cost_constants.sh RESULTS_DIR SPEC[:PROFILE] ...
#   # e.g., after quick runs with --results-dir /tmp/cal/results:
#   bash scripts/refresh_cost_constants.sh /tmp/cal/results \
#       experiments/table1.toml:quick experiments/wang.toml:quick
#
# Each constant is sum(measured seconds) / sum(operations) over every cell of
# the algorithm in every file given (`runner calibrate` prints both sums), so
# large cells weigh most. Algorithms absent from the files keep the default,
# or, with MERGE=1, the constant the file has now (for refreshing the
# algorithms of one new results file without the others' files; the
# provenance line then says which algorithms came from where). ONLY=a,b
# (implies MERGE=1) refreshes only the algorithms named, e.g. those whose
# formula changed, and keeps every other constant as it is.
# Set RUNNER to the binary to use (default: cargo run -p runner).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    sed -n '2,16p' "$0"
    exit 2
fi
dir=$1
shift
runner=${RUNNER:-"cargo run -q -p runner --"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
names=()
for arg in "$@"; do
    spec=${arg%%:*}
    profile=""
    if [ "$spec" != "$arg" ]; then profile=${arg#*:}; fi
    if [ -n "$profile" ]; then
        $runner calibrate "$spec" --profile "$profile" --results-dir "$dir" >>"$out"
        names+=("$(basename "$spec" .toml)-$profile")
    else
        $runner calibrate "$spec" --results-dir "$dir" >>"$out"
        names+=("$(basename "$spec" .toml)")
    fi
done
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
source="$(IFS=,; echo "${names[*]}" | sed 's/,/, /g') (stored per-cell timings) at $commit on $(date -u +%Y-%m-%d)"
table=$(awk -F'\t' '$1 == "algorithm" { cells[$2] += $3; secs[$2] += $4; ops[$2] += $5 }
    END {
        for (a in cells) if (ops[a] > 0 && secs[a] > 0)
            printf "    (\"%s\", %.3e), // %d cells, %.1f s\n", a, secs[a] / ops[a], cells[a], secs[a]
    }' "$out" | sort)
file=crates/papers/src/cost_constants.rs
if [ -n "${ONLY:-}" ]; then
    MERGE=1
    table=$(printf '%s\n' "$table" | awk -v only=",$ONLY," '{
        name = $0; sub(/^ *\("/, "", name); sub(/".*/, "", name)
        if (index(only, "," name ",") > 0) print }')
fi
if [ "${MERGE:-0}" = 1 ]; then
    fresh=$(printf '%s\n' "$table" | sed -n 's/^ *("\([a-z0-9_:]*\)".*/\1/p' | paste -sd, -)
    kept=$(awk -v fresh=",$fresh," '
        /BEGIN GENERATED/ { on = 1 } /END GENERATED/ { on = 0 }
        on && /^    \("/ { name = $0; sub(/^ *\("/, "", name); sub(/".*/, "", name)
                          if (index(fresh, "," name ",") == 0) print }' "$file")
    table=$(printf '%s\n%s\n' "$table" "$kept" | grep -v '^$' | sort)
    previous=$(sed -n 's/^pub const CALIBRATED_FROM: &str = "\(.*\)";$/\1/p' "$file")
    source="$previous; then $(echo "$fresh" | sed 's/,/, /g') from $source"
fi
awk -v source="$source" -v table="$table" '
    /BEGIN GENERATED/ {
        print
        print "/// Where the constants below were measured."
        printf "pub const CALIBRATED_FROM: &str = \"%s\";\n\n", source
        print "/// Seconds per operation of each algorithm'"'"'s work formula, by algorithm name."
        print "pub const SECONDS_PER_OP: &[(&str, f64)] = &["
        print table
        print "];"
        skip = 1
        next
    }
    /END GENERATED/ { skip = 0 }
    !skip { print }
' "$file" >"$file.new"
mv "$file.new" "$file"
# Keep the table in rustfmt's layout (CI checks `cargo fmt --check`).
rustfmt --edition 2021 "$file"
echo "wrote $file from: $source"
echo
echo "estimate against measurement with the constants the binary was built with"
echo "(rebuild and rerun for the refreshed ones):"
echo
echo "| study | cells | measured core-s | estimated core-s | estimated/measured |"
echo "|---|---|---|---|---|"
awk -F'\t' '$1 == "study" || $1 == "total" {
    printf "| %s%s%s | %d | %.2f | %.2f | %.2f |\n", ($1 == "total" ? "**" : ""), $2, ($1 == "total" ? "**" : ""), $3, $4, $5, $6
}' "$out"
