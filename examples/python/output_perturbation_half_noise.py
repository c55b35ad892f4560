"""A broken copy of output_perturbation.py for the audit to catch: the same
declaration and claim, half the calibrated noise (so the release is about
(2 eps)-DP while it claims eps). examples/python/audit.toml expects a
violation; crates/runner/tests/python_entries.rs checks that the audit finds it."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from output_perturbation import HARNESS as _FULL  # noqa: E402
from output_perturbation import noise  # noqa: E402

HARNESS = {
    "output_perturbation_half_noise": dict(
        _FULL["output_perturbation"],
        doc="output perturbation with half the calibrated noise (a control that must be caught)",
    )
}


def output_perturbation_half_noise(instance, privacy, options, rng):
    x = instance.records
    n, d = x.shape
    z = noise(d, privacy["eps"], privacy["delta"], 2.0 / n, rng)
    return {"w": x.mean(axis=0) + 0.5 * z, "gradient_evaluations": n}
