"""`workbench install-desktop`: put the app in the desktop's menus (Linux and other freedesktop
systems): the .desktop entry and the hicolor icons, under $XDG_DATA_HOME or ~/.local/share."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.desktop import data_home, install, uninstall


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "install-desktop",
        help="add the app to the desktop's menus (.desktop entry and icons, for this user)",
        description="Install the app's .desktop entry and its icons (16-256 px and SVG) for this "
        "user, so desktops show it in their menus and docks. Example: "
        "`workbench install-desktop`, and `workbench install-desktop --uninstall` to undo.",
    )
    p.add_argument(
        "--data-home",
        metavar="DIR",
        type=Path,
        default=None,
        help="the data folder to install under (default: $XDG_DATA_HOME, else ~/.local/share)",
    )
    p.add_argument("--uninstall", action="store_true", help="remove what an install wrote")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if sys.platform in ("win32", "darwin"):
        print(
            "error: install-desktop is for Linux and other freedesktop desktops; on Windows "
            "and macOS the packaged app carries its own icon (docs/packaging.md)",
            file=sys.stderr,
        )
        return 2
    root = (args.data_home or data_home()).expanduser()
    try:
        paths = uninstall(root) if args.uninstall else install(root)
    except OSError as exc:
        print(
            f"error: cannot write under {root}: {exc.strerror or exc}; choose a folder you "
            "can write with --data-home",
            file=sys.stderr,
        )
        return 2
    verb = "removed" if args.uninstall else "installed"
    for path in paths:
        print(f"{verb} {path}")
    if not paths:
        print(f"nothing to remove under {root}")
    return 0
