"""Output perturbation (Lowy & Razaviyayn, Algorithm 1 with the exact
minimizer; Chaudhuri, Monteleoni & Sarwate 2011) in numpy, as a harness entry.

Releases w*(X) + z. On the diagonal quadratic family the ERM minimizer is the
record mean, whose replace-one L2 sensitivity is 2/n (records in the unit
ball). Pure eps-DP: z has density proportional to exp(-eps ||z|| / Delta)
(a uniform direction times a Gamma(d, Delta/eps) radius, Lowy-Razaviyayn
Eq. 4). (eps, delta)-DP: Gaussian z with the sigma of Zhao et al. (2019),
Thm 5 (Lowy-Razaviyayn Eq. 5), valid for every eps > 0 and delta < 1/2.

Run it with `runner` on experiments/python.toml (docs/python.md).
"""

import math

import numpy as np

HARNESS = {
    "output_perturbation": {
        "doc": "output perturbation in numpy: exact minimizer (record mean) + l2-Laplace "
        "(pure) or Zhao et al. Gaussian noise at the tight sensitivity 2/n",
        "privacy": "eps_delta",
        "families": ["diagonal_quadratic"],
        "metrics": ["excess_empirical_risk"],
        "options": {
            "noise_factor": {
                "float": [0.0, 1.0],
                "default": 1.0,
                "doc": "fraction of the calibrated noise added (1: the private release)",
            }
        },
        "timeout_seconds": 120,
        "theory_name": "exact E excess (tr(H) E||z||^2 / 2d)",
        # The release is the minimizer plus Gaussian noise at delta > 0: its first
        # coordinate on the family's pair is a Gaussian mean shift, where the
        # Gaussian-DP fit applies (at delta = 0 the runner uses the threshold audit).
        "audit": {"estimator": "gaussian_dp"},
    }
}


def zhao_c(delta):
    """c = sqrt(ln(2 / (sqrt(1 + 16 delta) - 1))), written without the
    cancellation of sqrt(1 + 16 delta) - 1 at small delta."""
    s = math.sqrt(1.0 + 16.0 * delta)
    c_sq = -(math.log(4.0) + math.log(delta)) + math.log1p(8.0 * delta / (1.0 + s))
    return math.sqrt(max(c_sq, 0.0))


def zhao_sigma(eps, delta, sensitivity):
    """sigma = (c + sqrt(c^2 + eps)) Delta / (sqrt(2) eps)."""
    c = zhao_c(delta)
    return (c + math.sqrt(c * c + eps)) * sensitivity / (math.sqrt(2.0) * eps)


def noise(d, eps, delta, sensitivity, rng):
    if delta == 0.0:
        direction = rng.standard_normal(d)
        direction /= np.linalg.norm(direction)
        return direction * rng.gamma(shape=d, scale=sensitivity / eps)
    if not 0.0 < delta < 0.5:
        raise ValueError("the Zhao et al. Gaussian needs 0 < delta < 1/2, got %r" % delta)
    return rng.normal(0.0, zhao_sigma(eps, delta, sensitivity), size=d)


def output_perturbation(instance, privacy, options, rng):
    x = instance.records
    n, d = x.shape
    w_star = x.mean(axis=0)
    sensitivity = 2.0 / n
    z = noise(d, privacy["eps"], privacy["delta"], sensitivity, rng)
    f = options["noise_factor"]
    # The exact expected excess 1/2 E[z^T H z] = tr(H) E||z||^2 / (2 d): for the
    # l2-Laplace noise E||z||^2 = d (d + 1) Delta^2 / eps^2 (Lowy-Razaviyayn
    # Lemma B.3), for the Gaussian d sigma^2. The study's match_theory reads it.
    eps, delta = privacy["eps"], privacy["delta"]
    if delta == 0.0:
        mean_sq = d * (d + 1) * (sensitivity / eps) ** 2
    else:
        mean_sq = d * zhao_sigma(eps, delta, sensitivity) ** 2
    theory = f * f * instance.hessian_diagonal.sum() * mean_sq / (2 * d)
    # One pass over the records computes the mean: n gradient evaluations'
    # worth of work, as the Rust entry counts the exact solve.
    return {"w": w_star + f * z, "gradient_evaluations": n, "theory": theory}
