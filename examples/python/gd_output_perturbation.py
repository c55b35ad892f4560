"""Gradient descent + output perturbation ([ZZMW17], the GD baseline of
Lowy & Razaviyayn Tables 3-6) in numpy, as a harness entry.

Projected full-batch GD from 0 with step 1/beta onto the ball of radius R,
for T = ceil(kappa ln(beta R^2 / alpha)) steps at Lowy-Razaviyayn Thm 3.2's
target alpha = L^2/(mu n^2) min(kappa s^2, 1) (s = d/eps, or
sqrt(d)(c + sqrt(c^2 + eps))/eps for delta > 0); the T-th iterate has
replace-one sensitivity Delta_T = 2L/(mu n) (1 - (1 - 1/kappa)^T), and the
release is that iterate plus the output-perturbation noise of
output_perturbation.py at Delta_T. Gradient evaluations: T n, as the Rust
entry counts them (each full gradient is n record gradients).

Run it with `runner` on examples/python/lowy_razaviyayn.toml (docs/python.md).
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from output_perturbation import noise, zhao_c  # noqa: E402

HARNESS = {
    "gd_output_perturbation": {
        "doc": "[ZZMW17] projected GD (step 1/beta, Thm 3.2's T) + output perturbation "
        "at the iterate sensitivity, in numpy",
        "privacy": "eps_delta",
        "families": ["diagonal_quadratic"],
        "metrics": ["excess_empirical_risk"],
        "timeout_seconds": 600,
    }
}


def gd_output_perturbation(instance, privacy, options, rng):
    x, h = instance.records, instance.hessian_diagonal
    n, d = x.shape
    c = instance.constants
    lip, beta, mu, radius = c["lipschitz"], c["smoothness"], c["strong_convexity"], c["radius"]
    kappa = beta / mu
    eps, delta = privacy["eps"], privacy["delta"]
    if delta == 0.0:
        s = d / eps
    else:
        cd = zhao_c(delta)
        s = math.sqrt(d) * (cd + math.sqrt(cd * cd + eps)) / eps
    alpha = lip * lip / (mu * n * n) * min(kappa * s * s, 1.0)
    steps = max(1, math.ceil(kappa * max(math.log(beta * radius * radius / alpha), 0.0)))
    sensitivity = -2.0 * lip / (mu * n) * math.expm1(steps * math.log1p(-1.0 / kappa))
    # grad F(w) = (1/n) sum_i H (w - x_i) = H (w - x_bar) exactly: the
    # family's own gradient oracle (and the Rust entry) use the mean, so the
    # runs agree to rounding; computed per step from the records instead,
    # the n x d temporaries cost 40x the time (page faults, 2026-11-28).
    x_bar = x.mean(axis=0)
    w = np.zeros(d)
    for _ in range(steps):
        w = w - (1.0 / beta) * (h * (w - x_bar))
        norm = np.linalg.norm(w)
        if norm > radius:
            w *= radius / norm
    z = noise(d, eps, delta, sensitivity, rng)
    return {"w": w + z, "gradient_evaluations": steps * n}
