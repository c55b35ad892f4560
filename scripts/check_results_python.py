#!/usr/bin/env python3
"""Loads every committed results CSV in polars and pandas, and HDF5 results files in h5py,
and checks them against the runner's own reading; exits 1 with a clear message on a mismatch.

Usage: python3 scripts/check_results_python.py [--self-test] [--manifest M] [--root DIR] [FILE.h5 ...]

CSVs: the files listed in scripts/results_manifest.json (written by the runner's test
`results_manifest`: row counts from the runner's CSV reader, column types from its writers).
Each is read with the snippets of docs/python.md (type inference over the whole file), and
its row count and every column's dtype must match:
  integer -> polars Int64,   pandas int64 (float64 when pandas sees a missing value: no NaN in int64)
  float   -> polars Float64, pandas float64
  string  -> polars String,  pandas str/object
A column with no values at all (every field empty; for pandas also every field "") has
nothing to infer a type from; it is reported and not typed (polars String, pandas float64).

HDF5: each study group's datasets must have the length the runner stored in the group's
`rows` attribute and the dtypes store.rs writes (uint64 cell/seeds/timing/segment, float64
params/outputs/diagnostics/timing/wall_seconds, uint8 status/ok, variable-length UTF-8
status/error). An audit file (`runner audit`) must hold float64 `d` and `d_prime` of the
length of its CSV's `runs_per_side`. Every python block of docs/python.md must appear in this
file verbatim. --self-test first runs the check on broken copies and fails unless each is caught.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import polars as pl

POLARS = {"integer": pl.Int64, "float": pl.Float64, "string": pl.String}
H5_UINT64 = ["cell", "seeds"]
H5_FLOAT64 = ["params", "outputs", "diagnostics"]

failures = []


def fail(msg):
    failures.append(msg)
    print(f"check_results_python: FAIL: {msg}")


# --- the docs/python.md snippets -------------------------------------------------------
def read_polars(path):
    return pl.read_csv(path, infer_schema_length=None)


def read_pandas(path):
    return pd.read_csv(path)


def h5_study_frame(group):
    """One study of a results .h5 file as a pandas DataFrame (one row per cell)."""
    cols = {}
    for sub in ["cell", "seeds", "params", "outputs", "diagnostics", "status", "timing"]:
        for name, ds in group[sub].items():
            cols[f"{sub}/{name}"] = ds.asstr()[()] if h5py.check_string_dtype(ds.dtype) else ds[()]
    return pd.DataFrame(cols)
# ---------------------------------------------------------------------------------------


def pandas_ok(kind, series):
    dt = series.dtype
    if kind == "integer":
        return dt == np.int64 or (dt == np.float64 and series.isna().any())
    if kind == "float":
        return dt == np.float64
    return pd.api.types.is_string_dtype(dt) or dt == object


def check_csv(root, entry):
    rel, rows = entry["path"], entry["rows"]
    path = root / rel
    try:
        df_pl, df_pd = read_polars(path), read_pandas(path)
    except Exception as e:  # a parse error is a mismatch too
        fail(f"{rel}: cannot be read: {type(e).__name__}: {e}")
        return
    names = [c["name"] for c in entry["columns"]]
    for lib, got_rows, got_cols in [("polars", df_pl.height, df_pl.columns),
                                    ("pandas", len(df_pd), list(df_pd.columns))]:
        if got_rows != rows:
            fail(f"{rel}: {lib} reads {got_rows} rows, the runner {rows}")
        if got_cols != names:
            fail(f"{rel}: {lib} reads columns {got_cols}, the runner {names}")
    if df_pl.columns != names or list(df_pd.columns) != names:
        return
    untyped = []
    for c in entry["columns"]:
        name, kind = c["name"], c["type"]
        if df_pl[name].null_count() == df_pl.height:
            untyped.append(name)
            continue
        if df_pl[name].dtype != POLARS[kind]:
            fail(f"{rel}: column {name}: polars dtype {df_pl[name].dtype}, the runner writes {kind}")
        if pandas_ok(kind, df_pd[name]):
            pass
        elif df_pd[name].isna().all():
            # pandas reads a quoted empty string ("") as NaN too: no values left to type.
            untyped.append(f"{name} (pandas)")
        else:
            fail(f"{rel}: column {name}: pandas dtype {df_pd[name].dtype}, the runner writes {kind}")
    note = f", no values to type in {untyped}" if untyped else ""
    print(f"check_results_python: {rel}: {rows} rows, {len(names)} columns{note}")


def check_audit_h5(path, f):
    """An audit file (audit/store.rs): per audit, float64 `d` and `d_prime` of one length,
    that of the runner's `runs_per_side` in the CSV written beside it (probe groups,
    `<audit>@probeN`, are not in the CSV)."""
    csv = Path(path).with_suffix(".csv")
    runs = {}
    if csv.exists():
        df = read_polars(csv)
        runs = dict(zip(df["audit"], df["runs_per_side"]))
    for name, g in f["audits"].items():
        n = g["d"].shape
        for ds in ["d", "d_prime"]:
            if g[ds].dtype != np.float64 or g[ds].shape != n:
                fail(f"{path}: audit {name}: {ds} is {g[ds].dtype} {g[ds].shape}, "
                     f"the runner writes float64 of the length of d {n}")
        if name in runs and n != (runs[name],):
            fail(f"{path}: audit {name}: {n[0]} runs a side, {csv} says {runs[name]}")
    print(f"check_results_python: {path}: {len(f['audits'])} audits, "
          f"{sum(1 for a in f['audits'] if a in runs)} matched to {csv.name}")


def check_h5(path):
    with h5py.File(path, "r") as f:
        if "audits" in f:
            check_audit_h5(path, f)
            return
        for name, g in f["studies"].items():
            rows = int(g.attrs["rows"])
            for sub in g:
                for ds_name, ds in g[sub].items():
                    where = f"{path}: study {name}: {sub}/{ds_name}"
                    if ds.shape != (rows,):
                        fail(f"{where}: shape {ds.shape}, the runner stored {rows} rows")
                    if sub in H5_UINT64 or (sub, ds_name) == ("timing", "segment"):
                        want = np.dtype(np.uint64)
                    elif sub in H5_FLOAT64 or (sub, ds_name) == ("timing", "wall_seconds"):
                        want = np.dtype(np.float64)
                    elif (sub, ds_name) == ("status", "ok"):
                        want = np.dtype(np.uint8)
                    elif (sub, ds_name) == ("status", "error"):
                        if h5py.check_string_dtype(ds.dtype) is None:
                            fail(f"{where}: dtype {ds.dtype}, the runner writes strings")
                        continue
                    else:
                        fail(f"{where}: a dataset store.rs does not write")
                        continue
                    if ds.dtype != want:
                        fail(f"{where}: dtype {ds.dtype}, the runner writes {want}")
            frame = h5_study_frame(g)
            if len(frame) != rows:
                fail(f"{path}: study {name}: pandas frame has {len(frame)} rows, the runner {rows}")
            print(f"check_results_python: {path}: {name}: {rows} cells")


def check_docs(repo):
    """Every python code block of docs/python.md must be, line for line, in this script."""
    doc = (repo / "docs/python.md").read_text()
    source = Path(__file__).read_text()
    blocks = doc.split("```python\n")[1:]
    if not blocks:
        fail("docs/python.md has no python code block")
    for b in blocks:
        code = b.split("```")[0]
        if code not in source:
            fail(f"docs/python.md shows code the script does not run:\n{code}")


def is_study_file(path):
    with h5py.File(path, "r") as f:
        return "studies" in f


def self_test(repo, h5_files):
    """The check must fail on a broken copy: runs this script on mutilated copies in a temp
    directory and exits 1 unless each run exits 1 with the expected message."""
    entries = json.loads((repo / "scripts/results_manifest.json").read_text())["files"]
    entry = next(e for e in entries if e["path"] == "results/wang.csv")
    lines = (repo / entry["path"]).read_text().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    mean = header.index("mean")

    def to_text(line):
        f = line.rstrip("\n").split(",")
        f[mean] = "n/a"
        return ",".join(f) + "\n"

    cases = [
        ("row dropped", lines[:-1], [], "polars reads 145 rows, the runner 146"),
        ("float column turned to text", lines[:1] + [to_text(lines[1])] + lines[2:], [],
         "column mean: polars dtype String, the runner writes float"),
    ]
    study_h5 = [h for h in h5_files if is_study_file(h)]
    if study_h5:
        cases.append(("h5 dataset retyped", lines, ["retype"], "timing/segment: dtype float64"))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "results").mkdir()
        (tmp / "m.json").write_text(json.dumps({"files": [entry]}))
        for name, text, h5, expect in cases:
            (tmp / entry["path"]).write_text("".join(text))
            args = []
            if h5:
                args = [str(tmp / "x.h5")]
                shutil.copy(study_h5[0], args[0])
                with h5py.File(args[0], "r+") as f:
                    g = next(iter(f["studies"].values()))["timing"]
                    seg = g["segment"][()].astype(np.float64)
                    del g["segment"]
                    g["segment"] = seg
            r = subprocess.run([sys.executable, __file__, "--manifest", str(tmp / "m.json"),
                                "--root", str(tmp), *args], capture_output=True, text=True)
            ok = r.returncode == 1 and expect in r.stdout
            print(f"check_results_python: self-test: {name}: exit {r.returncode}, "
                  f"{'caught' if ok else 'NOT CAUGHT'}")
            if not ok:
                print(r.stdout + r.stderr)
                bad += 1
    if bad:
        print(f"check_results_python: self-test: {bad} broken copies not caught; FAILED")
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", default=None)
    ap.add_argument("--root", default=None, help="directory the manifest's paths are relative to")
    ap.add_argument("--self-test", action="store_true",
                    help="first check that broken copies (a row dropped, a float column "
                         "turned to text, an HDF5 dataset retyped) fail")
    ap.add_argument("h5", nargs="*")
    args = ap.parse_args()
    repo = Path(__file__).resolve().parent.parent
    if args.self_test:
        self_test(repo, args.h5)
    manifest = Path(args.manifest or repo / "scripts/results_manifest.json")
    root = Path(args.root or repo)
    entries = json.loads(manifest.read_text())["files"]
    check_docs(repo)
    for entry in entries:
        check_csv(root, entry)
    for h5 in args.h5:
        check_h5(h5)
    if failures:
        print(f"check_results_python: {len(failures)} mismatch(es); FAILED")
        sys.exit(1)
    print(f"check_results_python: {len(entries)} CSVs (polars {pl.__version__}, pandas "
          f"{pd.__version__}) and {len(args.h5)} HDF5 files (h5py {h5py.__version__}): OK")


if __name__ == "__main__":
    main()
