#!/usr/bin/env bash
# The Python entries' protocol overhead (docs/python-entries.md, "Overhead"): for n d from
# 1e4 to 1e7, an instance generated as a sweep's cell does, then the numpy output
# perturbation run on it; prints a markdown table (the first call on an instance maps its
# records; a later call reuses them). Run it on a quiet machine: it times, it does not test.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo -dirty), $(date -u +%Y-%m-%d), $(nproc) cores, $(${DP_HARNESS_PYTHON:-python3} -c 'import numpy, platform; print("python", platform.python_version(), "numpy", numpy.__version__)')"
cargo test -q -p runner --test python_entries protocol_overhead -- --ignored --nocapture 2>/dev/null | grep '^|'
