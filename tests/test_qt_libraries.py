"""A box that lacks a library of Qt's xcb platform plugin: the app says which libraries and which
apt-get command fixes it, instead of Qt's abort; the package names follow Debian's rule.

The hidden library is real: a copy of the plugin PySide6 ships, with one needed soname renamed
in its bytes, loaded by Qt through QT_QPA_PLATFORM_PLUGIN_PATH (Qt itself aborts on it)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.core.system import qt_libraries
from workbench.core.system.qt_libraries import debian_package, package_for, plugin_path

HIDDEN = b"libxcb-icccm.so.4"  # the plugin needs it (a fresh Debian box lacked it: issue 25)
# a real Debian library this box lacks, padded with NULs to the same length, so the ELF string
# table keeps its offsets (a made-up name would be a package apt rejects: see below)
RENAMED = b"libxcb-ewmh.so.2"
RENAMED_PACKAGE = "libxcb-ewmh2"


def _expected_fix() -> str:
    """What the message tells the user to run: apt's name when apt knows it (the usual case),
    else how to find the package (a box without apt lists)."""
    if qt_libraries.apt_knows(RENAMED_PACKAGE):
        return "apt-get install " + RENAMED_PACKAGE
    return "apt-file search " + RENAMED.decode()


NEEDS_LDD = pytest.mark.hardware("Linux with glibc's ldd")


def _qt_folder() -> Path:
    """PySide6's Qt folder (plugins/, lib/) in the installed wheel."""
    spec = importlib.util.find_spec("PySide6")
    assert spec is not None and spec.submodule_search_locations, "PySide6 is not installed"
    return Path(spec.submodule_search_locations[0]) / "Qt"


def _shipped_plugin() -> Path:
    path = plugin_path({})
    assert path is not None, "PySide6 ships no libqxcb.so"
    return path


@pytest.fixture
def hidden_library(tmp_path: Path) -> dict[str, str]:
    """An environment whose xcb plugin needs a library this box does not have."""
    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        pytest.skip("needs Linux with ldd")
    shipped = _shipped_plugin()
    platforms = tmp_path / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    data = shipped.read_bytes()
    assert data.count(HIDDEN + b"\0") == 1
    lib_dirs = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu")
    if any(Path(d, RENAMED.decode()).exists() for d in lib_dirs):
        pytest.skip(f"{RENAMED.decode()} is installed here, so renaming to it hides nothing")
    padded = RENAMED.ljust(len(HIDDEN) + 1, b"\0")
    (platforms / shipped.name).write_bytes(data.replace(HIDDEN + b"\0", padded))
    # the plugin finds Qt's own libraries at $ORIGIN/../../lib, as in the wheel
    (tmp_path / "lib").symlink_to(_qt_folder() / "lib")
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(
        DISPLAY=":97",  # never reached: the plugin fails to load first
        QT_QPA_PLATFORM_PLUGIN_PATH=str(platforms),
        PYTHONPATH=str(Path(__file__).resolve().parent.parent),
    )
    return env


@NEEDS_LDD
def test_qt_itself_aborts_on_the_hidden_library(hidden_library: dict[str, str]) -> None:
    """The set-up is the fresh box of the issue: Qt's own start aborts (SIGABRT, exit 134)."""
    code = "from PySide6.QtWidgets import QApplication; QApplication([])"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=hidden_library, capture_output=True, timeout=60
    )
    assert proc.returncode in (-signal.SIGABRT, 134), proc.stderr.decode()
    assert b"xcb" in proc.stderr


@NEEDS_LDD
def test_the_window_names_the_missing_library_and_the_apt_command(
    hidden_library: dict[str, str],
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "gui"],
        env=hidden_library,
        capture_output=True,
        timeout=60,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 4, err  # docs/reliability.md: the window lacks system libraries
    assert "cannot open the window" in err
    assert RENAMED.decode() in err and _expected_fix() in err
    assert "libxcb-cursor" not in err  # Qt's own message blamed a library that was there
    assert "Traceback" not in err and "core dumped" not in err


@NEEDS_LDD
def test_workbench_alone_says_why_and_runs_the_headless_comparison(
    hidden_library: dict[str, str], tmp_path: Path
) -> None:
    """What scripts/run.sh starts: no window, so the headless comparison, after saying why."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench"],
        env=hidden_library,
        cwd=tmp_path,  # the comparison stopped by Ctrl+C writes the rows it has to results.csv
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    said = []
    deadline = time.monotonic() + 60
    try:
        for line in proc.stderr:
            said.append(line)
            if "Running the headless comparison instead." in line or time.monotonic() > deadline:
                break
    finally:
        proc.send_signal(signal.SIGINT)  # the comparison itself takes ~15 s: it started
        proc.communicate(timeout=60)
    text = "".join(said)
    assert text.startswith("No window: Qt's xcb platform plugin"), text
    assert RENAMED.decode() in text and _expected_fix() in text
    assert "Running the headless comparison instead." in text


def test_an_offscreen_or_wayland_start_does_not_need_the_xcb_libraries() -> None:
    assert qt_libraries.uses_xcb({"DISPLAY": ":0"}) is sys.platform.startswith("linux")
    assert not qt_libraries.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})
    assert not qt_libraries.uses_xcb(
        {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}
    )
    assert not qt_libraries.uses_xcb({})


def _owners(paths: list[str]) -> dict[str, str]:
    """path -> the Debian package that installed it (merged /usr: either spelling), one call."""
    spellings = {p: {p, p.removeprefix("/usr"), "/usr" + p.removeprefix("/usr")} for p in paths}
    asked = sorted(set().union(*spellings.values()))
    out = subprocess.run(["dpkg", "-S", *asked], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        package, _, path = line.partition(": ")
        found[path.strip()] = package.split(":")[0]  # libfoo1:amd64 -> libfoo1
    return {p: found[s] for p, names in spellings.items() for s in names if s in found}


# libraries that share one package with others: apt installs them as that package's
# dependencies (libgl1 -> libglvnd0, libfreetype6 -> libbrotli1 and zlib1g); glibc's are libc6
SHARED_PACKAGES = {"libc6", "zlib1g", "libbrotli1", "libglvnd0", "libglib2.0-0"}


@pytest.mark.hardware("Debian or Ubuntu (dpkg, ldd)")
def test_each_library_the_plugin_loads_maps_to_the_package_that_holds_it() -> None:
    if not all(shutil.which(tool) for tool in ("dpkg", "dpkg-query", "ldd")):
        pytest.skip("needs dpkg and ldd")
    out = subprocess.run(["ldd", str(_shipped_plugin())], capture_output=True, text=True)
    resolved = {}
    for line in out.stdout.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        path = where.split(" (")[0]
        if arrow and path.startswith("/") and "PySide6" not in path:
            resolved[name] = path
    # what apt knows, as far as this test needs: the packages installed here (one dpkg call;
    # an apt-cache call per name takes seconds on a busy machine)
    listed = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\n"], capture_output=True)
    installed = set(listed.stdout.decode().split())
    owners = _owners(list(resolved.values()))
    checked = 0
    for soname, path in resolved.items():
        owner = owners.get(path)
        if owner is None or owner in SHARED_PACKAGES:
            continue
        checked += 1
        computed = package_for(soname, installed.__contains__)
        assert computed == owner, f"{soname}: {computed}, but dpkg says {owner}"
    assert checked >= 30, resolved  # the plugin's tree: xcb, X11, xkb, GL, fonts, D-Bus …


def test_the_debian_rule_on_the_names_of_issue_25() -> None:
    assert debian_package("libxcb-icccm.so.4") == "libxcb-icccm4"
    assert debian_package("libxcb-keysyms.so.1") == "libxcb-keysyms1"
    assert debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert debian_package("libX11-xcb.so.1") == "libx11-xcb1"
    assert debian_package("libdbus-1.so.3") == "libdbus-1-3"
    assert debian_package("libgcc_s.so.1") == "libgcc-s1"
    # a Debian name that differs from the rule is found among the candidates apt knows
    assert package_for("libglib-2.0.so.0", {"libglib2.0-0t64"}.__contains__) == "libglib2.0-0t64"
    assert package_for("libxcb-icccm.so.4", None) == "libxcb-icccm4"  # no apt: the rule's name


def test_a_library_packaged_with_another_is_never_an_install_name_apt_rejects() -> None:
    # Found in a debootstrap'd minimal bookworm: libgthread-2.0.so.0 lives in libglib2.0-0, and
    # "apt-get install libgthread-2.0-0" failed the whole install. apt knows none of its names.
    apt = {"libglib2.0-0", "libxcb-icccm4"}.__contains__
    assert package_for("libgthread-2.0.so.0", apt) is None
    missing = qt_libraries.MissingLibraries(
        Path("/x/libqxcb.so"),
        ("libglib-2.0.so.0", "libgthread-2.0.so.0"),
        tuple(p for s in ("libglib-2.0.so.0", "libgthread-2.0.so.0") if (p := package_for(s, apt))),
    )
    assert missing.install_command() == "sudo apt-get install libglib2.0-0"
    alone = qt_libraries.MissingLibraries(Path("/x/libqxcb.so"), ("libgthread-2.0.so.0",), ())
    assert "apt-file search libgthread-2.0.so.0" in alone.message()
