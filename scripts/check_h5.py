#!/usr/bin/env python3
"""Reads a harness results file with libhdf5 (through h5py) and fails loudly if it cannot.

Usage: python3 scripts/check_h5.py results/table1-quick.h5

Checks that every study group has the documented layout, that all columns of a
study have the same length, that provenance attributes are present, and that
successful cells carry finite metrics. Exit code 0 on success, 1 otherwise.
"""
import sys

import h5py
import numpy as np

REQUIRED_ROOT_ATTRS = [
    "spec_text", "spec_hash", "harness_version", "git_commit", "rustc_version",
    "dependency_versions", "host", "started_at", "finished_at", "format_version",
]
REQUIRED_GROUPS = ["cell", "seeds", "params", "outputs", "diagnostics", "status", "timing"]


def fail(msg):
    print(f"check_h5: FAIL: {msg}")
    sys.exit(1)


def main(path):
    with h5py.File(path, "r") as f:
        missing = [a for a in REQUIRED_ROOT_ATTRS if a not in f.attrs]
        if missing:
            fail(f"missing provenance attributes {missing}")
        studies = f["studies"]
        if len(studies) == 0:
            fail("no studies")
        total = 0
        for name, g in studies.items():
            for sub in REQUIRED_GROUPS:
                if sub not in g:
                    fail(f"study {name} lacks group {sub}")
            lengths = {f"{sub}/{ds}": g[sub][ds].shape[0] for sub in REQUIRED_GROUPS for ds in g[sub]}
            if len(set(lengths.values())) != 1:
                fail(f"study {name} has columns of different lengths: {lengths}")
            metric = g.attrs["metric"]
            metric = metric.decode() if isinstance(metric, bytes) else metric
            ok = g["status/ok"][()].astype(bool)
            values = g[f"outputs/{metric}"][()]
            if not np.all(np.isfinite(values[ok])):
                fail(f"study {name}: a successful cell has a non-finite {metric}")
            seeds = g["seeds/noise"][()]
            if len(np.unique(seeds)) != len(seeds):
                fail(f"study {name}: repeated noise seeds")
            errors = g["status/error"].asstr()[()]
            if any(bool(e) == bool(o) for e, o in zip(errors, ok)):
                fail(f"study {name}: status/ok and status/error disagree")
            total += len(ok)
            print(f"check_h5: {name}: {len(ok)} cells, {int(ok.sum())} ok, metric {metric}")
        print(f"check_h5: {path} read by libhdf5 {h5py.version.hdf5_version}: {total} cells, OK")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1])
