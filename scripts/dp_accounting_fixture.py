#!/usr/bin/env python3
"""Writes the reference fixture for the Rust RDP accountant (crate `mechanisms`, module `rdp`).

Usage (one command, from the repository root):

    python3 scripts/dp_accounting_fixture.py

The reference is Google's `dp_accounting` package (PyPI `dp-accounting`, pinned below), an
implementation independent of ours. If the running interpreter cannot import that exact version,
the script creates a virtual environment outside the repository (default
`~/.cache/dp-rate-harness/venv-dp-accounting-<version>`, override with `--venv DIR`), installs
`dp-accounting==<version>` into it from PyPI with pip, and re-runs itself there.

Output: `crates/mechanisms/tests/fixtures/rdp_dp_accounting.csv` (override with `--out PATH`).
Lines starting with `#` are provenance comments (package versions, date, command). Columns:

    kind,q,noise_multiplier,steps,delta,epsilon,optimal_order

* `kind = epsilon`: add/remove neighbouring relation, `steps`-fold self-composition of a
  Poisson-subsampled Gaussian with sampling rate `q` and noise multiplier `noise_multiplier`,
  accounted by `dp_accounting.rdp.RdpAccountant` with its default orders; `epsilon` and
  `optimal_order` are its outputs at `delta` (`get_epsilon_and_optimal_order`).
* `kind = delta`: same mechanism; `delta` and `optimal_order` are the accountant's outputs at
  the given `epsilon` (`get_delta_and_optimal_order`).
* `kind = calibration`: `noise_multiplier` is the output of
  `dp_accounting.mechanism_calibration.calibrate_dp_mechanism` (tolerance 1e-12 in sigma) for the
  target `epsilon` at `delta`; `optimal_order` is empty.

Floats are written with Python's `repr`, which round-trips exactly to IEEE doubles.
"""

import argparse
import datetime
import itertools
import os
import sys

from dp_accounting_env import DP_ACCOUNTING_VERSION, ensure_dp_accounting

REEXEC_GUARD = "DP_ACCOUNTING_FIXTURE_REEXEC"

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(
    REPO_ROOT, "crates", "mechanisms", "tests", "fixtures", "rdp_dp_accounting.csv"
)
DEFAULT_VENV = os.path.join(
    os.path.expanduser("~"), ".cache", "dp-rate-harness", f"venv-dp-accounting-{DP_ACCOUNTING_VERSION}"
)
REGENERATE_COMMAND = "python3 scripts/dp_accounting_fixture.py"

# Grid of the `epsilon` rows: every combination (6 * 7 * 6 * 2 = 504 rows).
SAMPLING_RATES = [1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0]
NOISE_MULTIPLIERS = [0.5, 0.8, 1.0, 2.0, 5.0, 10.0, 20.0]
STEPS = [1, 10, 100, 1000, 10000, 100000]
DELTAS = [1e-5, 1e-8]

# Grid of the `delta` rows (inverse conversion): 4 * 4 * 2 * 2 = 64 rows.
DELTA_ROWS_Q = [1e-3, 1e-2, 0.1, 1.0]
DELTA_ROWS_SIGMA = [1.0, 2.0, 5.0, 10.0]
DELTA_ROWS_STEPS = [100, 10000]
DELTA_ROWS_EPS = [1.0, 4.0]

# Calibration rows: (q, steps, target epsilon, delta), typical DP-SGD budgets.
CALIBRATION_ROWS = [
    (1e-3, 10000, 1.0, 1e-5),
    (1e-3, 100000, 2.0, 1e-8),
    (1e-2, 1000, 1.0, 1e-5),
    (1e-2, 10000, 8.0, 1e-5),
    (1e-2, 100000, 3.0, 1e-8),
    (0.1, 100, 2.0, 1e-5),
    (0.1, 1000, 10.0, 1e-5),
    (1.0, 1, 1.0, 1e-5),
    (1.0, 100, 4.0, 1e-8),
    (1.0, 1000, 50.0, 1e-5),
]
CALIBRATION_TOL = 1e-12


def poisson_gaussian_event(q, sigma, steps):
    import dp_accounting

    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )


def fresh_accountant():
    import dp_accounting

    return dp_accounting.rdp.RdpAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="fixture path to write")
    parser.add_argument("--venv", default=DEFAULT_VENV, help="virtual environment to create/use")
    args = parser.parse_args()
    ensure_dp_accounting(args.venv, __file__, REEXEC_GUARD)

    from importlib import metadata

    from absl import logging as absl_logging
    import dp_accounting

    # dp_accounting logs a warning for each order whose fractional series does not converge
    # (that order is then excluded as +inf); that is expected on this grid.
    absl_logging.set_verbosity(absl_logging.ERROR)

    rows = []
    for q, sigma, steps, delta in itertools.product(SAMPLING_RATES, NOISE_MULTIPLIERS, STEPS, DELTAS):
        acc = fresh_accountant().compose(poisson_gaussian_event(q, sigma, steps))
        eps, order = acc.get_epsilon_and_optimal_order(delta)
        rows.append(("epsilon", q, sigma, steps, delta, float(eps), float(order)))
    for q, sigma, steps, eps in itertools.product(
        DELTA_ROWS_Q, DELTA_ROWS_SIGMA, DELTA_ROWS_STEPS, DELTA_ROWS_EPS
    ):
        acc = fresh_accountant().compose(poisson_gaussian_event(q, sigma, steps))
        delta, order = acc.get_delta_and_optimal_order(eps)
        rows.append(("delta", q, sigma, steps, float(delta), eps, float(order)))
    for q, steps, eps, delta in CALIBRATION_ROWS:
        sigma = dp_accounting.calibrate_dp_mechanism(
            fresh_accountant,
            lambda s, q=q, steps=steps: poisson_gaussian_event(q, s, steps),
            eps,
            delta,
            tol=CALIBRATION_TOL,
        )
        rows.append(("calibration", q, float(sigma), steps, delta, eps, None))

    versions = ", ".join(
        f"{pkg} {metadata.version(pkg)}" for pkg in ("dp-accounting", "numpy", "scipy")
    )
    today = datetime.date.today().isoformat()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(
            f"# Reference values from Google's dp_accounting (PyPI dp-accounting=={DP_ACCOUNTING_VERSION}); "
            f"{versions}; Python {sys.version.split()[0]}; generated {today}.\n"
        )
        f.write(f"# Regenerate from the repository root with: {REGENERATE_COMMAND}\n")
        f.write(
            "# Add/remove relation; Poisson-subsampled Gaussian self-composed `steps` times; "
            "RdpAccountant default orders; see the script's docstring for the meaning of each kind.\n"
        )
        f.write("kind,q,noise_multiplier,steps,delta,epsilon,optimal_order\n")
        for kind, q, sigma, steps, delta, eps, order in rows:
            order_text = "" if order is None else repr(order)
            f.write(f"{kind},{q!r},{sigma!r},{steps},{delta!r},{eps!r},{order_text}\n")
    print(f"wrote {len(rows)} rows to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
