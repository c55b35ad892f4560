#!/usr/bin/env python3
"""Markdown summary of the criterion benchmarks of the hot kernels.

Reads criterion's results (``target/criterion/**/new/benchmark.json`` for the
ids and the declared throughput, ``new/estimates.json`` for the time) and
prints one table row per benchmark: kernel, size, time (criterion's median
estimate), throughput (GB/s = 1e9 bytes/s for ``Throughput::Bytes``,
samples/s for ``Throughput::Elements``) and, for kernels whose data set
exceeds the last-level cache, the fraction of the STREAM-triad bandwidth
measured by the same bench binary (group ``<crate>.stream_triad``; byte
convention in ``benches/stream_triad.rs``). Then the machine (lscpu model
name, cores, LLC) and the commands that reproduce the numbers.

Exits with status 1 and a message when there are no results, or when a bench
binary's triad result is missing but that binary has byte-throughput kernels
to compare with it.

Usage (after the benches, e.g.
``CARGO_BUILD_JOBS=1 cargo bench -p datagen --bench full_gradient -- --warm-up-time 1 --measurement-time 3``,
likewise ``-p solvers --bench kernels`` and ``-p mechanisms --bench noise``):

    python3 scripts/bench_report.py [--criterion-dir DIR]

Standard library only.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Bench binary of each group prefix: (package, bench target).
BENCHES = {
    "datagen": ("datagen", "full_gradient"),
    "solvers": ("solvers", "kernels"),
    "mechanisms": ("mechanisms", "noise"),
}
CRITERION_ARGS = "--warm-up-time 1 --measurement-time 3"
# What one `Throughput::Elements` element is, per group prefix (the noise
# samplers count coordinates drawn; the MW kernels count coordinates).
ELEMENT_UNITS = {"mechanisms": "samples/s"}
TRIAD_SUFFIX = ".stream_triad"
# A kernel and its triad further apart in time than this were not measured in
# the same run of the bench binary; their ratio is flagged.
SAME_RUN_SECONDS = 30 * 60


def fail(message):
    print(f"bench_report.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_results(criterion_dir):
    """One dict per benchmark with its ids, median time (ns) and throughput."""
    results = []
    pattern = os.path.join(criterion_dir, "**", "new", "benchmark.json")
    for bench_path in sorted(glob.glob(pattern, recursive=True)):
        new_dir = os.path.dirname(bench_path)
        estimates_path = os.path.join(new_dir, "estimates.json")
        if not os.path.exists(estimates_path):
            continue
        bench = read_json(bench_path)
        estimates = read_json(estimates_path)
        throughput = bench.get("throughput") or {}
        kind, amount = None, None
        for key in ("Bytes", "BytesDecimal"):
            if key in throughput:
                kind, amount = "bytes", throughput[key]
        if "Elements" in throughput:
            kind, amount = "elements", throughput["Elements"]
        if "ElementsAndBytes" in throughput:
            kind, amount = "bytes", throughput["ElementsAndBytes"]["bytes"]
        group = bench["group_id"]
        results.append(
            {
                "group": group,
                "prefix": group.split(".")[0],
                "function": bench.get("function_id") or "",
                "value": bench.get("value_str") or "",
                "time_ns": estimates["median"]["point_estimate"],
                "kind": kind,
                "amount": amount,
                "mtime": os.path.getmtime(estimates_path),
            }
        )
    return results


def data_bytes(value):
    """The data-set size a parameter string declares (`data=<x>MiB`)."""
    m = re.search(r"data=([0-9.]+)MiB", value)
    return float(m.group(1)) * 2**20 if m else None


def llc():
    """(level, bytes) of the largest cache of cpu0, from sysfs."""
    best = None
    for index in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(os.path.join(index, "level")) as f:
                level = int(f.read())
            with open(os.path.join(index, "size")) as f:
                size = f.read().strip()
        except OSError:
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if not m:
            continue
        scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]
        if best is None or level > best[0]:
            best = (level, int(m.group(1)) * scale)
    return best


def machine():
    """Model name and core count from lscpu (or /proc/cpuinfo)."""
    model, cpus = "unknown", str(os.cpu_count())
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            key, _, val = line.partition(":")
            if key.strip() == "Model name":
                model = val.strip()
            elif key.strip() == "CPU(s)":
                cpus = val.strip()
    except (OSError, subprocess.CalledProcessError):
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        model = line.partition(":")[2].strip()
                        break
        except OSError:
            pass
    return model, cpus


def git_revision():
    try:
        return subprocess.run(
            ["git", "-C", ROOT, "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def fmt_rate(per_second, unit):
    for prefix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if per_second >= scale:
            return f"{per_second / scale:.3g} {prefix}{unit}"
    return f"{per_second:.3g} {unit}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--criterion-dir",
        default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "criterion"),
        help="criterion's output folder (default: target/criterion)",
    )
    args = parser.parse_args()

    results = load_results(args.criterion_dir)
    if not results:
        fail(
            f"no criterion results under {args.criterion_dir}; run the benches first, e.g. "
            f"CARGO_BUILD_JOBS=1 cargo bench -p datagen --bench full_gradient -- {CRITERION_ARGS}"
        )

    triads = {r["prefix"]: r for r in results if r["group"].endswith(TRIAD_SUFFIX)}
    for r in results:
        if r["kind"] == "bytes" and not r["group"].endswith(TRIAD_SUFFIX) and r["prefix"] not in triads:
            fail(
                f"no STREAM-triad result for the '{r['prefix']}' benches (expected group "
                f"'{r['prefix']}{TRIAD_SUFFIX}' under {args.criterion_dir}), so '{r['group']}/{r['function']}' "
                "has no bandwidth reference; rerun the whole bench binary, without a filter that skips the triad"
            )

    cache = llc()
    model, cpus = machine()
    rows, flagged = [], False
    for r in sorted(results, key=lambda r: (r["prefix"], not r["group"].endswith(TRIAD_SUFFIX), r["group"], r["function"])):
        seconds = r["time_ns"] / 1e9
        if r["kind"] == "bytes":
            rate = r["amount"] / seconds
            throughput = f"{rate / 1e9:.3g} GB/s"
        elif r["kind"] == "elements":
            throughput = fmt_rate(r["amount"] / seconds, ELEMENT_UNITS.get(r["prefix"], "elements/s"))
        else:
            throughput = "–"
        fraction = "–"
        size = data_bytes(r["value"])
        triad = triads.get(r["prefix"])
        if r["group"].endswith(TRIAD_SUFFIX):
            fraction = "(reference)"
        elif r["kind"] == "bytes" and triad and size is not None and cache and size > cache[1]:
            triad_rate = triad["amount"] / (triad["time_ns"] / 1e9)
            fraction = f"{100 * (r['amount'] / seconds) / triad_rate:.0f}%"
            if abs(r["mtime"] - triad["mtime"]) > SAME_RUN_SECONDS:
                fraction += " ¹"
                flagged = True
        kernel = f"{r['group']}/{r['function']}"
        rows.append((kernel, r["value"], fmt_time(r["time_ns"]), throughput, fraction))

    print("| kernel | size | time (median) | throughput | of STREAM triad |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if flagged:
        print()
        print(f"¹ kernel and triad measured more than {SAME_RUN_SECONDS // 60} min apart (not the same run).")
    print()
    llc_text = f"L{cache[0]} {cache[1] // 2**20} MiB" if cache else "unknown"
    print(f"Machine: {model}, {cpus} CPUs, last-level cache {llc_text}. Revision: {git_revision()}.")
    print(
        "Throughput counts the bytes of data a kernel must read or write (the triad: 3 arrays x 8 bytes "
        "per element, write-allocate traffic not counted); the STREAM fraction is shown for data sets "
        "larger than the last-level cache. Time is criterion's median estimate."
    )
    print()
    print("Reproduce:")
    print()
    print("```sh")
    for prefix in sorted({r["prefix"] for r in results}):
        if prefix in BENCHES:
            package, bench = BENCHES[prefix]
            print(f"CARGO_BUILD_JOBS=1 cargo bench -p {package} --bench {bench} -- {CRITERION_ARGS}")
    print("python3 scripts/bench_report.py")
    print("```")


if __name__ == "__main__":
    main()
