"""The runner's Python worker: runs researchers' Python entries on request.

The runner starts one of these per thread (`python3 -u -c <this file>`) and
talks to it over stdin/stdout (docs/python.md, "The protocol"). A message is
an 8-byte little-endian length, that many bytes of UTF-8 JSON (the header),
then, for each entry of the header's "arrays" list ({"name", "shape"}), the
array's float64 values in little-endian byte order, row-major. Floats cross
the boundary as raw bytes, so every value arrives bit for bit.

Requests ("op"):
  describe  {"path", "function"} -> the entry's HARNESS declaration, the
            file's sha256, the interpreter's and numpy's versions.
  run       {"path", "function", "instance_id", "family", "problem",
            "constants", "privacy", "options", "seed"} (+, when this worker
            has not seen instance_id, "arrays_file" and "file_arrays"
            [{"name", "shape", "offset"}]: the instance's arrays in a file the
            worker maps, float64 little-endian at byte offsets) -> {"ok": true,
            "gradient_evaluations", "diagnostics", "seconds" (in the entry)}
            + the release's arrays, or
            {"ok": false, "error", "traceback"}.

The entry's own prints go to stderr, never into the protocol stream.
"""

import hashlib
import importlib.util
import json
import mmap
import platform
import signal
import struct
import sys
import time
import traceback
import types

import numpy as np

# Ctrl-C in the terminal reaches the whole process group: the runner stops
# after its running cells, so a worker must finish its cell, not record a
# KeyboardInterrupt as the entry's failure.
signal.signal(signal.SIGINT, signal.SIG_IGN)

PROTOCOL = sys.stdout.buffer
sys.stdout = sys.stderr
REQUESTS = sys.stdin.buffer

MODULES = {}
# The last few instances this worker has received, by id (a sweep's cells
# that share a data set run on one thread, one after another).
INSTANCES = {}
KEEP_INSTANCES = 2


def read_exact(n):
    chunks = []
    while n > 0:
        chunk = REQUESTS.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_message():
    raw = read_exact(8)
    if raw is None:
        return None, None
    (length,) = struct.unpack("<Q", raw)
    header = json.loads(read_exact(length).decode("utf-8"))
    arrays = {}
    for a in header.get("arrays", []):
        shape = tuple(a["shape"])
        count = int(np.prod(shape)) if shape else 1
        data = read_exact(8 * count)
        arrays[a["name"]] = np.frombuffer(data, dtype="<f8").reshape(shape)
    return header, arrays


def write_message(header, arrays=()):
    header = dict(header)
    header["arrays"] = [{"name": n, "shape": list(a.shape)} for n, a in arrays]
    body = json.dumps(header).encode("utf-8")
    PROTOCOL.write(struct.pack("<Q", len(body)))
    PROTOCOL.write(body)
    for _, a in arrays:
        PROTOCOL.write(np.ascontiguousarray(a, dtype="<f8").tobytes())
    PROTOCOL.flush()


def load(path):
    with open(path, "rb") as f:
        source = f.read()
    digest = hashlib.sha256(source).hexdigest()
    cached = MODULES.get(path)
    if cached is not None and cached[0] == digest:
        return cached[1], digest
    spec = importlib.util.spec_from_file_location(
        "harness_entry_%d" % len(MODULES), path
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    MODULES[path] = (digest, module)
    return module, digest


# The worker's read-only mappings of the runner's slot files, by path, kept
# across instances: the runner rewrites a file in place and only grows it, so
# a kept mapping sees the new arrays without the 6.7 ms a fresh MAP_POPULATE
# of 80 MB costs (crates/runner/src/python/slot.rs has the measurements).
MAPPINGS = {}


def map_arrays(path, listing):
    """The listed arrays of `path`, mapped read-only. MAP_POPULATE maps every
    page in one call: faulted in one by one as numpy first reads them, the
    pages of 8e7 bytes cost about 10 ms more (2026-11-28)."""
    size = max(a["offset"] + 8 * int(np.prod(a["shape"])) for a in listing)
    buf = MAPPINGS.get(path)
    if buf is None or len(buf) < size:
        with open(path, "rb") as f:
            buf = mmap.mmap(
                f.fileno(),
                0,
                flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                prot=mmap.PROT_READ,
            )
        MAPPINGS[path] = buf
    return {
        a["name"]: np.frombuffer(
            buf, dtype="<f8", count=int(np.prod(a["shape"])), offset=a["offset"]
        ).reshape(a["shape"])
        for a in listing
    }


def describe(req):
    module, digest = load(req["path"])
    declared = getattr(module, "HARNESS", None)
    if not isinstance(declared, dict):
        raise ValueError("the file has no module-level HARNESS dict")
    if req["function"] not in declared:
        raise ValueError(
            "HARNESS declares %s, not %r" % (sorted(declared), req["function"])
        )
    if not callable(getattr(module, req["function"], None)):
        raise ValueError("the file has no function %r" % req["function"])
    return {
        "ok": True,
        "declaration": declared[req["function"]],
        "sha256": digest,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def run(req, arrays):
    # Kept before anything can raise: the runner counts them as held.
    key = req["instance_id"]
    if "file_arrays" in req:
        # Mapped read-only, not copied: cells share the instance, and an entry
        # that writes into it gets an error instead of corrupting the next cell.
        arrays = map_arrays(req["arrays_file"], req["file_arrays"])
    if arrays:
        INSTANCES[key] = arrays
        while len(INSTANCES) > KEEP_INSTANCES:
            del INSTANCES[next(iter(INSTANCES))]
    data = INSTANCES[key]
    module, digest = load(req["path"])
    if digest != req["sha256"]:
        raise ValueError(
            "the file changed since the plan (sha256 %s, planned %s)"
            % (digest[:12], req["sha256"][:12])
        )
    instance = types.SimpleNamespace(
        family=req["family"],
        problem=req["problem"],
        n=req["constants"]["n"],
        d=req["constants"]["d"],
        constants=req["constants"],
        **data,
    )
    rng = np.random.Generator(np.random.PCG64(req["seed"]))
    started = time.perf_counter()
    out = getattr(module, req["function"])(instance, req["privacy"], req["options"], rng)
    seconds = time.perf_counter() - started
    if not isinstance(out, dict) or "w" not in out:
        raise TypeError(
            "the entry must return a dict with 'w' and 'gradient_evaluations', got %r"
            % type(out).__name__
        )
    w = np.asarray(out["w"], dtype="<f8")
    diagnostics = {k: float(v) for k, v in out.get("diagnostics", {}).items()}
    header = {
        "ok": True,
        "gradient_evaluations": float(out.get("gradient_evaluations", float("nan"))),
        "diagnostics": diagnostics,
        "seconds": seconds,
    }
    # The comparison curves at this cell's setting (a theory curve, a bound):
    # as text, so an infinite bound survives JSON.
    for curve in ("theory", "bound", "reference"):
        if out.get(curve) is not None:
            header[curve] = repr(float(out[curve]))
    return header, [("w", w)]


def main():
    while True:
        req, arrays = read_message()
        if req is None:
            return
        try:
            if req["op"] == "describe":
                write_message(describe(req))
            elif req["op"] == "run":
                header, out = run(req, arrays)
                write_message(header, out)
            else:
                raise ValueError("unknown op %r" % req["op"])
        except Exception as e:  # the entry's fault: report it, keep serving
            write_message(
                {
                    "ok": False,
                    "error": "%s: %s" % (type(e).__name__, e),
                    "traceback": traceback.format_exc(),
                }
            )


main()
