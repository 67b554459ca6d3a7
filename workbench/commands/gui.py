"""`workbench gui` (also `workbench` alone): the desktop app."""

from __future__ import annotations

import argparse
import os
import sys


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "gui",
        help="open the desktop app (the default with a display)",
        description="Open the Attention Workbench window.",
    )
    add_gui_args(p)
    p.set_defaults(func=run)


def add_gui_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--demo-screenshot",
        metavar="PATH",
        help="run the default comparison, save a PNG of the window and exit",
    )
    p.add_argument(
        "--demo",
        choices=("compare", "sweep", "providers"),
        default="compare",
        help="what --demo-screenshot plays: the default comparison, a 1K-64K sweep of the "
        "attention twins, or the provider panel's connection test",
    )
    p.add_argument(
        "--screenshot-when",
        choices=("done", "streaming"),
        default="done",
        help="take the demo screenshot when the run is done, or mid-stream",
    )
    p.add_argument(
        "--lang",
        choices=("en", "zh_CN"),
        default=None,
        help="UI language (default: the saved choice, else the system locale)",
    )
    p.add_argument(
        "--kernel-csv",
        metavar="PATH|h200",
        help="time the built-in provider's attention from a `workbench kernels` CSV "
        "(measured on a GPU) instead of the analytic model; h200 is the sweep shipped with "
        "the app",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="speed of the built-in provider's simulated models (0.1 = 10x faster)",
    )


def display_problem() -> str | None:
    """Why a window cannot open here, or None when it can."""
    if (
        sys.platform.startswith("linux")
        and not os.environ.get("QT_QPA_PLATFORM")
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        return (
            "no display: DISPLAY and WAYLAND_DISPLAY are unset (an SSH session or a "
            "server?). Use `workbench bench` for headless runs, or set "
            "QT_QPA_PLATFORM=offscreen for screenshots."
        )
    try:
        import PySide6.QtWidgets  # noqa: F401
    except ImportError as exc:
        return (
            f"Qt cannot load ({exc}): reinstall attention-workbench (it depends on "
            "PySide6-Essentials); on Linux, Qt also needs the system libraries libegl1, "
            "libxkbcommon0, libfontconfig1 and libdbus-1-3"
        )
    return None


def run(args: argparse.Namespace) -> int:
    problem = display_problem()
    if problem:
        print(f"error: cannot open the window: {problem}", file=sys.stderr)
        return 2
    from workbench.ui.app import main

    return main(args)
