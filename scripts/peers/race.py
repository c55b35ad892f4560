#!/usr/bin/env python3
"""Peer race: the harness against numpy, scipy and IBM's diffprivlib, in one run,
on the same data and parameters.

Usage (from the repository root):

    python3 -m pip install -r scripts/peers/requirements.txt
    python3 scripts/peers/race.py                      # threads 1 and 2, 10 repetitions
    python3 scripts/peers/race.py --threads 2 --repeats 9 --out results/peers.md

Tasks, both on the L2-regularized logistic objective
F(w) = (1/n) sum_i softplus(-y_i <w, x_i>) + (mu/2) ||w||^2 with rows ||x_i|| <= 1:

(a) gd: T steps of full-batch noisy GD, (eps, delta)-DP. Harness:
    `runner peer-race --task gd` (solvers::full_batch_gd: one fused, rayon-parallel
    pass over the rows per step). Peer: the same algorithm in numpy (X @ w and
    X.T @ r through the bundled BLAS), same clipping C = 1, step 1/(1/4 + mu),
    w_0 = 0, last iterate, and the same noise scale sigma = (2C/n) sqrt(T)/mu_GDP,
    mu_GDP solving delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2). This
    script computes sigma itself and checks it against the harness's value; the
    noise draws differ (numpy's RNG), the scale does not. A noiseless run of both
    checks that they compute the same iterates.
(b) op: pure eps-DP logistic regression. Harness: `runner peer-race --task op`,
    output perturbation of a certified minimizer: the centre w_hat is solved to
    ||grad F(w_hat)||_2 <= gtol (L-BFGS, or Newton where d is small enough that
    it is cheaper), so ||w_hat - w*|| <= gtol/mu on every data set, and the noise
    of density ~ exp(-eps ||z|| / Delta) is calibrated to the widened
    sensitivity Delta = 2/(n mu) + 2 gtol/mu (Chaudhuri et al.'s output
    perturbation, Lowy–Razaviyayn Algorithm 1's release rule). Peers: the same
    mechanism in numpy + scipy at the same certificate (L-BFGS-B stops on the
    largest |gradient entry|, so its gtol is gtol/sqrt(d), which bounds the
    2-norm by gtol; the same widened Delta); and
    diffprivlib.models.LogisticRegression(epsilon=eps, data_norm=1, C=1/(n mu),
    fit_intercept=False), Chaudhuri et al.'s *objective* perturbation (the Vector
    mechanism) solved by L-BFGS: a different mechanism, with no certificate on
    its output, compared at the excess risk each reaches.

Excess risk: F(w) - F(w*) for every output, w* the harness's certified
ground truth (gradient norm <= 1e-13, or 1e-10 at the rounding floor),
recomputed here in numpy for the peers' outputs (and for the harness's own
outputs as a cross-check). The achieved ||grad F||_2 of every output-
perturbation centre is recomputed in numpy (untimed) and reported beside its
time.

Threads: every thread count runs in a fresh worker process with
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS set before numpy is
imported; the harness gets `--threads N`. Times are medians over the
repetitions of the compute only (no file I/O, no data generation).
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def log(msg):
    print(f"[race] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- shared maths


def sigmoid(u, np):
    return 0.5 * (1.0 + np.tanh(0.5 * u))


def gdp_sigma(n, steps, eps, delta, clip=1.0):
    """sigma = (2C/n) sqrt(T) / mu, mu the GDP budget of (eps, delta) (Dong-Roth-Su Cor 2.13)."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    def delta_of(mu):
        a = log_ndtr(-eps / mu + mu / 2)
        b = eps + log_ndtr(-eps / mu - mu / 2)
        return math.exp(a) - math.exp(b)

    hi = 1.0
    while delta_of(hi) < delta:
        hi *= 2
    mu = brentq(lambda m: delta_of(m) - delta, 1e-12, hi, xtol=1e-15, rtol=1e-15)
    return 2.0 * clip / n * math.sqrt(steps) / mu, mu


def excess(np, X, y, mu, w, wstar):
    """F(w) - F(w*) per record as softplus differences (no large-number subtraction)."""
    a = -y * (X @ w)
    b = -y * (X @ wstar)
    data = np.mean(np.logaddexp(0.0, a) - np.logaddexp(0.0, b))
    return float(data + 0.5 * mu * np.dot(w - wstar, w + wstar))


def gradient_norm(np, X, y, mu, w):
    n = X.shape[0]
    coef = -y * sigmoid(-y * (X @ w), np)
    return float(np.linalg.norm(X.T @ coef / n + mu * w))


# ---------------------------------------------------------------- peers


def numpy_gd(np, X, y, mu, steps, eta, clip, sigma, rng):
    """Full-batch noisy GD, the harness's algorithm, with X @ w and X.T @ r."""
    n, d = X.shape
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    w = np.zeros(d)
    for _ in range(steps):
        coef = -y * sigmoid(-y * (X @ w), np)
        length = np.abs(coef) * norms
        coef *= clip / np.maximum(length, clip)  # clip_C: scale min(1, C/length)
        g = (X.T @ coef) / n
        w = w - eta * (g + mu * w + sigma * rng.standard_normal(d))
    return w


def scipy_output_perturbation(np, X, y, mu, eps, gtol, rng):
    """The harness's mechanism in numpy + scipy: a centre certified to ||grad F||_2 <= gtol
    by L-BFGS-B, then l2-Laplace noise calibrated to Delta = 2/(n mu) + 2 gtol/mu.
    Returns the release, the centre and the iteration count."""
    from scipy.optimize import minimize

    n, d = X.shape

    def fun(w):
        a = -y * (X @ w)
        f = np.mean(np.logaddexp(0.0, a)) + 0.5 * mu * (w @ w)
        g = X.T @ (-y * sigmoid(a, np)) / n + mu * w
        return f, g

    # L-BFGS-B's gtol bounds max_i |g_i|; ||g||_2 <= sqrt(d) max_i |g_i| <= gtol.
    res = minimize(fun, np.zeros(d), jac=True, method="L-BFGS-B",
                   options={"gtol": gtol / math.sqrt(d), "ftol": 0.0, "maxiter": 2000})
    scale = (2.0 / (n * mu) + 2.0 * gtol / mu) / eps
    u = rng.standard_normal(d)
    return res.x + rng.gamma(d, scale) * u / np.linalg.norm(u), res.x, res.nit


def diffprivlib_fit(X, y, mu, eps, seed):
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.models import LogisticRegression

    n = X.shape[0]
    clf = LogisticRegression(epsilon=eps, data_norm=1.0, C=1.0 / (n * mu), fit_intercept=False,
                             random_state=seed, accountant=BudgetAccountant())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        clf.fit(X, y)
        seconds = time.perf_counter() - t0
    # Keep what bears on the result (convergence, privacy leaks), not deprecation notices.
    kept = [f"{w.category.__name__}: {w.message}" for w in caught
            if not issubclass(w.category, (DeprecationWarning, FutureWarning))]
    return clf.coef_.ravel().copy(), seconds, kept, int(clf.n_iter_[0])


def run_harness(cfg, task, threads, extra=()):
    cmd = [cfg["runner"], "peer-race", cfg["data"], "--task", task, "--threads", str(threads),
           "--mu", repr(cfg["mu"]), "--eps", repr(cfg["eps"]), "--seed", str(cfg["seed"]),
           "--repeats", str(cfg["repeats"]), *extra]
    if task == "gd":
        cmd += ["--delta", repr(cfg["delta"]), "--steps", str(cfg["steps"])]
    else:
        cmd += ["--gtol", repr(cfg["gtol"])]
    log(" ".join(cmd))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


# ---------------------------------------------------------------- worker


def worker(cfg, threads):
    """One thread count; numpy is imported here, after the thread variables are set."""
    import h5py
    import numpy as np

    info = {}
    try:
        from threadpoolctl import threadpool_info
        info["threadpools"] = [{k: p.get(k) for k in ("internal_api", "version", "num_threads")}
                               for p in threadpool_info()]
    except ImportError:
        info["threadpools"] = []
    with h5py.File(cfg["data"], "r") as f:
        X = np.ascontiguousarray(f["features"][...], dtype=np.float64)
        y = np.ascontiguousarray(f["labels"][...], dtype=np.float64)
    n, d = X.shape
    mu, eps, k = cfg["mu"], cfg["eps"], cfg["repeats"]
    rows = []

    # (a) full-batch noisy GD
    h = run_harness(cfg, "gd", threads)
    wstar = np.array(h["optimum"]["w"])
    info["optimum"] = {"value": h["optimum"]["value"], "grad_norm_harness": h["optimum"]["grad_norm"],
                       "grad_norm_numpy": gradient_norm(np, X, y, mu, wstar),
                       "solve_seconds": h["optimum"]["seconds"]}
    sigma, gmu = gdp_sigma(n, cfg["steps"], eps, cfg["delta"])
    rel = abs(sigma / h["calibration"]["sigma"] - 1)
    if rel > 1e-6:
        raise SystemExit(f"noise scale mismatch: numpy {sigma} vs harness {h['calibration']['sigma']}")
    info["gd_calibration"] = {"sigma_numpy": sigma, "sigma_harness": h["calibration"]["sigma"],
                              "gdp_mu": gmu, "relative_difference": rel,
                              "realised_eps_harness": h["calibration"]["realised_eps"]}
    eta = h["step_size"]
    cross = [abs(excess(np, X, y, mu, np.array(r["w"]), wstar) - r["excess_risk"]) for r in h["runs"]]
    info["harness_excess_recomputed_max_abs_diff"] = max(cross)
    rows.append(row("gd", "harness (runner peer-race)", threads, h["runs"], h["threads"]))
    runs = []
    for r in range(k):
        rng = np.random.default_rng(cfg["seed"] + r)
        t0 = time.perf_counter()
        w = numpy_gd(np, X, y, mu, cfg["steps"], eta, 1.0, sigma, rng)
        runs.append({"seconds": time.perf_counter() - t0, "excess_risk": excess(np, X, y, mu, w, wstar)})
    rows.append(row("gd", "numpy (X @ w, X.T @ r)", threads, runs, threads))
    if cfg["check_noiseless"]:
        hn = run_harness(dict(cfg, repeats=1), "gd", threads, ["--noiseless"])
        wn = numpy_gd(np, X, y, mu, cfg["steps"], eta, 1.0, 0.0, np.random.default_rng(0))
        diff = float(np.linalg.norm(wn - np.array(hn["runs"][0]["w"])))
        info["noiseless_gd_iterate_difference"] = diff
        log(f"noiseless GD: ||w_numpy - w_harness|| = {diff:.3e}")

    # (b) output perturbation vs diffprivlib objective perturbation
    h = run_harness(cfg, "op", threads)
    cal = h["calibration"]
    achieved = max(r["certified_grad_norm"] for r in h["runs"])
    rows.append(row("op", "harness output perturbation (certified L-BFGS + l2-Laplace)", threads, h["runs"],
                    h["threads"],
                    certificate=f"‖∇F‖₂ ≤ {cfg['gtol']:.0e} (max achieved {achieved:.1e}); "
                                f"Δ = 2/(nμ) + {cal['widening']:.1e}"))
    runs, notes, iters = [], set(), []
    for r in range(k):
        w, seconds, caught, nit = diffprivlib_fit(X, y, mu, eps, cfg["seed"] + r)
        notes.update(caught)
        iters.append(nit)
        runs.append({"seconds": seconds, "excess_risk": excess(np, X, y, mu, w, wstar)})
    rows.append(row("op", "diffprivlib LogisticRegression (objective perturbation, L-BFGS)", threads,
                    runs, threads, note=f"L-BFGS iterations {min(iters)}-{max(iters)}"
                    + (f"; warnings: {'; '.join(sorted(notes))}" if notes else ""),
                    certificate="none: a different mechanism (noise in the objective)"))
    if cfg["check_noiseless"]:
        # diffprivlib's solver error alone: eps so large that the perturbation is negligible.
        w, _, _, nit = diffprivlib_fit(X, y, mu, 1e9, cfg["seed"])
        info["diffprivlib_solver_excess"] = {"excess_risk": excess(np, X, y, mu, w, wstar),
                                             "grad_norm": gradient_norm(np, X, y, mu, w),
                                             "iterations": nit}
    runs, iters, norms = [], [], []
    for r in range(k):
        rng = np.random.default_rng(cfg["seed"] + r)
        t0 = time.perf_counter()
        w, centre, nit = scipy_output_perturbation(np, X, y, mu, eps, cfg["gtol"], rng)
        runs.append({"seconds": time.perf_counter() - t0, "excess_risk": excess(np, X, y, mu, w, wstar)})
        iters.append(nit)
        norms.append(gradient_norm(np, X, y, mu, centre))
    widening = 2.0 * cfg["gtol"] / mu
    rows.append(row("op", "numpy + scipy L-BFGS output perturbation (the harness's mechanism)", threads,
                    runs, threads,
                    note=f"L-BFGS iterations {min(iters)}-{max(iters)}",
                    certificate=f"‖∇F‖₂ ≤ {cfg['gtol']:.0e} (max achieved {max(norms):.1e}); "
                                f"Δ = 2/(nμ) + {widening:.1e}"))
    return {"threads": threads, "rows": rows, "info": info}


def row(task, impl, threads, runs, actual_threads, note="", certificate="–"):
    seconds = [r["seconds"] for r in runs]
    risks = [r["excess_risk"] for r in runs]
    sd = statistics.stdev(risks) if len(risks) > 1 else float("nan")
    return {"task": task, "implementation": impl, "threads": threads, "actual_threads": actual_threads,
            "median_seconds": statistics.median(seconds), "seconds": seconds,
            "mean_excess": statistics.fmean(risks), "se_excess": sd / math.sqrt(len(risks)),
            "note": note, "certificate": certificate}


# ---------------------------------------------------------------- driver


def generate(path, n, d, seed):
    """Gaussian rows N(0, I/d) scaled to norm <= 1; labels from a logistic model
    with a random w_true of norm 2 sqrt(d) (logit standard deviation about 2)."""
    import h5py
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / math.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    w_true = rng.standard_normal(d)
    w_true *= 2.0 * math.sqrt(d) / np.linalg.norm(w_true)
    y = np.where(rng.random(n) < sigmoid(X @ w_true, np), 1.0, -1.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(path, "w") as f:
        f.create_dataset("features", data=X)
        f.create_dataset("labels", data=y)
        f.attrs["generator"] = "scripts/peers/race.py generate()"
        f.attrs["seed"] = seed


def command_output(cmd, cwd=ROOT):
    try:
        return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def versions():
    import numpy
    import scipy
    import sklearn
    import diffprivlib

    commit = command_output(["git", "rev-parse", "--short", "HEAD"])
    if command_output(["git", "status", "--porcelain", "--untracked-files=no"]) not in ("", "unknown"):
        commit += " (with uncommitted changes)"
    cpu = "unknown"
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"python": platform.python_version(), "numpy": numpy.__version__, "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__, "diffprivlib": diffprivlib.__version__,
            "rustc": command_output(["rustc", "--version"]).removeprefix("rustc "), "commit": commit, "cpu": cpu,
            "cores": os.cpu_count()}


def fmt(v, digits=3):
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}g}"


def markdown(cfg, results, vers, load):
    lines = [
        "# Peer race: harness vs numpy / scipy / diffprivlib",
        "",
        f"Generated by `python3 scripts/peers/race.py {' '.join(cfg['argv'])}` on {time.strftime('%Y-%m-%d %H:%M')}.",
        f"Data: n = {cfg['n']}, d = {cfg['d']}, rows N(0, I/d) scaled to norm <= 1, logistic labels "
        f"(seed {cfg['data_seed']}). Objective F(w) = mean softplus(-y w.x) + mu/2 ||w||^2, mu = {cfg['mu']}.",
        f"(a) gd: T = {cfg['steps']} steps of full-batch noisy GD, (eps, delta) = ({cfg['eps']}, {cfg['delta']}), "
        "C = 1, step 1/(1/4 + mu), last iterate; (b) op: pure eps-DP, eps = "
        f"{cfg['eps']}, output-perturbation centres certified to ||grad F||_2 <= {cfg['gtol']:.0e}, "
        f"noise for Delta = 2/(n mu) + 2 gtol/mu; diffprivlib C = 1/(n mu) = {1 / (cfg['n'] * cfg['mu']):.3g}.",
        f"Time: median of {cfg['repeats']} repetitions, compute only. Ratio: time / harness time at the "
        "same task and threads (> 1: the harness is faster). Excess risk: F(w) - F(w*), mean ± standard "
        f"error over the {cfg['repeats']} repetitions (seeds {cfg['seed']}..{cfg['seed'] + cfg['repeats'] - 1}).",
        "",
        f"Load average (1, 5, 15 min) at start: {', '.join(f'{x:.2f}' for x in load)}"
        + (" — the machine was busy: these timings are provisional." if load[0] > 0.5 else "."),
        "",
        "| task | implementation | threads | time (s, median) | ratio | excess risk (mean ± se) | certificate of the output | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        base = {r["task"]: r["median_seconds"] for r in res["rows"] if r["implementation"].startswith("harness")}
        for r in res["rows"]:
            ratio = r["median_seconds"] / base[r["task"]]
            lines.append(f"| {r['task']} | {r['implementation']} | {r['threads']} | {r['median_seconds']:.4f} | "
                         f"{ratio:.2f} | {fmt(r['mean_excess'])} ± {fmt(r['se_excess'], 2)} | "
                         f"{r.get('certificate', '–')} | {r['note']} |")
    lines += ["", "Targets of the issue (from the rows above):"]
    for res in results:
        by = {(r["task"], r["implementation"].split(" ")[0]): r for r in res["rows"]}
        h_gd, np_gd = by[("gd", "harness")], by[("gd", "numpy")]
        h_op, dp_op, sp_op = by[("op", "harness")], by[("op", "diffprivlib")], by[("op", "numpy")]
        speed_gd = np_gd["median_seconds"] / h_gd["median_seconds"]
        speed_op = dp_op["median_seconds"] / h_op["median_seconds"]
        speed_sp = sp_op["median_seconds"] / h_op["median_seconds"]
        risk = h_op["mean_excess"] / dp_op["mean_excess"]
        met = lambda ok: "met" if ok else "NOT met"
        lines.append(
            f"- threads {res['threads']}: noisy GD at least 2x numpy: {met(speed_gd >= 2)} "
            f"(numpy / harness = {speed_gd:.2f}); output perturbation at least 1x numpy + scipy at the same "
            f"certificate: {met(speed_sp >= 1)} (scipy / harness = {speed_sp:.2f}); at least 2x diffprivlib: "
            f"{met(speed_op >= 2)} (diffprivlib / harness = {speed_op:.2f}), at excess risk "
            f"harness / diffprivlib = {risk:.2f} (objective perturbation adds less noise at this n, mu).")
    info = results[0]["info"]
    opt = info["optimum"]
    cal = info["gd_calibration"]
    lines += [
        "",
        "Checks (first thread count):",
        f"- w*: F(w*) = {opt['value']:.12g}; ||grad F(w*)|| = {opt['grad_norm_harness']:.2e} (harness), "
        f"{opt['grad_norm_numpy']:.2e} (recomputed in numpy); harness ground-truth solve (certificate 1e-13) "
        f"{opt['solve_seconds']:.3f} s.",
        f"- gd noise: sigma = {cal['sigma_numpy']:.6e} (this script, GDP mu = {cal['gdp_mu']:.6f}) vs "
        f"{cal['sigma_harness']:.6e} (harness), relative difference {cal['relative_difference']:.1e}; "
        f"harness realised eps {cal['realised_eps_harness']:.12g}.",
        f"- harness excess risks recomputed in numpy: max |difference| {info['harness_excess_recomputed_max_abs_diff']:.1e}.",
    ]
    if "diffprivlib_solver_excess" in info:
        dsolve = info["diffprivlib_solver_excess"]
        lines.append(f"- diffprivlib's solver error alone (eps = 1e9, default tol = 1e-4): excess "
                     f"{dsolve['excess_risk']:.2e}, ||grad F|| {dsolve['grad_norm']:.1e} after "
                     f"{dsolve['iterations']} L-BFGS iterations.")
    if "noiseless_gd_iterate_difference" in info:
        lines.append(f"- noiseless GD (sigma = 0): ||w_numpy - w_harness|| = "
                     f"{info['noiseless_gd_iterate_difference']:.1e} after T = {cfg['steps']} steps.")
    for res in results:
        pools = ", ".join(f"{p['internal_api']} {p['version']} ({p['num_threads']} threads)"
                          for p in res["info"]["threadpools"]) or "unknown"
        lines.append(f"- threads {res['threads']}: Python thread pools {pools}.")
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--d", type=int, default=100)
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--mu", type=float, default=0.01)
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--delta", type=float, default=1e-6)
    p.add_argument("--gtol", type=float, default=1e-10,
                   help="op: certified ||grad F||_2 of the output-perturbation centre (harness and scipy)")
    p.add_argument("--seed", type=int, default=1, help="first noise seed (repetition r uses seed + r)")
    p.add_argument("--data-seed", type=int, default=20261124)
    p.add_argument("--data", type=Path, default=ROOT / "target/peers/race-data.h5")
    p.add_argument("--runner", type=Path, default=ROOT / "target/release/runner")
    p.add_argument("--out", type=Path, default=ROOT / "results/peers.md")
    p.add_argument("--json", type=Path, default=ROOT / "target/peers/race.json")
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    p.add_argument("--config", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker is not None:
        print(json.dumps(worker(json.loads(a.config), a.worker)))
        return
    if a.repeats < 1 or a.steps < 1 or a.n < 2 or a.d < 1:
        p.error("--repeats, --steps, --d must be >= 1 and --n >= 2")
    threads = [int(t) for t in a.threads.split(",")]
    if not a.runner.exists():
        log(f"{a.runner} missing: cargo build --release -p runner")
        subprocess.run(["cargo", "build", "--release", "-p", "runner"], cwd=ROOT, check=True,
                       env={"CARGO_BUILD_JOBS": "1", **os.environ})
    load = os.getloadavg()
    log(f"generating n = {a.n}, d = {a.d} into {a.data}")
    generate(a.data, a.n, a.d, a.data_seed)
    cfg = {"runner": str(a.runner), "data": str(a.data), "n": a.n, "d": a.d, "mu": a.mu, "eps": a.eps,
           "delta": a.delta, "gtol": a.gtol, "steps": a.steps, "seed": a.seed, "repeats": a.repeats,
           "data_seed": a.data_seed, "argv": sys.argv[1:]}
    results = []
    for i, t in enumerate(threads):
        env = dict(os.environ, **{v: str(t) for v in THREAD_VARS})
        log(f"worker with {t} thread(s)")
        out = subprocess.run([sys.executable, __file__, "--worker", str(t), "--config",
                              json.dumps(dict(cfg, check_noiseless=i == 0))],
                             env=env, check=True, stdout=subprocess.PIPE, text=True)
        results.append(json.loads(out.stdout))
    vers = versions()
    text = markdown(cfg, results, vers, load)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(text)
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps({"config": cfg, "versions": vers, "load": load, "results": results}, indent=1))
    print(text)
    log(f"wrote {a.out} and {a.json}")


if __name__ == "__main__":
    main()
