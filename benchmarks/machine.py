"""Describe the machine a benchmark ran on, and record results beside that description."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
PACKAGES = (
    "openai",
    "httpx2",
    "aiohttp",
    "PySide6-Essentials",
    "pyqtgraph",
    "qasync",
    "torch",
    "triton",
)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=RESULTS.parent,
            check=False,
        )
        return out.stdout.strip() or "uncommitted"
    except OSError:
        return "unknown"


def machine_record() -> dict[str, Any]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            continue
    mem_gib = None
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        mem_gib = round(pages / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "packages": versions,
        "commit": _git_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def write_result(
    name: str, command: str, markdown: str, data: dict[str, Any], quick: bool = False
) -> Path | None:
    """Write results/<name>.md (human) and results/<name>.json (machine), unless a quick run."""
    if quick:
        return None
    RESULTS.mkdir(parents=True, exist_ok=True)
    m = data.get("machine") or machine_record()
    header = (
        f"# {name}\n\nMachine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, "
        f"{m['os']}, Python {m['python']}\nPackages: "
        + ", ".join(f"{k} {v}" for k, v in m["packages"].items())
        + f"\nCommit: {m['commit']}, {m['date']}\nCommand: `{command}`\n\n"
    )
    md_path = RESULTS / f"{name}.md"
    md_path.write_text(header + markdown)
    (RESULTS / f"{name}.json").write_text(json.dumps(data, indent=1, default=str) + "\n")
    print(f"recorded {md_path.relative_to(RESULTS.parent.parent)}")
    return md_path
