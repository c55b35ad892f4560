#!/usr/bin/env python3
"""Compares two harness results files dataset by dataset, bitwise, with h5py.

Usage: python3 scripts/compare_h5.py A.h5 B.h5

Every dataset of either file must exist in the other with the same dtype, shape and bytes,
except datasets under a group named `timing` (wall times differ from run to run). Attributes
are not compared (the root ones record run times, host and the like). Floating-point values are
compared by their bit patterns, so NaN equals NaN only if the payload is the same, and 0.0
differs from -0.0. Variable-length strings and other object data are compared element by element.

Exit code 0 if the files match, 1 on any difference, 2 on bad usage or an unreadable file.
"""
import sys

import h5py
import numpy as np

SKIPPED_GROUP = "timing"
MAX_REPORTED = 20


def datasets(f):
    """Maps path -> dataset for every dataset of the file, except those under a `timing` group."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and SKIPPED_GROUP not in name.split("/")[:-1]:
            found[name] = obj

    f.visititems(visit)
    return found


def has_objects(dtype):
    """True if values of this dtype hold Python objects (vlen strings or sequences, references)."""
    if dtype.hasobject:
        return True
    if dtype.fields:
        return any(has_objects(sub) for sub, *_ in dtype.fields.values())
    return dtype.subdtype is not None and has_objects(dtype.subdtype[0])


def same_objects(a, b):
    """Element-wise equality for object data; arrays inside are compared by their bytes."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if not has_objects(a.dtype):
            return a.tobytes() == b.tobytes()
        return all(same_objects(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (isinstance(a, (tuple, list)) and isinstance(b, (tuple, list))
                and len(a) == len(b) and all(same_objects(x, y) for x, y in zip(a, b)))
    if isinstance(a, float) and isinstance(b, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    return type(a) is type(b) and a == b


def difference(da, db):
    """None if the two datasets are bitwise equal, else a short description of how they differ."""
    if da.dtype != db.dtype:
        return f"dtype {da.dtype} vs {db.dtype}"
    if da.shape != db.shape:
        return f"shape {da.shape} vs {db.shape}"
    if da.shape is None:  # empty (null dataspace) datasets
        return None
    a, b = np.asarray(da[()]), np.asarray(db[()])
    if not has_objects(a.dtype):
        if a.tobytes() == b.tobytes():
            return None
        if a.ndim == 0:
            return f"value {a.item()!r} vs {b.item()!r}"
        itemsize = a.dtype.itemsize
        ra = np.frombuffer(a.tobytes(), dtype=np.uint8).reshape(-1, itemsize) if itemsize else None
        rb = np.frombuffer(b.tobytes(), dtype=np.uint8).reshape(-1, itemsize) if itemsize else None
        bad = np.flatnonzero((ra != rb).any(axis=1))
        i = int(bad[0])
        return (f"{len(bad)} of {a.size} elements differ; first at flat index {i}: "
                f"{a.ravel()[i].item()!r} vs {b.ravel()[i].item()!r}")
    flat_a, flat_b = a.ravel().tolist(), b.ravel().tolist()
    bad = [i for i, (x, y) in enumerate(zip(flat_a, flat_b)) if not same_objects(x, y)]
    if not bad:
        return None
    i = bad[0]
    return f"{len(bad)} of {a.size} elements differ; first at flat index {i}: {flat_a[i]!r} vs {flat_b[i]!r}"


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path_a, path_b = argv[1], argv[2]
    try:
        fa, fb = h5py.File(path_a, "r"), h5py.File(path_b, "r")
    except OSError as e:
        print(f"compare_h5: cannot open: {e}", file=sys.stderr)
        return 2
    with fa, fb:
        da, db = datasets(fa), datasets(fb)
        problems = []
        for name in sorted(set(da) - set(db)):
            problems.append(f"{name}: only in {path_a}")
        for name in sorted(set(db) - set(da)):
            problems.append(f"{name}: only in {path_b}")
        common = sorted(set(da) & set(db))
        for name in common:
            d = difference(da[name], db[name])
            if d is not None:
                problems.append(f"{name}: {d}")
    if not common and not problems:
        print(f"compare_h5: FAIL: no datasets to compare (outside '{SKIPPED_GROUP}/')")
        return 1
    if problems:
        for p in problems[:MAX_REPORTED]:
            print(f"  {p}")
        if len(problems) > MAX_REPORTED:
            print(f"  ... and {len(problems) - MAX_REPORTED} more")
        print(f"compare_h5: FAIL: {len(problems)} difference(s) between {path_a} and {path_b} "
              f"({len(common)} datasets in common, '{SKIPPED_GROUP}/' skipped)")
        return 1
    print(f"compare_h5: OK: {len(common)} datasets bitwise equal ('{SKIPPED_GROUP}/' skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
