"""Size of the packaged app and its cold-start time (issue 6).

    scripts/package.sh                                   # build dist/attention-workbench first
    .venv/bin/python benchmarks/package_size_startup.py  # records results/package_size_startup.md

Size: every file under dist/attention-workbench (MB = 10^6 bytes), the biggest parts, and the
size of a .tar.gz of the folder (what a download would weigh). Goal: under 150 MB.

Start-up: from spawning the binary to the app's log line "main window shown after N ms"
(logged from the window's first show event), offscreen, the median of --runs launches; the
process is ended as soon as the line appears. "Cold" runs drop the OS page cache first (Linux,
root only: `echo 1 > /proc/sys/vm/drop_caches`), so the libraries are read from disk again, as
on the first launch after a boot; "warm" runs do not. Goal: under 2 s. N itself (time since the
app's UI module was imported) is reported too: the rest is the bootloader, Python and imports.
Each launch gets an empty temporary data and settings folder, as on a first launch.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

ROOT = Path(__file__).resolve().parent.parent
EXE = ".exe" if sys.platform == "win32" else ""
DIST = ROOT / "dist" / "attention-workbench"
SHOWN = re.compile(r"main window shown after (\d+) ms")
SIZE_GOAL_MB = 150
START_GOAL_MS = 2000


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def biggest_parts(folder: Path, count: int = 12) -> list[tuple[str, int]]:
    """Sizes of the entries of _internal/ (and of PySide6/'s big files), largest first."""
    internal = folder / "_internal"
    base = internal if internal.is_dir() else folder
    parts: list[tuple[str, int]] = []
    for entry in base.iterdir():
        if entry.is_symlink():
            continue
        size = folder_bytes(entry) if entry.is_dir() else entry.stat().st_size
        parts.append((entry.name + ("/" if entry.is_dir() else ""), size))
    qt = base / "PySide6"
    if qt.is_dir():
        for f in qt.rglob("*"):
            if f.is_file() and f.stat().st_size > 4_000_000:
                parts.append((str(f.relative_to(base)), f.stat().st_size))
    return sorted(parts, key=lambda x: -x[1])[:count]


def archive_bytes(folder: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "app.tar.gz"
        with tarfile.open(out, "w:gz", compresslevel=6) as tar:
            tar.add(folder, arcname=folder.name)
        return out.stat().st_size


def drop_page_cache() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
        return True
    except OSError:
        return False


def launch(binary: Path, timeout_s: float) -> tuple[float, float]:
    """(ms from spawn to the log line, the N of the line); raises when no line comes."""
    with tempfile.TemporaryDirectory(prefix="workbench-start-") as home:
        env = {
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            "WORKBENCH_DATA_DIR": f"{home}/data",
            "WORKBENCH_CONFIG_DIR": f"{home}/config",
        }
        found: list[tuple[float, float]] = []
        lines: list[str] = []
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [str(binary)],
            env=env,
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        )
        seen = threading.Event()

        def read() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                lines.append(line)
                m = SHOWN.search(line)
                if m and not found:
                    found.append(((time.perf_counter() - t0) * 1000, float(m.group(1))))
                    seen.set()
            seen.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        seen.wait(timeout_s)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(5)
    if not found:
        tail = "".join(lines[-10:])
        raise SystemExit(f"no 'main window shown' line from {binary} in {timeout_s} s:\n{tail}")
    return found[0]


def measure(binary: Path, runs: int, cold: bool, timeout_s: float) -> dict:
    wall, inner = [], []
    dropped = True
    for _ in range(runs):
        if cold:
            dropped = drop_page_cache() and dropped
        w, n = launch(binary, timeout_s)
        wall.append(w)
        inner.append(n)
    return {
        "runs_ms": [round(x) for x in wall],
        "median_ms": round(statistics.median(wall)),
        "in_app_median_ms": round(statistics.median(inner)),
        "page_cache_dropped": cold and dropped,
    }


def goal(ms: float) -> str:
    return f"< {START_GOAL_MS} ms {'met' if ms < START_GOAL_MS else '**not met**'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=DIST, help="the one-folder build")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per launch")
    parser.add_argument("--no-cold", action="store_true", help="never drop the page cache")
    parser.add_argument("--no-archive", action="store_true", help="skip the .tar.gz size")
    parser.add_argument("--quick", action="store_true", help="print only; record nothing")
    args = parser.parse_args()
    dist = args.dist.resolve()
    binary = dist / f"attention-workbench{EXE}"
    if not binary.is_file():
        raise SystemExit(f"no binary at {binary}: build it with scripts/package.sh")

    size = folder_bytes(dist)
    files = sum(1 for p in dist.rglob("*") if p.is_file())
    parts = biggest_parts(dist)
    archive = None if args.no_archive else archive_bytes(dist)
    launch(binary, args.timeout)  # one unrecorded launch: fonts cache, first-run files
    cold = None if args.no_cold else measure(binary, args.runs, True, args.timeout)
    warm = measure(binary, args.runs, False, args.timeout)
    start = cold if cold and cold["page_cache_dropped"] else warm

    mb = size / 1e6
    lines = [
        "| figure | value | goal |",
        "| --- | --- | --- |",
        f"| dist folder | {mb:.1f} MB ({files} files) | < {SIZE_GOAL_MB} MB "
        f"{'met' if mb < SIZE_GOAL_MB else '**not met**'} |",
    ]
    if archive is not None:
        lines.append(f"| .tar.gz of it | {archive / 1e6:.1f} MB | |")
    if cold and cold["page_cache_dropped"]:
        lines.append(
            f"| cold start (page cache dropped), median of {args.runs} | {cold['median_ms']} ms "
            f"(runs {cold['runs_ms']}; in-app {cold['in_app_median_ms']} ms) | "
            f"{goal(cold['median_ms'])} |"
        )
    lines.append(
        f"| warm start, median of {args.runs} | {warm['median_ms']} ms (runs {warm['runs_ms']}; "
        f"in-app {warm['in_app_median_ms']} ms) | "
        + (goal(warm["median_ms"]) if start is warm else "")
        + " |"
    )
    lines += [
        "",
        "Start = spawning the binary (offscreen, empty settings) until its log line "
        '"main window shown after N ms"; in-app = that N, counted from the import of the UI '
        "module, so the difference is the bootloader, Python start-up and imports.",
        "",
        "Biggest parts of the folder:",
        "",
        "| part | MB |",
        "| --- | --- |",
        *[f"| `{name}` | {b / 1e6:.1f} |" for name, b in parts],
        "",
    ]
    markdown = "\n".join(lines)
    print(markdown)
    data = {
        "machine": machine_record(),
        "dist_bytes": size,
        "dist_mb": round(mb, 1),
        "files": files,
        "archive_bytes": archive,
        "biggest_parts": parts,
        "cold": cold,
        "warm": warm,
        "goals": {"size_mb": SIZE_GOAL_MB, "start_ms": START_GOAL_MS},
    }
    command = "scripts/package.sh && .venv/bin/python benchmarks/package_size_startup.py"
    write_result("package_size_startup", command, markdown, data, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
