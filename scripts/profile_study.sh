#!/usr/bin/env bash
# Profile one study's scratch spec (scripts/profiles/<study>.toml): build the runner in
# release with line tables into a separate target directory (the normal release build is
# not touched), run the spec on one worker thread under `perf record -F 999 -g`, and write
# the top self-time symbols, the run's CPU seconds and the cells' wall seconds.
#
#   bash scripts/profile_study.sh scripts/profiles/ggp_alg1_d.toml [OUTDIR]
#
# Environment: PROFILE_TARGET_DIR (default target/profiling), FREQ (default 999),
# PYTHON (an interpreter with h5py, for the cell times; skipped if it has none).
# Outputs in OUTDIR (default /tmp/prof/out/<study>): perf.data, report.txt (perf report
# --stdio --no-children --percent-limit 2), cells.txt, and the scratch results/.
set -euo pipefail

spec=${1:?usage: profile_study.sh SPEC.toml [OUTDIR]}
study=$(basename "$spec" .toml)
out=${2:-/tmp/prof/out/$study}
target=${PROFILE_TARGET_DIR:-target/profiling}
freq=${FREQ:-999}
python=${PYTHON:-python3}

CARGO_TARGET_DIR="$target" CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
    cargo build --release -p runner
runner="$target/release/runner"

rm -rf "$out"
mkdir -p "$out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/cells.txt"
# /usr/bin/time: the run's CPU seconds, which (unlike the cells' wall seconds) do not
# grow when other processes share the cores.
/usr/bin/time -f "run: wall %e s, user %U s, system %S s" -a -o "$out/cells.txt" \
    perf record -F "$freq" -g -o "$out/perf.data" -- \
    "$runner" run "$spec" --threads 1 --fresh --quiet --no-check \
    --results-dir "$out/results" --figures-dir "$out/figures" --baselines-dir "$out/baselines"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/cells.txt"

perf report -i "$out/perf.data" --stdio --no-children --percent-limit 2 -g none \
    --sort dso,symbol 2>/dev/null | grep -v '^$' > "$out/report.txt"
head -n 40 "$out/report.txt"

if HDF5_USE_FILE_LOCKING=FALSE "$python" -c 'import h5py' 2>/dev/null; then
    HDF5_USE_FILE_LOCKING=FALSE "$python" - "$out/results" <<'PY' | tee -a "$out/cells.txt"
import glob, sys
import h5py
for fn in glob.glob(sys.argv[1] + "/*.h5"):
    with h5py.File(fn, "r") as f:
        for s in f["studies"]:
            g = f["studies"][s]
            w = g["timing/wall_seconds"][:]
            gp = g["cell/grid_point"][:]
            print(f"{s}: {len(w)} cells, wall seconds {', '.join(f'{x:.3f}' for x in w)} "
                  f"(grid points {', '.join(str(int(p)) for p in gp)}), sum {w.sum():.3f}")
PY
fi
