"""Size of the packaged app; cold start of it and of the installed wheel (issues 6 and 16).

    scripts/package.sh                                   # build dist/attention-workbench first
    .venv/bin/python benchmarks/package_size_startup.py  # records results/package_size_startup.md
    # before/after: an older build and checkout measured in the same session, interleaved
    .venv/bin/python benchmarks/package_size_startup.py \
        --baseline-dist OLD/dist/attention-workbench --baseline-src OLD

Size: every file under dist/attention-workbench (MB = 10^6 bytes), the biggest parts, and the
size of a .tar.gz of the folder (what a download would weigh). Goal: at most 120 MB (issue 31).

Start-up: from spawning the binary to the app's log line "main window shown after N ms"
(logged from the window's first show event), offscreen, the median of --runs launches; the
process is ended as soon as the line appears. "Cold" runs drop the OS page cache first (Linux,
root only: `echo 1 > /proc/sys/vm/drop_caches`), so the libraries are read from disk again, as
on the first launch after a boot; "warm" runs do not. Goal: under 2 s. N itself (time since the
app's UI module was imported) is reported too: the rest is the bootloader, Python and imports.
Each launch gets an empty temporary data and settings folder, as on a first launch.

Saved providers: the packaged app launched again with a providers.toml of two providers in its
settings folder (SAVED_PROVIDERS) and the last session's panes on them (SAVED_PANES), as a user
who saved some has. Goal (issue 31): a cold start of at most 450 ms; the file and its schemas
(pydantic) are read after the first paint, the panes drawn from their saved keys until then.

Wheel: the checkout built as a wheel (`pip wheel --no-deps`) and installed into its own venv
(build/wheel-venv, dependencies from the package index the first time); `workbench gui` of that
venv is timed the same way. Goals (issue 16): packaged <= 600 ms, wheel <= 1000 ms (cold).

Floor: what no change to the app can remove. A bare PySide6 window painted once (Python, Qt's
libraries, QApplication, one paint), both as a PyInstaller one-folder build made by the app's own
PyInstaller (build/package-venv; built once into build/bare-window) and in the wheel's venv;
`--version` of the packaged binary (bootloader, Python, the CLI module; no Qt); and
`python -c pass` of the wheel's venv.

Every launch of one round (each program once) runs back to back, round after round, so that a
busy machine weighs on all alike; the 1-minute load average is recorded with each figure.
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
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

ROOT = Path(__file__).resolve().parent.parent
EXE = ".exe" if sys.platform == "win32" else ""
DIST = ROOT / "dist" / "attention-workbench"
SHOWN = re.compile(r"main window shown after (\d+) ms")
SIZE_GOAL_MB = 120  # issue 31 (issue 6: 150)
GOALS_MS = {"packaged": 600, "wheel": 1000, "providers": 450}
WHEEL_VENV = ROOT / "build" / "wheel-venv"
PACKAGE_VENV = ROOT / "build" / "package-venv"
BARE = ROOT / "build" / "bare-window"
BIN = "Scripts" if sys.platform == "win32" else "bin"
# A bare PySide6 window: it logs the app's line at its first paint, as the app does.
BARE_WINDOW = """
import sys, time
from PySide6.QtWidgets import QApplication, QWidget
class W(QWidget):
    def paintEvent(self, event):
        print("main window shown after 0 ms", file=sys.stderr, flush=True)
app = QApplication(sys.argv[:1]); w = W(); w.resize(1400, 900); w.show(); app.exec()
"""


# Two providers as a user saves them (`workbench providers add`); their keys are never read at
# start-up, so the variables need not exist.
SAVED_PROVIDERS = """
[providers.deepseek]
base_url = "https://api.deepseek.com/v1"
api_key_env = "DEEPSEEK_API_KEY"
models = ["deepseek-chat", "deepseek-reasoner"]

[providers.gateway]
base_url = "http://127.0.0.1:4000/v1"
api_key_env = "LITELLM_MASTER_KEY"
models = ["llama-3-70b", "qwen2.5-72b"]
"""
# The window's settings (gui.ini) of a session that compared a model of each.
SAVED_PANES = "[General]\npanes=deepseek|deepseek-chat, gateway|llama-3-70b\n"


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


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) process `pid` has used so far, in ms (Linux; else 0): unlike
    the wall-clock start, little changed by other work on a shared machine."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def drop_page_cache() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
        return True
    except OSError:
        return False


def launch(
    command: Sequence[str],
    timeout_s: float,
    line: re.Pattern[str] = SHOWN,
    providers: str | None = None,
) -> tuple[float, float, float]:
    """(ms from spawn to the log line, the N of the line, the CPU ms the process had used by
    then); raises when no line comes. With a `line` that has no number, (ms until the process
    ended, 0, 0). `providers`: the text of a providers.toml put in the settings folder first."""
    with tempfile.TemporaryDirectory(prefix="workbench-start-") as home:
        if providers is not None:
            Path(home, "config").mkdir()
            Path(home, "config", "providers.toml").write_text(providers, encoding="utf-8")
            Path(home, "config", "gui.ini").write_text(SAVED_PANES, encoding="utf-8")
        env = {
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            "WORKBENCH_DATA_DIR": f"{home}/data",
            "WORKBENCH_CONFIG_DIR": f"{home}/config",
        }
        found: list[tuple[float, float]] = []
        pattern = line
        lines: list[str] = []
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            list(command),
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
                m = pattern.search(line)
                if m and not found:
                    n = float(m.group(1)) if m.groups() else 0.0
                    found.append(((time.perf_counter() - t0) * 1000, n, cpu_ms(proc.pid)))
                    seen.set()
            if not found and pattern is ENDED:
                found.append(((time.perf_counter() - t0) * 1000, 0.0, 0.0))
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
        raise SystemExit(f"no 'main window shown' line from {command} in {timeout_s} s:\n{tail}")
    return found[0]


ENDED = re.compile(r"(?!x)x")  # matches nothing: the launch is timed until the process ends


Launch = tuple[Sequence[str], re.Pattern[str], str | None]  # command, its line, providers.toml


def measure(
    commands: dict[str, Launch],
    runs: int,
    cold: bool,
    timeout_s: float,
) -> dict[str, dict]:
    """Each command `runs` times, one round after another; medians per command."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    inner: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    load: list[float] = []
    dropped = True
    for _ in range(runs):
        load.append(os.getloadavg()[0])
        for name, (command, line, providers) in commands.items():
            if cold:
                dropped = drop_page_cache() and dropped
            w, n, c = launch(command, timeout_s, line, providers)
            cpu[name].append(c)
            wall[name].append(w)
            inner[name].append(n)
    return {
        name: {
            "runs_ms": [round(x) for x in wall[name]],
            "median_ms": round(statistics.median(wall[name])),
            "in_app_median_ms": round(statistics.median(inner[name])),
            "cpu_median_ms": round(statistics.median(cpu[name])),
            "page_cache_dropped": cold and dropped,
            "load_1min_median": round(statistics.median(load), 2),
        }
        for name in commands
    }


def goal(kind: str, ms: float) -> str:
    limit = GOALS_MS[kind]
    return f"<= {limit} ms {'met' if ms <= limit else '**not met**'}"


def wheel_command(src: Path, venv: Path) -> list[str]:
    """`workbench gui` of `venv`, with `src` built as a wheel and installed there."""
    python = venv / BIN / "python"
    with tempfile.TemporaryDirectory(prefix="workbench-wheel-") as out:
        pip = [sys.executable, "-m", "pip", "-q"]
        subprocess.run(
            [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", out, str(src)], check=True
        )
        wheel = str(next(Path(out).glob("*.whl")))
        if not python.exists():
            base = getattr(sys, "_base_executable", sys.executable)
            subprocess.run([base, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q", wheel], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", wheel],
            check=True,
        )
    return [str(venv / BIN / "workbench"), "gui"]


def bare_binary(folder: Path) -> Path:
    """BARE_WINDOW as a PyInstaller one-folder build, by the app's PyInstaller (built once)."""
    binary = folder / "dist" / "bare-window" / f"bare-window{EXE}"
    if not binary.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / "bare_window.py"
        script.write_text(BARE_WINDOW)
        pyinstaller = PACKAGE_VENV / BIN / f"pyinstaller{EXE}"
        options = ["--noconfirm", "--log-level", "WARN", "--onedir", "--name", "bare-window"]
        places = ["--distpath", str(folder / "dist"), "--workpath", str(folder / "work")]
        command = [str(pyinstaller), *options, *places, "--specpath", str(folder), str(script)]
        subprocess.run(command, check=True)
    return binary


def _relative(command: Sequence[str]) -> list[str]:
    """The command as recorded: paths inside the checkout relative to it, not this machine's."""
    prefix = f"{ROOT}{os.sep}"
    return [arg.removeprefix(prefix) for arg in command]


def start_rows(label: str, kind: str, figures: dict, cold: bool, runs: int) -> str:
    how = "cold start (page cache dropped)" if cold else "warm start"
    return (
        f"| {label}: {how}, median of {runs} | {figures['median_ms']} ms (runs "
        f"{figures['runs_ms']}; in-app {figures['in_app_median_ms']} ms; CPU "
        f"{figures.get('cpu_median_ms', 0)} ms; load "
        f"{figures['load_1min_median']}) | {goal(kind, figures['median_ms']) if kind else ''} |"
    )


Program = tuple[Sequence[str], re.Pattern[str], str, str | None]


def programs(args: argparse.Namespace, binary: Path) -> dict[str, Program]:
    """label -> (command, the line that ends its timing, goal kind, providers.toml or None)."""
    found: dict[str, Program] = {
        "packaged": ([str(binary)], SHOWN, "packaged", None),
        "packaged, with two saved providers": ([str(binary)], SHOWN, "providers", SAVED_PROVIDERS),
    }
    if args.baseline_dist:
        old = args.baseline_dist.resolve() / f"attention-workbench{EXE}"
        found["packaged, before"] = ([str(old)], SHOWN, "", None)
        label = "packaged, with two saved providers, before"
        found[label] = ([str(old)], SHOWN, "", SAVED_PROVIDERS)
    if (PACKAGE_VENV / BIN).is_dir():
        bare = [str(bare_binary(BARE))]
        label = "floor: bare PySide6 window, packaged (PyInstaller one-folder)"
        found[label] = (bare, SHOWN, "", None)
    if not args.no_wheel:
        found["wheel"] = (wheel_command(ROOT, WHEEL_VENV), SHOWN, "wheel", None)
        if args.baseline_src:
            command = wheel_command(
                args.baseline_src.resolve(), WHEEL_VENV.with_name("wheel-venv-before")
            )
            found["wheel, before"] = (command, SHOWN, "", None)
        python = str(WHEEL_VENV / BIN / "python")
        bare_window = [python, "-c", BARE_WINDOW]
        found["floor: bare PySide6 window (wheel's venv)"] = (bare_window, SHOWN, "", None)
        found["floor: python -c pass (wheel's venv)"] = ([python, "-c", "pass"], ENDED, "", None)
    found["floor: packaged --version (no Qt)"] = ([str(binary), "--version"], ENDED, "", None)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=DIST, help="the one-folder build")
    parser.add_argument("--baseline-dist", type=Path, help="an older build, measured beside it")
    parser.add_argument(
        "--baseline-src", type=Path, help="an older checkout: its wheel beside ours"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per launch")
    parser.add_argument("--no-cold", action="store_true", help="never drop the page cache")
    parser.add_argument("--no-wheel", action="store_true", help="skip the installed wheel")
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
    found = programs(args, binary)
    commands = {name: (cmd, line, toml) for name, (cmd, line, _, toml) in found.items()}
    for command, line, toml in commands.values():  # one unrecorded launch each: font cache, .pyc
        launch(command, args.timeout, line, toml)
    cold = None if args.no_cold else measure(commands, args.runs, True, args.timeout)
    warm = measure(commands, args.runs, False, args.timeout)

    mb = size / 1e6
    lines = [
        "| figure | value | goal |",
        "| --- | --- | --- |",
        f"| dist folder | {mb:.1f} MB ({files} files) | <= {SIZE_GOAL_MB} MB "
        f"{'met' if mb <= SIZE_GOAL_MB else '**not met**'} |",
    ]
    if archive is not None:
        lines.append(f"| .tar.gz of it | {archive / 1e6:.1f} MB | |")
    for figures, is_cold in ((cold, True), (warm, False)):
        if figures is None or (is_cold and not figures["packaged"]["page_cache_dropped"]):
            continue
        for name, (_, _, kind, _) in found.items():
            lines.append(start_rows(name, kind, figures[name], is_cold, args.runs))
    lines += [
        "",
        "Start = spawning the program (offscreen, empty settings unless the row says "
        'otherwise) until its log line "main window shown after N ms", logged at the '
        "window's first paint; in-app = that N, "
        "counted from the import of the UI module, so the difference is the bootloader, Python "
        "start-up and imports. CPU = the user and system time the process had used by that "
        "line, which other work on the machine changes little. Load = the 1-minute load "
        "average (median over the rounds) on this shared machine. Floor rows: see the "
        "module docstring.",
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
        "commands": {name: _relative(command) for name, (command, *_) in found.items()},
        "saved_providers": SAVED_PROVIDERS,
        "saved_panes": SAVED_PANES,
        "cold": cold,
        "warm": warm,
        "goals": {"size_mb": SIZE_GOAL_MB, "start_ms": GOALS_MS},
    }
    command = "scripts/package.sh && .venv/bin/python benchmarks/package_size_startup.py"
    if args.baseline_dist:
        command += " --baseline-dist OLD/dist/attention-workbench"
    if args.baseline_src:
        command += " --baseline-src OLD"
    if args.no_wheel:
        command += " --no-wheel"
    write_result("package_size_startup", command, markdown, data, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
