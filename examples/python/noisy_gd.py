"""Noisy gradient descent (DP-GD: a Gaussian mechanism on every full
gradient, composed under zCDP) in numpy, as a harness entry, with its exact
expected excess as the theory curve.

On the diagonal quadratic F(w) = 1/2 (w - x_bar)^T H (w - x_bar) with records
in the unit ball, replacing one record moves x_bar by at most 2/n, so the
gradient H (w - x_bar) moves by at most Delta = 2 beta / n at every w. Each of
the T steps releases grad F(w_t) + N(0, sigma^2 I), which is
Delta^2/(2 sigma^2)-zCDP (Bun & Steinke, Prop 1.6); T of them compose to
rho = T Delta^2 / (2 sigma^2) (Lemma 2.3), so sigma = Delta sqrt(T / (2 rho)).
Steps w_{t+1} = w_t - eta (grad F(w_t) + z_t) from w_0 = 0 with eta = 1/beta
give e_t = w_t - x_bar the recursion e_{t+1} = (I - eta H) e_t - eta z_t, hence
exactly, per coordinate j (a_j = 1 - eta h_j):

    E[F(w_T) - F*] = 1/2 sum_j h_j (a_j^(2T) x_bar_j^2
                                    + eta^2 sigma^2 (1 - a_j^(2T)) / (1 - a_j^2)),

(the second term eta^2 sigma^2 when a_j = 0: only the last step's noise
remains), the conditional expectation given the data, which the entry
returns as "theory". With T fixed, sigma ~ 1/n, so the excess falls as n^-2
once the bias a^(2T) x_bar^2 is below the noise (at kappa = 10 and T = 100,
a^(2T) <= 0.9^200 ~ 7e-10).
"""

import math

import numpy as np

HARNESS = {
    "noisy_gd": {
        "doc": "noisy full-batch gradient descent (step 1/beta, T steps from 0), Gaussian noise "
        "on each gradient calibrated to rho-zCDP at the gradient sensitivity 2 beta / n",
        "privacy": "zcdp",
        "families": ["diagonal_quadratic"],
        "metrics": ["excess_empirical_risk"],
        "options": {
            "steps": {"int": 1, "default": 100, "doc": "T, the number of noisy steps"},
        },
        "theory_name": "exact E excess of T noisy steps",
        "audit": {"estimator": "threshold"},
        "timeout_seconds": 600,
    }
}


def noisy_gd(instance, privacy, options, rng):
    x, h = instance.records, instance.hessian_diagonal
    n, d = x.shape
    beta = instance.constants["smoothness"]
    steps = options["steps"]
    sensitivity = 2.0 * beta / n
    sigma = sensitivity * math.sqrt(steps / (2.0 * privacy["rho"]))
    eta = 1.0 / beta
    x_bar = x.mean(axis=0)
    w = np.zeros(d)
    for _ in range(steps):
        w = w - eta * (h * (w - x_bar) + rng.normal(0.0, sigma, d))
    a = 1.0 - eta * h  # in [0, 1 - 1/kappa]: 0 < h_j <= beta
    a2t = a ** (2 * steps)
    # sum_{k < T} a^(2k) (1 where a = 0: only the last step's noise remains)
    geometric = (1.0 - a2t) / (1.0 - a * a)
    theory = 0.5 * np.sum(h * (a2t * x_bar**2 + eta**2 * sigma**2 * geometric))
    return {"w": w, "gradient_evaluations": steps * n, "theory": float(theory)}
