"""The pinned dp-accounting for the fixture scripts (dp_accounting_fixture.py, pld_reference.py).

`ensure_dp_accounting` returns when the pinned version is importable; otherwise it creates (once)
a virtual environment, installs the pinned version there and re-executes the calling script in
it, guarded by an environment variable so a failed install cannot loop.
"""

import os
import subprocess
import sys
import venv

DP_ACCOUNTING_VERSION = "0.6.0"


def ensure_dp_accounting(venv_dir, script, guard):
    """Returns if the pinned dp_accounting is importable; otherwise re-executes `script` in a venv."""
    try:
        from importlib import metadata

        if metadata.version("dp-accounting") == DP_ACCOUNTING_VERSION:
            return
    except Exception:  # noqa: BLE001 -- not installed, or metadata unavailable
        pass
    if os.environ.get(guard):
        sys.exit(f"dp-accounting=={DP_ACCOUNTING_VERSION} is still not importable in {sys.executable}")
    python = os.path.join(venv_dir, "bin", "python")
    if not os.path.exists(python):
        print(f"creating virtual environment {venv_dir}", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=False).create(venv_dir)
    probe = subprocess.run(
        [python, "-c", "from importlib import metadata; print(metadata.version('dp-accounting'))"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0 or probe.stdout.strip() != DP_ACCOUNTING_VERSION:
        print(f"installing dp-accounting=={DP_ACCOUNTING_VERSION} into {venv_dir}", file=sys.stderr)
        subprocess.check_call(
            [python, "-m", "pip", "install", "--quiet", f"dp-accounting=={DP_ACCOUNTING_VERSION}"]
        )
    env = dict(os.environ, **{guard: "1"})
    os.execve(python, [python, os.path.abspath(script), *sys.argv[1:]], env)
