"""Finding and preparing the Python that runs the kernel worker (GUI side; no torch here).

The worker runs in a Python that can import torch: this one when it can, else python3 on PATH or
a configured path. A packaged app is not such a Python: its bundle's library paths are cleaned
out of the child's environment, and the shipped sources are put on its PYTHONPATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# the folder holding kernels_bridge/ (the repository, or a packaged app's _internal/)
PROJECT_ROOT = Path(__file__).resolve().parents[2]


class WorkerError(RuntimeError):
    """The worker cannot be started, reached or spoken to; the message says why."""


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a worker process: a packaged app's library path cleaned out.

    PyInstaller puts its bundle directory first on LD_LIBRARY_PATH (saving the original in
    LD_LIBRARY_PATH_ORIG); a system Python must not load the bundle's libraries, so the original
    is restored, or the bundle's entries dropped. PYTHONHOME/PYTHONPATH pointing into the bundle
    go too. The project root is put on PYTHONPATH so `-m kernels_bridge.worker` resolves.
    """
    env = dict(os.environ if base is None else base)
    bundle = getattr(sys, "_MEIPASS", None)
    for var in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
        orig = env.pop(f"{var}_ORIG", None)
        if orig is not None:
            env[var] = orig
        elif bundle and var in env:
            kept = [p for p in env[var].split(os.pathsep) if p and not p.startswith(bundle)]
            if kept:
                env[var] = os.pathsep.join(kept)
            else:
                env.pop(var)
    if bundle:
        env.pop("PYTHONHOME", None)
    paths = [str(PROJECT_ROOT)]
    for p in env.get("PYTHONPATH", "").split(os.pathsep):
        if p and not (bundle and p.startswith(bundle)) and p not in paths:
            paths.append(p)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def candidate_pythons(configured: str | None = None) -> list[str]:
    """sys.executable (unless frozen: then it is the app, not Python), python3 on PATH, then
    the configured path."""
    out: list[str] = []
    if not is_frozen() and sys.executable:
        out.append(sys.executable)
    found = shutil.which("python3")
    if found:
        out.append(found)
    if configured:
        out.append(configured)
    seen: list[str] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def find_worker_python(configured: str | None = None, timeout_s: float = 30.0) -> str:
    """The first candidate that can `import torch`; else the first that runs at all (its
    worker will then say in its hello that torch is missing)."""
    env = child_env()
    runnable: list[str] = []
    for cand in candidate_pythons(configured):
        try:
            proc = subprocess.run(
                [cand, "-c", "import torch"],
                env=env,
                capture_output=True,
                timeout=timeout_s,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        runnable.append(cand)
        if proc.returncode == 0:
            return cand
    if runnable:
        return runnable[0]
    raise WorkerError("no Python interpreter found to run the kernel worker; pass --worker PATH")
