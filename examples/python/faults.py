"""Entries that fail on purpose, one way each (docs/python.md, "Faults"):
the runner must fail their cells with the reason, leave every other cell and
the results file intact, and carry on. crates/runner/tests/python_entries.rs
runs them beside a working entry."""

import os
import time

import numpy as np

_COMMON = {
    "privacy": "eps_delta",
    "families": ["diagonal_quadratic"],
    "metrics": ["excess_empirical_risk"],
    "timeout_seconds": 2,
}

HARNESS = {
    name: dict(_COMMON, doc="fails on purpose: " + name)
    for name in ["raises", "hangs", "returns_nan", "wrong_shape", "kills_worker", "writes_records"]
}


def _inverse_of_empty(x):
    return 1.0 / len(x[:0])


def raises(instance, privacy, options, rng):
    return {"w": _inverse_of_empty(instance.records), "gradient_evaluations": 0}


def hangs(instance, privacy, options, rng):
    time.sleep(3600)


def returns_nan(instance, privacy, options, rng):
    w = np.zeros(instance.d)
    w[0] = np.nan
    return {"w": w, "gradient_evaluations": 0}


def wrong_shape(instance, privacy, options, rng):
    return {"w": np.zeros(instance.d + 1), "gradient_evaluations": 0}


def kills_worker(instance, privacy, options, rng):
    os._exit(3)


def writes_records(instance, privacy, options, rng):
    # The records are shared by the cells of one data set: mapped read-only.
    instance.records[0, 0] = 5.0
    return {"w": np.zeros(instance.d), "gradient_evaluations": 0}
