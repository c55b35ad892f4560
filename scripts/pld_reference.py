#!/usr/bin/env python3
"""Writes the reference fixture for the Rust PLD accountant (crate `mechanisms`, module `pld`).

Usage (one command, from the repository root):

    python3 scripts/pld_reference.py

The reference is the privacy-loss-distribution code of Google's `dp_accounting` package (PyPI
`dp-accounting`, pinned below), an implementation independent of ours. If the running interpreter
cannot import that exact version, the script creates a virtual environment outside the repository
(default `~/.cache/dp-rate-harness/venv-dp-accounting-<version>`, shared with
`scripts/dp_accounting_fixture.py`; override with `--venv DIR`), installs `dp-accounting==<version>`
into it from PyPI with pip, and re-runs itself there.

Output: `crates/mechanisms/tests/fixtures/pld_reference.csv` (override with `--out PATH`). Lines
starting with `#` are provenance comments (package versions, date, command, column legend). The
file holds numbers only. Columns:

    mechanism,relation,q,noise,steps,delta,eps_pessimistic,eps_optimistic

* `mechanism`: 0 = Gaussian, 1 = Laplace, 2 = Poisson-subsampled Gaussian (rate `q`).
* `relation`: 0 = add/remove, 1 = replace-one.
* `noise`: the noise in units of the sensitivity under the relation, as in the Rust crate: the
  Gaussian noise multiplier, or the Laplace parameter. For the subsampled Gaussian under replace-one
  the sensitivity is the distance between the two substituted records' contributions, so a record of
  norm C and its mirror image (sensitivity 2C) with noise std s is `noise = s / (2C)`; dp_accounting
  is called with `standard_deviation = noise`, `sensitivity = 1/2` (its REPLACE pair is
  `(1-q)N(0) + qN(-sensitivity)` against `(1-q)N(0) + qN(+sensitivity)`).
* `steps`: self-composition count.
* `eps_pessimistic`, `eps_optimistic`: `get_epsilon_for_delta(delta)` of the composed PLD built by
  `dp_accounting.pld.privacy_loss_distribution.from_*_mechanism` on the grid
  `value_discretization_interval = 1e-4`: pessimistic by connect-the-dots (an upper bound on the
  exact eps), optimistic by privacy buckets with the losses rounded down (a lower bound on the exact
  eps, loose by up to about `steps * 1e-4`).

The settings were fixed in this file before the Rust accountant was compared with them (held-out
points): none of them was used to tune the Rust implementation.

Floats are written with Python's `repr`, which round-trips exactly to IEEE doubles.
"""

import argparse
import datetime
import itertools
import os
import sys

from dp_accounting_env import DP_ACCOUNTING_VERSION, ensure_dp_accounting

REEXEC_GUARD = "PLD_REFERENCE_REEXEC"
GRID = 1e-4

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO_ROOT, "crates", "mechanisms", "tests", "fixtures", "pld_reference.csv")
DEFAULT_VENV = os.path.join(
    os.path.expanduser("~"), ".cache", "dp-rate-harness", f"venv-dp-accounting-{DP_ACCOUNTING_VERSION}"
)
REGENERATE_COMMAND = "python3 scripts/pld_reference.py"

GAUSSIAN, LAPLACE, POISSON_GAUSSIAN = 0, 1, 2
ADD_REMOVE, REPLACE_ONE = 0, 1
DELTAS = [1e-5, 1e-8]

# (mechanism, relation, q, noise, steps) before crossing with DELTAS.
SETTINGS = (
    [(GAUSSIAN, ADD_REMOVE, 1.0, s, k) for s, k in itertools.product([0.8, 2.0, 5.0], [1, 10, 100])]
    + [(LAPLACE, ADD_REMOVE, 1.0, b, k) for b, k in itertools.product([0.5, 1.0, 4.0], [1, 10, 50])]
    + [
        (POISSON_GAUSSIAN, rel, q, s, k)
        for rel, (q, s), k in itertools.product(
            [ADD_REMOVE, REPLACE_ONE],
            [(0.003, 0.8), (0.01, 1.0), (0.01, 2.0), (0.05, 1.5), (0.1, 4.0)],
            [1, 100, 1000],
        )
    ]
    # Bassily et al.'s NSGD at n = 1e4, d = 10, eps = 1 (BFTT-P4): q = 142/1e4, T = 1250, printed
    # noise multiplier 6.0945 per record, i.e. 3.04725 against the replace-one sensitivity.
    + [(POISSON_GAUSSIAN, ADD_REMOVE, 0.0142, 6.0945, 1250), (POISSON_GAUSSIAN, REPLACE_ONE, 0.0142, 3.04725, 1250)]
)


def single_pld(mechanism, relation, q, noise, pessimistic):
    """The dp_accounting PLD of one release (see the module docstring for the conventions)."""
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld

    # dp_accounting's connect-the-dots is pessimistic only; its optimistic estimate is the privacy
    # buckets algorithm (losses rounded down).
    common = dict(
        pessimistic_estimate=pessimistic, use_connect_dots=pessimistic, value_discretization_interval=GRID
    )
    if mechanism == GAUSSIAN:
        return pld.from_gaussian_mechanism(noise, sensitivity=1.0, **common)
    if mechanism == LAPLACE:
        return pld.from_laplace_mechanism(noise, sensitivity=1.0, **common)
    if relation == ADD_REMOVE:
        return pld.from_gaussian_mechanism(noise, sensitivity=1.0, sampling_prob=q, **common)
    return pld.from_gaussian_mechanism(
        noise,
        sensitivity=0.5,
        sampling_prob=q,
        neighboring_relation=NeighboringRelation.REPLACE_ONE,
        **common,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="fixture path to write")
    parser.add_argument("--venv", default=DEFAULT_VENV, help="virtual environment to create/use")
    args = parser.parse_args()
    ensure_dp_accounting(args.venv, __file__, REEXEC_GUARD)

    from importlib import metadata

    rows = []
    for mechanism, relation, q, noise, steps in SETTINGS:
        composed = {}
        for pessimistic in (True, False):
            one = single_pld(mechanism, relation, q, noise, pessimistic)
            composed[pessimistic] = one if steps == 1 else one.self_compose(steps)
        for delta in DELTAS:
            eps = [float(composed[p].get_epsilon_for_delta(delta)) for p in (True, False)]
            rows.append((mechanism, relation, q, noise, steps, delta, *eps))
        print(f"{mechanism} {relation} q={q} noise={noise} steps={steps}", file=sys.stderr)

    versions = ", ".join(f"{pkg} {metadata.version(pkg)}" for pkg in ("dp-accounting", "numpy", "scipy"))
    today = datetime.date.today().isoformat()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(
            f"# Reference values from Google's dp_accounting PLD (PyPI dp-accounting=={DP_ACCOUNTING_VERSION}); "
            f"{versions}; Python {sys.version.split()[0]}; generated {today}.\n"
        )
        f.write(f"# Regenerate from the repository root with: {REGENERATE_COMMAND}\n")
        f.write(
            "# mechanism: 0 Gaussian, 1 Laplace, 2 Poisson-subsampled Gaussian; relation: 0 add/remove, "
            "1 replace-one; noise in units of the sensitivity under the relation; connect-the-dots, grid 1e-4; "
            "see the script's docstring.\n"
        )
        f.write("mechanism,relation,q,noise,steps,delta,eps_pessimistic,eps_optimistic\n")
        for mechanism, relation, q, noise, steps, delta, pess, opt in rows:
            f.write(f"{mechanism},{relation},{q!r},{noise!r},{steps},{delta!r},{pess!r},{opt!r}\n")
    print(f"wrote {len(rows)} rows to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
