"""The app's identity on a freedesktop (Linux, BSD) desktop: app id, .desktop entry, icons.

The package ships `desktop/attention-workbench.desktop` and a hicolor icon theme
(`icons/hicolor/NxN/apps/attention-workbench.png`, 16-256 px, and `scalable/.../.svg`) among its
resources; `workbench install-desktop` copies them where desktops look for a user's own apps
(`$XDG_DATA_HOME`, default ~/.local/share), so the app shows in menus, docks and launchers.
No Qt here: the CLI installs the entry without starting a GUI.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from workbench.resources import resource

APP_ID = "attention-workbench"  # the .desktop file's name, the icon's name, Wayland's app id
LAUNCHER = "attention-workbench"  # the windowed launcher pyproject.toml installs


def desktop_file() -> Path:
    return resource("desktop", f"{APP_ID}.desktop")


def hicolor_dir() -> Path:
    return resource("icons", "hicolor")


def icon_files() -> list[Path]:
    """Every shipped size of the icon, smallest first, then the SVG."""
    root = hicolor_dir()
    pngs = sorted(root.glob(f"*x*/apps/{APP_ID}.png"), key=lambda p: int(p.parts[-3].split("x")[0]))
    return [*pngs, *root.glob(f"scalable/apps/{APP_ID}.svg")]


def data_home() -> Path:
    """$XDG_DATA_HOME, else ~/.local/share (the XDG Base Directory default)."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def launch_command() -> str:
    """What the entry's Exec runs: the launcher by name when it is on PATH, else its full path
    (a venv that is not activated), else this Python with `-m workbench gui`."""
    if getattr(sys, "frozen", False):  # the packaged app: the binary itself
        return shlex.quote(sys.executable)
    if shutil.which(LAUNCHER):
        return LAUNCHER
    beside = Path(sys.executable).parent / LAUNCHER
    if beside.is_file():
        return shlex.quote(str(beside))
    return f"{shlex.quote(sys.executable)} -m workbench gui"


def entry_text(exec_line: str) -> str:
    """The shipped entry with its Exec line pointing at `exec_line`."""
    lines = desktop_file().read_text(encoding="utf-8").splitlines()
    return "\n".join(f"Exec={exec_line}" if ln.startswith("Exec=") else ln for ln in lines) + "\n"


def installed_paths(root: Path) -> list[Path]:
    """Where install() puts each file under the data folder `root`."""
    icons = [root / "icons" / "hicolor" / p.relative_to(hicolor_dir()) for p in icon_files()]
    return [root / "applications" / f"{APP_ID}.desktop", *icons]


def install(root: Path) -> list[Path]:
    """Copy the entry and the icons under `root`; returns the files written."""
    entry, *icons = installed_paths(root)
    for source, dest in zip(icon_files(), icons, strict=True):
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(entry_text(launch_command()), encoding="utf-8")
    return [entry, *icons]


def uninstall(root: Path) -> list[Path]:
    """Remove what install() wrote under `root`; returns the files removed."""
    removed = []
    for path in installed_paths(root):
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed
